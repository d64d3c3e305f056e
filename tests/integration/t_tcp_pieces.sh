#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Requests written in two pieces (tests/tcp/pieces.py): the client sets
# TCP_NODELAY and writes each request as two pieces 2 ms apart, and the
# server answers once it has both.  The back-end must not hold the second
# piece until the first is acknowledged (Nagle on its socket), which the
# server's kernel delays by 40 ms or more: 30 requests, median answer
# within 20 ms, on connections the guest opens (IPv4 and IPv6) and on
# forwarded ones (-t 5100) where the guest is the server
# (tcp_pieces() in tests/tcp/lib.sh).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

topo_init
topo_peer_pod
topo_backend -t 5100
topo_relay_guest
guest_dhcp

tcp_pieces "$NS_PEER" 203.0.113.1 "$NS_GUEST" 203.0.113.1 5001 \
	"guest -> 203.0.113.1"
tcp_pieces "$NS_PEER" 2001:db8:2::1 "$NS_GUEST" 2001:db8:2::1 5002 \
	"guest -> 2001:db8:2::1"
tcp_pieces "$NS_GUEST" 0.0.0.0 "$NS_PEER" 203.0.113.2 5100 \
	"peer -> 203.0.113.2 port 5100 (-t)"
tcp_pieces "$NS_GUEST" :: "$NS_PEER" 2001:db8:1::2 5100 \
	"peer -> 2001:db8:1::2 port 5100 (-t)"
