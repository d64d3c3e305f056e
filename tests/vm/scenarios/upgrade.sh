# SPDX-License-Identifier: GPL-2.0-or-later
#
# upgrade scenario: DHCPv4, then a TCP stream each way while the host
# upgrades netshim in place under the guest, again and again
# (tests/vm/t_vm_upgrade.sh):
#   down  the peer's stream on port 5320, until the peer ends it, hashed
#         here as it comes;
#   up    random bytes to the peer's port 5321, hashed here as they go,
#         until the host says stop: the peer closes the guest's control
#         connection on port 5322, idle until then;
# each reported as "SHA256 BYTES", for the host to compare with what the
# peer sent and got.  The guest does not know when the upgrades happen.
# Then from where it is: a new lease, ping, new TCP connections both ways.
# Parameters: netshim.peer4, netshim.wait (default 300: seconds the
# transfers may take).

wait_s=${netshim_wait:-300}

# hashed - hash what goes through, into FILE.sha and FILE.n
# $1: FILE prefix; stdin to stdout
hashed() {
	rm -f "$1.fifo" "$1.fifo2"
	mkfifo "$1.fifo" "$1.fifo2"
	sha256sum <"$1.fifo" | cut -d' ' -f1 >"$1.sha" &
	wc -c <"$1.fifo2" | tr -d ' ' >"$1.n" &
	tee "$1.fifo" "$1.fifo2"
}

if dhcp4; then
	# Down: as it comes, until the peer's end of stream
	(socat -u "TCP:$PEER4:5320" - 2>/tmp/down.err |
		hashed /tmp/down >/dev/null) &
	down=$!
	# The host's word to stop: the peer closes this connection
	(socat -u "TCP:$PEER4:5322" - >/dev/null 2>&1
	 touch /tmp/up.stop) &
	# Up: 1 MiB pieces of random bytes until told to stop
	( (while [ ! -e /tmp/up.stop ]; do
		dd if=/dev/urandom bs=65536 count=16 2>/dev/null
	   done) | hashed /tmp/up |
		socat -u - "TCP:$PEER4:5321" 2>/tmp/up.err
	  echo "$?" >/tmp/up.rc) &
	up=$!
	sleep 2
	result upgrade_ready "transfers running"
	i=0
	while { kill -0 "$down" || kill -0 "$up"; } 2>/dev/null &&
	      [ "$i" -lt $((wait_s * 2)) ]; do
		sleep 0.5
		i=$((i + 1))
	done
	if kill -0 "$down" 2>/dev/null || kill -0 "$up" 2>/dev/null; then
		result transfers "still running after $wait_s s"
		kill "$down" "$up" 2>/dev/null
	else
		result transfers "ended after $((i / 2)) s; upload status" \
			"$(cat /tmp/up.rc)"
	fi
	sleep 1
	result down "$(cat /tmp/down.sha 2>/dev/null) $(cat /tmp/down.n 2>/dev/null)"
	result up "$(cat /tmp/up.sha 2>/dev/null) $(cat /tmp/up.n 2>/dev/null)"
	result down_err "$(head -c 200 /tmp/down.err)"
	result up_err "$(head -c 200 /tmp/up.err)"
	dhcp4
	ping_test ping4_after "$PEER4"
	iperf_test tcp_up_after "$PEER4" 2 ""
	iperf_test tcp_down_after "$PEER4" 2 -R
fi
result upgrade_done "uptime $(cut -d' ' -f1 /proc/uptime)"
