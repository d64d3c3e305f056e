#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""netshim - seed corpora for the libFuzzer targets.

Writes valid messages, as a guest would send them, into
tests/fuzz/corpus/<target>/: ARP, DHCPv4, DHCPv6, NDP, TCP, UDP and ICMP
over IPv4 and IPv6, and the VMM's stream framing.  The fuzzers mutate
from there, which gets them past the checks a random input never passes.

Addresses are those of tests/fuzz/common.c: guest 203.0.113.2/24 and
2001:db8:1::2/64, gateway 203.0.113.1 and fe80::1.

Usage: tests/fuzz/mkcorpus.py [OUTDIR]   (default: tests/fuzz/corpus)
"""
import hashlib
import ipaddress
import os
import struct
import sys

GUEST_MAC = bytes.fromhex("525400123456")
OUR_MAC = bytes.fromhex("026e7368696d")
BCAST_MAC = b"\xff" * 6
GUEST4 = ipaddress.IPv4Address("203.0.113.2").packed
GW4 = ipaddress.IPv4Address("203.0.113.1").packed
PEER4 = ipaddress.IPv4Address("198.51.100.10").packed
ANY4 = bytes(4)
BCAST4 = b"\xff" * 4
GUEST6 = ipaddress.IPv6Address("2001:db8:1::2").packed
GUEST_LL6 = ipaddress.IPv6Address("fe80::5054:ff:fe12:3456").packed
OUR_LL6 = ipaddress.IPv6Address("fe80::1").packed
PEER6 = ipaddress.IPv6Address("2001:db8:2::10").packed
ANY6 = bytes(16)
ALL_ROUTERS6 = ipaddress.IPv6Address("ff02::2").packed
DHCP6_MCAST = ipaddress.IPv6Address("ff02::1:2").packed

FIX_CSUM = b"\x01"      # fuzz_frame's control byte: repair checksums
KEEP_CSUM = b"\x00"
VNET_HDR = b"\x02"       # fuzz_frame's control byte: a virtio-net header


def csum(data):
    """Internet checksum (RFC 1071) of bytes."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def l4_with_csum(l4, off, pseudo):
    """Layer-4 bytes with the checksum at off computed over pseudo + l4."""
    l4 = bytearray(l4)
    l4[off:off + 2] = b"\0\0"
    c = csum(pseudo + bytes(l4))
    l4[off:off + 2] = struct.pack("!H", c or 0xffff)
    return bytes(l4)


CSUM_OFF = {6: 16, 17: 6, 1: 2, 58: 2}


def ip4(src, dst, proto, l4, ttl=64):
    """An IPv4 packet with right checksums."""
    pseudo = b"" if proto == 1 else \
        src + dst + struct.pack("!BBH", 0, proto, len(l4))
    if proto in CSUM_OFF:
        l4 = l4_with_csum(l4, CSUM_OFF[proto], pseudo)
    hdr = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 1,
                                0x4000, ttl, proto, 0, src, dst))
    hdr[10:12] = struct.pack("!H", csum(bytes(hdr)))
    return bytes(hdr) + l4


def ip6(src, dst, proto, l4, hop=64, ext=b""):
    """An IPv6 packet with a right layer-4 checksum; ext: extension headers,
    proto then names the first of them and the last one's next header is
    the upper layer's."""
    upper = proto if not ext else ext_upper(ext)
    pseudo = src + dst + struct.pack("!IxxxB", len(l4), upper)
    if upper in CSUM_OFF:
        l4 = l4_with_csum(l4, CSUM_OFF[upper], pseudo)
    return struct.pack("!IHBB16s16s", 6 << 28, len(ext) + len(l4), proto,
                       hop, src, dst) + ext + l4


def ext_upper(ext):
    """Next header of the last extension header in ext."""
    off = 0
    while True:
        nh, hlen = ext[off], (ext[off + 1] + 1) * 8
        off += hlen
        if off >= len(ext):
            return nh


def eth(dst, ethertype, payload, src=GUEST_MAC):
    return dst + src + struct.pack("!H", ethertype) + payload


