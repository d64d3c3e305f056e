# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Test topology in network namespaces, sourced by integration tests,
# the VM harness and the benchmarks:
#
#   peer  (203.0.113.1, 2001:db8:1::1, fe80::1; 198.51.100.1, 2001:db8:2::1
#          on lo): the remote servers and the pod's router
#   pod   (203.0.113.2, 2001:db8:1::2): where the backend runs
#   guest: a tap device joined to the backend's socket by tests/relay
#
# Everything a run creates carries its random ID, and topo_cleanup removes
# exactly that, so parallel runs and other users of the machine are safe.
#
# BACKEND=netshim (default) or BACKEND=passt selects the daemon; NETSHIM
# overrides the netshim binary (default build/netshim, from make).

TOPO_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$TOPO_LIB_DIR/../.." && pwd)
BACKEND=${BACKEND:-netshim}
NETSHIM=${NETSHIM:-$REPO/build/netshim}

# fail() - print a message to stderr and exit 1 (cleanup runs from the trap)
#
# The backend's last words come first: $WORK is gone after cleanup.
fail() {
	if [ -s "${WORK:-}/backend.log" ]; then
		echo "--- $BACKEND log (tail)" >&2
		grep -v 'to syslog$' "$WORK/backend.log" | tail -n 15 >&2
		echo "---" >&2
	fi
	echo "FAIL: $*" >&2
	exit 1
}

# skip() - say why the test cannot run here and exit 77, the status
# tests/integration/run.sh reports as SKIP (never as PASS)
skip() {
	echo "SKIP: $*"
	exit 77
}

# log() - progress message on stderr, so test output stays readable
log() {
	echo "[$(date +%T)] $*" >&2
}

# Run a command in a namespace.  To start a background process whose pid
# is the command's own (for topo_pid_add), call "ip netns exec" directly:
# a function run with & leaves $! pointing at a subshell.
in_peer() { ip netns exec "$NS_PEER" "$@"; }
in_pod() { ip netns exec "$NS_POD" "$@"; }
in_guest() { ip netns exec "$NS_GUEST" "$@"; }

# topo_pid_add() - remember a process of this run for topo_cleanup
# $1: pid
topo_pid_add() {
	echo "$1" >>"$WORK/pids"
}

# topo_init() - name this run's namespaces and work directory, arm cleanup
topo_init() {
	[ "$(id -u)" = 0 ] || fail "needs root (network namespaces)"
	ID=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
	NS_PEER=nsh-$ID-peer
	NS_POD=nsh-$ID-pod
	NS_GUEST=nsh-$ID-guest
	NS_FAR=nsh-$ID-far
	NS_POD2=nsh-$ID-pod2
	WORK=/tmp/netshim-test-$ID
	PIDS=$WORK/pids
	mkdir "$WORK" || fail "cannot create $WORK"
	: >"$PIDS"
	trap topo_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	export ID NS_PEER NS_POD NS_GUEST NS_FAR NS_POD2 WORK PIDS REPO BACKEND \
		NETSHIM
}

# topo_run_pids() - pids of this run: recorded ones, and every process
# still inside one of its namespaces (tests may start helpers there)
topo_run_pids() {
	local ns

	[ -f "$WORK/pids" ] && cat "$WORK/pids"
	for ns in "nsh-$ID-guest" "nsh-$ID-pod" "nsh-$ID-peer" "nsh-$ID-far" \
		"nsh-$ID-pod2"; do
		ip netns pids "$ns" 2>/dev/null
	done
}

# topo_alive() - whether a process runs (a zombie nobody reaps does not)
# $1: pid
topo_alive() {
	local stat

	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	# The state follows the command name, which may hold spaces
	case "${stat##*) }" in
	Z*) return 1 ;;
	esac
	return 0
}

