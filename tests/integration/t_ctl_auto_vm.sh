#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# -t auto for a VM (the sk_lookup program: every port no pod process
# listens on) changed at run time through the control socket, by pesto
# (where it can be built) and netshim-ctl:
# - listed as one best-effort auto rule over every port;
# - narrowed to 8000-8010 (pesto's 8000-8010,auto; netshim-ctl's
#   8000-8010 and auto for nothing else): 8005 still reaches the guest,
#   9001 no longer does; a pod process listening on 8006 keeps its port;
# - widened again to every port: 9001 reaches the guest again;
# - the program's two listening sockets are never bound again, and a
#   connection through the program open before the changes still echoes.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/ctl/lib.sh
. "$(dirname "$0")/../ctl/lib.sh"

[ "$BACKEND" = netshim ] || skip "netshim's -t auto for a VM (passt has none)"

# lookup_inodes() - the sk_lookup program's two sockets, on loopback
lookup_inodes() {
	in_pod ss -Hltne 2>/dev/null | awk '$4 ~ /^(127\.0\.0\.1|\[::1\]):/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^ino:/) print $4 "/" $i }' |
		sort
}

topo_init
topo_peer_pod
CTL_SOCK=$WORK/ctl.sock
ctl_clients
topo_backend -c "$CTL_SOCK" -t auto
topo_relay_guest
guest_dhcp
for p in 8005 9001; do
	tcp_many_server "$NS_GUEST" "" "$p"
done
for who in guest pod; do
	ns=$NS_GUEST
	[ "$who" = pod ] && ns=$NS_POD
	ip netns exec "$ns" timeout 120 python3 "$TCP_DIR/whoami.py" server \
		"$who" 8006 >>"$WORK/whoami.log" 2>&1 &
	topo_pid_add $!
	tcp_wait_listen "$ns" 8006
done
ctl_expect_rules "HOST TCP [*]:1-65535 => 1-65535 (best effort) (auto-scan)"
ctl_tcp_ok "$NS_PEER" 203.0.113.2 8005
ctl_tcp_ok "$NS_PEER" 203.0.113.2 9001
ino=$(lookup_inodes)
[ -n "$ino" ] || fail "no sk_lookup sockets"
ctl_long_conn "$NS_PEER" 203.0.113.2 9001 long

for c in "${CLIENTS[@]}"; do
	log "=== $c"
	if [ "$c" = pesto ]; then
		ctl_ok "$c" set -t 8000-8010,auto
		ctl_expect_rules "HOST TCP [*]:8000-8010 => 8000-8010 (auto-scan)"
	else
		ctl_ok "$c" set -t 8000-8010
		ctl_expect_rules "HOST TCP [*]:8000-8010 => 8000-8010"
	fi
	ctl_tcp_ok "$NS_PEER" 2001:db8:1::2 8005
	ctl_tcp_no "$NS_PEER" 203.0.113.2 9001
	# The pod's own 8006 stays the pod's, not the guest's
	out=$(in_peer timeout 10 python3 "$TCP_DIR/whoami.py" client \
		203.0.113.2 3 8006 2>&1)
	[ "$out" = "8006 pod 8006" ] ||
		fail "the pod's own port 8006 answered as: $out"
	log "ok: the pod's own 8006 stays the pod's: $out"
	ctl_ok "$c" set -t auto
	ctl_tcp_ok "$NS_PEER" 203.0.113.2 9001
	[ "$(lookup_inodes)" = "$ino" ] ||
		fail "the sk_lookup sockets were bound again: '$ino', then" \
			"'$(lookup_inodes)'"
	log "ok: the sk_lookup program's sockets kept"
done
ctl_long_conn_check long
