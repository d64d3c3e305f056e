# SPDX-License-Identifier: GPL-2.0-or-later
#
# demo scenario: what a person wants to see of a guest's network. Addresses
# from DHCPv4, SLAAC and DHCPv6, ping both ways of IP, a DNS lookup through
# the server DHCP gave, and iperf3 each way.
# Parameters: netshim.peer4, netshim.peer6 (far end), netshim.dns (DNS
# server instead of DHCP's, "none" to skip), netshim.iperf_time (seconds).

addressing
ping_test ping4 "$PEER4"
ping_test ping6 "$PEER6"
dns_test "${netshim_dns:-${DHCP4_DNS%% *}}"
iperf_test iperf_up "${netshim_server:-$PEER4}" "${netshim_iperf_time:-3}"
iperf_test iperf_down "${netshim_server:-$PEER4}" "${netshim_iperf_time:-3}" -R
