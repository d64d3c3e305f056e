#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Forwarding changed at run time in namespace mode, as pasta's users do
# with pesto: netshim -c PATH -t 2222 -T 6000 -U 6001 -- sleep, driven by
# pesto (passt 2026's, where it can be built: tests/ctl/pesto.sh) and by
# netshim-ctl, the same steps with each:
# - both list HOST (-t, -u) and SPLICE (-T, -U: "[*]%lo", as pasta
#   lists its own) as given;
# - a -T port added: the namespace's 127.0.0.1 and ::1 reach the pod's
#   loopback server at once; deleted: refused again;
# - a -U port added: a datagram to the namespace's loopback is echoed by
#   the pod's loopback server;
# - "auto" for a range of -t (pesto's 8000-8010,auto; netshim-ctl's -t
#   auto beside -t 2222): a server that starts listening in the
#   namespace on 8005 is reached from the peer within a few seconds,
#   one on 8020 only where the rule covers it;
# - a port "auto" follows keeps its socket (inode) while other rules
#   change, and so do 2222's and the -T port that stays;
# - -T auto set through the control socket: a server on the pod's
#   loopback becomes reachable on the namespace's;
# - a -T rule with a target address, and auto to other ports, are
#   refused with the reason, the rules left as they were.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/ctl/lib.sh
. "$(dirname "$0")/../ctl/lib.sh"

[ "$BACKEND" = netshim ] || skip "netshim's control socket (pasta is run by hand: see the report)"

# reach_within() - a connection to a port is echoed within a time
# $1: namespace, $2: address, $3: port, $4: seconds
reach_within() {
	local t0=$SECONDS

	while [ $((SECONDS - t0)) -le "$4" ]; do
		ip netns exec "$1" timeout 5 python3 "$TCP_DIR/many.py" client \
			"$2" "$3" 1 1024 3 >/dev/null 2>&1 && {
			log "ok: $1 -> $2 port $3 within $((SECONDS - t0)) s"
			return 0
		}
		sleep 0.2
	done
	fail "$1 -> $2 port $3 not reached within $4 s"
}

topo_init
topo_peer_pod
CTL_SOCK=$WORK/ctl.sock
ctl_clients
ns_start -c "$CTL_SOCK" -t 2222 -T 6000 -U 6001
ns_wait_addr "$NS_GUEST"

tcp_many_server "$NS_GUEST" "" 2222
for p in 6000 6100 6400; do
	tcp_many_server "$NS_POD" "" "$p"
done
ctl_udp_echo "$NS_POD" 6001 127.0.0.1
ctl_udp_echo "$NS_POD" 6200 127.0.0.1

BASE=("HOST TCP [*]:2222 => 2222" "SPLICE TCP [*]%lo:6000 => 6000"
      "SPLICE UDP [*]%lo:6001 => 6001")
ctl_expect_rules "${BASE[@]}"
log "ok: both tables listed, SPLICE as pasta lists its own"
ctl_tcp_ok "$NS_PEER" 203.0.113.2 2222
ctl_tcp_ok "$NS_GUEST" 127.0.0.1 6000
ctl_udp_expect "$NS_GUEST" 127.0.0.1 6001 echo
ctl_long_conn "$NS_PEER" 203.0.113.2 2222 long

