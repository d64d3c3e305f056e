# SPDX-License-Identifier: GPL-2.0-or-later
#
# migbench scenario (tests/bench/migrate.sh): DHCPv4, then netshim.conns
# TCP connections to the peer's iperf3 servers (ports 5201 and up, at most
# 100 streams each, 1 kbit/s per stream) held for netshim.hold seconds, in
# which the host live-migrates the guest.  Each iperf3 client's status
# then says whether its connections lived through the migration.  The
# clients pace every 100 ms, not every 1 ms: ten of them waking 1000
# times a second kept a TCG guest so busy that their tests ended more
# than 5 s late, and the peer's iperf3 servers give up then.

n=${netshim_conns:-1}
hold=${netshim_hold:-40}
if dhcp4; then
	port=5201
	pids=""
	while [ "$n" -gt 0 ]; do
		p=$((n > 100 ? 100 : n))
		iperf3 -c "$PEER4" -p "$port" -P "$p" -b 1K -t "$hold" \
			--pacing-timer 100000 --connect-timeout 5000 \
			>"/tmp/iperf-$port.log" 2>&1 &
		pids="$pids $!"
		n=$((n - p))
		port=$((port + 1))
	done
	sleep 2
	result migbench_ready "$(echo $pids | wc -w) clients"
	ok=0
	bad=0
	for p in $pids; do
		if wait "$p"; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
		fi
	done
	result migbench_clients "$ok ok, $bad failed"
	for f in /tmp/iperf-*.log; do
		grep -q 'iperf Done' "$f" ||
			result migbench_error "$f: $(tail -n 1 "$f")"
	done
fi
result migbench_done "uptime $(cut -d' ' -f1 /proc/uptime)"
