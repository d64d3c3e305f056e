#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# TCP half-close through the backend (tests/tcp/halfclose.py), IPv4 and
# IPv6, on connections the guest opens and on forwarded ones (-t 5100):
# - the client sends, shuts its write side down, and still receives the
#   server's reply, sent a second after the server saw the end of stream;
# - the server sends and shuts its write side down; the client reads to
#   the end, then sends, and the server receives everything.
# Each side checks the data it received byte for byte.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

HALFCLOSE=$TCP_DIR/halfclose.py
SIZE=$((4 << 20))

# halfclose() - one exchange: server in one namespace, client in another
# $1: mode, $2: server ns, $3: bind address, $4: client ns,
# $5: address to connect to, $6: port
halfclose() {
	local out spid what="$1, $4 -> $5 port $6"

	ip netns exec "$2" timeout 40 python3 "$HALFCLOSE" server "$1" \
		"$3" "$6" "$SIZE" >"$WORK/hc-server.out" 2>&1 &
	spid=$!
	tcp_wait_listen "$2" "$6"
	out=$(ip netns exec "$4" timeout 40 python3 "$HALFCLOSE" client \
		"$1" "$5" "$6" "$SIZE" 2>&1) || {
		kill "$spid" 2>/dev/null
		fail "$what: $out; $(cat "$WORK/hc-server.out")"
	}
	wait "$spid" || fail "$what: $(cat "$WORK/hc-server.out")"
	log "ok: $what: $out; $(cat "$WORK/hc-server.out")"
}

topo_init
topo_peer_pod
topo_backend -t 5100
topo_relay_guest
guest_dhcp

for mode in client-closes server-closes; do
	halfclose "$mode" "$NS_PEER" 203.0.113.1 "$NS_GUEST" 203.0.113.1 5001
	halfclose "$mode" "$NS_PEER" 2001:db8:2::1 "$NS_GUEST" 2001:db8:2::1 \
		5002
	halfclose "$mode" "$NS_GUEST" 0.0.0.0 "$NS_PEER" 203.0.113.2 5100
	halfclose "$mode" "$NS_GUEST" :: "$NS_PEER" 2001:db8:1::2 5100
done
