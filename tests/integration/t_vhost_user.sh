#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The checks of t_vm.sh (DHCPv4, SLAAC, DHCPv6, ping, DNS, TCP both ways
# with checksums, UDP, IPv4 and IPv6) with QEMU as the vhost-user front-end
# of the backend (netshim --vhost-user, or PASST=/path/to/passt of 2025 or
# later with BACKEND=passt), guest memory a shared memfd.  Needs QEMU 10
# (bookworm-backports, contrib/install-deps.sh).

export NETDEV=vhost-user
exec bash "$(cd "$(dirname "$(readlink -f "$0")")/../vm" && pwd)/t_vm.sh"
