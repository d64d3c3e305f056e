#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
#
# vu_testpmd.sh - the cost of a frame through --vhost-user, netshim beside
# passt in one run, with DPDK's testpmd as the front-end instead of a VM:
# net_virtio_user (on the back-end's socket) joined to net_tap, whose tap
# is the guest's interface in the guest namespace, which takes its lease
# from the back-end.  MTU 1500 and no offloads: testpmd asks for none on
# virtio_user, and net_tap takes frames of at most 1522 bytes.  io
# forwarding: csum forwarding also rewrites both MAC addresses, which
# the guest's kernel then drops as not its own.
#
# Like a guest's driver, the front-end holds a frame back when the
# back-end's ring is full instead of dropping it: io forwarding with
# retries every 10 us, for up to 10 s.  Plain io forwarding dropped such
# frames (235 in one 4 s run here), and the guest's retransmissions made
# guest->peer crawl at 0.02 to 0.08 Gbit/s.  Retries for 10 ms were not
# enough once the guest's kernel, iperf3 and the back-end shared a core
# that ran more slowly (2026-11-27): testpmd still dropped 32 frames in
# a 3 s run, and netshim moved 0.02 to 0.23 Gbit/s guest->peer with
# 1250 to 2150 retransmissions (its counters: segments past a gap, none
# refused by the socket).  A guest's queue does not drop either: its
# driver stops the queue and the qdisc holds the frames, so the tap,
# whose own queue drops when full, gets a queue of 10000 frames.
#
# Rings of 256 (QSIZE), QEMU's and Cloud Hypervisor's default: with 1024,
# passt 2026 aborts peer->guest (tcp_vu_sock_recv: "Assertion `cnt <
# ARRAY_SIZE(iov_msg) - j' failed", then SIGSYS, abort() being outside its
# seccomp filter).  passt still crawls guest->peer in some runs here
# (0.00 to 0.01 Gbit/s, hundreds of guest retransmissions, testpmd
# dropping nothing): its short-write behaviour, tests/bench/README.md;
# passt 2026 did in 2 of 4 runs on 2026-11-27, and ran at netshim's rate
# in the other two.  In make bench (not quick mode), into
# DIR/testpmd.txt.
#
# Two guest->peer flows at once (IPERF_ARGS="-P 2", one or two queue
# pairs) crawl now and then here, for netshim and for passt 2026 alike
# (2026-11-26: 0.13 and 0.01 Gbit/s in one round, thousands of guest
# retransmissions, none counted dropped by netshim or testpmd, against
# 1.2-1.3 in the next): testpmd's polling core leaves one core to the
# guest's kernel, the back-end and iperf3, and both back-ends leave a
# segment the socket does not take to the guest's retransmission. One
# flow over two pairs does not crawl.
#
#   tests/bench/vu_testpmd.sh        (as root; dpdk-testpmd, in dpdk-dev)
#   ROUNDS=N     alternations of the back-ends (default 2)
#   SECS=N       seconds per iperf3 run (default 4)
#   BACKENDS     default "netshim passt"; LABEL=PATH is one more netshim
#                build (to put a previous build beside the new one:
#                "new=build/netshim old=/tmp/old/netshim"), or one more
#                passt where the file is called passt
#                ("passt2026=/tmp/passt2026/passt")
#   QSIZE=N      virtio_user's ring size (default 256)
#   QUEUES=N     queue pairs (default 1): virtio_user's queues=N, and as
#                many on net_tap, whose kernel tap then spreads the
#                guest's flows over them; with N > 1, iperf3 -P N
#                (IPERF_ARGS= to change it)
#   NETSHIM=     binary (default build/netshim); PASST= passt with
#                --vhost-user (default build/passt-vu/passt, which
#                make bench builds: tests/bench/passt-vu.sh)
#   DIRS         directions run (default "up down": guest->peer, then
#                peer->guest); RR_SIZES="" and CONNS=0 leave out the
#                request/response and connection rows, for many quick
#                rounds of one direction
#   PERF=DIR     record each netshim run with perf record -g into DIR
#   SYSCALLS=DIR count each back-end's system calls per run into DIR
#   COUNTERS=DIR netshim's counters and testpmd's forwarding statistics
#                after each round, into DIR
#
# Prints one line per run: back-end, direction, Gbit/s, the back-end's CPU
# seconds per GiB moved, the sender's TCP retransmissions; then one per
# request/response size (RR_SIZES, default "1 1024"; tests/bench/rr.c,
# the guest asking the peer): p50 and p99 latency, transactions/s; and the
# rate of short connections from the guest (CONNS, tests/bench/connrate.py).

