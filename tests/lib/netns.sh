# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Namespace mode helpers, sourced after tests/lib/topo.sh: netshim runs in
# the pod and makes the namespace it serves ("netshim -- COMMAND"); the
# tests reach that namespace as $NS_GUEST, a name bound to it, so every
# helper that runs commands "in the guest" works unchanged, and
# topo_cleanup removes the name and stops what runs inside.

# ns_backend_cmd() - the command line of the backend in namespace mode:
# netshim, or with BACKEND=passt the peer, pasta (passt's namespace mode,
# in Debian's passt package), told to set the namespace's addresses and
# routes up (--config-net, as podman and other launchers ask) unless
# NS_SELF=1 leaves that to the namespace, and with pasta the router being
# the peer (not mapped to the pod); pasta defaults to MTU 65520, netshim
# to the pod's
# $@: extra arguments, then -- and the command
# Sets NS_CMD
ns_backend_cmd() {
	case "$BACKEND" in
	netshim)
		[ -x "$NETSHIM" ] || fail "$NETSHIM not built (make)"
		NS_CMD=("$NETSHIM")
		;;
	passt)
		# as root pasta turns to nobody and then cannot map its
		# user namespace: it is started as nobody, as the bench does
		NS_CMD=(setpriv --reuid=65534 --regid=65534 --clear-groups
			"${PASTA:-pasta}" --no-map-gw)
		;;
	*)
		fail "unknown BACKEND=$BACKEND (netshim or passt)"
		;;
	esac
	[ "${NS_SELF:-}" = 1 ] || NS_CMD+=(--config-net)
	NS_CMD+=(-f -D 203.0.113.1 -D 2001:db8:1::1 -S netshim.test "$@")
}

# ns_start() - the backend in the pod, serving a new namespace that sleeps
# $@: extra backend arguments
#
# Sets BACKEND_PID (the backend) and NS_CHILD (the command in the namespace).
ns_start() {
	local _ ifname

	chmod 1777 "$WORK"
	ns_backend_cmd "$@" -- sleep 600
	log "backend: ${NS_CMD[*]}"
	ip netns exec "$NS_POD" "${NS_CMD[@]}" >"$WORK/backend.log" 2>&1 &
	BACKEND_PID=$!
	topo_pid_add "$BACKEND_PID"
	NS_CHILD=
	for _ in $(seq 50); do
		NS_CHILD=$(cat "/proc/$BACKEND_PID/task/$BACKEND_PID/children" \
			2>/dev/null | awk '{print $1}')
		# The command runs once the namespace is ready
		[ -n "$NS_CHILD" ] &&
			[ "$(readlink "/proc/$NS_CHILD/exe")" = "$(command -v sleep)" ] &&
			break
		NS_CHILD=
		kill -0 "$BACKEND_PID" 2>/dev/null ||
			fail "netshim exited: $(tail -5 "$WORK/backend.log")"
		sleep 0.1
	done
	[ -n "$NS_CHILD" ] || fail "the command did not start within 5 s"
	topo_pid_add "$NS_CHILD"
	touch "/run/netns/$NS_GUEST" &&
		mount --bind "/proc/$NS_CHILD/ns/net" "/run/netns/$NS_GUEST" ||
		fail "cannot name the namespace of process $NS_CHILD"
	ifname=$(ip -n "$NS_POD" -o route show default | awk '{print $5}')
	NS_IF=${NS_IFNAME:-$ifname}
	export BACKEND_PID NS_CHILD NS_IF
}

# ns_stop() - stop the backend of ns_start and its namespace's command,
# and unbind the namespace's name, so that ns_start can run again
ns_stop() {
	kill -TERM "$BACKEND_PID" 2>/dev/null
	wait "$BACKEND_PID" 2>/dev/null
	kill -KILL "$NS_CHILD" 2>/dev/null
	umount "/run/netns/$NS_GUEST" 2>/dev/null
	rm -f "/run/netns/$NS_GUEST"
}

# ns_wait_addr() - wait until a namespace served by the backend has the
# pod's IPv4 address; fail if the backend ($BACKEND_PID) exits first
# $1: ip(8) -n argument, or "pid:PID" for a process's namespace
ns_wait_addr() {
	local _ out

	for _ in $(seq 50); do
		if [ "${1#pid:}" != "$1" ]; then
			out=$(nsenter -t "${1#pid:}" -n ip -o addr show 2>&1)
		else
			out=$(ip -n "$1" -o addr show 2>&1)
		fi
		echo "$out" | grep -q 'inet 203\.0\.113\.2/' && return 0
		kill -0 "$BACKEND_PID" 2>/dev/null ||
			fail "backend exited: $(tail -5 "$WORK/backend.log")"
		sleep 0.1
	done
	fail "no address in $1 after 5 s: $out"
}

# ns_holder() - a process (sleep) in a network namespace of its own, for
# --netns PID; sets HOLDER once it runs there
# $@: what runs "unshare --net sleep" (ip netns exec, setpriv, unshare
#     --user ...), if anything
ns_holder() {
	local _

	"$@" unshare --net sleep 600 &
	HOLDER=$!
	topo_pid_add "$HOLDER"
	for _ in $(seq 50); do
		[ "$(readlink "/proc/$HOLDER/ns/net")" != "$(readlink /proc/self/ns/net)" ] &&
			[ "$(readlink "/proc/$HOLDER/exe")" = "$(command -v sleep)" ] &&
			return 0
		sleep 0.1
	done
	fail "no namespace for process $HOLDER"
}

# ns_swap() - swap $NS_GUEST and $NS_POD: local_up and local_down then
# run the server in the pod and the client in the namespace (-T)
ns_swap() {
	local t=$NS_GUEST

	NS_GUEST=$NS_POD
	NS_POD=$t
}

