# SPDX-License-Identifier: GPL-2.0-or-later
#
# lib.sh - helpers of the test guest's /init and scenarios (busybox sh)
#
# Every outcome the host looks at is one "NETSHIM-RESULT key value..." line;
# a check reports "ok" or "fail" (or "skip") as the first word of its value.
# Addresses of the far end come from the kernel command line so the same
# scenarios run behind netshim, passt and libslirp.

# result - report one result line to the host.
# @1: key, one word
# @2...: value
result() {
	key=$1
	shift
	echo "NETSHIM-RESULT $key $*"
}

# guest_params - turn each netshim.KEY=VALUE of the kernel command line into
# the shell variable netshim_KEY, so scenarios take parameters from the host.
# Keys other than [a-z0-9_] are ignored: they would not be variable names.
guest_params() {
	for w in $(cat /proc/cmdline); do
		case "$w" in
		netshim.*=*) ;;
		*) continue ;;
		esac
		k=${w%%=*}
		k=${k#netshim.}
		case "$k" in
		'' | *[!a-z0-9_]*) continue ;;
		esac
		export "netshim_$k=${w#*=}"
	done
	# shellcheck disable=SC2034 # the scenarios use them
	PEER4=${netshim_peer4:-203.0.113.1}
	PEER6=${netshim_peer6:-2001:db8:1::1}
}

# guest_net_up - load the virtio network modules in dependency order (the
# order mkinitramfs.sh wrote) and bring up lo and eth0.
# Return: 0 when eth0 is up, 1 (after reporting why) otherwise.
guest_net_up() {
	# Keep kernel chatter off the console the host parses.
	echo 1 >/proc/sys/kernel/printk
	while read -r m; do
		if ! insmod "/lib/modules/$m.ko"; then
			result modules "fail $m"
			return 1
		fi
	done </lib/modules/order
	i=0
	while [ ! -e /sys/class/net/eth0 ]; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			result eth0 "fail no virtio-net device"
			cat /proc/modules
			dmesg | tail -n 20
			return 1
		fi
		usleep 100000
	done
	ip link set lo up
	ip link set eth0 up
}

# wait_for - run a command every 100 ms until it prints something.
# @1: tries before giving up
# @2...: the command
# Return: 0 and the output on stdout, 1 after the last try.
wait_for() {
	n=$1
	shift
	while [ "$n" -gt 0 ]; do
		out=$("$@")
		if [ -n "$out" ]; then
			echo "$out"
			return 0
		fi
		n=$((n - 1))
		usleep 100000
	done
	return 1
}

# dhcp4 - lease an IPv4 address with udhcpc and report address, router,
# DNS and MTU. Sets DHCP4_IP, DHCP4_MASK, DHCP4_ROUTER, DHCP4_DNS, DHCP4_MTU.
# Return: 0 with a lease, 1 without.
dhcp4() {
	rm -f /tmp/dhcp4.env
	udhcpc -i eth0 -f -q -n -t 5 -T 2 -O mtu -O search \
		-s /etc/netshim/udhcpc.script >/tmp/udhcpc.log 2>&1
	if [ ! -f /tmp/dhcp4.env ]; then
		result dhcp4 "fail no lease"
		sed 's/^/udhcpc: /' /tmp/udhcpc.log
		return 1
	fi
	. /tmp/dhcp4.env
	result dhcp4 "ok $DHCP4_IP/$DHCP4_MASK"
	result dhcp4_router "${DHCP4_ROUTER:-none}"
	result dhcp4_dns "${DHCP4_DNS:-none}"
	result dhcp4_mtu "${DHCP4_MTU:-none}"
	return 0
}

# slaac_addr - print eth0's first usable address the kernel configured from
# a router advertisement (flag "dynamic": not one we added ourselves).
slaac_addr() {
	ip -6 -o addr show dev eth0 scope global 2>/dev/null |
		grep dynamic | grep -v tentative | awk '{ print $4; exit }'
}

# ll6_ready - print eth0's link-local address once duplicate address
# detection is over for it.
ll6_ready() {
	ip -6 -o addr show dev eth0 scope link 2>/dev/null |
		grep -v tentative | awk '{ print $4; exit }'
}

# default6 - print the IPv6 default router learnt from advertisements.
default6() {
	ip -6 route show default 2>/dev/null | awk '{ print $3; exit }'
}

# slaac - wait up to 10 s for stateless autoconfiguration and report the
# address and the default router. Sets SLAAC_ADDR.
# Return: 0 with an address, 1 without.
slaac() {
	if ! SLAAC_ADDR=$(wait_for 100 slaac_addr); then
		result slaac "fail no address from router advertisements"
		return 1
	fi
	result slaac "ok $SLAAC_ADDR"
	result slaac_router "$(wait_for 20 default6 || echo none)"
	return 0
}

