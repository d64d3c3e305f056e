#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
# run.sh timeout: 450
#
# A QEMU 10 guest live-migrated from passt to netshim and back to passt
# without any TCP repair helper: no migration waits for one, and the
# guest's connections end in resets, never a hang (RFC 793: a segment
# for no connection is answered with a reset).  passt's source without a
# helper sends no connection at all, so a destination learns of one only
# when the guest sends on it:
#   - the upload, whose next segment reaches netshim, ends in a reset;
#   - the download would not: a guest that only reads sends nothing while
#     data stops coming (the peer's data goes to the source's socket),
#     and waits forever, on either back-end.  Here the guest's reader
#     stops from 2 s in for 20 s (MIG_DOWN_STALL), across the first hop,
#     so that its window is closed when it arrives: the window update it
#     sends as it reads again is the segment that gets the download its
#     reset, from netshim or, when the second hop came first, passt;
#   - new TCP connections work after each hop (MIG_PROBE), and lease,
#     ping and new connections both ways at the end
# (tests/vm/t_vm_migrate.sh).  passt is trixie's, built by make
# integration (tests/bench/passt-vu.sh): without it the test fails.

MIG_CHAIN="passt netshim passt" MIG_HELPER=none MIG_PROBE=1 \
	MIG_DOWN_STALL=20 \
	exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm_migrate.sh"
