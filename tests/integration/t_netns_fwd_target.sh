#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode: port mappings to an address of the namespace that is not
# its own (-t 0.0.0.0/5000:198.51.100.77/6000, -u likewise, as pasta 2026
# writes them).  The namespace holds 198.51.100.77 beside the pod's
# address, and its servers listen there only:
# - TCP to port 5000 from the peer (203.0.113.2) and from inside the pod
#   (127.0.0.1) is echoed intact by the server on 198.51.100.77 port 6000;
# - UDP datagrams to port 5003 from the peer, and to port 5004 from the
#   pod's loopback, come back from 198.51.100.77 ports 6003 and 6004 byte
#   for byte (-u 0.0.0.0/5003-5004:198.51.100.77/6003-6004).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/lib/udp.sh
. "$(dirname "$0")/../lib/udp.sh"

T4=198.51.100.77

topo_init
topo_peer_pod
ns_start -t "0.0.0.0/5000:$T4/6000" -u "0.0.0.0/5003-5004:$T4/6003-6004"
in_guest ip addr add "$T4/32" dev "$NS_IF" || fail "address $T4"

tcp_many_server "$NS_GUEST" "$T4" 6000
tcp_many_check "$NS_PEER" 203.0.113.2 5000 2 65536 10
tcp_many_check "$NS_POD" 127.0.0.1 5000 2 65536 10

make_payloads "$WORK/u1"
make_payloads "$WORK/u2"
echo_server "$NS_GUEST" "UDP4-LISTEN:6003,bind=$T4" "$T4"
run_client "$NS_PEER" 203.0.113.2 5003 "$WORK/u1"
echo_server "$NS_GUEST" "UDP4-LISTEN:6004,bind=$T4" "$T4"
run_client "$NS_POD" 127.0.0.1 5004 "$WORK/u2"
