#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# A live migration under 1000 open TCP connections: the guest holds them
# to the peer's echo server, each writing a line and reading it back,
# checked, round after round (tests/vm/conns.c), beside the download, the
# upload and the UDP session of tests/vm/t_vm_migrate.sh; after the
# migration all 1000 go on, not a byte wrong, none lost.

MIG_CONNS=1000 exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_migrate.sh"
