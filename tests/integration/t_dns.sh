#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The guest resolves names through the DNS servers it learned by DHCPv4
# and DHCPv6 (dnsmasq in the peer), over IPv4 and over IPv6.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

# resolve_check() - look a name up from the guest through one server
# $1: DNS server, $2: name, $3 and $4: addresses the answer must contain
resolve_check() {
	local out

	out=$(in_guest timeout 10 busybox nslookup "$2" "$1" 2>&1) ||
		fail "nslookup $2 via $1 failed: $out"
	echo "$out" | grep -q "^Address: $3\$" ||
		fail "nslookup $2 via $1 lacks $3: $out"
	echo "$out" | grep -q "^Address: $4\$" ||
		fail "nslookup $2 via $1 lacks $4: $out"
	log "ok: $2 via $1 -> $3 $4"
}

topo_init
topo_peer_pod
topo_dns
topo_backend
topo_relay_guest
guest_dhcp

dns4=$(topo_env_get "$WORK/udhcpc.env" dns | awk '{print $1}')
dns6=$(topo_env_get "$WORK/dhcp6.env" new_dhcp6_name_servers | awk '{print $1}')
[ -n "$dns4" ] || fail "no DNS server from DHCPv4"
[ -n "$dns6" ] || fail "no DNS server from DHCPv6"
log "DNS servers learned: $dns4 $dns6"

for server in "$dns4" "$dns6"; do
	resolve_check "$server" peer.netshim.test 203.0.113.1 2001:db8:1::1
	resolve_check "$server" remote.netshim.test 198.51.100.1 2001:db8:2::1
done
