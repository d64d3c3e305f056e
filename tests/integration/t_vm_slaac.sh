#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# The real Linux guest of t_vm.sh without a DHCPv6 client: its IPv6
# address and route come from netshim's router advertisement alone (SLAAC,
# the kernel's EUI-64), as most guests configure themselves; ping, TCP and
# UDP over IPv6 must work all the same.
export VM_DHCP6=no
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
