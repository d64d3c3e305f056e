#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A running netshim that hands a new one a bad state: the new netshim
must refuse it, say why, and exit 1, whatever the stream holds.

fake_old.py PATH MTU CASE

Listens at PATH as a netshim's --upgrade-path, and to the one new
netshim that connects writes what daemon/upgrade.c's old side writes,
but for CASE:
  version     another version of the state, in the set-up
  magic       not a netshim's state at all
  truncated   the set-up whole (a -netdev stream netshim of MTU MTU, no
              socket handed over), then once the new one is ready the
              state cut in the middle of its link section, and a hang-up
  section     the state with a section no netshim has
  tcp         a TCP connection whose record is out of every bound
  garbage     random bytes after the set-up
Then prints the word the new netshim answered, if any ("RFSD", or none).
Integers big endian, as netshim writes them.
"""
import os
import random
import socket
import struct
import sys

MAGIC = 0x4E53484D49475254
SETUP, LINK, TCP, END = 16, 18, 20, 0xFFFF


def setup(mtu, version=1, magic=MAGIC):
    h = bytearray(16)
    h[0] = 1				# a -netdev stream VMM's
    struct.pack_into(">H", h, 2, mtu)
    h[4:10] = b"\x02nshim"		# netshim's default MAC address
    struct.pack_into(">I", h, 12, os.getpid())
    return (struct.pack(">QIH", magic, version, SETUP) + bytes(h) +
            b"\x00")			# no socket handed over


def link(conn=False):
    """A link section: no connection, nothing read, nothing queued."""
    return struct.pack(">HBB", LINK, 0, 0) + struct.pack(">II", 0, 0)


def state(case):
    if case == "truncated":
        return link()[:5]
    if case == "section":
        return link() + struct.pack(">H", 77) + b"\x00" * 8
    if case == "tcp":
        rec = bytearray(44)
        rec[36] = 9			# no such state
        return (link() + struct.pack(">HI", TCP, 1) + bytes(rec) +
                struct.pack(">6I", 0, 0, 0, 0, 0, 0xFFFFFFFF))
    if case == "garbage":
        return random.Random(7).randbytes(4096)
    raise ValueError(case)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    path, mtu, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(path)
    ls.listen(1)
    ls.settimeout(30)
    c, _ = ls.accept()
    c.settimeout(10)
    if case == "version":
        c.sendall(setup(mtu, version=2))
    elif case == "magic":
        c.sendall(setup(mtu, magic=0x1234))
    else:
        c.sendall(setup(mtu))
        if c.recv(4) != b"REDY":
            print("no REDY")
            return 1
        c.sendall(state(case))
        if case == "truncated":
            c.shutdown(socket.SHUT_WR)
    try:
        word = c.recv(4)
    except OSError:
        word = b""
    print("answer: %s" % (word.decode() or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
