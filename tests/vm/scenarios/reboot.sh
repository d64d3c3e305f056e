# SPDX-License-Identifier: GPL-2.0-or-later
#
# reboot scenario: what a guest does after every boot (DHCPv4, a ping and
# a short TCP transfer each way to the peer), then "reboot -f": QEMU
# resets the virtio device and the next boot runs the same on the same
# back-end. The host counts the rounds ("NETSHIM-RESULT reboot_round")
# and ends QEMU after the last one it wants (run-vm.sh VM_REBOOT=1).
# Parameters: netshim.peer4, netshim.iperf_time (seconds, default 1).

t=${netshim_iperf_time:-1}
if dhcp4; then
	ping_test ping4 "$PEER4"
	iperf_test tcp_up "$PEER4" "$t" ""
	iperf_test tcp_down "$PEER4" "$t" -R
fi
result reboot_round "uptime $(cut -d' ' -f1 /proc/uptime)"
sync
reboot -f
