#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode: where a pod process's connection or datagram to a -t or
# -u port on the pod's loopback lands in the namespace, as pasta 2026:
# - by default at the namespace's own address, never its loopback: a
#   server the namespace keeps on 127.0.0.1 or ::1 alone is not reached
#   (it stays private to the namespace), one on any address is, and sees
#   the client at the namespace's address; TCP IPv4 and IPv6, UDP IPv4;
# - with --host-lo-to-ns-lo, at the namespace's loopback: a server on
#   127.0.0.1 or ::1 alone is reached and sees the client at loopback.
# BACKEND=passt runs pasta (PASTA) through the same cases.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

# The server answers each connection or datagram with the address it
# sees the client at; the client prints that, or ERR and why
PEER_PY='
import socket, sys
mode, proto, addr, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
kind = socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM
s = socket.socket(fam, kind)
if mode == "server":
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind((addr, port))
    if kind == socket.SOCK_STREAM:
        s.listen(8)
    while True:
        if kind == socket.SOCK_STREAM:
            c, peer = s.accept()
            c.sendall((peer[0] + "\n").encode())
            c.close()
        else:
            _, peer = s.recvfrom(100)
            s.sendto((peer[0] + "\n").encode(), peer)
s.settimeout(3)
try:
    s.connect((addr, port))
    if kind == socket.SOCK_DGRAM:
        s.send(b"who")
    print(s.recv(100).decode().strip() or "ERR closed")
except OSError as e:
    print("ERR", e)
'

# peer_server() - start the server in the namespace, wait until it is bound
# $1: tcp or udp, $2: bind address, $3: port
peer_server() {
	local _

	ip netns exec "$NS_GUEST" timeout 60 python3 -c "$PEER_PY" server \
		"$1" "$2" "$3" 2>>"$WORK/peer.log" &
	SERVER=$!
	topo_pid_add "$SERVER"
	[ "$1" = tcp ] && { tcp_wait_listen "$NS_GUEST" "$3"; return; }
	for _ in $(seq 50); do
		ip netns exec "$NS_GUEST" ss -Hlun "sport = :$3" | grep -q . &&
			return 0
		sleep 0.1
	done
	fail "server udp $2 port $3 not bound after 5 s"
}

# expect() - the pod's client gets the answer it should
# $1: tcp or udp, $2: the pod's loopback address, $3: port, $4: the answer
# expected (an address, or ERR for none), $5: what is checked
expect() {
	local out

	out=$(ip netns exec "$NS_POD" timeout 10 python3 -c "$PEER_PY" client \
		"$1" "$2" "$3" 2>&1)
	case "$4" in
	ERR)
		[ "${out#ERR}" != "$out" ] ||
			fail "$5: reached, the server saw $out"
		;;
	*)
		[ "$out" = "$4" ] || fail "$5: expected $4, got $out"
		;;
	esac
	kill "$SERVER" 2>/dev/null
	wait "$SERVER" 2>/dev/null
	log "ok: $5: $out"
}

topo_init
topo_peer_pod

ns_start -t 5101 -u 5102
addr4=$(ip -n "$NS_GUEST" -4 -o addr show scope global | awk '{print $4}')
addr6=$(ip -n "$NS_GUEST" -6 -o addr show scope global | awk '{print $4}')
addr4=${addr4%%/*}
addr6=${addr6%%/*}
[ -n "$addr4" ] && [ -n "$addr6" ] ||
	fail "the namespace has no global address: '$addr4' '$addr6'"
log "the namespace's addresses: $addr4 $addr6"

peer_server tcp 127.0.0.1 5101
expect tcp 127.0.0.1 5101 ERR "TCP, server on the namespace's 127.0.0.1 alone"
peer_server tcp 0.0.0.0 5101
expect tcp 127.0.0.1 5101 "$addr4" "TCP, server on 0.0.0.0"
peer_server tcp ::1 5101
expect tcp ::1 5101 ERR "TCP, server on the namespace's ::1 alone"
peer_server tcp :: 5101
expect tcp ::1 5101 "$addr6" "TCP, server on ::"
peer_server udp 127.0.0.1 5102
expect udp 127.0.0.1 5102 ERR "UDP, server on the namespace's 127.0.0.1 alone"
peer_server udp 0.0.0.0 5102
expect udp 127.0.0.1 5102 "$addr4" "UDP, server on 0.0.0.0"
ns_stop

ns_start -t 5101 -u 5102 --host-lo-to-ns-lo
peer_server tcp 127.0.0.1 5101
expect tcp 127.0.0.1 5101 127.0.0.1 "--host-lo-to-ns-lo: TCP, server on 127.0.0.1 alone"
peer_server tcp ::1 5101
expect tcp ::1 5101 ::1 "--host-lo-to-ns-lo: TCP, server on ::1 alone"
peer_server udp 127.0.0.1 5102
expect udp 127.0.0.1 5102 127.0.0.1 "--host-lo-to-ns-lo: UDP, server on 127.0.0.1 alone"
