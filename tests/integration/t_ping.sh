#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The guest's echo requests to the peer and to the remote network are
# answered, over IPv4 and IPv6 (ICMP echo sockets in the pod).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

DESTS="203.0.113.1 198.51.100.1 2001:db8:1::1 2001:db8:2::1"

topo_init
topo_peer_pod
topo_backend
topo_relay_guest
guest_dhcp

# All at once: each takes about 3 s, and they use distinct echo ids
pids=
for dst in $DESTS; do
	case "$dst" in
	*:*) ping=ping6 ;;
	*) ping=ping ;;
	esac
	in_guest timeout 20 busybox $ping -c 3 -W 2 "$dst" \
		>"$WORK/ping-$dst.log" 2>&1 &
	pids="$pids $!"
done
# Not a bare wait: the backend and the relay are children of this shell
# shellcheck disable=SC2086
wait $pids
for dst in $DESTS; do
	out=$(cat "$WORK/ping-$dst.log")
	echo "$out" | grep -q '3 packets transmitted, 3 packets received' ||
		fail "ping $dst: $out"
	log "ok: $dst $(echo "$out" | tail -1)"
done
