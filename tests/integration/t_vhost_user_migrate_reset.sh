#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# A migration without a TCP repair helper: the guest migrates,
# its TCP connections are reset at the destination (a reset, never a
# hang), and new ones work at once (tests/vm/t_vm_migrate.sh).

MIG_HELPER=none exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_migrate.sh"