# topo_cleanup() - stop this run's processes, delete its namespaces and files
#
# Only pids of this run and names carrying $ID are touched.
# Safe to call more than once.
topo_cleanup() {
	local pid ns alive pids

	[ -n "${ID:-}" ] || return 0
	pids=$(topo_run_pids | sort -u)
	for pid in $pids; do
		kill -TERM "$pid" 2>/dev/null
	done
	for _ in $(seq 20); do
		alive=
		for pid in $pids; do
			topo_alive "$pid" && alive=1
		done
		[ -z "$alive" ] && break
		sleep 0.1
	done
	for pid in $pids; do
		kill -KILL "$pid" 2>/dev/null
	done
	for ns in "nsh-$ID-guest" "nsh-$ID-pod" "nsh-$ID-peer" "nsh-$ID-far" \
		"nsh-$ID-pod2"; do
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "${TOPO_KEEP:-}" ] && return 0
	case "$WORK" in
	/tmp/netshim-test-"$ID") rm -rf "$WORK" ;;
	esac
	return 0
}

# topo_ns_add() - create a namespace with loopback up
# $1: namespace name
topo_ns_add() {
	ip netns add "$1" || fail "cannot create namespace $1"
	ip -n "$1" link set lo up || fail "lo up in $1"
}

# topo_wait_dad() - wait until no IPv6 address of a namespace is tentative
# $1: namespace name
topo_wait_dad() {
	local _

	for _ in $(seq 50); do
		[ -z "$(ip -n "$1" -6 addr show tentative)" ] && return 0
		sleep 0.1
	done
	fail "IPv6 addresses in $1 still tentative after 5 s"
}

# topo_pod_link() - a pod namespace on a veth of its own to the peer, which
# is its router: pod0 in the pod, $2 in the peer
# $1: pod namespace (created), $2: the peer's end,
# $3, $4: the peer's and the pod's IPv4 address/prefix,
# $5, $6: the same for IPv6 (the peer also has fe80::1, the pod's gateway)
topo_pod_link() {
	local ns=$1 pif=$2

	topo_ns_add "$ns"
	ip -n "$NS_PEER" link add "$pif" type veth peer name pod0 \
		netns "$ns" || fail "cannot create veth $pif to $ns"
	# No DAD on the veth link-locals either: nothing to wait for later
	in_peer sysctl -qw "net.ipv6.conf.$pif.accept_dad=0"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.pod0.accept_dad=0
	ip -n "$NS_PEER" addr add "$3" dev "$pif"
	ip -n "$NS_PEER" addr add "$5" dev "$pif" nodad
	ip -n "$NS_PEER" addr add fe80::1/64 dev "$pif" nodad
	ip -n "$NS_PEER" link set "$pif" up || fail "$pif up"
	ip -n "$ns" addr add "$4" dev pod0
	ip -n "$ns" addr add "$6" dev pod0 nodad
	ip -n "$ns" link set pod0 up || fail "pod0 up in $ns"
	ip -n "$ns" route add default via "${3%/*}" ||
		fail "IPv4 default route in $ns"
	ip -n "$ns" -6 route add default via fe80::1 dev pod0 ||
		fail "IPv6 default route in $ns"
	ip netns exec "$ns" sysctl -qw \
		net.ipv4.ping_group_range="0 2147483647" ||
		fail "ping_group_range in $ns"
	topo_wait_dad "$ns"
}

# topo_peer_pod() - the peer (remote hosts and router) and the pod, on a veth
topo_peer_pod() {
	topo_ns_add "$NS_PEER"
	ip -n "$NS_PEER" addr add 198.51.100.1/24 dev lo
	ip -n "$NS_PEER" addr add 2001:db8:2::1/64 dev lo
	topo_pod_link "$NS_POD" peer0 203.0.113.1/24 203.0.113.2/24 \
		2001:db8:1::1/64 2001:db8:1::2/64
	topo_wait_dad "$NS_PEER"
}

