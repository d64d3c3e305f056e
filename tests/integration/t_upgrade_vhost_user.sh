#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a hundred netshims start one after the other)
#
# An upgrade in place of netshim --vhost-user under a running front-end
# (tests/vu_relay, a virtio driver and front-end of the tests' own, the
# guest a namespace's kernel, at native speed), as a launcher runs it: the
# same command line and --upgrade.  The front-end negotiated every
# offload and the event index, and gave its memory region by region
# (ADD_MEM_REG), as QEMU 10 does with memory slots.
# - Upgrades that must not happen leave netshim serving: a command line
#   for a -netdev stream VMM on the vhost-user socket, refused at once; a
#   new process that hangs up half-way through the state
#   (tests/upgrade/quit.py).
# - Then 100 upgrades in a row, under a TCP stream each way, a UDP flow
#   and pings from the guest: at the end every byte arrived as sent, every
#   datagram was echoed and seen from one port, no ping was lost; the
#   process serving after the last upgrade has as many descriptors as
#   after the first (the eventfds and memory files the front-end gave
#   once), and no more memory.
# - The front-end noticed nothing: it connected once, and netshim never
#   saw a memory region again, a queue restarted, or a front-end dropped.
# - A netshim given its connection (--fd) is upgraded with --upgrade-path
#   instead, three times under traffic, and the last one ends with the
#   connection as the first would have.
# The same with a QEMU 10 guest: t_upgrade_vm_vhost_user.sh.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/lib/upgrade.sh
. "$(dirname "$0")/../lib/upgrade.sh"

ROUNDS=${UPGRADE_ROUNDS:-100}

[ "$BACKEND" = netshim ] || skip "netshim only: passt has no upgrade in place"
[ -x "$REPO/tests/vu_relay" ] || make -s -C "$REPO" tests/vu_relay ||
	fail "tests/vu_relay not built"
topo_init
topo_peer_pod
up_backend -s "$WORK/backend.sock" -P "$WORK/backend.pid" \
	-D 203.0.113.1 -D 2001:db8:1::1 -S netshim.test --vhost-user \
	--virtio-features all -t 8080
RELAY_ARGS="--mem-slots --features all,event_idx" topo_vu_relay_guest 1500
guest_dhcp
added=$(topo_counter vu_mem_added)
[ "${added:-0}" -ge 3 ] ||
	fail "the front-end gave no memory region by region ($added)"
up_traffic_start "$NS_GUEST" 203.0.113.1

up_refused "a -netdev stream command line on a vhost-user socket" \
	"upgrade refused: the running netshim serves a vhost-user front-end, this command line a -netdev stream VMM" \
	= -s "$WORK/backend.sock" -P "$WORK/backend.pid" -D 203.0.113.1 \
	-D 2001:db8:1::1 -S netshim.test -t 8080
out=$(timeout 20 python3 "$REPO/tests/upgrade/quit.py" \
	"$WORK/backend.sock.upgrade" 500 2>&1) || fail "quit.py: $out"
topo_alive "$BACKEND_PID" ||
	fail "the old netshim went with a new one that hung up ($out)"
log "ok: a new process that $out: process $BACKEND_PID serves on"

up_rounds "$ROUNDS"
up_traffic_stop
log "longest pause of an upgrade, as the old netshims measured it:" \
	"$(up_pause_max) us"

tcp_upload "$NS_PEER" "$NS_GUEST" 4 203.0.113.2 8080 3 "$(tcp_size 4M)" 30
for c in vmm_connects:1 vu_mem_added:$added vu_resumed:0 vu_dropped:0; do
	v=$(topo_counter "${c%%:*}")
	[ "$v" = "${c#*:}" ] ||
		fail "${c%%:*} is $v, ${c#*:} expected: the front-end noticed"
done
kill "$RELAY_PID"
wait "$RELAY_PID" 2>/dev/null
log "ok: the front-end connected once, gave its memory once, and was" \
	"served through $ROUNDS upgrades: $(grep 'features' "$WORK/relay.log")"

# A netshim given its front-end's connection (--fd, as QEMU's -netdev
# passt starts it) has no socket: its successor is started with the same
# command line, --upgrade-path for --fd, and ends with that connection as
# the first one would have (-1 carries over)
topo_cleanup
topo_init
topo_peer_pod
topo_ns_add "$NS_GUEST"
chmod 1777 "$WORK"
UP_ARGS=(--vhost-user --upgrade-path "$WORK/up.sock" -P "$WORK/backend.pid"
	-D 203.0.113.1 -S netshim.test)
ip netns exec "$NS_POD" python3 - "$NETSHIM" "$WORK" "$NS_GUEST" "$REPO" \
	"${UP_ARGS[@]}" <<'PY' >"$WORK/launcher.out" 2>&1
import os, socket, subprocess, sys
netshim, work, guest, repo, args = sys.argv[1], sys.argv[2], sys.argv[3], \
	sys.argv[4], sys.argv[5:]
a, b = socket.socketpair()
subprocess.run([netshim, "--fd", str(a.fileno())] + args +
               ["-l", work + "/backend.log"], pass_fds=[a.fileno()],
               check=True)
r = subprocess.Popen(["ip", "netns", "exec", guest, repo + "/tests/vu_relay",
                      "tap0", "fd:%d" % b.fileno()], pass_fds=[b.fileno()],
                     stdout=open(work + "/relay.log", "w"),
                     stderr=subprocess.STDOUT, start_new_session=True)
open(work + "/relay.pid", "w").write("%d\n" % r.pid)
PY
[ -s "$WORK/relay.pid" ] || fail "--fd: no front-end: $(cat "$WORK/launcher.out")"
RELAY_PID=$(cat "$WORK/relay.pid")
BACKEND_PID=$(cat "$WORK/backend.pid")
topo_pid_add "$RELAY_PID"
topo_pid_add "$BACKEND_PID"
topo_relay_wait "$WORK/relay.log"
guest_dhcp4
up_traffic_start "$NS_GUEST" 203.0.113.1
for i in 1 2 3; do
	sleep 0.3
	up_upgrade "$i of 3, --fd"
done
up_traffic_stop
kill "$RELAY_PID"
up_wait_gone "$BACKEND_PID" ||
	fail "--fd: netshim did not exit with its front-end's connection"
log "ok: --fd: 3 upgrades under traffic, and the last netshim ended with" \
	"the connection, as the first would have"
