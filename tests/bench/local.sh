#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
#
# local.sh - local flows side by side, in one run: a process in a namespace
# reaching a server on the pod's loopback (-T), through
#   kernel        the pod's own loopback, no namespace: the ceiling
#   pasta         pasta -T (splice), unprivileged as it is meant to run
#   splice        netshim --bpf off -T (tcp/splice.c)
#   sockmap       netshim --bpf require -T (bpf/sockmap.bpf.c): every
#                 flow that lasts moves to the sockmap
#   auto          netshim -T, --bpf auto (the default): request/response
#                 flows move, bulk ones stay on splice
# iperf3 both directions (up: namespace -> pod, down: -R), -P 1 and -P 4,
# Gbit/s and CPU seconds per GiB counted system-wide (/proc/stat: the
# redirection runs in softirq and kernel workers, not in netshim), then
# request/response latency p50/p99 at 1 B, 1 KiB and 64 KiB
# (tests/bench/rr.c, after a 2 MiB warm-up so that a flow that moves to
# the sockmap has moved).  Last, io_uring's linked splices beside epoll
# and splice() on one loopback stream, the mechanism alone
# (tests/bench/splice_uring.c), three rounds each.
#
# Environment: BENCH_TIME (s per iperf3 run, default 5), BENCH_OUT (results
# directory, default results/local-TIMESTAMP).  Run by bench.sh, or alone.
# The machine's other load counts in every figure: compare rows of one run.

set -u
BENCH_DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=../lib/topo.sh
. "$BENCH_DIR/../lib/topo.sh"

BENCH_TIME=${BENCH_TIME:-5}
OUT=${BENCH_OUT:-$REPO/results/local-$(date +%Y%m%d-%H%M%S)}
NETSHIM=${NETSHIM:-$REPO/build/netshim}
RR=$OUT/rr
IPERF_PORT=5201
RR_PORT=5210
RR_SIZES="1 1024 65536"

# busy_ticks() - CPU ticks spent on anything but idle, all CPUs
busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

