#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# Client mode with vhost-user, QEMU started first: QEMU 10 makes its
# socket (-chardev socket,server=on) and waits there for a back-end before
# it runs the guest, as it does for vhost-user; netshim --connect started a
# second later must connect at once, and the guest runs the whole check
# (tests/vm/t_vm.sh).  Needs QEMU 10 (bookworm-backports).

. "$(dirname "$(readlink -f "$0")")/../lib/topo.sh"
[ "$BACKEND" = netshim ] || skip "passt has no client mode (--connect)"
export NETDEV=vhost-user VM_SERVER=1 VM_SERVER_FIRST=1
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
