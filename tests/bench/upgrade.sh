#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
#
# upgrade.sh - the pause of an upgrade in place (netshim --upgrade), as
# the guest sees it: the longest gap in a stream it receives, a datagram
# from the peer every 250 us (gaps.py), around each of UPG_ROUNDS upgrades
# (default 20) in a row, with the guest holding 1, 100 and 1000 idle TCP
# connections (UPG_CONNS), for each back-end (UPG_CASES): stream (tests/
# relay), vhost-user (tests/vu_relay) and netns (--netns, its tap).  The
# guests are a namespace's kernel at native speed: the upgrade is the
# back-ends' business alone, no guest RAM moves.  Each row: the median
# and the longest of the gaps, what the old netshims measured themselves
# (from its loop stopping to the new one's word it took over), and the
# longest gap away from any upgrade, the noise floor of this machine.
#
# Beside it, the pause of a live migration on the same machine, from
# tests/bench/migrate.sh's migrate.json in the same OUTDIR (make bench
# runs it first; alone, UPG_MIGRATE=1 runs it for netshim->netshim): the
# guest's pause there, source stopped to destination running, and QEMU's
# downtime, medians.
#
#   tests/bench/upgrade.sh [OUTDIR]     (default results/upgrade-TIMESTAMP)
#
# Writes OUTDIR/upgrade.json and the tables.

set -u
UPG_DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=../lib/topo.sh
. "$UPG_DIR/../lib/topo.sh"
# shellcheck source=../lib/netns.sh
. "$UPG_DIR/../lib/netns.sh"
# shellcheck source=../tcp/lib.sh
. "$UPG_DIR/../tcp/lib.sh"
# shellcheck source=../lib/upgrade.sh
. "$UPG_DIR/../lib/upgrade.sh"

UPG_OUT=${1:-$REPO/results/upgrade-$(date +%Y%m%d-%H%M%S)}
ROUNDS=${UPG_ROUNDS:-20}
CONNS=${UPG_CONNS:-1 100 1000}
CASES=${UPG_CASES:-stream vhost-user netns}
GAPS=$UPG_DIR/gaps.py

# one_case() - a topology, a back-end, a guest holding connections and
# receiving the stream, ROUNDS upgrades; its row to $UPG_OUT/rows
# $1: stream, vhost-user or netns; $2: connections held
one_case() {
	local kind=$1 n=$2 i t0 t1 base

	topo_init
	topo_peer_pod
	base=(-P "$WORK/backend.pid" -D 203.0.113.1 -S netshim.test)
	case "$kind" in
	stream)
		up_backend -s "$WORK/backend.sock" "${base[@]}"
		topo_relay_guest 1500
		guest_dhcp4
		;;
	vhost-user)
		up_backend -s "$WORK/backend.sock" "${base[@]}" --vhost-user
		topo_vu_relay_guest 1500
		guest_dhcp4
		;;
	netns)
		topo_ns_add "$NS_GUEST"
		up_backend --netns "/run/netns/$NS_GUEST" --config-net \
			--upgrade-path "$WORK/up.sock" "${base[@]}"
		ns_wait_addr "$NS_GUEST"
		;;
	esac
	ip netns exec "$NS_PEER" python3 "$GAPS" holdsrv 5401 \
		>/dev/null 2>&1 &
	topo_pid_add $!
	tcp_wait_listen "$NS_PEER" 5401
	ip netns exec "$NS_GUEST" python3 "$GAPS" hold 203.0.113.1 5401 "$n" \
		900 >"$WORK/hold.out" 2>&1 &
	topo_pid_add $!
	topo_wait_log "$WORK/hold.out" holding 300 ||
		fail "$kind: the guest did not open $n connections: $(cat "$WORK/hold.out")"
	ip netns exec "$NS_PEER" python3 "$GAPS" send 5400 250 \
		"$WORK/stop" 900 >/dev/null 2>&1 &
	topo_pid_add $!
	for i in $(seq 50); do
		ip netns exec "$NS_PEER" ss -Hlun 'sport = :5400' | grep -q . &&
			break
		sleep 0.1
	done
	ip netns exec "$NS_GUEST" python3 "$GAPS" recv 203.0.113.1 5400 900 \
		"$WORK/gaps" &
	UPG_RECV=$!
	topo_pid_add "$UPG_RECV"
	sleep 2
	: >"$WORK/windows"
	for i in $(seq "$ROUNDS"); do
		t0=$(date +%s%N)
		up_upgrade "$i of $ROUNDS"
		t1=$(date +%s%N)
		echo "$t0 $t1" >>"$WORK/windows"
		sleep 0.5
	done
	sleep 1
	touch "$WORK/stop"
	wait "$UPG_RECV"
	python3 - "$kind" "$n" "$WORK/windows" "$WORK/gaps" \
		"$WORK/backend.log" >>"$UPG_OUT/rows" <<'PY'
