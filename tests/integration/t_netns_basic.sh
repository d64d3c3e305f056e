#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode, "netshim -- COMMAND": what a command run under netshim
# sees, as pasta users expect it:
# - netshim exits with the command's status;
# - the namespace has a tap named like the pod's interface, up, with the
#   pod's addresses of both families, its default routes, the pod
#   interface's MTU (pasta: 65520, its default; netshim's namespace
#   uploads measured a third faster at the pod's 1500, see the man page),
#   and loopback up;
# - it pings the peer, resolves through the peer's DNS server, moves TCP
#   data both ways (checksummed; 1 GiB each way is t_netns_gib_tap.sh) and
#   UDP datagrams both ways (byte for byte), on both families;
# - -t and -u forward the pod's ports to servers in the namespace.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/lib/udp.sh
. "$(dirname "$0")/../lib/udp.sh"

topo_init
topo_peer_pod
topo_dns

# The exit status is the command's, and a signal's or a failed start's
# as "unshare --fork", "env" and a shell report them (128 + the signal,
# 127).  pasta 2025-05, the peer, exits 0 and 1 for those two: logged,
# not failed, when it runs here (BACKEND=passt)
# $1: the status wanted, $2: "differs" if pasta may differ, $3...: command
status_of() {
	local want=$1 lenient=$2 rc

	shift 2
	ns_backend_cmd -q -- "$@"
	ip netns exec "$NS_POD" timeout 20 "${NS_CMD[@]}" \
		>"$WORK/status.log" 2>&1
	rc=$?
	[ "$rc" = "$want" ] && return
	if [ "$BACKEND" = passt ] && [ -n "$lenient" ]; then
		log "pasta: -- $*: exit $rc (netshim: $want)"
		return
	fi
	fail "$BACKEND -- $* exited $rc, not $want: $(cat "$WORK/status.log")"
}
status_of 7 "" sh -c 'exit 7'
status_of 137 differs sh -c 'kill -KILL $$'
status_of 127 differs /nonexistent
log "ok: exit status of the command (7, 137 after SIGKILL, 127 not found)"

ns_start -t 5001 -u 5001:5000

# Addresses, routes, MTU, loopback: what "ip" shows inside
out=$(in_guest ip -o addr show dev "$NS_IF")
echo "$out" | grep -q 'inet 203\.0\.113\.2/24 ' ||
	fail "no 203.0.113.2/24 on $NS_IF: $out"
echo "$out" | grep -q 'inet6 2001:db8:1::2/64 ' ||
	fail "no 2001:db8:1::2/64 on $NS_IF: $out"
mtu=$(ip -n "$NS_POD" -o link show dev pod0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
[ "$BACKEND" = passt ] && mtu=65520
in_guest ip -o link show dev "$NS_IF" | grep -q "[<,]UP[,>].* mtu $mtu " ||
	fail "$NS_IF not up with MTU $mtu: $(in_guest ip -o link show)"
in_guest ip -o link show dev lo | grep -q '[<,]UP[,>]' || fail "lo is down"
in_guest ip route show default | grep -q "via 203.0.113.1 dev $NS_IF" ||
	fail "no IPv4 default route: $(in_guest ip route)"
in_guest ip -6 route show default | grep -q "via fe80::1 dev $NS_IF" ||
	fail "no IPv6 default route: $(in_guest ip -6 route)"
in_guest ip -d link show dev "$NS_IF" | grep -q 'tun type tap ' ||
	fail "$NS_IF is not a tap: $(in_guest ip -d link show dev "$NS_IF")"
log "ok: tap $NS_IF up, MTU $mtu, 203.0.113.2/24, 2001:db8:1::2/64, default routes"

for dst in 203.0.113.1 2001:db8:1::1; do
	out=$(in_guest timeout 20 busybox ping -c 3 -W 2 "$dst" 2>&1) ||
		fail "ping $dst: $out"
	echo "$out" | grep -q '3 packets received' || fail "ping $dst: $out"
done
log "ok: ping to the peer, both families"

for server in 203.0.113.1 2001:db8:1::1; do
	out=$(in_guest timeout 10 busybox nslookup peer.netshim.test \
		"$server" 2>&1) || fail "nslookup via $server: $out"
	echo "$out" | grep -q '^Address: 203.0.113.1$' &&
		echo "$out" | grep -q '^Address: 2001:db8:1::1$' ||
		fail "nslookup via $server: $out"
done
log "ok: DNS through the peer's server, both families"

tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5201 1 "$(tcp_size 64M)" 60
tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5202 2 "$(tcp_size 64M)" 60
tcp_upload "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5203 3 "$(tcp_size 64M)" 60
tcp_download "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5204 4 "$(tcp_size 64M)" 60
# Inbound: the peer reaches a server in the namespace through -t
tcp_upload "$NS_PEER" "$NS_GUEST" 4 203.0.113.2 5001 5 "$(tcp_size 64M)" 60
tcp_upload "$NS_PEER" "$NS_GUEST" 6 2001:db8:1::2 5001 6 "$(tcp_size 64M)" 60

udp_both_ways 203.0.113.1 2001:db8:1::1

kill -0 "$BACKEND_PID" 2>/dev/null || fail "$BACKEND died"
