#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Half-close checks for tests/integration/t_tcp_halfclose.sh.

  halfclose.py server|client MODE ADDRESS PORT BYTES

MODE "client-closes": the client sends BYTES, shuts its write side down,
and must still receive the server's BYTES of reply, sent only after the
server saw the client's end of stream (and waited a second).
MODE "server-closes": the server sends BYTES and shuts its write side
down; the client reads to the end of stream, waits a second, and sends
BYTES, which the server must receive.

Each direction carries distinct deterministic data that both ends know;
each side exits 0 only if what it received is exactly what was sent, and
within MAX_MS of starting to wait for it (the wait after a half-close
includes the PAUSE), and prints one line saying what it checked.
"""

import hashlib
import random
import socket
import sys
import time

TIMEOUT = 30
CHUNK = 65536
PAUSE = 1.0
MAX_MS = 3000   # PAUSE, and 2 s for data that takes 0.1 s on this link


def payload(seed, size):
    """Return size bytes of data determined by seed."""
    return random.Random(seed).randbytes(size)


def send_all(sock, data):
    """Send data in chunks, so a slow window shows as progress."""
    for off in range(0, len(data), CHUNK):
        sock.sendall(data[off:off + CHUNK])


def recv_to_eof(sock):
    """Return everything received until the peer's end of stream."""
    parts = []
    while True:
        part = sock.recv(CHUNK)
        if not part:
            return b"".join(parts)
        parts.append(part)


def check(who, got, want, start):
    """Exit 1 with a message unless got equals want and came in time.

    start: time.monotonic() when the receiving began
    """
    ms = int((time.monotonic() - start) * 1000)
    if got != want:
        print(f"{who}: received {len(got)} bytes, sha256 "
              f"{hashlib.sha256(got).hexdigest()[:16]}, expected "
              f"{len(want)} bytes, sha256 "
              f"{hashlib.sha256(want).hexdigest()[:16]}")
        sys.exit(1)
    if ms > MAX_MS:
        print(f"{who}: {len(got)} bytes received intact but in {ms} ms, "
              f"more than {MAX_MS} ms")
        sys.exit(1)
    print(f"{who}: {len(got)} bytes received intact in {ms} ms")


def serve(mode, addr, port, size):
    """Accept one connection and play the server's part of mode."""
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    lsock = socket.socket(fam, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind((addr, port))
    lsock.listen(1)
    lsock.settimeout(TIMEOUT)
    sock, _ = lsock.accept()
    sock.settimeout(TIMEOUT)
    start = time.monotonic()
    if mode == "client-closes":
        check("server", recv_to_eof(sock), payload(1, size), start)
        time.sleep(PAUSE)
        send_all(sock, payload(2, size))
        sock.close()
    else:
        send_all(sock, payload(3, size))
        sock.shutdown(socket.SHUT_WR)
        start = time.monotonic()
        check("server", recv_to_eof(sock), payload(4, size), start)
        sock.close()


def client(mode, addr, port, size):
    """Connect and play the client's part of mode."""
    sock = socket.create_connection((addr, port), timeout=TIMEOUT)
    start = time.monotonic()
    if mode == "client-closes":
        send_all(sock, payload(1, size))
        sock.shutdown(socket.SHUT_WR)
        start = time.monotonic()
        check("client", recv_to_eof(sock), payload(2, size), start)
    else:
        check("client", recv_to_eof(sock), payload(3, size), start)
        time.sleep(PAUSE)
        send_all(sock, payload(4, size))
        sock.shutdown(socket.SHUT_WR)
        # The server closes once it has everything: wait for that
        recv_to_eof(sock)
    sock.close()


def main():
    """Parse the command line and run one side."""
    if len(sys.argv) != 6 or sys.argv[1] not in ("server", "client") or \
       sys.argv[2] not in ("client-closes", "server-closes"):
        sys.exit(__doc__)
    role, mode, addr = sys.argv[1:4]
    port, size = int(sys.argv[4]), int(sys.argv[5])
    try:
        (serve if role == "server" else client)(mode, addr, port, size)
    except OSError as e:
        print(f"{role}: {e}")
        sys.exit(1)


if __name__ == "__main__":
    main()
