#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A new netshim that gives up half-way through an upgrade in place.

quit.py PATH BYTES

Connects to a running netshim's --upgrade-path, reads what it hands over
while it still serves (daemon/upgrade.c: its set-up and the sockets that
never change, descriptors and all), says it is ready, the word that
stops the old netshim's loop, then reads BYTES of the state that follows
(0: none) and closes the connection: a new process that crashed, or was
killed, in the middle of taking over.  The old netshim must go on
serving as if nothing happened.  Prints what it read.
"""
import array
import socket
import sys
import time


def drain(s, seconds):
    """Read for a while; descriptors that come are closed at once."""
    got = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        s.settimeout(max(end - time.monotonic(), 0.01))
        try:
            data, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(253 * 4))
        except socket.timeout:
            break
        if not data:
            break
        got += len(data)
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds = array.array("i")
                fds.frombytes(payload[:len(payload) - len(payload) % 4])
                for fd in fds:
                    socket.close(fd)
    return got


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    want = int(sys.argv[2])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    setup = drain(s, 0.5)
    s.sendall(b"REDY")
    state = 0
    while state < want:
        s.settimeout(5)
        data = s.recv(min(want - state, 4096))
        if not data:
            break
        state += len(data)
    s.close()
    print("read %d bytes of set-up, %d of the state, then hung up"
          % (setup, state))
    return 0 if setup else 1


if __name__ == "__main__":
    sys.exit(main())
