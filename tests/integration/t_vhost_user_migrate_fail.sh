#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# A migration when the destination refuses the state: the source
# QEMU resumes and the source netshim takes its TCP connections back from
# repair mode; the guest's transfers go on there to their ends
# (tests/vm/t_vm_migrate.sh).

MIG_FAIL=1 exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_migrate.sh"
