#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""UDP flows, many at once, every datagram checked.

server ADDR PORT SECONDS
    Echo every datagram to its sender, for SECONDS.  A datagram "WHO"
    is answered with "WHO ADDR PORT": the address and port the server
    sees the sender at.

client ADDR PORT FLOWS DATAGRAMS
    FLOWS sockets, each connected to ADDR PORT from its own port.  Each
    first asks "WHO" (the server must see loopback and, as pasta keeps
    it where free, the client's own port); then each sends DATAGRAMS
    datagrams of random content and sizes (1 to 65000 bytes), a window
    of flows at a time, and checks that every echo comes back on the
    socket that sent it, from the address and port it was sent to, byte
    for byte (SHA-256 of all bytes per flow, and each datagram).  A
    datagram not echoed within a second is sent again, at most twice.
    Prints a summary; exits 1 on any mismatch.
"""
import hashlib
import os
import random
import select
import socket
import sys
import time

WINDOW = 8


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def server(addr, port, seconds):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((addr, port))
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        r, _, _ = select.select([s], [], [], 0.5)
        if not r:
            continue
        data, src = s.recvfrom(65535)
        if data == b"WHO":
            data = ("WHO %s %d" % (src[0], src[1])).encode()
        s.sendto(data, src)


def exchange(s, peer, data, tries=3):
    """Send one datagram, wait for its echo; return the echo or None."""
    for _ in range(tries):
        s.send(data)
        end = time.monotonic() + 1
        while time.monotonic() < end:
            r, _, _ = select.select([s], [], [], end - time.monotonic())
            if not r:
                break
            echo, src = s.recvfrom(65535)
            if src[:2] != peer:
                raise SystemExit("echo from %s, not %s" % (src, peer))
            if echo[:8] == data[:8] or (data == b"WHO" and
                                        echo.startswith(b"WHO ")):
                return echo
    return None


def client(addr, port, flows, count):
    fam = family(addr)
    peer = (socket.getaddrinfo(addr, port, fam)[0][4][0], port)
    socks = []
    for _ in range(flows):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.bind((addr, 0))
        s.connect((addr, port))
        socks.append(s)
    kept = 0
    for s in socks:
        echo = exchange(s, peer, b"WHO")
        if not echo:
            raise SystemExit("no answer to WHO from port %d" %
                             s.getsockname()[1])
        _, seen_addr, seen_port = echo.decode().split()
        if seen_addr not in ("127.0.0.1", "::1"):
            raise SystemExit("the server sees %s, not loopback" % seen_addr)
        if int(seen_port) == s.getsockname()[1]:
            kept += 1
    rng = random.Random(int.from_bytes(os.urandom(8), "big"))
    sent = [hashlib.sha256() for _ in socks]
    got = [hashlib.sha256() for _ in socks]
    nbytes = 0
    for base in range(0, flows, WINDOW):
        group = range(base, min(base + WINDOW, flows))
        for seq in range(count):
            pending = {}
            for i in group:
                size = rng.choice((1, 9, 100, 1400, 1472, 4000, 9000,
                                   rng.randint(9, 65000)))
                data = (i.to_bytes(4, "big") + seq.to_bytes(4, "big") +
                        rng.randbytes(max(0, size - 8)))[:size]
                if size < 8:
                    data = data.ljust(8, b"\0")
                sent[i].update(data)
                socks[i].send(data)
                pending[i] = data
            for i, data in pending.items():
                s = socks[i]
                echo = None
                end = time.monotonic() + 1
                while echo is None and time.monotonic() < end:
                    r, _, _ = select.select([s], [], [],
                                            end - time.monotonic())
                    if not r:
                        break
                    e, src = s.recvfrom(65535)
                    if src[:2] != peer:
                        raise SystemExit("flow %d: echo from %s, not %s" %
                                         (i, src, peer))
                    if e[:8] == data[:8]:
                        echo = e
                if echo is None:
                    echo = exchange(s, peer, data, 2)
                if echo != data:
                    raise SystemExit(
                        "flow %d datagram %d (%d bytes): echo %s" %
                        (i, seq, len(data), "lost" if echo is None else
                         "of %d bytes, differs" % len(echo)))
                got[i].update(echo)
                nbytes += len(data)
    for i in range(flows):
        if sent[i].digest() != got[i].digest():
            raise SystemExit("flow %d: SHA-256 of the echoes differs" % i)
    print("%d flows x %d datagrams (%d bytes) echoed intact, sha256 equal; "
          "%d of %d flows kept their source port" %
          (flows, count, nbytes, kept, flows))
    if kept * 2 < flows:
        raise SystemExit("the server saw the client's own port in only "
                         "%d of %d flows" % (kept, flows))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "server":
        server(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    elif len(sys.argv) == 6 and sys.argv[1] == "client":
        client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
               int(sys.argv[5]))
    else:
        sys.exit(__doc__)


main()
