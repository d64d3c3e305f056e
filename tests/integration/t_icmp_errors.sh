#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The guest sees the path its packets take, as behind a router: a far
# host (198.51.100.130, 2001:db8:3::2) sits one router (the peer) past the
# pod, on a link of MTU 1280.  From the guest, with the tools a user
# reaches for:
# - traceroute (UDP probes, IPv4 and IPv6) and tracepath list the peer as
#   hop 1 and the far host as hop 2: the guest's TTL leaves the pod as it
#   was set, and the time-exceeded and port-unreachable errors come back
#   from the hosts that sent them;
# - so do busybox's traceroute and traceroute6 (Alpine's), which read the
#   errors on a raw socket and match the probe they quote themselves;
# - the packet an error quotes is the one the guest sent: its addresses,
#   protocol and lengths, and its UDP datagram or echo request byte for
#   byte, checksum included, as far as the router quoted it;
# - ping -t 1 (both families) hears "time to live exceeded" from the peer;
# - a connected UDP socket to a closed port gets ECONNREFUSED;
# - a datagram too large for the far link, sent with DF, teaches the
#   guest's kernel the path MTU (1280), from the router's
#   fragmentation-needed (IPv4) and packet-too-big (IPv6) messages.
# Run it through passt with BACKEND=passt (PASST= a 2026 build).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

command -v traceroute >/dev/null && command -v tracepath >/dev/null ||
	skip "traceroute or tracepath missing (make deps)"
busybox traceroute6 --help 2>&1 | grep -q '^Usage: traceroute6' ||
	skip "busybox with traceroute6 missing (make deps: busybox-static)"

# hops() - the address each hop of a traceroute or tracepath answered from
# $1: output of the tool
hops() {
	awk '$1 ~ /^[0-9]+:?$/ && $2 != "*" && $2 != "[LOCALHOST]" {
		sub(":", "", $1); print $1 "=" $2 }' <<<"$1" | sort -u |
		tr '\n' ' '
}

# expect_hops() - fail unless a path is the one expected
# $1: what, $2: output of the tool, $3: expected "1=ADDR 2=ADDR "
expect_hops() {
	local got

	got=$(hops "$2")
	[ "$got" = "$3" ] || fail "$1: hops '$got', expected '$3': $2"
	log "ok: $1: $got"
}

topo_init
topo_peer_pod
topo_far 1280
topo_backend
topo_relay_guest
guest_dhcp

out=$(in_guest timeout 60 traceroute -n -q 1 -w 3 -m 4 198.51.100.130 2>&1)
expect_hops "traceroute" "$out" "1=203.0.113.1 2=198.51.100.130 "
out=$(in_guest timeout 60 traceroute -6 -n -q 1 -w 3 -m 4 2001:db8:3::2 2>&1)
expect_hops "traceroute -6" "$out" "1=2001:db8:1::1 2=2001:db8:3::2 "
out=$(in_guest timeout 60 busybox traceroute -n -q 1 -w 3 -m 4 \
	198.51.100.130 2>&1)
expect_hops "busybox traceroute" "$out" "1=203.0.113.1 2=198.51.100.130 "
out=$(in_guest timeout 60 busybox traceroute6 -n -q 1 -w 3 -m 4 \
	2001:db8:3::2 2>&1)
expect_hops "busybox traceroute6" "$out" "1=2001:db8:1::1 2=2001:db8:3::2 "
out=$(in_guest timeout 60 busybox traceroute -6 -n -q 1 -w 3 -m 4 \
	2001:db8:3::2 2>&1)
expect_hops "busybox traceroute -6" "$out" "1=2001:db8:1::1 2=2001:db8:3::2 "

