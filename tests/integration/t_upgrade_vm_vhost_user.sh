#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# netshim --vhost-user upgraded in place under a running QEMU 10 guest, a
# hundred times, the guest's transfers checked to the byte and QEMU's own
# trace showing no vhost-user message during the upgrades
# (tests/vm/t_vm_upgrade.sh; t_upgrade_vhost_user.sh runs them against
# tests/vu_relay, with a UDP flow and pings too).  Needs QEMU 10
# (bookworm-backports, contrib/install-deps.sh).

NETDEV=vhost-user exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_upgrade.sh"
