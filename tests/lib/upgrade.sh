# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Helpers of the tests of upgrades in place (tests/integration/
# t_upgrade_*.sh), sourced after tests/lib/topo.sh and tests/tcp/lib.sh:
# netshim started and upgraded as a launcher does it (in the background,
# then the same command line and --upgrade, whose exit status says if it
# took over), traffic that runs through every upgrade and is checked at
# the end (a TCP stream each way at a steady rate, every byte hashed at
# both ends; a UDP flow, each datagram echoed and its port kept; pings,
# none lost), and what must not grow from one upgrade to the next.

UP_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Bytes a second each TCP stream moves: enough to have data in flight in
# every queue at each upgrade, little enough to leave the cores to it
UP_RATE=${UP_RATE:-4000000}

# up_backend() - start netshim in the background, as a launcher does
# $@: its options, -P "$WORK/backend.pid" among them; the log goes to
#     $WORK/backend.log, where every netshim after it writes too
up_backend() {
	UP_ARGS=("$@")
	chmod 1777 "$WORK"
	log "backend: $NETSHIM ${UP_ARGS[*]}"
	ip netns exec "$NS_POD" "$NETSHIM" "${UP_ARGS[@]}" \
		-l "$WORK/backend.log" >>"$WORK/backend.out" 2>&1 ||
		fail "netshim did not start: $(tail -5 "$WORK/backend.out")"
	BACKEND_PID=$(cat "$WORK/backend.pid")
	topo_pid_add "$BACKEND_PID"
	export BACKEND_PID
}

# up_upgrade() - one upgrade in place: the same command line, --upgrade;
# once it returns 0 the old process must be gone and the new one serve
# $1: which one, for messages
up_upgrade() {
	local old=$BACKEND_PID out

	out=$(ip netns exec "$NS_POD" "$NETSHIM" "${UP_ARGS[@]}" \
		-l "$WORK/backend.log" --upgrade 2>&1) ||
		fail "upgrade $1: netshim --upgrade failed: $out"
	BACKEND_PID=$(cat "$WORK/backend.pid")
	topo_pid_add "$BACKEND_PID"
	[ "$BACKEND_PID" != "$old" ] ||
		fail "upgrade $1: the PID file still names process $old"
	topo_alive "$BACKEND_PID" ||
		fail "upgrade $1: the new netshim ($BACKEND_PID) is not running"
	up_wait_gone "$old" ||
		fail "upgrade $1: the old netshim ($old) still runs"
}

# up_wait_gone() - wait for a netshim to end, reaped or not
# $1: its PID
# Return: 0 once it is gone, 1 if it still runs after 5 s
up_wait_gone() {
	local _

	for _ in $(seq 500); do
		topo_alive "$1" || return 0
		sleep 0.01
	done
	return 1
}

# up_refused() - an upgrade that must not happen: the new process exits 1
# with a message saying why, and the old one serves on
# $1: what, for messages; $2: pattern the message must match;
# $3: "+" to add the options that follow to the old one's command line,
#     "=" for the options that follow alone;
# $4...: options of the new process (--upgrade comes last)
up_refused() {
	local what=$1 pattern=$2 out rc args=()

	[ "$3" = + ] && args=("${UP_ARGS[@]}")
	shift 3
	out=$(ip netns exec "$NS_POD" "$NETSHIM" "${args[@]}" "$@" \
		-e -l "$WORK/refused.log" --upgrade 2>&1)
	rc=$?
	[ "$rc" = 1 ] || fail "$what: netshim --upgrade exited $rc: $out"
	grep -q -- "$pattern" <<<"$out" ||
		grep -q -- "$pattern" "$WORK/refused.log" ||
		fail "$what: no '$pattern' in: $out $(tail -3 "$WORK/refused.log")"
	topo_alive "$BACKEND_PID" ||
		fail "$what: the old netshim ($BACKEND_PID) is gone"
	[ "$(cat "$WORK/backend.pid")" = "$BACKEND_PID" ] ||
		fail "$what: the PID file names $(cat "$WORK/backend.pid")"
	log "ok: $what: refused ($(grep -o -- "$pattern.*" "$WORK/refused.log" |
		tail -1)), process $BACKEND_PID serves on"
}

