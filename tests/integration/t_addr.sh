#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The guest gets the pod's own addresses: 203.0.113.2/24 with router
# 203.0.113.1, DNS and search list by DHCPv4; a 2001:db8:1::/64 SLAAC
# address with the default route via the pod router's link-local; and
# 2001:db8:1::2 by DHCPv6.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

# expect_eq() - fail unless a value is what it should be
# $1: what, $2: value, $3: expected
expect_eq() {
	[ "$2" = "$3" ] || fail "$1 is '$2', expected '$3'"
	log "ok: $1 = $2"
}

# expect_word() - fail unless a space separated list holds a word
# $1: what, $2: list, $3: word
expect_word() {
	case " $2 " in
	*" $3 "*) log "ok: $1 has $3" ;;
	*) fail "$1 is '$2', expected it to contain '$3'" ;;
	esac
}

topo_init
topo_peer_pod
topo_backend
topo_relay_guest
guest_dhcp

v4=$WORK/udhcpc.env
v6=$WORK/dhcp6.env
expect_eq "DHCPv4 address" "$(topo_env_get "$v4" ip)" 203.0.113.2
expect_eq "DHCPv4 prefix length" "$(topo_env_get "$v4" mask)" 24
expect_eq "DHCPv4 router" "$(topo_env_get "$v4" router)" 203.0.113.1
expect_word "DHCPv4 DNS servers" "$(topo_env_get "$v4" dns)" 203.0.113.1
expect_word "DHCPv4 search list" \
	"$(topo_env_get "$v4" search) $(topo_env_get "$v4" domain)" netshim.test

in_guest ip -4 -o addr show dev tap0 | grep -q 'inet 203\.0\.113\.2/24 ' ||
	fail "tap0 has no 203.0.113.2/24: $(in_guest ip -o addr show dev tap0)"
route=$(in_guest ip -4 route show default)
expect_eq "IPv4 default route" "$route" "default via 203.0.113.1 dev tap0 "

slaac=$(in_guest ip -6 -o addr show dev tap0 scope global dynamic |
	grep -o 'inet6 2001:db8:1:0:[0-9a-f:]*/64')
[ -n "$slaac" ] || fail "no SLAAC address: $(in_guest ip -6 addr)"
log "ok: SLAAC address ${slaac#inet6 }"
route6=$(in_guest ip -6 route show default)
case "$route6" in
"default via fe80::1 dev tap0 proto ra "*) log "ok: IPv6 $route6" ;;
*) fail "IPv6 default route is '$route6', expected via fe80::1 from RA" ;;
esac

expect_eq "DHCPv6 address" "$(topo_env_get "$v6" new_ip6_address)" \
	2001:db8:1::2
expect_word "DHCPv6 DNS servers" \
	"$(topo_env_get "$v6" new_dhcp6_name_servers)" 2001:db8:1::1
expect_word "DHCPv6 search list" \
	"$(topo_env_get "$v6" new_dhcp6_domain_search | sed 's/\. / /g; s/\.$//')" \
	netshim.test
in_guest ip -6 -o addr show dev tap0 | grep -q 'inet6 2001:db8:1::2/128 ' ||
	fail "tap0 has no 2001:db8:1::2/128: $(in_guest ip -6 -o addr)"
log "ok: guest addresses: $(in_guest ip -o addr show dev tap0 |
	awk '{print $4}' | tr '\n' ' ')"

# dhcpcd, with Rapid Commit as its configuration can ask (RFC 4039): its
# DISCOVER must be answered by an ACK with the address at once, no OFFER
# and no REQUEST in between, as passt answers it.  dhcpcd runs in a mount
# namespace of its own, with empty /run and lease directory, so that no
# old lease turns its DISCOVER into a REQUEST, and with our script as its
# hook, so that it writes nothing of the machine's (resolv.conf).
printf '#!/bin/sh\n[ "$reason" = BOUND ] && env >"%s"\nexit 0\n' \
	"$WORK/dhcpcd.env" >"$WORK/dhcpcd.script"
chmod +x "$WORK/dhcpcd.script"
printf 'option rapid_commit\nnoarp\nscript %s\n' "$WORK/dhcpcd.script" \
	>"$WORK/dhcpcd.conf"
in_guest unshare -m sh -c 'mount -t tmpfs none /run &&
	mount -t tmpfs none /var/lib/dhcpcd &&
	exec timeout 30 dhcpcd -f "$1" -4 -1 -B -d -t 20 tap0' sh \
	"$WORK/dhcpcd.conf" >"$WORK/dhcpcd.log" 2>&1 ||
	fail "dhcpcd failed: $(tail -20 "$WORK/dhcpcd.log")"
log "dhcpcd: $(grep -E 'offered|acknowledged' "$WORK/dhcpcd.log" |
	tr '\n' ' ')"
grep -q 'acknowledged 203\.0\.113\.2 from 203\.0\.113\.1' \
	"$WORK/dhcpcd.log" ||
	fail "dhcpcd got no ACK: $(tail -20 "$WORK/dhcpcd.log")"
grep -q 'offered' "$WORK/dhcpcd.log" &&
	fail "dhcpcd was offered an address: no Rapid Commit"
expect_eq "dhcpcd's lease" \
	"$(sed -n 's/^new_ip_address=//p' "$WORK/dhcpcd.env")" 203.0.113.2
expect_eq "dhcpcd's reply type" \
	"$(sed -n 's/^new_dhcp_message_type=//p' "$WORK/dhcpcd.env")" 5
log "ok: dhcpcd's Rapid Commit DISCOVER answered by an ACK"
