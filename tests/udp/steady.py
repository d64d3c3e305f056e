#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One UDP flow kept busy for as long as a test runs.

server ADDR PORT SECONDS
    Echo every datagram for SECONDS, each answer ending with the address
    and port the server saw it come from.

client ADDR PORT STOPFILE SECONDS
    One socket connected to ADDR PORT sends a numbered datagram every
    20 ms until STOPFILE exists, each sent again every 200 ms until its
    echo came (the network may lose one; netshim must not lose the flow),
    and checks that every echo is its datagram, byte for byte, and that
    the server saw every one from the same address and port: the flow's
    socket is the same one throughout.  Prints a summary; exits 1 if a
    datagram was never echoed or came back changed, or the port changed.
"""
import os
import random
import select
import socket
import sys
import time

INTERVAL = 0.02
RESEND = 0.2
TRIES = 10


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def server(addr, port, seconds):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.bind((addr, port))
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        r, _, _ = select.select([s], [], [], 0.5)
        if not r:
            continue
        data, peer = s.recvfrom(65536)
        s.sendto(data + (" %s %d" % (peer[0], peer[1])).encode(), peer)
    return 0


def client(addr, port, stopfile, seconds):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.connect((addr, port))
    rng = random.Random(port)
    pending = {}		# number: (payload, last sent, tries)
    seen = set()
    n = echoed = 0
    end = time.monotonic() + seconds
    next_send = time.monotonic()
    stopping = None
    while time.monotonic() < end:
        now = time.monotonic()
        if stopping is None and os.path.exists(stopfile):
            stopping = now
        if stopping is not None and (not pending or now - stopping > 3):
            break
        if stopping is None and now >= next_send:
            n += 1
            payload = b"%d " % n + rng.randbytes(rng.randint(1, 1200))
            pending[n] = (payload, now, 1)
            s.send(payload)
            next_send = now + INTERVAL
        for k, (p, t, tries) in list(pending.items()):
            if now - t < RESEND:
                continue
            if tries == TRIES:
                print("datagram %d: no echo after %d tries" % (k, tries))
                return 1
            pending[k] = (p, now, tries + 1)
            s.send(p)
        r, _, _ = select.select([s], [], [], 0.005)
        if not r:
            continue
        data = s.recv(65536)
        k = int(data.split(b" ", 1)[0])
        if k not in pending:
            continue		# an echo of a datagram sent again
        p = pending.pop(k)[0]
        if data[:len(p)] != p:
            print("datagram %d: echo differs" % k)
            return 1
        seen.add(data[len(p):].decode())
        echoed += 1
    if pending:
        print("%d datagrams never echoed" % len(pending))
        return 1
    if len(seen) != 1:
        print("the server saw the flow from %s" % sorted(seen))
        return 1
    print("%d datagrams echoed, all seen from%s" % (echoed, seen.pop()))
    return 0


def main():
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == "server":
        return server(a[1], int(a[2]), int(a[3]))
    if len(a) == 5 and a[0] == "client":
        return client(a[1], int(a[2]), a[3], int(a[4]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
