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
