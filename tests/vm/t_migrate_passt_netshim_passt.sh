#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Not in make check yet: about one run in three, the guest's upload or
# the inbound connection stalls after the hop from netshim to passt
# (passt's restored socket holds the peer's bytes and sends nothing on;
# or a reset), the cause not found yet.  Run it by hand, as root, with
# PASST_VU pointing at trixie's passt (make integration builds it in
# build/passt-vu).
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
	exec bash "$(dirname "$(readlink -f "$0")")/t_vm_migrate.sh"
