#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# The libvirt test of t_libvirt.sh with <interface type='vhostuser'> and
# the passt backend: libvirt starts netshim with --vhost-user and QEMU is
# its vhost-user front-end on the guest's shared memfd RAM.
export LV_IFACE=vhostuser
exec bash "$(dirname "$(readlink -f "$0")")/../libvirt/t_libvirt.sh"
