#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode, -u auto: a port's listener released while a flow of a
# peer still replies through it.  A peer (from its port 9999) reaches the
# namespace's UDP server on 7000 through the pod's 7000, which -u auto
# follows; the server stops, 7000 is released in the pod, and a server on
# 7001 appears, whose listener may get the released one's descriptor.
# Then the namespace writes from its port 7000 to the peer's 9999: the
# peer must get it from the pod's port 7000, through a flow of its own,
# not from 7001 nor not at all, as it would if the old flow had kept the
# released listener's descriptor (the control socket releases listeners
# the same way: tests/integration/t_ctl_netns.sh).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"

[ "$BACKEND" = netshim ] || skip "a netshim fix"

# udp_server() - a UDP echo server in the namespace, until killed
# $1: port
udp_server() {
	ip netns exec "$NS_GUEST" timeout 60 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", int(sys.argv[1])))
while True:
    d, a = s.recvfrom(2048)
    s.sendto(d, a)
' "$1" >>"$WORK/udp.log" 2>&1 &
	SERVER=$!
	topo_pid_add $SERVER
}

# pod_bound() - wait until the pod has, or has not, a UDP socket on a port
# $1: port, $2: 1 for bound, 0 for not
pod_bound() {
	for _ in $(seq 50); do
		if in_pod ss -Hlun "sport = :$1" | grep -q .; then
			[ "$2" = 1 ] && return 0
		else
			[ "$2" = 0 ] && return 0
		fi
		sleep 0.1
	done
	fail "port $1 in the pod: not $([ "$2" = 1 ] || echo un)bound in 5 s"
}

topo_init
topo_peer_pod
ns_start -u auto
ns_wait_addr "$NS_GUEST"

# The peer, on its port 9999: one datagram to the pod's 7000, its echo,
# then it waits for one more and says where it came from
in_peer timeout 60 python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 9999))
s.settimeout(1)
for _ in range(50):
    s.sendto(b"hello", ("203.0.113.2", 7000))
    try:
        if s.recv(64) == b"hello":
            break
    except OSError:
        pass
else:
    sys.exit("no echo from the pod port 7000")
print("echoed", flush=True)
s.settimeout(20)
try:
    d, a = s.recvfrom(64)
    print("from", a[1], d.decode(), flush=True)
except OSError:
    print("nothing", flush=True)
' >"$WORK/peer.out" 2>&1 &
topo_pid_add $!
udp_server 7000
for _ in $(seq 100); do
	grep -q echoed "$WORK/peer.out" && break
	sleep 0.1
done
grep -q echoed "$WORK/peer.out" || fail "peer: $(cat "$WORK/peer.out")"
log "ok: the peer's datagrams to the pod's 7000 echoed by the namespace"

kill "$SERVER"
pod_bound 7000 0
log "ok: 7000 released in the pod"
udp_server 7001
pod_bound 7001 1
log "ok: 7001 followed in the pod"

ip netns exec "$NS_GUEST" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 7000))
s.sendto(b"late", ("203.0.113.1", 9999))
'
for _ in $(seq 100); do
	grep -q "^from\|^nothing" "$WORK/peer.out" && break
	sleep 0.1
done
grep -q "^from 7000 late" "$WORK/peer.out" ||
	fail "the namespace's datagram from 7000 reached the peer as:" \
		"$(tail -1 "$WORK/peer.out")"
log "ok: it reached the peer from the pod's port 7000"
