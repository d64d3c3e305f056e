#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# Two migrations between two pods with the same address, there and back,
# as a network with persistent IPs moves a VM's port to where it resumed:
# back-ends with the launcher's defaults (no --migrate-exit, no
# --migrate-no-linger), each forwarding the inbound port in its own pod;
# the peer's segments reach the source until the route moves, and every
# connection goes on, every byte in place (tests/vm/t_vm_migrate.sh).

MIG_PODS=1 MIG_ROUNDS=2 \
	exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_migrate.sh"
