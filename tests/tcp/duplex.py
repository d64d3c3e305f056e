#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Local-flow cases of tests/integration/t_netns_sockmap.sh, one connection
each, checked the way a user of a TCP proxy would check them.

  duplex.py server|client CASE ADDRESS PORT [BYTES]

With DUPLEX_GO=FILE in its environment, either side prints "connected"
once connected and waits for FILE to exist before it starts: several
flows then start at the same moment, and bulk paces its first 2 MiB as
rst and stall do.

CASE:
  bulk       both ends send BYTES at once and shut their write side down
             when done; each reads to the end of stream.  Prints the sha256
             and length of what it sent ("sent") and received ("recv"):
             the script compares one end's "sent" with the other's "recv".
  early      the client sends 1000 bytes at once, before anything else; the
             server waits 0.3 s (the flow has lasted: it moves to the fast
             path at the next event), speaks first (a 64 KiB greeting),
             and only then reads the client's bytes; then 200 rounds of
             request/response of growing sizes; then 8 MiB each way.  Each
             side checks every byte it receives against what the other
             side sends (data known to both).
  rst        the client sends without end (its first 2 MiB paced); the
             server reads 8 MiB, then closes with SO_LINGER 0 (a reset).
             The client must get a connection error within 5 s.
  stall      the server reads 8 MiB and then stops reading (it sleeps until
             killed): the client's sends (the first 2 MiB paced) fill
             every queue and block; the script kills the server; the
             client must get a connection error within 10 s.
"""

import hashlib
import os
import random
import socket
import sys
import threading
import time

CHUNK = 1 << 18
TIMEOUT = 60


def block(seed):
    """Return 1 MiB of data determined by seed."""
    return random.Random(seed).randbytes(1 << 20)


def stream(seed, size):
    """Yield size bytes in chunks: a seeded block, each MiB numbered."""
    b = bytearray(block(seed))
    view = memoryview(b)
    off = 0
    while off < size:
        b[0:8] = (off >> 20).to_bytes(8, "little")
        for start in range(0, 1 << 20, CHUNK):
            n = min(CHUNK, size - off)
            if n <= 0:
                return
            yield view[start:start + n]
            off += n


def paced(seed, size=1 << 40):
    """Yield the stream of stream(), its first 2 MiB 20 ms apart.

    As a real sender's start: a flow that lasts moves to the sockmap
    only at a moment its queues are empty, which a sender that never
    pauses may not leave, on a loaded machine, before the other end
    stops reading or resets.
    """
    for i, piece in enumerate(stream(seed, size)):
        yield piece
        if i * CHUNK < (2 << 20):
            time.sleep(0.02)


def sender(sock, seed, size, out, pace):
    """Send the stream (paced()'s if pace), shut the write side, record
    its hash."""
    h = hashlib.sha256()
    n = 0
    for piece in (paced if pace else stream)(seed, size):
        sock.sendall(piece)
        h.update(piece)
        n += len(piece)
    sock.shutdown(socket.SHUT_WR)
    out["sent"] = "%s %d" % (h.hexdigest(), n)


def receiver(sock, out):
    """Read to the end of stream, record the hash."""
    h = hashlib.sha256()
    n = 0
    while True:
        d = sock.recv(1 << 20)
        if not d:
            break
        h.update(d)
        n += len(d)
    out["recv"] = "%s %d" % (h.hexdigest(), n)


def bulk(sock, seed, size, pace):
    """Both ways at once; print what was sent and received."""
    out = {}
    t = threading.Thread(target=sender, args=(sock, seed, size, out, pace))
    t.start()
    receiver(sock, out)
    t.join()
    print("sent %s" % out["sent"])
    print("recv %s" % out["recv"])


def recv_exact(sock, n):
    """Read exactly n bytes or fail."""
    buf = bytearray()
    while len(buf) < n:
        d = sock.recv(n - len(buf))
        if not d:
            sys.exit("end of stream after %d of %d bytes" % (len(buf), n))
        buf += d
    return bytes(buf)


def expect(sock, data, what):
    """Receive len(data) bytes; fail unless they are data."""
    got = recv_exact(sock, len(data))
    if got != data:
        sys.exit("%s: received data differs" % what)


def early(sock, server):
    """The early-data, server-first, request/response case."""
    rnd = random.Random(7)
    hello = rnd.randbytes(1000)
    greeting = rnd.randbytes(65536)
    if server:
        time.sleep(0.3)
        sock.sendall(greeting)
        expect(sock, hello, "client's early bytes")
    else:
        sock.sendall(hello)
        expect(sock, greeting, "server's greeting")
    for i in range(200):
        size = 1 + (i * 997) % 70000
        req = random.Random(1000 + i).randbytes(size)
        rep = random.Random(5000 + i).randbytes(size // 2 + 1)
        if server:
            expect(sock, req, "request %d" % i)
            sock.sendall(rep)
        else:
            sock.sendall(req)
            expect(sock, rep, "reply %d" % i)
    out = {}
    t = threading.Thread(target=sender, args=(sock, 11 if server else 12,
                                              8 << 20, out, False))
    t.start()
    want = b"".join(bytes(p) for p in stream(12 if server else 11, 8 << 20))
    expect(sock, want, "8 MiB after the exchanges")
    if sock.recv(1):
        sys.exit("data after the end")
    t.join()
    print("ok: early bytes, greeting first, 200 exchanges, 8 MiB each way")


def rst(sock, server):
    """Server resets after 8 MiB; the client must see an error."""
    if server:
        recv_exact(sock, 8 << 20)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                        b"\x01\x00\x00\x00\x00\x00\x00\x00")
        sock.close()
        return
    t0 = time.monotonic()
    try:
        for piece in paced(3):
            sock.sendall(piece)
            if time.monotonic() - t0 > 30:
                sys.exit("no error 30 s into sending")
    except OSError as e:
        t1 = time.monotonic()
        print("ok: connection error after the reset: %s" % e)
        return t1
    return None


def stall(sock, server):
    """Server stops reading after 8 MiB and waits to be killed."""
    if server:
        recv_exact(sock, 8 << 20)
        print("stalled", flush=True)
        time.sleep(TIMEOUT)
        return
    try:
        for piece in paced(4):
            sock.sendall(piece)
    except OSError as e:
        print("ok: connection error after the server was killed: %s" % e)
        return
    sys.exit("no error")


def main():
    """Parse the arguments, run one side of one case."""
    role, case, addr, port = sys.argv[1:5]
    size = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    if role == "server":
        ls = socket.socket(fam, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((addr, int(port)))
        ls.listen(4)
        ls.settimeout(TIMEOUT)
        sock, _ = ls.accept()
    else:
        sock = socket.create_connection((addr, int(port)), timeout=TIMEOUT)
    go = os.environ.get("DUPLEX_GO")
    if go:
        print("connected", flush=True)
        t0 = time.monotonic()
        while not os.path.exists(go):
            if time.monotonic() - t0 > TIMEOUT:
                sys.exit("%s never appeared" % go)
            time.sleep(0.01)
    sock.settimeout(TIMEOUT)
    server = role == "server"
    if case == "bulk":
        bulk(sock, 1 if server else 2, size, bool(go))
    elif case == "early":
        early(sock, server)
    elif case == "rst":
        rst(sock, server)
    elif case == "stall":
        stall(sock, server)
    else:
        sys.exit("unknown case " + case)


if __name__ == "__main__":
    main()