# topo_pod2() - a second pod with another address, on its own veth to the
# peer: 198.51.100.66/26 and 2001:db8:4::2/64 on its pod0, routed by the
# peer (198.51.100.65, 2001:db8:4::1, fe80::1), as a VM's next node gives
# it when the pod's address does not move with it
topo_pod2() {
	topo_pod_link "$NS_POD2" peer2 198.51.100.65/26 198.51.100.66/26 \
		2001:db8:4::1/64 2001:db8:4::2/64
}

# topo_pod2_same() - a second pod with the first one's addresses
# (203.0.113.2/24, 2001:db8:1::2/64), on its own veth (peer3) to the peer,
# as a network with persistent IPs gives a migrated VM's next pod: the
# peer keeps routing the address to the first pod until topo_pod_move
# moves it, as the network moves a port to the node the VM went to
topo_pod2_same() {
	topo_pod_link "$NS_POD2" peer3 203.0.113.1/32 203.0.113.2/24 \
		2001:db8:1::1/128 2001:db8:1::2/64
}

# topo_pod_move() - the peer routes the pod's address to one pod or the
# other (topo_pod2_same)
# $1: 1 for the first pod, 2 for the second
topo_pod_move() {
	local dev=peer0

	[ "$1" = 2 ] && dev=peer3
	ip -n "$NS_PEER" route replace 203.0.113.2/32 dev "$dev" &&
		ip -n "$NS_PEER" -6 route replace 2001:db8:1::2/128 dev "$dev" ||
		fail "the pod's address not moved to $dev"
}

# topo_far() - a host one router past the pod's: far (198.51.100.130,
# 2001:db8:3::2) behind the peer, which forwards, on a link of MTU $1
# (default 1500), so that a packet that leaves the pod with TTL 1 dies at
# the peer and a larger one than the link takes needs fragmenting there
topo_far() {
	local mtu=${1:-1500}

	topo_ns_add "$NS_FAR"
	ip -n "$NS_PEER" link add far0 mtu "$mtu" type veth peer name peer1 \
		mtu "$mtu" netns "$NS_FAR" || fail "cannot create far veth"
	in_peer sysctl -qw net.ipv6.conf.far0.accept_dad=0
	ip netns exec "$NS_FAR" sysctl -qw net.ipv6.conf.peer1.accept_dad=0
	in_peer sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	ip -n "$NS_PEER" addr add 198.51.100.129/25 dev far0
	ip -n "$NS_PEER" addr add 2001:db8:3::1/64 dev far0 nodad
	ip -n "$NS_PEER" link set far0 up || fail "far0 up"
	ip -n "$NS_FAR" addr add 198.51.100.130/25 dev peer1
	ip -n "$NS_FAR" addr add 2001:db8:3::2/64 dev peer1 nodad
	ip -n "$NS_FAR" link set peer1 up || fail "peer1 up"
	ip -n "$NS_FAR" route add default via 198.51.100.129 ||
		fail "far IPv4 default route"
	ip -n "$NS_FAR" -6 route add default via 2001:db8:3::1 ||
		fail "far IPv6 default route"
	topo_wait_dad "$NS_PEER"
	topo_wait_dad "$NS_FAR"
}

