#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
#
# migrate.sh - live migration of a QEMU 10 guest under TCG, in each
# direction between passt and netshim, one run each: passt->passt,
# passt->netshim, netshim->passt, netshim->netshim (MIG_PAIRS), so that
# each direction's downtime shows beside passt's own, measured in the same
# run with the same options.  The guest holds 1, 100 and 1000 TCP
# connections to the peer (MIG_CONNS; iperf3 streams at 1 kbit/s,
# tests/vm/scenarios/migbench.sh) and QMP migrates it to a second QEMU on
# a second back-end in the same pod, with each side's own TCP repair
# helper beside it (netshim-repair, passt's passt-repair) and
# --migrate-no-linger on the source (passt before 2025's closes the
# sockets it handed over without being asked, and has no such option).
# netshim writes passt's stream, its default.  Each row:
# query-migrate's total time and downtime, the established connections
# the peer counts just before and after, and whether the guest's iperf3
# clients ended well (their connections survived).  QEMU's traces split the
# downtime: the back-end's device state saved and loaded, QEMU's last RAM
# pass, and the guest's whole pause, source stopped to destination running.
#
# QEMU sizes its last RAM pass itself: it stops the guest once the RAM
# left to send fits its downtime limit (300 ms) at the rate it measured
# over the last 100 ms, then sends it at whatever rate the machine gives
# it, which varies tenfold here from run to run whichever the back-end
# (traces show no back-end message in that pass).  The back-end's own
# share is save and load; MIG_ROUNDS=N runs N rounds, each starting one
# direction later than the last, and adds the medians.
#
# MIG_DOWNTIME="qemu 30" (the default) runs every case under each of
# these downtime limits: "qemu" leaves QEMU's own (300 ms), a number sets
# it in ms on the source (migrate-set-parameters downtime-limit).  With a
# small one QEMU copies on until little RAM is left, its last pass
# shrinks to a few ms, and the pause is the back-ends' own: saving,
# loading, and the sockets rebuilt.
#
#   tests/bench/migrate.sh [OUTDIR]     (default results/migrate-TIMESTAMP)
#
# PASST names passt with --vhost-user (its passt-repair beside it); the
# rows with passt are left out without one.  MIG_PAIRS="SRC:DST ..."
# picks directions; MIG_HOLD how long the guest holds its connections
# (default 60 s: the migration comes some 20 s in); MIG_NIC_OPTS more
# properties of both QEMUs' virtio-net-pci device (run-vm.sh's
# VM_NIC_OPTS), e.g. event_idx=off, the same for every direction.
# Writes OUTDIR/migrate.json and a table, and a table of the directions
# side by side, and keeps each run's back-end logs, QEMU's traces and its
# last query-migrate in OUTDIR/SRC-DST-CONNS-LIMIT/ (-ROUND added with
# rounds).

set -u
MIG_DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=../lib/topo.sh
. "$MIG_DIR/../lib/topo.sh"
# shellcheck source=../vm/peer.sh
. "$MIG_DIR/../vm/peer.sh"
# shellcheck source=lib.sh
. "$MIG_DIR/lib.sh"

MIG_OUT=${1:-$REPO/results/migrate-$(date +%Y%m%d-%H%M%S)}
MIG_CONNS=${MIG_CONNS:-1 100 1000}
MIG_ROUNDS=${MIG_ROUNDS:-1}
MIG_DOWNTIME=${MIG_DOWNTIME:-qemu 30}
HOLD=${MIG_HOLD:-60}

# peer_conns() - TCP connections established to the peer's iperf3 ports
peer_conns() {
	in_peer ss -Htn state established '( sport >= :5201 and sport <= :5211 )' |
		wc -l
}

# qmp() - one QMP command on a monitor
qmp() {
	local mon=$1

	shift
	python3 "$MIG_DIR/../vm/qmp.py" "$mon" "$@"
}

