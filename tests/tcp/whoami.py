#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Who answers on which TCP port: many listeners, one short reply each.

  whoami.py server NAME PORT...
      listen on every PORT, IPv4 and IPv6 (separate sockets); each
      connection gets "NAME PORT\\n" and is closed.  Runs until killed.
  whoami.py client ADDR SECONDS PORT...
      connect to ADDR on each PORT in turn, at most SECONDS each; print one
      line a port: "PORT NAME GOTPORT" (the reply), or "PORT refused",
      "PORT reset", "PORT closed" (no reply), "PORT timeout".

Tests tell by the reply whether the guest or a pod process took a
connection, and which port the guest saw.
"""
import selectors
import socket
import sys


def server(name, ports):
    sel = selectors.DefaultSelector()
    n = 0
    for port in ports:
        for fam, addr in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
            s = socket.socket(fam, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if fam == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                s.bind((addr, port))
            except OSError as e:
                if fam == socket.AF_INET6:
                    s.close()
                    continue
                sys.exit(f"whoami: bind {addr} port {port}: {e}")
            s.listen(64)
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ, port)
            n += 1
    print(f"whoami: {name}: {n} listeners", flush=True)
    while True:
        for key, _ in sel.select():
            try:
                c, _ = key.fileobj.accept()
            except OSError:
                continue
            try:
                c.settimeout(2)
                c.sendall(f"{name} {key.data}\n".encode())
                c.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            c.close()


def client(addr, secs, ports):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    for port in ports:
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(secs)
        try:
            s.connect((addr, port))
            data = b""
            while not data.endswith(b"\n"):
                got = s.recv(256)
                if not got:
                    break
                data += got
            line = data.decode(errors="replace").strip()
            print(f"{port} {line}" if line else f"{port} closed")
        except ConnectionRefusedError:
            print(f"{port} refused")
        except ConnectionResetError:
            print(f"{port} reset")
        except socket.timeout:
            print(f"{port} timeout")
        finally:
            s.close()
        sys.stdout.flush()


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "server":
        server(sys.argv[2], [int(p) for p in sys.argv[3:]])
    elif len(sys.argv) >= 5 and sys.argv[1] == "client":
        client(sys.argv[2], float(sys.argv[3]), [int(p) for p in sys.argv[4:]])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
