#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
#
# fwdall.sh - what forwarding every port (KubeVirt's default for the passt
# binding) costs a pod: netshim beside passt, "-t PORTS -u PORTS", one run
# each, in the pod namespace of tests/lib/topo.sh:
#
#   passt       PASST (default: passt in PATH): one socket per port and
#               protocol, both families on it
#   per-port    netshim --bpf off: the same, one socket per port
#   sk_lookup   netshim --bpf require: TCP through the eBPF sk_lookup
#               program (one listening socket per family), UDP per port
#
# for each PORTS of FWD_PORTS (default "2000-5999 all": the first a range
# that fits a container's usual open file limit, the second what KubeVirt
# asks for).  bench.sh runs it after its cases; it also runs alone:
#
#   tests/bench/fwdall.sh [OUTDIR]     (default results/fwdall-TIMESTAMP)
#
# Each back-end runs in a memory cgroup of its own, a child of this
# shell's (cgroup v1 or v2), where the kernel charges the memory of its
# sockets, descriptors and epoll registrations as it charges its pages,
# with its open file limit raised to fs.nr_open where this shell may
# (CAP_SYS_RESOURCE), else at the hard limit it has (recorded: netshim then
# forwards "all" up to half of it, and passt as far as it gets).  A relay
# guest is attached and takes its DHCPv4 lease before the back-end is
# measured: start-up time to the VMM socket (polled every 10 ms), its
# descriptors, the cgroup's memory, RSS and peak RSS, the pod's TCP
# listening sockets and bound UDP sockets, and the time it takes to exit
# on SIGTERM.  Writes OUTDIR/fwdall.json and prints a table.

set -u
FWD_DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=../lib/topo.sh
. "$FWD_DIR/../lib/topo.sh"

FWD_OUT=${1:-$REPO/results/fwdall-$(date +%Y%m%d-%H%M%S)}
FWD_PORTS=${FWD_PORTS:-2000-5999 all}
PASST=${PASST:-passt}

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

# cg_init() - a memory cgroup for the back-ends, under this shell's
# Sets CG (its directory) and CG_MEM (its usage file), or leaves CG empty
# and says why
cg_init() {
	local base rel

	CG=
	rel=$(sed -n 's/^[0-9]*:memory:\(.*\)/\1/p' /proc/self/cgroup)
	if [ -n "$rel" ] && [ -d /sys/fs/cgroup/memory ]; then
		base=/sys/fs/cgroup/memory$rel
		CG_MEM=memory.usage_in_bytes
	else
		rel=$(sed -n 's/^0::\(.*\)/\1/p' /proc/self/cgroup)
		base=/sys/fs/cgroup$rel
		[ -f /sys/fs/cgroup/unified/cgroup.controllers ] &&
			base=/sys/fs/cgroup/unified$rel
		CG_MEM=memory.current
		grep -qw memory "$base/cgroup.subtree_control" 2>/dev/null || {
			log "no memory controller for a child of $base:" \
				"cgroup memory left out"
			return
		}
	fi
	CG=$base/netshim-fwdall-$ID
	mkdir "$CG" 2>/dev/null || {
		log "cannot create $CG: cgroup memory left out"
		CG=
	}
}

# nofile_limit() - the open file limit the back-ends get: fs.nr_open if
# this shell may raise its hard limit that far, else its hard limit
nofile_limit() {
	local max hard

	max=$(cat /proc/sys/fs/nr_open)
	hard=$(ulimit -Hn)
	[ "$hard" = unlimited ] && hard=$max
	if prlimit --nofile="$max:$max" true 2>/dev/null; then
		echo "$max"
	else
		echo "$hard"
	fi
}

# fwd_stop() - stop a back-end and its guest, if still there
# $1: the back-end's pid
fwd_stop() {
	kill "$1" "${RELAY_PID:-}" 2>/dev/null
	wait "$1" "${RELAY_PID:-}" 2>/dev/null
	RELAY_PID=
	ip netns del "$NS_GUEST" 2>/dev/null
}

