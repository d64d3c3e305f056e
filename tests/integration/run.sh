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
# the netshim binary (default build/netshim).
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
pass=0
skipped=0
failed=0
ALLOW_SKIP=${ALLOW_SKIP:-0}
[ "$BACKEND" = netshim ] || ALLOW_SKIP=1
echo "backend: $BACKEND, logs in $LOGDIR"
for t in "$DIR"/t_*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	selected "$name" || continue
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
		pass=$((pass + 1))
	elif [ "$rc" = 77 ]; then
		echo "SKIP $name (${secs}s): $(sed -n 's/^SKIP: //p' "$log" |
			tail -n 1)"
		skipped=$((skipped + 1))
	else
		[ "$rc" = 124 ] &&
			echo "  timed out after ${t_max:-$TIMEOUT}s" >>"$log"
		echo "FAIL $name (${secs}s, exit $rc, log $log)"
		tail -n 25 "$log" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
done
echo "$pass passed, $skipped skipped, $failed failed"
if [ "$skipped" -gt 0 ] && [ "$ALLOW_SKIP" != 1 ]; then
	echo "run.sh: $skipped test(s) skipped; ALLOW_SKIP=1 accepts that" >&2
	exit 1
fi
[ "$failed" = 0 ] && [ "$pass" -gt 0 ]
