#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode, local flows: a pod process connecting to a forwarded
# port on the pod's loopback (-t PORT) reaches the namespace's server on
# the namespace's loopback, socket to socket (splice), as with pasta; and a
# namespace process connecting to its loopback on a -T port reaches the
# pod's loopback server:
# - servers bound to 127.0.0.1 and ::1 only in the namespace are reached,
#   with --host-lo-to-ns-lo (over the tap they could not be; without the
#   option they are not, as with pasta: t_netns_lo_target.sh);
# - 64 MiB each way, checksummed, IPv4; 16 MiB each way IPv6 (1 GiB each
#   way is t_netns_gib_to_ns.sh and t_netns_gib_to_pod.sh);
# - half-close both ways (tests/tcp/halfclose.py), with -t and with -T;
# - a request written in two pieces is answered without waiting for a
#   delayed ACK (tests/tcp/pieces.py), with -t and with -T: netshim's
#   sockets must not hold the second piece back (Nagle), as pasta's do
#   not;
# - a server killed mid-transfer resets the pod's connection, a client
#   killed mid-transfer ends the server's; netshim goes on serving and its
#   descriptors come back to where they were;
# - 1000 short connections (5 rounds of 200 at once), each echoed intact;
# - -T: 64 MiB each way IPv4, 16 MiB IPv6, checksummed, and nothing
#   listening in the pod resets the namespace's client.
# With --bpf off: these flows stay on splice (t_netns_sockmap.sh runs the
# sockmap fast path and its cases on both paths).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

HALFCLOSE=$TCP_DIR/halfclose.py

[ "$BACKEND" = netshim ] || skip "netshim only: --bpf, netshim's counters"
topo_init
topo_peer_pod
ns_start -t 5001-5003 -T 6001,6002 --bpf off --host-lo-to-ns-lo

