#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile guest cases for netshim, sent through tests/hostile/sender.

    cases.py SENDER SOCKET GROUP [SECONDS]
    cases.py - tap:IFNAME GROUP [SECONDS]

The second form is namespace mode: run inside the namespace, it writes
the frames into netshim's tap device IFNAME through a packet socket and
reads netshim's frames there (groups l3, tcp, dhcp, synflood: the others
are about the stream socket).  HOSTILE_GUEST_MAC, when set, is the
guest's MAC address (the tap's).

Each group crafts frames, writes them with the QEMU stream framing through
the sender (a plain pipe to netshim's UNIX socket) and reads what netshim
answers.  After every named case an ARP request goes out and its reply must
come back: netshim processes frames in order, so the reply proves it
survived that case and still serves this connection.  Every case is logged
with its frames in hex to $HOSTILE_LOG, so a crash names its frame.

Exit status 0 when every expectation held, 1 otherwise.
"""

import os
import queue
import random
import signal
import struct
import subprocess
import sys
import threading
import time

GUEST_MAC = bytes.fromhex(os.environ.get("HOSTILE_GUEST_MAC",
                                         "52:54:00:12:34:56").replace(":", ""))
BCAST = b"\xff" * 6
GUEST4 = bytes([203, 0, 113, 2])
PEER4 = bytes([203, 0, 113, 1])
GUEST6 = bytes.fromhex("20010db8000100000000000000000002")
PEER6 = bytes.fromhex("20010db8000100000000000000000001")
GUEST_LL = bytes.fromhex("fe80000000000000505400fffe123456")
ALL_DHCP6 = bytes.fromhex("ff020000000000000000000000010002")
ALL_ROUTERS = bytes.fromhex("ff020000000000000000000000000002")

PORT_ZERO = 9000	# peer: streams zeros to whoever connects
PORT_ECHO = 9001	# peer: echoes
PORT_DEAF = 9002	# peer: listens, never accepts
PORT_CLOSED = 9
PORT_POD_LO = 9999	# pod: listens on its loopback only

FAILS = []
LOG = open(os.environ.get("HOSTILE_LOG", "/dev/null"), "a")
rng = random.Random(1234)


def fail(msg):
    """Record a failed expectation; the group goes on."""
    print("FAIL: " + msg, flush=True)
    FAILS.append(msg)


def csum(data, init=0):
    """Internet checksum of data, starting from a partial sum."""
    if len(data) % 2:
        data += b"\0"
    s = init + sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def pseudo(src, dst, proto, length):
    """Partial sum of the IPv4 or IPv6 pseudo-header."""
    if len(src) == 4:
        b = src + dst + struct.pack("!BBH", 0, proto, length)
    else:
        b = src + dst + struct.pack("!IxxxB", length, proto)
    return sum(struct.unpack("!%dH" % (len(b) // 2), b))


def eth(payload, etype, src=GUEST_MAC, dst=BCAST):
    """Ethernet frame."""
    return dst + src + struct.pack("!H", etype) + payload


def arp_req(tip, sip=GUEST4, smac=GUEST_MAC):
    """ARP request frame, as the guest would send it."""
    a = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + smac + sip
    return eth(a + b"\0" * 6 + tip, 0x0806, src=smac)


def ip4(proto, payload, src=GUEST4, dst=PEER4, opts=b"", ihl=None,
        tot=None, frag=0x4000, ck=None, ttl=64):
    """IPv4 packet; every header field can be forced to a wrong value."""
    if ihl is None:
        ihl = 5 + len(opts) // 4
    if tot is None:
        tot = 20 + len(opts) + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | (ihl & 15), 0, tot & 0xffff,
                    rng.randrange(65536), frag, ttl, proto, 0, src, dst)
    h += opts
    if ck is None:
        ck = csum(h)
    h = h[:10] + struct.pack("!H", ck) + h[12:]
    return h + payload


def ip6(nh, payload, src=GUEST6, dst=PEER6, plen=None, hop=64):
    """IPv6 packet, payload length forced by plen."""
    if plen is None:
        plen = len(payload)
    return (struct.pack("!IHBB", 6 << 28, plen & 0xffff, nh, hop) + src +
            dst + payload)


def l4_sum(proto, hdr, src, dst, bad=False):
    """Fill the checksum of a layer-4 message, or make it wrong."""
    off = {6: 16, 17: 6}.get(proto, 2)
    init = 0 if proto == 1 else pseudo(src, dst, proto, len(hdr))
    ck = csum(hdr, init)
    if bad:
        ck ^= 0x5a5a
    return hdr[:off] + struct.pack("!H", ck) + hdr[off + 2:]


def udp(sport, dport, data, src=GUEST4, dst=PEER4, bad=False, ulen=None):
    """UDP datagram with its checksum."""
    if ulen is None:
        ulen = 8 + len(data)
    u = struct.pack("!HHHH", sport, dport, ulen & 0xffff, 0) + data
    return l4_sum(17, u, src, dst, bad)


def tcp(sport, dport, seq, ack, flags, data=b"", win=65535, opts=b"",
        src=GUEST4, dst=PEER4, bad=False, doff=None):
    """TCP segment with its checksum."""
    if doff is None:
        doff = 5 + len(opts) // 4
    t = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xffffffff,
                    ack & 0xffffffff, (doff & 15) << 4, flags & 0xff,
                    win, 0, 0) + opts + data
    return l4_sum(6, t, src, dst, bad)


def icmp_echo(ident, seq, data, v6=False, src=GUEST6, dst=PEER6, bad=False):
    """ICMP or ICMPv6 echo request."""
    m = struct.pack("!BBHHH", 128 if v6 else 8, 0, 0, ident, seq) + data
    return l4_sum(58 if v6 else 1, m, src, dst, bad)


def icmp6(typ, code, body, src=GUEST6, dst=PEER6, bad=False):
    """ICMPv6 message with its checksum."""
    m = struct.pack("!BBH", typ, code, 0) + body
    return l4_sum(58, m, src, dst, bad)


def frame4(proto, l4, **kw):
    """Ethernet + IPv4 frame."""
    return eth(ip4(proto, l4, **kw), 0x0800)


def frame6(nh, payload, **kw):
    """Ethernet + IPv6 frame."""
    return eth(ip6(nh, payload, **kw), 0x86dd)


def ns_frame(target=PEER6, opts=None):
    """Neighbour solicitation from the guest's global address."""
    if opts is None:
        opts = b"\x01\x01" + GUEST_MAC
    snm = bytes.fromhex("ff0200000000000000000001ff") + target[13:]
    m = icmp6(135, 0, b"\0" * 4 + target + opts, src=GUEST6, dst=snm)
    return frame6(58, m, dst=snm, hop=255)


def rs_frame(opts=b"\x01\x01" + GUEST_MAC):
    """Router solicitation from the guest's link-local address."""
    m = icmp6(133, 0, b"\0" * 4 + opts, src=GUEST_LL, dst=ALL_ROUTERS)
    return frame6(58, m, src=GUEST_LL, dst=ALL_ROUTERS, hop=255)


def stream(frame, length=None):
    """Frame with its stream length (possibly a lie)."""
    return struct.pack("!I", len(frame) if length is None else length) + frame


class StreamGuest:
    """A hostile VMM: the sender process and a reader of its output."""

    def __init__(self, sender, sock, args=()):
        self.p = subprocess.Popen([sender] + list(args) + [sock],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        self.q = queue.Queue()
        self.n_arp = 0
        self.closed = False
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        """Cut the sender's output into frames."""
        f = self.p.stdout
        while True:
            hdr = f.read(4)
            if len(hdr) < 4:
                break
            n = struct.unpack("!I", hdr)[0]
            body = f.read(n)
            if len(body) < n:
                break
            self.q.put(body)
        self.closed = True
        self.q.put(None)

    def send(self, name, frames, raw=None):
        """Log a case and write its frames (or raw stream bytes)."""
        if raw is None:
            raw = b"".join(stream(f) for f in frames)
        LOG.write("%s %s\n" % (name, raw.hex()))
        LOG.flush()
        try:
            self.p.stdin.write(raw)
            self.p.stdin.flush()
        except BrokenPipeError:
            fail("%s: sender gone" % name)

    def expect(self, pred, timeout=3.0):
        """Wait for a frame matching pred; earlier ones are dropped."""
        end = time.time() + timeout
        while True:
            left = end - time.time()
            if left <= 0:
                return None
            try:
                f = self.q.get(timeout=left)
            except queue.Empty:
                return None
            if f is None:
                self.q.put(None)
                return None
            if pred(f):
                return f

    def drain(self, secs):
        """Every frame that arrives within secs."""
        out = []
        end = time.time() + secs
        while time.time() < end:
            try:
                f = self.q.get(timeout=max(end - time.time(), 0.01))
            except queue.Empty:
                break
            if f is None:
                self.q.put(None)
                break
            out.append(f)
        return out

    def barrier(self, name):
        """ARP round trip: netshim survived everything sent before."""
        self.n_arp += 1
        tip = bytes([198, 51, 100, 2 + self.n_arp % 250])
        self.send(name + "/barrier", [arp_req(tip)])
        ok = self.expect(lambda f: is_arp_reply(f, tip))
        if not ok:
            fail("%s: no ARP reply afterwards (netshim dead or stuck?)"
                 % name)
            return False
        # 28 bytes of ARP: the frame padded with zeros to the Ethernet
        # minimum of 60 (64 with the FCS), as on a wire and as passt pads
        if len(ok) != 60 or any(ok[42:]):
            fail("%s: ARP reply of %d bytes, not padded with zeros to 60"
                 % (name, len(ok)))
            return False
        return True

    def finish(self, hold_ms=0):
        """Close the sender's input; return its exit status."""
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.p.wait(timeout=hold_ms / 1000 + 30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return self.p.wait()


class TapGuest(StreamGuest):
    """A hostile guest in namespace mode: frames through the tap.

    A packet socket on the tap sends frames to netshim (the device's
    transmit side) and sees the frames netshim writes (its receive side);
    its own frames, seen again as outgoing, are left out.  Frames the
    device refuses (larger than its MTU) cannot reach netshim: they are
    counted as skipped.
    """

    def __init__(self, ifname):
        import socket
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                               socket.htons(3))
        self.s.bind((ifname, 0))
        self.q = queue.Queue()
        self.n_arp = 0
        self.skipped = 0
        self.closed = False
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        """Queue the frames netshim writes to the tap."""
        while not self.closed:
            try:
                f, addr = self.s.recvfrom(65536)
            except OSError:
                break
            if addr[2] != 4:            # PACKET_OUTGOING: ours
                self.q.put(f)
        self.q.put(None)

    def send(self, name, frames, raw=None):
        """Log a case and write each of its frames to the tap."""
        LOG.write("%s %s\n" % (name, b"".join(stream(f)
                                              for f in frames).hex()))
        LOG.flush()
        for f in frames:
            try:
                self.s.send(f)
            except OSError:
                self.skipped += 1

    def finish(self, hold_ms=0):
        """Close the packet socket."""
        self.closed = True
        self.s.close()
        if self.skipped:
            print("%d frames the tap refused (larger than its MTU)"
                  % self.skipped)
        return 0


def Guest(sender, sock, args=()):
    """The hostile guest: a VMM on the stream socket, or frames on a tap."""
    if sock.startswith("tap:"):
        return TapGuest(sock[4:])
    return StreamGuest(sender, sock, args)


def is_arp_reply(f, tip):
    """An ARP reply for tip."""
    return (len(f) >= 42 and f[12:14] == b"\x08\x06" and
            f[20:22] == b"\x00\x02" and f[28:32] == tip)


def tcp_of(f):
    """(sport, dport, seq, ack, flags, win, payload) of an IPv4 TCP frame."""
    if len(f) < 54 or f[12:14] != b"\x08\x00" or f[23] != 6:
        return None
    ihl = (f[14] & 15) * 4
    t = f[14 + ihl:14 + struct.unpack("!H", f[16:18])[0]]
    sp, dp, seq, ack, off, fl, win = struct.unpack("!HHIIBBH", t[:16])
    return sp, dp, seq, ack, fl, win, t[(off >> 4) * 4:]


def handshake(g, sport, dport, win=65535, opts=b"\x02\x04\x05\xb4"):
    """Open a guest TCP connection; return (our next seq, their next)."""
    isn = rng.randrange(1 << 32)
    g.send("syn %d->%d" % (sport, dport),
           [frame4(6, tcp(sport, dport, isn, 0, 0x02, win=win, opts=opts))])
    sa = g.expect(lambda f: (tcp_of(f) or (0,))[0:2] == (dport, sport))
    t = tcp_of(sa) if sa else None
    if not t or t[4] & 0x12 != 0x12:
        fail("no SYN-ACK from port %d (%r)" % (dport, t))
        return None
    g.send("ack %d->%d" % (sport, dport),
           [frame4(6, tcp(sport, dport, isn + 1, t[2] + 1, 0x10, win=win))])
    return isn + 1, t[2] + 1


# ---------------------------------------------------------------- groups

def g_stream(sender, sock):
    """Broken stream framing, each on a connection of its own."""
    garbage = bytes(rng.randrange(256) for _ in range(64))
    for length in (0, 13, 65536, 0xffffffff, 0x80000000):
        g = Guest(sender, sock, ["-t", "1500"])
        g.send("length %#x" % length, [], struct.pack("!I", length) + garbage)
        rc = g.finish(1500)
        if rc != 2:
            fail("length %#x: connection not reset (sender exit %d)"
                 % (length, rc))
    # Valid length, then the VMM dies mid-frame
    g = Guest(sender, sock)
    g.send("hang-up mid-frame", [], struct.pack("!I", 1000) + garbage)
    g.finish()
    # Largest frame, and a garbage ethertype: dropped, connection kept
    g = Guest(sender, sock, ["-t", "500"])
    g.send("65535-byte frame", [eth(b"\xaa" * (65535 - 14), 0x88b5)])
    g.barrier("65535-byte frame")
    if g.finish(500) != 0:
        fail("65535-byte frame: connection reset")
    # Byte-at-a-time writer of 200 ARP requests
    g = Guest(sender, sock, ["-b", "-t", "2000"])
    tips = [bytes([198, 51, 100, 2 + i]) for i in range(200)]
    g.send("200 ARP requests, bytewise", [arp_req(t) for t in tips])
    got = [f for f in g.drain(4)
           if f[12:14] == b"\x08\x06" and f[20:22] == b"\x00\x02"]
    if len(got) != 200:
        fail("bytewise ARP: %d replies of 200" % len(got))
    g.finish()


def truncations(g, name, full):
    """The frame cut at every length from an Ethernet header to full."""
    for n in range(14, len(full) + 1):
        g.send("%s cut at %d" % (name, n), [full[:n]])
    g.barrier(name + " truncations")


def is_arp_probe(f):
    """netshim's ARP request for the guest's address, from the gateway."""
    return (len(f) >= 42 and f[0:6] == b"\xff" * 6 and
            f[12:14] == b"\x08\x06" and f[20:22] == b"\x00\x01" and
            f[28:32] == PEER4 and f[38:42] == GUEST4)


def is_ns_probe(f):
    """netshim's neighbour solicitation for the guest's IPv6 address, to
    its solicited-node multicast address, with our link-layer address."""
    return (len(f) >= 86 and f[0:6] == b"\x33\x33\xff" + GUEST6[13:] and
            f[12:14] == b"\x86\xdd" and f[20] == 58 and f[21] == 255 and
            f[38:54] == bytes.fromhex("ff0200000000000000000001ff") +
            GUEST6[13:] and f[54] == 135 and f[62:78] == GUEST6 and
            f[78:80] == b"\x01\x01")


def g_l3(sender, sock):
    """Ethernet, ARP, IPv4, IPv6 malformations on one connection."""
    g = Guest(sender, sock)
    if isinstance(g, StreamGuest) and not isinstance(g, TapGuest):
        # A new VMM is asked for the guest's MAC address at once, as
        # passt asks: ARP and NDP (frames queued before the first one
        # of ours are still there for expect())
        if not g.expect(is_arp_probe):
            fail("no ARP request for the guest's address on connect")
        if not g.expect(is_ns_probe):
            fail("no neighbour solicitation for the guest on connect")
    g.barrier("start")
    truncations(g, "ARP request", arp_req(PEER4))
    truncations(g, "IPv4/UDP", frame4(17, udp(40000, PORT_CLOSED, b"x" * 20)))
    truncations(g, "IPv6/ICMPv6 NS", ns_frame())
    truncations(g, "IPv4/TCP SYN",
                frame4(6, tcp(40001, PORT_CLOSED, 1, 0, 0x02,
                              opts=b"\x02\x04\x05\xb4\x01\x03\x03\x07")))
    truncations(g, "IPv6/TCP SYN",
                frame6(6, tcp(40002, PORT_CLOSED, 1, 0, 0x02,
                              src=GUEST6, dst=PEER6)))

    u = udp(40003, PORT_CLOSED, b"ihl")
    for ihl in range(16):
        opts = b"\x01" * max(0, ihl * 4 - 20)
        g.send("IHL %d" % ihl, [frame4(17, u, ihl=ihl, opts=opts),
                                frame4(17, u, ihl=ihl)])
    g.send("IPv4 options: bad lengths",
           [frame4(17, u, opts=o) for o in
            (b"\x83\x00\x00\x00", b"\x83\xff\x00\x00", b"\x44\x02\x00\x00",
             b"\x07\x28" + b"\0" * 38, b"\x94\x04\x00\x00")])
    g.barrier("IHL")
    for tot in (0, 1, 10, 19, 20, 27, 100, 1500, 65535):
        g.send("total length %d" % tot, [frame4(17, u, tot=tot)])
    g.barrier("total lengths")
    for frag in (0x2000, 0x2001, 0x0001, 0x1fff, 0x3fff, 0x6000, 0x8000):
        g.send("fragment %#x" % frag,
               [frame4(17, u, frag=frag),
                frame4(1, icmp_echo(1, 1, b"f"), frag=frag)])
    g.barrier("fragments")

    ping6 = icmp_echo(7, 1, b"ext")
    hbh = b"\x00\x00" + b"\x01\x04\0\0\0\0"     # next: hop-by-hop, PadN
    for n in (1, 7, 8, 9, 50, 200):
        chain = hbh * (n - 1) + b"\x3a\x00" + b"\x01\x04\0\0\0\0"
        g.send("IPv6 %d hop-by-hop headers" % n,
               [frame6(0, chain + ping6)])
    g.send("IPv6 ext headers past the end",
           [frame6(0, b"\x3a\xff" + b"\0" * 6),
            frame6(43, b"\x3a\x10\x00\x00\0\0\0\0"),
            frame6(60, b"\x3a\x01" + b"\0" * 6),
            frame6(0, b"\x3a\x00" + b"\0" * 6 + ping6, plen=4),
            frame6(0, b"\x00\x00" + b"\0" * 6, plen=8),
            frame6(58, ping6, plen=65535),
            frame6(58, ping6, plen=len(ping6) - 1)])
    g.send("IPv6 fragment headers",
           [frame6(44, b"\x3a\x00\x00\x01\0\0\0\1" + ping6),
            frame6(0, b"\x2c\x00" + b"\x01\x04\0\0\0\0" +
                   b"\x3a\x00\x00\x00\0\0\0\1" + ping6),
            frame6(44, b"\x2c\x00\x00\x00\0\0\0\1" * 30)])
    g.send("IPv6 unknown next headers",
           [frame6(nh, b"\0" * 40) for nh in (59, 135, 139, 253, 255, 4, 41)])
    g.barrier("IPv6 extension headers")

    g.send("bad checksums",
           [frame4(17, u, ck=0x1234),
            frame4(17, udp(40004, PORT_CLOSED, b"c", bad=True)),
            frame4(6, tcp(40005, PORT_ECHO, 1, 0, 0x02, bad=True)),
            frame4(1, icmp_echo(2, 1, b"c", src=GUEST4, dst=PEER4,
                                bad=True)),
            frame6(58, icmp_echo(3, 1, b"c", v6=True, bad=True)),
            frame6(17, udp(40006, PORT_CLOSED, b"c", src=GUEST6, dst=PEER6,
                           bad=True)),
            frame6(17, udp(40007, PORT_CLOSED, b"\0", src=GUEST6,
                           dst=PEER6)[:6] + b"\0\0" + b"\0"),
            frame4(17, udp(40008, PORT_CLOSED, b"u", ulen=200)),
            frame4(17, udp(40009, PORT_CLOSED, b"u", ulen=3))])
    g.barrier("bad checksums")

    ping4 = icmp_echo(9, 1, b"mac", src=GUEST4, dst=PEER4)
    for mac in ("ffffffffffff", "01005e000001", "333300000001",
                "010000000000"):
        m = bytes.fromhex(mac)
        g.send("source MAC %s" % mac,
               [eth(ip4(1, ping4), 0x0800, src=m), arp_req(PEER4, smac=m)])
    g.barrier("multicast source MACs")
    g.send("source MAC zero", [eth(ip4(1, ping4), 0x0800, src=b"\0" * 6)])
    g.barrier("source MAC zero")

    for s in ("255.255.255.255", "224.0.0.1", "127.0.0.1", "203.0.113.1",
              "203.0.113.3", "0.0.0.0", "198.51.100.1"):
        a = bytes(int(x) for x in s.split("."))
        g.send("IPv4 source %s" % s,
               [frame4(1, icmp_echo(10, 1, b"s", src=a, dst=PEER4), src=a),
                frame4(17, udp(40010, PORT_CLOSED, b"s", src=a), src=a),
                frame4(6, tcp(40011, PORT_ECHO, 5, 0, 0x02, src=a), src=a),
                arp_req(PEER4, sip=a)])
    for s in ("ff020000000000000000000000000001",
              "00000000000000000000000000000001",
              "20010db8000100000000000000000001",
              "20010db8000100000000000000000003",
              "00000000000000000000ffffcb007102",
              "fe80000000000000000000000000dead"):
        a = bytes.fromhex(s)
        g.send("IPv6 source %s" % s,
               [frame6(58, icmp_echo(11, 1, b"s", v6=True, src=a), src=a),
                frame6(17, udp(40012, PORT_CLOSED, b"s", src=a, dst=PEER6),
                       src=a)])
    for d in ("255.255.255.255", "224.0.0.1", "0.0.0.0", "203.0.113.255",
              "203.0.113.2"):
        a = bytes(int(x) for x in d.split("."))
        g.send("IPv4 destination %s" % d,
               [frame4(1, icmp_echo(12, 1, b"d", src=GUEST4, dst=a), dst=a),
                frame4(17, udp(40013, PORT_CLOSED, b"d", dst=a), dst=a),
                frame4(6, tcp(40014, PORT_ECHO, 5, 0, 0x02, dst=a), dst=a)])
    g.barrier("foreign addresses")

    pod_loopback(g)
    echo = icmp_echo(0x4242, 7, b"alive", src=GUEST4, dst=PEER4)
    g.send("ping after all", [frame4(1, echo)])
    if not g.expect(lambda f: len(f) > 40 and f[12:14] == b"\x08\x00" and
                    f[23] == 1 and f[34] == 0, timeout=5):
        fail("no echo reply from the peer after the IP cases")
    g.finish()


def pod_loopback(g):
    """The pod's loopback is not the guest's: nothing may reach it.

    The pod listens on 127.0.0.1 and ::1 port PORT_POD_LO (TCP and UDP);
    a SYN-ACK means netshim connected the guest to it.  What UDP delivers
    there is checked by the caller.
    """
    lo6 = bytes(15) + b"\1"
    for n, dst in enumerate((bytes([127, 0, 0, 1]), bytes([127, 0, 0, 2]),
                             lo6)):
        sp = 46000 + n
        if len(dst) == 4:
            f = frame4(6, tcp(sp, PORT_POD_LO, 1, 0, 0x02, dst=dst), dst=dst)
            u = frame4(17, udp(sp, PORT_POD_LO, b"hostile-loopback\n",
                               dst=dst), dst=dst)
        else:
            f = frame6(6, tcp(sp, PORT_POD_LO, 1, 0, 0x02, src=GUEST6,
                              dst=dst), dst=dst)
            u = frame6(17, udp(sp, PORT_POD_LO, b"hostile-loopback\n",
                               src=GUEST6, dst=dst), dst=dst)
        name = "pod loopback %s" % dst.hex()
        g.send(name, [f, u])
        got = g.expect(lambda x: syn_ack_to(x, sp), timeout=1)
        if got:
            fail("%s: SYN-ACK: the guest reached the pod's loopback "
                 "(frame %s)" % (name, f.hex()))
    g.barrier("pod loopback")


def syn_ack_to(f, dport):
    """An IPv4 or IPv6 SYN-ACK to the guest's port dport."""
    if f[12:14] == b"\x08\x00" and len(f) >= 34 and f[23] == 6:
        t = f[14 + (f[14] & 15) * 4:]
    elif f[12:14] == b"\x86\xdd" and len(f) >= 54 and f[20] == 6:
        t = f[54:]
    else:
        return False
    return (len(t) >= 14 and struct.unpack("!H", t[2:4])[0] == dport and
            t[13] & 0x12 == 0x12)


def g_tcp(sender, sock):
    """TCP flags, out-of-window segments, data before the handshake."""
    g = Guest(sender, sock)
    g.barrier("start")
    for fl in range(64):
        g.send("flags %#x without a connection" % fl,
               [frame4(6, tcp(41000 + fl, PORT_ECHO, rng.randrange(1 << 32),
                              rng.randrange(1 << 32), fl, b"nosyn"))])
    g.barrier("flags without a connection")
    for fl in range(64):
        hs = handshake(g, 42000 + fl, PORT_ECHO)
        if not hs:
            break
        seq, ack = hs
        g.send("flags %#x on an established connection" % fl,
               [frame4(6, tcp(42000 + fl, PORT_ECHO, seq, ack, fl, b"flag"))])
        g.send("reset %d" % fl,
               [frame4(6, tcp(42000 + fl, PORT_ECHO, seq + 4, 0, 0x04)),
                frame4(6, tcp(42000 + fl, PORT_ECHO, seq, 0, 0x04))])
    g.barrier("flags on connections")

    isn = rng.randrange(1 << 32)
    g.send("data before the handshake",
           [frame4(6, tcp(43000, PORT_ECHO, isn, 0, 0x02)),
            frame4(6, tcp(43000, PORT_ECHO, isn + 1, 12345, 0x18, b"early")),
            frame4(6, tcp(43000, PORT_ECHO, isn + 1, 0, 0x08, b"early")),
            frame4(6, tcp(43000, PORT_ECHO, isn + 1, 0, 0x01))])
    g.barrier("data before the handshake")

    hs = handshake(g, 43001, PORT_ECHO)
    if hs:
        seq, ack = hs
        sp = 43001
        g.send("segments outside the window",
               [frame4(6, tcp(sp, PORT_ECHO, seq + (1 << 30), ack, 0x18,
                              b"ahead")),
                frame4(6, tcp(sp, PORT_ECHO, seq - (1 << 30), ack, 0x18,
                              b"behind")),
                frame4(6, tcp(sp, PORT_ECHO, seq - 3, ack, 0x18, b"overlap")),
                frame4(6, tcp(sp, PORT_ECHO, seq, ack + (1 << 30), 0x10)),
                frame4(6, tcp(sp, PORT_ECHO, seq, ack - (1 << 30), 0x10)),
                frame4(6, tcp(sp, PORT_ECHO, seq, ack + 100000, 0x18, b"x")),
                frame4(6, tcp(sp, PORT_ECHO, seq + 1000, ack, 0x18,
                              b"y" * 1400)),
                frame4(6, tcp(sp, PORT_ECHO, seq, ack, 0x10, doff=15)),
                frame4(6, tcp(sp, PORT_ECHO, seq, ack, 0x10, doff=2)),
                frame4(6, tcp(sp, PORT_ECHO, seq + 1, ack, 0x04)),
                frame4(6, tcp(sp, PORT_ECHO, seq + 5, ack, 0x04))])
        g.barrier("segments outside the window")
        # The connection must still echo what arrives in sequence: seq + 4
        # follows the part of "overlap" (7 bytes from seq - 3) that was new
        g.send("in-window data",
               [frame4(6, tcp(sp, PORT_ECHO, seq + 4, ack, 0x18,
                              b"in-sequence"))])
        got = g.expect(lambda f: (tcp_of(f) or (0,))[0:2] == (PORT_ECHO, sp)
                       and b"in-sequence" in tcp_of(f)[6], timeout=3)
        if not got:
            fail("no echo on the connection after the out-of-window "
                 "segments")
        g.send("SYN on an established connection",
               [frame4(6, tcp(sp, PORT_ECHO, seq + 15, ack, 0x02)),
                frame4(6, tcp(sp, PORT_ECHO, seq + 15, 0, 0x04))])
    g.barrier("TCP before the rewind")
    rewind_ack(g)
    g.barrier("TCP end")
    g.finish()


def rewind_ack(g):
    """An ACK of bytes sent before a retransmission went back.

    The guest takes a full window, then acknowledges one segment and
    shrinks its window to one more: the back-end's timer goes back to
    the ACK's point and resends that one.  Then the guest acknowledges
    everything the first burst carried, as its receive queue says.  A
    sender must take that ACK, up to the highest byte it ever sent (RFC
    9293 3.10.7.4: SND.NXT does not go back with a retransmission; Linux
    and the BSDs accept it so), and go on with new bytes.  Refused as
    "unsent", with the window known still one segment wide, the sender
    would resend that segment for ever.
    """
    sp = 43002
    hs = handshake(g, sp, PORT_ZERO, win=65535)
    if not hs:
        return
    seq, start = hs

    def data_of(f):
        t = tcp_of(f)
        if not t or t[0:2] != (PORT_ZERO, sp) or not t[6]:
            return None
        return t

    sent = 0
    for f in g.drain(0.5):
        t = data_of(f)
        if t:
            sent = max(sent, (t[2] + len(t[6]) - start) % (1 << 32))
    top = (start + sent) & 0xffffffff
    if sent < 4 * 1460:
        fail("rewind: only %d bytes in the first window" % sent)
        return
    g.send("ACK of one segment, window of one more",
           [frame4(6, tcp(sp, PORT_ZERO, seq, start + 1460, 0x10,
                          win=1460))])
    again = g.expect(lambda f: (data_of(f) or (0, 0, 0))[2] ==
                     (start + 1460) & 0xffffffff, timeout=5)
    if not again:
        fail("rewind: no retransmission from the ACK's point")
        return
    g.send("ACK of the whole first burst",
           [frame4(6, tcp(sp, PORT_ZERO, seq, top, 0x10, win=65535))])
    new = g.expect(lambda f: data_of(f) is not None and
                   0 <= (data_of(f)[2] - top) % (1 << 32) < 1 << 30,
                   timeout=3)
    if not new:
        fail("rewind: the ACK of %d bytes sent before the retransmission "
             "was refused: no new data after it" % sent)
    g.send("reset after the rewind",
           [frame4(6, tcp(sp, PORT_ZERO, seq, 0, 0x04))])


def g_synflood(sender, sock):
    """2000 SYNs from distinct ports to a peer that never accepts."""
    g = Guest(sender, sock)
    g.barrier("start")
    frames = [frame4(6, tcp(20000 + i, PORT_DEAF, rng.randrange(1 << 32), 0,
                            0x02, opts=b"\x02\x04\x05\xb4"))
              for i in range(2000)]
    g.send("SYN flood", frames)
    got = g.drain(4)
    # Ports, not frames: unanswered SYN-ACKs are retransmitted
    synack = len({tcp_of(f)[1] for f in got
                  if (tcp_of(f) or (0,) * 5)[4] & 0x12 == 0x12})
    rst = len({tcp_of(f)[1] for f in got
               if (tcp_of(f) or (0,) * 5)[4] & 0x04})
    print("SYN flood: SYN-ACKs to %d ports, RSTs to %d" % (synack, rst))
    if synack > 256:
        fail("SYN flood: %d connections beyond --max-tcp 256" % synack)
    if rst == 0:
        fail("SYN flood: no RST once the table was full")
    g.barrier("SYN flood")
    g.finish()


def g_zerowin(sender, sock, secs):
    """A zero window held while the peer streams data."""
    g = Guest(sender, sock)
    g.barrier("start")
    hs = handshake(g, 44000, PORT_ZERO, win=4096, opts=b"\x02\x04\x05\xb4")
    if hs:
        seq, ack = hs
        got = g.drain(0.5)
        n = sum(len(tcp_of(f)[6]) for f in got if tcp_of(f))
        g.send("zero window",
               [frame4(6, tcp(44000, PORT_ZERO, seq, ack + n, 0x10, win=0))])
        print("zero window announced after %d bytes" % n, flush=True)
        got = g.drain(secs)
        print("zero window: %d frames in %d s" % (len(got), secs))
        if len(got) > 50 * secs:
            fail("zero window: %d frames in %d s" % (len(got), secs))
    g.barrier("zero window")
    g.finish()


def g_deaf(sender, sock, secs):
    """A VMM that stops reading while a peer streams and the guest floods."""
    g = Guest(sender, sock, ["-t", str(secs * 1000)])
    g.barrier("start")
    hs = handshake(g, 45000, PORT_ZERO, win=65535,
                   opts=b"\x02\x04\x05\xb4\x01\x03\x03\x0e")
    g.p.send_signal(signal.SIGUSR1)
    time.sleep(0.2)
    if hs:
        seq, ack = hs
        # Blind ACKs for data we never read, with the largest window
        g.send("blind ACKs", [frame4(6, tcp(45000, PORT_ZERO, seq,
                                            ack + i * 65536, 0x10))
                              for i in range(200)])
    # Answers of 14 MB: more than the queue to the VMM and the socket hold
    for i in range(100):
        g.send("ARP and ping flood %d" % i,
               [arp_req(bytes([198, 51, 100, 2 + j % 250]))
                for j in range(100)] +
               [frame4(1, icmp_echo(0x77, j, b"p" * 1400, src=GUEST4,
                                    dst=PEER4)) for j in range(100)])
    print("deaf: flood written, holding %d s" % secs, flush=True)
    rc = g.finish(secs * 1000)
    print("deaf: sender exit %d" % rc)


def dhcp4(opts, op=1, hlen=6, sname=b"", file=b"", msg=None):
    """DHCPv4 message frame from 0.0.0.0:68 to the broadcast address."""
    b = msg
    if b is None:
        b = struct.pack("!BBBBIHH", op, 1, hlen, 0, rng.randrange(1 << 32),
                        0, 0x8000) + b"\0" * 16
        b += GUEST_MAC + b"\0" * 10 + sname.ljust(64, b"\0")[:64]
        b += file.ljust(128, b"\0")[:128] + b"\x63\x82\x53\x63" + opts
    zero, bcast = b"\0" * 4, b"\xff" * 4
    return frame4(17, udp(68, 67, b, src=zero, dst=bcast), src=zero,
                  dst=bcast)


def dhcp6(msg):
    """DHCPv6 message frame from the link-local address to the servers."""
    return frame6(17, udp(546, 547, msg, src=GUEST_LL, dst=ALL_DHCP6),
                  src=GUEST_LL, dst=ALL_DHCP6)


def o6(code, data, length=None):
    """DHCPv6 option, its length possibly a lie."""
    return struct.pack("!HH", code, len(data) if length is None
                       else length) + data


def g_dhcp(sender, sock):
    """DHCPv4, DHCPv6 and NDP option abuse."""
    g = Guest(sender, sock)
    g.barrier("start")
    disc = b"\x35\x01\x01"
    junk = bytes(rng.randrange(256) for _ in range(200))
    cases = {
        "option past the end": disc + b"\x3d\xc8abc",
        "length byte missing": disc + b"\x0c",
        "no end option": disc + b"\x0c\x03abc",
        "only pad": b"\0" * 300,
        "message type empty": b"\x35\x00\xff",
        "message type long": b"\x35\x05\x01\x02\x03\x04\x05\xff",
        "message type 0 and 255": b"\x35\x01\x00\x35\x01\xff\xff",
        "requested address short": disc + b"\x32\x03\x01\x02\x03\xff",
        "overload loop": disc + b"\x34\x01\x03\xff",
        "overload bad value": disc + b"\x34\x01\x07\x34\x00\xff",
        "255-byte options": disc + b"".join(
            bytes([c, 255]) + bytes([65 + c % 26]) * 255
            for c in (12, 55, 61, 81, 119)) + b"\xff",
        "parameter list of everything": disc + b"\x37\xff" +
        bytes(range(1, 256)) + b"\xff",
        "1000 empty options": disc + b"\x0c\x00" * 500 + b"\xff",
        "options after end": disc + b"\xff" + junk,
        "no magic": b"",
    }
    for name, opts in cases.items():
        g.send("DHCPv4 " + name, [dhcp4(opts)])
    g.send("DHCPv4 overload with garbage sname/file",
           [dhcp4(disc + b"\x34\x01\x03\xff", sname=junk[:64],
                  file=junk + junk),
            dhcp4(disc + b"\x34\x01\x03\xff", sname=b"\x34\x01\x03\xff",
                  file=b"\x34\x01\x03\x0c\xff"),
            dhcp4(disc + b"\x34\x01\x01\xff", file=b"\x35\x01\x03\x3d\x7f")])
    g.send("DHCPv4 header abuse",
           [dhcp4(disc + b"\xff", op=2), dhcp4(disc + b"\xff", hlen=255),
            dhcp4(None, msg=b"\x01\x01\x06"), dhcp4(None, msg=b""),
            dhcp4(None, msg=junk)])
    g.barrier("DHCPv4")
    g.send("DHCPv4 valid discover", [dhcp4(disc + b"\xff")])
    if not g.expect(lambda f: len(f) > 42 and f[12:14] == b"\x08\x00" and
                    f[23] == 17 and f[34:38] == b"\x00\x43\x00\x44"):
        fail("no DHCPOFFER after the DHCPv4 cases")

    cid = o6(1, b"\x00\x03\x00\x01" + GUEST_MAC)
    hdr = b"\x01" + bytes([1, 2, 3])
    cases6 = {
        "option past the end": cid + o6(3, b"\0" * 12, 500),
        "option header cut": cid + b"\x00\x03\x00",
        "client id empty": o6(1, b""),
        "client id 2000 bytes": o6(1, b"\x00\x02" + b"D" * 1000),
        "IA_NA short": cid + o6(3, b"\0\0"),
        "IA_NA inner past the end": cid + o6(3, b"\0" * 12 + o6(5, b"", 400)),
        "IA_NA inner cut": cid + o6(3, b"\0" * 12 + b"\x00\x05\x00"),
        "IA_NA nested deep": cid + o6(3, b"\0" * 12 + o6(3, b"\0" * 12 +
                                                      o6(3, b"\0" * 12))),
        "ORO odd length": cid + o6(6, b"\x00\x17\x00"),
        "ORO 255 codes": cid + o6(6, b"".join(struct.pack("!H", i)
                                              for i in range(255))),
        "elapsed time wrong size": cid + o6(8, b"\0"),
        "500 empty options": cid + o6(20, b"") * 500,
        "many IA_NAs": cid + o6(3, b"\0" * 12) * 60,
    }
    for name, opts in cases6.items():
        for t in (1, 3, 5, 6, 8, 11, 12):
            g.send("DHCPv6 %s type %d" % (name, t),
                   [dhcp6(bytes([t]) + hdr[1:] + opts)])
    g.send("DHCPv6 headers cut",
           [dhcp6(b""), dhcp6(b"\x01"), dhcp6(b"\x01\x00\x00"),
            dhcp6(b"\x0c" + b"\0" * 33 + cid)])
    g.barrier("DHCPv6")
    g.send("DHCPv6 valid solicit",
           [dhcp6(hdr + cid + o6(3, b"\0\0\0\1" + b"\0" * 8) +
                  o6(8, b"\0\0"))])
    if not g.expect(lambda f: len(f) > 62 and f[12:14] == b"\x86\xdd" and
                    f[20] == 17 and f[54:58] == b"\x02\x23\x02\x22"):
        fail("no DHCPv6 ADVERTISE after the DHCPv6 cases")

    for name, opts in {
        "length 0": b"\x01\x00" + GUEST_MAC,
        "past the end": b"\x01\x05" + GUEST_MAC,
        "cut": b"\x01",
        "length 0 after a good one": b"\x01\x01" + GUEST_MAC + b"\x0e\x00",
        "255 units": b"\x0e\xff" + b"\0" * 6,
    }.items():
        g.send("NDP RS option " + name, [rs_frame(opts)])
        g.send("NDP NS option " + name, [ns_frame(opts=opts)])
    g.send("NDP messages cut and from elsewhere",
           [rs_frame(b"")[:-2], ns_frame(opts=b"")[:-8],
            frame6(58, icmp6(135, 0, b"\0" * 4 + PEER6), hop=64),
            frame6(58, icmp6(134, 0, b"\0" * 12, src=GUEST_LL,
                             dst=ALL_ROUTERS), src=GUEST_LL, dst=ALL_ROUTERS,
                   hop=255),
            frame6(58, icmp6(137, 0, b"\0" * 36 + b"\x01\x00"), hop=255),
            frame6(58, icmp6(136, 0, b"\0" * 20 + b"\x02\x00"), hop=255)])
    g.barrier("NDP")
    g.send("NDP valid RS", [rs_frame()])
    if not g.expect(lambda f: len(f) > 54 and f[12:14] == b"\x86\xdd" and
                    f[20] == 58 and f[54] == 134):
        fail("no router advertisement after the NDP cases")
    g.finish()


def main():
    """Run one group."""
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    sender, sock, group = sys.argv[1:4]
    secs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    groups = {
        "stream": lambda: g_stream(sender, sock),
        "l3": lambda: g_l3(sender, sock),
        "tcp": lambda: g_tcp(sender, sock),
        "synflood": lambda: g_synflood(sender, sock),
        "zerowin": lambda: g_zerowin(sender, sock, secs),
        "deaf": lambda: g_deaf(sender, sock, secs),
        "dhcp": lambda: g_dhcp(sender, sock),
    }
    start = time.time()
    groups[group]()
    print("group %s: %d failed expectations, %.1f s"
          % (group, len(FAILS), time.time() - start))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
