#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# A migration to a netshim in another pod, with another address,
# as a VM whose address does not move with it: its TCP connections end
# with a reset at the destination, never a hang, its new lease carries the
# new address, and ping and new connections work from there
# (tests/vm/t_vm_migrate.sh).

MIG_NEWPOD=1 exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_migrate.sh"
