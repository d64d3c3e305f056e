#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# The checks of t_vm.sh (DHCPv4, SLAAC, DHCPv6, ping, DNS, TCP both ways
# with checksums, UDP, IPv4 and IPv6) with QEMU as the vhost-user front-end
# of the backend (netshim --vhost-user, or PASST=/path/to/passt of 2025 or
# later with BACKEND=passt), guest memory a shared memfd.  While the guest
# runs them a 128 MiB DIMM is plugged into it and unplugged (QMP): QEMU
# hands the back-end the new region (ADD_MEM_REG, or a whole new table
# to a back-end without memory slots, as passt) and takes it back once
# the guest ejected it (REM_MEM_REG).  At MTU 1500 (-m, as an operator
# may choose, or libvirt's <mtu size='1500'/> passes), TCP segments both
# ways are larger than the guest's MTU, so offloads (TSO) carry them; at
# the default MTU, 65520, a segment fits a frame (the guests of
# t_vhost_user_reboot.sh and t_vhost_user_restart.sh run there).  Needs
# QEMU 10 (bookworm-backports, contrib/install-deps.sh).

export NETDEV=vhost-user VM_HOTPLUG=1 VM_BACKEND_ARGS="-m 1500"
# netshim's offloads, which a launcher asks for (--virtio-features all):
# its defaults offer only what passt does (t_vhost_user_nooffload.sh)
[ "${BACKEND:-netshim}" != netshim ] ||
	VM_BACKEND_ARGS="$VM_BACKEND_ARGS --virtio-features all"
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
