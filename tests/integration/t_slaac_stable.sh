#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A guest without a DHCPv6 client configures IPv6 from the router
# advertisement alone, with an RFC 7217 stable-privacy interface identifier, the default of systemd-networkd and NetworkManager (addr_gen_mode 2).
# Ping, DNS through the RA's resolver, TCP and UDP both ways, and an
# inbound -t connection work; a source outside the /64 is dropped
# (tests/lib/slaac.sh).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/lib/udp.sh
. "$(dirname "$0")/../lib/udp.sh"
# shellcheck source=tests/lib/slaac.sh
. "$(dirname "$0")/../lib/slaac.sh"

export GUEST_SYSCTLS="net.ipv6.conf.default.stable_secret=2001:db8:77::5ec7 net.ipv6.conf.default.addr_gen_mode=2"
slaac_run stable