set -u
DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$DIR/../.." && pwd)
export NETSHIM=${NETSHIM:-$REPO/build/netshim}
DEFAULT_NETSHIM=$NETSHIM
export PASST=${PASST:-$REPO/build/passt-vu/passt}
DEFAULT_PASST=$PASST
# shellcheck source=../lib/topo.sh
. "$REPO/tests/lib/topo.sh"
# shellcheck source=lib.sh
. "$DIR/lib.sh"

ROUNDS=${ROUNDS:-2}
SECS=${SECS:-4}
BACKENDS=${BACKENDS:-netshim passt}
QUEUES=${QUEUES:-1}
QSIZE=${QSIZE:-256}
PERF=${PERF:-}
LABEL_WIDTH=8
[ "$QUEUES" -gt 1 ] && IPERF_ARGS=${IPERF_ARGS--P $QUEUES}

command -v dpdk-testpmd >/dev/null ||
	skip "dpdk-testpmd is missing (Debian's dpdk-dev)"
if [[ " $BACKENDS " == *" passt "* ]] && [ ! -x "$PASST" ]; then
	echo "vu_testpmd: no passt with --vhost-user at $PASST: netshim only"
	BACKENDS=netshim
fi

# run() - one iperf3 run (iperf_run), netshim's recorded by perf with PERF
# $1: back-end, $2: up or down
run() {
	local perf=

	[ -n "$PERF" ] && [ "$BACKEND" != passt ] && perf=$PERF/$1-$2-$r.data
	iperf_run "$1" "$2" "$perf"
}

# testpmd_start() - testpmd in the guest namespace, on the back-end's
# socket, its tap "tap0" there, driven through its input, on which it runs
# until that ends
testpmd_start() {
	local _

	mkfifo "$WORK/testpmd.in"
	ip netns exec "$NS_GUEST" dpdk-testpmd -l 0,1 --no-huge -m 1024 \
		--no-pci --file-prefix "nsh$ID" --log-level "*:warning" \
		--vdev "net_virtio_user0,path=$WORK/backend.sock,queue_size=$QSIZE,queues=$QUEUES" \
		--vdev net_tap0,iface=tap0 -- -i \
		--rxq="$QUEUES" --txq="$QUEUES" \
		--nb-cores=1 --total-num-mbufs=16384 \
		--rxd=1024 --txd=1024 \
		<"$WORK/testpmd.in" >"$WORK/testpmd.log" 2>&1 &
	topo_pid_add $!
	# Its input stays open (testpmd exits at its end) until cleanup
	sleep 3600 >"$WORK/testpmd.in" &
	topo_pid_add $!
	# A full virtio ring holds the frame back, as a guest's driver
	# does, instead of dropping it: io forwarding with retries
	echo "set fwd io retry" >"$WORK/testpmd.in"
	echo "set burst tx delay 10 retry 1000000" >"$WORK/testpmd.in"
	echo "start" >"$WORK/testpmd.in"
	for _ in $(seq 100); do
		ip -n "$NS_GUEST" link show tap0 >/dev/null 2>&1 && break
		sleep 0.1
	done
	ip -n "$NS_GUEST" link set tap0 mtu 1500 txqueuelen 10000 up ||
		fail "testpmd's tap did not appear: $(tail -n 5 "$WORK/testpmd.log")"
}

