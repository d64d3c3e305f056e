#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The gaps in a steady stream of datagrams a guest receives, for
tests/bench/upgrade.sh: how long an upgrade in place pauses the guest.

send PORT INTERVAL_US STOPFILE SECONDS
    Wait for a datagram on PORT, then send one datagram every
    INTERVAL_US microseconds back to where it came from, until STOPFILE
    exists (SECONDS at most), then three "end" datagrams.

recv ADDR PORT SECONDS OUTFILE
    From one socket, say hello to ADDR PORT (again every 100 ms until
    datagrams come), then take every datagram as it comes, for SECONDS
    at most or until "end": OUTFILE gets one line per gap of more than a
    millisecond between two datagrams, "START_NS END_NS" (the time of
    day, as date +%s%N gives it to the test), and a last line
    "datagrams N".

holdsrv PORT
    Accept TCP connections on PORT and hold them.

hold ADDR PORT N SECONDS
    Open N TCP connections to ADDR PORT and hold them, idle, for SECONDS
    or until killed: the state an upgrade has to move.
"""
import os
import select
import socket
import sys
import time

GAP_NS = 1000000


def send(port, interval_us, stopfile, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    _, peer = s.recvfrom(64)
    step = interval_us * 1000
    payload = b"x" * 64
    t = time.monotonic_ns()
    end = t + seconds * 1000000000
    n = 0
    while t < end:
        n += 1
        if n % 1000 == 0 and os.path.exists(stopfile):
            break
        try:
            s.sendto(payload, peer)
        except OSError:
            pass
        t += step
        # Sleep most of the wait, spin the end of it: sleep alone
        # overshoots by tens of microseconds
        left = t - time.monotonic_ns()
        if left > 200000:
            time.sleep((left - 150000) / 1e9)
        while time.monotonic_ns() < t:
            pass
    for _ in range(3):
        s.sendto(b"end", peer)
        time.sleep(0.05)
    return 0


def recv(addr, port, seconds, out):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.connect((addr, port))
    gaps = []
    n = 0
    prev = None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if prev is None:
            s.send(b"hello")
        r, _, _ = select.select([s], [], [], 0.1)
        if not r:
            continue
        try:
            data = s.recv(2048)
        except ConnectionRefusedError:
            continue		# a hello before the sender was there
        t = time.time_ns()
        if data == b"end":
            break
        n += 1
        if prev is not None and t - prev > GAP_NS:
            gaps.append((prev, t))
        prev = t
    with open(out, "w") as f:
        for a, b in gaps:
            f.write("%d %d\n" % (a, b))
        f.write("datagrams %d\n" % n)
    return 0


def holdsrv(port):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(4096)
    held = []
    while True:
        c, _ = ls.accept()
        held.append(c)


def hold(addr, port, n, seconds):
    import resource
    h = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (h, h))
    held = [socket.create_connection((addr, port), timeout=10)
            for _ in range(n)]
    print("holding %d" % len(held), flush=True)
    time.sleep(seconds)
    return 0


def main():
    a = sys.argv[1:]
    if len(a) == 5 and a[0] == "send":
        return send(int(a[1]), int(a[2]), a[3], int(a[4]))
    if len(a) == 5 and a[0] == "recv":
        return recv(a[1], int(a[2]), int(a[3]), a[4])
    if len(a) == 2 and a[0] == "holdsrv":
        return holdsrv(int(a[1]))
    if len(a) == 5 and a[0] == "hold":
        return hold(a[1], int(a[2]), int(a[3]), int(a[4]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
