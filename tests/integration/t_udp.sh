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
