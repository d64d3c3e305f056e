#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# Client mode with vhost-user and two queue pairs: QEMU 10 listens
# (-chardev socket,server=on, -netdev vhost-user,queues=2), netshim
# --connect connects, QEMU sets both pairs up, and the guest on two CPUs
# runs every check from its second CPU at MTU 1500, so that its frames go
# out on the second transmit queue and TSO is used both ways; each pair's
# receive queue must take the answers to what went out on it
# (tests/vm/t_vm.sh, as t_vhost_user_mq.sh in listening mode).

. "$(dirname "$(readlink -f "$0")")/../lib/topo.sh"
[ "$BACKEND" = netshim ] || skip "passt has no client mode (--connect)"
export NETDEV=vhost-user VM_SERVER=1 VM_QUEUES=2 VM_TIMEOUT=280 \
	VM_BACKEND_ARGS="-m 1500"
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
