# SPDX-License-Identifier: GPL-2.0-or-later
#
# restart scenario: DHCPv4, then a peer->guest transfer during which the
# host kills the back-end and starts it again (tests/vm/t_vm_restart.sh),
# QEMU reconnecting by itself; then, without a reboot, rounds of ping and
# TCP each way, every one of which must work on the new back-end's rings.
# Parameters: netshim.peer4, netshim.iperf_time (seconds of the transfer
# the restart lands in, default 6), netshim.rounds (default 3),
# netshim.cpus: on a multiqueue NIC, the transfer runs from the last CPU
# and round i from CPU (i - 1) mod cpus, so that each CPU's transmit queue
# (Linux's XPS) carries the rounds' frames, and the result "queues" gives
# each queue's interrupts and packets (queues_result).

t=${netshim_iperf_time:-6}
cpus=${netshim_cpus:-1}
if dhcp4; then
	[ "$cpus" -gt 1 ] && taskset -p -c $((cpus - 1)) $$ >/dev/null
	iperf_test tcp_restart "$PEER4" "$t" -R
	i=1
	while [ "$i" -le "${netshim_rounds:-3}" ]; do
		[ "$cpus" -gt 1 ] &&
			taskset -p -c $(((i - 1) % cpus)) $$ >/dev/null
		ping_test "ping4_$i" "$PEER4"
		iperf_test "tcp_down_$i" "$PEER4" 2 -R
		iperf_test "tcp_up_$i" "$PEER4" 2 ""
		i=$((i + 1))
	done
	[ "$cpus" -gt 1 ] && queues_result
fi
result restart_done "uptime $(cut -d' ' -f1 /proc/uptime)"
