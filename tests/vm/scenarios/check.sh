# SPDX-License-Identifier: GPL-2.0-or-later
#
# check scenario: the demo's addressing, ping and DNS, then payloads whose
# every byte is checked. TCP: random data made here is sent to the peer's
# hashing sink (port 5001 answers the sha256 of what it got and keeps the
# data), then fetched back from port 5002; both hashes must equal ours.
# UDP: datagrams of several sizes must come back unchanged from the peer's
# echo on port 5007. Over IPv4 and IPv6.
# Parameters: netshim.peer4, netshim.peer6, netshim.dns, netshim.tcp_mib
# (size of the TCP payload), netshim.udp_sizes (comma separated),
# netshim.cpu: run everything on this CPU, whose transmit queue is then
# the one of the same number on a multiqueue NIC (Linux's XPS); the
# result "queues" then says how many queue pairs the NIC has in use, and
# the interrupts and packets of each of its queues (queues_result).

# nc_hold - run busybox nc with a stdin that gives a file and then stays
# open, so the guest never half-closes: the peer decides when the
# connection ends. Half-closing has its own check, tcp_halfclose.
# @1: file to send (/dev/null for none)
# @2: address
# @3: port
nc_hold() {
	rm -f /tmp/hold
	mkfifo /tmp/hold
	# Opened read-write: nc's stdin never sees end-of-file.
	exec 3<>/tmp/hold
	cat "$1" >/tmp/hold &
	feeder=$!
	timeout 120 nc "$2" "$3" <&3
	kill "$feeder" 2>/dev/null
	exec 3>&-
	rm -f /tmp/hold
}

# elapsed - print the seconds since an uptime reading.
# @1: earlier first field of /proc/uptime
elapsed() {
	echo "$(cut -d' ' -f1 /proc/uptime) $1" | awk '{ printf "%.1f", $1 - $2 }'
}

# tcp_up - send a file to the peer's hashing sink, which reads exactly
# netshim.tcp_mib MiB, answers their sha256 and closes; compare hashes.
# @1: result key
# @2: peer address
# @3: file
tcp_up() {
	want=$(sha256sum <"$3" | cut -d' ' -f1)
	start=$(cut -d' ' -f1 /proc/uptime)
	got=$(nc_hold "$3" "$2" 5001 | cut -d' ' -f1)
	if [ "$got" = "$want" ]; then
		result "$1" "ok $(stat -c %s "$3") bytes in $(elapsed "$start") s"
	else
		result "$1" "fail sent $want, peer got $(echo "$got" | xargs)"
	fi
}

# tcp_down - fetch back what the peer's sink kept and compare hashes.
# @1: result key
# @2: peer address
# @3: file sent before
tcp_down() {
	want=$(sha256sum <"$3" | cut -d' ' -f1)
	start=$(cut -d' ' -f1 /proc/uptime)
	nc_hold /dev/null "$2" 5002 >/tmp/down.bin
	secs=$(elapsed "$start")
	got=$(sha256sum </tmp/down.bin | cut -d' ' -f1)
	size=$(stat -c %s /tmp/down.bin)
	rm -f /tmp/down.bin
	if [ "$got" = "$want" ]; then
		result "$1" "ok $size bytes in $secs s"
	else
		result "$1" "fail got $size bytes, sha256 $got"
	fi
}

# tcp_halfclose - send a file and close our side (FIN first, as nc does at
# the end of its input); the peer's port 5003 answers the sha256 of
# everything up to that FIN, then closes too.
# @1: result key
# @2: peer address
tcp_halfclose() {
	head -c 65536 /dev/urandom >/tmp/half
	want=$(sha256sum </tmp/half | cut -d' ' -f1)
	got=$(timeout 10 nc "$2" 5003 </tmp/half)
	rc=$?
	got=$(echo "$got" | cut -d' ' -f1 | head -n 1)
	rm -f /tmp/half
	if [ "$got" = "$want" ] && [ $rc -eq 0 ]; then
		result "$1" "ok"
	elif [ "$got" = "$want" ]; then
		result "$1" "fail answer right but no FIN from the peer"
	else
		result "$1" "fail sent $want, peer got $(echo "$got" | xargs)"
	fi
}

# udp_echo - send datagrams of each size to the peer's echo, compare.
# @1: result key
# @2: socat address of the echo
udp_echo() {
	if ! command -v socat >/dev/null 2>&1; then
		result "$1" "skip socat is not in the image"
		return
	fi
	bad=""
	for n in $(echo "${netshim_udp_sizes:-1,512,1400}" | tr , ' '); do
		head -c "$n" /dev/urandom >/tmp/dgram
		timeout 10 socat -t 2 -b 65536 - "$2" </tmp/dgram >/tmp/echo
		cmp -s /tmp/dgram /tmp/echo || bad="$bad $n"
	done
	if [ -z "$bad" ]; then
		result "$1" "ok sizes ${netshim_udp_sizes:-1,512,1400}"
	else
		result "$1" "fail sizes$bad"
	fi
}

[ -z "${netshim_cpu:-}" ] || taskset -p -c "$netshim_cpu" $$ >/dev/null
addressing
ping_test ping4 "$PEER4"
ping_test ping6 "$PEER6"
dns_test "${netshim_dns:-${DHCP4_DNS%% *}}"

head -c $((${netshim_tcp_mib:-20} * 1048576)) /dev/urandom >/tmp/payload
tcp_up tcp4_up "$PEER4" /tmp/payload
tcp_down tcp4_down "$PEER4" /tmp/payload
tcp_halfclose tcp4_halfclose "$PEER4"
head -c $((${netshim_tcp_mib:-20} * 1048576)) /dev/urandom >/tmp/payload6
tcp_up tcp6_up "$PEER6" /tmp/payload6
tcp_down tcp6_down "$PEER6" /tmp/payload6
tcp_halfclose tcp6_halfclose "$PEER6"
rm -f /tmp/payload /tmp/payload6

udp_echo udp4_echo "UDP4:$PEER4:5007"
udp_echo udp6_echo "UDP6:[$PEER6]:5007"
[ -z "${netshim_cpu:-}" ] || queues_result
