#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# The guest check through netshim --vhost-user with two queue pairs, as
# libvirt gives a VM with <driver queues='2'/> (KubeVirt's
# networkInterfaceMultiqueue): QEMU 10 sets both pairs up, the guest on two
# CPUs takes both in use, and runs every check from its second CPU, whose
# frames go out on the second transmit queue, at MTU 1500 so that TSO is
# used both ways (tests/vm/t_vm.sh); each pair's receive queue takes the
# answers to what went out on it (vm_check_queues, virtio-net's packet
# counts; none on the second before netshim steered flows).

export NETDEV=vhost-user VM_QUEUES=2 VM_TIMEOUT=280 VM_BACKEND_ARGS="-m 1500"
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
