#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
#
# local_ab.sh - local flows (-T: a namespace process reaching iperf3 on the
# pod's loopback), pasta and netshim builds alternated round by round, so
# that the machine's changing load falls on all of them alike:
#
#   local_ab.sh ROUNDS [LABEL=NETSHIM[@BPFMODE]]...
#
# Each round runs pasta, then each netshim given (default: build/netshim
# with --bpf auto), iperf3 up and down with -P 1 and -P 4 (BENCH_TIME s
# each, default 5), and prints per row the mean Gbit/s and the whole
# machine's CPU seconds per GiB over the rounds.  To compare two builds
# of netshim: build one in a git worktree and name both.

set -u
BENCH_DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=../lib/topo.sh
. "$BENCH_DIR/../lib/topo.sh"

BENCH_TIME=${BENCH_TIME:-5}
OUT=${BENCH_OUT:-$REPO/results/local_ab-$(date +%Y%m%d-%H%M%S)}
IPERF_PORT=5201
# The measuring and starting functions are local.sh's own
# shellcheck disable=SC1090
. <(sed -n '/^busy_ticks()/,/^}/p; /^iperf_case()/,/^}/p;
	/^ns_backend()/,/^}/p; /^ns_backend_stop()/,/^}/p' \
	"$BENCH_DIR/local.sh")

if [ $# -lt 1 ] || ! [ "$1" -gt 0 ] 2>/dev/null; then
	fail "usage: local_ab.sh ROUNDS [LABEL=NETSHIM[@BPFMODE]]..."
fi
ROUNDS=$1
shift
[ $# -gt 0 ] || set -- "netshim=$REPO/build/netshim"
mkdir -p "$OUT" || exit 1
topo_init
topo_peer_pod
ip netns exec "$NS_POD" iperf3 -s -B 127.0.0.1 -p "$IPERF_PORT" \
	>"$OUT/iperf3-server.log" 2>&1 &
topo_pid_add $!
sleep 0.5
chmod 1777 "$WORK"
for r in $(seq "$ROUNDS"); do
	log "round $r of $ROUNDS"
	for v in pasta "$@"; do
		label=${v%%=*}
		if [ "$v" = pasta ]; then
			ns_backend pasta setpriv --reuid=65534 --regid=65534 \
				--clear-groups pasta -f -q --config-net -I pod0 \
				-D 203.0.113.1 --no-map-gw -T "$IPERF_PORT"
		else
			bin=${v#*=}
			mode=auto
			[ "$bin" = "${bin%@*}" ] || mode=${bin##*@}
			bin=${bin%@*}
			ns_backend "$label" "$bin" -f --config-net -m 65520 \
				-D 203.0.113.1 --bpf "$mode" -T "$IPERF_PORT"
		fi
		for d in up down; do
			for p in 1 4; do
				iperf_case "$label" "$NS_GUEST" "$d" "$p"
			done
		done
		ns_backend_stop
	done
done
echo "means over $ROUNDS rounds:" | tee "$OUT/means.txt"
awk '$4 != "fail" { k = $1 " " $2 " " $3; g[k] += $4; c[k] += $6; n[k]++ }
     END { for (k in g) printf "%-24s %6.2f Gbit/s %5.2f CPU s/GiB (n=%d)\n",
	   k, g[k] / n[k], c[k] / n[k], n[k] }' "$OUT/table.txt" |
	sort | tee -a "$OUT/means.txt"
log "results: $OUT"