# quote_probe() - send a UDP datagram or an echo request with TTL 1, and
# compare the packet the time-exceeded error quotes with it, on a raw
# socket as busybox's traceroute reads errors
# $1: family (4 or 6), $2: destination, $3: udp or icmp
# Prints "from ADDR header ok|differs l4 same|differs ...", or "nothing"
quote_probe() {
	in_guest timeout 10 python3 - "$@" <<-'EOF'
	import select, socket, struct, sys, time

	def csum(b):
	    b += b"\0" * (len(b) % 2)
	    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
	    while s >> 16:
	        s = (s & 0xffff) + (s >> 16)
	    return ~s & 0xffff

	v6, dst, udp = sys.argv[1] == "6", sys.argv[2], sys.argv[3] == "udp"
	fam = socket.AF_INET6 if v6 else socket.AF_INET
	icmp = socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP
	r = socket.socket(fam, socket.SOCK_RAW, icmp)
	payload = bytes(range(40, 92))
	if udp:
	    s, port, proto = socket.socket(fam, socket.SOCK_DGRAM), 33999, 17
	else:
	    s, port, proto = socket.socket(fam, socket.SOCK_RAW, icmp), 0, icmp
	if v6:
	    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, 1)
	else:
	    s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 1)
	s.connect((dst, port))
	src = s.getsockname()
	sa, da = socket.inet_pton(fam, src[0]), socket.inet_pton(fam, dst)
	# What goes on the wire, with the checksum the guest's kernel puts in
	if udp:
	    l4 = struct.pack("!HHHH", src[1], port, 8 + len(payload), 0)
	else:
	    l4 = struct.pack("!BBHHH", 128 if v6 else 8, 0, 0, 0x4242, 7)
	l4 += payload
	if v6:
	    pseudo = sa + da + struct.pack("!IxxxB", len(l4), proto)
	else:
	    pseudo = sa + da + struct.pack("!xBH", proto, len(l4)) if udp else b""
	ck, at = csum(pseudo + l4), 6 if udp else 2
	if udp and not ck:
	    ck = 0xffff
	l4 = l4[:at] + struct.pack("!H", ck) + l4[at + 2:]
	s.send(payload if udp else l4)
	end = time.time() + 3
	while time.time() < end:
	    if not select.select([r], [], [], max(0, end - time.time()))[0]:
	        break
	    pkt, frm = r.recvfrom(2000)
	    if not v6:
	        pkt = pkt[(pkt[0] & 15) * 4:]
	    if pkt[0] != (3 if v6 else 11):
	        continue
	    q = pkt[8:]
	    if v6:
	        ok = q[6] == proto and q[8:40] == sa + da and \
	             struct.unpack("!H", q[4:6])[0] == len(l4)
	        ql4 = q[40:]
	    else:
	        ihl = (q[0] & 15) * 4
	        ok = q[9] == proto and q[12:20] == sa + da and \
	             struct.unpack("!H", q[2:4])[0] == ihl + len(l4)
	        ql4 = q[ihl:]
	    same = len(ql4) >= 8 and l4.startswith(ql4)
	    print("from", frm[0], "header", "ok" if ok else "differs", "l4",
	          "same" if same else "differs: %s, sent %s" %
	          (ql4[:16].hex(), l4[:16].hex()))
	    sys.exit(0)
	print("nothing")
	EOF
}

# expect_quote() - fail unless an error quotes the probe as it was sent
# $1: family, $2: destination, $3: udp or icmp, $4: the router's address
expect_quote() {
	local out

	out=$(quote_probe "$1" "$2" "$3" 2>&1)
	[ "$out" = "from $4 header ok l4 same" ] ||
		fail "IPv$1 $3 with TTL 1: the error's quote: $out"
	log "ok: IPv$1 $3 with TTL 1: $out"
}

# (passt 2026 quotes 8 bytes of an IPv4 datagram, with its own lengths
# and checksum, and does not carry an echo request's TTL: with
# BACKEND=passt this part is left out)
if [ "$BACKEND" = passt ]; then
	log "quotes not checked with passt"
else
	expect_quote 4 198.51.100.130 udp 203.0.113.1
	expect_quote 6 2001:db8:3::2 udp 2001:db8:1::1
	expect_quote 4 198.51.100.130 icmp 203.0.113.1
	expect_quote 6 2001:db8:3::2 icmp 2001:db8:1::1
fi

