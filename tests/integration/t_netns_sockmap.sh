#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# Namespace mode, local flows on the eBPF sockmap fast path, and the same
# cases on splice: every case runs with --bpf require (flows that last move
# to the kernel's sockmap) and then with --bpf off (they stay on splice).
# A pod process connects to the pod's 127.0.0.1:PORT under -t PORT and
# reaches a server on the namespace's loopback (--host-lo-to-ns-lo;
# tests/tcp/duplex.py):
# - 1 GiB each way at once (256 MiB with off), sha256 of each direction compared end to end,
#   each side shutting its write side when done (half-close both ways);
#   and 64 MiB each way the other way round, -T (require only);
# - early: the client sends before the flow moves, the server waits, then
#   speaks first; 200 request/response rounds (the flow moves during
#   them); 8 MiB each way;
# - half-close both ways with a pause (tests/tcp/halfclose.py);
# - a reset mid-transfer reaches the client;
# - a server that stops reading with data queued, then is killed: the
#   client gets an error;
# - 1000 short connections, 200 at a time, each echoed intact (require
#   only: t_netns_splice.sh has them, and half-close, with --bpf off);
# - netshim keeps serving with as many descriptors as before, and its
#   counters say which flows went through the sockmap: the four long ones
#   with require (none of the 1000 short ones), none with off.
# - early again, with netshim waiting 100 ms between the last check of the
#   pair and its move (NETSHIM_TEST_SOCKMAP_DELAY_MS, a test hook of
#   build/netshim-allocguard only), so that requests
#   are queued at the move: they must be pushed through, not wait;
# - --bpf auto (the default): the request/response flow moves, 64 MiB
#   each way at once stays on splice, two such flows at once both move;
# - without CAP_BPF, --bpf auto warns once naming it and splices, --bpf
#   require exits naming it.
# Where the kernel or the privileges do not allow the program, the
# require half is skipped with netshim's own explanation, the off half
# still runs.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

[ "$BACKEND" = netshim ] || skip "netshim only"

DUPLEX=$TCP_DIR/duplex.py
# 1 GiB on the sockmap; splice carries 256 MiB here (and in t_netns_splice)
BIG=${SOCKMAP_BIG:-$((1 << 30))}

# server() - a duplex.py server in the namespace, in the background
# $1: case, $2: port, $3: bytes (bulk)
server() {
	ip netns exec "$NS_GUEST" timeout 90 python3 "$DUPLEX" server "$1" \
		127.0.0.1 "$2" ${3:+"$3"} >"$WORK/srv-$1.out" 2>&1 &
	SRV=$!
	topo_pid_add "$SRV"
	tcp_wait_listen "$NS_GUEST" "$2"
}

# client() - a duplex.py client in the pod; output in $WORK/cli-$1.out
# $1: case, $2: port, $3: bytes (bulk)
client() {
	ip netns exec "$NS_POD" timeout 90 python3 "$DUPLEX" client "$1" \
		127.0.0.1 "$2" ${3:+"$3"} >"$WORK/cli-$1.out" 2>&1
}

# same_data() - tell if what each end of a duplex.py bulk flow sent is what
# the other end received (sha256 and length), both ways
# $1: the client's output, $2: the server's
same_data() {
	[ -n "$(sed -n 's/^sent //p' "$1")" ] &&
	[ "$(sed -n 's/^sent //p' "$1")" = "$(sed -n 's/^recv //p' "$2")" ] &&
	[ "$(sed -n 's/^sent //p' "$2")" = "$(sed -n 's/^recv //p' "$1")" ]
}

# fds() - descriptors netshim holds
fds() {
	ls "/proc/$BACKEND_PID/fd" | wc -l
}

# moved() - flows moved to the sockmap so far
moved() {
	topo_counter tcp_sockmap
}

# expect_moved() - check a case's flow took the path of the mode
# $1: what, $2: the count before it
expect_moved() {
	local now

	now=$(moved)
	if [ "$MODE" = require ]; then
		[ "$now" = $(($2 + 1)) ] ||
			fail "require: $1: the flow did not move to the sockmap ($2 -> $now)"
	else
		[ "$now" = 0 ] || fail "off: $1: $now flows on the sockmap"
	fi
}

