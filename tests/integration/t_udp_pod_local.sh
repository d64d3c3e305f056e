#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# UDP from a process of the pod itself to a forwarded port (a sidecar's
# DNS proxy or metrics agent talking to the VM), as passt 2026 does it,
# side by side (BACKEND=passt):
# - -u 5001:5000; the guest's server on port 5000 (separate IPv4 and IPv6
#   sockets, tests/lib/who.py) answers each datagram with the address it
#   came from;
# - a pod process writing to 127.0.0.1, the pod's 203.0.113.2, ::1 and
#   the pod's 2001:db8:1::2, port 5001, from a connected socket, gets the
#   guest's answer back from the address and port it wrote to;
# - the guest sees the pod's IPv4 clients at the gateway, 203.0.113.1, and
#   its IPv6 ones at the back-end's link-local address, fe80::1 (the
#   gateway's here): never its own address or loopback, which it would
#   drop;
# - a client of the peer still reaches the guest at its own address.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

WHO=$REPO/tests/lib/who.py

# who_expect() - a datagram to the guest's server, and its answer
# $1: client namespace, $2: address, $3: port, $4: the address the server
# must have seen
who_expect() {
	local out

	out=$(ip netns exec "$1" timeout 20 python3 "$WHO" client udp "$2" \
		"$3" 2>&1) || fail "UDP from $1 to $2 port $3: $out"
	case "$out" in
	"$4 "*) ;;
	*) fail "UDP from $1 to $2 port $3: the guest saw '$out', not $4" ;;
	esac
	log "ok: UDP from $1 to $2 port $3: the guest saw $out, answered"
}

topo_init
topo_peer_pod
topo_backend -u 5001:5000
topo_relay_guest
guest_dhcp
ip netns exec "$NS_GUEST" timeout 100 python3 "$WHO" server udp 5000 90 \
	>"$WORK/who.log" 2>&1 &
topo_pid_add $!
for _ in $(seq 50); do
	[ "$(in_guest ss -Hlun 'sport = :5000' | wc -l)" = 2 ] && break
	sleep 0.1
done

who_expect "$NS_POD" 127.0.0.1 5001 203.0.113.1
who_expect "$NS_POD" 203.0.113.2 5001 203.0.113.1
who_expect "$NS_POD" ::1 5001 fe80::1
who_expect "$NS_POD" 2001:db8:1::2 5001 fe80::1
# Again: the flows open, each a new client port
who_expect "$NS_POD" 127.0.0.1 5001 203.0.113.1
who_expect "$NS_POD" ::1 5001 fe80::1
who_expect "$NS_PEER" 203.0.113.2 5001 203.0.113.1