def udp(sport, dport, payload):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def tcp(sport, dport, seq, ack, flags, payload=b"", opts=b"", wnd=64240):
    doff = (20 + len(opts)) // 4
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, doff << 4,
                       flags, wnd, 0, 0) + opts + payload


SYN_OPTS = (b"\x02\x04\x05\xb4"         # MSS 1460
            b"\x04\x02"                 # SACK permitted
            b"\x08\x0a\x00\x00\x10\x00\x00\x00\x00\x00"  # timestamps
            b"\x01"                     # NOP
            b"\x03\x03\x07")            # window scale 7
FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10


def tcp_segments():
    """TCP segments a guest sends in a connection's life."""
    return {
        "syn": tcp(40000, 80, 1000, 0, SYN, opts=SYN_OPTS),
        "syn-mss-only": tcp(40001, 443, 5, 0, SYN, opts=b"\x02\x04\x04\x00"),
        "syn-noopts": tcp(40002, 22, 77, 0, SYN),
        "ack": tcp(40000, 80, 1001, 5001, ACK),
        "data": tcp(40000, 80, 1001, 5001, PSH | ACK,
                    b"GET / HTTP/1.1\r\nHost: peer\r\n\r\n"),
        "fin": tcp(40000, 80, 1031, 5001, FIN | ACK),
        "rst": tcp(40000, 80, 1031, 0, RST),
        "synack": tcp(8080, 33000, 9000, 7001, SYN | ACK, opts=SYN_OPTS),
    }


def dhcp4(msgtype, opts=b"", ciaddr=ANY4, flags=0x8000, xid=0x3903f326):
    """A BOOTREQUEST carrying DHCP options."""
    hdr = struct.pack("!BBBBIHH4s4s4s4s16s64s128sI", 1, 1, 6, 0, xid, 0,
                      flags, ciaddr, ANY4, ANY4, ANY4,
                      GUEST_MAC + bytes(10), b"", b"", 0x63825363)
    o = bytes([53, 1, msgtype])
    o += bytes([61, 7, 1]) + GUEST_MAC                  # client id
    o += bytes([55, 8, 1, 3, 6, 12, 15, 26, 28, 119])   # parameter list
    o += bytes([57, 2, 0x05, 0xdc])                    # max size 1500
    return hdr + o + opts + b"\xff"


def dhcp4_messages():
    req_addr = bytes([50, 4]) + GUEST4
    server_id = bytes([54, 4]) + GW4
    other = bytes([50, 4]) + ipaddress.IPv4Address("203.0.113.99").packed
    return {
        "discover": dhcp4(1),
        "discover-hostname": dhcp4(1, bytes([12, 5]) + b"guest"),
        "request-selecting": dhcp4(3, req_addr + server_id),
        "request-init-reboot": dhcp4(3, req_addr),
        "request-wrong-addr": dhcp4(3, other),
        "request-renewing": dhcp4(3, ciaddr=GUEST4, flags=0),
        "inform": dhcp4(8, ciaddr=GUEST4, flags=0),
        "release": dhcp4(7, server_id, ciaddr=GUEST4, flags=0),
        "decline": dhcp4(4, req_addr + server_id),
        "overload": dhcp4(1, bytes([52, 1, 3])),
    }


def opt6(code, val):
    return struct.pack("!HH", code, len(val)) + val


CLIENT_DUID = struct.pack("!HH", 3, 1) + GUEST_MAC
SERVER_DUID = struct.pack("!HH", 3, 1) + OUR_MAC


def ia_na(iaid=1, addr=None):
    sub = b"" if addr is None else opt6(5, addr + struct.pack("!II", 0, 0))
    return opt6(3, struct.pack("!III", iaid, 0, 0) + sub)


def dhcp6(msgtype, opts, xid=0x1234ab):
    return struct.pack("!I", msgtype << 24 | xid) + opts


