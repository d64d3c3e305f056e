#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode, UDP local flows, as pasta's spliced UDP flows:
# - -u: a pod process writing to the pod's 127.0.0.1 or ::1 on a forwarded
#   port reaches a server bound to the namespace's loopback only, with
#   --host-lo-to-ns-lo (over the tap it could not: a loopback source is a
#   martian there; without the option, t_netns_lo_target.sh);
# - -U: a namespace process writing to its own loopback on a -U port
#   reaches a server on the pod's loopback;
# - both ways, both families: 200 flows at once (IPv4), each 20 datagrams
#   of random sizes up to 65000 bytes echoed byte for byte and hashed,
#   every echo on the socket that sent it, from the address and port it
#   was sent to; the server sees loopback, and the client's own port;
# - idle flows end after --udp-timeout: their sockets are gone from the
#   namespace and netshim's descriptors are back to where they were.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"

FLOWS=$(cd "$(dirname "$0")/../udp" && pwd)/flows.py

# udp_server() - an echo server, bound and waited for
# $1: namespace, $2: address, $3: port
udp_server() {
	local _

	ip netns exec "$1" timeout 90 python3 "$FLOWS" server "$2" "$3" 80 \
		>>"$WORK/server.log" 2>&1 &
	topo_pid_add $!
	for _ in $(seq 50); do
		ip netns exec "$1" ss -Hlun "sport = :$3" | grep -qF "$2" &&
			return 0
		sleep 0.1
	done
	fail "UDP server $2 port $3 in $1 not bound"
}

# udp_flows() - many flows from one namespace's loopback, checked
# $1: namespace, $2: address, $3: port, $4: flows, $5: datagrams each, $6: what
udp_flows() {
	local out

	out=$(ip netns exec "$1" timeout 60 python3 "$FLOWS" client "$2" "$3" \
		"$4" "$5" 2>&1) || fail "$6: $out"
	log "ok: $6: $out"
}

# fd_count() - netshim's open descriptors
fd_count() {
	find "/proc/$BACKEND_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

[ "$BACKEND" = netshim ] || skip "netshim only: --udp-timeout, netshim's counters"
topo_init
topo_peer_pod
ns_start -u 5001-5002 -U 6001-6002 --udp-timeout 6 --host-lo-to-ns-lo
fd0=$(fd_count)

# -u: the pod's loopback to the namespace's
udp_server "$NS_GUEST" 127.0.0.1 5001
udp_server "$NS_GUEST" ::1 5001
udp_flows "$NS_POD" 127.0.0.1 5001 200 20 "-u, pod 127.0.0.1 -> namespace 127.0.0.1"
udp_flows "$NS_POD" ::1 5001 50 20 "-u, pod ::1 -> namespace ::1"

# -U: the namespace's loopback to the pod's
udp_server "$NS_POD" 127.0.0.1 6001
udp_server "$NS_POD" ::1 6001
udp_flows "$NS_GUEST" 127.0.0.1 6001 200 20 "-U, namespace 127.0.0.1 -> pod 127.0.0.1"
# The -U flows just used (idle for less than --udp-timeout) hold a socket
fd1=$(fd_count)
[ "$fd1" -gt $((fd0 + 150)) ] ||
	fail "only $((fd1 - fd0)) more descriptors while 200 flows are open"
udp_flows "$NS_GUEST" ::1 6001 50 20 "-U, namespace ::1 -> pod ::1"

# Nobody on the target port: datagrams are dropped, netshim goes on
echo x | in_pod timeout 2 socat -u - UDP4:127.0.0.1:5002 2>/dev/null
echo x | in_guest timeout 2 socat -u - UDP4:127.0.0.1:6002 2>/dev/null
udp_flows "$NS_POD" 127.0.0.1 5001 4 4 "-u again after a datagram to a closed port"

kill -USR1 "$BACKEND_PID"
sleep 0.3
n=$(awk '$3 == "udp_spliced" {print $4}' "$WORK/backend.log" | tail -1)
[ "${n:-0}" -ge 500 ] || fail "only ${n:-0} UDP local flows, 500 expected"
log "ok: $n UDP local flows opened"

# Idle flows end after --udp-timeout 6 (checked once a second)
t0=$(date +%s)
while [ "$(fd_count)" -gt "$fd0" ] ||
      in_guest ss -Hun 'dport = :5001' | grep -q .; do
	[ $(( $(date +%s) - t0 )) -lt 12 ] ||
		fail "flows still open 12 s after the traffic: $(fd_count) descriptors, $fd0 before; $(in_guest ss -Hun 'dport = :5001' | wc -l) sockets in the namespace"
	sleep 0.5
done
kill -USR1 "$BACKEND_PID"
sleep 0.3
last=$(grep 'local flows open:' "$WORK/backend.log" | tail -1)
case "$last" in
*'local flows open: 0 TCP, 0 UDP') ;;
*) fail "netshim still counts local flows: $last" ;;
esac
log "ok: idle flows closed after $(( $(date +%s) - t0 )) s: descriptors $fd0 -> $fd1 -> $(fd_count)"
kill -0 "$BACKEND_PID" 2>/dev/null || fail "netshim died"
