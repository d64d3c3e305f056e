#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# UDP both ways, payloads checked byte for byte, over IPv4 and IPv6:
# - guest -> peer: an echo server in the peer returns 20 datagrams of
#   distinct random content and sizes up to 1400 bytes;
# - peer -> guest: the backend forwards the pod's port 5001 to the guest's
#   port 5000 (-u 5001:5000), where the guest runs the echo server.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/udp.sh
. "$(dirname "$0")/../lib/udp.sh"

topo_init
topo_peer_pod
topo_backend -u 5001:5000
topo_relay_guest
guest_dhcp
udp_both_ways 203.0.113.1 2001:db8:1::1

# Broadcast and multicast from the guest stay on its link (the man page:
# dropped and counted as drop_link_only, not as malformed UDP): the
# limited and the subnet's
# broadcast, an mDNS group and IPv6's all-nodes group
bcast_send() {
	in_guest timeout 10 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
for a in ("255.255.255.255", "203.0.113.255", "224.0.0.251"):
    s.sendto(b"x", (a, 7001))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.sendto(b"x", ("ff02::1%tap0", 7001))
'
}
if [ "$BACKEND" = netshim ]; then
	before=$(topo_counter drop_link_only)
	udp_before=$(topo_counter drop_udp)
	bcast_send || fail "the guest could not send its broadcasts"
	after=$(topo_counter drop_link_only)
	[ $((after - before)) -eq 4 ] ||
		fail "drop_link_only went from $before to $after for 4" \
			"broadcast and multicast datagrams"
	[ "$(topo_counter drop_udp)" = "$udp_before" ] ||
		fail "broadcast and multicast datagrams counted as malformed UDP"
	log "ok: 4 broadcast and multicast datagrams dropped and counted"
fi
