#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The guest's echo requests to the peer and to the remote network are
# answered, over IPv4 and IPv6 (ICMP echo sockets in the pod).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

topo_init
topo_peer_pod
topo_backend
topo_relay_guest
guest_dhcp

for dst in 203.0.113.1 198.51.100.1 2001:db8:1::1 2001:db8:2::1; do
	case "$dst" in
	*:*) ping=ping6 ;;
	*) ping=ping ;;
	esac
	out=$(in_guest busybox $ping -c 3 -W 2 "$dst" 2>&1)
	echo "$out" | grep -q '3 packets transmitted, 3 packets received' ||
		fail "ping $dst: $out"
	log "ok: $dst $(echo "$out" | tail -1)"
done
