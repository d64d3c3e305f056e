#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hostile guest in namespace mode: the cases of tests/hostile/cases.py
# that are about frames (groups l3, tcp, dhcp, synflood; the stream
# framing, zero-window and deaf-VMM groups are about the VMM socket),
# written into netshim's tap from inside the namespace through a packet
# socket.  The namespace's own stack is kept out of the way meanwhile
# (an nftables netdev ingress rule drops what netshim sends it: the
# packet socket still sees every frame, and the kernel does not answer
# the crafted conversations).  After each group: netshim is alive, its
# descriptors within 5 s back to the baseline plus one for each
# connection and flow still open (a guest that stays keeps its flows
# until they time out, not until it leaves), its
# RSS within RSS_SLACK_KB of it,
# nothing reached the pod's loopback; after all, a well-behaved namespace
# (rule removed) pings the peer and moves 8 MiB each way.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/lib/hostile.sh
. "$(dirname "$0")/../lib/hostile.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

CASES=$REPO/tests/hostile/cases.py
RSS_SLACK_KB=2048

# live() - TCP connections and UDP/ICMP flows open now, from SIGUSR1
live() {
	topo_counters 200 | head -1 |
		sed -n 's/.*counters: \([0-9]*\) TCP connections, \([0-9]*\) UDP.*/\1 \2/p'
}

# check() - netshim survived a group: alive, no descriptor or memory leak
# $1: group name
check() {
	local fds rss _

	kill -0 "$BACKEND_PID" 2>/dev/null ||
		fail "$1: netshim died: $(tail -5 "$WORK/backend.log")"
	for _ in $(seq 50); do
		read -r live_tcp live_flows < <(live)
		fds=$(topo_fd_count)
		[ "$fds" -le $((FD_BASE + live_tcp + live_flows)) ] && break
		sleep 0.1
	done
	[ "$fds" -le $((FD_BASE + live_tcp + live_flows)) ] ||
		fail "$1: $fds descriptors open 5 s later, $FD_BASE before, and only $live_tcp connections and $live_flows flows open"
	rss=$(topo_rss_kb)
	[ "$rss" -le $((RSS_BASE + RSS_SLACK_KB)) ] ||
		fail "$1: RSS $rss KiB, baseline $RSS_BASE KiB"
	[ ! -s "$WORK/pod-lo-udp" ] ||
		fail "$1: UDP from the namespace reached the pod's loopback: $(head -c 100 "$WORK/pod-lo-udp")"
	log "ok: $1: alive, $fds fds ($live_tcp connections, $live_flows flows open), RSS $rss KiB (baseline $RSS_BASE)"
}

topo_init
topo_peer_pod
peer_servers
ns_start --max-tcp 256
mac=$(in_guest cat "/sys/class/net/$NS_IF/address")
export HOSTILE_LOG=$WORK/hostile-cases.log

# Warm-up as a well-behaved namespace, then the baseline
tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5201 1 "$(tcp_size 8M)" 30
read -r live_tcp live_flows < <(live)
FD_BASE=$(( $(topo_fd_count) - live_tcp - live_flows ))
RSS_BASE=$(topo_rss_kb)
log "baseline: $FD_BASE fds, RSS $RSS_BASE KiB"

in_guest nft -f - <<NFT || fail "cannot add the ingress drop rule"
table netdev hostile {
	chain in {
		type filter hook ingress device "$NS_IF" priority 0; policy drop;
	}
}
NFT

for group in l3 tcp dhcp synflood; do
	out=$(HOSTILE_GUEST_MAC=$mac ip netns exec "$NS_GUEST" timeout 120 \
		python3 "$CASES" - "tap:$NS_IF" "$group" 2>&1) ||
		fail "hostile group $group: $(echo "$out" | tail -5)"
	log "$(echo "$out" | tail -2 | tr '\n' ' ')"
	check "$group"
done
kill -USR1 "$BACKEND_PID"
sleep 0.3
grep -qE 'tcp_full +[1-9]' "$WORK/backend.log" ||
	fail "SYN flood: tcp_full counter still 0"

in_guest nft delete table netdev hostile
out=$(in_guest timeout 20 busybox ping -c 3 -W 2 203.0.113.1 2>&1) ||
	fail "ping after the hostile groups: $out"
# The flood's half-open connections hold the table until the namespace
# resets their SYN-ACKs or the handshake times out (10 s): a client
# connecting meanwhile is refused, as the flood's RSTs showed
for _ in $(seq 30); do
	read -r live_tcp live_flows < <(live)
	[ "$live_tcp" -lt 256 ] && break
	sleep 0.5
done
[ "$live_tcp" -lt 256 ] ||
	fail "the SYN flood's connections still fill the table 15 s later"
tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5202 2 "$(tcp_size 8M)" 30
tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5203 3 "$(tcp_size 8M)" 30
check "the well-behaved namespace afterwards"
