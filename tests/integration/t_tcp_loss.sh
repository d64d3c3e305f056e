#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# TCP through lossy links, sha256 checked on both ends:
# - 1% loss each way between the pod and the peer: the pod's kernel
#   retransmits, netshim must keep mirroring windows as the socket drains
#   unevenly;
# - loss each way between the guest and netshim: 1% of what netshim
#   sends, which it must retransmit (peeking again from the acknowledged
#   point), and 0.1% of the guest's frames, whose holes netshim must
#   answer, holding what comes after each until it is filled and telling
#   the guest so with SACK (tcp/ooo.c).  The guest's frames are lost in
#   the relay (--loss), past the guest's stack: one dropped in the guest's
#   own egress hook is an error its TCP sees and sends again at once, and
#   netshim then never saw a hole (it counted none while that was the
#   test's loss).
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
# $1: namespace, $2: device, $3: hook; or "relay": the guest's frames the
# relay lost while its loss was on, once it is off again
loss_dropped() {
	if [ "$1" = relay ]; then
		sed -n 's/^relay: lost \([0-9]*\) frames.*/\1/p' \
			"$WORK/relay.log" | tail -1
		return
	fi
	tcp_drop_count "$1" "loss_$2_$3"
}

# relay_loss() - switch the relay's loss of the guest's frames on or off,
# and wait until it said how many it lost
# $1: on or off
relay_loss() {
	local before _

	before=$(grep -c '^relay: lost' "$WORK/relay.log")
	kill -USR2 "$RELAY_PID" || fail "relay gone"
	[ "$1" = on ] && return
	for _ in $(seq 100); do
		[ "$(grep -c '^relay: lost' "$WORK/relay.log")" -gt "$before" ] &&
			return
		sleep 0.05
	done
	fail "the relay did not say what it lost"
}

# both_ways() - 64 MiB up and 64 MiB down, checked, with drop counts
# $1: what is lossy, $2: first port, $3...: "namespace device hook" of
# each lossy place
both_ways() {
	local what=$1 port=$2 l n counts=

	shift 2
	[ "$1" = relay ] && relay_loss on
	tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 "$port" 21 "$SIZE" \
		"$SECS"
	tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 $((port + 1)) 22 \
		"$SIZE" "$SECS"
	[ "$1" = relay ] && relay_loss off
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
RELAY_ARGS="--loss 0.1" topo_relay_guest
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

# The relay loses the guest's frames for netshim; tap0's ingress is what
# netshim sends
loss_add "$NS_GUEST" tap0 ingress
both_ways "loss guest <-> netshim (0.1% of its frames, 1% of ours)" 5003 \
	relay "$NS_GUEST tap0 ingress"

# A user who sees a guest's upload slow down asks the counters whose loss
# it was: segments of the guest lost on the way make netshim see the ones
# after them past a gap, and hold them
if [ "$BACKEND" = netshim ]; then
	n=$(topo_counter tcp_guest_ooo)
	[ "${n:-0}" -gt 0 ] ||
		fail "guest segments were lost, but tcp_guest_ooo is ${n:-missing}"
	w=$(topo_counter tcp_ooo_written)
	[ "${w:-0}" -gt 0 ] ||
		fail "$n guest segments came past a gap, none was held and written"
	log "ok: $n guest segments past a gap, $w bytes held and written" \
		"(tcp_sock_refused: $(topo_counter tcp_sock_refused) bytes)"
fi
