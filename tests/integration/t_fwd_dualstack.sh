#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A forwarded port takes one socket for both families, as passt's (an
# IPv6 socket with IPV6_V6ONLY off), and sockets of one family where the
# command line or the pod asks for one:
# - -t 2000-2999 -u 2000-2999 -t 203.0.113.2/3000 (netshim: --bpf off, one
#   socket per port): the back-end holds 2001 sockets and a few other
#   descriptors (with one socket per port and family it held twice that),
#   and the pod lists ports 2000 of both protocols once, on every address
#   of both families;
# - an IPv4 and an IPv6 client of the peer to the same TCP and UDP ports
#   reach the guest, whose servers listen on separate IPv4 and IPv6
#   sockets (tests/lib/who.py): each sees the peer's address of the
#   client's family, and UDP answers come back from the port written to;
# - netshim: port 2500, which a pod process held on 0.0.0.0 before the
#   back-end started, stays that process's over IPv4 and reaches the guest
#   over IPv6 (passt 2026 exits there: it cannot listen on that port);
# - 203.0.113.2/3000 reaches the guest over IPv4 and is refused over IPv6;
# - with -4, the same ports over IPv4 alone: one socket a port, IPv6
#   refused.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

WHO=$REPO/tests/lib/who.py
PORTS=2000-2999

# who_server() - tests/lib/who.py's server in a namespace, waited for
# $1: namespace, $2: tcp or udp, $3: port
who_server() {
	local _ opt=-Hltn

	[ "$2" = udp ] && opt=-Hlun
	ip netns exec "$1" timeout 120 python3 "$WHO" server "$2" "$3" 110 \
		>>"$WORK/who.log" 2>&1 &
	topo_pid_add $!
	for _ in $(seq 50); do
		[ "$(ip netns exec "$1" ss "$opt" "sport = :$3" | wc -l)" -ge 2 ] &&
			return 0
		sleep 0.1
	done
	fail "who.py $2 server on port $3 in $1 not listening"
}

# who_expect() - what the server answering a client sees: its address
# $1: client namespace, $2: tcp or udp, $3: address, $4: port, $5: the
# address the answer must start with
who_expect() {
	local out

	out=$(ip netns exec "$1" timeout 20 python3 "$WHO" client "$2" "$3" \
		"$4" 2>&1) || fail "$2 to $3 port $4: $out"
	case "$out" in
	"$5 "*) ;;
	*) fail "$2 to $3 port $4: the server saw '$out', not $5" ;;
	esac
	log "ok: $2 to $3 port $4: the server saw $out"
}

# listed() - the pod's sockets of a protocol on a port, as ss lists them
# $1: -Hltn or -Hlun, $2: port
listed() {
	in_pod ss "$1" "sport = :$2" | awk '{ print $4 }' | sort | tr '\n' ' '
}

topo_init
topo_peer_pod
# netshim: a pod process holding TCP port 2500 on IPv4 only, started
# first (passt 2026 exits, not listening on every port asked for)
POD_PID=
if [ "$BACKEND" = netshim ]; then
	ip netns exec "$NS_POD" timeout 120 python3 -c '
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 2500))
s.listen(8)
while True:
    c, _ = s.accept()
    c.sendall(b"pod 2500\n")
    c.close()
' >"$WORK/pod.log" 2>&1 &
	POD_PID=$!
	topo_pid_add "$POD_PID"
	tcp_wait_listen "$NS_POD" 2500
fi

extra=()
[ "$BACKEND" = netshim ] && extra=(--bpf off)
topo_backend -t "$PORTS" -u "$PORTS" -t 203.0.113.2/3000 "${extra[@]}"
topo_relay_guest
guest_dhcp
for p in 2000 2500 2999 3000; do
	who_server "$NS_GUEST" tcp "$p"
done
for p in 2000 2999; do
	who_server "$NS_GUEST" udp "$p"
done

# 1000 TCP ports, 1000 UDP ports and 3000: 2001 sockets (2500 IPv6 only)
n=$(topo_fd_count)
[ "$n" -ge 2001 ] && [ "$n" -le 2101 ] ||
	fail "$n descriptors for 2001 forwarded ports: one socket each wanted"
log "ok: $n descriptors for 2001 forwarded ports"
for opt in -Hltn -Hlun; do
	l=$(listed "$opt" 2000)
	[ "$l" = "*:2000 " ] ||
		fail "ss $opt lists port 2000 as '$l', not once on *"
done
log "ok: port 2000 is listed once a protocol, on * (both families)"

for p in 2000 2999; do
	for proto in tcp udp; do
		who_expect "$NS_PEER" "$proto" 203.0.113.2 "$p" 203.0.113.1
		who_expect "$NS_PEER" "$proto" 2001:db8:1::2 "$p" 2001:db8:1::1
	done
done

if [ "$BACKEND" = netshim ]; then
	who_expect "$NS_PEER" tcp 203.0.113.2 2500 pod
	who_expect "$NS_PEER" tcp 2001:db8:1::2 2500 2001:db8:1::1
fi

who_expect "$NS_PEER" tcp 203.0.113.2 3000 203.0.113.1
tcp_expect "$NS_PEER" 2001:db8:1::2 3000 2000 refused reset closed

# -4: IPv4 sockets alone (port 2500 free again: a port of a range that
# cannot be bound in any family is an error)
kill "$BACKEND_PID" "$RELAY_PID" $POD_PID 2>/dev/null
wait "$BACKEND_PID" "$RELAY_PID" $POD_PID 2>/dev/null
ip netns del "$NS_GUEST"
topo_backend -4 -t "$PORTS" -u "$PORTS" "${extra[@]}"
topo_relay_guest
guest_dhcp4
for p in 2000 2999; do
	who_server "$NS_GUEST" tcp "$p"
	who_server "$NS_GUEST" udp "$p"
done
n=$(topo_fd_count)
[ "$n" -ge 2000 ] && [ "$n" -le 2100 ] ||
	fail "-4: $n descriptors for 2000 forwarded ports: one socket each"
log "ok: -4: $n descriptors"
for opt in -Hltn -Hlun; do
	l=$(listed "$opt" 2000)
	[ "$l" = "0.0.0.0:2000 " ] ||
		fail "-4: ss $opt lists port 2000 as '$l', not on 0.0.0.0"
done
for proto in tcp udp; do
	who_expect "$NS_PEER" "$proto" 203.0.113.2 2999 203.0.113.1
done
tcp_expect "$NS_PEER" 2001:db8:1::2 2000 2000 refused reset closed
log "ok: -4: IPv4 alone"