# topo_dns() - dnsmasq in the peer answering the test names only
# $@: addresses to listen on, of the peer (default: 203.0.113.1 and
#     2001:db8:1::1, the router's; the first IPv4 and the first IPv6 one
#     are waited for)
topo_dns() {
	local pid a v4 v6 listen=()

	[ $# -gt 0 ] || set -- 203.0.113.1 2001:db8:1::1
	for a in "$@"; do
		listen+=("--listen-address=$a")
		case "$a" in
		*:*) v6=${v6:-$a} ;;
		*) v4=${v4:-$a} ;;
		esac
	done
	ip netns exec "$NS_PEER" dnsmasq --keep-in-foreground \
		--conf-file=/dev/null --no-resolv --no-hosts \
		--bind-interfaces --port=53 "${listen[@]}" \
		--address=/peer.netshim.test/203.0.113.1 \
		--address=/peer.netshim.test/2001:db8:1::1 \
		--address=/remote.netshim.test/198.51.100.1 \
		--address=/remote.netshim.test/2001:db8:2::1 \
		--pid-file= --user=root --log-queries \
		--log-facility="$WORK/dnsmasq.log" \
		>>"$WORK/dnsmasq.log" 2>&1 &
	pid=$!
	topo_pid_add "$pid"
	for _ in $(seq 50); do
		in_peer ss -Hlun 'sport = :53' | grep -qF "${v4:-.}" &&
			in_peer ss -Hlun 'sport = :53' | grep -qF "${v6:-:}" &&
			return 0
		kill -0 "$pid" 2>/dev/null ||
			fail "dnsmasq exited: $(tail -5 "$WORK/dnsmasq.log")"
		sleep 0.1
	done
	fail "dnsmasq not listening after 5 s"
}

# topo_backend_cmd() - print nothing, set BACKEND_CMD for $BACKEND
# $@: extra backend arguments
# TOPO_LOCAL=1: the pod has no network (local mode): passt's gateway is
# left to stand for the pod
topo_backend_cmd() {
	local sock=$WORK/backend.sock pidf=$WORK/backend.pid
	local net=(-D 203.0.113.1 -D 2001:db8:1::1 -S netshim.test)

	case "$BACKEND" in
	netshim)
		[ -x "$NETSHIM" ] || fail "$NETSHIM not built (make)"
		BACKEND_CMD=("$NETSHIM" -f -s "$sock" -P "$pidf" "${net[@]}"
			"$@")
		;;
	passt)
		# --no-map-gw: the router is the peer here, as for netshim;
		# passt would otherwise send guest traffic for it to the pod
		[ "${TOPO_LOCAL:-}" = 1 ] || net+=(--no-map-gw)
		BACKEND_CMD=("${PASST:-passt}" -f -e -s "$sock" "${net[@]}"
			"$@")
		;;
	*)
		fail "unknown BACKEND=$BACKEND (netshim or passt)"
		;;
	esac
}

# topo_backend() - start the backend in the pod, wait for its socket, or
# with --connect (netshim connects to a socket the VMM listens on) for the
# line that says it is set to
# $@: extra backend arguments
topo_backend() {
	local _ a connect=

	for a in "$@"; do
		[ "$a" = --connect ] && connect=1
	done
	topo_backend_cmd "$@"
	# Backends started as root may switch to nobody before binding
	chmod 1777 "$WORK"
	log "backend: ${BACKEND_CMD[*]}"
	ip netns exec "$NS_POD" "${BACKEND_CMD[@]}" \
		>"$WORK/backend.log" 2>&1 &
	BACKEND_PID=$!
	topo_pid_add "$BACKEND_PID"
	export BACKEND_PID
	for _ in $(seq 50); do
		if [ -n "$connect" ]; then
			grep -q 'connecting to .*, where the VMM listens' \
				"$WORK/backend.log" && return 0
		else
			[ -S "$WORK/backend.sock" ] && return 0
		fi
		kill -0 "$BACKEND_PID" 2>/dev/null ||
			fail "$BACKEND exited: $(tail -5 "$WORK/backend.log")"
		sleep 0.1
	done
	[ -z "$connect" ] || fail "$BACKEND not started after 5 s"
	fail "$BACKEND socket not there after 5 s"
}

# topo_guest_ns() - the guest namespace, GUEST_SYSCTLS set in it (see
# topo_relay_start)
topo_guest_ns() {
	local kv

	topo_ns_add "$NS_GUEST"
	for kv in ${GUEST_SYSCTLS:-}; do
		in_guest sysctl -qw "$kv" || fail "guest sysctl $kv"
	done
}

