#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
#
# vu_offload.sh - netshim --vhost-user through tests/vu_relay, checksum and
# TSO offloads off and on, side by side in one run: iperf3 guest->peer
# (up) and peer->guest (down), netshim's CPU seconds per GiB moved.
#
# Usage: tests/bench/vu_offload.sh [MTU]    (as root; MTU default 1500)
#        tests/bench/vu_offload.sh --vm       the VM guest of tests/vm
#                   instead, QEMU 10 as the front-end, offloads switched
#                   with virtio-net-pci's own properties
#   ROUNDS=N   alternations of off and on (default 2)
#   SECS=N     seconds per iperf3 run (default 5)
#   NETSHIM=   binary (default build/netshim)
#   BACKEND=passt PASST=/path/to/passt  passt's vhost-user mode instead,
#              for reference: it offers no offloads, so only "off" runs
#   UDP=1      also UDP peer->guest (iperf3 -u -b 0 -l 1400 -R), shown as
#              direction "udp": the rate and CPU are of what the guest got
# Prints one line per run: mode direction Gbit/s CPU-s/GiB.

set -u
DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$DIR/../.." && pwd)
export BACKEND=${BACKEND:-netshim} NETSHIM=${NETSHIM:-$REPO/build/netshim}
# shellcheck source=../lib/topo.sh
. "$REPO/tests/lib/topo.sh"
# shellcheck source=lib.sh
. "$DIR/lib.sh"

VM_MODE=
if [ "${1:-}" = --vm ]; then
	VM_MODE=1
	shift
	# shellcheck source=../vm/peer.sh
	. "$REPO/tests/vm/peer.sh"
fi
MTU=${1:-1500}
NIC_OFF=csum=off,guest_csum=off,host_tso4=off,host_tso6=off,guest_tso4=off,guest_tso6=off
ROUNDS=${ROUNDS:-2}
SECS=${SECS:-5}
LABEL_WIDTH=4

# vm_round() - boot the VM guest once, iperf3 up and down, print them
# $1: off or on
vm_round() {
	local log opts='' dir t0 t1 hz

	[ "$1" = off ] && opts=$NIC_OFF
	topo_init
	topo_peer_pod
	topo_dns
	vm_peer_iperf
	topo_backend --vhost-user --virtio-features all
	log=$WORK/vm.log
	hz=$(getconf CLK_TCK)
	t0=$(ticks "$BACKEND_PID")
	NETDEV=vhost-user VM_NIC_OPTS=$opts VM_QUIET=1 VM_LOG=$log \
		VM_TIMEOUT=$((4 * SECS + 150)) "$REPO/tests/vm/run-vm.sh" \
		bench "$WORK/backend.sock" "netshim.iperf_time=$SECS" ||
		echo "$1: the guest did not finish"
	t1=$(ticks "$BACKEND_PID")
	for dir in up down; do
		sed -n "/NETSHIM-JSON-BEGIN $dir/,/NETSHIM-JSON-END $dir/p" \
			"$log" | sed '1d;$d' | python3 -c 'import json,sys
r = json.load(sys.stdin)["end"]["sum_received"]
print("%-4s %-5s %6.3f Gbit/s" % (sys.argv[1], sys.argv[2],
      r["bytes"] * 8 / r["seconds"] / 1e9))' "$1" "$dir" ||
			echo "$1 $dir: no iperf3 report"
	done
	echo "$1: netshim CPU $(( (t1 - t0) * 100 / hz ))/100 s for the run"
	topo_cleanup
	trap - EXIT
}

for r in $(seq "$ROUNDS"); do
	if [ -n "$VM_MODE" ]; then
		echo "round $r, VM guest (QEMU vhost-user), MTU 1500"
		vm_round off
		vm_round on
		continue
	fi
	for mode in off on; do
		[ "$BACKEND" = passt ] && [ "$mode" = on ] && continue
		topo_init
		topo_peer_pod
		if [ "$mode" = on ]; then
			topo_backend --vhost-user -m "$MTU" \
				--virtio-features all
		else
			topo_backend --vhost-user -m "$MTU"
		fi
		if [ "$mode" = on ]; then
			RELAY_ARGS=--offload topo_vu_relay_guest "$MTU"
		else
			topo_vu_relay_guest "$MTU"
		fi
		guest_dhcp4 >/dev/null
		in_peer timeout $((4 * SECS + 60)) iperf3 -s -B 203.0.113.1 \
			>/dev/null 2>&1 &
		topo_pid_add $!
		sleep 0.5
		echo "round $r, MTU $MTU, offloads $mode"
		iperf_run "$mode" up
		iperf_run "$mode" down
		[ -n "${UDP:-}" ] && iperf_run "$mode" udp
		topo_cleanup
		trap - EXIT
	done
done
