#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# t_vm.sh over vhost-user without offloads, as netshim runs by default:
# it offers only the virtio features every passt with migration offers,
# so that the guest can move to passt, and the guest then sends and gets
# only MTU-sized frames with full checksums; every check of the VM guest
# must pass as with the offloads on (t_vhost_user.sh).  With
# --virtio-features all, the same holds when a user switches the offloads
# off with QEMU's own device properties: VM_NIC_OPTS, as
# csum=off,guest_csum=off,host_tso4=off,host_tso6=off,guest_tso4=off,
# guest_tso6=off.

export NETDEV=vhost-user
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
