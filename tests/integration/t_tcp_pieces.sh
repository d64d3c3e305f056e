#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Requests written in two pieces (tests/tcp/pieces.py): the client sets
# TCP_NODELAY and writes each request as two pieces 2 ms apart, and the
# server answers once it has both.  The back-end must not hold the second
# piece until the first is acknowledged (Nagle on its socket), which the
# server's kernel delays by 40 ms or more: 30 requests, median answer
# within 20 ms, on connections the guest opens (IPv4 and IPv6) and on
# forwarded ones (-t 5100) where the guest is the server.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

# pieces() - one run: server in one namespace, client in another
# $1: server ns, $2: bind address, $3: client ns, $4: address to connect
# to, $5: port
pieces() {
	local out spid what="$3 -> $4 port $5"

	ip netns exec "$1" timeout 40 python3 "$TCP_DIR/pieces.py" server \
		"$2" "$5" >"$WORK/pieces-server.out" 2>&1 &
	spid=$!
	tcp_wait_listen "$1" "$5"
	out=$(ip netns exec "$3" timeout 40 python3 "$TCP_DIR/pieces.py" \
		client "$4" "$5" 30 20 2>&1) || {
		kill "$spid" 2>/dev/null
		fail "$what: $out"
	}
	wait "$spid" || fail "$what: $(cat "$WORK/pieces-server.out")"
	log "ok: $what: $out"
}

topo_init
topo_peer_pod
topo_backend -t 5100
topo_relay_guest
guest_dhcp

pieces "$NS_PEER" 203.0.113.1 "$NS_GUEST" 203.0.113.1 5001
pieces "$NS_PEER" 2001:db8:2::1 "$NS_GUEST" 2001:db8:2::1 5002
pieces "$NS_GUEST" 0.0.0.0 "$NS_PEER" 203.0.113.2 5100
pieces "$NS_GUEST" :: "$NS_PEER" 2001:db8:1::2 5100
