#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# Client mode with vhost-user through a guest's life (tests/vm/
# t_vm_reboot.sh with VM_SERVER=1): netshim --connect started before QEMU
# waits for its socket (-chardev socket,server=on); in boot 1, after DHCP,
# netshim is killed and a new one connects to the same QEMU, which takes
# it back; the guest reboots on one connection (the device reset and
# negotiated again); during the second boot's transfer QEMU is killed and
# a new QEMU started on the same socket, which netshim connects to by
# itself.  Every complete boot must get its DHCPv4 lease, ping and move
# TCP both ways; netshim's descriptors and memory stay flat.

. "$(dirname "$(readlink -f "$0")")/../lib/topo.sh"
[ "$BACKEND" = netshim ] || skip "passt has no client mode (--connect)"
export VM_SERVER=1
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_reboot.sh"