# up_traffic_start() - traffic from the guest that runs through every
# upgrade until up_traffic_stop: a TCP stream each way (the guest sends on
# one connection, receives on another, both opened by the guest), a UDP
# flow, pings
# $1: guest namespace, $2: the peer's address
up_traffic_start() {
	local ns=$1 a=$2 tcp=$UP_LIB_DIR/tcp/steady.py
	local udp=$UP_LIB_DIR/udp/steady.py

	rm -f "$WORK/up-stop"
	ip netns exec "$NS_PEER" timeout 900 python3 "$tcp" recv listen "$a" \
		5101 900 >"$WORK/up-tcp1.recv" 2>>"$WORK/up.err" &
	topo_pid_add $!
	tcp_wait_listen "$NS_PEER" 5101
	ip netns exec "$ns" timeout 900 python3 "$tcp" send connect "$a" \
		5101 1 "$UP_RATE" "$WORK/up-stop" 900 \
		>"$WORK/up-tcp1.sent" 2>>"$WORK/up.err" &
	topo_pid_add $!
	ip netns exec "$NS_PEER" timeout 900 python3 "$tcp" send listen "$a" \
		5102 2 "$UP_RATE" "$WORK/up-stop" 900 \
		>"$WORK/up-tcp2.sent" 2>>"$WORK/up.err" &
	topo_pid_add $!
	tcp_wait_listen "$NS_PEER" 5102
	ip netns exec "$ns" timeout 900 python3 "$tcp" recv connect "$a" \
		5102 900 >"$WORK/up-tcp2.recv" 2>>"$WORK/up.err" &
	topo_pid_add $!
	ip netns exec "$NS_PEER" timeout 900 python3 "$udp" server "$a" 5103 \
		900 2>>"$WORK/up.err" &
	topo_pid_add $!
	for _ in $(seq 50); do
		ip netns exec "$NS_PEER" ss -Hlun "sport = :5103" | grep -q . &&
			break
		sleep 0.1
	done
	ip netns exec "$ns" timeout 900 python3 "$udp" client "$a" 5103 \
		"$WORK/up-stop" 900 >"$WORK/up-udp.out" 2>>"$WORK/up.err" &
	topo_pid_add $!
	ip netns exec "$ns" ping -i 0.1 "$a" >"$WORK/up-ping.out" 2>&1 &
	UP_PING=$!
	topo_pid_add "$UP_PING"
	# Under way: bytes both ways before the first upgrade
	sleep 1
}

# up_ping_stop() - stop the pings right after a reply: one sent and not
# answered yet would count as lost
up_ping_stop() {
	local n _

	n=$(wc -l <"$WORK/up-ping.out")
	for _ in $(seq 100); do
		[ "$(wc -l <"$WORK/up-ping.out")" -gt "$n" ] && break
		sleep 0.005
	done
	kill -INT "$UP_PING"
}

# up_traffic_stop() - end the traffic, and check every byte of it: both
# streams whole and unchanged, every datagram echoed from the one port,
# every ping answered
up_traffic_stop() {
	local f s r _

	touch "$WORK/up-stop"
	up_ping_stop
	# What is in flight arrives within a second; a loaded machine may
	# take longer to let the readers run
	for _ in $(seq 300); do
		[ -s "$WORK/up-tcp1.recv" ] && [ -s "$WORK/up-tcp2.recv" ] &&
			[ -s "$WORK/up-tcp1.sent" ] &&
			[ -s "$WORK/up-tcp2.sent" ] && [ -s "$WORK/up-udp.out" ] &&
			grep -q 'packet loss' "$WORK/up-ping.out" && break
		sleep 0.1
	done
	for f in up-tcp1 up-tcp2; do
		s=$(cat "$WORK/$f.sent")
		r=$(cat "$WORK/$f.recv")
		[ -n "$s" ] && [ "$s" = "$r" ] || {
			up_sockets
			fail "TCP stream $f: sent '$s', received '$r' (bytes sha256):" \
				"$(tail -3 "$WORK/up.err")"
		}
		log "ok: TCP stream $f: $(numfmt --to=iec "${s%% *}")B, every" \
			"byte as sent"
	done
	grep -q 'datagrams echoed, all seen from' "$WORK/up-udp.out" ||
		fail "UDP flow: $(cat "$WORK/up-udp.out") $(tail -3 "$WORK/up.err")"
	log "ok: UDP flow: $(cat "$WORK/up-udp.out")"
	grep -q ' 0% packet loss' "$WORK/up-ping.out" ||
		fail "pings lost: $(grep 'packet loss' "$WORK/up-ping.out")"
	log "ok: pings: $(grep 'packet loss' "$WORK/up-ping.out")"
}

# up_sockets() - the TCP sockets of the guest, the pod and the peer, and
# netshim's counters, on stderr: what a transfer that did not end left
up_sockets() {
	local ns

	for ns in "$NS_GUEST" "$NS_POD" "$NS_PEER"; do
		echo "--- TCP sockets in $ns" >&2
		ip netns exec "$ns" ss -tnio 2>&1 | head -n 40 >&2
	done
	echo "--- netshim's counters" >&2
	topo_counters 2>/dev/null | grep -v ' 0  ' >&2
}

# up_fds() - descriptors of the serving netshim
up_fds() {
	find "/proc/$BACKEND_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

# up_rss() - its resident set (VmRSS), kB
up_rss() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$BACKEND_PID/status"
}

