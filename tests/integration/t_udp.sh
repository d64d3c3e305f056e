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
make_payloads "$WORK/p4"
make_payloads "$WORK/p6"
make_payloads "$WORK/i4"
make_payloads "$WORK/i6"

echo_server "$NS_PEER" UDP4-LISTEN:7000,bind=203.0.113.1 203.0.113.1
echo_server "$NS_PEER" "UDP6-LISTEN:7000,bind=[2001:db8:1::1]" 2001:db8:1::1
run_client "$NS_GUEST" 203.0.113.1 7000 "$WORK/p4"
run_client "$NS_GUEST" 2001:db8:1::1 7000 "$WORK/p6"

echo_server "$NS_GUEST" UDP4-LISTEN:5000 0.0.0.0
echo_server "$NS_GUEST" UDP6-LISTEN:5000,ipv6only=1 '\[::\]'
run_client "$NS_PEER" 203.0.113.2 5001 "$WORK/i4"
run_client "$NS_PEER" 2001:db8:1::2 5001 "$WORK/i6"
