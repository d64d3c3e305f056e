#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Inbound TCP port forwarding (-t 8080:80 -t 2222 -t 2223) to servers in
# the guest: echo servers listen on the guest's ports 80 and 2222, and
# clients check their data comes back intact within 5 s
# (tests/tcp/many.py):
# - from the peer to 203.0.113.2 and 2001:db8:1::2, ports 8080 and 2222;
# - from inside the pod to 127.0.0.1, ::1 and 203.0.113.2, port 8080;
# - to port 2223, where nothing listens in the guest, the client sees the
#   connection refused, reset or closed within 2 s, never a hang.
# Afterwards the backend counts no TCP connection.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

CONNS=4
SIZE=$((1 << 20))
# Well under a second here
MAX_SECS=5

topo_init
topo_peer_pod
topo_backend -t 8080:80 -t 2222 -t 2223
topo_relay_guest
guest_dhcp
tcp_many_server "$NS_GUEST" "" 80
tcp_many_server "$NS_GUEST" "" 2222

for a in 203.0.113.2 2001:db8:1::2; do
	tcp_many_check "$NS_PEER" "$a" 8080 "$CONNS" "$SIZE" "$MAX_SECS"
	tcp_many_check "$NS_PEER" "$a" 2222 "$CONNS" "$SIZE" "$MAX_SECS"
done
for a in 127.0.0.1 ::1 203.0.113.2; do
	tcp_many_check "$NS_POD" "$a" 8080 "$CONNS" "$SIZE" "$MAX_SECS"
done

for a in 203.0.113.2 2001:db8:1::2; do
	tcp_expect "$NS_PEER" "$a" 2223 2000 refused reset closed
done
tcp_expect "$NS_POD" 127.0.0.1 2223 2000 refused reset closed

n=
for _ in $(seq 20); do
	n=$(tcp_counters)
	[ "$n" = 0 ] && break
	sleep 0.5
done
[ "$n" = 0 ] || fail "backend still counts '$n' TCP connections"
log "ok: backend counts 0 TCP connections"
