# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# peer.sh - the servers the test guest talks to, started in the peer
# namespace of tests/lib/topo.sh (source that first, after topo_init):
#
#   5201/tcp  iperf3 -s
#   5001/tcp  hashing sink: reads exactly VM_TCP_MIB MiB (default 20, the
#             guest's netshim.tcp_mib), keeps them in $WORK/vm-up.bin,
#             answers their sha256 and closes
#   5002/tcp  source: sends $WORK/vm-up.bin back and closes
#   5003/tcp  answers the sha256 of what it got once the guest half-closes
#   5007/udp  echo, on $VM_PEER4 and $VM_PEER6 (default 203.0.113.1 and
#             2001:db8:1::1): bound to the address the guest uses, so
#             replies come from it even when it is not the one of the
#             route back (198.51.100.1 and 2001:db8:2::1 are on lo)
#
# All listen on IPv4 and IPv6. Each process is recorded with topo_pid_add,
# and topo_cleanup stops them.

# vm_peer_start - start one server in the peer namespace and record it.
# @1: name for the log file $WORK/peer-NAME.log
# @2...: command
vm_peer_start() {
	local name=$1

	shift
	ip netns exec "$NS_PEER" "$@" >"$WORK/peer-$name.log" 2>&1 &
	topo_pid_add "$!"
}

# vm_peer_wait - wait until the peer listens on a port.
# @1: tcp or udp
# @2: port
vm_peer_wait() {
	local flag=-Hltn

	[ "$1" = udp ] && flag=-Hlun
	for _ in $(seq 50); do
		[ -n "$(in_peer ss "$flag" "sport = :$2")" ] && return 0
		sleep 0.1
	done
	fail "peer: nothing listens on $1 port $2 after 5 s"
}

# vm_peer_iperf - iperf3 server in the peer.
vm_peer_iperf() {
	vm_peer_start iperf3 iperf3 -s
	vm_peer_wait tcp 5201
}

# vm_peer_servers - every server of the check scenario.
vm_peer_servers() {
	local sink

	vm_peer_iperf
	: >"$WORK/vm-up.bin"
	sink="head -c $((${VM_TCP_MIB:-20} * 1048576)) | tee $WORK/vm-up.bin"
	vm_peer_start sink socat \
		TCP6-LISTEN:5001,ipv6only=0,reuseaddr,fork \
		SYSTEM:"$sink | sha256sum"
	# -t 10: once the guest has half-closed, wait for the hash
	vm_peer_start half socat -t 10 \
		TCP6-LISTEN:5003,ipv6only=0,reuseaddr,fork SYSTEM:sha256sum
	# -U: only send; the guest's early close of its side ends nothing
	vm_peer_start source socat -U \
		TCP6-LISTEN:5002,ipv6only=0,reuseaddr,fork \
		"OPEN:$WORK/vm-up.bin,rdonly"
	vm_peer_start echo4 socat -T 5 \
		"UDP4-RECVFROM:5007,bind=${VM_PEER4:-203.0.113.1},fork" PIPE
	vm_peer_start echo6 socat -T 5 \
		"UDP6-RECVFROM:5007,bind=[${VM_PEER6:-2001:db8:1::1}],fork" PIPE
	vm_peer_wait tcp 5001
	vm_peer_wait tcp 5002
	vm_peer_wait tcp 5003
	vm_peer_wait udp 5007
}

# vm_result - value of one NETSHIM-RESULT line of a guest's console log.
# @1: log file
# @2: key
vm_result() {
	sed -n "s/^NETSHIM-RESULT $2 //p" "$1" | head -n 1
}

# vm_check - whether one result of a guest is ok and, when a pattern is
# given, matches it; logged when it is, else what is wrong is printed
# @1: log file
# @2: key
# @3: extended regular expression the value must match (optional)
# Return: 0 if ok, 1 if not
vm_check() {
	local v

	v=$(vm_result "$1" "$2")
	if [ -z "$v" ]; then
		echo "guest reported no $2"
		return 1
	fi
	case "$v" in
	ok*) ;;
	*) echo "$2: $v"; return 1 ;;
	esac
	if [ -n "${3:-}" ] && ! echo "$v" | grep -Eq "$3"; then
		echo "$2: '$v' does not match '$3'"
		return 1
	fi
	log "ok: $2 ${v#ok }"
}

# vm_check_queues - whether a multiqueue guest ("check" scenario run with
# netshim.cpu=N-1) used its N queue pairs as a back-end that steers flows
# makes it: the last pair's transmit queue carried the checks' frames (its
# used buffers came back with interrupts) and the answers came back on the
# same pair's receive queue (at least 100 interrupts; a back-end that
# answers every flow on the first pair gives it 1); logged when so, else
# what is wrong is printed
# @1: log file
# @2: queue pairs
# Return: 0 if so, 1 if not
vm_check_queues() {
	local v n q=$(($2 - 1))

	v=$(vm_result "$1" queues)
	log "guest queues: $v"
	case "$v" in
	"pairs $2,"*) ;;
	*) echo "the guest has not $2 queue pairs in use: '$v'"; return 1 ;;
	esac
	n=$(echo "$v" | sed -n "s/.* out$q \([0-9]*\).*/\1/p")
	if [ "${n:-0}" -le 0 ]; then
		echo "transmit queue $q took no interrupt: '$v'"
		return 1
	fi
	n=$(echo "$v" | sed -n "s/.* in$q \([0-9]*\).*/\1/p")
	if [ "${n:-0}" -lt 100 ]; then
		echo "receive queue $q took ${n:-no} interrupts, not the checks' answers: '$v'"
		return 1
	fi
	log "ok: the checks' answers came on receive queue $q ($n interrupts)"
}
