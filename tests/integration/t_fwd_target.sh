#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Port mappings to a guest address that is not the guest's own, as passt
# 2026 writes them (-t 0.0.0.0/5000:198.51.100.77/6000): the guest holds
# 198.51.100.77 and 2001:db8:77::7 beside its DHCP and SLAAC addresses
# (as a guest routing to containers or nested VMs would), and its servers
# listen on those addresses only, so a connection that reaches them went
# to the target address, not to the guest's own:
# - TCP from the peer to 203.0.113.2 port 5000 and to 2001:db8:1::2 port
#   5002 is echoed intact by the guest's servers on 198.51.100.77 port
#   6000 and [2001:db8:77::7] port 6002;
# - from inside the pod, 127.0.0.1 port 5000 reaches the same server (a
#   local client is not short-cut to the guest's loopback);
# - UDP datagrams from the peer to port 5003 come back from
#   198.51.100.77 port 6003 byte for byte;
# - port 5000 over IPv6, which no rule forwards, is refused or reset
#   within 2 s;
# - netshim only: a range with no bind address (5004-5005:198.51.100.77,
#   which passt refuses) forwards in the target's family, to the same
#   ports, and IPv6 connections to those ports are refused.  (With the
#   bound rules beside it, each port has its own sockets here; the
#   sk_lookup listener's side is tests/unit/test_fwd.c's.)

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/lib/udp.sh
. "$(dirname "$0")/../lib/udp.sh"

T4=198.51.100.77
T6=2001:db8:77::7

topo_init
topo_peer_pod
extra=()
[ "$BACKEND" = netshim ] && extra=(-t "5004-5005:$T4")
topo_backend -t "0.0.0.0/5000:$T4/6000" -t "::/5002:[$T6]/6002" \
	-u "0.0.0.0/5003:$T4/6003" "${extra[@]}"
topo_relay_guest
guest_dhcp
in_guest ip addr add "$T4/32" dev tap0 || fail "guest address $T4"
in_guest ip -6 addr add "$T6/128" dev tap0 nodad ||
	fail "guest address $T6"

tcp_many_server "$NS_GUEST" "$T4" 6000
tcp_many_server "$NS_GUEST" "$T6" 6002
tcp_many_check "$NS_PEER" 203.0.113.2 5000 2 262144 10
tcp_many_check "$NS_PEER" 2001:db8:1::2 5002 2 262144 10
tcp_many_check "$NS_POD" 127.0.0.1 5000 2 262144 10

make_payloads "$WORK/u4"
echo_server "$NS_GUEST" "UDP4-LISTEN:6003,bind=$T4" "$T4"
run_client "$NS_PEER" 203.0.113.2 5003 "$WORK/u4"

tcp_expect "$NS_PEER" 2001:db8:1::2 5000 2000 refused reset closed

if [ "$BACKEND" = netshim ]; then
	tcp_many_server "$NS_GUEST" "$T4" 5005
	tcp_many_check "$NS_PEER" 203.0.113.2 5005 2 262144 10
	tcp_expect "$NS_PEER" 2001:db8:1::2 5005 2000 refused reset closed
fi
