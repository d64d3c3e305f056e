#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The checks of t_vm.sh (DHCPv4, SLAAC, DHCPv6, ping, DNS, TCP both ways
# with checksums, UDP, IPv4 and IPv6) with QEMU as the vhost-user front-end
# of the backend (netshim --vhost-user, or PASST=/path/to/passt of 2025 or
# later with BACKEND=passt), guest memory a shared memfd.  While the guest
# runs them a 128 MiB DIMM is plugged into it and unplugged (QMP): QEMU
# hands the back-end the new region (ADD_MEM_REG, or a whole new table
# to a back-end without memory slots, as passt) and takes it back once
# the guest ejected it (REM_MEM_REG).  Needs QEMU 10 (bookworm-backports,
# contrib/install-deps.sh).

export NETDEV=vhost-user VM_HOTPLUG=1
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