def dhcp6_messages():
    cid = opt6(1, CLIENT_DUID)
    sid = opt6(2, SERVER_DUID)
    oro = opt6(6, struct.pack("!HHH", 23, 24, 82))
    elapsed = opt6(8, b"\0\0")
    return {
        "solicit": dhcp6(1, cid + elapsed + oro + ia_na()),
        "solicit-rapid": dhcp6(1, cid + opt6(14, b"") + ia_na()),
        "solicit-ta-pd": dhcp6(1, cid + opt6(4, struct.pack("!I", 2)) +
                           opt6(25, struct.pack("!III", 3, 0, 0))),
        "request": dhcp6(3, cid + sid + oro + ia_na(addr=GUEST6)),
        "confirm": dhcp6(4, cid + ia_na(addr=GUEST6)),
        "confirm-offlink": dhcp6(4, cid + ia_na(addr=PEER6)),
        "renew": dhcp6(5, cid + sid + ia_na(addr=GUEST6)),
        "rebind": dhcp6(6, cid + ia_na(addr=PEER6)),
        "release": dhcp6(8, cid + sid + ia_na(addr=GUEST6)),
        "decline": dhcp6(9, cid + sid + ia_na(addr=GUEST6)),
        "info-request": dhcp6(11, elapsed + oro),
    }


def ndp_messages():
    """(source, destination, ICMPv6 message) of solicitations."""
    slla = bytes([1, 1]) + GUEST_MAC
    target = OUR_LL6
    snm = bytes.fromhex("ff0200000000000000000001ff") + target[13:]
    return {
        "rs": (GUEST_LL6, ALL_ROUTERS6,
               bytes([133, 0, 0, 0]) + bytes(4) + slla),
        "rs-unspec": (ANY6, ALL_ROUTERS6, bytes([133, 0, 0, 0]) + bytes(4)),
        "ns-resolve": (GUEST_LL6, snm,
                       bytes([135, 0, 0, 0]) + bytes(4) + target + slla),
        "ns-unicast": (GUEST6, PEER6,
                       bytes([135, 0, 0, 0]) + bytes(4) + PEER6),
        "ns-dad": (ANY6, bytes.fromhex("ff0200000000000000000001ff000002"),
                   bytes([135, 0, 0, 0]) + bytes(4) + GUEST6),
    }


def arp(op, sip, tip, tha=bytes(6)):
    return struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, GUEST_MAC,
                       sip, tha, tip)


def arp_messages():
    return {
        "request-gw": arp(1, GUEST4, GW4),
        "request-peer": arp(1, GUEST4, PEER4),
        "request-own": arp(1, GUEST4, GUEST4),
        "probe": arp(1, ANY4, GUEST4),
        "reply": arp(2, GUEST4, GW4, OUR_MAC),
    }


def icmp_echo(v6, ident=0x1234, payload=b"netshim ping"):
    return (bytes([128 if v6 else 8, 0, 0, 0]) +
            struct.pack("!HH", ident, 1) + payload)


def ip_packets():
    """Ethernet payloads: (ethertype, packet)."""
    p = {}
    for name, seg in tcp_segments().items():
        p["tcp4-" + name] = (0x0800, ip4(GUEST4, PEER4, 6, seg))
        p["tcp6-" + name] = (0x86dd, ip6(GUEST6, PEER6, 6, seg))
    p["udp4-dns"] = (0x0800, ip4(GUEST4, PEER4, 17, udp(53000, 53, dns_query())))
    p["udp6-dns"] = (0x86dd, ip6(GUEST6, PEER6, 17, udp(53001, 53, dns_query())))
    p["udp4-nocsum"] = (0x0800, ip4_nocsum_udp())
    p["icmp4-echo"] = (0x0800, ip4(GUEST4, PEER4, 1, icmp_echo(False)))
    p["icmp6-echo"] = (0x86dd, ip6(GUEST6, PEER6, 58, icmp_echo(True)))
    p["icmp6-echo-ll"] = (0x86dd, ip6(GUEST_LL6, OUR_LL6, 58, icmp_echo(True)))
    hbh = bytes([58, 0, 1, 4, 0, 0, 0, 0])      # hop-by-hop, PadN
    p["icmp6-hbh"] = (0x86dd, ip6(GUEST6, PEER6, 0, icmp_echo(True), ext=hbh))
    frag = bytes([17, 0, 0, 1, 0, 0, 0, 1])     # fragment, MF
    p["udp6-frag"] = (0x86dd, ip6(GUEST6, PEER6, 44, udp(1, 2, b"x"),
                                  ext=frag))
    p["ip4-options"] = (0x0800, ip4_with_options())
    for name, msg in dhcp4_messages().items():
        p["dhcp4-" + name] = (0x0800, ip4(ANY4, BCAST4, 17, udp(68, 67, msg)))
    for name, msg in dhcp6_messages().items():
        p["dhcp6-" + name] = (0x86dd, ip6(GUEST_LL6, DHCP6_MCAST, 17,
                                          udp(546, 547, msg), hop=1))
    for name, (src, dst, msg) in ndp_messages().items():
        p["ndp-" + name] = (0x86dd, ip6(src, dst, 58, msg, hop=255))
    return p


