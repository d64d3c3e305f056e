#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode without --config-net, as pasta's: the namespace
# configures itself, as containers and sandboxes that run their own
# network configuration expect.  pasta 2026 through the same script
# (BACKEND=passt PASTA=/tmp/passt2026/pasta) shows the same, but for the
# MTU it hands out (65520; netshim's is the pod's, doc/passt-options.md):
# - the tap is there, down, with no address nor route; loopback is up;
# - the namespace's own ISC dhclient -4, with Debian's configuration and
#   script, brings the tap up and gets the pod's address and prefix, its
#   gateway as the default route, and the MTU; no DNS server nor search
#   list comes with the lease, so the pod's resolv.conf, which the
#   namespace shares, is left as it was;
# - the kernel's SLAAC forms an address of the pod's /64 (protocol
#   kernel_ra), and the default route it learns goes through the router
#   advertisement's source: the pod's own IPv6 gateway, fe80::1 here;
# - dhclient -6 gets the pod's IPv6 address;
# - TCP moves both ways to the peer over both families, from the
#   DHCPv4, SLAAC and DHCPv6 addresses, and the peer reaches a server in
#   the namespace through -t;
# - with --dhcp-dns and --dhcp-search, dhclient writes the DNS server and
#   search list handed to it;
# - with a global IPv6 gateway in the pod, the router advertisement comes
#   from the pod interface's own link-local address, and the namespace's
#   default route with it;
# - systemd-networkd in the namespace, as a container's init starts it
#   (DHCP=yes, IPv6AcceptRA=yes, /sys read-only as in a container, so it
#   waits for no udev), gets the same: the DHCPv4 address and default
#   route, a SLAAC address, the DHCPv6 address, the default route from
#   the router advertisement, and TCP moves over both families.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

command -v dhclient >/dev/null ||
	skip "no dhclient (isc-dhcp-client, contrib/install-deps.sh)"

# An MTU of the pod's that no tap starts with, to see DHCP set it
POD_MTU=1400
SENTINEL="nameserver 127.0.0.9 # the pod's own, left alone"

topo_init
topo_peer_pod
ip -n "$NS_PEER" link set peer0 mtu "$POD_MTU" &&
	ip -n "$NS_POD" link set pod0 mtu "$POD_MTU" || fail "pod MTU"
want_mtu=$POD_MTU
[ "$BACKEND" = passt ] && want_mtu=65520

# dhclient_run() - the namespace's ISC dhclient with Debian's default
# configuration and script, in a mount namespace where the pod's
# resolv.conf is $WORK/resolv.conf, so that what it would write there is
# seen and the machine's is never touched; and in a UTS namespace of its
# own, for the host name the script may set
# $1: 4 or 6, $2: name of its files under $WORK
dhclient_run() {
	local pid

	in_guest unshare -m -u sh -c \
		'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' \
		sh "$WORK/resolv.conf" timeout 60 dhclient "-$1" -1 -v \
		-lf "$WORK/$2.leases" -pf "$WORK/$2.pid" "$NS_IF" \
		>"$WORK/$2.log" 2>&1 ||
		fail "dhclient -$1: $(grep -v -i -e isc -e copyright \
			-e 'all rights' -e bugs -e '^$' "$WORK/$2.log" |
			tail -8)"
	# It stays in the background to renew: make it ours to stop
	pid=$(cat "$WORK/$2.pid" 2>/dev/null)
	[ -n "$pid" ] && topo_pid_add "$pid"
	log "dhclient -$1: $(grep -e '^bound' -e 'Bound to' "$WORK/$2.log")"
}

# ifaddrs() - the tap's addresses with their protocol (tests/lib/ifaddrs.py)
ifaddrs() {
	in_guest python3 "$REPO/tests/lib/ifaddrs.py" "$NS_IF"
}

# wait_untentative() - wait until the tap has no tentative IPv6 address
wait_untentative() {
	local _

	for _ in $(seq 50); do
		[ -z "$(in_guest ip -6 addr show dev "$NS_IF" tentative)" ] &&
			return 0
		sleep 0.1
	done
	fail "IPv6 addresses still tentative: $(in_guest ip -6 addr)"
}

# tcp_from() - a short TCP upload to the peer from one address, checked
# $1: family, $2: source address, $3: peer address, $4: port, $5: seed
tcp_from() {
	local p=$WORK/from-$4 b=$2 a=$3

	[ "$1" = 6 ] && b="[$2]" && a="[$3]"
	tcp_recv_bg "$NS_PEER" 20 "TCP$1-LISTEN:$4,reuseaddr" "$p"
	tcp_wait_listen "$NS_PEER" "$4"
	tcp_send "$NS_GUEST" 20 "TCP$1:$a:$4,bind=$b" "$p" "$5" \
		"$(tcp_size 1M)" || log "socat from $2: $(tail -2 "$p.err")"
	tcp_recv_end "$p"
	tcp_check "$p" "1 MiB from $2 to $3"
}

