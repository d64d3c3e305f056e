#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
#
# fwdall.sh - what "-t all" (KubeVirt's default) costs netshim: one socket
# per port and family (--bpf off) against one listening socket per family
# and the sk_lookup program (--bpf require), one run each, in the pod
# namespace of tests/lib/topo.sh.  bench.sh runs it after its cases; it
# also runs alone:
#
#   tests/bench/fwdall.sh [OUTDIR]     (default results/fwdall-TIMESTAMP)
#
# Measured for each, from start to the socket the VMM would connect to:
# start-up time (polled every 10 ms), descriptors netshim holds, its RSS
# and peak RSS, the TCP listening sockets of the pod, the machine's slab
# memory grown meanwhile (the kernel's share: listening sockets live
# there; machine-wide, so other work on the machine adds noise), and the
# time netshim takes to exit on SIGTERM, and the ports forwarded: with
# per-port sockets, netshim stops at half its open file limit (the hard
# limit it inherits, recorded; raising it needs CAP_SYS_RESOURCE), so
# below 262140 descriptors not every port is.  Writes OUTDIR/fwdall.json
# and prints a table.

set -u
FWD_DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=../lib/topo.sh
. "$FWD_DIR/../lib/topo.sh"

FWD_OUT=${1:-$REPO/results/fwdall-$(date +%Y%m%d-%H%M%S)}

# ms_since() - milliseconds since a date +%s%N stamp
# $1: the stamp
ms_since() {
	echo $(( ($(date +%s%N) - $1) / 1000000 ))
}

# status_kb() - a /proc/PID/status field, in kB
# $1: pid, $2: field (VmRSS, VmHWM)
status_kb() {
	sed -n "s/^$2:[[:space:]]*\([0-9]*\).*/\1/p" "/proc/$1/status"
}

# slab_kb() - the machine's slab memory, kB
slab_kb() {
	sed -n 's/^Slab:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo
}

# fwd_case() - start netshim with -t all, measure, stop it
# $1: --bpf mode (off: per-port sockets, require: sk_lookup)
# Prints one JSON object, or nothing if netshim could not start (its log
# tail goes to stderr).
fwd_case() {
	local mode=$1 start slab0 pid ms fds rss hwm lst slab stop ports _

	BACKEND=netshim
	topo_backend_cmd -t all --bpf "$mode"
	rm -f "$WORK/backend.sock"
	slab0=$(slab_kb)
	start=$(date +%s%N)
	ip netns exec "$NS_POD" "${BACKEND_CMD[@]}" >"$WORK/fwd-$mode.log" \
		2>&1 &
	pid=$!
	topo_pid_add "$pid"
	for _ in $(seq 12000); do
		[ -S "$WORK/backend.sock" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	ms=$(ms_since "$start")
	if [ ! -S "$WORK/backend.sock" ]; then
		log "-t all --bpf $mode: netshim did not start:"
		tail -3 "$WORK/fwd-$mode.log" >&2
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return
	fi
	fds=$(find "/proc/$pid/fd" -mindepth 1 | wc -l)
	rss=$(status_kb "$pid" VmRSS)
	hwm=$(status_kb "$pid" VmHWM)
	lst=$(ip netns exec "$NS_POD" ss -Hltn | wc -l)
	slab=$(( $(slab_kb) - slab0 ))
	start=$(date +%s%N)
	kill "$pid"
	wait "$pid" 2>/dev/null
	stop=$(ms_since "$start")
	# "forwarding N TCP ports ... (eBPF sk_lookup)", or per port: all,
	# unless "TCP ports from P on not forwarded"
	ports=$(sed -n 's/.*forwarding \([0-9]*\) TCP ports.*/\1/p' \
		"$WORK/fwd-$mode.log")
	[ -z "$ports" ] && ports=$(sed -n \
		's/.*TCP ports from \([0-9]*\) on not forwarded.*/\1/p' \
		"$WORK/fwd-$mode.log") && [ -n "$ports" ] &&
		ports=$((ports - 1))
	[ -z "$ports" ] && ports=65535
	printf '{"bpf": "%s", "startup_ms": %s, "fds": %s, "rss_kb": %s, ' \
		"$mode" "$ms" "$fds" "$rss"
	printf '"peak_rss_kb": %s, "pod_tcp_listeners": %s, ' "$hwm" "$lst"
	printf '"slab_growth_kb": %s, "exit_ms": %s, ' "$slab" "$stop"
	printf '"ports_forwarded": %s, "nofile_hard": %s}\n' "$ports" \
		"$(ulimit -Hn)"
}

topo_init
topo_peer_pod
mkdir -p "$FWD_OUT" || fail "cannot create $FWD_OUT"
log "-t all: one socket per port (--bpf off), then sk_lookup (--bpf require)"
{
	fwd_case off
	fwd_case require
} >"$WORK/fwdall.lines"
python3 - "$WORK/fwdall.lines" "$FWD_OUT/fwdall.json" <<'EOF'
import json, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
json.dump({"cases": rows}, open(sys.argv[2], "w"), indent=1)
name = {"off": "per-port sockets", "require": "sk_lookup"}
print()
print("-t all, IPv4 and IPv6, one run each"
      + (f"; open file limit {rows[0]['nofile_hard']}" if rows else ""))
print(f"{'netshim -t all':<18} {'ports':>6} {'start ms':>9} {'fds':>7}"
      f" {'RSS MiB':>8} {'peak MiB':>9} {'listeners':>10} {'slab +MiB':>10}"
      f" {'exit ms':>8}")
for r in rows:
    print(f"{name.get(r['bpf'], r['bpf']):<18} {r['ports_forwarded']:>6}"
          f" {r['startup_ms']:>9} {r['fds']:>7} {r['rss_kb'] / 1024:>8.1f}"
          f" {r['peak_rss_kb'] / 1024:>9.1f} {r['pod_tcp_listeners']:>10}"
          f" {r['slab_growth_kb'] / 1024:>10.1f} {r['exit_ms']:>8}")
if len(rows) < 2:
    print("(a case is missing: netshim did not start, see above)")
# Only a netshim that cannot start with one socket per port is a failure:
# where the kernel cannot load the program, there is nothing to compare
sys.exit(0 if any(r["bpf"] == "off" for r in rows) else 1)
EOF