# mig_split() - where a migration's downtime went, from QEMU's traces of
# both sides (VM_TRACE='vmstate_downtime*,migration_thread_low_pending'):
# the back-end's device state saved on the source and loaded on the
# destination, QEMU's last RAM pass, the guest's whole pause, from the
# source's stop to the destination's start, and the RAM QEMU had left to
# send when it chose to stop the guest.  Prints the four in ms and the
# last in MB, "null" for what a trace lacks.
# $1: source's trace, $2: destination's
mig_split() {
	python3 - "$1" "$2" <<-'PY'
	import re, sys
	def events(path):
	    try:
	        lines = open(path).read().splitlines()
	    except OSError:
	        return []
	    out = []
	    for l in lines:
	        m = re.match(r"\d+@([\d.]+):(\S+) (.*)", l)
	        if m:
	            out.append((float(m.group(1)), m.group(2), m.group(3)))
	    return out
	def dev_ms(ev, name, idstr):
	    for _, e, a in ev:
	        if e == name and re.search(r"idstr=\S*%s " % idstr, a):
	            return "%.1f" % (int(a.rsplit("=", 1)[1]) / 1000)
	    return "null"
	def at(ev, point):
	    return next((t for t, e, a in ev
	                 if e == "vmstate_downtime_checkpoint" and a == point),
	                None)
	src, dst = events(sys.argv[1]), events(sys.argv[2])
	t0, t1 = at(src, "src-downtime-start"), at(dst, "dst-precopy-bh-vm-started")
	pause = "%.1f" % ((t1 - t0) * 1000) if t0 and t1 else "null"
	left = [a for t, e, a in src if e == "migration_thread_low_pending"]
	pend = "%.1f" % (int(left[-1]) / 1e6) if left else "null"
	print(dev_ms(src, "vmstate_downtime_save", "virtio-net"),
	      dev_ms(dst, "vmstate_downtime_load", "virtio-net"),
	      dev_ms(src, "vmstate_downtime_save", "ram"), pause, pend)
	PY
}

# helper_of() - the TCP repair helper of a back-end
# $1: netshim or passt
helper_of() {
	if [ "$1" = passt ]; then
		echo "$(dirname "$PASST")/passt-repair"
	else
		echo "$REPO/build/netshim-repair"
	fi
}