# topo_relay_start() - guest namespace whose tap0 is joined to the backend
# by a relay of the tests'
# $1: relay (tests/relay for the stream socket, tests/vu_relay for
#     vhost-user), $2: MTU of tap0
#
# GUEST_SYSCTLS: "key=value ..." set in the guest namespace before tap0
# exists (net.ipv6.conf.default.* then applies to tap0), the way a system
# configures itself at boot.  RELAY_ARGS: more options for the relay
# (vu_relay --offload).
topo_relay_start() {
	local relay=$1 mtu=$2

	[ -x "$REPO/tests/$relay" ] ||
		fail "$REPO/tests/$relay not built (make tests/$relay)"
	topo_guest_ns
	# shellcheck disable=SC2086 # RELAY_ARGS is a list of words
	ip netns exec "$NS_GUEST" "$REPO/tests/$relay" --mtu "$mtu" \
		${RELAY_ARGS:-} tap0 "$WORK/backend.sock" >"$WORK/relay.log" 2>&1 &
	RELAY_PID=$!
	topo_pid_add "$RELAY_PID"
	export RELAY_PID
	topo_relay_wait "$WORK/relay.log"
}

# topo_relay_wait() - wait until the relay $RELAY_PID has brought tap0 up
# in the guest, which it does only once it is connected; fail if it exits
# or 10 s pass
# $1: the relay's log, quoted if it exits
topo_relay_wait() {
	local _

	for _ in $(seq 100); do
		ip -n "$NS_GUEST" -o link show tap0 2>/dev/null |
			grep -q '[<,]UP[,>]' && return 0
		kill -0 "$RELAY_PID" 2>/dev/null ||
			fail "the relay exited: $(tail -5 "$1")"
		sleep 0.1
	done
	fail "tap0 not up after 10 s"
}

# topo_relay_listen() - a guest whose relay listens at the backend's
# socket path as QEMU's -netdev stream,server=on does, for netshim
# --connect; it accepts again when the backend hangs up.  Returns once it
# listens: tap0 comes up when a backend first connects (topo_relay_wait).
# Called again once the relay was stopped, it starts another on the same
# path, as a VMM restarted would be: the namespace stays, tap0 is new.
# $1: MTU of tap0 (default 1500)
# Each connection accepted is a line "relay: connection N accepted" of
# $WORK/relay.log, where every relay writes.
topo_relay_listen() {
	local path=$WORK/backend.sock _

	[ -x "$REPO/tests/relay" ] ||
		fail "$REPO/tests/relay not built (make tests/relay)"
	[ -e "/run/netns/$NS_GUEST" ] || topo_guest_ns
	# Under umask 0, as tests/vm/run-vm.sh starts a listening QEMU: a
	# netshim started as root connects as nobody
	(umask 0 && exec ip netns exec "$NS_GUEST" "$REPO/tests/relay" \
		--mtu "${1:-1500}" --listen tap0 "$path") \
		>>"$WORK/relay.log" 2>&1 &
	RELAY_PID=$!
	topo_pid_add "$RELAY_PID"
	export RELAY_PID
	for _ in $(seq 50); do
		in_guest ss -Hxln | awk -v p="$path" '$5 == p { f = 1 }
			END { exit !f }' && return 0
		kill -0 "$RELAY_PID" 2>/dev/null ||
			fail "the relay exited: $(tail -5 "$WORK/relay.log")"
		sleep 0.1
	done
	fail "the relay does not listen on $path after 5 s"
}

# topo_relay_guest() - a guest joined to the backend's stream socket
# $1: MTU of tap0 (default 1500)
topo_relay_guest() {
	topo_relay_start relay "${1:-1500}"
}

# topo_wait_log() - wait for a line in a log file
# $1: file, $2: grep pattern, $3: tenths of a second to wait (default 50)
# Return: 0 once a line matches, 1 if none did in time
topo_wait_log() {
	local _

	for _ in $(seq "${3:-50}"); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	grep -q -- "$2" "$1" 2>/dev/null
}

