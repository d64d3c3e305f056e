#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A TCP stream at a steady rate, for as long as a test runs, every byte
hashed at both ends.

send MODE ADDR PORT SEED RATE STOPFILE SECONDS
    MODE "connect" connects to ADDR PORT, "listen" accepts one
    connection there; then sends a deterministic stream (random bytes of
    SEED) at RATE bytes a second until STOPFILE exists, closes its side
    and prints "BYTES SHA256" of what it sent.  Gives up after SECONDS.

recv MODE ADDR PORT SECONDS
    Connects or accepts the same way, reads until the end of the stream
    and prints "BYTES SHA256" of what came.  Gives up after SECONDS.

A rate the sender keeps, rather than a queue shaped in the network,
leaves no queue to fill: a datagram or a ping sent beside it is not
dropped on the way, so any loss is the back-end's.
"""
import hashlib
import os
import random
import socket
import sys
import time

CHUNK = 16384


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def open_conn(mode, addr, port, seconds):
    if mode == "connect":
        s = socket.create_connection((addr, port), timeout=seconds)
        s.settimeout(seconds)
        return s
    ls = socket.socket(family(addr), socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(1)
    ls.settimeout(seconds)
    s, _ = ls.accept()
    ls.close()
    s.settimeout(seconds)
    return s


def send(mode, addr, port, seed, rate, stopfile, seconds):
    s = open_conn(mode, addr, port, seconds)
    rng = random.Random(seed)
    h = hashlib.sha256()
    total = 0
    start = time.monotonic()
    end = start + seconds
    while not os.path.exists(stopfile):
        now = time.monotonic()
        if now > end:
            print("sender: gave up after %d s" % seconds, file=sys.stderr)
            return 1
        ahead = total - rate * (now - start)
        if ahead > 0:
            time.sleep(min(ahead / rate, 0.05))
            continue
        buf = rng.randbytes(CHUNK)
        s.sendall(buf)
        h.update(buf)
        total += len(buf)
    s.shutdown(socket.SHUT_WR)
    # The other side's end of stream: everything arrived before the close
    s.recv(1)
    s.close()
    print("%d %s" % (total, h.hexdigest()))
    return 0


def recv(mode, addr, port, seconds):
    s = open_conn(mode, addr, port, seconds)
    h = hashlib.sha256()
    total = 0
    while True:
        buf = s.recv(1 << 20)
        if not buf:
            break
        h.update(buf)
        total += len(buf)
    s.close()
    print("%d %s" % (total, h.hexdigest()))
    return 0


def main():
    a = sys.argv[1:]
    if len(a) == 8 and a[0] == "send":
        return send(a[1], a[2], int(a[3]), int(a[4]), int(a[5]), a[6],
                    int(a[7]))
    if len(a) == 5 and a[0] == "recv":
        return recv(a[1], a[2], int(a[3]), int(a[4]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