# run_mode() - every case under one --bpf mode
# $1: require or off
run_mode() {
	local mode=$1 fd0 fd1 t0 ms n refused misses out m big=$BIG

	MODE=$mode
	[ "$mode" = off ] && big=$((BIG / 4))
	ns_start -t 5001-5006 -T 6001 --bpf "$mode" --host-lo-to-ns-lo
	sleep 0.2
	fd0=$(fds)
	m=$(moved)

	# 1 GiB each way at once
	server bulk 5001 "$big"
	t0=$(date +%s%N)
	client bulk 5001 "$big" || fail "$mode: bulk client: $(cat "$WORK/cli-bulk.out")"
	wait "$SRV" || fail "$mode: bulk server: $(cat "$WORK/srv-bulk.out")"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	same_data "$WORK/cli-bulk.out" "$WORK/srv-bulk.out" ||
		fail "$mode: data differs: $(cat "$WORK/cli-bulk.out" "$WORK/srv-bulk.out")"
	expect_moved "1 GiB each way" "$m"
	log "ok: $mode: $(numfmt --to=iec "$big")B each way at once, sha256 equal, in $ms ms"

	# -T, the other way round: the namespace's loopback to the pod's
	if [ "$mode" = require ]; then
		m=$(moved)
		ip netns exec "$NS_POD" timeout 90 python3 "$DUPLEX" server bulk \
			127.0.0.1 6001 $((64 << 20)) >"$WORK/srv-T.out" 2>&1 &
		SRV=$!
		topo_pid_add "$SRV"
		tcp_wait_listen "$NS_POD" 6001
		ip netns exec "$NS_GUEST" timeout 90 python3 "$DUPLEX" client bulk \
			127.0.0.1 6001 $((64 << 20)) >"$WORK/cli-T.out" 2>&1 ||
			fail "require: -T bulk client: $(cat "$WORK/cli-T.out")"
		wait "$SRV" || fail "require: -T bulk server: $(cat "$WORK/srv-T.out")"
		same_data "$WORK/cli-T.out" "$WORK/srv-T.out" ||
			fail "require: -T data differs: $(cat "$WORK/cli-T.out" "$WORK/srv-T.out")"
		expect_moved "-T, 64 MiB each way" "$m"
		log "ok: require: -T, namespace -> pod loopback, 64 MiB each way, sha256 equal"
	fi

	# The client's bytes before the move, the server speaking first
	m=$(moved)
	server early 5002
	client early 5002 || fail "$mode: early, client: $(cat "$WORK/cli-early.out")"
	wait "$SRV" || fail "$mode: early, server: $(cat "$WORK/srv-early.out")"
	expect_moved "early bytes, server first" "$m"
	log "$mode: $(cat "$WORK/cli-early.out")"

	# Half-close both ways, the other direction going on after a pause
	# (whether these 4 MiB flows move depends on when the end comes);
	# t_netns_splice.sh runs this and the 1000 connections with --bpf off
	for hc in client-closes server-closes; do
		[ "$mode" = off ] && break
		ip netns exec "$NS_GUEST" timeout 40 python3 "$TCP_DIR/halfclose.py" \
			server "$hc" 127.0.0.1 5003 $((4 << 20)) \
			>"$WORK/hc-server.out" 2>&1 &
		SRV=$!
		tcp_wait_listen "$NS_GUEST" 5003
		out=$(ip netns exec "$NS_POD" timeout 40 python3 \
			"$TCP_DIR/halfclose.py" client "$hc" 127.0.0.1 5003 \
			$((4 << 20)) 2>&1) || {
			kill "$SRV" 2>/dev/null
			fail "$mode: half-close $hc: $out; $(cat "$WORK/hc-server.out")"
		}
		wait "$SRV" || fail "$mode: half-close $hc: $(cat "$WORK/hc-server.out")"
		log "ok: $mode: half-close $hc: $out"
	done

	# A reset mid-transfer
	m=$(moved)
	server rst 5004
	t0=$(date +%s%N)
	client rst 5004 || fail "$mode: reset: $(cat "$WORK/cli-rst.out")"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	wait "$SRV"
	grep -q -i "reset\|broken pipe" "$WORK/cli-rst.out" ||
		fail "$mode: reset mid-transfer: $(cat "$WORK/cli-rst.out")"
	expect_moved "reset mid-transfer" "$m"
	log "$mode: $(cat "$WORK/cli-rst.out") ($ms ms)"

	# A server that stops reading with data queued, then is killed
	m=$(moved)
	server stall 5005
	client stall 5005 &
	cpid=$!
	topo_wait_log "$WORK/srv-stall.out" stalled 100 ||
		fail "$mode: the stalling server never stalled"
	sleep 0.5
	pkill -KILL -P "$SRV" python3 2>/dev/null
	kill -KILL "$SRV" 2>/dev/null
	t0=$(date +%s)
	wait "$cpid" || fail "$mode: killed server: $(cat "$WORK/cli-stall.out")"
	[ $(( $(date +%s) - t0 )) -lt 10 ] || fail "$mode: the client hung after the server was killed"
	expect_moved "server killed with data queued" "$m"
	log "$mode: $(cat "$WORK/cli-stall.out")"

	# 1000 short connections: they stay on splice
	m=$(moved)
	if [ "$mode" = require ]; then
		ip netns exec "$NS_GUEST" timeout 120 python3 "$TCP_DIR/many.py" \
			server 127.0.0.1 5006 >"$WORK/many-server.log" 2>&1 &
		topo_pid_add $!
		tcp_wait_listen "$NS_GUEST" 5006
		for round in 1 2 3 4 5; do
			out=$(ip netns exec "$NS_POD" timeout 60 python3 \
				"$TCP_DIR/many.py" client 127.0.0.1 5006 200 4096 30 \
				2>&1) ||
				fail "$mode: round $round of 200 local connections: $out"
		done
		[ "$(moved)" = "$m" ] ||
			fail "$mode: short connections moved to the sockmap ($m -> $(moved))"
		log "ok: $mode: 1000 short local connections, none moved: $out"
	fi

	sleep 0.5
	kill -0 "$BACKEND_PID" 2>/dev/null || fail "$mode: netshim died"
	fd1=$(fds)
	[ "$fd1" -le "$fd0" ] || fail "$mode: netshim holds $fd1 descriptors, $fd0 before"
	log "ok: $mode: netshim holds $fd1 descriptors, as before ($fd0)"

	topo_counters >"$WORK/counters-$mode"
	n=$(sed -n 's/.*netshim: *tcp_sockmap  *\([0-9]*\) .*/\1/p' "$WORK/counters-$mode")
	bytes=$(sed -n 's/.*netshim: *sockmap_bytes  *\([0-9]*\) .*/\1/p' "$WORK/counters-$mode")
	misses=$(sed -n 's/.*netshim: *sockmap_misses  *\([0-9]*\) .*/\1/p' "$WORK/counters-$mode")
	refused=$(sed -n 's/.*netshim: *sockmap_refused  *\([0-9]*\) .*/\1/p' "$WORK/counters-$mode")
	if [ "$mode" = require ]; then
		[ "${bytes:-0}" -ge "$big" ] ||
			fail "require: the sockmap redirected only ${bytes:-0} bytes"
		[ "${misses:-0}" = 0 ] && [ "${refused:-0}" = 0 ] ||
			fail "require: $misses buffers without a peer, $refused flows refused"
		log "ok: require: $n flows on the sockmap, $bytes bytes redirected by the kernel"
	else
		[ "${n:-0}" = 0 ] && [ "${bytes:-0}" = 0 ] ||
			fail "off: ${n:-0} flows and ${bytes:-0} bytes on the sockmap"
		grep -q "sockmap" "$WORK/backend.log" &&
			! grep -q "tcp_sockmap\|sockmap_" "$WORK/backend.log" &&
			fail "off: netshim mentions the sockmap: $(grep sockmap "$WORK/backend.log" | head -2)"
		log "ok: off: no flow on the sockmap, none loaded"
	fi
	cp "$WORK/backend.log" "$WORK/backend-$mode.log"
	ns_stop
}

