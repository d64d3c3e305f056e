#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# TCP through lossy links, sha256 checked on both ends:
# - 1% loss each way between the pod and the peer: the pod's kernel
#   retransmits, netshim must keep mirroring windows as the socket drains
#   unevenly;
# - 1% loss each way between the guest and netshim: netshim itself must
#   retransmit (peeking again from the acknowledged point) and answer the
#   guest's holes.
# 64 MiB guest -> peer and 64 MiB peer -> guest in each case, each within
# 30 s (a few seconds here).
#
# The loss is nftables' "numgen random mod 100 0 drop" on the netdev
# egress hook, the equivalent of "tc qdisc ... netem loss 1%": netem is
# often not built into kernels (it is not here).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

SIZE=$((64 << 20))
SECS=30

# loss_add() - drop 1% of a device's packets in one direction, at random
# $1: namespace, $2: device, $3: hook (egress or ingress)
loss_add() {
	tcp_drop_add "$1" "loss_$2_$3" "$2" "$3" "numgen random mod 100 0"
}

# loss_del() - stop dropping
# $1: namespace, $2: device, $3: hook
loss_del() {
	tcp_drop_del "$1" "loss_$2_$3"
}

# loss_dropped() - packets dropped so far
# $1: namespace, $2: device, $3: hook
loss_dropped() {
	tcp_drop_count "$1" "loss_$2_$3"
}

# both_ways() - 64 MiB up and 64 MiB down, checked, with drop counts
# $1: what is lossy, $2: first port, $3...: "namespace device hook" of
# each lossy place
both_ways() {
	local what=$1 port=$2 l n counts=

	shift 2
	tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 "$port" 21 "$SIZE" \
		"$SECS"
	tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 $((port + 1)) 22 \
		"$SIZE" "$SECS"
	for l in "$@"; do
		# shellcheck disable=SC2086
		n=$(loss_dropped $l)
		[ "${n:-0}" -gt 0 ] ||
			fail "$what: nothing dropped at $l: this tested nothing"
		counts="$counts, $n at $l"
	done
	log "ok: $what: packets dropped${counts#,}"
}

command -v nft >/dev/null || fail "nft not installed (nftables)"
topo_init
topo_peer_pod
topo_backend
topo_relay_guest
guest_dhcp4

# One segment per packet, as on a real link: 1% of 64 KiB GSO packets
# would be far fewer losses
ip -n "$NS_POD" link set pod0 gso_max_segs 1 || fail "pod0 gso_max_segs"
ip -n "$NS_PEER" link set peer0 gso_max_segs 1 || fail "peer0 gso_max_segs"
loss_add "$NS_POD" pod0 egress
loss_add "$NS_PEER" peer0 egress
both_ways "1% loss pod <-> peer" 5001 "$NS_POD pod0 egress" \
	"$NS_PEER peer0 egress"
loss_del "$NS_POD" pod0 egress
loss_del "$NS_PEER" peer0 egress

# The guest's egress is what the relay reads for netshim; its ingress,
# what netshim sends
loss_add "$NS_GUEST" tap0 egress
loss_add "$NS_GUEST" tap0 ingress
both_ways "1% loss guest <-> netshim" 5003 "$NS_GUEST tap0 egress" \
	"$NS_GUEST tap0 ingress"