import json, re, sys
kind, n, windows, gaps, blog = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
win = [tuple(map(int, l.split())) for l in open(windows) if l.strip()]
gp, got = [], 0
for l in open(gaps):
    f = l.split()
    if f[0] == "datagrams":
        got = int(f[1])
    else:
        gp.append((int(f[0]), int(f[1])))
# The gap an upgrade made: the longest that ends after it began and
# starts before it returned (the datagrams held meanwhile come at once)
per, quiet = [], 0
for a, b in win:
    m = [e - s for s, e in gp if e > a and s < b]
    per.append(max(m) / 1e6 if m else 0.0)
for s, e in gp:
    if not any(e > a and s < b for a, b in win):
        quiet = max(quiet, (e - s) / 1e6)
own = [int(x) / 1000 for x in re.findall(
    r"handed over to process .* taken after (\d+) us", open(blog).read())]
def med(v):
    v = sorted(v)
    return round(v[len(v) // 2], 2) if v else None
print(json.dumps({"case": kind, "conns": n, "upgrades": len(win),
                  "datagrams": got,
                  "gap_med_ms": med(per), "gap_max_ms": round(max(per), 2),
                  "own_med_ms": med(own),
                  "own_max_ms": round(max(own), 2) if own else None,
                  "quiet_max_ms": round(quiet, 2)}))
PY
	log "$kind, $n connections: $(tail -n 1 "$UPG_OUT/rows")"
	topo_cleanup
}

[ -x "$NETSHIM" ] || fail "$NETSHIM not built (make)"
make -s -C "$REPO" tests/relay tests/vu_relay || fail "relays not built"
mkdir -p "$UPG_OUT"
: >"$UPG_OUT/rows"
for kind in $CASES; do
	for n in $CONNS; do
		one_case "$kind" "$n"
	done
done
if [ ! -s "$UPG_OUT/migrate.json" ] && [ -n "${UPG_MIGRATE:-}" ]; then
	MIG_PAIRS=netshim:netshim MIG_CONNS=$CONNS \
		"$UPG_DIR/migrate.sh" "$UPG_OUT" >"$UPG_OUT/migrate.txt" 2>&1 ||
		log "migrate.sh failed: $(tail -n 3 "$UPG_OUT/migrate.txt")"
fi
python3 - "$UPG_OUT/rows" "$UPG_OUT/upgrade.json" "$UPG_OUT/migrate.json" \
	<<'PY'
import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
json.dump(rows, open(sys.argv[2], "w"), indent=1)
fmt = "%-11s %6s %8s %9s %9s %9s %9s %9s"
print("upgrade in place: the guest's longest gap in a datagram every "
      "250 us (ms)")
print(fmt % ("back-end", "conns", "upgrades", "gap med", "gap max",
             "own med", "own max", "quiet max"))
for r in rows:
    print(fmt % (r["case"], r["conns"], r["upgrades"], r["gap_med_ms"],
                 r["gap_max_ms"], r["own_med_ms"], r["own_max_ms"],
                 r["quiet_max_ms"]))
print("gap: around each upgrade; own: the old netshim's loop stopped to "
      "the new one's word it took over; quiet max: the longest gap away "
      "from upgrades, this machine's noise")
if not os.path.exists(sys.argv[3]):
    print("no migrate.json beside it: tests/bench/migrate.sh OUTDIR, or "
          "UPG_MIGRATE=1, gives a live migration's pause to compare")
    sys.exit()
mig = [r for r in json.load(open(sys.argv[3]))
       if r["backend"] == "netshim->netshim"]
def med(v):
    v = sorted(x for x in v if x is not None)
    return v[len(v) // 2] if v else None
print("beside it, a live migration netshim->netshim on this machine "
      "(QEMU 10 guest, migrate.sh; ms, medians):")
print("%-16s %6s %5s %9s %9s" % ("", "conns", "limit", "paused",
                                 "downtime"))
for lim in sorted({r["limit"] for r in mig}):
    for n in sorted({r["conns"] for r in mig}):
        sel = [r for r in mig if r["conns"] == n and r["limit"] == lim]
        if sel:
            print("%-16s %6s %5s %9s %9s" % (
                "migration", n, lim, med(r["pause_ms"] for r in sel),
                med(r["downtime_ms"] for r in sel)))
PY
log "results: $UPG_OUT/upgrade.json"
