#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Local mode: a pod with no interface but loopback (no address, no
# default route), as passt serves it since 2024-11.  netshim must start
# and give the guest a working link:
# - DHCPv4: 169.254.2.1/16, router 169.254.2.2;
# - the gateway answers ping, and stands for the pod's loopback: a TCP
#   connection to it reaches a server on the pod's 127.0.0.1;
# - inbound forwarding (-t) reaches the guest from the pod;
# - IPv6, as passt's: no address but the guest's link-local one (no
#   prefix to autoconfigure), the gateway fe80::1 answers ping and stands
#   for the pod's ::1 (TCP to [fe80::1%tap0] reaches a server there), and
#   -t from the pod's ::1 reaches the guest;
# - the log says it runs in local mode.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/../tcp/lib.sh"

[ "$BACKEND" = netshim ] ||
	skip "passt is run with --no-map-gw by topo.sh: its gateway would not stand for the pod"

# hello_server() - a TCP server that says who it is, in the background
# $1: namespace, $2: address, $3: port, $4: what it says
hello_server() {
	ip netns exec "$1" timeout 60 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(4)
while True:
    c, _ = s.accept()
    c.sendall(sys.argv[3].encode())
    c.close()
' "$2" "$3" "$4" >>"$WORK/hello.log" 2>&1 &
	topo_pid_add $!
	tcp_wait_listen "$1" "$3"
}

# hello() - what a server says to a client in a namespace
# $1: namespace, $2: address, $3: port
hello() {
	ip netns exec "$1" timeout 10 python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
print(s.recv(100).decode())
' "$2" "$3" 2>&1 | tail -1
}

topo_init
topo_ns_add "$NS_POD"
in_pod sysctl -qw net.ipv4.ping_group_range="0 2147483647" ||
	fail "ping_group_range in pod"
hello_server "$NS_POD" 127.0.0.1 5012 pod
hello_server "$NS_POD" ::1 5014 pod6

topo_backend -t 5013 -t 5015
grep -q 'local mode' "$WORK/backend.log" ||
	fail "netshim does not say it runs in local mode: $(head -5 \
		"$WORK/backend.log")"
topo_relay_guest
guest_dhcp4
v4=$WORK/udhcpc.env
[ "$(topo_env_get "$v4" ip)" = 169.254.2.1 ] &&
	[ "$(topo_env_get "$v4" mask)" = 16 ] &&
	[ "$(topo_env_get "$v4" router)" = 169.254.2.2 ] ||
	fail "DHCPv4 lease: $(cat "$v4")"
log "ok: DHCPv4 in local mode: 169.254.2.1/16, router 169.254.2.2"

out=$(in_guest timeout 10 ping -n -c 2 -W 2 169.254.2.2 2>&1) ||
	fail "the gateway does not answer ping: $out"
log "ok: the gateway answers ping"
[ "$(hello "$NS_GUEST" 169.254.2.2 5012)" = pod ] ||
	fail "the gateway does not lead to the pod's loopback:" \
		"$(hello "$NS_GUEST" 169.254.2.2 5012)"
log "ok: TCP to the gateway reaches the pod's 127.0.0.1"

hello_server "$NS_GUEST" 0.0.0.0 5013 guest
[ "$(hello "$NS_POD" 127.0.0.1 5013)" = guest ] ||
	fail "-t 5013 does not reach the guest: $(hello "$NS_POD" 127.0.0.1 5013)"
log "ok: -t 5013 from the pod reaches the guest"

# IPv6: the guest's link-local address only, fe80::1 for the pod's ::1
topo_wait_dad "$NS_GUEST"
out=$(in_guest timeout 10 ping -6 -n -c 2 -W 2 fe80::1%tap0 2>&1) ||
	fail "fe80::1 does not answer ping: $out"
log "ok: the IPv6 gateway fe80::1 answers ping"
[ "$(hello "$NS_GUEST" fe80::1%tap0 5014)" = pod6 ] ||
	fail "fe80::1 does not lead to the pod's ::1:" \
		"$(hello "$NS_GUEST" fe80::1%tap0 5014)"
log "ok: TCP to [fe80::1%tap0] reaches the pod's ::1"
hello_server "$NS_GUEST" :: 5015 guest6
[ "$(hello "$NS_POD" ::1 5015)" = guest6 ] ||
	fail "-t 5015 from the pod's ::1 does not reach the guest:" \
		"$(hello "$NS_POD" ::1 5015)"
log "ok: -t 5015 from the pod's ::1 reaches the guest's link-local address"
out=$(in_guest ip -6 -o addr show dev tap0 scope global)
[ -z "$out" ] || fail "the guest got a global IPv6 address: $out"
log "ok: no global IPv6 address (no prefix advertised, as passt)"