# one_run() - one migration
# $1: source's back-end, $2: destination's, $3: connections
one_run() {
	local sb=$1 db=$2 n=$3 b="$1->$2" run="$WORK/$1-$2-$3" status out
	local total down before after clients _ p hpids=() linger=()

	mkdir -p "$run"
	# The same options for all: the launcher's, and --migrate-no-linger
	# on the source as the destination restores the same 4-tuples in
	# the same pod, where the back-end knows it
	linger=(--migrate-no-linger)
	[ "$sb" = passt ] && [ -z "$PASST_LINGER" ] && linger=()
	BACKEND=$sb topo_backend --vhost-user "${linger[@]}"
	local src_pid=$BACKEND_PID
	mv "$WORK/backend.sock" "$run/src.sock"
	mv "$WORK/backend.sock.repair" "$run/src.sock.repair"
	mv "$WORK/backend.log" "$run/backend-src.log"
	BACKEND=$db topo_backend --vhost-user
	local dst_pid=$BACKEND_PID
	mv "$WORK/backend.sock" "$run/dst.sock"
	mv "$WORK/backend.sock.repair" "$run/dst.sock.repair"
	mv "$WORK/backend.log" "$run/backend-dst.log"

	# QEMU's trace of the downtime, device by device, on both sides
	# (MIG_TRACE adds events: QEMU's -d trace:PATTERN, comma-separated)
	export VM_TRACE="vmstate_downtime*,migration_thread_low_pending${MIG_TRACE:+,$MIG_TRACE}"
	export VM_NIC_OPTS=${MIG_NIC_OPTS:-}
	NETDEV=vhost-user VM_QMP="$run/src.qmp" VM_LOG="$run/vm-src.log" \
		VM_QUIET=1 VM_TIMEOUT=300 "$REPO/tests/vm/run-vm.sh" migbench \
		"$run/src.sock" "netshim.conns=$n" "netshim.hold=$HOLD" \
		>"$run/run-src.out" 2>&1 &
	local src_run=$!
	topo_pid_add "$src_run"
	NETDEV=vhost-user VM_QMP="$run/dst.qmp" VM_LOG="$run/vm-dst.log" \
		VM_INCOMING=defer VM_QUIET=1 VM_TIMEOUT=300 \
		"$REPO/tests/vm/run-vm.sh" migbench "$run/dst.sock" \
		"netshim.conns=$n" "netshim.hold=$HOLD" \
		>"$run/run-dst.out" 2>&1 &
	local dst_run=$!
	topo_pid_add "$dst_run"

	for _ in $(seq 1200); do
		grep -q 'NETSHIM-RESULT migbench_ready' "$run/vm-src.log.raw" \
			2>/dev/null && break
		sleep 0.1
	done
	# Every stream established (and each client's control connection):
	# a connection still in its handshake cannot move, and is reset
	for _ in $(seq 600); do
		[ "$(peer_conns)" -ge $((n + (n + 99) / 100)) ] && break
		sleep 0.2
	done
	before=$(peer_conns)
	ip netns exec "$NS_POD" "$(helper_of "$sb")" "$run/src.sock.repair" \
		>"$run/helper-src.log" 2>&1 &
	hpids+=($!)
	ip netns exec "$NS_POD" "$(helper_of "$db")" "$run/dst.sock.repair" \
		>"$run/helper-dst.log" 2>&1 &
	hpids+=($!)
	for p in "${hpids[@]}"; do
		topo_pid_add "$p"
	done
	# The source back-end's CPU while the guest holds its connections
	# idle: what it takes from QEMU's threads on a small machine
	local t0 idle
	t0=$(ticks "$src_pid")
	sleep 5
	idle=$(( ($(ticks "$src_pid") - t0) * 100 / 5 / $(getconf CLK_TCK) ))
	qmp "$run/dst.qmp" "migrate-incoming {\"uri\": \"unix:$run/mig.sock\"}" \
		>/dev/null 2>&1
	[ "$LIMIT" = qemu ] || qmp "$run/src.qmp" \
		"migrate-set-parameters {\"downtime-limit\": $LIMIT}" \
		>/dev/null 2>&1
	qmp "$run/src.qmp" "migrate {\"uri\": \"unix:$run/mig.sock\"}" \
		>/dev/null 2>&1
	status=
	for _ in $(seq 600); do
		out=$(qmp "$run/src.qmp" query-migrate 2>&1)
		status=$(echo "$out" |
			sed -n 's/.*"status": "\([a-z-]*\)".*/\1/p' | head -n 1)
		case "$status" in
		completed | failed | cancelled) break ;;
		esac
		sleep 0.2
	done
	# The source may call it completed while the destination QEMU
	# refused what it got (a virtio feature its back-end lacks): the
	# guest must run there
	if [ "$status" = completed ]; then
		for _ in $(seq 50); do
			qmp "$run/dst.qmp" query-status 2>/dev/null |
				grep -q '"running": true' && break
			if ! kill -0 "$dst_run" 2>/dev/null; then
				status=dst-failed
				log "$b: the destination QEMU refused the guest:" \
					"$(grep -o 'qemu-system.*' "$run/run-dst.out" |
					head -n 1)"
				break
			fi
			sleep 0.2
		done
	fi
	total=$(echo "$out" | sed -n 's/.*"total-time": \([0-9]*\).*/\1/p')
	down=$(echo "$out" | sed -n 's/.*"downtime": \([0-9]*\).*/\1/p')
	qmp "$run/src.qmp" quit >/dev/null 2>&1
	sleep 3
	after=$(peer_conns)
	wait "$dst_run"
	clients=$(tr -d '\r' <"$run/vm-dst.log" |
		sed -n 's/^NETSHIM-RESULT migbench_clients //p')
	# What a failed iperf3 client said last, from the guest
	tr -d '\r' <"$run/vm-dst.log" |
		sed -n 's/^NETSHIM-RESULT migbench_error /guest: /p' |
		head -n 3 | while read -r line; do log "$line"; done
	local save load ram pause pend
	read -r save load ram pause pend < <(mig_split "$run/vm-src.log.trace" \
		"$run/vm-dst.log.trace")
	log "$b, $n connections, limit $LIMIT: $status in ${total:-?} ms," \
		"downtime" \
		"${down:-?} ms (back-end: $save ms saving, $load ms loading;" \
		"last RAM pass $ram ms, $pend MB left at the switch; guest" \
		"paused $pause ms; source back-end at ${idle}% CPU before); peer" \
		"connections $before before, $after after; iperf3 clients:" \
		"${clients:-?}"
	printf '{"backend": "%s", "src": "%s", "dst": "%s", "conns": %s, "limit": "%s", "status": "%s", "total_ms": %s, "downtime_ms": %s, "save_ms": %s, "load_ms": %s, "ram_ms": %s, "pause_ms": %s, "switch_mb": %s, "idle_cpu_pct": %s, "round": %s, "peer_before": %s, "peer_after": %s, "clients": "%s"}\n' \
		"$b" "$sb" "$db" "$n" "$LIMIT" "$status" "${total:-null}" \
		"${down:-null}" \
		"$save" "$load" "$ram" "$pause" "$pend" "$idle" "$ROUND" \
		"$before" "$after" "${clients:-}" >>"$WORK/rows"
	for p in "$src_pid" "$dst_pid"; do
		kill "$p" 2>/dev/null
	done
	wait "$src_pid" "$dst_pid" 2>/dev/null
	# Their back-ends hung up on the helpers; one left is stopped
	for p in "${hpids[@]}"; do
		kill "$p" 2>/dev/null
	done
	# The back-ends' logs say where their part of the downtime went
	local keep=$MIG_OUT/$sb-$db-$n-$LIMIT
	[ "$MIG_ROUNDS" = 1 ] || keep=$keep-$ROUND
	mkdir -p "$keep"
	cp "$run"/backend-*.log "$run"/vm-*.log.trace "$keep/" \
		2>/dev/null
	echo "$out" >"$keep/query-migrate.json"
}

