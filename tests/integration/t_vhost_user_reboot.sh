#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# A VM guest rebooting on one netshim --vhost-user (tests/vm/t_vm_reboot.sh):
# networking back after each reboot, netshim's descriptors and RSS flat.
# Needs QEMU 10 (bookworm-backports, contrib/install-deps.sh).

exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_reboot.sh"