# guest_stop() - ns_stop, after the namespace's own processes: the DHCP
# clients that stay to renew, systemd-networkd
guest_stop() {
	local pid

	for pid in $(ip netns pids "$NS_GUEST" 2>/dev/null); do
		kill "$pid" 2>/dev/null
	done
	ns_stop
}

echo "$SENTINEL" >"$WORK/resolv.conf"
NS_SELF=1 ns_start -t 5001

# What the namespace starts with
out=$(in_guest ip -o link show dev "$NS_IF") ||
	fail "no $NS_IF in the namespace: $(in_guest ip -o link)"
echo "$out" | grep -q '[<,]UP[,>]' && fail "$NS_IF is up already: $out"
in_guest ip -o link show dev lo | grep -q '[<,]UP[,>]' || fail "lo is down"
out=$(in_guest ip -o addr show dev "$NS_IF")
[ -z "$out" ] || fail "$NS_IF has addresses already: $out"
out=$(in_guest ip route; in_guest ip -6 route)
[ -z "$out" ] || fail "routes already: $out"
log "ok: $NS_IF down, no address, no route; lo up"

# DHCPv4, as the namespace's own client does it
dhclient_run 4 dh4
out=$(in_guest ip -o -4 addr show dev "$NS_IF")
echo "$out" | grep -q 'inet 203\.0\.113\.2/24 ' ||
	fail "no 203.0.113.2/24 from DHCP: $out"
in_guest ip -o link show dev "$NS_IF" | grep -q "[<,]UP[,>].* mtu $want_mtu " ||
	fail "$NS_IF not up with MTU $want_mtu: $(in_guest ip -o link show dev "$NS_IF")"
in_guest ip route show default | grep -q "^default via 203\.0\.113\.1 dev $NS_IF" ||
	fail "no IPv4 default route through the gateway: $(in_guest ip route)"
[ "$(cat "$WORK/resolv.conf")" = "$SENTINEL" ] ||
	fail "dhclient rewrote resolv.conf: $(cat "$WORK/resolv.conf")"
log "ok: dhclient -4: 203.0.113.2/24, default via 203.0.113.1, MTU $want_mtu, resolv.conf left alone"

# SLAAC: the link is up, the kernel's router solicitation is answered
slaac=
for _ in $(seq 100); do
	slaac=$(ifaddrs | sed -n 's|^\(2001:db8:1:0:[0-9a-f:]*\)/64 proto kernel_ra$|\1|p' |
		head -1)
	[ -n "$slaac" ] && break
	sleep 0.1
done
[ -n "$slaac" ] ||
	fail "no kernel_ra address of 2001:db8:1::/64 after 10 s: $(ifaddrs)"
wait_untentative
out=$(in_guest ip -6 route show default)
echo "$out" | grep -q "^default via fe80::1 dev $NS_IF proto ra " ||
	fail "no IPv6 default route via fe80::1 from the RA: $out"
log "ok: SLAAC: $slaac (kernel_ra), default via fe80::1 (proto ra)"

# DHCPv6, on the link-local address that is usable now
dhclient_run 6 dh6
wait_untentative
out=$(in_guest ip -o -6 addr show dev "$NS_IF")
echo "$out" | grep -q 'inet6 2001:db8:1::2/' ||
	fail "no 2001:db8:1::2 from DHCPv6: $out"
[ "$(cat "$WORK/resolv.conf")" = "$SENTINEL" ] ||
	fail "dhclient -6 rewrote resolv.conf: $(cat "$WORK/resolv.conf")"
log "ok: dhclient -6: 2001:db8:1::2; addresses: $(ifaddrs | tr '\n' ' ')"

# Traffic, from each address the namespace configured
tcp_from 4 203.0.113.2 203.0.113.1 5301 1
tcp_from 6 "$slaac" 2001:db8:1::1 5302 2
tcp_from 6 2001:db8:1::2 2001:db8:2::1 5303 3
tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5201 4 "$(tcp_size 16M)" 30
tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5202 5 "$(tcp_size 16M)" 30
tcp_upload "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5203 6 "$(tcp_size 16M)" 30
tcp_download "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5204 7 "$(tcp_size 16M)" 30
tcp_upload "$NS_PEER" "$NS_GUEST" 4 203.0.113.2 5001 8 "$(tcp_size 16M)" 30
tcp_upload "$NS_PEER" "$NS_GUEST" 6 2001:db8:1::2 5001 9 "$(tcp_size 16M)" 30
kill -0 "$BACKEND_PID" 2>/dev/null || fail "$BACKEND died"
guest_stop

