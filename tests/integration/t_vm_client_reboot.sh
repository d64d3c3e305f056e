#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# Client mode with QEMU's stream netdev through a guest's life (tests/vm/
# t_vm_reboot.sh): QEMU listens (-netdev stream,server=on) and netshim
# --connect, started first, waits for it; in boot 1, after DHCP, netshim
# is killed and a new one connects to the same QEMU; the guest reboots;
# during the second boot's transfer QEMU is killed and a new QEMU started
# on the same socket, which netshim connects to by itself.  Every complete
# boot must get its DHCPv4 lease, ping and move TCP both ways; netshim's
# descriptors and memory stay flat.

. "$(dirname "$(readlink -f "$0")")/../lib/topo.sh"
[ "$BACKEND" = netshim ] || skip "passt has no client mode (--connect)"
export NETDEV=stream VM_SERVER=1
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_reboot.sh"
