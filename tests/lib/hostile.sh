# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Helpers of the hostile-guest tests (t_hostile.sh, t_netns_hostile.sh),
# sourced after tests/lib/topo.sh: the services tests/hostile/cases.py
# aims at.

# peer_servers() - the peer's TCP services used by the hostile cases
peer_servers() {
	ip netns exec "$NS_PEER" timeout 600 socat \
		TCP4-LISTEN:9000,bind=203.0.113.1,fork,reuseaddr \
		OPEN:/dev/zero,rdonly >>"$WORK/socat.log" 2>&1 &
	topo_pid_add $!
	ip netns exec "$NS_PEER" timeout 600 socat \
		TCP4-LISTEN:9001,bind=203.0.113.1,fork,reuseaddr PIPE \
		>>"$WORK/socat.log" 2>&1 &
	topo_pid_add $!
	# Listens and never accepts: a SYN flood fills its backlog only
	ip netns exec "$NS_PEER" timeout 600 python3 -c '
import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("203.0.113.1", 9002))
s.listen(4096)
time.sleep(600)' >>"$WORK/socat.log" 2>&1 &
	topo_pid_add $!
	# The pod's loopback-only services, which the guest must not reach
	for a in TCP4-LISTEN:9999,bind=127.0.0.1 'TCP6-LISTEN:9999,bind=[::1]'; do
		ip netns exec "$NS_POD" timeout 600 socat "$a,fork,reuseaddr" \
			SYSTEM:"echo pod-loopback" >>"$WORK/socat.log" 2>&1 &
		topo_pid_add $!
	done
	for a in UDP4-RECV:9999,bind=127.0.0.1 'UDP6-RECV:9999,bind=[::1]'; do
		ip netns exec "$NS_POD" timeout 600 socat -u "$a" \
			"OPEN:$WORK/pod-lo-udp,creat,append" \
			>>"$WORK/socat.log" 2>&1 &
		topo_pid_add $!
	done
	wait_listen "$NS_POD" 9999
	wait_listen "$NS_PEER" 9000
	wait_listen "$NS_PEER" 9001
	wait_listen "$NS_PEER" 9002
}

# wait_listen() - wait for a TCP listener
# $1: namespace, $2: port
wait_listen() {
	local _

	for _ in $(seq 50); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	fail "nothing listens on port $2 in $1"
}
