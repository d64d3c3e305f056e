#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# netshim --vhost-user killed and started again under a running QEMU
# guest, as a crashed back-end restarted by its launcher: QEMU 10 with
# reconnect-ms reconnects to the new netshim by itself and hands it rings
# the guest has been using all along, with receive buffers taken by the
# old netshim and never filled.  The guest (scenarios/restart.sh) gets its
# lease, and during a peer->guest transfer netshim is killed with SIGKILL
# and started afresh on the same socket.  Without a reboot, the guest must
# then ping the peer and move TCP both ways in every round on the new
# netshim: a receive buffer lost or a used entry written twice would stall
# the ring or break it ("is not a head"), which the guest's kernel reports
# on the console, checked here too.
# VM_QUEUES=N (default 2, 1 for passt, whose vhost-user serves one pair)
# gives the NIC N queue pairs and the guest N CPUs: the transfer the
# restart lands in runs on the last pair, the rounds after it on each pair
# in turn, and each pair's receive queue must have taken the answers to
# what went out on it (vm_check_queues).

set -u
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/peer.sh"

ROUNDS=3
if [ "$BACKEND" = passt ]; then
	QUEUES=${VM_QUEUES:-1}
else
	QUEUES=${VM_QUEUES:-2}
fi

# iperf_conns() - TCP connections established to the peer's iperf3
iperf_conns() {
	in_peer ss -Htn state established '( sport = :5201 )' | wc -l
}

topo_init
topo_peer_pod
vm_peer_iperf
topo_backend --vhost-user

q=
[ "$QUEUES" -gt 1 ] && q=$QUEUES
NETDEV=vhost-user VM_RECONNECT_MS=500 VM_PIDFILE="$WORK/qemu.pid" \
	VM_LOG="$WORK/vm.log" VM_QUIET=1 VM_TIMEOUT=300 \
	VM_QUEUES=$q VM_SMP=$QUEUES \
	"$(dirname "$0")/run-vm.sh" restart "$WORK/backend.sock" \
	"netshim.rounds=$ROUNDS" "netshim.cpus=$QUEUES" \
	>"$WORK/run-vm.out" 2>&1 &
QEMU_RUN=$!
topo_pid_add "$QEMU_RUN"

# Kill netshim once the transfer to the guest runs, and start it again
deadline=$(($(date +%s) + 150))
while [ "$(iperf_conns)" -lt 2 ]; do
	[ "$(date +%s)" -lt "$deadline" ] ||
		fail "no iperf3 transfer: $(tail -n 5 "$WORK/run-vm.out")"
	topo_alive "$QEMU_RUN" ||
		fail "QEMU ended: $(tail -n 5 "$WORK/run-vm.out")"
	sleep 0.05
done
sleep 1
kill -KILL "$BACKEND_PID"
wait "$BACKEND_PID" 2>/dev/null
mv "$WORK/backend.log" "$WORK/backend-1.log"
log "$BACKEND killed during the transfer to the guest"
topo_backend --vhost-user
# netshim's line, or passt's (BACKEND=passt runs it through the same test)
topo_wait_log "$WORK/backend.log" 'VMM connected\|accepted connection' ||
	fail "QEMU did not reconnect to the new $BACKEND"
log "QEMU reconnected to the new $BACKEND"

wait "$QEMU_RUN"
rc=$?
log="$WORK/vm.log"
grep -q 'NETSHIM-RESULT restart_done' "$log" ||
	fail "the guest did not finish (run-vm.sh $rc):" \
		"$(tail -n 5 "$WORK/run-vm.out")"
grep 'NETSHIM-RESULT' "$log" | sed 's/^/    /' >&2
for i in $(seq "$ROUNDS"); do
	for key in "ping4_$i" "tcp_down_$i" "tcp_up_$i"; do
		grep -q "^NETSHIM-RESULT $key ok" "$log" ||
			fail "$key failed after the restart:" \
				"$(grep "RESULT $key" "$log")"
	done
done
if grep -E 'is not a head|[Bb]ad (used|avail)|id [0-9]+ out of range|virtio.*(error|broken)' \
	"$log"; then
	fail "the guest's virtio driver complained after the restart"
fi
if [ "$QUEUES" -gt 1 ]; then
	e=$(vm_check_queues "$log" "$QUEUES") || fail "$e"
fi
resumed=
[ "$BACKEND" = netshim ] &&
	resumed="; queues taken up from the used ring: $(topo_counter vu_resumed)"
log "ok: ping and TCP both ways in $ROUNDS rounds on $QUEUES queue pair(s)" \
	"after $BACKEND was restarted under the running guest$resumed"
