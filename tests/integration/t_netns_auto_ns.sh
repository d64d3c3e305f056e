#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode, -T auto and -U auto: the namespace's loopback follows
# the pod's listening TCP sockets and bound UDP sockets, as with pasta's
# "-T auto" and "-U auto" (with -t auto on as well, so that each side's
# mirrors are seen by the other side's scan):
# - a server that starts listening on the pod's loopback is reachable
#   from the namespace's loopback within two seconds;
# - the namespace's port is released within two seconds after it stops;
# - a port a namespace process holds is left to it;
# - a UDP server on the pod's loopback answers on the namespace's within
#   two seconds, and its port is released within two seconds;
# - a port netshim itself listens on in the pod for -t auto is not
#   mirrored back into the namespace;
# - a pod process listening on the pod's loopback at a port netshim
#   forwards on another address (-t 203.0.113.2/6400) is mirrored all the
#   same: netshim's own sockets are told by what they are, not by port.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

# send_token() - connect from the namespace to its loopback, send a word
# $1: port, $2: word
send_token() {
	echo "$2" | in_guest timeout 2 socat -u - "TCP4:127.0.0.1:$1" 2>/dev/null
}

topo_init
topo_peer_pod
ns_start -t auto -t 203.0.113.2/6400 -T auto -U auto

# A server appears on the pod's loopback: one connection, then it exits
auto_tcp_poll in_guest 127.0.0.1 6100 "$WORK/got6100" hello
ip netns exec "$NS_POD" timeout 60 socat -u TCP4-LISTEN:6100,bind=127.0.0.1 \
	"OPEN:$WORK/got6100,creat" 2>>"$WORK/socat.log" &
topo_pid_add $!
tcp_wait_listen "$NS_POD" 6100
auto_reached "$(ms)"
auto_within "the pod's port 6100 reachable from the namespace"
log "ok: a new listener on the pod's loopback reachable from the namespace's after $dt ms"
auto_released in_guest -t 6100
auto_within "port 6100 released in the namespace"
log "ok: released in the namespace $dt ms after the pod's server exited"

# A namespace process holds 6101; then the pod listens on 6101 too
ip netns exec "$NS_GUEST" timeout 60 socat -u TCP4-LISTEN:6101,bind=127.0.0.1,fork \
	"OPEN:$WORK/ns6101,creat,append" 2>>"$WORK/socat.log" &
topo_pid_add $!
tcp_wait_listen "$NS_GUEST" 6101
ip netns exec "$NS_POD" timeout 60 socat -u TCP4-LISTEN:6101,fork \
	"OPEN:$WORK/pod6101,creat,append" 2>>"$WORK/socat.log" &
topo_pid_add $!
tcp_wait_listen "$NS_POD" 6101
# Two scans at least, and a port that does follow, to know the scans ran
ip netns exec "$NS_POD" timeout 60 socat -u TCP4-LISTEN:6102 "OPEN:$WORK/got6102,creat" \
	2>>"$WORK/socat.log" &
topo_pid_add $!
tcp_wait_listen "$NS_POD" 6102
auto_tcp_poll in_guest 127.0.0.1 6102 "$WORK/got6102" hi
auto_reached "$(ms)"
sleep 1.1
send_token 6101 mine || fail "the namespace cannot reach its own 6101"
sleep 0.2
[ "$(cat "$WORK/ns6101" 2>/dev/null)" = mine ] ||
	fail "the namespace's port 6101 was taken: namespace server got '$(cat "$WORK/ns6101" 2>/dev/null)', pod '$(cat "$WORK/pod6101" 2>/dev/null)'"
[ ! -s "$WORK/pod6101" ] || fail "the pod got the namespace's 6101 traffic"
log "ok: a port a namespace process holds is left alone"

# UDP: an echo server on the pod's loopback
auto_udp_poll in_guest 127.0.0.1 6200
ip netns exec "$NS_POD" timeout 60 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 6200))
while True:
    d, a = s.recvfrom(2048)
    s.sendto(d, a)
' 2>>"$WORK/udp-server.log" &
usrv=$!
topo_pid_add "$usrv"
until in_pod ss -Hlun 'sport = :6200' | grep -q .; do
	kill -0 "$usrv" 2>/dev/null || fail "the UDP server did not start"
	sleep 0.02
done
auto_reached "$(ms)"
auto_within "the pod's UDP port 6200 answered on the namespace's loopback"
log "ok: a new UDP server on the pod's loopback answers on the namespace's after $dt ms"
kill "$usrv"
auto_released in_guest -u 6200
auto_within "UDP port 6200 released in the namespace"
log "ok: UDP port released in the namespace $dt ms after the pod's server exited"

# -t auto's own listener in the pod is not mirrored back
auto_tcp_poll in_pod 127.0.0.1 6300 "$WORK/got6300" back
ip netns exec "$NS_GUEST" timeout 60 socat -u TCP4-LISTEN:6300,fork \
	"OPEN:$WORK/got6300,creat" 2>>"$WORK/socat.log" &
srv=$!
topo_pid_add "$srv"
tcp_wait_listen "$NS_GUEST" 6300
auto_reached "$(ms)"
sleep 2.1
# Only the server itself (0.0.0.0) is bound there: no ::1 or 127.0.0.1 of
# -T auto's beside it
n=$(in_guest ss -Hltn 'sport = :6300' | wc -l)
[ "$n" = 1 ] ||
	fail "-T auto mirrored -t auto's own port 6300 into the namespace: $(in_guest ss -Hltn 'sport = :6300' | tr '\n' ' ')"
kill "$srv"
t0=$(ms)
while in_pod ss -Hltn 'sport = :6300' | grep -q . ||
      in_guest ss -Hltn 'sport = :6300' | grep -q .; do
	[ $(( $(ms) - t0 )) -lt 5000 ] ||
		fail "port 6300 still bound 5 s after the namespace's server exited: pod: $(in_pod ss -Hltn 'sport = :6300'), namespace: $(in_guest ss -Hltn 'sport = :6300')"
	sleep 0.05
done
log "ok: -t auto's own listener not mirrored back; both sides free $(( $(ms) - t0 )) ms after the server exited"

# A sidecar on the pod's 127.0.0.1:6400, beside netshim's -t listener on
# 203.0.113.2:6400
in_pod ss -Hltn 'sport = :6400' | grep -q '203.0.113.2:6400' ||
	fail "no -t listener on 203.0.113.2:6400: $(in_pod ss -Hltn)"
auto_tcp_poll in_guest 127.0.0.1 6400 "$WORK/got6400" side
ip netns exec "$NS_POD" timeout 60 socat -u TCP4-LISTEN:6400,bind=127.0.0.1 \
	"OPEN:$WORK/got6400,creat" 2>>"$WORK/socat.log" &
topo_pid_add $!
tcp_wait_listen "$NS_POD" 6400
auto_reached "$(ms)"
auto_within "a pod process sharing port 6400 with a -t forward reachable from the namespace"
log "ok: a pod listener sharing its port with netshim's -t listener mirrored after $dt ms"

kill -0 "$BACKEND_PID" 2>/dev/null || fail "netshim died"
