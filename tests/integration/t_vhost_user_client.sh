#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# Client mode with vhost-user: QEMU 10 listens (-chardev socket,server=on,
# the way OVS-DPDK's dpdkvhostuserclient ports and Kata's Dragonball are
# set up) and netshim --connect connects to it.  netshim is started first
# and must wait for QEMU's socket to appear; the guest then runs the whole
# check (DHCPv4, SLAAC, DHCPv6, ping, DNS, TCP and UDP both families,
# tests/vm/t_vm.sh).  Needs QEMU 10 (bookworm-backports).

. "$(dirname "$(readlink -f "$0")")/../lib/topo.sh"
[ "$BACKEND" = netshim ] || skip "passt has no client mode (--connect)"
export NETDEV=vhost-user VM_SERVER=1
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
