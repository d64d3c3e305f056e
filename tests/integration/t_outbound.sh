#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Outbound sockets as passt's options ask, netshim running as nobody
# without capabilities:
# - -o 203.0.113.3: the peer sees the guest's TCP connections and UDP
#   datagrams come from the pod's second address, not from 203.0.113.2;
# - --outbound-if4 pod0 works unprivileged (SO_BINDTODEVICE on a socket
#   not bound to an interface yet, Linux 5.7 and later), and
#   --outbound-if4 lo really binds: the peer is unreachable through lo;
# - --no-tcp --no-udp --no-icmp: DHCP still answers, the guest's TCP, UDP
#   and pings get nowhere, and the drops are counted;
# and where inbound and gateway traffic goes:
# - -t %pod0/PORT listens on pod0 only: the peer reaches the guest;
#   -t %lo/PORT listens on lo only: the peer is refused;
# - --map-gw: the guest's connection to the gateway reaches a service on
#   the pod's loopback, as with passt's default.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

[ "$BACKEND" = netshim ] || skip "netshim only"

# restart() - a fresh backend with these options, and a fresh relay guest
# $@: backend options
restart() {
	if [ -n "${BACKEND_PID:-}" ]; then
		kill "$RELAY_PID" "$BACKEND_PID" 2>/dev/null
		wait "$RELAY_PID" "$BACKEND_PID" 2>/dev/null
		ip netns del "$NS_GUEST" 2>/dev/null
	fi
	topo_backend -4 "$@"
	topo_relay_guest
	guest_dhcp4
}

# guest_tcp_source() - source address the peer sees for a guest connection
guest_tcp_source() {
	in_guest timeout 5 socat -T 3 - TCP:203.0.113.1:7000,connect-timeout=2 \
		</dev/null 2>/dev/null
}

# guest_udp_source() - source address the peer sees for a guest datagram,
# asked up to three times, as a user's client asks again: with the 3 s
# wait below, one probe in about 67 CI runs still got no answer and
# ended at once (the whole test over in 3.6 s, 2026-11-27), which is
# not yet understood.  Each probe that gets none is logged with what
# tells where the datagram or its answer was lost: the guest's socat's
# error (a refusal is an ICMP error netshim passed on), the peer's, and
# netshim's non-zero UDP, ICMP and drop counters.
guest_udp_source() {
	local got= i

	for i in 1 2 3; do
		got=$(echo x | in_guest timeout 5 socat -t 3 -T 3 - \
			UDP:203.0.113.1:7001 2>"$WORK/udp-probe.err")
		[ -n "$got" ] && break
		log "UDP probe $i: no answer; guest's socat: $(tail -n 2 "$WORK/udp-probe.err")"
		log "  peer's socat: $(tail -n 3 "$WORK/peer-udp.log")"
		topo_counters 100 | awk '/udp|icmp|drop/ && $4 != 0' >&2
		sleep 0.5
	done
	echo "$got"
}

topo_init
topo_peer_pod
ip -n "$NS_POD" addr add 203.0.113.3/24 dev pod0 || fail "second pod address"
# The peer tells each client where it came from
ip netns exec "$NS_PEER" timeout 60 socat TCP-LISTEN:7000,fork,reuseaddr \
	SYSTEM:'echo $SOCAT_PEERADDR' >/dev/null 2>&1 &
topo_pid_add $!
ip netns exec "$NS_PEER" timeout 60 socat -T 1 UDP-RECVFROM:7001,fork \
	SYSTEM:'echo $SOCAT_PEERADDR' >/dev/null 2>"$WORK/peer-udp.log" &
topo_pid_add $!
# Both servers bound: a datagram that came first drew a port unreachable
for _ in $(seq 30); do
	in_peer ss -Htln 'sport = :7000' | grep -q . &&
		in_peer ss -Hlun 'sport = :7001' | grep -q . && break
	sleep 0.1
done