# fd_count() - netshim's open descriptors
fd_count() {
	find "/proc/$BACKEND_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

# fd_back() - wait until netshim's descriptors are back to a count
# $1: the count, $2: what happened, for messages
fd_back() {
	local t0

	t0=$(date +%s)
	while [ "$(fd_count)" -gt "$1" ]; do
		[ $(( $(date +%s) - t0 )) -lt 5 ] ||
			fail "$2: netshim holds $(fd_count) descriptors 5 s later, $1 before"
		sleep 0.1
	done
}

# half_close() - tests/tcp/halfclose.py both ways over a local flow
# $1: server namespace, $2: client namespace, $3: port, $4: what
half_close() {
	local mode spid out

	for mode in client-closes server-closes; do
		ip netns exec "$1" timeout 40 python3 "$HALFCLOSE" server \
			"$mode" 127.0.0.1 "$3" $((4 << 20)) \
			>"$WORK/hc-server.out" 2>&1 &
		spid=$!
		tcp_wait_listen "$1" "$3"
		out=$(ip netns exec "$2" timeout 40 python3 "$HALFCLOSE" \
			client "$mode" 127.0.0.1 "$3" $((4 << 20)) 2>&1) || {
			kill "$spid" 2>/dev/null
			fail "half-close $mode, $4: $out; $(cat "$WORK/hc-server.out")"
		}
		wait "$spid" ||
			fail "half-close $mode, $4: $(cat "$WORK/hc-server.out")"
		log "ok: half-close $mode, $4: $out"
	done
}

# socat_in() - the PID of the one socat running in a namespace
# $1: namespace
socat_in() {
	ip netns pids "$1" | while read -r p; do
		[ "$(readlink "/proc/$p/exe")" = "$(command -v socat)" ] &&
			echo "$p"
	done
}

local_up 4 127.0.0.1 5001 1 "$(tcp_size 64M)"
local_down 4 127.0.0.1 5001 2 "$(tcp_size 64M)"
local_up 6 ::1 5001 3 "$(tcp_size 16M)"
local_down 6 ::1 5001 4 "$(tcp_size 16M)"

half_close "$NS_GUEST" "$NS_POD" 5002 "pod -> namespace loopback (-t)"
half_close "$NS_POD" "$NS_GUEST" 6002 "namespace -> pod loopback (-T)"
tcp_pieces "$NS_GUEST" 127.0.0.1 "$NS_POD" 127.0.0.1 5002 \
	"pod -> namespace loopback (-t)"
tcp_pieces "$NS_POD" 127.0.0.1 "$NS_GUEST" 127.0.0.1 6002 \
	"namespace -> pod loopback (-T)"

# 1000 short connections, 200 at a time: the pipe pool is reused
ip netns exec "$NS_GUEST" timeout 120 python3 "$TCP_DIR/many.py" server \
	127.0.0.1 5003 >"$WORK/many-server.log" 2>&1 &
topo_pid_add $!
tcp_wait_listen "$NS_GUEST" 5003
for round in 1 2 3 4 5; do
	out=$(ip netns exec "$NS_POD" timeout 60 python3 "$TCP_DIR/many.py" \
		client 127.0.0.1 5003 200 4096 30 2>&1) ||
		fail "round $round of 200 local connections: $out"
done
log "ok: 1000 local connections, 200 at a time: $out"

# A server killed mid-transfer: the pod's client sees its connection end
# with an error, not hang
fd0=$(fd_count)
ip netns exec "$NS_GUEST" timeout 60 socat -u \
	TCP4-LISTEN:5002,bind=127.0.0.1,reuseaddr /dev/null 2>>"$WORK/socat.log" &
srv=$!
topo_pid_add "$srv"
tcp_wait_listen "$NS_GUEST" 5002
in_pod timeout 30 bash -c 'exec 3<>/dev/tcp/127.0.0.1/5002 &&
	head -c 2G /dev/zero >&3' 2>"$WORK/killed.err" &
cpid=$!
sleep 1
srv_socat=$(socat_in "$NS_GUEST")
[ -n "$srv_socat" ] || fail "no server socat in the namespace"
kill -KILL "$srv_socat"
t0=$(date +%s)
wait "$cpid"
rc=$?
[ $(( $(date +%s) - t0 )) -lt 10 ] || fail "the pod's client hung after the server was killed"
[ "$rc" != 0 ] && [ "$rc" != 124 ] ||
	fail "the pod's client did not see an error (exit $rc) after the server was killed"
log "ok: server killed mid-transfer: the pod's client got an error ($(tr '\n' ' ' <"$WORK/killed.err"))"
fd_back "$fd0" "server killed mid-transfer"

# A client killed mid-transfer: the namespace's server, sending, sees its
# connection end with an error, not hang
ip netns exec "$NS_GUEST" timeout 30 bash -c 'head -c 2G /dev/zero |
	socat -u - TCP4-LISTEN:5002,bind=127.0.0.1,reuseaddr' \
	2>"$WORK/killed2.err" &
spid=$!
tcp_wait_listen "$NS_GUEST" 5002
ip netns exec "$NS_POD" timeout 30 socat -u TCP4:127.0.0.1:5002 /dev/null \
	2>>"$WORK/socat.log" &
sleep 1
cli_socat=$(socat_in "$NS_POD")
[ -n "$cli_socat" ] || fail "no client socat in the pod"
kill -KILL "$cli_socat"
t0=$(date +%s)
wait "$spid"
rc=$?
[ $(( $(date +%s) - t0 )) -lt 10 ] || fail "the namespace's server hung after the client was killed"
[ "$rc" != 0 ] && [ "$rc" != 124 ] ||
	fail "the namespace's server did not see an error (exit $rc) after the client was killed"
log "ok: client killed mid-transfer: the namespace's server got an error ($(tail -1 "$WORK/killed2.err"))"
fd_back "$fd0" "client killed mid-transfer"
log "ok: netshim's descriptors back to $fd0 after both kills"

# netshim goes on serving local flows after the resets
local_up 4 127.0.0.1 5001 9 "$(tcp_size 16M)"

# -T: the namespace's loopback to the pod's loopback
ns_swap
local_up 4 127.0.0.1 6001 5 "$(tcp_size 64M)"
local_down 4 127.0.0.1 6001 6 "$(tcp_size 64M)"
local_up 6 ::1 6001 7 "$(tcp_size 16M)"
local_down 6 ::1 6001 8 "$(tcp_size 16M)"
ns_swap
# (socat and nc take a reset for an end of stream: python tells them apart)
out=$(in_guest timeout 10 python3 -c '
import socket
s = socket.create_connection(("127.0.0.1", 6002))
try:
    print("received %r" % s.recv(16))
except OSError as e:
    print(e)
' 2>&1)
echo "$out" | grep -q -e 'reset' -e 'refused' ||
	fail "-T to a pod port nobody listens on: $out"
log "ok: -T to a pod port nobody listens on: $out"

kill -USR1 "$BACKEND_PID"
sleep 0.3
n=$(awk '$3 == "tcp_spliced" {print $4}' "$WORK/backend.log" | tail -1)
[ "${n:-0}" -ge 1016 ] || fail "only ${n:-0} connections spliced, 1016 expected"
log "ok: $n local flows spliced"
kill -0 "$BACKEND_PID" 2>/dev/null || fail "netshim died"
