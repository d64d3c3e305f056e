#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A VM guest that reboots on one netshim --vhost-user, and a QEMU killed
# and started afresh on the same netshim.  QEMU A boots the guest, which
# reboots (QEMU keeps its vhost-user connection, with reconnect-ms as
# launchers set it, and resets the device); during the second boot's
# iperf3 transfer QEMU A is killed with SIGKILL, as a crashed or evicted
# VMM goes, and QEMU B starts with the same command line on the same
# socket, netshim still running.  Before that, in the first boot, netshim
# drops QEMU A's connection (another front-end replacing it) and QEMU
# reconnects by itself.  Every complete boot must get its DHCPv4
# lease, ping the peer and move TCP both ways with iperf3 (the peer's one
# iperf3 server must be free again after the killed transfer); netshim's
# descriptors other than sockets and its resident memory must stay where
# the first boot left them, and all its descriptors must be back once QEMU
# goes.  Three boots, as many as before the kill replaced a reboot (each
# is 10 to 20 s under TCG here).  QEMU 10 gives netshim its memory by
# ADD_MEM_REG (CONFIGURE_MEM_SLOTS): counted, and checked here too.
# VM_SERVER=1 runs it in client mode: each QEMU listens (-chardev
# socket,server=on) and netshim --connect connects, started before QEMU A
# and waiting for its socket; netshim must connect to QEMU B by itself
# once A is gone.  Instead of being dropped for another front-end, QEMU A
# then sees netshim killed in boot 1 and a new one connect, the back-end
# restart QEMU's server mode is for (t_vhost_user_client_reboot.sh).
# There NETDEV=stream runs the same on -netdev stream,server=on
# (t_vm_client_reboot.sh).

set -u
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/peer.sh"

RSS_SLACK_KB=4096
# iperf3 seconds per direction in QEMU A's boots: the second boot's
# transfer must last long enough for the kill to land in it
A_IPERF_TIME=3

