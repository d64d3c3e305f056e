#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The guest's IPv6 router is a link-local address (fe80::1 here, the
# pod's gateway's, that its default route points at).  What the guest's
# connections to it meet, beside passt's:
# - by default the gateway is a router (passt's --no-map-gw): TCP reaches
#   the pod's gateway itself on the pod's link, a server there answers and
#   a closed port refuses;
# - with --map-gw (passt's default) the gateway stands for the pod: TCP
#   and UDP reach servers on the pod's ::1, a closed port refuses;
# - where the pod's gateway is a global address, the router the guest is
#   given is netshim's own link-local address: a connect to it is
#   refused at once, TCP and UDP.
# Never a silence until the guest's timeout.
# Run it through passt with BACKEND=passt (PASST= a 2026 build).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

topo_init
topo_peer_pod

# A server answering its own name and the peer's address, TCP and UDP
cat >"$WORK/server.py" <<'EOF'
import socket, sys, threading
name, addr, scope = sys.argv[1], sys.argv[2], sys.argv[3]
where = (addr, 8080, 0, socket.if_nametoindex(scope) if scope != "-" else 0)
t = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(where)
t.listen(8)
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.bind(where)
def udp():
    while True:
        d, a = u.recvfrom(100)
        u.sendto(name.encode(), a)
threading.Thread(target=udp, daemon=True).start()
while True:
    c, a = t.accept()
    c.sendall(name.encode())
    c.close()
EOF
ip netns exec "$NS_POD" python3 "$WORK/server.py" pod ::1 - &
topo_pid_add $!
ip netns exec "$NS_PEER" python3 "$WORK/server.py" router fe80::1 peer0 &
topo_pid_add $!
for _ in $(seq 50); do
	in_pod ss -Htln 'sport = :8080' | grep -q . &&
		in_peer ss -Htln 'sport = :8080' | grep -q . && break
	sleep 0.1
done

# probe() - what a guest application gets from its router's address
# $1: tcp or udp, $2: port
# Prints what the server said, "refused" or "timeout"
probe() {
	local gw

	gw=$(in_guest ip -6 route show default | awk '{ print $3; exit }')
	in_guest timeout 10 python3 - "$gw" "$@" <<-'EOF'
	import socket, sys
	gw, proto, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
	kind = socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM
	s = socket.socket(socket.AF_INET6, kind)
	s.settimeout(3)
	try:
	    s.connect((gw, port, 0, socket.if_nametoindex("tap0")))
	    if kind == socket.SOCK_DGRAM:
	        s.send(b"?")
	    print(s.recv(100).decode())
	except ConnectionRefusedError:
	    print("refused")
	except socket.timeout:
	    print("timeout")
	EOF
}

# expect() - fail unless a probe gets what it should
# $1: what, $2: tcp or udp, $3: port, $4: expected answer
expect() {
	local got

	got=$(probe "$2" "$3" 2>&1)
	[ "$got" = "$4" ] || fail "$1: $2 to the router, port $3: '$got', expected '$4'"
	log "ok: $1: $2 port $3: $got"
}

# guest_up() - a guest with its IPv6 router from the advertisement
# $@: backend arguments
guest_up() {
	topo_backend "$@"
	topo_relay_guest
	guest_slaac
	in_guest ip -6 route show default | grep -q 'via fe80::' ||
		fail "no link-local default router: $(in_guest ip -6 route)"
}

# guest_down() - stop the backend and the guest
guest_down() {
	kill "$RELAY_PID" "$BACKEND_PID" 2>/dev/null
	topo_wait_exit "$BACKEND_PID" || fail "$BACKEND did not stop"
	ip netns del "$NS_GUEST"
	rm -f "$WORK/backend.sock"
}

# The gateway a router
guest_up
in_guest ip -6 route show default | grep -q 'via fe80::1 ' ||
	fail "the guest's router is not the pod's fe80::1"
expect "router" tcp 8080 router
expect "router" tcp 8081 refused
guest_down

# The gateway standing for the pod (passt's default: topo.sh gives passt
# --no-map-gw unless TOPO_LOCAL is set)
if [ "$BACKEND" = passt ]; then
	TOPO_LOCAL=1 guest_up
else
	guest_up --map-gw
fi
expect "--map-gw" tcp 8080 pod
expect "--map-gw" udp 8080 pod
expect "--map-gw" tcp 8081 refused
expect "--map-gw" udp 8081 refused
guest_down

# A pod whose gateway is a global address
in_pod ip -6 route replace default via 2001:db8:1::1 dev pod0 ||
	fail "global IPv6 gateway in the pod"
guest_up
expect "global gateway" tcp 8080 refused
expect "global gateway" udp 8080 refused