def ip4_nocsum_udp():
    """UDP over IPv4 without a checksum (field zero, allowed)."""
    l4 = udp(40000, 7, b"echo me")
    hdr = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 2,
                                0x4000, 64, 17, 0, GUEST4, PEER4))
    hdr[10:12] = struct.pack("!H", csum(bytes(hdr)))
    return bytes(hdr) + l4


def ip4_with_options():
    """An IPv4 header with a NOP/EOL option word, carrying an echo."""
    l4 = l4_with_csum(icmp_echo(False), 2, b"")
    hdr = bytearray(struct.pack("!BBHHHBBH4s4s4s", 0x46, 0, 24 + len(l4), 3,
                                0, 64, 1, 0, GUEST4, PEER4, b"\x01\x01\x01\x00"))
    hdr[10:12] = struct.pack("!H", csum(bytes(hdr)))
    return bytes(hdr) + l4


def dns_query():
    return (struct.pack("!HHHHHH", 0xbeef, 0x0100, 1, 0, 0, 0) +
            b"\x04peer\x07example\x00" + struct.pack("!HH", 1, 1))


def frames():
    """Whole Ethernet frames from the guest."""
    f = {}
    for name, msg in arp_messages().items():
        f["arp-" + name] = eth(BCAST_MAC, 0x0806, msg)
    for name, (etype, pkt) in ip_packets().items():
        dst = BCAST_MAC if name.startswith("dhcp4") else OUR_MAC
        f[name] = eth(dst, etype, pkt)
    f["arp-padded"] = f["arp-request-gw"] + bytes(18)
    f["vlan"] = eth(OUR_MAC, 0x8100, bytes(4) + b"\x08\x00" + bytes(20))
    return f


def vnet_frames():
    """Frames from a virtio-net guest behind their header, as Linux sends
    them: a TSO segment of 9000 bytes and a partial checksum on UDP (the
    checksum field holds the pseudo-header sum, not the full one)."""
    def hdr(flags, gso, hdr_len, gso_size, start, off):
        return struct.pack("<BBHHHH", flags, gso, hdr_len, gso_size, start,
                           off)

    data = bytes(i * 7 & 0xff for i in range(9000))
    t4 = ip4(GUEST4, PEER4, 6, tcp(40000, 80, 1001, 5001, ACK, data))
    t6 = ip6(GUEST6, PEER6, 6, tcp(40000, 80, 1001, 5001, ACK, data))
    u4 = ip4(GUEST4, PEER4, 17, udp(40000, 53, dns_query()))
    u4 = u4[:26] + b"\x12\x34" + u4[28:]
    return {
        "vnet-tso4": hdr(1, 1, 54, 1460, 34, 16) + eth(OUR_MAC, 0x0800, t4),
        "vnet-tso6": hdr(1, 4, 74, 1440, 54, 16) + eth(OUR_MAC, 0x86dd, t6),
        "vnet-csum-udp4": hdr(1, 0, 0, 0, 34, 6) + eth(OUR_MAC, 0x0800, u4),
        "vnet-none": hdr(0, 0, 0, 0, 0, 0) +
        eth(OUR_MAC, 0x0800, ip4(GUEST4, PEER4, 17, udp(40000, 53,
                                                        dns_query()))),
    }