for c in "${CLIENTS[@]}"; do
	log "=== $c"
	ino_tcp=$(ctl_inode "$NS_POD" -t 2222)
	ino_t=$(ctl_inode "$NS_GUEST" -t 6000)
	[ -n "$ino_tcp" ] && [ -n "$ino_t" ] || fail "no sockets on 2222, 6000"

	ctl_tcp_no "$NS_GUEST" 127.0.0.1 6100
	ctl_ok "$c" add -T 6100
	ctl_tcp_ok "$NS_GUEST" 127.0.0.1 6100
	ctl_tcp_ok "$NS_GUEST" ::1 6100
	ctl_udp_expect "$NS_GUEST" 127.0.0.1 6200 none
	ctl_ok "$c" add -U 6200
	ctl_udp_expect "$NS_GUEST" 127.0.0.1 6200 echo

	# auto for a range: pesto's grammar; netshim-ctl's -t auto beside 2222
	if [ "$c" = pesto ]; then
		ctl_ok "$c" add -t 8000-8010,auto
	else
		ctl_ok "$c" set -t 2222 -t auto -T 6000 -T 6100 -U 6001 -U 6200
	fi
	ip netns exec "$NS_GUEST" timeout 120 python3 "$TCP_DIR/many.py" \
		server "" 8005 >>"$WORK/server.log" 2>&1 &
	s8005=$!
	topo_pid_add $!
	ip netns exec "$NS_GUEST" timeout 120 python3 "$TCP_DIR/many.py" \
		server "" 8020 >>"$WORK/server.log" 2>&1 &
	s8020=$!
	topo_pid_add $!
	tcp_wait_listen "$NS_GUEST" 8005
	tcp_wait_listen "$NS_GUEST" 8020
	reach_within "$NS_PEER" 203.0.113.2 8005 5
	if [ "$c" = pesto ]; then
		sleep 2
		ctl_tcp_no "$NS_PEER" 203.0.113.2 8020
		ctl_expect_rules "${BASE[@]}" "SPLICE TCP [*]%lo:6100 => 6100" \
			"SPLICE UDP [*]%lo:6200 => 6200" \
			"HOST TCP [*]:8000-8010 => 8000-8010 (auto-scan)"
	else
		reach_within "$NS_PEER" 203.0.113.2 8020 5
		ctl_expect_rules "${BASE[@]}" "SPLICE TCP [*]%lo:6100 => 6100" \
			"SPLICE UDP [*]%lo:6200 => 6200" \
			"HOST TCP [*]:1-2221 => 1-2221 (best effort) (auto-scan)" \
			"HOST TCP [*]:2223-65535 => 2223-65535 (best effort) (auto-scan)"
	fi
	ino_8005=$(ctl_inode "$NS_POD" -t 8005)

	# Other rules change: what stays keeps its sockets
	ctl_ok "$c" delete -T 6100
	ctl_tcp_no "$NS_GUEST" 127.0.0.1 6100
	ctl_ok "$c" delete -U 6200
	ctl_udp_expect "$NS_GUEST" 127.0.0.1 6200 none
	sleep 1.5
	[ "$(ctl_inode "$NS_POD" -t 8005)" = "$ino_8005" ] ||
		fail "8005, which auto follows, bound again: '$ino_8005'," \
			"'$(ctl_inode "$NS_POD" -t 8005)'"
	[ "$(ctl_inode "$NS_POD" -t 2222)" = "$ino_tcp" ] &&
		[ "$(ctl_inode "$NS_GUEST" -t 6000)" = "$ino_t" ] ||
		fail "2222 or -T 6000 bound again"
	log "ok: the sockets of 2222, -T 6000 and followed 8005 kept"
	ctl_tcp_ok "$NS_PEER" 203.0.113.2 8005
	ctl_tcp_ok "$NS_GUEST" 127.0.0.1 6000

	# -T auto, through the control socket
	ctl_tcp_no "$NS_GUEST" 127.0.0.1 6400
	ctl_ok "$c" set -t 2222 -T auto -U 6001
	reach_within "$NS_GUEST" 127.0.0.1 6400 5
	ctl_tcp_ok "$NS_GUEST" 127.0.0.1 6000

	# Refused, with the reason: what netshim cannot serve
	if [ "$c" = netshim-ctl ]; then
		out=$(ctl "$c" add -T 6500:203.0.113.9 2>&1) &&
			fail "a -T target address accepted: $out"
		log "ok: -T with a target address refused: $out"
	else
		why="auto forwards each port to the same port"
		ctl "$c" add -t 7000-7010:8000-8010,auto >/dev/null 2>&1
		topo_wait_log "$WORK/backend.log" "$why" 20 ||
			fail "no reason logged for auto to other ports"
		log "ok: pesto's auto to other ports refused, the log says why"
	fi
	ctl_expect_rules "HOST TCP [*]:2222 => 2222" \
		"SPLICE UDP [*]%lo:6001 => 6001" "$(ctl_rules netshim-ctl |
		grep 'SPLICE TCP .*1-\(32767\|65535\)')" \
		"$(ctl_rules netshim-ctl | grep 'SPLICE TCP .*61000')"

	kill "$s8005" "$s8020" 2>/dev/null
	wait "$s8005" "$s8020" 2>/dev/null
	ctl_ok netshim-ctl set -t 2222 -T 6000 -U 6001
	ctl_expect_rules "${BASE[@]}"
	tcp_wait_listen "$NS_GUEST" 2222
done

ctl_long_conn_check long
kill -0 "$BACKEND_PID" || fail "netshim exited"
