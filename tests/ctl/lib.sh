# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Helpers of the control socket tests (tests/integration/t_ctl_*.sh),
# sourced after tests/lib/topo.sh: the same changes made through pesto
# (passt 2026's client, built by tests/ctl/pesto.sh) and through
# netshim-ctl, the rules read back, sockets told apart by their inode.

CTL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NETSHIM_CTL=${NETSHIM_CTL:-$REPO/build/netshim-ctl}

# ctl_clients() - set CLIENTS to the clients to run: pesto where it can be
# had (PESTO, or built by tests/ctl/pesto.sh into PESTO_DIR, default
# build/pesto), and netshim-ctl
ctl_clients() {
	local out=${PESTO_DIR:-$REPO/build/pesto} why

	[ -x "$NETSHIM_CTL" ] || fail "$NETSHIM_CTL not built (make)"
	CLIENTS=(netshim-ctl)
	if [ -n "${PESTO:-}" ]; then
		why="PESTO=$PESTO is not an executable"
	else
		"$CTL_DIR/pesto.sh" "$out" >>"$WORK/pesto-build.log" 2>&1
		PESTO=$out/pesto
		why=$(cat "$out/failed.txt" 2>/dev/null)
	fi
	if [ -x "$PESTO" ]; then
		CLIENTS=(pesto netshim-ctl)
		log "clients: pesto ($PESTO) and netshim-ctl"
	else
		log "NOTE: pesto cannot be had here (${why:-no reason given}):" \
			"netshim-ctl alone"
	fi
}

# ctl() - change or list the rules through one client, as its user would
# $1: client (pesto or netshim-ctl), $2: verb: list, add, delete, set,
# clear; then the verb's options (-t SPEC ..., or a table's name)
# Prints the client's output; returns its exit status.  pesto's verbs are
# its options: -A, -D, none (set), -C.
ctl() {
	local client=$1 verb=$2

	shift 2
	if [ "$client" = netshim-ctl ]; then
		case "$verb" in
		list) "$NETSHIM_CTL" "$CTL_SOCK" rules ;;
		*) "$NETSHIM_CTL" "$CTL_SOCK" "$verb" "$@" ;;
		esac
		return
	fi
	case "$verb" in
	list) "$PESTO" "$CTL_SOCK" ;;
	add) "$PESTO" -A "$@" "$CTL_SOCK" ;;
	delete) "$PESTO" -D "$@" "$CTL_SOCK" ;;
	set) "$PESTO" "$@" "$CTL_SOCK" ;;
	clear) "$PESTO" -C "$@" "$CTL_SOCK" ;;
	*) fail "ctl: no verb $verb" ;;
	esac
}

# ctl_ok() - a change through a client, which must succeed
# $@: as ctl()
ctl_ok() {
	local out

	out=$(ctl "$@" 2>&1) || fail "$1 $2 ${*:3}: exit $?: $out"
	log "ok: $1 $2 ${*:3}${out:+: $out}"
}

# ctl_rules() - the rules as a client lists them, one a line, sorted,
# each "TABLE RULE" (the rule as pesto prints it, spaces squeezed)
# $1: client
ctl_rules() {
	ctl "$1" list | awk '
		/^  [A-Z]+$/ { t = $1; next }
		/^    / { $1 = $1; print t " " $0 }' | sort
}

# ctl_expect_rules() - fail unless both clients list exactly these rules
# $@: the rules, "TABLE RULE" each, as ctl_rules() prints them
ctl_expect_rules() {
	local want got c

	want=$(printf '%s\n' "$@" | sed '/^$/d' | sort)
	for c in "${CLIENTS[@]}"; do
		got=$(ctl_rules "$c")
		[ "$got" = "$want" ] ||
			fail "$c lists:"$'\n'"$got"$'\n'"expected:"$'\n'"$want"
	done
}

# ctl_inode() - the inode of the backend's listening sockets on a port
# $1: namespace, $2: ss option (-t or -u), $3: port
# Prints "local-address:inode" pairs, sorted: the same output before and
# after a change means the sockets were never closed and opened again.
ctl_inode() {
	ip netns exec "$1" ss -Hlne "$2" "sport = :$3" 2>/dev/null |
		awk '{ for (i = 1; i <= NF; i++)
			if ($i ~ /^ino:/) print $4 "/" $i }' | sort
}