# up_rounds() - upgrades in a row, descriptors and resident memory of the
# serving netshim compared after the first and after the last: every
# process serves the same sockets, and none carries more than the one
# before it
# $1: how many
up_rounds() {
	local i fds0 rss0 fds rss t0

	t0=$(date +%s%N)
	for i in $(seq "$1"); do
		# Each at another point of the traffic
		sleep 0.1
		up_upgrade "$i of $1"
		if [ "$i" = 1 ]; then
			sleep 0.2
			fds0=$(up_fds)
			rss0=$(up_rss)
		fi
	done
	sleep 0.2
	fds=$(up_fds)
	rss=$(up_rss)
	log "ok: $1 upgrades in $(( ($(date +%s%N) - t0) / 1000000 )) ms;" \
		"after the first: $fds0 descriptors, $rss0 kB resident; after" \
		"the last: $fds descriptors, $rss kB"
	[ "$fds" = "$fds0" ] ||
		fail "descriptors: $fds0 after the first upgrade, $fds after the last"
	# Resident memory is the pages the loop touched since it started:
	# the same work, the same pages, give or take a buffer's worth
	[ "$rss" -le $((rss0 + rss0 / 4 + 1024)) ] ||
		fail "resident memory: $rss0 kB after the first upgrade, $rss kB after the last"
}

# up_pause_max() - the longest pause of the upgrades so far, from the
# netshims' own accounts ("taken after N us"), in microseconds
up_pause_max() {
	sed -n 's/.*handed over to process .* taken after \([0-9]*\) us.*/\1/p' \
		"$WORK/backend.log" | sort -n | tail -1
}

# up_local_start() - local flows of namespace mode that run through every
# upgrade until up_local_stop: a TCP stream from the served namespace to
# the pod's loopback (-T), one from the pod's loopback to the namespace
# (-t, spliced: its client is local), a UDP flow from the namespace to the
# pod's loopback (-U)
# $1: the served namespace, $2: -T port, $3: -t port, $4: -U port
up_local_start() {
	local ns=$1 tcp=$UP_LIB_DIR/tcp/steady.py udp=$UP_LIB_DIR/udp/steady.py

	rm -f "$WORK/up-stop"
	ip netns exec "$NS_POD" timeout 900 python3 "$tcp" recv listen \
		127.0.0.1 "$2" 900 >"$WORK/up-local1.recv" 2>>"$WORK/up.err" &
	topo_pid_add $!
	tcp_wait_listen "$NS_POD" "$2"
	ip netns exec "$ns" timeout 900 python3 "$tcp" send connect \
		127.0.0.1 "$2" 3 "$UP_RATE" "$WORK/up-stop" 900 \
		>"$WORK/up-local1.sent" 2>>"$WORK/up.err" &
	topo_pid_add $!
	ip netns exec "$ns" timeout 900 python3 "$tcp" recv listen 0.0.0.0 \
		"$3" 900 >"$WORK/up-local2.recv" 2>>"$WORK/up.err" &
	topo_pid_add $!
	tcp_wait_listen "$ns" "$3"
	ip netns exec "$NS_POD" timeout 900 python3 "$tcp" send connect \
		127.0.0.1 "$3" 4 "$UP_RATE" "$WORK/up-stop" 900 \
		>"$WORK/up-local2.sent" 2>>"$WORK/up.err" &
	topo_pid_add $!
	ip netns exec "$NS_POD" timeout 900 python3 "$udp" server 127.0.0.1 \
		"$4" 900 2>>"$WORK/up.err" &
	topo_pid_add $!
	for _ in $(seq 50); do
		ip netns exec "$NS_POD" ss -Hlun "sport = :$4" | grep -q . &&
			break
		sleep 0.1
	done
	ip netns exec "$ns" timeout 900 python3 "$udp" client 127.0.0.1 \
		"$4" "$WORK/up-stop" 900 >"$WORK/up-local-udp.out" \
		2>>"$WORK/up.err" &
	topo_pid_add $!
	sleep 1
}

# up_local_stop() - check the local flows of up_local_start, once the
# traffic was told to stop (up_traffic_stop)
up_local_stop() {
	local f s r _

	for _ in $(seq 100); do
		[ -s "$WORK/up-local1.recv" ] && [ -s "$WORK/up-local2.recv" ] &&
			[ -s "$WORK/up-local-udp.out" ] && break
		sleep 0.1
	done
	for f in up-local1 up-local2; do
		s=$(cat "$WORK/$f.sent")
		r=$(cat "$WORK/$f.recv")
		[ -n "$s" ] && [ "$s" = "$r" ] ||
			fail "local TCP flow $f: sent '$s', received '$r':" \
				"$(tail -3 "$WORK/up.err")"
		log "ok: local TCP flow $f: $(numfmt --to=iec "${s%% *}")B," \
			"every byte as sent"
	done
	grep -q 'datagrams echoed, all seen from' "$WORK/up-local-udp.out" ||
		fail "local UDP flow: $(cat "$WORK/up-local-udp.out")"
	log "ok: local UDP flow: $(cat "$WORK/up-local-udp.out")"
}
