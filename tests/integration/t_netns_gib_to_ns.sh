#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode, a local flow at the issue's size, -t: 1 GiB each way
# between a client in the pod and a server on the namespace's loopback
# (--host-lo-to-ns-lo), spliced, IPv4, checksummed at both ends (SHA-256 of the stream sent and
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
ns_start -t 5001 --host-lo-to-ns-lo

local_up 4 127.0.0.1 5001 3 "$(tcp_size 1G)"
local_down 4 127.0.0.1 5001 4 "$(tcp_size 1G)"

kill -0 "$BACKEND_PID" 2>/dev/null || fail "netshim died"