# ctl_long_conn() - a connection that must outlive the changes: connects
# to an echo server now, and echoes a second word once $WORK/$4.go exists
# $1: namespace, $2: address, $3: port, $4: name
# Leaves $WORK/$4.out: "ok" once both words came back
ctl_long_conn() {
	ip netns exec "$1" timeout 120 python3 -c '
import os, socket, sys, time
addr, port, flag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.create_connection((addr, port), timeout=10)
def echo(word):
    s.sendall(word)
    got = b""
    while len(got) < len(word):
        b = s.recv(64)
        if not b:
            sys.exit("closed")
        got += b
    if got != word:
        sys.exit("echo: %r" % got)
echo(b"first\n")
print("up", flush=True)
t0 = time.monotonic()
while not os.path.exists(flag) and time.monotonic() - t0 < 100:
    time.sleep(0.05)
echo(b"second\n")
print("ok", flush=True)
' "$2" "$3" "$WORK/$4.go" >"$WORK/$4.out" 2>&1 &
	topo_pid_add $!
	for _ in $(seq 100); do
		grep -q up "$WORK/$4.out" && return 0
		sleep 0.05
	done
	fail "$4: no connection to $2 port $3: $(cat "$WORK/$4.out")"
}

# ctl_long_conn_check() - the connection of ctl_long_conn still echoes
# $1: name
ctl_long_conn_check() {
	touch "$WORK/$1.go"
	for _ in $(seq 100); do
		grep -q '^ok' "$WORK/$1.out" && {
			log "ok: $1: the connection open before the changes" \
				"still echoes"
			return 0
		}
		sleep 0.05
	done
	fail "$1: the connection open before the changes is gone:" \
		"$(cat "$WORK/$1.out")"
}

# ctl_udp_echo() - a UDP echo server for every client, both families
# $1: namespace, $2: port, $3: address ("" for any)
ctl_udp_echo() {
	ip netns exec "$1" timeout 300 python3 -c '
import socket, sys
addr, port = sys.argv[1], int(sys.argv[2])
fam = socket.AF_INET if "." in addr else socket.AF_INET6
s = socket.socket(fam, socket.SOCK_DGRAM)
if fam == socket.AF_INET6:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind((addr or "::", port))
while True:
    data, peer = s.recvfrom(65536)
    s.sendto(data, peer)
' "$3" "$2" >>"$WORK/udp-echo.log" 2>&1 &
	topo_pid_add $!
	for _ in $(seq 50); do
		ip netns exec "$1" ss -Hlun "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	fail "UDP echo server on port $2 in $1 not up"
}

# ctl_udp() - one datagram to a port: "echo" if it comes back, else
# "none" (three tries, a second each)
# $1: namespace, $2: address, $3: port
ctl_udp() {
	ip netns exec "$1" timeout 10 python3 -c '
import socket, sys
addr, port = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET,
                  socket.SOCK_DGRAM)
s.settimeout(1)
for _ in range(3):
    s.sendto(b"ping", (addr, port))
    try:
        if s.recv(64) == b"ping":
            print("echo")
            sys.exit(0)
    except OSError:
        pass
print("none")
' "$2" "$3" 2>&1
}

# ctl_udp_expect() - fail unless a datagram to a port comes back, or not
# $1: namespace, $2: address, $3: port, $4: echo or none
ctl_udp_expect() {
	local got

	got=$(ctl_udp "$1" "$2" "$3")
	[ "$got" = "$4" ] ||
		fail "UDP $1 -> $2 port $3: '$got', expected $4"
	log "ok: UDP $1 -> $2 port $3: $got"
}

# ctl_tcp_ok() - a connection through a forwarded port is echoed intact
# $1: namespace, $2: address, $3: port
ctl_tcp_ok() {
	tcp_many_check "$1" "$2" "$3" 1 65536 10
}

# ctl_tcp_no() - a connection to a port no rule forwards (any more) is
# refused, reset or closed within two seconds
# $1: namespace, $2: address, $3: port
ctl_tcp_no() {
	tcp_expect "$1" "$2" "$3" 2000 refused reset closed
}
