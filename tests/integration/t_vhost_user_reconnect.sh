#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# netshim --vhost-user outlives its front-ends.  The front-end (tests/
# vu_relay) is killed in the middle of a transfer and started again, a
# bounded number of times, as a VM restarted by its launcher would be:
# each time the guest must get its address by DHCP and move data both
# ways, and netshim's open descriptors and resident memory must stay where
# they were after the first front-end.  Every other front-end negotiates
# EVENT_IDX, as Linux's driver does, so netshim meets both kinds of
# notification on one device, one after the other.  Then -F/--fd: the launcher hands
# netshim one end of a connected socketpair (QEMU's -netdev passt and
# libvirt do that) and the front-end the other; it must work the same,
# and netshim must exit, as passt does, once that front-end is gone.

set -u
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/../tcp/lib.sh"

ROUNDS=${VU_RECONNECT_ROUNDS:-5}
# Resident memory may move a little with what the kernel pages in for
# each new guest memory map; a leak per front-end would add up past this
RSS_SLACK_KB=4096

# rss_kb() - the backend's resident set, kB, without its link buffers:
# their pages become resident as frames first reach them, the more of
# them the busier the machine (link_buf_reached, which SIGUSR1 logs)
rss_kb() {
	local rss reached

	rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' \
		"/proc/$BACKEND_PID/status")
	reached=$(topo_counter link_buf_reached)
	echo $((rss - ${reached:-0} / 1024))
}

# relay_start() - start a vu_relay front-end for tap0 and wait for tap0
# $1: where it connects (socket path, or fd:N)
# $2: its log
# $3: its --features (default none)
relay_start() {
	ip netns exec "$NS_GUEST" "$REPO/tests/vu_relay" \
		--features "${3:-none}" tap0 "$1" >"$2" 2>&1 &
	RELAY_PID=$!
	topo_pid_add "$RELAY_PID"
	topo_relay_wait "$2"
}

# relay_kill_mid_transfer() - kill the front-end while the peer streams
# to the guest
relay_kill_mid_transfer() {
	ip netns exec "$NS_PEER" timeout 20 socat -u \
		TCP4-LISTEN:5009,reuseaddr /dev/zero 2>/dev/null &
	topo_pid_add $!
	tcp_wait_listen "$NS_PEER" 5009
	in_guest timeout 20 socat -u TCP4:203.0.113.1:5009 /dev/null \
		2>/dev/null &
	topo_pid_add $!
	sleep 0.5
	kill "$RELAY_PID"
	wait "$RELAY_PID" 2>/dev/null
	# tap0 goes with it; the next front-end makes a new one with a new
	# MAC address, as a new VM would have
}

# restart_pass() - ROUNDS front-ends, one after the other
restart_pass() {
	local fds0 rss0 i n feat

	n=$(tcp_size 8M)
	topo_init
	topo_peer_pod
	topo_backend --vhost-user
	topo_ns_add "$NS_GUEST"
	for i in $(seq 0 "$ROUNDS"); do
		feat=none
		[ $((i % 2)) = 1 ] && feat=event_idx
		relay_start "$WORK/backend.sock" "$WORK/relay$i.log" "$feat"
		guest_dhcp4
		tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 $((5100 + i)) \
			"$i" "$n" 30
		tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 \
			$((5200 + i)) "$i" "$n" 30
		if [ "$i" = 0 ]; then
			fds0=$(topo_fd_count)
			rss0=$(rss_kb)
			log "first front-end: $fds0 fds, RSS $rss0 kB" \
				"(link buffers left out)"
		else
			rss=$(rss_kb)
			log "front-end $i ($feat): $(topo_fd_count) fds, RSS $rss kB"
			[ "$(topo_fd_count)" -le "$fds0" ] ||
				fail "descriptors grew from $fds0 to $(topo_fd_count)"
			[ "$rss" -le $((rss0 + RSS_SLACK_KB)) ] ||
				fail "RSS grew from $rss0 kB to $rss kB"
		fi
		[ "$i" = "$ROUNDS" ] || relay_kill_mid_transfer
	done
	topo_alive "$BACKEND_PID" || fail "netshim exited"
	log "ok: $ROUNDS front-end restarts, fds and RSS flat"
	topo_cleanup
}

# fd_pass() - netshim -F on one end of a socketpair, vu_relay on the other
fd_pass() {
	local n rc i cmd _

	n=$(tcp_size 8M)
	topo_init
	topo_peer_pod
	topo_ns_add "$NS_GUEST"
	topo_backend_cmd --vhost-user
	# No socket to listen on with -F: drop -s and its path
	cmd=()
	for ((i = 0; i < ${#BACKEND_CMD[@]}; i++)); do
		if [ "${BACKEND_CMD[i]}" = -s ]; then
			i=$((i + 1))
			continue
		fi
		cmd+=("${BACKEND_CMD[i]}")
	done
	# Python makes the socketpair and starts both ends with their half
	# as descriptor 3, as a launcher does
	python3 - "$NS_POD" "$NS_GUEST" "$REPO/tests/vu_relay" \
		"$WORK" "${cmd[@]}" <<-'EOF' &
	import os, socket, subprocess, sys
	ns_pod, ns_guest, relay, work = sys.argv[1:5]
	cmd = sys.argv[5:]
	a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
	for s in (a, b):
	    os.set_inheritable(s.fileno(), True)
	def child(sock, argv, log):
	    def pre():
	        os.dup2(sock.fileno(), 3)
	    return subprocess.Popen(argv, preexec_fn=pre, pass_fds=(3,),
	                            stdout=open(log, "w"),
	                            stderr=subprocess.STDOUT)
	be = child(a, ["ip", "netns", "exec", ns_pod] + cmd + ["-F", "3"],
	           work + "/backend.log")
	fe = child(b, ["ip", "netns", "exec", ns_guest, relay, "tap0",
	               "fd:3"], work + "/relay-fd.log")
	a.close()
	b.close()
	with open(work + "/fd-pids", "w") as f:
	    f.write(f"{be.pid} {fe.pid}\n")
	rc = be.wait(timeout=120)
	fe.wait(timeout=10)
	with open(work + "/fd-backend-rc", "w") as f:
	    f.write(f"{rc}\n")
	EOF
	topo_pid_add $!
	topo_wait_file "$WORK/fd-pids"
	read -r BACKEND_PID RELAY_PID <"$WORK/fd-pids" ||
		fail "the launcher did not start both ends"
	topo_pid_add "$BACKEND_PID"
	topo_pid_add "$RELAY_PID"
	topo_relay_wait "$WORK/relay-fd.log"
	guest_dhcp4
	tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5301 1 "$n" 30
	tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5302 2 "$n" 30
	log "ok: -F with --vhost-user serves a socketpair's front-end"

	kill "$RELAY_PID"
	topo_wait_file "$WORK/fd-backend-rc" ||
		fail "netshim -F still runs 5 s after its front-end went away"
	rc=$(cat "$WORK/fd-backend-rc")
	[ "$rc" = 0 ] || fail "netshim -F exited with status $rc"
	log "ok: netshim -F exits with 0 once its front-end is gone"
	topo_cleanup
}

restart_pass
fd_pass
log "vhost-user front-ends restarted $ROUNDS times and given by -F"