# Asked for, the DNS server and search list reach the namespace's
# resolv.conf through its DHCP client
echo "$SENTINEL" >"$WORK/resolv.conf"
NS_SELF=1 ns_start --dhcp-dns --dhcp-search
dhclient_run 4 dh4-dns
grep -q '^nameserver 203\.0\.113\.1$' "$WORK/resolv.conf" &&
	grep -q '^search netshim\.test\.\?$' "$WORK/resolv.conf" ||
	fail "--dhcp-dns --dhcp-search: resolv.conf: $(cat "$WORK/resolv.conf")"
log "ok: --dhcp-dns --dhcp-search: dhclient wrote nameserver 203.0.113.1, search netshim.test"
guest_stop

# A global IPv6 gateway: advertisements from the pod's own link-local
# address, as passt's and pasta's
pod_ll=$(ip -n "$NS_POD" -6 -o addr show dev pod0 scope link |
	awk '{ sub("/.*", "", $4); print $4; exit }')
ip -n "$NS_POD" -6 route replace default via 2001:db8:1::1 dev pod0 ||
	fail "global IPv6 gateway in the pod"
NS_SELF=1 ns_start
in_guest ip link set "$NS_IF" up || fail "$NS_IF up"
for _ in $(seq 100); do
	out=$(in_guest ip -6 route show default)
	[ -n "$out" ] && break
	sleep 0.1
done
echo "$out" | grep -q "^default via $pod_ll dev $NS_IF proto ra " ||
	fail "global gateway: no default route via the pod's $pod_ll: $out"
wait_untentative
tcp_upload "$NS_GUEST" "$NS_PEER" 6 2001:db8:2::1 5221 21 "$(tcp_size 1M)" 30
log "ok: global gateway: default via the pod's $pod_ll (proto ra)"
guest_stop
ip -n "$NS_POD" -6 route replace default via fe80::1 dev pod0 ||
	fail "link-local IPv6 gateway in the pod again"

# systemd-networkd, as a container's init runs it, in a mount namespace
# of its own: its state, its configuration and the system bus on tmpfs
# (nothing of the machine's is read or written), /sys read-only as a
# container has it, so it waits for no udev
NETWORKD=/lib/systemd/systemd-networkd
[ -x "$NETWORKD" ] || NETWORKD=/usr/lib/systemd/systemd-networkd
[ -x "$NETWORKD" ] || skip "no systemd-networkd (the rest passed)"
NS_SELF=1 ns_start
printf '[Match]\nName=%s\n[Network]\nDHCP=yes\nIPv6AcceptRA=yes\n' \
	"$NS_IF" >"$WORK/10-netshim-test.network"
ip netns exec "$NS_GUEST" unshare -m sh -c '
	mount -t tmpfs tmpfs /run/systemd &&
	mount -t tmpfs tmpfs /etc/systemd/network &&
	mount -t tmpfs tmpfs /run/dbus &&
	mount -o remount,ro /sys &&
	mkdir /run/systemd/network /run/systemd/netif &&
	chown systemd-network:systemd-network /run/systemd/netif &&
	cp "$1" /run/systemd/network/ &&
	exec timeout 120 "$2"' sh "$WORK/10-netshim-test.network" \
	"$NETWORKD" >"$WORK/networkd.log" 2>&1 &
topo_pid_add $!
for _ in $(seq 200); do
	out=$(in_guest ip -o addr show dev "$NS_IF" -tentative)
	echo "$out" | grep -q 'inet 203\.0\.113\.2/24 ' &&
		echo "$out" | grep -q 'inet6 2001:db8:1::2/128 ' &&
		echo "$out" | grep -q 'inet6 2001:db8:1:0:[0-9a-f:]*/64 ' &&
		in_guest ip -6 route show default | grep -q 'via fe80::1 ' &&
		in_guest ip route show default | grep -q 'via 203\.0\.113\.1 ' &&
		break
	sleep 0.1
done
[ "$(in_guest ip -o link show dev "$NS_IF" | grep -c '[<,]UP[,>]')" = 1 ] &&
	echo "$out" | grep -q 'inet 203\.0\.113\.2/24 ' &&
	echo "$out" | grep -q 'inet6 2001:db8:1::2/128 ' &&
	echo "$out" | grep -q 'inet6 2001:db8:1:0:[0-9a-f:]*/64 ' ||
	fail "systemd-networkd: addresses after 20 s: $out; $(tail -5 "$WORK/networkd.log")"
in_guest ip route show default | grep -q "^default via 203\.0\.113\.1 dev $NS_IF proto dhcp" &&
	in_guest ip -6 route show default | grep -q "^default via fe80::1 dev $NS_IF proto ra" ||
	fail "systemd-networkd: default routes: $(in_guest ip route; in_guest ip -6 route)"
log "ok: systemd-networkd: $(echo "$out" | awk '{ print $4 }' | tr '\n' ' ')"
tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5211 11 "$(tcp_size 16M)" 30
tcp_download "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5212 12 "$(tcp_size 16M)" 30
