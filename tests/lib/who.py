#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Who does the server see: the client's address as it arrives.

  who.py server tcp|udp PORT SECONDS
      listen on PORT, 0.0.0.0 and [::] (IPv6 only: separate sockets, as
      most servers), for SECONDS; answer each connection, or each
      datagram, with "ADDR PORT": its peer as this server sees it.
  who.py client tcp|udp ADDR PORT
      connect to ADDR PORT (UDP: a connected socket, so that only an
      answer from ADDR PORT is read), send "WHO", print the answer.  UDP
      asks at most three times, a second apart.  Exits 1 without one.

Tests tell by the answer which family and source address a forwarded
connection or datagram reached the guest with, and, for UDP, that the
reply came back from the address and port the client wrote to.
"""
import selectors
import socket
import sys
import time


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def server(proto, port, seconds):
    sel = selectors.DefaultSelector()
    kind = socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM
    for fam, addr in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
        s = socket.socket(fam, kind)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if fam == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.bind((addr, port))
        if proto == "tcp":
            s.listen(64)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    print("who: listening on %s port %d" % (proto, port), flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for key, _ in sel.select(0.5):
            s = key.fileobj
            try:
                if proto == "udp":
                    _, src = s.recvfrom(65535)
                    s.sendto(("%s %d" % src[:2]).encode(), src)
                    continue
                c, src = s.accept()
            except OSError:
                continue
            try:
                c.settimeout(2)
                c.sendall(("%s %d\n" % src[:2]).encode())
                c.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            c.close()


def client(proto, addr, port):
    fam = family(addr)
    if proto == "tcp":
        s = socket.create_connection((addr, port), timeout=5)
        data = b""
        while True:
            d = s.recv(100)
            if not d:
                break
            data += d
        if not data:
            sys.exit("who: %s port %d: closed without an answer" %
                     (addr, port))
        print(data.decode().strip())
        return
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.connect((addr, port))
    s.settimeout(1)
    for _ in range(3):
        s.send(b"WHO")
        try:
            print(s.recv(100).decode().strip())
            return
        except (socket.timeout, ConnectionRefusedError):
            continue
    sys.exit("who: %s port %d: no answer" % (addr, port))


def main():
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == "server" and a[1] in ("tcp", "udp"):
        server(a[1], int(a[2]), float(a[3]))
    elif len(a) == 4 and a[0] == "client" and a[1] in ("tcp", "udp"):
        client(a[1], a[2], int(a[3]))
    else:
        sys.exit(__doc__)


main()
