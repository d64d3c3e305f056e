#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode, a local flow at the issue's size, -T: 1 GiB each way
# between a client in the namespace and a server on the pod's loopback,
# spliced, IPv4, checksummed at both ends (SHA-256 of the stream sent and
# of the stream received).  Smaller transfers of both families,
# half-close, resets and many connections are in t_netns_splice.sh.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

topo_init
topo_peer_pod
ns_start -T 6001

# local_up and local_down with the roles swapped: the server in the pod
ns_swap
local_up 4 127.0.0.1 6001 1 "$(tcp_size 1G)"
local_down 4 127.0.0.1 6001 2 "$(tcp_size 1G)"
ns_swap

kill -0 "$BACKEND_PID" 2>/dev/null || fail "netshim died"
