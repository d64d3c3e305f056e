#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode, local flows: a pod process connecting to a forwarded
# port on the pod's loopback (-t PORT) reaches the namespace's server on
# the namespace's loopback, socket to socket (splice), as with pasta; and a
# namespace process connecting to its loopback on a -T port reaches the
# pod's loopback server:
# - servers bound to 127.0.0.1 and ::1 only in the namespace are reached
#   (over the tap they could not be);
# - 256 MiB each way, checksummed, IPv4; 64 MiB each way IPv6;
# - half-close both ways (tests/tcp/halfclose.py);
# - a server killed mid-transfer resets the pod's connection;
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

# local_up() - the pod sends to the namespace's loopback server
# $1: family, $2: loopback address, $3: port, $4: seed, $5: bytes
local_up() {
	local p=$WORK/lup-$1-$4 t0 a=$2 b=$2

	[ "$1" = 6 ] && a="[$2]" && b="[$2]"
	tcp_recv_bg "$NS_GUEST" 90 "TCP$1-LISTEN:$3,bind=$b,reuseaddr" "$p"
	tcp_wait_listen "$NS_GUEST" "$3"
	t0=$(date +%s%N)
	tcp_send "$NS_POD" 90 "TCP$1:$a:$3" "$p" "$4" "$5" ||
		log "sender socat failed: $(tail -2 "$p.err")"
	tcp_recv_end "$p"
	tcp_check "$p" "$(tcp_size_str "$5") $NS_POD -> $NS_GUEST $2 port $3"
	tcp_rate "$NS_POD -> $NS_GUEST $2 port $3 (spliced)" "$5" "$t0" 90
}

# local_down() - the namespace's loopback server sends to the pod
# $1: family, $2: loopback address, $3: port, $4: seed, $5: bytes
local_down() {
	local p=$WORK/ldown-$1-$4 t0 a=$2 spid

	[ "$1" = 6 ] && a="[$2]"
	tcp_send "$NS_GUEST" 90 "TCP$1-LISTEN:$3,bind=$a,reuseaddr" "$p" \
		"$4" "$5" &
	spid=$!
	tcp_wait_listen "$NS_GUEST" "$3"
	t0=$(date +%s%N)
	tcp_recv_bg "$NS_POD" 90 "TCP$1:$a:$3" "$p"
	tcp_recv_end "$p"
	wait "$spid" || log "sender socat failed: $(tail -2 "$p.err")"
	tcp_check "$p" "$(tcp_size_str "$5") $NS_GUEST $2 port $3 -> $NS_POD"
	tcp_rate "$NS_GUEST $2 port $3 -> $NS_POD (spliced)" "$5" "$t0" 90
}

topo_init
topo_peer_pod
ns_start -t 5001-5003 -T 6001,6002 --bpf off

local_up 4 127.0.0.1 5001 1 "$(tcp_size 256M)"
local_down 4 127.0.0.1 5001 2 "$(tcp_size 256M)"
local_up 6 ::1 5001 3 "$(tcp_size 64M)"
local_down 6 ::1 5001 4 "$(tcp_size 64M)"

for mode in client-closes server-closes; do
	ip netns exec "$NS_GUEST" timeout 40 python3 "$HALFCLOSE" server \
		"$mode" 127.0.0.1 5002 $((4 << 20)) >"$WORK/hc-server.out" 2>&1 &
	spid=$!
	tcp_wait_listen "$NS_GUEST" 5002
	out=$(ip netns exec "$NS_POD" timeout 40 python3 "$HALFCLOSE" client \
		"$mode" 127.0.0.1 5002 $((4 << 20)) 2>&1) || {
		kill "$spid" 2>/dev/null
		fail "half-close $mode: $out; $(cat "$WORK/hc-server.out")"
	}
	wait "$spid" || fail "half-close $mode: $(cat "$WORK/hc-server.out")"
	log "ok: half-close $mode, pod -> namespace loopback: $out"
done

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
ip netns exec "$NS_GUEST" timeout 60 socat -u \
	TCP4-LISTEN:5002,bind=127.0.0.1,reuseaddr /dev/null 2>>"$WORK/socat.log" &
srv=$!
topo_pid_add "$srv"
tcp_wait_listen "$NS_GUEST" 5002
in_pod timeout 30 bash -c 'exec 3<>/dev/tcp/127.0.0.1/5002 &&
	head -c 2G /dev/zero >&3' 2>"$WORK/killed.err" &
cpid=$!
sleep 1
srv_socat=$(ip netns pids "$NS_GUEST" | while read -r p; do
	[ "$(readlink "/proc/$p/exe")" = "$(command -v socat)" ] && echo "$p"
done)
[ -n "$srv_socat" ] || fail "no server socat in the namespace"
kill -KILL $srv_socat
t0=$(date +%s)
wait "$cpid"
rc=$?
[ $(( $(date +%s) - t0 )) -lt 10 ] || fail "the pod's client hung after the server was killed"
[ "$rc" != 0 ] && [ "$rc" != 124 ] ||
	fail "the pod's client did not see an error (exit $rc) after the server was killed"
log "ok: server killed mid-transfer: the pod's client got an error ($(tr '\n' ' ' <"$WORK/killed.err"))"

# -T: the namespace's loopback to the pod's loopback
NS_GUEST_SAVED=$NS_GUEST
NS_GUEST=$NS_POD NS_POD=$NS_GUEST_SAVED local_up 4 127.0.0.1 6001 5 "$(tcp_size 64M)"
NS_GUEST=$NS_POD NS_POD=$NS_GUEST_SAVED local_down 4 127.0.0.1 6001 6 "$(tcp_size 64M)"
NS_GUEST=$NS_POD NS_POD=$NS_GUEST_SAVED local_up 6 ::1 6001 7 "$(tcp_size 16M)"
NS_GUEST=$NS_POD NS_POD=$NS_GUEST_SAVED local_down 6 ::1 6001 8 "$(tcp_size 16M)"
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
[ "${n:-0}" -ge 1011 ] || fail "only ${n:-0} connections spliced, 1011 expected"
log "ok: $n local flows spliced"
kill -0 "$BACKEND_PID" 2>/dev/null || fail "netshim died"