topo_init
topo_peer_pod

# Can this kernel, with these privileges, load the program?
if ! out=$(ip netns exec "$NS_POD" timeout 10 "$NETSHIM" -f --bpf require \
	-D 203.0.113.1 -t 5009 -- true 2>&1); then
	if echo "$out" | grep -q "cannot load the eBPF sockmap"; then
		# The splice half still runs; the whole is reported as SKIP
		run_mode off
		skip "sockmap half not run: --bpf require: $(echo "$out" |
			grep -o 'cannot load.*')"
	fi
	fail "netshim --bpf require -- true: $out"
fi
# bulk_bg() - one side of a 64 MiB each way duplex.py flow, in the
# background, its pid added to $pids; output in $WORK/SIDE-two-PORT.out
# $1: namespace, $2: server or client, $3: port
bulk_bg() {
	ip netns exec "$1" timeout 90 python3 "$DUPLEX" "$2" bulk 127.0.0.1 \
		"$3" $((64 << 20)) >"$WORK/$2-two-$3.out" 2>&1 &
	pids+=($!)
	topo_pid_add $!
}

# run_auto() - --bpf auto, the default: request/response flows move, a
# lone bulk one stays on splice (where tests/bench/local.sh measured it
# faster), several bulk ones at once move
run_auto() {
	local m port pid pids side

	MODE=auto
	ns_start -t 5001-5006 --host-lo-to-ns-lo
	m=$(moved)
	server bulk 5001 $((64 << 20))
	client bulk 5001 $((64 << 20)) || fail "auto: bulk client: $(cat "$WORK/cli-bulk.out")"
	wait "$SRV" || fail "auto: bulk server: $(cat "$WORK/srv-bulk.out")"
	same_data "$WORK/cli-bulk.out" "$WORK/srv-bulk.out" ||
		fail "auto: bulk data differs"
	[ "$(moved)" = "$m" ] || fail "auto: a bulk flow moved to the sockmap"
	server early 5002
	client early 5002 || fail "auto: early, client: $(cat "$WORK/cli-early.out")"
	wait "$SRV" || fail "auto: early, server: $(cat "$WORK/srv-early.out")"
	[ "$(moved)" = $((m + 1)) ] ||
		fail "auto: the request/response flow did not move to the sockmap"
	log "ok: auto: 64 MiB each way stayed on splice, the request/response flow moved"

	# Two bulk flows at once: splice would run both through netshim's
	# one thread, the kernel's workers redirect them on any CPU.  The
	# four ends connect, then start together (DUPLEX_GO), pacing their
	# first 2 MiB as senders do: 64 MiB takes a few tens of ms, less than
	# a python's start on a busy machine, and a flow moves only at a
	# moment its queues are empty, which two python ends hashing as fast
	# as they can may not leave before they end
	m=$(moved)
	pids=()
	export DUPLEX_GO=$WORK/go
	for port in 5003 5004; do
		bulk_bg "$NS_GUEST" server "$port"
		tcp_wait_listen "$NS_GUEST" "$port"
	done
	for port in 5003 5004; do
		bulk_bg "$NS_POD" client "$port"
	done
	unset DUPLEX_GO
	for port in 5003 5004; do
		for side in client server; do
			topo_wait_log "$WORK/$side-two-$port.out" connected 100 ||
				fail "auto: two bulk flows: $side $port: $(cat "$WORK/$side-two-$port.out")"
		done
	done
	touch "$WORK/go"
	for pid in "${pids[@]}"; do
		wait "$pid" || fail "auto: two bulk flows: a side failed: $(cat "$WORK"/*-two-*.out)"
	done
	for port in 5003 5004; do
		same_data "$WORK/client-two-$port.out" \
			"$WORK/server-two-$port.out" ||
			fail "auto: two bulk flows: port $port data differs"
	done
	[ "$(moved)" = $((m + 2)) ] ||
		fail "auto: two bulk flows at once: $(( $(moved) - m )) moved, 2 expected"
	log "ok: auto: two bulk flows at once (64 MiB each way each) moved to the sockmap, sha256 equal"
	ns_stop
}