# The guest's socat waits 3 s for the answer after its datagram (-t):
# its default, half a second, is less than a loaded machine may take to
# fork the peer's shell
restart -i pod0 -o 203.0.113.3 --outbound-if4 pod0
got=$(guest_tcp_source)
[ "$got" = 203.0.113.3 ] ||
	fail "-o 203.0.113.3 --outbound-if4 pod0: TCP from '$got'"
got=$(guest_udp_source)
[ "$got" = 203.0.113.3 ] || fail "-o 203.0.113.3: UDP from '$got'"
in_guest timeout 10 busybox ping -c 1 -W 2 203.0.113.1 >/dev/null ||
	fail "-o 203.0.113.3: no ping"
log "ok: -o and --outbound-if4 pod0, unprivileged: TCP, UDP, ping from 203.0.113.3"

restart -i pod0
got=$(guest_tcp_source)
[ "$got" = 203.0.113.2 ] || fail "without -o: TCP from '$got'"
log "ok: without -o the pod's routes choose 203.0.113.2"

restart -i pod0 --outbound-if4 lo
got=$(guest_tcp_source)
[ -z "$got" ] || fail "--outbound-if4 lo: the peer was reached from '$got'"
log "ok: --outbound-if4 lo: sockets bound to lo cannot reach the peer"

restart -i pod0 --no-tcp --no-udp --no-icmp
log "ok: --no-udp: DHCP still answered"
got=$(guest_tcp_source)
[ -z "$got" ] || fail "--no-tcp: TCP reached the peer from '$got'"
got=$(echo x | in_guest timeout 5 socat -t 3 -T 3 - UDP:203.0.113.1:7001 2>/dev/null)
[ -z "$got" ] || fail "--no-udp: UDP reached the peer from '$got'"
in_guest timeout 5 busybox ping -c 1 -W 2 203.0.113.1 >/dev/null &&
	fail "--no-icmp: the ping was answered"
kill -USR1 "$BACKEND_PID"
topo_wait_log "$WORK/backend.log" 'drop_disabled' 20
n=$(sed -n 's/.*drop_disabled *\([0-9]*\).*/\1/p' "$WORK/backend.log" | tail -1)
# a SYN and its retransmission, a datagram, an echo request at least
[ "${n:-0}" -ge 3 ] || fail "--no-tcp/udp/icmp: drop_disabled is '${n:-}'"
log "ok: --no-tcp --no-udp --no-icmp: nothing got through, $n drops counted"

# A service on the pod's loopback, and two in the guest
ip netns exec "$NS_POD" timeout 60 socat TCP-LISTEN:7002,bind=127.0.0.1,reuseaddr \
	SYSTEM:'echo pod-loopback' >/dev/null 2>&1 &
topo_pid_add $!
restart -i pod0 --map-gw -t %pod0/7003 -t %lo/7004
for port in 7003 7004; do
	ip netns exec "$NS_GUEST" timeout 30 socat TCP-LISTEN:$port,reuseaddr \
		SYSTEM:"echo guest-$port" >/dev/null 2>&1 &
	topo_pid_add $!
done
for _ in $(seq 30); do
	[ "$(in_guest ss -Htln | grep -c -e ':7003 ' -e ':7004 ')" = 2 ] && break
	sleep 0.1
done
got=$(in_peer timeout 5 socat -T 3 - TCP:203.0.113.2:7003 </dev/null 2>&1)
[ "$got" = guest-7003 ] || fail "-t %pod0/7003: the peer got '$got'"
got=$(in_peer timeout 5 socat -T 3 - TCP:203.0.113.2:7004 </dev/null 2>/dev/null)
[ -z "$got" ] || fail "-t %lo/7004: the peer reached '$got' through pod0"
log "ok: -t %pod0/PORT reachable from the peer, -t %lo/PORT not"
got=$(in_guest timeout 5 socat -T 3 - TCP:203.0.113.1:7002,connect-timeout=2 \
	</dev/null 2>&1)
[ "$got" = pod-loopback ] || fail "--map-gw: the gateway gave '$got'"
log "ok: --map-gw: the guest reaches the pod's loopback at the gateway address"
