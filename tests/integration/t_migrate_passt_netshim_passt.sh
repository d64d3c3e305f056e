#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
# run.sh timeout: 450
#
# A QEMU 10 guest live-migrated from passt to netshim and back to passt,
# as a cluster moves a VM between nodes that run either, with
# passt-repair beside each back-end: netshim reads passt's stream
# (version 2) and writes it for passt.  The download and the upload go on
# across both hops on the same connections, every byte checked at both
# ends, and the inbound connection too; the guest's UDP flow ends at the
# first hop (passt's stream carries none); new connections work after
# each hop (tests/vm/t_vm_migrate.sh).  passt is trixie's, built by make
# integration (tests/bench/passt-vu.sh): without it the test fails.

MIG_CHAIN="passt netshim passt" MIG_HELPER=passt-repair MIG_PROBE=1 \
	exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_migrate.sh"
