#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hostile vhost-user front-ends (tests/hostile/vu_frontend.py): messages cut
# short or too long, an unknown protocol version, too many descriptors, a
# memory table that overlaps or lies past its file, a memory file
# truncated after it was mapped (SIGBUS), descriptors outside
# guest memory, a chain that loops, ring indices past the ring, a front-end
# that vanishes mid-message or mid-transfer; with CONFIGURE_MEM_SLOTS, a
# region added over another, past its file or without its descriptor, one
# region more than GET_MAX_MEM_SLOTS said, the removal of a region that is
# not there, and the rings' region removed and added back while they run;
# a migration's front-end gone before it read the device state, or in the
# middle of sending one, and a state cut short (refused by
# CHECK_DEVICE_STATE).  After each, a well-behaved
# front-end must get its ARP reply through the rings: netshim --vhost-user
# stays up and serves the next front-end, its descriptors stay flat, and
# every front-end it dropped is counted.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

FE=$REPO/tests/hostile/vu_frontend.py
DROPS="desc_outside desc_loop avail_past_ring head_past_ring mem_overlap
       too_long bad_version too_many_fds mem_shrink"
OTHERS="mem_past_file unknown cut_header cut_payload vanish_mid_transfer"
# CONFIGURE_MEM_SLOTS: netshim offers it, passt 2025-05 does not.
# tcp_csum_payload (a TCP segment whose payload does not match its
# checksum must be dropped, RFC 9293 3.1) is netshim's too: passt 2026
# takes the segment (checked 2026-11-27), and the harness serves it
# ("good" passes)
if [ "$BACKEND" = netshim ]; then
	DROPS="$DROPS slot_overlap slot_rem_unknown slot_no_fd slot_bad_offset
	       slot_too_many"
	OTHERS="$OTHERS good_slots slot_rem_rings state_save_vanish
		state_save_unread state_load_cut state_load_vanish
		tcp_csum_payload"
fi

# fd_count() - the backend's open descriptors
fd_count() {
	find "/proc/$BACKEND_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

topo_init
topo_peer_pod
topo_backend --vhost-user

timeout 30 python3 "$FE" "$WORK/backend.sock" good ||
	fail "a well-behaved front-end is not served"
FD_BASE=$(fd_count)
log "baseline: $FD_BASE descriptors"

for c in $DROPS $OTHERS; do
	timeout 30 python3 "$FE" "$WORK/backend.sock" "$c" ||
		fail "case $c: $(tail -3 "$WORK/backend.log")"
	kill -0 "$BACKEND_PID" 2>/dev/null ||
		fail "backend died in case $c: $(tail -5 "$WORK/backend.log")"
	timeout 30 python3 "$FE" "$WORK/backend.sock" good ||
		fail "after $c, the next front-end is not served"
done

fds=$(fd_count)
[ "$fds" -le "$FD_BASE" ] ||
	fail "descriptors grew from $FD_BASE to $fds"
log "ok: $fds descriptors after every case (baseline $FD_BASE)"

if [ "$BACKEND" = netshim ]; then
	want=$(echo $DROPS | wc -w)
	got=$(topo_counters | grep -oE 'vu_dropped +[0-9]+' |
		awk '{ print $2 }')
	[ "${got:-0}" -ge "$want" ] ||
		fail "vu_dropped is ${got:-none}, at least $want expected"
	log "ok: $got front-ends dropped and counted"
fi
log "netshim served a front-end after every hostile one"
