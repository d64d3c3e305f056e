#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a hundred netshims start one after the other)
#
# An upgrade in place of netshim serving a namespace (--netns, its tap
# inside), as a launcher runs it: the same command line, --upgrade-path
# named (namespace mode has no socket to put it next to), and --upgrade.
# - Upgrades that must not happen leave it serving: a command line with
#   another MTU, refused at once; a new process that hangs up once the old
#   one stopped its loop (tests/upgrade/quit.py).
# - Then 100 upgrades in a row, under traffic through the tap (a TCP
#   stream each way, a UDP flow, pings to the peer) and local flows joined
#   in netshim (TCP from the namespace to the pod's loopback through -T
#   and from the pod's loopback into the namespace through -t, spliced
#   with their pipes; UDP to the pod's loopback through -U): at the end
#   every byte arrived as sent, every datagram was echoed and seen from
#   one port, no ping was lost; the process serving after the last upgrade
#   has as many descriptors as after the first, and no more memory.
# - The tap is the one the namespace had from the start, with its
#   address; a connection from the peer to a -t port reaches the
#   namespace after the upgrades.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/lib/upgrade.sh
. "$(dirname "$0")/../lib/upgrade.sh"

ROUNDS=${UPGRADE_ROUNDS:-100}

[ "$BACKEND" = netshim ] || skip "netshim only: pasta has no upgrade in place"
topo_init
topo_peer_pod
topo_ns_add "$NS_GUEST"
up_backend --netns "/run/netns/$NS_GUEST" --config-net \
	--upgrade-path "$WORK/up.sock" \
	-P "$WORK/backend.pid" -D 203.0.113.1 -D 2001:db8:1::1 \
	-S netshim.test -t 8080 -T 9090 -U 9091
ns_wait_addr "$NS_GUEST"
tap=$(ip -n "$NS_GUEST" -o link show | awk -F': ' '$2 != "lo" { print $2 }')
tapid=$(ip -n "$NS_GUEST" -o link show "$tap" | cut -d: -f1)
up_traffic_start "$NS_GUEST" 203.0.113.1
up_local_start "$NS_GUEST" 9090 8080 9091

up_refused "another MTU" \
	"upgrade refused: the running netshim gives the guest MTU" + -m 1400
out=$(timeout 20 python3 "$REPO/tests/upgrade/quit.py" "$WORK/up.sock" 300 \
	2>&1) || fail "quit.py: $out"
topo_alive "$BACKEND_PID" ||
	fail "the old netshim went with a new one that hung up ($out)"
log "ok: a new process that $out: process $BACKEND_PID serves on"

up_rounds "$ROUNDS"
up_traffic_stop
up_local_stop
log "longest pause of an upgrade, as the old netshims measured it:" \
	"$(up_pause_max) us"

[ "$(ip -n "$NS_GUEST" -o link show "$tap" | cut -d: -f1)" = "$tapid" ] ||
	fail "the namespace's tap is not the one it had: $(ip -n "$NS_GUEST" -o link)"
ip -n "$NS_GUEST" -o addr show "$tap" | grep -q 'inet 203\.0\.113\.2/24 ' ||
	fail "the tap lost its address: $(ip -n "$NS_GUEST" -o addr)"
tcp_upload "$NS_PEER" "$NS_GUEST" 4 203.0.113.2 8080 5 "$(tcp_size 4M)" 30
log "ok: the namespace's tap ($tap, index $tapid) served on"
