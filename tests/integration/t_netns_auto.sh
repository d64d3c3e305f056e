#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode, -t auto and -u auto: the pod's ports follow the
# namespace's listening TCP sockets and bound UDP sockets, as with pasta's
# "-t auto" and "-u auto":
# - a server that starts listening in the namespace is reachable from the
#   pod within two seconds;
# - its port is released in the pod within two seconds after it stops;
# - a port a pod process holds is left to it, and stays its own;
# - a UDP server appearing in the namespace answers at the pod's address
#   within two seconds (asked from the peer), and on the pod's loopback
#   (relayed to the namespace's loopback, as pasta's spliced UDP); its
#   port is released within two seconds after it stops (its local flows
#   with it).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

# send_token() - connect from the pod to a port, send a word
# $1: address, $2: port, $3: word
send_token() {
	echo "$3" | in_pod timeout 2 socat -u - "TCP:$1:$2" 2>/dev/null
}

topo_init
topo_peer_pod
ns_start -t auto -u auto

# A server appears in the namespace: one connection, then it exits
auto_tcp_poll in_pod 127.0.0.1 6000 "$WORK/got6000" hello
ip netns exec "$NS_GUEST" timeout 60 socat -u TCP4-LISTEN:6000 \
	"OPEN:$WORK/got6000,creat" 2>>"$WORK/socat.log" &
topo_pid_add $!
tcp_wait_listen "$NS_GUEST" 6000
auto_reached "$(ms)"
auto_within "port 6000 of the namespace reachable from the pod"
log "ok: a new listener in the namespace reachable from the pod after $dt ms"

# The server has exited: the pod's port must go
auto_released in_pod -t 6000
auto_within "port 6000 released in the pod"
log "ok: released in the pod $dt ms after the server exited"

# A pod process holds 6001; then the namespace listens on 6001 too
ip netns exec "$NS_POD" timeout 60 socat -u TCP4-LISTEN:6001,fork \
	"OPEN:$WORK/pod6001,creat,append" 2>>"$WORK/socat.log" &
topo_pid_add $!
tcp_wait_listen "$NS_POD" 6001
ip netns exec "$NS_GUEST" timeout 60 socat -u TCP4-LISTEN:6001,fork \
	"OPEN:$WORK/ns6001,creat,append" 2>>"$WORK/socat.log" &
topo_pid_add $!
tcp_wait_listen "$NS_GUEST" 6001
# Two scans at least, and a port that does follow, to know the scans ran
ip netns exec "$NS_GUEST" timeout 60 socat -u TCP4-LISTEN:6002 \
	"OPEN:$WORK/got6002,creat" 2>>"$WORK/socat.log" &
topo_pid_add $!
tcp_wait_listen "$NS_GUEST" 6002
auto_tcp_poll in_pod 203.0.113.2 6002 "$WORK/got6002" hi
auto_reached "$(ms)"
sleep 1.1
send_token 127.0.0.1 6001 mine || fail "cannot reach the pod's own 6001"
sleep 0.2
[ "$(cat "$WORK/pod6001" 2>/dev/null)" = mine ] ||
	fail "the pod's port 6001 was taken: pod server got '$(cat "$WORK/pod6001" 2>/dev/null)', namespace '$(cat "$WORK/ns6001" 2>/dev/null)'"
[ ! -s "$WORK/ns6001" ] || fail "the namespace got the pod's 6001 traffic"
log "ok: a port a pod process holds is left alone"

# UDP: an echo server on an unconnected socket, as real UDP services are
auto_udp_poll in_peer 203.0.113.2 7000
ip netns exec "$NS_GUEST" timeout 60 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 7000))
while True:
    d, a = s.recvfrom(2048)
    s.sendto(d, a)
' 2>>"$WORK/udp-server.log" &
usrv=$!
topo_pid_add "$usrv"
until in_guest ss -Hlun 'sport = :7000' | grep -q .; do
	kill -0 "$usrv" 2>/dev/null || fail "the UDP server did not start"
	sleep 0.02
done
auto_reached "$(ms)"
auto_within "UDP port 7000 answered at the pod's address"
log "ok: a new UDP server in the namespace answers at the pod's address after $dt ms"
got=$(in_pod timeout 3 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.sendto(b"lo", ("127.0.0.1", 7000))
print(s.recv(16).decode())
' 2>&1)
[ "$got" = lo ] || fail "UDP port 7000 of the namespace not answering on the pod's loopback: $got"
log "ok: the same server answers on the pod's loopback"
kill "$usrv"
auto_released in_pod -u 7000
auto_within "UDP port 7000 released in the pod"
log "ok: UDP port released in the pod $dt ms after the server exited"

kill -0 "$BACKEND_PID" 2>/dev/null || fail "netshim died"