def stream_inputs():
    """Bytes a VMM writes: 32-bit big-endian length, then the frame."""
    fr = frames()

    def framed(*names):
        return b"".join(struct.pack("!I", len(fr[n])) + fr[n] for n in names)

    return {
        "one": framed("arp-request-gw"),
        "three": framed("dhcp4-discover", "ndp-rs", "tcp4-syn"),
        "partial": framed("tcp6-data", "udp4-dns")[:-7],
        "header-only": framed("icmp4-echo")[:3],
        "bad-short": struct.pack("!I", 13) + bytes(13),
        "bad-long": struct.pack("!I", 65536) + bytes(16),
    }


def conf_specs():
    return {
        "single": b"22",
        "list": b"22,80,443",
        "range": b"1000-1010",
        "mapped": b"8080:80",
        "range-mapped": b"30000-30009:40000-40009",
        "exclude": b"~22",
        "exclude-range": b"~1-1023",
        "bind4": b"203.0.113.2/8080",
        "bind6": b"2001:db8:1::2/8443:443",
        "all": b"all",
        "none": b"none",
        "lines": b"22\n80:8080\n~1000-2000\nall",
        "many": b",".join(b"%d" % p for p in range(1000, 1040)),
    }


def vu_msg(req, payload=b"", flags=1):
    """One vhost-user message: request, flags (version 1), size, payload."""
    return struct.pack("<III", req, flags, len(payload)) + payload


def vu_slots_messages():
    """QEMU 10's start-up with CONFIGURE_MEM_SLOTS (hw/virtio/vhost-user.c):
    the memory given by GET_MAX_MEM_SLOTS and ADD_MEM_REG, a region removed
    and added back, then a queue set up in it.  fuzz_vu_msg attaches the
    memfd (1 MiB) to ADD_MEM_REG and REM_MEM_REG."""
    need = 1 << 3
    uva = 0x7f0000000000

    def reg(req, gpa, size, off, flags=1 | need):
        return vu_msg(req, struct.pack("<QQQQQ", 0, gpa, size, uva + gpa,
                                       off), flags)
    m = vu_msg(1)                                       # GET_FEATURES
    m += vu_msg(15)                                     # GET_PROTOCOL_FEATURES
    m += vu_msg(16, struct.pack("<Q", 1 << 3 | 1 << 15))
    m += vu_msg(36)                                     # GET_MAX_MEM_SLOTS
    m += vu_msg(3)                                      # SET_OWNER
    m += vu_msg(2, struct.pack("<Q", 1 << 32 | 1 << 30), 1 | need)
    m += reg(37, 0, 0x20000, 0)
    m += reg(37, 0x20000, 0xe0000, 0x20000)
    m += reg(38, 0x20000, 0xe0000, 0)
    m += reg(37, 0x20000, 0xe0000, 0x20000, 1)
    m += vu_msg(8, struct.pack("<II", 0, 256))
    m += vu_msg(10, struct.pack("<II", 0, 0))
    m += vu_msg(9, struct.pack("<IIQQQQ", 0, 0, uva, uva + 0x2000,
                                uva + 0x1000, 0), 1 | need)
    m += vu_msg(18, struct.pack("<II", 0, 1))
    m += reg(38, 0, 0x20000, 0)                         # rings' region goes
    return {"qemu_slots": m}


def mig_tcp(state=4, sock=b""):
    """One TCP record of a device state (tcp/migrate.c), v4."""
    g = ipaddress.IPv6Address("::ffff:203.0.113.2").packed
    r = ipaddress.IPv6Address("::ffff:198.51.100.10").packed
    return (g + r + struct.pack(">HHBBBBHH", 49152, 80, state, 7, 8, 0, 0,
                                1460) +
            struct.pack(">IIIIII", 1000, 5000, 4000, 999, 65535, len(sock)) +
            sock)


