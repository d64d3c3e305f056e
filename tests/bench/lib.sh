# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# lib.sh - measuring helpers shared by the benchmarks, sourced after
# tests/lib/topo.sh: a process's CPU time, and one iperf3 run from the
# guest namespace with the back-end's CPU cost of it.

# ticks() - CPU time used so far by a process, user plus system
# $1: pid
# Prints clock ticks (of all its threads); fails when it is gone.
ticks() {
	local stat

	stat=$(cat "/proc/$1/stat") || return 1
	# Fields after the command name (which may hold spaces): utime and
	# stime are the 12th and 13th from the state
	echo "${stat##*) }" | awk '{ print $12 + $13 }'
}

# iperf_run() - one iperf3 run from the guest to iperf3 -s on the peer,
# printed as: label, direction, Gbit/s, the back-end's CPU-s per GiB,
# the sender's TCP retransmissions
# $1: label (a mode or a back-end)
# $2: up, down or udp (peer->guest, iperf3 -u -b 0 -l 1400)
# $3: file to perf record -g the back-end into for the run (empty: none)
# SYSCALLS: a directory to count the back-end's system calls of the run
# into (perf stat, one file per label, direction and round $r)
# SECS: seconds of the run; LABEL_WIDTH: width of the label column;
# BACKEND_PID: the back-end (topo_backend); IPERF_ARGS: more iperf3
# client arguments (-P 2)
iperf_run() {
	local rev=() t0 t1 bytes hz out perf_pid= stat_pid= sc

	case $2 in
	down) rev=(-R) ;;
	udp) rev=(-R -u -b 0 -l 1400) ;;
	esac
	hz=$(getconf CLK_TCK)
	if [ -n "${3:-}" ]; then
		mkdir -p "$(dirname "$3")"
		perf record -q -g -p "$BACKEND_PID" -o "$3" >/dev/null 2>&1 &
		perf_pid=$!
		sleep 0.5
	fi
	if [ -n "${SYSCALLS:-}" ]; then
		mkdir -p "$SYSCALLS"
		sc=raw_syscalls:sys_enter
		for f in epoll_wait epoll_pwait epoll_ctl io_uring_enter read \
			write recvmsg recvmmsg sendmsg sendmmsg recvfrom sendto \
			getsockopt setsockopt ioctl splice; do
			sc=$sc,syscalls:sys_enter_$f
		done
		perf stat -x, -e "$sc" -p "$BACKEND_PID" \
			-o "$SYSCALLS/$1-$2-${r:-1}.txt" >/dev/null 2>&1 &
		stat_pid=$!
		sleep 0.5
	fi
	t0=$(ticks "$BACKEND_PID")
	# shellcheck disable=SC2086 # IPERF_ARGS is a word list
	out=$(in_guest timeout $((SECS + 20)) iperf3 -c 203.0.113.1 \
		-t "$SECS" -J "${rev[@]}" ${IPERF_ARGS:-}) ||
		{ echo "$1 $2 iperf3 failed"; return; }
	t1=$(ticks "$BACKEND_PID")
	for perf_pid in $perf_pid $stat_pid; do
		kill -INT "$perf_pid"
		wait "$perf_pid"
	done
	bytes=$(echo "$out" | python3 -c 'import json,sys
r = json.load(sys.stdin)
if "error" in r:
    sys.exit(r["error"])
print(r["end"]["sum_received"]["bytes"], r["end"]["sum_sent"].get("retransmits", 0))') ||
		{ echo "$1 $2 failed"; return; }
	[ -n "$stat_pid" ] &&
		echo "${bytes% *},bytes moved" >>"$SYSCALLS/$1-$2-${r:-1}.txt"
	awk -v m="$1" -v d="$2" -v b="${bytes% *}" -v s="$SECS" \
	    -v c=$((t1 - t0)) -v hz="$hz" -v w="$LABEL_WIDTH" \
	    -v r="${bytes#* }" 'BEGIN {
	    printf "%-" w "s %-5s %6.2f Gbit/s %6.2f CPU-s/GiB %6d retr\n",
	    m, d, b * 8 / s / 1e9, c / hz / (b / 2^30), r }'
	sleep 0.5
}
