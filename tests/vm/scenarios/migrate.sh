# SPDX-License-Identifier: GPL-2.0-or-later
#
# migrate scenario: DHCPv4, then two bulk transfers that run while the
# host live-migrates the guest to another QEMU on another back-end
# (tests/vm/t_vm_migrate.sh):
#   down  the peer's counter stream on port 5310 (16-byte lines "%15d\n",
#         numbered from 0, for some seconds, then the peer closes), each
#         line checked as it arrives;
#   up    seq's lines 0..netshim.up_lines to port 5311, where the peer
#         checks them;
#   conns netshim.conns TCP connections (default none) to the peer's echo
#         server on 5313, opened first, each writing a line and reading it
#         back, checked, round after round (conns, built from
#         tests/vm/conns.c);
#   udp   one datagram from port 5312 to the peer's UDP server on 5312,
#         which from then on pushes one back every 0.2 s: the pushes
#         counted, the guest sending nothing more;
#   echo  a TCP echo server on port 5315, which the first back-end forwards
#         from the pod (-t): the peer's inbound connection, opened before
#         the first migration, writes a line and reads it back, checked,
#         until the test ends it;
#   hold  one datagram from port 5314 to the peer's server there, whose
#         answers, large datagrams of a pattern, stay unread in the
#         receive buffers the back-end wrote them to until the download
#         has ended, then are checked (udphold, built from
#         tests/vm/udphold.c): a buffer written during the memory copy
#         and missing from the dirty log comes out wrong there;
#   probe with netshim.probe=PORT, a new TCP connection to the peer's
#         PORT every second, each writing its number: the host sees new
#         connections work after each migration, wherever the guest is.
# The guest does not know when the migration happens.  It reports how
# each transfer ended: its status and the kernel's count of connections
# reset (EstabResets: socat takes a reset for an end of stream), or that
# it was still running after netshim.wait seconds; how many lines it got,
# and how many were wrong (a receive buffer written by the back-end during
# the memory copy and not copied again would show here, or in the virtio
# driver's complaints).  Then it checks the network from its new home: a
# new lease, ping, and new TCP connections both ways.
# Parameters: netshim.peer4, netshim.wait (default 120), netshim.up_lines
# (default 2000000), netshim.conns (default 0), netshim.down_stall (default
# 0: seconds the download stops reading after its first two, before the
# migration starts, so that the guest's window and the pod's receive
# queue are full when it comes, as when a busy guest falls behind),
# netshim.probe (default 0: none).

wait_s=${netshim_wait:-120}
up_lines=${netshim_up_lines:-2000000}
conns=${netshim_conns:-0}
stall=${netshim_down_stall:-0}
probe=${netshim_probe:-0}

# mib - counters of one section of /proc/net/snmp or /proc/net/netstat
# (a line of names, then a line of values), one "NAME VALUE" line each
# $1: file, $2: section (Tcp, TcpExt), $3: the names, an extended regex
mib() {
	awk -v sec="$2:" -v want="^($3)\$" '$1 == sec {
		if (!h) { for (i = 2; i <= NF; i++) k[i] = $i; h = 1; next }
		for (i = 2; i <= NF; i++) if (k[i] ~ want) print k[i], $i }' "$1"
}

# estab_resets - the kernel's count of connections reset (RFC 1213's
# tcpEstabResets)
estab_resets() {
	mib /proc/net/snmp Tcp EstabResets | cut -d' ' -f2
}

# hung_state - what the guest's kernel says of a transfer that hung: its
# TCP memory, the sockets of the download and the upload (ports 5310 and
# 5311: queues, state, timers), the receive side's drops and its zero
# window counts, and what the readers and writers are doing
hung_state() {
	result hung_sockstat "$(grep -E '^(TCP|sockets):' /proc/net/sockstat |
		tr '\n' ';')"
	result hung_tcp "$(awk '$3 ~ /:14B[EF]$/ { print $2, $3, $4, $5, $6 }' \
		/proc/net/tcp | tr '\n' ';')"
	result hung_tcpext "$(mib /proc/net/netstat TcpExt \
		'PruneCalled|RcvPruned|OfoPruned|TCPRcvQDrop|TCPZeroWindowDrop|TCPMemoryPressures|TCPOFOQueue|TCPOFODrop|TCPWantZeroWindowAdv|TCPToZeroWindowAdv|TCPFromZeroWindowAdv' |
		tr '\n' ';')"
	result hung_load "$(cat /proc/loadavg)"
	# comm, state, what it waits on, user and system ticks
	result hung_procs "$(for p in /proc/[0-9]*; do
		c=$(cat "$p/comm" 2>/dev/null)
		case "$c" in socat|awk|cat|dd|seq|conns)
			echo "$c $(cut -d' ' -f3 "$p/stat") $(cat "$p/wchan" 2>/dev/null) $(cut -d' ' -f14,15 "$p/stat")" ;;
		esac
	done | tr '\n' ';')"
}

# running - is any of these processes still there
running() {
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && return 0
	done
	return 1
}