# run_race() - bytes that arrive between the last check of a pair and its
# move must not wait for a next segment (that may never come: the client
# waits for the reply to the request that is stuck).  netshim is told to
# wait 100 ms there, so that they do arrive in between: a test hook of
# build/netshim-allocguard (tests/hooks/splice.c), which says so in its
# log; without it the case proves nothing and is left out.
run_race() {
	local m

	MODE=require
	export NETSHIM_TEST_SOCKMAP_DELAY_MS=100
	ns_start -t 5001-5006 --bpf require --host-lo-to-ns-lo
	unset NETSHIM_TEST_SOCKMAP_DELAY_MS
	if ! grep -q "tests only: 100 ms" "$WORK/backend.log"; then
		log "race: left out: $NETSHIM has no test hooks (build/netshim-allocguard has)"
		ns_stop
		return
	fi
	m=$(moved)
	server early 5002
	client early 5002 ||
		fail "race: bytes queued at the move: $(cat "$WORK/cli-early.out")"
	wait "$SRV" || fail "race: early, server: $(cat "$WORK/srv-early.out")"
	expect_moved "bytes queued at the move" "$m"
	log "ok: require: bytes that arrive during the move are not left behind: $(cat "$WORK/cli-early.out")"
	ns_stop
}

run_mode require
run_race
run_mode off
run_auto

# Without CAP_BPF (nor CAP_SYS_ADMIN, which would stand for it): auto says
# once what is missing and goes on splicing, require exits saying it
for mode in auto require; do
	out=$(ip netns exec "$NS_POD" timeout 10 setpriv \
		--bounding-set -bpf,-sys_admin "$NETSHIM" -f --bpf "$mode" \
		-D 203.0.113.1 -t 5009 -- true 2>&1)
	rc=$?
	n=$(echo "$out" | grep -c "lacks CAP_BPF")
	if [ "$mode" = auto ]; then
		[ "$rc" = 0 ] && [ "$n" = 1 ] &&
			echo "$out" | grep -q "splicing local flows instead" ||
			fail "auto without CAP_BPF (exit $rc): $out"
	else
		[ "$rc" = 1 ] && [ "$n" = 1 ] ||
			fail "require without CAP_BPF (exit $rc): $out"
	fi
	log "ok: --bpf $mode without CAP_BPF: exit $rc, $(echo "$out" | grep "lacks CAP_BPF" | sed 's/^[0-9.]* netshim: //')"
done
