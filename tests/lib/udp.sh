# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Helpers of the UDP checks, sourced after tests/lib/topo.sh: datagrams of
# random content and sizes echoed and compared byte for byte.

COUNT=${COUNT:-20}

# make_payloads() - distinct random datagrams of various sizes, 1..1400
# $1: directory to write dg.1 .. dg.$COUNT into
make_payloads() {
	local i size

	mkdir -p "$1"
	for i in $(seq "$COUNT"); do
		size=$(( (i * 997) % 1400 + 1 ))
		[ "$i" = 1 ] && size=1400
		head -c "$size" /dev/urandom >"$1/dg.$i"
	done
}

# udp_client() - send each datagram on one socket, check each echo
# $1: address, $2: port, $3: payload directory holding dg.1 .. dg.$4
#
# Run inside a namespace through "bash -c": dd moves exactly one datagram
# per read or write, so message boundaries are checked too.  The first
# datagram may be resent twice while neighbours are being resolved; the
# others must each come back on the first try.
udp_client() {
	local i max f

	exec 3<>"/dev/udp/$1/$2" || { echo "cannot open socket"; return 1; }
	for i in $(seq "$4"); do
		f=$3/dg.$i
		max=1
		[ "$i" = 1 ] && max=3
		for _ in $(seq "$max"); do
			dd if="$f" bs=65536 count=1 status=none >&3 || return 1
			timeout 2 dd bs=65536 count=1 status=none \
				of="$3/echo.$i" <&3 && break
		done
		if ! cmp -s "$f" "$3/echo.$i"; then
			echo "datagram $i ($(stat -c %s "$f") bytes) to $1 port $2:" \
				"echo is $(stat -c %s "$3/echo.$i" 2>/dev/null) bytes, differs"
			return 1
		fi
	done
	echo "$i datagrams echoed intact by $1 port $2"
}

# run_client() - udp_client inside a namespace
# $1: namespace, $2: address, $3: port, $4: payload directory
run_client() {
	local out

	out=$(ip netns exec "$1" timeout 60 bash -c \
		"$(declare -f udp_client); udp_client $2 $3 $4 $COUNT" 2>&1) ||
		fail "UDP to $2 port $3 from $1: $out"
	log "ok: $out"
}

# echo_server() - start a UDP echo server in a namespace, wait for it
# $1: namespace, $2: socat listen address, $3: local address as ss shows it
#
# UDP-LISTEN serves the first client's socket only, and the clients here
# use one socket each; PIPE returns each datagram as it came, since the
# client waits for every echo before sending the next.
echo_server() {
	local i port=${2#*:}

	port=${port%%,*}
	ip netns exec "$1" timeout 120 socat -T 60 "$2" PIPE \
		>>"$WORK/socat.log" 2>&1 &
	topo_pid_add $!
	for i in $(seq 50); do
		ip netns exec "$1" ss -Hlun "sport = :$port" |
			grep -q "${3:-.}" && return 0
		sleep 0.1
	done
	fail "echo server $2 in $1 not listening"
}

# udp_both_ways() - datagrams echoed both ways over both families: from
# the guest to the peer's echo on port 7000, and from the peer to the
# guest's echo on its port 5000 through the backend's -u 5001:5000
# $1: the peer's IPv4 address, $2: its IPv6 address
udp_both_ways() {
	make_payloads "$WORK/p4"
	make_payloads "$WORK/p6"
	make_payloads "$WORK/i4"
	make_payloads "$WORK/i6"
	echo_server "$NS_PEER" "UDP4-LISTEN:7000,bind=$1" "$1"
	echo_server "$NS_PEER" "UDP6-LISTEN:7000,bind=[$2]" "$2"
	run_client "$NS_GUEST" "$1" 7000 "$WORK/p4"
	run_client "$NS_GUEST" "$2" 7000 "$WORK/p6"
	echo_server "$NS_GUEST" UDP4-LISTEN:5000 0.0.0.0
	echo_server "$NS_GUEST" UDP6-LISTEN:5000,ipv6only=1 '\[::\]'
	run_client "$NS_PEER" 203.0.113.2 5001 "$WORK/i4"
	run_client "$NS_PEER" 2001:db8:1::2 5001 "$WORK/i6"
}
