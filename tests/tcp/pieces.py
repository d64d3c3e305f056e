#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A request written in two pieces, then its answer awaited.

  pieces.py server ADDRESS PORT
  pieces.py client ADDRESS PORT COUNT MAX_MS

The client sets TCP_NODELAY, as RPC clients do, and for each of COUNT
transactions writes PIECE bytes, waits GAP seconds (so that the two
writes reach the other end apart), writes PIECE more, and reads the
server's one-byte answer, which the server sends only once it has the
whole request.  Through the kernel alone a transaction takes about GAP.
A relay that sends the second piece with Nagle's algorithm on holds it
until the first is acknowledged, and the server's kernel delays that
acknowledgement (at least 40 ms on Linux: it has nothing to send yet),
so each transaction takes 40 ms more.  The client exits 0 if the median
transaction took at most MAX_MS, and prints the median and the slowest.
The server answers one connection, then exits.
"""

import socket
import sys
import time

PIECE = 100
GAP = 0.002
TIMEOUT = 10


def server(addr, port):
    """Answer each whole request of one connection with one byte."""
    lst = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind((addr, port))
    lst.listen(1)
    lst.settimeout(TIMEOUT * 3)
    conn, _ = lst.accept()
    conn.settimeout(TIMEOUT)
    while True:
        got = b""
        while len(got) < 2 * PIECE:
            data = conn.recv(2 * PIECE - len(got))
            if not data:
                return 0 if not got else 1
            got += data
        if got != b"a" * PIECE + b"b" * PIECE:
            print("server: request garbled", file=sys.stderr)
            return 1
        conn.sendall(b"k")


def client(addr, port, count, max_ms):
    """COUNT transactions; 0 if the median is within max_ms."""
    conn = socket.create_connection((addr, port), timeout=TIMEOUT)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    took = []
    for _ in range(count):
        start = time.monotonic()
        conn.sendall(b"a" * PIECE)
        time.sleep(GAP)
        conn.sendall(b"b" * PIECE)
        if conn.recv(1) != b"k":
            print("no answer")
            return 1
        took.append((time.monotonic() - start) * 1000)
    conn.close()
    took.sort()
    median = took[len(took) // 2]
    print("%d requests in two writes %.0f ms apart: median %.1f ms, "
          "slowest %.1f ms" % (count, GAP * 1000, median, took[-1]))
    return 0 if median <= max_ms else 1


def main():
    """Entry point."""
    if len(sys.argv) == 4 and sys.argv[1] == "server":
        return server(sys.argv[2], int(sys.argv[3]))
    if len(sys.argv) == 6 and sys.argv[1] == "client":
        return client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                      float(sys.argv[5]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