# topo_wait_file() - wait for a socket, or a file with something in it
# (a pid file written while we look)
# $1: path, $2: tenths of a second to wait (default 50)
# Return: 0 once it is there, 1 if it was not in time
topo_wait_file() {
	local _

	for _ in $(seq "${2:-50}"); do
		[ -S "$1" ] || [ -s "$1" ] && return 0
		sleep 0.1
	done
	[ -S "$1" ] || [ -s "$1" ]
}

# topo_wait_exit() - wait for a process to end
# $1: pid, $2: tenths of a second to wait (default 50)
# Return: 0 once it is gone, 1 if it still runs
topo_wait_exit() {
	local _

	for _ in $(seq "${2:-50}"); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	! kill -0 "$1" 2>/dev/null
}

# topo_fd_count() - the backend's open descriptors
topo_fd_count() {
	find "/proc/$BACKEND_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

# topo_rss_kb() - the backend's resident set (VmRSS), kB
topo_rss_kb() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$BACKEND_PID/status"
}

# topo_counters() - make netshim log its counters (SIGUSR1) and print
# that dump: the "counters:" line, then one "NAME VALUE description" line
# a counter
# $1: hundredths of a second to wait for it (default 200)
# Return: 1 if no new dump came in that time
topo_counters() {
	local before _

	before=$(grep -c 'counters:' "$WORK/backend.log")
	kill -USR1 "$BACKEND_PID" || return 1
	for _ in $(seq "${1:-200}"); do
		if [ "$(grep -c 'counters:' "$WORK/backend.log")" -gt "$before" ]
		then
			# Logged in one go: give its last lines a moment
			sleep 0.05
			awk '/counters:/ { n = NR } { l[NR] = $0 }
			     END { for (i = n; i <= NR; i++) print l[i] }' \
				"$WORK/backend.log"
			return 0
		fi
		sleep 0.01
	done
	return 1
}

# topo_counter() - the value of one of netshim's counters
# $1: counter name, as SIGUSR1 logs it (drop_src, tcp_conns, ...)
topo_counter() {
	topo_counters | sed -n "s/.*netshim: *$1  *\([0-9]*\) .*/\1/p"
}

# topo_vu_relay_guest() - a guest joined to the backend's vhost-user
# socket by tests/vu_relay, a front-end of our own
# $1: MTU of tap0 (default 1500)
topo_vu_relay_guest() {
	topo_relay_start vu_relay "${1:-1500}"
}

# topo_write_dhcp_scripts() - the guest's DHCP client hooks, under $WORK
#
# The guest namespace shares /etc with the host, so the results go to
# $WORK/guest-resolv.conf and $WORK/*.env, never to /etc/resolv.conf.
topo_write_dhcp_scripts() {
	cat >"$WORK/udhcpc.script" <<-EOF
	#!/bin/sh
	# udhcpc hook of the test guest: apply the lease, record the options
	case "\$1" in
	bound|renew)
		env | grep -E '^(interface|ip|mask|subnet|router|dns)=' \
			>"$WORK/udhcpc.env"
		env | grep -E '^(domain|search|mtu|serverid|lease)=' \
			>>"$WORK/udhcpc.env"
		ip -4 addr flush dev "\$interface"
		ip addr add "\$ip/\${mask:-24}" dev "\$interface" || exit 1
		for r in \$router; do
			ip route replace default via "\$r" dev "\$interface"
			break
		done
		{
			[ -n "\$search\$domain" ] && echo search \$search \$domain
			for d in \$dns; do echo "nameserver \$d"; done
		} >"$WORK/guest-resolv.conf.v4"
		;;
	esac
	exit 0
	EOF
	cat >"$WORK/dhclient6.script" <<-EOF
	#!/bin/sh
	# dhclient -6 hook of the test guest: apply the lease, record options
	case "\$reason" in
	BOUND6|RENEW6|REBIND6|REBOOT6)
		env | grep -E '^(interface|new_ip6_|new_dhcp6_)' >"$WORK/dhcp6.env"
		ip -6 addr replace "\$new_ip6_address/\${new_ip6_prefixlen:-128}" \\
			dev "\$interface" nodad || exit 1
		{
			[ -n "\$new_dhcp6_domain_search" ] &&
				echo "search \$new_dhcp6_domain_search"
			for d in \$new_dhcp6_name_servers; do
				echo "nameserver \$d"
			done
		} >"$WORK/guest-resolv.conf.v6"
		;;
	esac
	exit 0
	EOF
	cat >"$WORK/dhclient6.conf" <<-EOF
	timeout 20;
	request dhcp6.name-servers, dhcp6.domain-search;
	EOF
	chmod +x "$WORK/udhcpc.script" "$WORK/dhclient6.script"
}

