#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# -t all and -u all (KubeVirt's default) leave the pod's ephemeral ports
# free, as passt does: bound by forwarding listeners, they would be gone
# for the pod's own outbound connections and for the guest's flows.  The
# pod's range is made 2000-2099 here, so that "all" reaches it within the
# descriptor budget (half the limit); with containerd's default limit of
# 1048576 it reaches the usual 32768-60999 the same way.  With every
# forwarding socket open (--bpf off: one per port, as without
# privileges):
# - a pod process connects out over TCP and UDP (ports 2000-2099);
# - the guest's UDP flow from source port 2050 keeps that port in the pod;
# - a port of the range is not forwarded, one below it is;
# - netshim says what it left out.
# BACKEND=passt runs passt 2026 (PASST=) through it (its listeners are
# given 2 s to open, and what it says is not checked).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/../tcp/lib.sh"

topo_init
topo_peer_pod
in_pod sysctl -qw net.ipv4.ip_local_port_range="2000 2099" ||
	fail "cannot set the pod's ephemeral range"

# Peer: a TCP and a UDP server that answer with the client's port
ip netns exec "$NS_PEER" python3 -c '
import socket, threading
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("203.0.113.1", 5011)); t.listen(8)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("203.0.113.1", 5011))
def udp():
    while True:
        d, a = u.recvfrom(100)
        u.sendto(str(a[1]).encode(), a)
threading.Thread(target=udp, daemon=True).start()
while True:
    s, a = t.accept()
    s.sendall(str(a[1]).encode())
    s.close()
' >"$WORK/peer.log" 2>&1 &
topo_pid_add $!
tcp_wait_listen "$NS_PEER" 5011

# client() - connect from a namespace, print the port the peer saw
# $1: namespace, $2: tcp or udp, $3: local port (0 for any)
client() {
	ip netns exec "$1" timeout 10 python3 - "$2" "$3" <<-'EOF'
	import socket, sys
	kind = socket.SOCK_STREAM if sys.argv[1] == "tcp" else socket.SOCK_DGRAM
	s = socket.socket(socket.AF_INET, kind)
	s.settimeout(5)
	try:
	    if sys.argv[2] != "0":
	        s.bind(("0.0.0.0", int(sys.argv[2])))
	    s.connect(("203.0.113.1", 5011))
	    if kind == socket.SOCK_DGRAM:
	        s.send(b"x")
	    print(s.recv(100).decode())
	except OSError as e:
	    print("error:", e)
	EOF
}

# start() - netshim with a spec of "all", its forwarding sockets open,
# saying what it left out
# $1: -t or -u
start() {
	local what=TCP

	[ "$1" = -u ] && what=UDP
	if [ "$BACKEND" = passt ]; then
		topo_backend "$1" all
		sleep 2
		return
	fi
	topo_backend --bpf off "$1" all
	topo_wait_log "$WORK/backend.log" "forwarding .* $what sockets" 100 ||
		fail "netshim did not open its $what forwarding sockets"
	grep -q "$what ports forwarded: all, except ephemeral 2000-2099" \
		"$WORK/backend.log" ||
		fail "netshim does not say it leaves 2000-2099 out: $(grep \
			forwarded "$WORK/backend.log")"
	log "$(grep 'forwarding .* sockets' "$WORK/backend.log")"
}

# stop() - stop netshim and its guest
stop() {
	kill "$BACKEND_PID" "${RELAY_PID:-}" 2>/dev/null
	wait "$BACKEND_PID" 2>/dev/null
	ip netns del "$NS_GUEST" 2>/dev/null
	RELAY_PID=
}

# pod_out() - a pod process connects out over a protocol
# $1: tcp or udp
pod_out() {
	local port

	port=$(client "$NS_POD" "$1" 0)
	case "$port" in
	20[0-9][0-9]) log "ok: a pod process connects out over $1 (port $port)" ;;
	*) fail "a pod process cannot connect out over $1: $port" ;;
	esac
}

# left_out() - fail unless netshim leaves 2050 to the pod and holds 1999
# $1: -t or -u
left_out() {
	local flag=-Hltn

	[ "$1" = -u ] && flag=-Hlun
	in_pod ss "$flag" "sport = :2050" | grep -q . &&
		fail "netshim holds port 2050 ($1), in the ephemeral range"
	in_pod ss "$flag" "sport = :1999" | grep -q . ||
		fail "netshim does not hold port 1999 ($1), below the range"
	log "ok: $1 all leaves 2000-2099 out, holds 1999"
}

start -u
pod_out udp
left_out -u
topo_relay_guest
guest_dhcp4
port=$(client "$NS_GUEST" udp 2050)
[ "$port" = 2050 ] ||
	fail "the guest's UDP flow from port 2050 left the pod from '$port'"
log "ok: the guest's UDP flow keeps its source port 2050 in the pod"
stop

start -t
pod_out tcp
left_out -t
