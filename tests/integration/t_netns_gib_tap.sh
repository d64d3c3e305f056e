#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode at the issue's size, through the tap: "netshim --",
# TCP 1 GiB each way between the namespace and the peer, IPv4, through
# the TCP adaptation, checksummed at both ends (SHA-256 of the stream
# sent and of the stream received).  Both families at smaller sizes are
# in t_netns_basic.sh.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

topo_init
topo_peer_pod
# shellcheck disable=SC2119
ns_start

tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5201 1 "$(tcp_size 1G)" 90
tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5202 2 "$(tcp_size 1G)" 90

kill -0 "$BACKEND_PID" 2>/dev/null || fail "netshim died"