# rounds() - reboot rounds a guest has finished so far
# $1: its console log: LOG.raw while QEMU runs, LOG once run-vm.sh ended
rounds() {
	local f=$1.raw n

	[ -e "$f" ] || f=$1
	n=$(grep -c 'NETSHIM-RESULT reboot_round' "$f" 2>/dev/null)
	echo "${n:-0}"
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

# rss_kb() - netshim's own resident set, kB: anonymous and file pages,
# not the guest's memory (a memfd: RssShmem) it has touched through its
# mapping.  A guest that reboots on one connection keeps that mapping (QEMU
# adds no region again), and writes new pages of it each boot.
rss_kb() {
	awk '/^Rss(Anon|File):/ { kb += $2 } END { print kb }' \
		"/proc/$BACKEND_PID/status"
}

# shmem_kb() - guest memory netshim has resident through its mapping, kB
shmem_kb() {
	awk '/^RssShmem:/ { print $2 }' "/proc/$BACKEND_PID/status"
}

# iperf_conns() - TCP connections established to the peer's iperf3
iperf_conns() {
	in_peer ss -Htn state established '( sport = :5201 )' | wc -l
}

# qemu_start() - boot the guest on netshim's socket, in the background
# $1: name (a, b): console log $WORK/vm-NAME.log, pid file $WORK/qemu-NAME.pid
# $2...: more kernel arguments
# Sets QEMU_RUN to the pid of run-vm.sh
qemu_start() {
	local name=$1

	shift
	NETDEV=$NETDEV VM_REBOOT=1 VM_RECONNECT_MS=500 \
		VM_PIDFILE="$WORK/qemu-$name.pid" VM_LOG="$WORK/vm-$name.log" \
		VM_QUIET=1 VM_TIMEOUT=240 \
		"$(dirname "$0")/run-vm.sh" reboot "$WORK/backend.sock" "$@" \
		>"$WORK/run-vm-$name.out" 2>&1 &
	QEMU_RUN=$!
	topo_pid_add "$QEMU_RUN"
}

# wait_rounds() - wait until a guest has finished some rounds
# $1: console log, $2: rounds, $3: seconds at most
# Return: 1 if it did not in time
wait_rounds() {
	local deadline=$(($(date +%s) + $3))

	while [ "$(rounds "$1")" -lt "$2" ]; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		topo_alive "$BACKEND_PID" || fail "netshim exited"
		sleep 0.5
	done
}

# check_flat() - fail if netshim's non-socket descriptors grew
# $1: what just happened, for the log
check_flat() {
	log "$1: netshim has $(topo_fd_count) fds ($(nonsock_count) not" \
		"sockets), RSS $(rss_kb) kB and $(shmem_kb) kB of guest memory"
	[ "$(nonsock_count)" -le "$other0" ] ||
		fail "descriptors other than sockets grew from $other0 to" \
			"$(nonsock_count) by: $1"
}

# check_rounds() - fail unless each check passed in a guest's boots
# $1: console log (converted), $2: complete boots it had
check_rounds() {
	local key ok

	for key in dhcp4 ping4 tcp_up tcp_down; do
		ok=$(grep -c "^NETSHIM-RESULT $key ok" "$1")
		[ "$ok" -ge "$2" ] ||
			fail "$key ok in $ok of $2 boots of $1:" \
				"$(grep "RESULT $key" "$1")"
	done
	log "ok: dhcp4 ping4 tcp_up tcp_down in $2 boot(s) of $(basename "$1")"
}

# backend_start() - netshim --vhost-user (or on QEMU's stream), connecting
# to QEMU's socket with VM_SERVER
backend_start() {
	local a=()

	[ "$NETDEV" = vhost-user ] && a+=(--vhost-user)
	[ -z "${VM_SERVER:-}" ] || a+=(--connect)
	topo_backend "${a[@]}"
}

# backend_restart() - client mode, boot 1: kill netshim under QEMU A once
# the guest has its lease; a new netshim connects to QEMU A's socket, and
# the rest of the boot (ping, iperf3 both ways) must work on it
backend_restart() {
	kill -KILL "$BACKEND_PID"
	wait "$BACKEND_PID" 2>/dev/null
	mv "$WORK/backend.log" "$WORK/backend-1.log"
	backend_start
	topo_wait_log "$WORK/backend.log" 'VMM connected' 100 ||
		fail "the new netshim did not connect to QEMU A"
	log "netshim killed after DHCP in boot 1; a new one connected to QEMU A"
}

# backend_dropped() - listening mode, boot 1: netshim drops QEMU A's
# connection (another front-end connects and replaces it), QEMU's
# reconnect-ms brings it back by itself, and the rest of this boot (ping,
# iperf3 both ways) must work without a reboot
backend_dropped() {
	local _

	python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
time.sleep(0.2)
s.close()
' "$WORK/backend.sock" || fail "cannot connect to netshim's socket"
	for _ in $(seq 100); do
		[ "$(grep -c 'VMM connected' "$WORK/backend.log")" -ge 3 ] &&
			break
		sleep 0.1
	done
	grep -q 'VMM connection closed: replaced by a new front-end' \
		"$WORK/backend.log" ||
		fail "netshim did not drop QEMU A's connection"
	[ "$(grep -c 'VMM connected' "$WORK/backend.log")" -ge 3 ] ||
		fail "QEMU A did not reconnect within 10 s of being dropped"
	log "QEMU A dropped by netshim after DHCP in boot 1, and reconnected"
}

NETDEV=${NETDEV:-vhost-user}
# QEMU's stream client does not come back to a listening netshim by itself
[ "$NETDEV" = vhost-user ] || [ -n "${VM_SERVER:-}" ] ||
	fail "NETDEV=$NETDEV needs VM_SERVER=1"

topo_init
topo_peer_pod
vm_peer_iperf
backend_start
fds_idle=$(topo_fd_count)

# QEMU A, boot 1 and the reboot
qemu_start a "netshim.iperf_time=$A_IPERF_TIME"
QEMU_A=$QEMU_RUN

# Boot 1, once the guest has its lease: QEMU loses its back-end and gets
# one back by itself
deadline=$(($(date +%s) + 120))
until grep -q 'NETSHIM-RESULT dhcp4 ok' "$WORK/vm-a.log.raw" 2>/dev/null; do
	[ "$(date +%s)" -lt "$deadline" ] || fail "no DHCPv4 lease in boot 1"
	topo_alive "$QEMU_A" || fail "QEMU A ended: $(tail -n 3 "$WORK/run-vm-a.out")"
	sleep 0.05
done
if [ -n "${VM_SERVER:-}" ]; then
	backend_restart
else
	backend_dropped
fi

wait_rounds "$WORK/vm-a.log" 1 150 ||
	fail "QEMU A: first boot unfinished: $(tail -n 3 "$WORK/run-vm-a.out")"
other0=$(nonsock_count)
rss0=$(rss_kb)
check_flat "boot 1 (QEMU A) done"

# Boot 2: kill QEMU A once iperf3's data connection is open
deadline=$(($(date +%s) + 120))
while [ "$(iperf_conns)" -lt 2 ]; do
	[ "$(date +%s)" -lt "$deadline" ] ||
		fail "no iperf3 transfer in the second boot"
	[ "$(rounds "$WORK/vm-a.log")" -lt 2 ] ||
		fail "the second boot finished before a transfer was seen"
	sleep 0.05
done
sleep 0.5
kill -KILL "$(cat "$WORK/qemu-a.pid")"
wait "$QEMU_A" 2>/dev/null
[ "$(rounds "$WORK/vm-a.log")" = 1 ] ||
	fail "QEMU A was killed after its second boot's round, not during it"
log "QEMU A killed during the second boot's iperf3 transfer"
topo_wait_log "$WORK/backend.log" 'VMM connection closed' ||
	fail "netshim did not see QEMU A go"
topo_alive "$BACKEND_PID" || fail "netshim exited with QEMU A"
n_conn=$(grep -c 'VMM connected' "$WORK/backend.log")

# QEMU B, the same command line on the same socket: boot 3
qemu_start b
QEMU_B=$QEMU_RUN
if [ -n "${VM_SERVER:-}" ]; then
	# QEMU B waits for a back-end before its guest runs: netshim's
	for _ in $(seq 600); do
		[ "$(grep -c 'VMM connected' "$WORK/backend.log")" -gt \
			"$n_conn" ] && break
		topo_alive "$QEMU_B" ||
			fail "QEMU B ended: $(tail -n 3 "$WORK/run-vm-b.out")"
		sleep 0.1
	done
	[ "$(grep -c 'VMM connected' "$WORK/backend.log")" -gt "$n_conn" ] ||
		fail "netshim did not connect to QEMU B within 60 s"
	log "netshim connected to QEMU B by itself"
fi
wait_rounds "$WORK/vm-b.log" 1 150 ||
	fail "QEMU B: boot unfinished: $(tail -n 3 "$WORK/run-vm-b.out")"
check_flat "boot 3 (QEMU B, after the kill) done"
rss=$(rss_kb)
mem_added=$(topo_counter vu_mem_added)
# QEMU B's guest is rebooting: stop it here
[ -s "$WORK/qemu-b.pid" ] && kill "$(cat "$WORK/qemu-b.pid")" 2>/dev/null
wait "$QEMU_B" 2>/dev/null
# The front-end gone, netshim drops its guest's flows: every descriptor
# the boots took must be back
for _ in $(seq 100); do
	[ "$(topo_fd_count)" -le "$fds_idle" ] && break
	sleep 0.1
done
fds=$(topo_fd_count)

# Boot 1 alone: boot 2 printed results of its own before the kill
sed '/NETSHIM-RESULT reboot_round/q' "$WORK/vm-a.log" >"$WORK/vm-a-boot1.log"
check_rounds "$WORK/vm-a-boot1.log" 1
check_rounds "$WORK/vm-b.log" 1
[ "$fds" -le "$fds_idle" ] ||
	fail "netshim had $fds_idle descriptors before QEMU, $fds after it"
[ "$rss" -le $((rss0 + RSS_SLACK_KB)) ] ||
	fail "netshim's RSS grew from $rss0 kB to $rss kB"
# Not anchored: after a reboot, firmware output without a newline may
# stand in front of the guest's first line
[ "$(grep -o 'NETSHIM-BOOT' "$WORK/vm-a.log" | wc -l)" -ge 2 ] ||
	fail "QEMU A's console shows fewer than 2 boots"
if [ "$NETDEV" = vhost-user ]; then
	[ "${mem_added:-0}" -gt 0 ] ||
		fail "vu_mem_added is ${mem_added:-missing}: QEMU used no" \
			"memory slots"
	mem_added="; $mem_added regions by ADD_MEM_REG"
else
	mem_added=
fi
if [ -n "${VM_SERVER:-}" ]; then
	log "ok: 3 boots on QEMU's $NETDEV socket, netshim --connect" \
		"restarted under the first, a reboot, and a QEMU killed" \
		"mid-transfer and restarted, netshim connecting to it by" \
		"itself; RSS $rss0 -> $rss kB, $fds descriptors after QEMU as" \
		"before it$mem_added"
else
	log "ok: 3 boots on one netshim --vhost-user, a reboot and a QEMU" \
		"killed mid-transfer and restarted; RSS $rss0 -> $rss kB," \
		"$fds descriptors after QEMU as before it$mem_added"
fi
topo_cleanup