# iperf_case() - one iperf3 run, one line of the table
# $1: row label, $2: namespace of the client, $3: up or down, $4: streams
iperf_case() {
	local rev=() t0 t1 j gbit gib cpu hz

	[ "$3" = down ] && rev=(-R)
	j=$OUT/raw-$1-$3-P$4.json
	t0=$(busy_ticks)
	ip netns exec "$2" timeout -k 5 $((BENCH_TIME + 30)) iperf3 \
		-c 127.0.0.1 -p "$IPERF_PORT" -t "$BENCH_TIME" -P "$4" \
		--connect-timeout 5000 -J "${rev[@]}" >"$j" 2>/dev/null
	t1=$(busy_ticks)
	hz=$(getconf CLK_TCK)
	read -r gbit gib < <(python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["end"]["sum_received"]
print("%.2f %.4f" % (e["bits_per_second"] / 1e9, e["bytes"] / 2**30))
' "$j" 2>/dev/null) || { gbit=fail; gib=0; }
	if [ "$gib" != 0 ]; then
		cpu=$(awk -v t=$((t1 - t0)) -v hz="$hz" -v g="$gib" \
			'BEGIN { printf "%.2f", t / hz / g }')
	else
		cpu=-
	fi
	printf '%-8s %-5s -P%-2s %8s Gbit/s %8s CPU s/GiB\n' "$1" "$3" "$4" \
		"$gbit" "$cpu" | tee -a "$OUT/table.txt"
	sleep 0.3
}

# rr_case() - request/response latency, one line per size
# $1: row label, $2: namespace of the client
rr_case() {
	local size out

	for size in $RR_SIZES; do
		out=$(ip netns exec "$2" timeout 30 "$RR" client 127.0.0.1 \
			"$RR_PORT" "$size" 20000 4 $((2 << 20)) 2>&1) ||
			out="failed: $out"
		printf '%-8s rr %6s B  %s\n' "$1" "$size" "$out" |
			tee -a "$OUT/table.txt"
	done
}

# ns_backend() - start netshim or pasta for a namespace running sleep
# $1: label, $@: command up to "--"
# Sets BPID and names the namespace $NS_GUEST.
ns_backend() {
	local child _ label=$1

	shift
	ip netns exec "$NS_POD" "$@" -- sleep 3600 >"$OUT/$label.log" 2>&1 &
	BPID=$!
	topo_pid_add "$BPID"
	child=
	for _ in $(seq 50); do
		for child in $(cat "/proc/$BPID/task/$BPID/children" 2>/dev/null); do
			[ "$(readlink "/proc/$child/exe")" = "$(command -v sleep)" ] &&
				break 2
		done
		child=
		sleep 0.1
	done
	[ -n "$child" ] || fail "$label did not start: $(tail -3 "$OUT/$label.log")"
	CHILD=$child
	touch "/run/netns/$NS_GUEST" &&
		mount --bind "/proc/$child/ns/net" "/run/netns/$NS_GUEST" ||
		fail "cannot name the namespace"
}

# ns_backend_stop() - stop it
# pasta's command is the init of pasta's PID namespace, which ignores
# SIGTERM: without SIGKILL it outlived pasta, with its namespace
ns_backend_stop() {
	kill -KILL "$CHILD" 2>/dev/null
	kill -TERM "$BPID" 2>/dev/null
	wait "$BPID" 2>/dev/null
	umount "/run/netns/$NS_GUEST" 2>/dev/null
	rm -f "/run/netns/$NS_GUEST"
}

# row() - every measurement of one row
# $1: label, $2: namespace of the clients
row() {
	local d p

	for d in up down; do
		for p in 1 4; do
			iperf_case "$1" "$2" "$d" "$p"
		done
	done
	rr_case "$1" "$2"
}

mkdir -p "$OUT" || exit 1
cc -O2 -Wall -Wextra -o "$RR" "$BENCH_DIR/rr.c" || exit 1
[ -x "$NETSHIM" ] || fail "$NETSHIM not built (make)"
topo_init
topo_peer_pod
{
	echo "date=$(date -Iseconds) kernel=$(uname -r) cores=$(nproc)"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "iperf3 $BENCH_TIME s per run; CPU s/GiB: all CPUs, whole machine"
} | tee "$OUT/table.txt"
ip netns exec "$NS_POD" iperf3 -s -B 127.0.0.1 -p "$IPERF_PORT" \
	>"$OUT/iperf3-server.log" 2>&1 &
topo_pid_add $!
ip netns exec "$NS_POD" "$RR" server 127.0.0.1 "$RR_PORT" &
topo_pid_add $!
sleep 0.5

row kernel "$NS_POD"

chmod 1777 "$WORK"
ns_backend pasta setpriv --reuid=65534 --regid=65534 --clear-groups \
	pasta -f -q --config-net -I pod0 -D 203.0.113.1 --no-map-gw \
	-T "$IPERF_PORT,$RR_PORT"
row pasta "$NS_GUEST"
ns_backend_stop

for mode in off require auto; do
	case $mode in
	off) label=splice ;;
	require) label=sockmap ;;
	*) label=auto ;;
	esac
	ns_backend "$label" "$NETSHIM" -f --config-net -m 65520 \
		-D 203.0.113.1 --bpf "$mode" -T "$IPERF_PORT,$RR_PORT"
	row "$label" "$NS_GUEST"
	kill -USR1 "$BPID"
	sleep 0.3
	grep -E "tcp_spliced|tcp_sockmap|sockmap_bytes" "$OUT/$label.log" |
		tail -3 | sed "s/^/$label: /" | tee -a "$OUT/table.txt"
	ns_backend_stop
done
# io_uring's linked splices, the mechanism alone (splice_uring.c): one
# stream through a pipe joined by epoll and splice(), as tcp/splice.c
# does, or by both splices in one io_uring submission; rounds alternate
if cc -O2 -Wall -Wextra -o "$OUT/splice_uring" "$BENCH_DIR/splice_uring.c" \
	-luring; then
	echo "one stream through a pipe, ${BENCH_TIME} s per round:" |
		tee -a "$OUT/table.txt"
	for _ in 1 2 3; do
		for m in epoll uring; do
			timeout -k 5 $((BENCH_TIME + 30)) "$OUT/splice_uring" \
				"$m" "$BENCH_TIME" || echo "$m: failed"
		done
	done | tee -a "$OUT/table.txt"
else
	log "splice_uring not built"
fi
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/table.txt"
log "results: $OUT/table.txt"
