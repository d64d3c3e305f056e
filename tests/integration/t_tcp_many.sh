#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 1000 concurrent TCP connections from the guest to an echo server in the
# peer (tests/tcp/many.py): all are opened first, and the backend must
# count them all while they are open; then each sends 64 KiB of its own
# data and reads it back intact, all within 20 s.  Once they are closed,
# the backend's TCP connection count (SIGUSR1) returns to 0 within seconds.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

COUNT=1000
SIZE=65536
PORT=7000
# 64 MiB each way, about 4 s here
MAX_SECS=20

# wait_count() - wait until the backend counts a number of connections
# $1: "ge" (at least) or "eq" (exactly), $2: number, $3: seconds
#
# Leaves the last count read in $N.
wait_count() {
	local _

	for _ in $(seq $(($3 * 2))); do
		N=$(tcp_counters)
		[ -n "$N" ] && [ "$N" -"$1" "$2" ] && return 0
		sleep 0.5
	done
	return 1
}

topo_init
topo_peer_pod
topo_backend
topo_relay_guest
guest_dhcp4

ip netns exec "$NS_PEER" timeout 120 python3 "$TCP_DIR/many.py" server \
	203.0.113.1 "$PORT" >"$WORK/server.log" 2>&1 &
tcp_wait_listen "$NS_PEER" "$PORT"

mkdir "$WORK/hold"
ip netns exec "$NS_GUEST" timeout 90 python3 "$TCP_DIR/many.py" client \
	203.0.113.1 "$PORT" "$COUNT" "$SIZE" "$MAX_SECS" "$WORK/hold" \
	>"$WORK/client.log" 2>&1 &
client=$!
tcp_wait_file "$WORK/hold/connected" 30 ||
	fail "$COUNT connections not open after 30 s:" \
		"$(tail -3 "$WORK/client.log")"
[ "$(cat "$WORK/hold/connected")" = "$COUNT" ] ||
	fail "only $(cat "$WORK/hold/connected") of $COUNT connections open:" \
		"$(tail -3 "$WORK/client.log")"
wait_count ge "$COUNT" 5 ||
	fail "$COUNT connections open in the guest, backend counts '$N'"
log "ok: $COUNT connections open, backend counts $N"
touch "$WORK/hold/go"

wait "$client" || fail "client: $(tail -3 "$WORK/client.log")"
log "ok: $(cat "$WORK/client.log")"

wait_count eq 0 15 ||
	fail "backend still counts '$N' TCP connections 15 s after the" \
		"client finished"
log "ok: backend counts 0 TCP connections"
