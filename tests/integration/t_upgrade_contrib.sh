#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/upgrade.sh, as a node's administrator runs it once a netshim
# binary was replaced: every netshim running the old file (a copy of its
# own here, so that no other netshim of the machine is touched) is
# upgraded in place from its own command line, read from /proc: the one
# started in the foreground (-f, as a pod's script starts it) goes to the
# background, and one upgraded already is upgraded again.  Under traffic
# from the guest, checked to the byte, as in t_upgrade_stream.sh.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/lib/upgrade.sh
. "$(dirname "$0")/../lib/upgrade.sh"

[ "$BACKEND" = netshim ] || skip "netshim only: passt has no upgrade in place"
topo_init
topo_peer_pod
mkdir "$WORK/bin" && cp "$NETSHIM" "$WORK/bin/netshim" ||
	fail "cannot copy $NETSHIM"
chmod 1777 "$WORK"
ip netns exec "$NS_POD" "$WORK/bin/netshim" -f -e -s "$WORK/backend.sock" \
	-P "$WORK/backend.pid" -D 203.0.113.1 -S netshim.test -t 8080 \
	>>"$WORK/backend.log" 2>&1 &
BACKEND_PID=$!
topo_pid_add "$BACKEND_PID"
topo_wait_file "$WORK/backend.sock" || fail "netshim did not start"
topo_relay_guest 1500
guest_dhcp4
up_traffic_start "$NS_GUEST" 203.0.113.1

for i in 1 2; do
	old=$BACKEND_PID
	# A new binary in the old one's place, as a package update does
	cp "$NETSHIM" "$WORK/bin/netshim.new" &&
		mv "$WORK/bin/netshim.new" "$WORK/bin/netshim" ||
		fail "cannot replace the binary"
	out=$(timeout 60 "$REPO/contrib/upgrade.sh" "$WORK/bin/netshim" 2>&1) ||
		fail "contrib/upgrade.sh: $out"
	[ "$out" = "netshim $old: upgraded" ] ||
		fail "contrib/upgrade.sh said: $out"
	BACKEND_PID=$(cat "$WORK/backend.pid")
	topo_pid_add "$BACKEND_PID"
	[ "$BACKEND_PID" != "$old" ] && topo_alive "$BACKEND_PID" ||
		fail "no new netshim after contrib/upgrade.sh ($BACKEND_PID)"
	up_wait_gone "$old" || fail "the old netshim $old still runs"
	log "ok: $out, now process $BACKEND_PID"
done
up_traffic_stop
