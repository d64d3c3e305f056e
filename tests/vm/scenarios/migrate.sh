# SPDX-License-Identifier: GPL-2.0-or-later
#
# migrate scenario: DHCPv4, then a download from the peer's counter
# stream (tests/vm/t_vm_migrate.sh: 16-byte lines "%15d\n", numbered
# from 0) that runs while the host live-migrates the guest to another
# QEMU on another back-end.  The guest does not know when that happens:
# it reports how the download ended (after a reset, counted by the kernel
# as EstabResets since socat takes a reset for an end, or still open after
# netshim.wait seconds), whether every line it got is the one expected
# (a receive buffer written by the back-end during the memory copy and
# not copied again would show here, or in the virtio driver's
# complaints), then checks the network from its new home: a new lease,
# ping, and new TCP connections both ways.
# Parameters: netshim.peer4, netshim.wait (default 120).

wait_s=${netshim_wait:-120}

# estab_resets - the kernel's count of connections reset (RFC 1213's
# tcpEstabResets)
estab_resets() {
	awk '/^Tcp:/ { if (!h) { for (i = 2; i <= NF; i++) if ($i == "EstabResets") k = i; h = 1 } else print $k }' /proc/net/snmp
}

if dhcp4; then
	resets=$(estab_resets)
	# Lines checked as they come, as the peer wrote them: $1 drops the
	# padding (no leading zeros, which busybox awk would read as octal)
	(socat -u "TCP:$PEER4:5310" - 2>/tmp/down.err |
		awk 'length($0) == 15 { n++; if ($1 != NR - 1) bad++ }
		     length($0) != 15 { short++ }
		     n % 65536 == 0 { print n > "/tmp/down.n"; close("/tmp/down.n") }
		     END { printf "%d lines, %d wrong, %d short\n", n, bad, short }' \
		>/tmp/down.res) &
	pid=$!
	sleep 3
	result migrate_ready "$(cat /tmp/down.n 2>/dev/null) lines so far"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ "$i" -lt $((wait_s * 2)) ]; do
		sleep 0.5
		i=$((i + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		result old_conn "open after $wait_s s"
		kill "$pid"
	else
		result old_conn "ended, after $((i / 2)) s; resets" \
			"$(($(estab_resets) - resets)):" \
			"$(tail -n 1 /tmp/down.err)"
	fi
	result down_lines "$(cat /tmp/down.res)"
	dhcp4
	ping_test ping4_after "$PEER4"
	iperf_test tcp_up_after "$PEER4" 2 ""
	iperf_test tcp_down_after "$PEER4" 2 -R
fi
result migrate_done "uptime $(cut -d' ' -f1 /proc/uptime)"
