#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# netshim upgraded in place under a QEMU guest on -netdev stream, a
# hundred times, the guest's transfers checked to the byte, QEMU
# connected once (tests/vm/t_vm_upgrade.sh; t_upgrade_stream.sh runs them
# against tests/relay, with a UDP flow and pings too).

NETDEV=stream exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_upgrade.sh"
