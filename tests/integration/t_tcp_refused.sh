#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# TCP connections the remote side refuses fail promptly in the guest:
# - to a closed port of the peer: "connection refused" (a RST to the SYN)
#   within 2 s, IPv4 and IPv6, on the link and behind the router;
# - to an address the peer has an "unreachable" route for: unreachable
#   (ICMP) within 2 s (passt: refused or unreachable);
# - to an address of the pod's link where no host answers ARP or neighbour
#   solicitations: an error as soon as the pod's kernel gives up (about
#   3 s), never a hang until the guest's SYN retries run out.
# The backend's TCP connection count is back to 0 afterwards.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

CLOSED=5999

topo_init
topo_peer_pod
# The peer routes, so that it answers for unreachable prefixes with ICMP
in_peer sysctl -qw net.ipv4.ip_forward=1
in_peer sysctl -qw net.ipv6.conf.all.forwarding=1
ip -n "$NS_PEER" route add unreachable 198.51.100.128/25 ||
	fail "unreachable route in peer"
ip -n "$NS_PEER" -6 route add unreachable 2001:db8:3::/64 ||
	fail "IPv6 unreachable route in peer"
topo_backend
topo_relay_guest
guest_dhcp

for a in 203.0.113.1 198.51.100.1 2001:db8:1::1 2001:db8:2::1; do
	tcp_expect "$NS_GUEST" "$a" "$CLOSED" 2000 refused
done
# Where nothing answers, a real network's router says "unreachable"
# (ICMP), and the guest's connect() fails with EHOSTUNREACH, not
# ECONNREFUSED: netshim relays that; passt answers with a reset, which
# the same test accepts from it.  The pod's own kernel takes about 1 s
# to give up on ICMPv6 errors (it waits for its first SYN
# retransmission): 2 s covers that too
unreach=unreachable
[ "$BACKEND" = netshim ] || unreach="refused unreachable"
for a in 198.51.100.200 2001:db8:3::1; do
	# shellcheck disable=SC2086
	tcp_expect "$NS_GUEST" "$a" 80 2000 $unreach
done
for a in 203.0.113.99 2001:db8:1::99; do
	# shellcheck disable=SC2086
	tcp_expect "$NS_GUEST" "$a" 80 6000 $unreach
done

n=
for _ in $(seq 10); do
	n=$(tcp_counters)
	[ "$n" = 0 ] && break
	sleep 0.5
done
[ "$n" = 0 ] || fail "backend still counts '$n' TCP connections"
log "ok: backend counts 0 TCP connections"