topo_init
topo_peer_pod
for p in $(seq 5201 5211); do
	vm_peer_start "iperf3-$p" iperf3 -s -p "$p"
done
vm_peer_wait tcp 5211
: >"$WORK/rows"

PASST=${PASST:-}
PASST_LINGER=
if [ -n "$PASST" ] && [ -x "$(dirname "$PASST")/passt-repair" ]; then
	MIG_PAIRS=${MIG_PAIRS:-passt:passt passt:netshim netshim:passt netshim:netshim}
	"$PASST" --help 2>&1 | grep -q -- --migrate-no-linger && PASST_LINGER=1
else
	log "no PASST: the rows with passt left out"
	MIG_PAIRS=${MIG_PAIRS:-netshim:netshim}
fi
read -ra PAIRS <<<"$MIG_PAIRS"
for pair in "${PAIRS[@]}"; do
	case "$pair" in
	netshim:netshim) ;;
	passt:passt | passt:netshim | netshim:passt)
		[ -n "$PASST" ] || fail "MIG_PAIRS: $pair needs PASST" ;;
	*) fail "MIG_PAIRS: '$pair' is not SRC:DST of netshim and passt" ;;
	esac
done
# Each round starts one direction later: the machine's state drifts
for ROUND in $(seq "$MIG_ROUNDS"); do
	for LIMIT in $MIG_DOWNTIME; do
		for n in $MIG_CONNS; do
			for i in "${!PAIRS[@]}"; do
				pair=${PAIRS[$(((i + ROUND - 1) % ${#PAIRS[@]}))]}
				one_run "${pair%:*}" "${pair#*:}" "$n"
			done
		done
	done
done

mkdir -p "$MIG_OUT"
python3 - "$WORK/rows" "$MIG_OUT/migrate.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
json.dump(rows, open(sys.argv[2], "w"), indent=1)
fmt = "%-16s %6s %5s %5s %10s %9s %9s %7s %7s %7s %7s %7s %9s  %s"
print(fmt % ("backend", "conns", "limit", "round", "status", "total ms",
             "downtime", "save", "load", "RAM", "RAM MB", "paused", "peer",
             "guest clients"))
for r in rows:
    print(fmt % (r["backend"], r["conns"], r["limit"], r["round"],
                 r["status"],
                 r["total_ms"], r["downtime_ms"], r["save_ms"], r["load_ms"],
                 r["ram_ms"], r["switch_mb"], r["pause_ms"],
                 "%s/%s" % (r["peer_before"], r["peer_after"]),
                 r["clients"]))
print("limit: QEMU's downtime limit (ms, qemu: its default); "
      "downtime: QEMU's; save, load: the back-end's device state on the "
      "source, the destination; RAM: the source's last RAM pass, RAM MB "
      "what QEMU left for it; paused: source stopped to destination "
      "running (ms)")
if max(r["round"] for r in rows) > 1:
    def med(v):
        v = sorted(x for x in v if x is not None)
        if not v:
            return None
        h = len(v) // 2
        return v[h] if len(v) % 2 else round((v[h - 1] + v[h]) / 2, 1)
    print("medians over the rounds:")
    keys = ("downtime_ms", "save_ms", "load_ms", "ram_ms", "pause_ms")
    print("%-16s %6s %5s %9s %7s %7s %7s %7s" % ("backend", "conns",
          "limit", "downtime", "save", "load", "RAM", "paused"))
    for lim in sorted({r["limit"] for r in rows}):
        for n in sorted({r["conns"] for r in rows}):
            for b in sorted({r["backend"] for r in rows}):
                sel = [r for r in rows if r["backend"] == b and
                       r["conns"] == n and r["limit"] == lim]
                if sel:
                    print("%-16s %6s %5s %9s %7s %7s %7s %7s" % (
                          (b, n, lim) + tuple(med(r[k] for r in sel)
                                              for k in keys)))
# Each direction beside passt's own: the guest's pause (source stopped to
# destination running) and QEMU's downtime, medians over the rounds, and
# how many of its migrations completed with every iperf3 client alive
def mid(v):
    v = sorted(x for x in v if x is not None)
    if not v:
        return None
    h = len(v) // 2
    return v[h] if len(v) % 2 else round((v[h - 1] + v[h]) / 2, 1)
print("each direction beside passt->passt (ms, medians):")
print("%-16s %6s %5s %9s %9s %9s %9s  %s" % ("direction", "conns", "limit",
      "paused", "vs passt", "downtime", "vs passt", "completed, clients ok"))
order = ["passt->passt", "passt->netshim", "netshim->passt",
         "netshim->netshim"]
for lim in sorted({r["limit"] for r in rows}):
    for n in sorted({r["conns"] for r in rows}):
        base = [r for r in rows if r["backend"] == "passt->passt" and
                r["conns"] == n and r["limit"] == lim]
        bp = mid(r["pause_ms"] for r in base)
        bd = mid(r["downtime_ms"] for r in base)
        for b in order:
            sel = [r for r in rows if r["backend"] == b and
                   r["conns"] == n and r["limit"] == lim]
            if not sel:
                continue
            p = mid(r["pause_ms"] for r in sel)
            d = mid(r["downtime_ms"] for r in sel)
            ok = sum(r["status"] == "completed" and
                     r["clients"].endswith(", 0 failed") for r in sel)
            dp = "%+.1f" % (p - bp) if p is not None and bp is not None \
                else "-"
            dd = "%+d" % (d - bd) if d is not None and bd is not None \
                else "-"
            print("%-16s %6s %5s %9s %9s %9s %9s  %d of %d" % (
                  b, n, lim, p, dp, d, dd, ok, len(sel)))
PY
# What the peer's iperf3 servers failed on, if anything, each message once
cat "$WORK"/peer-iperf3-*.log 2>/dev/null | grep -o 'iperf3: error - .*' |
	sort | uniq -c | while read -r line; do log "peer: $line"; done
log "results: $MIG_OUT/migrate.json"