# The virtio features the driver took, a string of bits from bit 0
result nic_features "$(cat /sys/class/net/eth0/device/features)"
if dhcp4; then
	if [ "$conns" -gt 0 ]; then
		# A round every 2 s at most: back to back, the rounds took
		# all of a TCG guest's CPU, and the download, checked line by
		# line by awk, crawled at 14 KB/s behind a pod socket that
		# holds up to 32 MiB here (tcp_rmem): it could not end in time
		conns "$PEER4" 5313 "$conns" /tmp/conns.stop /tmp/conns.n 2000 \
			>/tmp/conns.res 2>&1 &
		cpid=$!
		# All open and one round done before the rest starts
		i=0
		while [ ! -s /tmp/conns.n ] && running "$cpid" &&
		      [ "$i" -lt 240 ]; do
			sleep 0.5
			i=$((i + 1))
		done
	fi
	if [ "$probe" -gt 0 ]; then
		( n=0
		  while [ ! -e /tmp/probe.stop ] && [ "$n" -lt "$wait_s" ]; do
			echo "$n" | socat -u - \
				"TCP:$PEER4:$probe,connect-timeout=2" 2>/dev/null
			n=$((n + 1))
			sleep 1
		  done ) &
	fi
	udphold "$PEER4" 5314 /tmp/hold.drain >/tmp/hold.res 2>&1 &
	hold=$!
	resets=$(estab_resets)
	# Lines checked as they come, as the peer wrote them: $1 drops the
	# padding (no leading zeros, which busybox awk would read as octal)
	# dd reads no more than it writes: nothing is lost at the stall.
	# socat takes a reset for an end of stream, with a warning (-d)
	(socat -d -u "TCP:$PEER4:5310" - 2>/tmp/down.err |
		{ if [ "$stall" -gt 0 ]; then
			end=$(($(date +%s) + 2))
			while [ "$(date +%s)" -lt "$end" ]; do
				dd bs=65536 count=16 2>/dev/null
			done
			sleep "$stall"
		  fi
		  cat; } |
		awk 'length($0) == 15 { n++; if ($1 != NR - 1) bad++ }
		     length($0) != 15 { short++ }
		     n % 65536 == 0 { print n > "/tmp/down.n"; close("/tmp/down.n") }
		     END { printf "%d lines, %d wrong, %d short\n", n, bad, short }' \
		>/tmp/down.res) &
	down=$!
	# The UDP session: socat sends the first line as a datagram from its
	# port 5312 and writes out what comes back, where awk counts it;
	# its input stays open, with nothing more, until the end
	( ( echo hello
	    while [ ! -e /tmp/udp.stop ]; do sleep 0.2; done ) |
		socat - "UDP:$PEER4:5312,sourceport=5312" 2>/tmp/udp.err |
		awk '{ n++; print n > "/tmp/udp.n.tmp"; close("/tmp/udp.n.tmp")
		       system("mv /tmp/udp.n.tmp /tmp/udp.n") }' ) &
	(seq 0 "$up_lines" | socat -u - "TCP:$PEER4:5311" 2>/tmp/up.err
	 echo "$?" >/tmp/up.rc) &
	up=$!
	socat TCP-LISTEN:5315,reuseaddr,fork PIPE 2>/tmp/echo.err &
	sleep 3
	result migrate_ready "$(cat /tmp/down.n 2>/dev/null) lines so far" \
		"${cpid:+, $(cat /tmp/conns.n 2>/dev/null) rounds of $conns connections}"
	i=0
	while running "$down" "$up" && [ "$i" -lt $((wait_s * 2)) ]; do
		sleep 0.5
		i=$((i + 1))
	done
	if running "$down" "$up"; then
		result transfers "still running after $wait_s s"
		hung_state
		kill "$down" "$up" 2>/dev/null
	else
		result transfers "ended after $((i / 2)) s; upload status" \
			"$(cat /tmp/up.rc); resets $(($(estab_resets) - resets))"
	fi
	result down_lines "$(cat /tmp/down.res)"
	# How it ended, in socat's words: nothing after an end of stream
	result down_err "$(tr '\n' ' ' </tmp/down.err | head -c 200)"
	touch /tmp/hold.drain
	wait "$hold"
	result hold "$(head -c 300 /tmp/hold.res)"
	e1=$(cat /tmp/udp.n 2>/dev/null)
	r1=$(cat /tmp/conns.n 2>/dev/null)
	sleep 3
	e2=$(cat /tmp/udp.n 2>/dev/null)
	# A round of many connections may take longer than that under TCG
	i=0
	while [ -n "${cpid:-}" ] && [ "$(cat /tmp/conns.n)" = "$r1" ] &&
	      running "$cpid" && [ "$i" -lt 60 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	r2=$(cat /tmp/conns.n 2>/dev/null)
	touch /tmp/udp.stop /tmp/conns.stop /tmp/probe.stop
	result udp "pushes ${e2:-0}, $((${e2:-0} - ${e1:-0})) in the last 3 s$(head -c 200 /tmp/udp.err)"
	if [ -n "${cpid:-}" ]; then
		wait "$cpid"
		result conns "$(head -c 300 /tmp/conns.res);" \
			"$((${r2:-0} - ${r1:-0})) rounds since the transfers ended"
	fi
	dhcp4
	ping_test ping4_after "$PEER4"
	iperf_test tcp_up_after "$PEER4" 2 ""
	iperf_test tcp_down_after "$PEER4" 2 -R
fi
result migrate_done "uptime $(cut -d' ' -f1 /proc/uptime)"