# guest_dhcp4() - DHCPv4 on tap0 with busybox udhcpc
guest_dhcp4() {
	[ -x "$WORK/udhcpc.script" ] || topo_write_dhcp_scripts
	in_guest busybox udhcpc -i tap0 -f -q -n -t 10 -T 1 -O search \
		-s "$WORK/udhcpc.script" >"$WORK/udhcpc.log" 2>&1 ||
		fail "DHCPv4 failed: $(tail -5 "$WORK/udhcpc.log")"
	[ -s "$WORK/udhcpc.env" ] || fail "udhcpc script did not run"
}

# guest_slaac() - wait for a 2001:db8:1::/64 address on tap0 from the RA
guest_slaac() {
	local _

	for _ in $(seq 100); do
		# dhclient -6 binds to the link-local: it must be usable too
		[ -z "$(ip -n "$NS_GUEST" -6 addr show dev tap0 tentative)" ] &&
			ip -n "$NS_GUEST" -6 addr show dev tap0 scope global |
			grep -q 'inet6 2001:db8:1:0:' && return 0
		sleep 0.1
	done
	fail "no SLAAC address on tap0 after 10 s"
}

# guest_dhcp6() - DHCPv6 on tap0 with ISC dhclient (busybox has no udhcpc6)
guest_dhcp6() {
	local pid

	[ -x "$WORK/dhclient6.script" ] || topo_write_dhcp_scripts
	in_guest dhclient -6 -1 -v -cf "$WORK/dhclient6.conf" \
		-sf "$WORK/dhclient6.script" -lf "$WORK/dhclient6.leases" \
		-pf "$WORK/dhclient6.pid" tap0 >"$WORK/dhclient6.log" 2>&1 ||
		fail "DHCPv6 failed: $(grep -v -i -e isc -e copyright \
			-e 'all rights' -e bugs -e 'process and' -e '^$' \
			"$WORK/dhclient6.log" | tail -8)"
	# dhclient stays in the background to renew: make it ours to stop
	pid=$(cat "$WORK/dhclient6.pid" 2>/dev/null)
	[ -n "$pid" ] && topo_pid_add "$pid"
	[ -s "$WORK/dhcp6.env" ] || fail "dhclient script did not run"
}

# guest_dhcp() - the guest's full address setup: DHCPv4, SLAAC, DHCPv6
#
# Leaves $WORK/udhcpc.env, $WORK/dhcp6.env and $WORK/guest-resolv.conf.
guest_dhcp() {
	guest_dhcp4
	guest_slaac
	guest_dhcp6
	cat "$WORK/guest-resolv.conf.v4" "$WORK/guest-resolv.conf.v6" \
		>"$WORK/guest-resolv.conf" 2>/dev/null
}

# topo_env_get() - value of a variable recorded by a DHCP hook
# $1: file ($WORK/udhcpc.env or $WORK/dhcp6.env), $2: variable name
topo_env_get() {
	sed -n "s/^$2=//p" "$1" | head -1
}
