#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""netshim - hostile clients of the control socket, for t_ctl_hostile

    raw.py SOCKET send HEX          read the greeting, send the bytes
                                    (hex) and no more, print the answer
                                    up to the hang-up (10 s at most)
    raw.py SOCKET slow SECONDS      read the greeting, send one byte of a
                                    request, wait, print what came
    raw.py SOCKET noise COUNT       COUNT connections of random bytes,
                                    each answered or hung up on in 10 s
    raw.py SOCKET flood COUNT SECS  COUNT connections at once, silent,
                                    held SECS seconds, then closed
    raw.py SOCKET capture SECS      ask for a capture, read nothing for
                                    SECS seconds, hang up
    raw.py SOCKET greeting          print the greeting's length, or the
                                    text that came instead
"""
import os
import socket
import sys
import time

HELLO = 20
INFO = 1 + 128 + 4 + 4
RULE = 56


def connect(path, blocking=True):
    """A connection to the control socket."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10 if blocking else 0)
    s.connect(path)
    return s


def greeting(s):
    """Read the greeting and the tables: their length, or the text that
    came instead (a refusal)."""
    buf = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return buf.decode(errors="replace")
        buf += chunk
        if not buf.startswith(b"basil:s\0"[:len(buf)]):
            continue
        off = HELLO
        while off < len(buf):
            if buf[off] == 0:
                return off + 1
            if len(buf) < off + INFO:
                break
            count = int.from_bytes(buf[off + 1 + 128 + 4:off + INFO], "big")
            off += INFO + count * RULE


def rest(s):
    """Everything until the hang-up, as text."""
    out = b""
    s.settimeout(10)
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except OSError as e:
        out += b"[" + str(e).encode() + b"]"
    return out.decode(errors="replace").strip()


def main():
    path, what = sys.argv[1], sys.argv[2]
    if what == "greeting":
        print(greeting(connect(path)))
    elif what == "send":
        s = connect(path)
        greeting(s)
        s.sendall(bytes.fromhex(sys.argv[3]))
        s.shutdown(socket.SHUT_WR)
        print(rest(s))
    elif what == "slow":
        s = connect(path)
        greeting(s)
        s.sendall(b"\x01")
        time.sleep(float(sys.argv[3]))
        print(rest(s))
    elif what == "noise":
        for i in range(int(sys.argv[3])):
            s = connect(path)
            greeting(s)
            s.sendall(os.urandom(1 + i * 7 % 300))
            s.shutdown(socket.SHUT_WR)
            rest(s)
            s.close()
        print("noise: every connection answered or hung up on")
    elif what == "flood":
        conns = []
        for _ in range(int(sys.argv[3])):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect(path)
            except OSError:
                pass
            conns.append(s)
        time.sleep(float(sys.argv[4]))
        for s in conns:
            s.close()
        print("flood: %d connections held and closed" % len(conns))
    elif what == "capture":
        s = connect(path)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        greeting(s)
        s.sendall(b"NSCTL1 capture\n")
        time.sleep(float(sys.argv[3]))
        s.close()
        print("capture: hung up without reading")


if __name__ == "__main__":
    main()