# ping_ttl1() - an echo request with TTL 1 hears time exceeded from hop 1
# (passt 2026 does not carry the echo's TTL: its ping -t 1 reaches the far
# host, so with BACKEND=passt this part is left out)
ping_ttl1() {
	local out

	out=$(in_guest timeout 10 ping -n -c 1 -W 3 -t 1 198.51.100.130 2>&1)
	grep -q '^From 203\.0\.113\.1 .*[Tt]ime to live exceeded' <<<"$out" ||
		fail "ping -t 1: no time exceeded from the peer: $out"
	log "ok: ping -t 1: $(grep '^From' <<<"$out")"
	out=$(in_guest timeout 10 ping -6 -n -c 1 -W 3 -t 1 2001:db8:3::2 2>&1)
	grep -q '^From 2001:db8:1::1 .*[Tt]ime exceeded' <<<"$out" ||
		fail "ping -6 -t 1: no time exceeded from the peer: $out"
	log "ok: ping -6 -t 1: $(grep '^From' <<<"$out")"
}

if [ "$BACKEND" = passt ]; then
	log "ping -t 1 not checked with passt"
else
	ping_ttl1
fi

# udp_probe() - what a guest application sees of a connected UDP socket
# $1: family (4 or 6), $2: address, $3: port, $4: datagram size, $5: DF
udp_probe() {
	in_guest timeout 10 python3 - "$@" <<-'EOF'
	import socket, sys, time
	fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
	s = socket.socket(fam, socket.SOCK_DGRAM)
	if sys.argv[5] == "df":
	    if fam == socket.AF_INET:
	        s.setsockopt(socket.IPPROTO_IP, 10, 2)     # IP_PMTUDISC_DO
	    else:
	        s.setsockopt(socket.IPPROTO_IPV6, 23, 2)   # IPV6_PMTUDISC_DO
	s.connect((sys.argv[2], int(sys.argv[3])))
	s.settimeout(3)
	try:
	    s.send(b"x" * int(sys.argv[4]))
	    s.recv(100)
	    print("answered")
	except ConnectionRefusedError:
	    print("refused")
	except socket.timeout:
	    print("timeout")
	except OSError as e:
	    print("error", e.errno)
	EOF
}

out=$(udp_probe 4 198.51.100.130 9 16 -)
[ "$out" = refused ] || fail "UDP to a closed port (IPv4): $out"
out=$(udp_probe 6 2001:db8:3::2 9 16 -)
[ "$out" = refused ] || fail "UDP to a closed port (IPv6): $out"
log "ok: UDP to a closed port: ECONNREFUSED in the guest, both families"

udp_probe 4 198.51.100.130 9 1400 df >/dev/null
route=$(in_guest ip -4 route get 198.51.100.130)
grep -q 'mtu 1280' <<<"$route" ||
	fail "IPv4 path MTU not learnt by the guest: $route"
udp_probe 6 2001:db8:3::2 9 1400 df >/dev/null
route=$(in_guest ip -6 route get 2001:db8:3::2)
grep -q 'mtu 1280' <<<"$route" ||
	fail "IPv6 path MTU not learnt by the guest: $route"
log "ok: path MTU 1280 learnt by the guest, both families"

# tracepath() - tracepath to the far host: hop 1 the peer, the far host
# reached at hop 2, and the path MTU found on the way (the peer's
# fragmentation-needed or packet-too-big for the 1280-byte link)
# $1: -4 or -6, $2: the peer's address, $3: the far host's
tracepath() {
	local out

	out=$(in_guest timeout 60 tracepath "$1" -n -m 4 "$3" 2>&1)
	grep -q "^ *1: *$2 " <<<"$out" ||
		fail "tracepath $1: hop 1 is not $2: $out"
	grep -q "^ *2: *$3 .*reached" <<<"$out" ||
		fail "tracepath $1: $3 not reached at hop 2: $out"
	grep -q 'Resume: pmtu 1280 hops 2 ' <<<"$out" ||
		fail "tracepath $1: path MTU 1280 not found: $out"
	log "ok: tracepath $1: $(tail -1 <<<"$out")"
}

tracepath -4 203.0.113.1 198.51.100.130
tracepath -6 2001:db8:1::1 2001:db8:3::2

if [ "$BACKEND" = netshim ]; then
	n=$(topo_counter icmp_errors)
	[ "${n:-0}" -ge 8 ] || fail "icmp_errors counter is '$n'"
	log "ok: $n ICMP errors relayed"
fi
