#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""TCP connection rate through a backend: many short connections.

    connrate.py server PORT
        Accept connections on PORT (IPv4 and IPv6); read one byte, answer
        one byte, close. Runs until killed.

    connrate.py client ADDR PORT [-n COUNT] [-j PARALLEL] [--limit SEC]
        Open COUNT connections to ADDR PORT, PARALLEL at a time: connect,
        send one byte, wait for the answer, close. Print one JSON object:
        ok, failed, seconds, per_s (successful connections per second).
        Exit status 1 when no connection succeeded.

The server is single-threaded and event-driven so that it is never the
bottleneck of one connection; the client uses threads because each blocking
socket call releases the interpreter lock, which is all it needs.
"""
import argparse
import json
import selectors
import socket
import sys
import threading
import time


def serve(port):
    """Answer connections forever.

    @port: TCP port to listen on, all addresses of both families

    Return: never (the caller's process is killed).
    """
    lsock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    lsock.bind(("::", port))
    lsock.listen(4096)
    lsock.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ, None)
    while True:
        for key, _ in sel.select():
            if key.data is None:
                accept_all(sel, lsock)
            else:
                answer(sel, key.fileobj)


def accept_all(sel, lsock):
    """Take every pending connection of the listening socket.

    @sel:   selector the new connections are registered with
    @lsock: the listening socket
    """
    while True:
        try:
            conn, _ = lsock.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            # Out of descriptors or an aborted connection: try later
            return
        conn.setblocking(False)
        sel.register(conn, selectors.EVENT_READ, "conn")


def answer(sel, conn):
    """Echo the client's byte and close, or just close on EOF or error.

    @sel:  selector @conn is registered with
    @conn: a connected socket with something to read
    """
    try:
        if conn.recv(1):
            conn.send(b"y")
    except OSError:
        pass
    sel.unregister(conn)
    conn.close()


def one_connection(addr, port, timeout):
    """Connect, send a byte, wait for the answer, close.

    @addr:    server address
    @port:    server port
    @timeout: seconds allowed for the whole exchange

    Return: True when the answer came back.
    """
    try:
        with socket.create_connection((addr, port), timeout=timeout) as s:
            s.sendall(b"x")
            return s.recv(1) == b"y"
    except OSError:
        return False


def worker(args, count, deadline, tally, lock):
    """Run @count connections in sequence, stopping at @deadline.

    @args:     command line (addr, port)
    @count:    connections for this thread
    @deadline: time.monotonic() after which no new connection starts
    @tally:    dict with "ok" and "failed" counters, shared
    @lock:     protects @tally
    """
    ok = failed = 0
    for _ in range(count):
        if time.monotonic() > deadline:
            break
        if one_connection(args.addr, args.port, 5):
            ok += 1
        else:
            failed += 1
    with lock:
        tally["ok"] += ok
        tally["failed"] += failed


def client(args):
    """Run the bounded connection loop and print its JSON summary.

    @args: parsed command line

    Return: process exit status, 0 when at least one connection succeeded.
    """
    tally = {"ok": 0, "failed": 0}
    lock = threading.Lock()
    start = time.monotonic()
    deadline = start + args.limit
    share = [args.n // args.j + (i < args.n % args.j) for i in range(args.j)]
    threads = [threading.Thread(target=worker,
                                args=(args, c, deadline, tally, lock))
               for c in share]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = time.monotonic() - start
    out = dict(tally, n=args.n, parallel=args.j, seconds=round(secs, 3),
               per_s=round(tally["ok"] / secs, 1) if secs > 0 else 0)
    print(json.dumps(out))
    return 0 if tally["ok"] else 1


def main():
    """Parse the command line and run the server or the client.

    Return: process exit status.
    """
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("server")
    s.add_argument("port", type=int)
    c = sub.add_parser("client")
    c.add_argument("addr")
    c.add_argument("port", type=int)
    c.add_argument("-n", type=int, default=2000)
    c.add_argument("-j", type=int, default=8)
    c.add_argument("--limit", type=float, default=60,
                   help="seconds after which no new connection starts")
    args = p.parse_args()
    if args.mode == "server":
        serve(args.port)
    return client(args)


if __name__ == "__main__":
    sys.exit(main())
