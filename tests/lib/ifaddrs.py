#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print an interface's addresses with their protocol, one a line:

    ADDRESS/PREFIX proto PROTO

PROTO is who made the address, as the kernel records it (IFA_PROTO, Linux
5.18 on): kernel_ra for an address SLAAC formed from a router
advertisement, kernel_ll for the kernel's link-local one, kernel_lo,
unspec for one added by hand or by a DHCP client.  iproute2 before 6.3
does not show it, so the tests read it here.

    ifaddrs.py IFNAME
"""
import socket
import struct
import sys

RTM_NEWADDR, RTM_GETADDR = 20, 22
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
IFA_ADDRESS, IFA_LOCAL, IFA_PROTO = 1, 2, 11
PROTOS = {0: "unspec", 1: "kernel_lo", 2: "kernel_ra", 3: "kernel_ll"}


def attrs(data):
    """Yield (type, payload) of the rtattrs in data."""
    off = 0
    while off + 4 <= len(data):
        length, kind = struct.unpack_from("=HH", data, off)
        if length < 4 or off + length > len(data):
            break
        yield kind & 0x3fff, data[off + 4:off + length]
        off += (length + 3) & ~3


def dump(ifindex):
    """Yield (address, prefix, protocol) of every address on ifindex."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                         socket.NETLINK_ROUTE)
    req = struct.pack("=BBHI", socket.AF_UNSPEC, 0, 0, 0)
    sock.send(struct.pack("=IHHII", 16 + len(req), RTM_GETADDR,
                          NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + req)
    while True:
        buf = sock.recv(65536)
        off = 0
        while off + 16 <= len(buf):
            length, kind = struct.unpack_from("=IH", buf, off)
            if length < 16 or off + length > len(buf):
                return
            msg = buf[off + 16:off + length]
            off += (length + 3) & ~3
            if kind in (NLMSG_DONE, NLMSG_ERROR):
                return
            if kind != RTM_NEWADDR or len(msg) < 8:
                continue
            family, prefix, _, _, index = struct.unpack_from("=BBBBI", msg)
            if index != ifindex:
                continue
            found = dict(attrs(msg[8:]))
            raw = found.get(IFA_LOCAL, found.get(IFA_ADDRESS))
            if raw is None:
                continue
            proto = found.get(IFA_PROTO, b"\0")[0]
            yield socket.inet_ntop(family, raw), prefix, proto


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ifaddrs.py IFNAME")
    for addr, prefix, proto in dump(socket.if_nametoindex(sys.argv[1])):
        print(f"{addr}/{prefix} proto {PROTOS.get(proto, proto)}")


if __name__ == "__main__":
    main()
