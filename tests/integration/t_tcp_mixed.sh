#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Concurrent TCP transfers of different shapes, as a guest really runs
# them, each checked with sha256 on both ends, over IPv4 and then IPv6:
# - 64 MiB through an echo server in the peer, both ways on one
#   connection at the same time;
# - 64 MiB guest -> peer, on its own connection;
# - 64 MiB peer -> guest, on a connection the guest opened.
# Alone, each takes a second or two here: all three must be done in 30 s.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

SIZE=$((64 << 20))
SECS=30

# mixed() - the three transfers at once to one peer address
# $1: family (4 or 6), $2: peer address, $3: first port (three are used)
mixed() {
	local a=$2 p=$WORK/echo-$1 t0 pids=() pid

	[ "$1" = 6 ] && a="[$2]"
	t0=$(date +%s%N)
	tcp_echo "$NS_GUEST" "$SECS" "TCP$1:$a:$3" "$p" 11 "$SIZE" &
	pids+=($!)
	tcp_upload "$NS_GUEST" "$NS_PEER" "$1" "$2" $(($3 + 1)) 12 "$SIZE" \
		"$SECS" &
	pids+=($!)
	tcp_download "$NS_GUEST" "$NS_PEER" "$1" "$2" $(($3 + 2)) 13 \
		"$SIZE" "$SECS" &
	pids+=($!)
	for pid in "${pids[@]}"; do
		wait "$pid" || fail "IPv$1: a concurrent transfer failed"
	done
	tcp_check "$p" "IPv$1: echo of 64 MiB through $2 port $3"
	tcp_rate "IPv$1: echo through $2 port $3, concurrently" "$SIZE" "$t0"
}

topo_init
topo_peer_pod
topo_backend
topo_relay_guest
guest_dhcp

ip netns exec "$NS_PEER" timeout 120 python3 "$TCP_DIR/many.py" server \
	"" 7000 >"$WORK/echo-server.log" 2>&1 &
tcp_wait_listen "$NS_PEER" 7000
mixed 4 203.0.113.1 7000
ip netns exec "$NS_PEER" timeout 120 python3 "$TCP_DIR/many.py" server \
	"" 7010 >"$WORK/echo-server.log" 2>&1 &
tcp_wait_listen "$NS_PEER" 7010
mixed 6 2001:db8:1::1 7010