# dhcp6 - lease an IPv6 address with dhclient (Debian's busybox has no
# udhcpc6) and report it. Sets DHCP6_IP and DHCP6_DNS.
# Return: 0 with a lease or when no DHCPv6 client is in the image, 1 else.
dhcp6() {
	if ! command -v dhclient >/dev/null 2>&1; then
		result dhcp6 "skip no DHCPv6 client (isc-dhcp-client)"
		return 0
	fi
	rm -f /tmp/dhcp6.env
	: >/tmp/dhclient.conf
	# dhclient -6 binds to the link-local address and exits at once
	# while it is tentative. A router advertisement that comes during
	# that address's duplicate address detection can give a global
	# address sooner, so waiting for SLAAC is no proof: wait for the
	# link-local address itself, as Debian's ifupdown does before it
	# starts dhclient -6 (/lib/ifupdown/wait-for-ll6.sh).
	[ -n "$(ll6_ready)" ] ||
		echo "dhcp6: link-local address still tentative: waiting"
	if ! wait_for 100 ll6_ready >/dev/null; then
		result dhcp6 "fail no link-local address out of DAD in 10 s"
		ip -6 addr show dev eth0 | sed 's/^/dhclient: /'
		return 1
	fi
	# -1: one try then exit; on success dhclient forks to renew, which
	# is harmless: the guest powers off at the end.
	# -v: dhclient is silent without it, so a failure would say nothing.
	t0=$(cut -d. -f1 /proc/uptime)
	timeout 20 dhclient -6 -1 -v -cf /tmp/dhclient.conf \
		-lf /tmp/dhclient6.leases -pf /tmp/dhclient6.pid \
		-sf /etc/netshim/dhclient.script eth0 >/tmp/dhclient.log 2>&1
	rc=$?
	if [ ! -f /tmp/dhcp6.env ]; then
		t1=$(cut -d. -f1 /proc/uptime)
		result dhcp6 "fail no lease (dhclient exit $rc after $((t1 - t0)) s)"
		sed 's/^/dhclient: /' /tmp/dhclient.log | tail -n 15
		ip -6 addr show dev eth0 | sed 's/^/dhclient: /'
		return 1
	fi
	. /tmp/dhcp6.env
	result dhcp6 "ok $DHCP6_IP"
	result dhcp6_dns "${DHCP6_DNS:-none}"
	return 0
}

# ping_test - ping an address three times and report loss and mean RTT.
# @1: result key
# @2: address
ping_test() {
	out=$(ping -c 3 -w 10 "$2" 2>&1)
	rx=$(echo "$out" | sed -n 's/.* \([0-9]*\) packets received.*/\1/p')
	avg=$(echo "$out" | sed -n 's,.*min/avg/max = [^/]*/\([^/]*\)/.*,\1,p')
	if [ "${rx:-0}" -gt 0 ]; then
		result "$1" "ok $2: ${rx}/3 replies, avg ${avg} ms"
	else
		result "$1" "fail $2 no reply"
		echo "$out" | tail -n 3
	fi
}

# dns_test - resolve peer.netshim.test with a given server and report the
# addresses. A server "none" skips the check (libslirp would forward it to
# the machine's own resolvers, which tests never use).
# @1: DNS server
dns_test() {
	name=${netshim_dns_name:-peer.netshim.test}
	if [ -z "$1" ] || [ "$1" = none ]; then
		result dns "skip no DNS server"
		return
	fi
	out=$(timeout 10 nslookup "$name" "$1" 2>&1)
	addrs=$(echo "$out" | awk '/^Name:/ { n = 1; next }
		n && /^Address/ { print $NF; n = 0 }' | xargs)
	if [ -n "$addrs" ]; then
		result dns "ok $name -> $addrs"
	else
		result dns "fail $name via $1"
		echo "$out" | tail -n 3
	fi
}

# iperf_rate - print the receiver's bitrate of an iperf3 client's output.
iperf_rate() {
	grep receiver | grep -o '[0-9.]* [KMG]*bits/sec' | tail -n 1
}

# iperf_test - run iperf3 for some seconds and report the bitrate.
# @1: result key
# @2: server address
# @3: seconds
# @4: empty for guest to server, -R for server to guest
iperf_test() {
	# shellcheck disable=SC2086 # $4 is an optional flag
	out=$(timeout $(($3 + 20)) iperf3 -c "$2" -t "$3" --connect-timeout \
		5000 $4 2>&1)
	rate=$(echo "$out" | iperf_rate)
	if [ -n "$rate" ]; then
		result "$1" "ok $rate"
		echo "$out" | grep -E 'sender|receiver'
	else
		result "$1" "fail"
		echo "$out" | tail -n 3
	fi
}

# addressing - DHCPv4, SLAAC and DHCPv6 in a row, as a real guest would;
# with netshim.dhcp6=no, IPv6 from router advertisements alone, as most
# guests do.
addressing() {
	dhcp4
	slaac
	if [ "${netshim_dhcp6:-yes}" = no ]; then
		result dhcp6 "skip no DHCPv6 client, as asked"
		return 0
	fi
	dhcp6
}

# queue_irqs - interrupts a virtio queue took, all CPUs
# @1: its name in /proc/interrupts (virtio0-output.1, say)
queue_irqs() {
	awk -v q="$1" '$NF == q { for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) n += $i } END { print n + 0 }' /proc/interrupts
}

# queues_result - result "queues": the queue pairs eth0 has in use, the
# interrupts each of its queues took and the packets each carried
# (virtio-net's statistics), "pairs N, in0 I out0 O ...; rx_queue_0_packets
# P tx_queue_0_packets P ..."
queues_result() {
	pairs=$(ls -d /sys/class/net/eth0/queues/tx-* | wc -l)
	dev=$(basename "$(readlink /sys/class/net/eth0/device)")
	irqs=""
	q=0
	while [ "$q" -lt "$pairs" ]; do
		irqs="$irqs in$q $(queue_irqs "$dev-input.$q") out$q $(queue_irqs "$dev-output.$q")"
		q=$((q + 1))
	done
	result queues "pairs $pairs,$irqs; $(qstats eth0 2>&1)"
}
