#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A QEMU 10 guest on netshim --vhost-user live-migrated between netshims
# in one pod, with netshim-repair beside each, under a download and an
# upload checked line by line: a migration cancelled in its memory copy
# first (the source goes on serving), then ten migrations, five round
# trips, each to a new QEMU on a new netshim, after which both transfers
# end whole on the same connections (tests/vm/t_vm_migrate.sh, whose
# single migration this covers: every hop is one).  A cluster of netshim
# alone, the one test of it: netshim's own stream (--migrate-format
# netshim), with which the guest's UDP flow goes with it too, through
# every hop, and netshim's own virtio features (--virtio-features all:
# offloads, GUEST_ANNOUNCE).  Needs QEMU 10 (bookworm-backports,
# contrib/install-deps.sh).
# run.sh timeout: 600

MIG_CANCEL=1 MIG_ROUNDS=10 MIG_FORMAT=netshim MIG_FEATURES=all \
	exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_migrate.sh"
