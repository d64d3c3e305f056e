#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
#
# memory.sh - what a back-end costs a pod in memory and descriptors, netshim
# beside passt, one run each, with the relay guest of tests/lib/topo.sh:
#
#   start     the back-end listening, no VMM yet
#   guest     a guest connected, its DHCPv4 lease taken, idle
#   N conns   N TCP connections from the guest to the peer open at once
#             (tests/tcp/many.py, held open while measured), N in
#             MEM_CONNS (default "1000 9000 10000")
#
# Each row: resident memory (VmRSS) and descriptors of the back-end.  The
# back-ends run with the hard descriptor limit of this shell (passt takes
# two per connection, netshim one; a container may not allow more than
# 20 000, as here, where passt then cannot hold 10 000).  bench.sh runs
# it after its cases; it also runs alone:
#
#   tests/bench/memory.sh [OUTDIR]     (default results/memory-TIMESTAMP)
#
# PASST names passt (default: passt in PATH).  Writes OUTDIR/memory.json
# and prints a table.

set -u
MEM_DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=../lib/topo.sh
. "$MEM_DIR/../lib/topo.sh"
# shellcheck source=../tcp/lib.sh
. "$MEM_DIR/../tcp/lib.sh"

MEM_OUT=${1:-$REPO/results/memory-$(date +%Y%m%d-%H%M%S)}
MEM_CONNS=${MEM_CONNS:-1000 9000 10000}
NOFILE=$(ulimit -Hn)
[ "$NOFILE" = unlimited ] && NOFILE=1048576
PORT=5020

# sample() - one row: the back-end's RSS (kB) and descriptors, as JSON
# $1: back-end, $2: what
sample() {
	local rss fds

	rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' \
		"/proc/$BACKEND_PID/status")
	fds=$(find "/proc/$BACKEND_PID/fd" -mindepth 1 -maxdepth 1 | wc -l)
	printf '{"backend": "%s", "state": "%s", "rss_kb": %s, "fds": %s}\n' \
		"$1" "$2" "${rss:-null}" "$fds" >>"$WORK/rows"
	log "$1, $2: RSS $rss kB, $fds descriptors"
}

# backend_run() - one back-end through every state
# $1: netshim or passt
backend_run() {
	local b=$1 n client

	BACKEND=$b
	topo_backend_cmd
	BACKEND_CMD=(prlimit --nofile="$NOFILE:$NOFILE" "${BACKEND_CMD[@]}")
	chmod 1777 "$WORK"
	rm -f "$WORK/backend.sock"
	ip netns exec "$NS_POD" "${BACKEND_CMD[@]}" >"$WORK/backend-$b.log" \
		2>&1 &
	BACKEND_PID=$!
	topo_pid_add "$BACKEND_PID"
	for _ in $(seq 50); do
		[ -S "$WORK/backend.sock" ] && break
		sleep 0.1
	done
	[ -S "$WORK/backend.sock" ] || fail "$b did not start"
	# prlimit execs the back-end: the pid is the back-end's own
	sleep 0.5
	sample "$b" start

	topo_relay_guest
	guest_dhcp4
	sleep 1
	sample "$b" guest

	for n in $MEM_CONNS; do
		rm -rf "$WORK/hold"
		mkdir "$WORK/hold"
		ip netns exec "$NS_GUEST" timeout 120 python3 \
			"$MEM_DIR/../tcp/many.py" client 203.0.113.1 "$PORT" \
			"$n" 1 60 "$WORK/hold" >"$WORK/client.log" 2>&1 &
		client=$!
		if tcp_wait_file "$WORK/hold/connected" 60 &&
		   [ "$(cat "$WORK/hold/connected")" = "$n" ]; then
			sleep 1
			sample "$b" "$n conns"
		else
			log "$b: $n connections not all open:" \
				"$(tail -2 "$WORK/client.log")"
		fi
		touch "$WORK/hold/go"
		wait "$client"
		sleep 2
	done

	kill "$BACKEND_PID" "$RELAY_PID" 2>/dev/null
	wait "$BACKEND_PID" "$RELAY_PID" 2>/dev/null
	ip netns del "$NS_GUEST" 2>/dev/null
}

topo_init
topo_peer_pod
ip netns exec "$NS_PEER" prlimit --nofile="$NOFILE:$NOFILE" timeout 600 \
	python3 "$MEM_DIR/../tcp/many.py" server 203.0.113.1 "$PORT" \
	>"$WORK/server.log" 2>&1 &
topo_pid_add $!
tcp_wait_listen "$NS_PEER" "$PORT"
: >"$WORK/rows"

backend_run netshim
if command -v "${PASST:-passt}" >/dev/null; then
	backend_run passt
else
	log "no passt: its rows left out"
fi

mkdir -p "$MEM_OUT"
python3 - "$WORK/rows" "$MEM_OUT/memory.json" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
json.dump(rows, open(sys.argv[2], "w"), indent=1)
states = []
for r in rows:
    if r["state"] not in states:
        states.append(r["state"])
backends = []
for r in rows:
    if r["backend"] not in backends:
        backends.append(r["backend"])
print("%-12s" % "state" + "".join("%24s" % ("%s RSS MiB / fds" % b)
                                   for b in backends))
for s in states:
    line = "%-12s" % s
    for b in backends:
        m = [r for r in rows if r["backend"] == b and r["state"] == s]
        line += "%24s" % ("%.1f / %d" % (m[0]["rss_kb"] / 1024, m[0]["fds"])
                          if m else "-")
    print(line)
EOF
log "results: $MEM_OUT/memory.json"