def mig_sock(sndq=b"abc", notsent=1, rcvq=b"defgh"):
    """The socket part of a TCP record: state, then its queues."""
    laddr = ipaddress.IPv6Address("::ffff:203.0.113.2").packed
    paddr = ipaddress.IPv6Address("::ffff:198.51.100.10").packed
    return (struct.pack(">BBBBB3x", 4, 1, 7, 7, 7) + laddr +
            struct.pack(">H", 49152) + paddr + struct.pack(">H", 80) +
            struct.pack(">12I", 1460, 12345, 77777, 88888, len(sndq),
                        notsent, len(rcvq), 1, 65535, 65535, 65535, 2) +
            sndq + rcvq)


def migrate_states():
    """Device states a migration's destination reads (daemon/migrate.c)."""
    head = struct.pack(">QI", 0x4e53484d49475254, 1)
    guest = struct.pack(">H", 1) + GUEST_MAC + b"\x03\x00" + GUEST6
    end = struct.pack(">H", 0xffff)
    return {
        "empty": head + end,
        "guest": head + guest + end,
        "tcp": head + guest + struct.pack(">HI", 2, 2) + mig_tcp() +
               mig_tcp(1) + end,
        "tcp-sock": head + struct.pack(">HI", 2, 1) + mig_tcp(sock=mig_sock())
                    + end,
    }


def upgrade_states():
    """States a new netshim reads in an upgrade in place, after the set-up
    (daemon/upgrade.c): no descriptor comes with them."""
    end = struct.pack(">H", 0xffff)
    link = struct.pack(">HBBI", 18, 0, 0, 5) + b"\x00\x00\x00\x2a\x02" + \
        struct.pack(">I", 64) + struct.pack(">I", 60) + b"\x00" * 60
    guest = struct.pack(">H", 1) + GUEST_MAC + b"\x03\x00" + GUEST6
    misc = struct.pack(">H", 17) + b"\x01" + b"\x00" * 7 + \
        ipaddress.IPv6Address("fe80::5").packed + struct.pack(">Q", 12)
    counters = struct.pack(">HI", 22, 2) + b"\x09frames_in" + \
        struct.pack(">Q", 7) + b"\x03bad" + struct.pack(">Q", 1)
    inbound = (ipaddress.IPv6Address("::ffff:203.0.113.2").packed +
               ipaddress.IPv6Address("::ffff:198.51.100.1").packed +
               struct.pack(">HHBBBBQ", 5000, 40000, 17, 1, 0, 0, 1) +
               struct.pack(">Q", 12345))
    flows = struct.pack(">HI", 21, 1) + inbound
    tcp = struct.pack(">HI", 20, 1) + mig_tcp()[:-4] + \
        struct.pack(">I", 0xffffffff) + b"\xfd"
    return {
        "empty": struct.pack(">HBBII", 18, 0, 0, 0, 0) + end,
        "link": link + guest + misc + counters + end,
        "flows": link + flows + end,
        "tcp-nofd": link + tcp + end,
    }


def passt_side(o, oport, e, eport):
    """One side of passt's TCP record: ports in the host's order."""
    return (ipaddress.IPv6Address(o).packed + ipaddress.IPv6Address(e).packed
            + struct.pack("=HH", oport, eport))


def passt_tcp():
    """passt's record of one connection (struct tcp_tap_transfer)."""
    tap = passt_side("::ffff:198.51.100.10", 80, "::ffff:203.0.113.2", 49152)
    host = passt_side("::ffff:203.0.113.2", 41000, "::ffff:198.51.100.10",
                      80)
    return (bytes([2, 1]) + tap + host + bytes([0, 7, 8, 4]) +
            struct.pack(">IIBBHHIIIII", 1460, 4096, 0, 0, 1000, 500, 5000,
                        4000, 1000, 1000, 999))


def passt_ext(state=1, sndq=b"abc", notsent=1, rcvq=b"defgh"):
    """passt's socket state of one connection, then its queues."""
    return (struct.pack(">12I", 7000, 9000, len(sndq), notsent, len(rcvq),
                        1460, 12345, 1, 65535, 65535, 65535, 2) +
            bytes([7, 7, state, 7]) + (sndq + rcvq if state else b""))


