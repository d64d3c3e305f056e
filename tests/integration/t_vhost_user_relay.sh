#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# netshim --vhost-user at native speed: the guest namespace's tap0 is joined
# to the vhost-user socket by tests/vu_relay, a virtio driver and front-end
# of the tests' own, so the guest's TCP/IP stack is the kernel's and no VM
# bounds the rate.  DHCPv4, SLAAC/DHCPv6, then TCP each way on both
# families with checksums, at MTU 1500 and 65520.

set -u
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/../tcp/lib.sh"

SIZE=${VU_RELAY_SIZE:-64M}

# vu_pass() - one topology at one MTU, transfers both ways, both families
# $1: MTU
# $2: seconds allowed per transfer
vu_pass() {
	local n

	n=$(tcp_size "$SIZE")
	topo_init
	topo_peer_pod
	topo_backend --vhost-user -m "$1"
	topo_vu_relay_guest "$1"
	guest_dhcp
	log "MTU $1: guest IPv6 address $(tcp_guest_v6)"
	tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5001 1 "$n" "$2"
	tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5002 2 "$n" "$2"
	tcp_upload "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5003 3 "$n" "$2"
	tcp_download "$NS_GUEST" "$NS_PEER" 6 2001:db8:2::1 5004 4 "$n" "$2"
	topo_cleanup
}

vu_pass 1500 60
vu_pass 65520 60
log "TCP both ways, both families, through --vhost-user at MTU 1500 and 65520"
