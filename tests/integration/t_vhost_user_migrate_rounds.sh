#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t_vhost_user_migrate cancelled half-way, then five round trips: a
# migration cancelled in its memory copy leaves the guest served by its
# source, and ten migrations after it, each to a new QEMU on a new
# netshim, keep the same download and upload going to their ends
# (tests/vm/t_vm_migrate.sh).
# run.sh timeout: 600

MIG_CANCEL=1 MIG_ROUNDS=10 exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_migrate.sh"