# fwd_case() - start a back-end forwarding PORTS, attach a guest, measure,
# stop it
# $1: case name (passt, off, require), $2: PORTS
# Prints one JSON object, or nothing if the back-end could not start (its
# log tail goes to stderr).
fwd_case() {
	local name=$1 ports=$2 start pid ms fds rss hwm mem tl us stop _
	local log=$WORK/fwd-$1-$2.log

	case "$name" in
	passt)	BACKEND=passt
		topo_backend_cmd -t "$ports" -u "$ports" ;;
	*)	BACKEND=netshim
		topo_backend_cmd -t "$ports" -u "$ports" --bpf "$name" ;;
	esac
	chmod 1777 "$WORK"
	rm -f "$WORK/backend.sock"
	start=$(date +%s%N)
	# Into the cgroup before it runs (outside the namespace: "ip netns
	# exec" mounts a sysfs of its own), so that all it allocates is
	# charged there; each command execs the next: the pid is the
	# back-end's
	sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1
	       shift; exec "$@"' sh "$CG" ip netns exec "$NS_POD" \
		prlimit --nofile="$NOFILE:$NOFILE" "${BACKEND_CMD[@]}" \
		>"$log" 2>&1 &
	pid=$!
	topo_pid_add "$pid"
	for _ in $(seq 12000); do
		[ -S "$WORK/backend.sock" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	ms=$(ms_since "$start")
	if [ ! -S "$WORK/backend.sock" ]; then
		log "$name -t/-u $ports: did not start:"
		tail -3 "$log" >&2
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return
	fi
	# The guest, in a subshell: passt gives up, after its socket is
	# there, where it cannot bind every port it was asked for, and the
	# guest's set-up fails then
	rm -f "$WORK/relay.pid"
	if ! ( topo_relay_guest && echo "$RELAY_PID" >"$WORK/relay.pid" &&
	       guest_dhcp4 ) >&2 || ! kill -0 "$pid" 2>/dev/null; then
		log "$name -t/-u $ports: no guest attached, the back-end" \
			"says: $(tail -1 "$log")"
		RELAY_PID=$(cat "$WORK/relay.pid" 2>/dev/null)
		fwd_stop "$pid"
		return
	fi
	RELAY_PID=$(cat "$WORK/relay.pid")
	sleep 1
	fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
	rss=$(status_kb "$pid" VmRSS)
	hwm=$(status_kb "$pid" VmHWM)
	mem=null
	[ -n "$CG" ] && mem=$(cat "$CG/$CG_MEM")
	tl=$(ip netns exec "$NS_POD" ss -Hltn | wc -l)
	us=$(ip netns exec "$NS_POD" ss -Hlun | wc -l)
	start=$(date +%s%N)
	kill "$pid"
	wait "$pid" 2>/dev/null
	stop=$(ms_since "$start")
	fwd_stop "$pid"
	printf '{"case": "%s", "ports": "%s", "startup_ms": %s, ' \
		"$name" "$ports" "$ms"
	printf '"fds": %s, "cgroup_bytes": %s, "rss_kb": %s, ' \
		"$fds" "$mem" "$rss"
	printf '"peak_rss_kb": %s, "pod_tcp_listeners": %s, ' "$hwm" "$tl"
	printf '"pod_udp_sockets": %s, "exit_ms": %s, "nofile": %s}\n' \
		"$us" "$stop" "$NOFILE"
}

topo_init
topo_peer_pod
mkdir -p "$FWD_OUT" || fail "cannot create $FWD_OUT"
cg_init
# The cgroup goes once topo_cleanup stopped what it ran
trap 'topo_cleanup; [ -z "$CG" ] || rmdir "$CG" 2>/dev/null' EXIT
NOFILE=$(nofile_limit)
PASST_V=$("$PASST" --version 2>/dev/null | head -1)
log "every port forwarded: $PASST ($PASST_V) and netshim, open file" \
	"limit $NOFILE, ports: $FWD_PORTS"
: >"$WORK/fwdall.lines"
for ports in $FWD_PORTS; do
	for name in passt off require; do
		if [ "$name" = passt ] && ! command -v "$PASST" >/dev/null; then
			log "no passt ($PASST): its rows left out"
			continue
		fi
		fwd_case "$name" "$ports" >>"$WORK/fwdall.lines"
	done
done
python3 - "$WORK/fwdall.lines" "$FWD_OUT/fwdall.json" "$PASST_V" <<'EOF'
import json, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
json.dump({"passt": sys.argv[3], "cases": rows}, open(sys.argv[2], "w"),
          indent=1)
name = {"passt": "passt", "off": "netshim per-port",
        "require": "netshim sk_lookup"}
print()
print("-t PORTS -u PORTS, a guest attached, one run each; cgroup: the "
      "back-end's memory cgroup, kernel memory included"
      + (f"; open file limit {rows[0]['nofile']}" if rows else ""))
print(f"{'back-end':<18} {'ports':>9} {'start ms':>9} {'fds':>7}"
      f" {'cgroup MiB':>11} {'RSS MiB':>8} {'peak MiB':>9}"
      f" {'TCP lst':>8} {'UDP socks':>10} {'exit ms':>8}")
for r in rows:
    cg = r["cgroup_bytes"]
    cg = f"{cg / 1048576:.1f}" if cg is not None else "-"
    print(f"{name.get(r['case'], r['case']):<18} {r['ports']:>9}"
          f" {r['startup_ms']:>9} {r['fds']:>7} {cg:>11}"
          f" {r['rss_kb'] / 1024:>8.1f} {r['peak_rss_kb'] / 1024:>9.1f}"
          f" {r['pod_tcp_listeners']:>8} {r['pod_udp_sockets']:>10}"
          f" {r['exit_ms']:>8}")
# Only a netshim that cannot start with one socket per port is a failure:
# where the kernel cannot load the program, there is nothing to compare
sys.exit(0 if any(r["case"] == "off" for r in rows) else 1)
EOF