# rr() - request/response latency from the guest to the peer through the
# back-end (tests/bench/rr.c): RR_SIZES bytes each way, one transaction at
# a time, 20000 or 4 s; one line per size: p50 and p99 in microseconds,
# and transactions per second
# $1: back-end label
rr() {
	local size out

	for size in $RR_SIZES; do
		if ! out=$(in_guest timeout 30 "$RR" client 203.0.113.1 5210 \
			"$size" 20000 4 0 2>&1); then
			printf '%-*s rr %5s B  failed: %s\n' "$LABEL_WIDTH" "$1" \
				"$size" "$out"
			continue
		fi
		echo "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("%-*s rr %5s B  p50 %7.1f us  p99 %7.1f us  %7.0f/s" % (
      int(sys.argv[1]), sys.argv[2], r["size"], r["p50_us"], r["p99_us"],
      1e6 / r["mean_us"]))' "$LABEL_WIDTH" "$1"
	done
}

# conns() - short connections from the guest to the peer through the
# back-end (tests/bench/connrate.py: connect, one byte each way, close),
# CONNS of them (default 1000) 8 at a time: connections per second
# $1: back-end label
conns() {
	local out

	if out=$(in_guest timeout -k 5 60 python3 "$DIR/connrate.py" client \
		203.0.113.1 5211 -n "${CONNS:-1000}" -j 8 --limit 45 2>&1); then
		echo "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("%-*s conn/s %7.0f  (%d ok, %d failed)" % (int(sys.argv[1]),
      sys.argv[2], r["per_s"], r["ok"], r["failed"]))' "$LABEL_WIDTH" "$1"
	else
		printf '%-*s conn/s failed: %s\n' "$LABEL_WIDTH" "$1" \
			"$(echo "$out" | tail -n 1)"
	fi
}

RR_SIZES=${RR_SIZES-1 1024}
RR_DIR=$(mktemp -d)
RR=$RR_DIR/rr
cc -O2 -Wall -Wextra -o "$RR" "$DIR/rr.c" || exit 1

for r in $(seq "$ROUNDS"); do
	for b in $BACKENDS; do
		case "$b" in
		*=*/passt) BACKEND=passt PASST=${b#*=} b=${b%%=*} ;;
		*=*) BACKEND=netshim NETSHIM=${b#*=} b=${b%%=*} ;;
		netshim) BACKEND=netshim NETSHIM=$DEFAULT_NETSHIM ;;
		passt) BACKEND=passt PASST=$DEFAULT_PASST ;;
		*) BACKEND=$b ;;
		esac
		topo_init
		topo_peer_pod
		topo_ns_add "$NS_GUEST"
		topo_backend --vhost-user -m 1500
		testpmd_start
		guest_dhcp4
		in_peer timeout $((4 * SECS + 60)) iperf3 -s -B 203.0.113.1 \
			>/dev/null 2>&1 &
		topo_pid_add $!
		sleep 0.5
		# The machine may be shared: its load goes with the figures
		echo "round $r, $b, $QUEUES queue pair(s)," \
			"load $(cut -d' ' -f1 /proc/loadavg)"
		for d in ${DIRS:-up down}; do
			run "$b" "$d"
		done
		in_peer "$RR" server 203.0.113.1 5210 >/dev/null 2>&1 &
		topo_pid_add $!
		in_peer python3 "$DIR/connrate.py" server 5211 \
			>/dev/null 2>&1 &
		topo_pid_add $!
		sleep 0.3
		rr "$b"
		[ "${CONNS:-1000}" = 0 ] || conns "$b"
		if [ -n "${COUNTERS:-}" ]; then
			mkdir -p "$COUNTERS"
			[ "$BACKEND" = netshim ] &&
				topo_counters >"$COUNTERS/$b-$r.txt"
			# testpmd's own, what it could not pass on: it
			# prints them when told to stop forwarding
			echo stop >"$WORK/testpmd.in"
			sleep 1
			sed -n '/Forward statistics for port/,$p' \
				"$WORK/testpmd.log" >"$COUNTERS/$b-$r.testpmd"
		fi
		topo_cleanup
		trap - EXIT
	done
done
rm -rf "$RR_DIR"
