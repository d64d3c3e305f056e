#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --config-net copies the pod interface's addresses and routes into the
# namespace, as pasta's does (pasta 2026 through the same script with
# BACKEND=passt PASTA=/tmp/passt2026/pasta):
# - every address of the pod's interface but link-local ones, of both
#   families, and the namespace speaks from a second one too;
# - every route of the main table through it, a route whose gateway is
#   reached through a later one included, with the default routes
#   through the pod's gateways; none of another table;
# - --no-copy-addrs and --no-copy-routes: the one address and the
#   default route of each family; -g does so for the routes of its
#   family alone.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

topo_init
topo_peer_pod
# The pod's interface, as a CNI with more than one address and route
# leaves it
ip -n "$NS_POD" addr add 203.0.113.9/24 dev pod0 &&
	ip -n "$NS_POD" addr add 2001:db8:1::9/64 dev pod0 nodad &&
	ip -n "$NS_POD" route add 198.51.100.64/26 dev pod0 &&
	ip -n "$NS_POD" route add 198.51.100.0/24 via 203.0.113.1 &&
	ip -n "$NS_POD" -6 route add 2001:db8:6::/64 dev pod0 &&
	ip -n "$NS_POD" -6 route add 2001:db8:5::/64 via 2001:db8:6::1 &&
	ip -n "$NS_POD" -6 route add 2001:db8:2::/64 via 2001:db8:1::1 &&
	ip -n "$NS_POD" route add 198.51.100.128/25 via 203.0.113.1 \
		table 100 || fail "the pod's addresses and routes"
topo_wait_dad "$NS_POD"

# has() - fail unless a namespace's listing has a line
# $1: what, for the message; $2: the listing; $3: extended regex
has() {
	echo "$2" | grep -Eq "$3" || fail "$1: no '$3' in: $2"
}

# lacks() - fail if a namespace's listing has a line
# $1: what, for the message; $2: the listing; $3: extended regex
lacks() {
	echo "$2" | grep -Eq "$3" && fail "$1: '$3' in: $2"
	return 0
}

# listings() - the namespace's addresses and main routes, in A4 A6 R4 R6
listings() {
	A4=$(in_guest ip -o -4 addr show dev "$NS_IF")
	A6=$(in_guest ip -o -6 addr show dev "$NS_IF")
	R4=$(in_guest ip -4 route show table main)
	R6=$(in_guest ip -6 route show table main)
}

ns_start
listings
has "addresses" "$A4" 'inet 203\.0\.113\.2/24 '
has "addresses" "$A4" 'inet 203\.0\.113\.9/24 '
has "addresses" "$A6" 'inet6 2001:db8:1::2/64 '
has "addresses" "$A6" 'inet6 2001:db8:1::9/64 '
has "routes" "$R4" "^default via 203\.0\.113\.1 dev $NS_IF"
has "routes" "$R4" "^198\.51\.100\.0/24 via 203\.0\.113\.1 dev $NS_IF"
has "routes" "$R4" "^198\.51\.100\.64/26 dev $NS_IF"
has "routes" "$R6" "^default via fe80::1 dev $NS_IF"
has "routes" "$R6" "^2001:db8:2::/64 via 2001:db8:1::1 dev $NS_IF"
has "routes" "$R6" "^2001:db8:6::/64 dev $NS_IF"
has "routes" "$R6" "^2001:db8:5::/64 via 2001:db8:6::1 dev $NS_IF"
lacks "routes" "$R4" '^198\.51\.100\.128/25'
[ -z "$(in_guest ip route show table 100 2>/dev/null)" ] ||
	fail "table 100 copied: $(in_guest ip route show table 100)"
log "ok: --config-net: both addresses of each family, every main route"

# The second address works as a source, as the pod's own would
tcp_recv_bg "$NS_PEER" 20 "TCP4-LISTEN:5301,reuseaddr" "$WORK/sec4"
tcp_wait_listen "$NS_PEER" 5301
tcp_send "$NS_GUEST" 20 "TCP4:198.51.100.1:5301,bind=203.0.113.9" \
	"$WORK/sec4" 1 "$(tcp_size 1M)" ||
	log "socat from 203.0.113.9: $(tail -2 "$WORK/sec4.err")"
tcp_recv_end "$WORK/sec4"
tcp_check "$WORK/sec4" "1 MiB from 203.0.113.9"
tcp_recv_bg "$NS_PEER" 20 "TCP6-LISTEN:5302,reuseaddr" "$WORK/sec6"
tcp_wait_listen "$NS_PEER" 5302
tcp_send "$NS_GUEST" 20 "TCP6:[2001:db8:2::1]:5302,bind=[2001:db8:1::9]" \
	"$WORK/sec6" 2 "$(tcp_size 1M)" ||
	log "socat from 2001:db8:1::9: $(tail -2 "$WORK/sec6.err")"
tcp_recv_end "$WORK/sec6"
tcp_check "$WORK/sec6" "1 MiB from 2001:db8:1::9"
log "ok: TCP from the second address of each family"
ns_stop

ns_start --no-copy-addrs --no-copy-routes
listings
has "addresses" "$A4" 'inet 203\.0\.113\.2/24 '
lacks "addresses" "$A4" '203\.0\.113\.9'
[ "$(echo "$A6" | grep -c 'scope global')" = 1 ] ||
	fail "--no-copy-addrs: not one global IPv6 address: $A6"
has "routes" "$R4" "^default via 203\.0\.113\.1 dev $NS_IF"
has "routes" "$R6" "^default via fe80::1 dev $NS_IF"
lacks "routes" "$R4" '^198\.51\.100\.'
lacks "routes" "$R6" '^2001:db8:[256]::'
log "ok: --no-copy-addrs --no-copy-routes: one address, default routes"
ns_stop

ns_start -g 203.0.113.1
listings
has "addresses" "$A4" 'inet 203\.0\.113\.9/24 '
has "routes" "$R4" "^default via 203\.0\.113\.1 dev $NS_IF"
lacks "routes" "$R4" '^198\.51\.100\.'
has "routes" "$R6" "^2001:db8:5::/64 via 2001:db8:6::1 dev $NS_IF"
log "ok: -g for IPv4: IPv4's default route alone, IPv6's all copied"
