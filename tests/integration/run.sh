#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run the integration tests: every tests/integration/t_*.sh, each in its own
# process with its own namespaces, bounded by a timeout (TIMEOUT, default
# 300 s; a test that needs longer has a line "# run.sh timeout: SECONDS").
#
#   tests/integration/run.sh [FILTER...]    e.g. run.sh t_udp
#
# BACKEND=netshim (default) or BACKEND=passt picks the daemon under test
# (passt's namespace mode, pasta, in the namespace-mode tests), NETSHIM
# the netshim binary (default build/netshim), PASST_VU passt with
# --vhost-user for the migrations between passt and netshim (t_migrate_*;
# default build/passt-vu/passt, which make integration builds from
# trixie's source: those tests fail without it).
# JOBS (default 1) runs that many tests at a time, those that say
# "# run.sh: long" first.  No test here measures speed (make bench does),
# so sharing the cores changes how long they take, not what they check.
# Logs go to $LOGDIR (default: a new build/integration/run.XXXXXX); the
# tail of a failing test's log is printed.  Ends with "N passed, N skipped,
# N failed".
#
# A test that cannot run here exits 77 (skip() in tests/lib/topo.sh) and is
# reported as SKIP with its reason, never as PASS.  With the netshim
# backend a skip fails the run, so that a kernel or privilege change that
# stops an eBPF program from loading in CI cannot pass unnoticed;
# ALLOW_SKIP=1 accepts skips (a machine known to lack something).  With
# BACKEND=passt, skips of netshim-only tests are expected and accepted.
#
# Every test here is a file of its own.  A scenario several tests share
# (a VM guest in tests/vm/, the libvirt guest in tests/libvirt/) is run by
# a test that exports its variant (NETDEV=vhost-user, VM_DHCP6=no, ...)
# and execs the scenario by its path: one way to reuse a test, no
# symbolic links, and each variant's name and reason in its own file.

set -u

DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$DIR/../.." && pwd)
LOGDIR=${LOGDIR:-}
TIMEOUT=${TIMEOUT:-300}
export BACKEND=${BACKEND:-netshim}
export NETSHIM=${NETSHIM:-$REPO/build/netshim}

if [ "$(id -u)" != 0 ]; then
	echo "run.sh: integration tests need root (network namespaces)" >&2
	exit 1
fi
if [ ! -x "$REPO/tests/relay" ] ||
   [ "$REPO/tests/relay.c" -nt "$REPO/tests/relay" ]; then
	make -s -C "$REPO" tests/relay || exit 1
fi
if [ "$BACKEND" = netshim ] &&
   { [ ! -f "$NETSHIM" ] || [ ! -x "$NETSHIM" ]; }; then
	echo "run.sh: $NETSHIM is not built (make)" >&2
	exit 1
fi
# One directory per run: runs in parallel must not overwrite each other's
if [ -z "$LOGDIR" ]; then
	mkdir -p "$REPO/build/integration" &&
		LOGDIR=$(mktemp -d "$REPO/build/integration/run.XXXXXX") ||
		exit 1
fi
mkdir -p "$LOGDIR" || exit 1

# selected() - whether a test name matches the command line filters
# $1: test name
selected() {
	local f

	[ ${#FILTERS[@]} -eq 0 ] && return 0
	for f in "${FILTERS[@]}"; do
		case "$1" in
		*"${f%.sh}"*) return 0 ;;
		esac
	done
	return 1
}

FILTERS=("$@")
JOBS=${JOBS:-1}
case "$JOBS" in
''|*[!0-9]*|0) echo "run.sh: JOBS=$JOBS is not a positive number" >&2
	exit 1 ;;
esac
pass=0
skipped=0
failed=0
ALLOW_SKIP=${ALLOW_SKIP:-0}
[ "$BACKEND" = netshim ] || ALLOW_SKIP=1

# run_one() - run one test under its time limit, print its result line and
# the tail of its log if it failed; exit status 0 pass, 77 skip, 1 fail
# $1: test file
run_one() {
	local t=$1 name log start t_max rc secs

	name=$(basename "$t" .sh)
	log=$LOGDIR/$name.log
	start=$(date +%s%N)
	# A test that needs longer says so: "# run.sh timeout: SECONDS"
	t_max=$(sed -n 's/^# run.sh timeout: \([0-9]*\)$/\1/p' "$t")
	timeout -k 10 "${t_max:-$TIMEOUT}" bash "$t" >"$log" 2>&1
	rc=$?
	secs=$(( ($(date +%s%N) - start) / 1000000 ))
	secs=$(printf '%d.%03d' $((secs / 1000)) $((secs % 1000)))
	if [ "$rc" = 0 ]; then
		echo "PASS $name (${secs}s)"
		return 0
	elif [ "$rc" = 77 ]; then
		echo "SKIP $name (${secs}s): $(sed -n 's/^SKIP: //p' "$log" |
			tail -n 1)"
		return 77
	fi
	[ "$rc" = 124 ] &&
		echo "  timed out after ${t_max:-$TIMEOUT}s" >>"$log"
	# one block, so that parallel tests' lines do not interleave with it
	{ echo "FAIL $name (${secs}s, exit $rc, log $log)"
	  tail -n 25 "$log" | sed 's/^/    /'; } | cat
	return 1
}

# count() - add one finished test's status to the totals
# $1: run_one's exit status
count() {
	case "$1" in
	0) pass=$((pass + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
}

# The selected tests, the long ones first (a time limit of their own, then
# "# run.sh: long"), so that with JOBS > 1 the run does not end on one
# long test.  One grep a file finds both marks; a time limit wins.
timed=()
long=()
rest=()
for t in "$DIR"/t_*.sh; do
	[ -e "$t" ] || continue
	selected "$(basename "$t" .sh)" || continue
	case $(grep -a -o -E '^# run.sh( timeout: |: long)' "$t") in
	*timeout*) timed+=("$t") ;;
	*long*) long+=("$t") ;;
	*) rest+=("$t") ;;
	esac
done
tests=("${timed[@]}" "${long[@]}" "${rest[@]}")

echo "backend: $BACKEND, logs in $LOGDIR, $JOBS at a time"
# JOBS tests at a time: each has its own namespaces, ids and work
# directory, so they do not see each other
running=0
for t in "${tests[@]}"; do
	if [ "$JOBS" = 1 ]; then
		run_one "$t"
		count $?
		continue
	fi
	if [ "$running" -ge "$JOBS" ]; then
		wait -n
		count $?
		running=$((running - 1))
	fi
	run_one "$t" &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n
	count $?
	running=$((running - 1))
done
echo "$pass passed, $skipped skipped, $failed failed"
if [ "$skipped" -gt 0 ] && [ "$ALLOW_SKIP" != 1 ]; then
	echo "run.sh: $skipped test(s) skipped; ALLOW_SKIP=1 accepts that" >&2
	exit 1
fi
[ "$failed" = 0 ] && [ "$pass" -gt 0 ]
