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
# makes it: each flow's answers on the pair of the guest's last frames of
# it. Virtio-net's own packet counts: the last pair's transmit queue
# carried at least 20 packets (the checks run on its CPU), and every
# pair that carried 20 or more out took at least a sixteenth as many in
# (a back-end that answers on the first pair only gives the others none).
# Not more exact: which pair a flow's frames take is the guest's to
# choose (transmit from softirq follows the interrupt's CPU), and a
# loaded guest takes many packets per interrupt: on a machine at load 8,
# a quarter failed once in about four runs (18324 out of pair 0, 3694 in,
# the rest of the answers on pair 1, where the checks ran). Logged when so, else
# what is wrong is printed
# @1: log file
# @2: queue pairs
# Return: 0 if so, 1 if not
vm_check_queues() {
	local v q rx tx

	v=$(vm_result "$1" queues)
	log "guest queues: $v"
	case "$v" in
	"pairs $2,"*) ;;
	*) echo "the guest has not $2 queue pairs in use: '$v'"; return 1 ;;
	esac
	for q in $(seq 0 $(($2 - 1))); do
		tx=$(echo "$v" |
			sed -n "s/.* tx_queue_${q}_packets \([0-9]*\).*/\1/p")
		rx=$(echo "$v" |
			sed -n "s/.* rx_queue_${q}_packets \([0-9]*\).*/\1/p")
		if [ -z "$tx" ] || [ -z "$rx" ]; then
			echo "no packet counts for queue pair $q: '$v'"
			return 1
		fi
		if [ "$q" = $(($2 - 1)) ] && [ "$tx" -lt 20 ]; then
			echo "transmit queue $q carried $tx packets, not the checks': '$v'"
			return 1
		fi
		if [ "$tx" -ge 20 ] && [ $((rx * 16)) -lt "$tx" ]; then
			echo "queue pair $q: $tx packets out, $rx in: the answers went elsewhere: '$v'"
			return 1
		fi
	done
	log "ok: each queue pair's answers came back on it"
}
