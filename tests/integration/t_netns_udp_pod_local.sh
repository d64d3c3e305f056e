#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode: UDP from a process of the pod to a forwarded port, as
# pasta 2026 does it, side by side (BACKEND=passt):
# - -u 5001:5000; a server in the namespace on port 5000 (separate IPv4
#   and IPv6 sockets, tests/lib/who.py) answers each datagram with the
#   address it came from;
# - a pod process writing to 127.0.0.1 or ::1 port 5001 is relayed socket
#   to socket to the namespace's own address, which the server sees as
#   the source (t_netns_udp.sh has the relay's detail);
# - writing to the pod's 203.0.113.2 or 2001:db8:1::2, which are the
#   namespace's own addresses too, it goes over the tap, and the server
#   sees it at the gateway, 203.0.113.1, or at the back-end's link-local
#   address, fe80::1: never at its own address, which it would drop;
# - each answer comes back to the connected client from the address and
#   port it wrote to.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"

WHO=$REPO/tests/lib/who.py

# who_expect() - a datagram to the namespace's server, and its answer
# $1: address, $2: the address the server must have seen
who_expect() {
	local out

	out=$(ip netns exec "$NS_POD" timeout 20 python3 "$WHO" client udp \
		"$1" 5001 2>&1) || fail "UDP from the pod to $1 port 5001: $out"
	case "$out" in
	"$2 "*) ;;
	*) fail "UDP from the pod to $1: the server saw '$out', not $2" ;;
	esac
	log "ok: UDP from the pod to $1 port 5001: the server saw $out"
}

topo_init
topo_peer_pod
ns_start -u 5001:5000
ip netns exec "$NS_GUEST" timeout 100 python3 "$WHO" server udp 5000 90 \
	>"$WORK/who.log" 2>&1 &
topo_pid_add $!
for _ in $(seq 50); do
	[ "$(in_guest ss -Hlun 'sport = :5000' | wc -l)" = 2 ] && break
	sleep 0.1
done
# The namespace's addresses are usable (DAD done)
for _ in $(seq 50); do
	[ -z "$(in_guest ip -6 addr show tentative)" ] && break
	sleep 0.1
done

who_expect 127.0.0.1 203.0.113.2
who_expect ::1 2001:db8:1::2
who_expect 203.0.113.2 203.0.113.1
who_expect 2001:db8:1::2 fe80::1
