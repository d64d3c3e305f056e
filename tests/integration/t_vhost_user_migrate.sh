#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A QEMU 10 guest on netshim --vhost-user live-migrated to another QEMU on
# another netshim in the same pod, with netshim-repair beside each, under
# a download and an upload that go on, every byte checked, on the same
# connections (tests/vm/t_vm_migrate.sh).  Needs QEMU 10
# (bookworm-backports, contrib/install-deps.sh).

exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_migrate.sh"
