#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# netshim --vhost-user at native speed: the guest namespace's tap0 is joined
# to the vhost-user socket by tests/vu_relay, a virtio driver and front-end
# of the tests' own, so the guest's TCP/IP stack is the kernel's and no VM
# bounds the rate.  DHCPv4, SLAAC/DHCPv6, then TCP each way on both
# families with checksums, at MTU 1500 and 65520; at 65520 the relay gives
# guest memory as QEMU 10 does against a back-end offering
# CONFIGURE_MEM_SLOTS (vu_relay --mem-slots: ADD_MEM_REG per region, one
# region removed and added back, a buffer straddling two regions).  Then
# the front-end is killed in the middle of a transfer and started again,
# as a VM restart does, the new one with memory slots where the old one
# sent a table: networking must come back, netshim's descriptors stay
# flat.

set -u
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/../tcp/lib.sh"

SIZE=${VU_RELAY_SIZE:-64M}
# passt (BACKEND=passt, to validate the harness) offers no memory slots
SLOTS=--mem-slots
[ "$BACKEND" = netshim ] || SLOTS=

# mem_slots_used() - fail unless netshim took regions by ADD_MEM_REG
# $1: how many at least
mem_slots_used() {
	local v

	[ "$BACKEND" = netshim ] || return 0
	v=$(topo_counter vu_mem_added)
	[ "${v:-0}" -ge "$1" ] ||
		fail "vu_mem_added is ${v:-missing}, at least $1 expected"
	log "ok: $v memory regions added by ADD_MEM_REG"
}

# vu_pass() - one topology at one MTU, transfers both ways, both families
# $1: MTU
# $2: seconds allowed per transfer
# $3: more vu_relay options (--mem-slots)
vu_pass() {
	local n

	n=$(tcp_size "$SIZE")
	topo_init
	topo_peer_pod
	topo_backend --vhost-user -m "$1"
	RELAY_ARGS=${3:-} topo_vu_relay_guest "$1"
	guest_dhcp
	log "MTU $1: guest IPv6 address $(tcp_guest_v6)"
	tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5001 1 "$n" "$2"
	tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5002 2 "$n" "$2"
	tcp_upload "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5003 3 "$n" "$2"
	tcp_download "$NS_GUEST" "$NS_PEER" 6 2001:db8:2::1 5004 4 "$n" "$2"
	[ -z "${3:-}" ] || mem_slots_used 4
	topo_cleanup
}

# fd_count() - the backend's open descriptors
fd_count() {
	find "/proc/$BACKEND_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

# restart_pass() - kill the front-end mid-transfer, start it again
restart_pass() {
	local fds n

	n=$(tcp_size 16M)
	topo_init
	topo_peer_pod
	topo_backend --vhost-user
	topo_vu_relay_guest
	guest_dhcp4
	tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5001 1 "$n" 30
	fds=$(fd_count)

	ip netns exec "$NS_PEER" timeout 20 socat -u \
		TCP4-LISTEN:5009,reuseaddr /dev/zero 2>/dev/null &
	topo_pid_add $!
	tcp_wait_listen "$NS_PEER" 5009
	in_guest timeout 20 socat -u TCP4:203.0.113.1:5009 /dev/null &
	topo_pid_add $!
	sleep 1
	kill "$RELAY_PID"
	wait "$RELAY_PID" 2>/dev/null
	log "front-end killed mid-transfer"

	ip netns exec "$NS_GUEST" "$REPO/tests/vu_relay" $SLOTS tap0 \
		"$WORK/backend.sock" >"$WORK/relay2.log" 2>&1 &
	RELAY_PID=$!
	topo_pid_add "$RELAY_PID"
	topo_relay_wait "$WORK/relay2.log"
	guest_dhcp4
	tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5002 2 "$n" 30
	tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5003 3 "$n" 30
	mem_slots_used 4
	# netshim keeps the file of each region of guest memory (a netshim
	# taking over in place maps them again): the new front-end gave its
	# memory in three regions (--mem-slots), the old one in one
	[ -z "$SLOTS" ] || fds=$((fds + 2))
	[ "$(fd_count)" -le "$fds" ] ||
		fail "descriptors grew from $fds to $(fd_count) across the restart"
	log "ok: networking back after a front-end restart, $(fd_count) fds"
	topo_cleanup
}

vu_pass 1500 60
vu_pass 65520 60 $SLOTS
restart_pass
log "TCP both ways, both families, through --vhost-user at MTU 1500 and 65520"
