#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# TCP bulk transfers through the backend, sha256 compared on both ends:
# - guest MTU 65520 (backend -m 65520): 512 MiB guest -> peer and 512 MiB
#   peer -> guest over IPv4, 64 MiB each way over IPv6 (1 GiB each way
#   runs through the tap in t_netns_gib_*, and TCP_BULK_BIG=1G here);
# - guest MTU 1500: 64 MiB each way over IPv4 and over IPv6.
# "peer -> guest" is the peer sending on a connection the guest opened:
# inbound connections are t_tcp_forward's subject.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

BIG=${TCP_BULK_BIG:-512M}
SMALL=${TCP_BULK_SMALL:-64M}

# bulk_pass() - one topology at one MTU, transfers both ways, both families
# $1: guest MTU, $2: IPv4 size, $3: IPv6 size, $4: seconds per transfer,
# $5...: more backend options
bulk_pass() {
	local v4 v6

	v4=$(tcp_size "$2")
	v6=$(tcp_size "$3")
	topo_init
	topo_peer_pod
	topo_backend -m "$1" "${@:5}"
	topo_relay_guest "$1"
	guest_dhcp
	log "MTU $1: guest IPv6 address $(tcp_guest_v6)"

	tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5001 1 "$v4" "$4"
	tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5002 2 "$v4" "$4"
	tcp_upload "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5003 3 "$v6" "$4"
	tcp_download "$NS_GUEST" "$NS_PEER" 6 2001:db8:2::1 5004 4 "$v6" "$4"
	topo_cleanup
}

bulk_pass 65520 "$BIG" "$SMALL" 60
bulk_pass 1500 "$SMALL" "$SMALL" 30
# Kernels before 6.9 (Debian 12's) have no SO_PEEK_OFF for TCP
bulk_pass 65520 "$SMALL" "$SMALL" 30 --no-peek-offset
