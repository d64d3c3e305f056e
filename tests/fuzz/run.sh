#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# netshim - run each libFuzzer target for a bounded time, without a network
#
#   tests/fuzz/run.sh [TARGET...]      (default: every build/fuzz/fuzz_*)
#
# Environment: FUZZ_SECONDS (20) per target, FUZZ_JOBS (2) targets at a
# time, FUZZ_B (build/fuzz) where the binaries are.
#
# Guest frames make netshim open real sockets towards addresses the fuzzer
# invents, so everything runs in a network namespace of its own where every
# interface is down (`unshare -n` as root, a user namespace otherwise):
# each connect() and send() fails there, and nothing leaves the machine.
#
# The committed seeds (tests/fuzz/corpus/TARGET) are only read; what the
# fuzzer learns goes to $FUZZ_B/corpus/TARGET, crashes to
# $FUZZ_B/artifacts/.  One summary line per target; exit status 1 if any
# target crashed or failed.
set -u

cd "$(dirname "$0")/../.." || exit 1
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
FUZZ_JOBS=${FUZZ_JOBS:-2}
FUZZ_B=${FUZZ_B:-build/fuzz}
SEEDS=tests/fuzz/corpus

# isolated - true if no network interface here is up.  Asked through
# netlink: /sys/class/net shows the namespace sysfs was mounted in.
isolated() {
	[ -z "$(ip -o link show up)" ]
}

if ! isolated; then
	if [ -n "${FUZZ_IN_NETNS:-}" ]; then
		echo "run.sh: an interface is up in the new network namespace:" \
		     "not fuzzing" >&2
		exit 1
	fi
	export FUZZ_IN_NETNS=1
	if [ "$(id -u)" = 0 ]; then
		exec unshare -n "$0" "$@"
	fi
	exec unshare -rn "$0" "$@"
fi

# run_one TARGET - fuzz one target, write its log and one summary line
run_one() {
	local t=$1 bin=$FUZZ_B/$1 log=$FUZZ_B/logs/$1.log
	local work=$FUZZ_B/corpus/$1 seeds=$SEEDS/$1 rc

	mkdir -p "$work" "$FUZZ_B/artifacts" "$FUZZ_B/logs"
	[ -d "$seeds" ] || seeds=
	# -close_fd_mask=2: the code under test may print on stderr by
	# design; libFuzzer and the sanitizers keep their own copy of it.
	"$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
		-close_fd_mask=2 -print_final_stats=1 \
		-artifact_prefix="$FUZZ_B/artifacts/$t-" \
		"$work" $seeds >"$log" 2>&1
	rc=$?
	summary "$t" "$log" "$rc" >"$FUZZ_B/logs/$t.summary"
	return $rc
}

# summary TARGET LOG RC - one line: executions, speed, coverage, verdict
summary() {
	local t=$1 log=$2 rc=$3 execs speed cov ft corp verdict art

	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	if [ "$rc" = 0 ]; then
		verdict=ok
	else
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" |
		      tail -1)
		verdict="FAILED (exit $rc${art:+, input in $art}; see $log)"
	fi
	printf '%-14s %10s execs %8s/s  cov %5s  ft %6s  corpus %5s  %s\n' \
		"$t" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" \
		"${corp:-?}" "$verdict"
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for b in "$FUZZ_B"/fuzz_*; do
		[ -x "$b" ] && targets+=("$(basename "$b")")
	done
fi
if [ ${#targets[@]} -eq 0 ]; then
	echo "run.sh: no fuzz targets in $FUZZ_B: run 'make fuzz-build'" >&2
	exit 1
fi

failed=0
running=()
for t in "${targets[@]}"; do
	if [ ${#running[@]} -ge "$FUZZ_JOBS" ]; then
		wait "${running[0]}" || failed=1
		running=("${running[@]:1}")
	fi
	run_one "$t" &
	running+=($!)
done
for p in "${running[@]}"; do
	wait "$p" || failed=1
done

for t in "${targets[@]}"; do
	cat "$FUZZ_B/logs/$t.summary"
done
exit $failed