# The local flow transfers below need tests/tcp/lib.sh sourced too.

# local_up() - the pod sends to the namespace's loopback server
# $1: family, $2: loopback address, $3: port, $4: seed, $5: bytes
local_up() {
	local p=$WORK/lup-$1-$4 t0 a=$2 b=$2

	[ "$1" = 6 ] && a="[$2]" && b="[$2]"
	tcp_recv_bg "$NS_GUEST" 90 "TCP$1-LISTEN:$3,bind=$b,reuseaddr" "$p"
	tcp_wait_listen "$NS_GUEST" "$3"
	t0=$(date +%s%N)
	tcp_send "$NS_POD" 90 "TCP$1:$a:$3" "$p" "$4" "$5" ||
		log "sender socat failed: $(tail -2 "$p.err")"
	tcp_recv_end "$p"
	tcp_check "$p" "$(tcp_size_str "$5") $NS_POD -> $NS_GUEST $2 port $3"
	tcp_rate "$NS_POD -> $NS_GUEST $2 port $3 (spliced)" "$5" "$t0" 90
}

# local_down() - the namespace's loopback server sends to the pod
# $1: family, $2: loopback address, $3: port, $4: seed, $5: bytes
local_down() {
	local p=$WORK/ldown-$1-$4 t0 a=$2 spid

	[ "$1" = 6 ] && a="[$2]"
	tcp_send "$NS_GUEST" 90 "TCP$1-LISTEN:$3,bind=$a,reuseaddr" "$p" \
		"$4" "$5" &
	spid=$!
	tcp_wait_listen "$NS_GUEST" "$3"
	t0=$(date +%s%N)
	tcp_recv_bg "$NS_POD" 90 "TCP$1:$a:$3" "$p"
	tcp_recv_end "$p"
	wait "$spid" || log "sender socat failed: $(tail -2 "$p.err")"
	tcp_check "$p" "$(tcp_size_str "$5") $NS_GUEST $2 port $3 -> $NS_POD"
	tcp_rate "$NS_GUEST $2 port $3 -> $NS_POD (spliced)" "$5" "$t0" 90
}

# The -t/-u/-T/-U auto tests (t_netns_auto, t_netns_auto_ns) watch ports
# follow listeners with the helpers below.  $1 of each names the function
# that runs a command on the side the client is on (in_pod, in_guest,
# in_peer).

# ms() - milliseconds since the epoch
ms() {
	echo $(( $(date +%s%N) / 1000000 ))
}

# The two pollers below each run as one process (a process per attempt
# would cost more than their 50 ms period on a loaded machine), for 10 s
# at most.  Start one before the server, so that its own start-up is not
# counted, then call auto_reached with the time the server was ready.

# auto_tcp_poll() - start connecting and sending a word every 50 ms until
# the server has written it to its file
# $1: runner, $2: IPv4 address, $3: port, $4: the server's output file,
# $5: word
auto_tcp_poll() {
	POLL_OUT=$WORK/poll-tcp-$3
	POLL_WHAT="TCP $2 port $3 ($1)"
	"$1" timeout 12 python3 -c '
import socket, sys, time
addr, port, path, word = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def got():
    try:
        with open(path) as f:
            return word in f.read().split()
    except OSError:
        return False
t0 = time.monotonic()
while time.monotonic() - t0 < 10:
    try:
        with socket.create_connection((addr, port), timeout=1) as s:
            s.sendall(word.encode() + b"\n")
    except OSError:
        pass
    for _ in range(5):
        if got():
            print(int(time.time() * 1000))
            sys.exit(0)
        time.sleep(0.01)
print("none")
' "$2" "$3" "$4" "$5" >"$POLL_OUT" 2>&1 &
	POLL_PID=$!
}

# auto_udp_poll() - start sending a datagram every 50 ms until one is
# echoed
# $1: runner, $2: IPv4 address, $3: port
auto_udp_poll() {
	POLL_OUT=$WORK/poll-udp-$3
	POLL_WHAT="UDP $2 port $3 ($1)"
	"$1" timeout 12 python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.05)
t0 = time.monotonic()
while time.monotonic() - t0 < 10:
    try:
        s.sendto(b"ping", (sys.argv[1], int(sys.argv[2])))
        if s.recv(64) == b"ping":
            print(int(time.time() * 1000))
            sys.exit(0)
    except OSError:
        time.sleep(0.05)
print("none")
' "$2" "$3" >"$POLL_OUT" 2>&1 &
	POLL_PID=$!
}

# auto_reached() - wait for the poller's answer; sets dt to the
# milliseconds from $1 to its success, fails if it had none
# $1: when the server was ready (ms since the epoch)
auto_reached() {
	local t1

	wait "$POLL_PID"
	t1=$(cat "$POLL_OUT")
	case "$t1" in
	''|*[!0-9]*) fail "$POLL_WHAT not reachable: $t1" ;;
	esac
	dt=$((t1 - $1))
	[ "$dt" -ge 0 ] || dt=0
}

# auto_released() - wait until nothing listens on a port; sets dt to the
# milliseconds it took, fails after 5 s
# $1: runner, $2: ss option (-t or -u), $3: port
auto_released() {
	local t0

	t0=$(ms)
	while "$1" ss -Hln "$2" "sport = :$3" | grep -q .; do
		[ $(( $(ms) - t0 )) -lt 5000 ] ||
			fail "port $3 ($2) still bound ($1) 5 s after its server exited"
		sleep 0.05
	done
	dt=$(( $(ms) - t0 ))
}

# auto_within() - fail if dt is over two seconds, the issue's bound
# $@: what took dt
auto_within() {
	[ "$dt" -le 2000 ] || fail "$* only after $dt ms (2 s allowed)"
}
