#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# netshim --vhost-user killed and restarted under a running QEMU guest,
# which goes on without a reboot (tests/vm/t_vm_restart.sh).  Needs QEMU 10
# (bookworm-backports, contrib/install-deps.sh).

exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_restart.sh"
