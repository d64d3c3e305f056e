#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A VM guest that reboots on one netshim --vhost-user: QEMU 10 keeps its
# vhost-user connection (with reconnect-ms, as launchers set it) and
# resets the device at each reboot; every boot must get its DHCPv4 lease,
# ping the peer and move TCP both ways, without restarting netshim, and
# netshim's open descriptors and resident memory must be where the first
# boot left them. VM_BOOTS boots (default 3: two reboots; each is 10 to 20
# s under TCG here).

set -u
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/peer.sh"

BOOTS=${VM_BOOTS:-3}
RSS_SLACK_KB=4096

# rounds() - reboot rounds the guest has finished so far
rounds() {
	local n

	n=$(grep -c 'NETSHIM-RESULT reboot_round' "$LOG.raw" 2>/dev/null)
	echo "${n:-0}"
}

# fd_count() - netshim's open descriptors
fd_count() {
	find "/proc/$BACKEND_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

# nonsock_count() - netshim's descriptors that are not sockets: eventfds
# of the rings, memory table files, its timer, epoll, the log...
#
# Sockets come and go with the guest's flows (a flow outlives a reboot
# until its timeout); these must not grow with each device reset.
nonsock_count() {
	local f n=0

	for f in /proc/"$BACKEND_PID"/fd/*; do
		case "$(readlink "$f")" in
		socket:*) ;;
		*) n=$((n + 1)) ;;
		esac
	done
	echo "$n"
}

# rss_kb() - netshim's resident set, kB
rss_kb() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$BACKEND_PID/status"
}

topo_init
topo_peer_pod
vm_peer_iperf
topo_backend --vhost-user
fds_idle=$(fd_count)
LOG=$WORK/vm-reboot.log
NETDEV=vhost-user VM_REBOOT=1 VM_RECONNECT_MS=500 VM_PIDFILE=$WORK/qemu.pid \
	VM_LOG=$LOG VM_QUIET=1 VM_TIMEOUT=$((BOOTS * 120)) \
	"$(dirname "$0")/run-vm.sh" reboot "$WORK/backend.sock" \
	>"$WORK/run-vm.out" 2>&1 &
VM_PID=$!
topo_pid_add "$VM_PID"

done=0
deadline=$(($(date +%s) + BOOTS * 120))
while [ "$done" -lt "$BOOTS" ] && [ "$(date +%s)" -lt "$deadline" ]; do
	topo_alive "$VM_PID" || break
	n=$(rounds)
	if [ "$n" -gt "$done" ]; then
		done=$n
		if [ "$done" = 1 ]; then
			other0=$(nonsock_count)
			rss0=$(rss_kb)
		fi
		log "boot $done done: netshim has $(fd_count) fds" \
			"($(nonsock_count) not sockets), RSS $(rss_kb) kB"
		[ "$(nonsock_count)" -le "$other0" ] ||
			fail "descriptors other than sockets grew from" \
				"$other0 to $(nonsock_count) by boot $done"
	fi
	sleep 0.5
done
topo_alive "$BACKEND_PID" || fail "netshim exited"
rss=$(rss_kb)
# The last round's reboot is under way: stop QEMU here
[ -s "$WORK/qemu.pid" ] && kill "$(cat "$WORK/qemu.pid")" 2>/dev/null
wait "$VM_PID" 2>/dev/null
# The front-end gone, netshim drops its guest's flows: every descriptor
# the boots took must be back
for _ in $(seq 100); do
	[ "$(fd_count)" -le "$fds_idle" ] && break
	sleep 0.1
done
fds=$(fd_count)
[ "$done" -ge "$BOOTS" ] ||
	fail "$done of $BOOTS boots finished: $(tail -n 3 "$WORK/run-vm.out")"
for key in dhcp4 ping4 tcp_up tcp_down; do
	ok=$(grep -c "^NETSHIM-RESULT $key ok" "$LOG")
	[ "$ok" -ge "$BOOTS" ] ||
		fail "$key ok in $ok of $BOOTS boots: $(grep "RESULT $key" "$LOG")"
	log "ok: $key in each of $BOOTS boots"
done
[ "$fds" -le "$fds_idle" ] ||
	fail "netshim had $fds_idle descriptors before QEMU, $fds after it"
[ "$rss" -le $((rss0 + RSS_SLACK_KB)) ] ||
	fail "netshim's RSS grew from $rss0 kB to $rss kB"
# Not anchored: after a reboot, firmware output without a newline may
# stand in front of the guest's first line
[ "$(grep -o 'NETSHIM-BOOT' "$LOG" | wc -l)" -ge "$BOOTS" ] ||
	fail "fewer than $BOOTS boots in the console log"
log "ok: $BOOTS boots on one netshim --vhost-user; RSS $rss0 -> $rss kB," \
	"$fds descriptors after QEMU as before it"
topo_cleanup
