# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench scenario: iperf3 from the guest to a server and back, each run's
# JSON report printed between "NETSHIM-JSON-BEGIN dir" and
# "NETSHIM-JSON-END dir" lines (dir: up or down) for the host to parse.
# Parameters: netshim.server (default netshim.peer4), netshim.iperf_time
# (seconds, default 10), netshim.iperf_args (extra iperf3 arguments,
# comma separated since the kernel command line splits on spaces, e.g.
# netshim.iperf_args=-P,4).  Around each run the guest's TCP counters
# (the Tcp: lines of /proc/net/snmp, names then values) are printed as
# "NETSHIM-TCP-SNMP dir before|after ...": how many segments the guest's
# kernel sent and received, ACKs included, and how many it retransmitted.

# tcp_snmp - print the guest's TCP counters on one line
# @1: direction name, @2: before or after
tcp_snmp() {
	printf 'NETSHIM-TCP-SNMP %s %s' "$1" "$2"
	while read -r name rest; do
		[ "$name" = Tcp: ] && printf ' %s' "$rest"
	done </proc/net/snmp
	echo
}

# bench_run - run one iperf3 client and print its JSON between markers.
# @1: direction name (up, down)
# @2...: extra iperf3 arguments
bench_run() {
	dir=$1
	shift
	tcp_snmp "$dir" before
	echo "NETSHIM-JSON-BEGIN $dir"
	# shellcheck disable=SC2086 # $extra is a list of arguments
	timeout $((${netshim_iperf_time:-10} + 30)) iperf3 -c "$server" \
		-t "${netshim_iperf_time:-10}" --connect-timeout 5000 -J \
		$extra "$@" >/tmp/iperf.json 2>&1
	rc=$?
	cat /tmp/iperf.json
	echo
	echo "NETSHIM-JSON-END $dir"
	tcp_snmp "$dir" after
	if [ $rc -eq 0 ]; then
		result "bench_$dir" ok
	else
		result "bench_$dir" "fail iperf3 exit $rc"
	fi
}

server=${netshim_server:-$PEER4}
extra=$(echo "${netshim_iperf_args:-}" | tr , ' ')
dhcp4
case "$server" in
*:*) slaac ;;
esac
bench_run up
# iperf3 -s takes the next test only once it has closed this one
sleep 1
bench_run down -R
