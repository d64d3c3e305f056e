#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# t_vhost_user.sh with the virtio-net device's offloads switched off the
# way a user does it, with QEMU's own device properties: the guest then
# sends and gets only MTU-sized frames with full checksums, and every
# check of the VM guest must pass as with the offloads on.

export NETDEV=vhost-user
export VM_NIC_OPTS=csum=off,guest_csum=off,host_tso4=off,host_tso6=off,guest_tso4=off,guest_tso6=off
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
