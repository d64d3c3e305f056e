#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# Client mode with QEMU's stream netdev: QEMU listens (-netdev
# stream,server=on,addr.type=unix), started first as a launcher may, and
# boots the guest with its link down; netshim --connect started a second
# later connects, and the guest runs the whole check (DHCPv4, SLAAC,
# DHCPv6, ping, DNS, TCP and UDP both families, tests/vm/t_vm.sh).

. "$(dirname "$(readlink -f "$0")")/../lib/topo.sh"
[ "$BACKEND" = netshim ] || skip "passt has no client mode (--connect)"
export VM_SERVER=1 VM_SERVER_FIRST=1
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