def passt_states():
    """Device states as passt 2025-05 and later write them (version 2)."""
    head = struct.pack(">QII", 0xB1BB1D1B0BB1D1B0, 2, 2)
    addrs = (GUEST6 + ipaddress.IPv6Address("fe80::1").packed +
             ipaddress.IPv4Address("203.0.113.2").packed + GUEST_MAC)
    return {
        "passt-empty": head + addrs + struct.pack(">I", 0),
        "passt-tcp": head + addrs + struct.pack(">I", 2) + passt_tcp() * 2 +
                     passt_ext() + passt_ext(0),
    }


def ctl_rule(first, last, to, proto=6, flags=1, addr=bytes(16),
             taddr=bytes(16), ifname=b""):
    """A forwarding rule as passt's pesto sends it (56 bytes)."""
    return (addr + taddr + ifname.ljust(16, b"\0") +
            struct.pack(">HHHBB", first, last, to, proto, flags))


def ctl_requests():
    """What clients send the control socket after its greeting: pesto's
    tables (HOST is 1, SPLICE 3, 0 ends them) and netshim-ctl's lines."""
    v4 = b"\0" * 10 + b"\xff\xff"
    rules = (ctl_rule(22, 22, 22) + ctl_rule(8000, 8010, 9000, flags=2) +
             ctl_rule(53, 53, 5353, proto=17, flags=0,
                      addr=v4 + GUEST4, ifname=b"pod0") +
             ctl_rule(7000, 7000, 7001, flags=0, addr=v4 + ANY4,
                      taddr=v4 + PEER4) +
             ctl_rule(1, 32767, 1, flags=7))
    return {
        "host": b"\x01" + struct.pack(">I", 5) + rules + b"\x00",
        "both": (b"\x01" + struct.pack(">I", 1) + ctl_rule(22, 22, 22) +
                 b"\x03" + struct.pack(">I", 1) +
                 ctl_rule(6000, 6000, 6000, ifname=b"lo") + b"\x00"),
        "empty": b"\x00",
        "metrics": b"NSCTL1 metrics\n",
        "capture": b"NSCTL1 capture 128\n",
    }


def write(outdir, target, name, data):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as fh:
        fh.write(data)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    fr = frames()
    for name, data in fr.items():
        write(outdir, "fuzz_frame", name, FIX_CSUM + data)
    for name in ("tcp4-syn", "udp4-dns", "icmp6-echo", "dhcp4-discover"):
        write(outdir, "fuzz_frame", name + "-keep-csum", KEEP_CSUM + fr[name])
    for name, data in vnet_frames().items():
        write(outdir, "fuzz_frame", name, VNET_HDR + data)
    for name, data in stream_inputs().items():
        write(outdir, "fuzz_stream", name, data)
    for name, data in dhcp4_messages().items():
        write(outdir, "fuzz_dhcp4", name, data)
    for name, data in dhcp6_messages().items():
        write(outdir, "fuzz_dhcp6", name, data)
    for name, (src, dst, msg) in ndp_messages().items():
        write(outdir, "fuzz_ndp", name, src + dst + msg)
    for name, data in arp_messages().items():
        write(outdir, "fuzz_arp", name, data)
    for name, (etype, pkt) in ip_packets().items():
        if not name.startswith(("dhcp", "ndp")):
            write(outdir, "fuzz_ip", name, pkt)
    for name, data in tcp_segments().items():
        write(outdir, "fuzz_tcp_seg", name, data)
    for name, data in conf_specs().items():
        write(outdir, "fuzz_conf", name, data)
    for name, data in vu_slots_messages().items():
        write(outdir, "fuzz_vu_msg", name, data)
    for name, data in {**migrate_states(), **passt_states()}.items():
        write(outdir, "fuzz_migrate", name, data)
    for name, data in ctl_requests().items():
        write(outdir, "fuzz_ctl", name, data)
    for name, data in upgrade_states().items():
        write(outdir, "fuzz_upgrade", name, data)


if __name__ == "__main__":
    main()
