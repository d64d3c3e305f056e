#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Forwarding changed at run time, for a VM (relay guest on the stream
# socket): netshim -c PATH -t 2222 -u 5300, driven by pesto
# (passt 2026's client, unchanged; tests/ctl/pesto.sh builds it, and
# where it cannot be had the test says so and runs netshim-ctl alone) and
# by netshim-ctl, the same steps with each, as a user of passt would:
# - pesto lists the command line's rules as passt lists the same options,
#   and so does netshim-ctl;
# - adding a port, ranges, one with an exclusion (through the sk_lookup
#   program, loaded at start with -c for that), a rule on one address, on one interface, a UDP port to
#   another guest port, a TCP port to another guest address: each
#   reaches the guest's server at once; excluded and other-family ports
#   are refused;
# - deleting them: their ports are refused again within two seconds;
# - replacing the table (pesto without -A) and clearing it (-C HOST):
#   only the new rules forward;
# - what did not change is never bound again: the listening sockets of
#   2222 and 5300 and the sk_lookup program's two keep their inodes
#   through every change, and a connection open before them all still
#   echoes after;
# - a rule netshim cannot serve (UDP auto for a VM) is refused with the
#   reason (netshim-ctl prints it, the log has it for pesto, which does
#   not read answers) and the rules stay as they were; a port below 1024,
#   which netshim may not bind any more once it dropped root, is left out
#   of the table with the reason.
# Against netshim-allocguard in make check: none of it allocates in the
# loop.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/ctl/lib.sh
. "$(dirname "$0")/../ctl/lib.sh"

[ "$BACKEND" = netshim ] || skip "netshim's control socket (passt is run by hand: see the report)"

T4=198.51.100.77

topo_init
topo_peer_pod
CTL_SOCK=$WORK/ctl.sock
ctl_clients
topo_backend -c "$CTL_SOCK" -t 2222 -u 5300
topo_relay_guest
guest_dhcp
in_guest ip addr add "$T4/32" dev tap0 || fail "guest address $T4"

for p in 2222 8005 8020 9001 9003 7000 7100; do
	tcp_many_server "$NS_GUEST" "" "$p"
done
tcp_many_server "$NS_GUEST" "$T4" 7201
ctl_udp_echo "$NS_GUEST" 5300 ""
ctl_udp_echo "$NS_GUEST" 6000 ""

BASE=("HOST TCP [*]:2222 => 2222" "HOST UDP [*]:5300 => 5300")
ctl_expect_rules "${BASE[@]}"
log "ok: the command line's rules, listed as passt lists them"
ctl_tcp_ok "$NS_PEER" 203.0.113.2 2222
ctl_tcp_no "$NS_PEER" 2001:db8:1::2 8005
ctl_udp_expect "$NS_PEER" 203.0.113.2 5300 echo

ino_tcp=$(ctl_inode "$NS_POD" -t 2222)
ino_udp=$(ctl_inode "$NS_POD" -u 5300)
# The sk_lookup program's sockets: loopback, a port of the kernel's
ino_lookup=$(in_pod ss -Hltne 2>/dev/null | awk '$4 ~ /^(127\.0\.0\.1|\[::1\]):/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^ino:/) print $4 "/" $i }' | sort)
[ -n "$ino_tcp" ] && [ -n "$ino_udp" ] ||
	fail "no listening sockets on 2222, 5300: '$ino_tcp' '$ino_udp'"
ctl_long_conn "$NS_PEER" 203.0.113.2 2222 long

for c in "${CLIENTS[@]}"; do
	log "=== $c"
	ctl_tcp_no "$NS_PEER" 203.0.113.2 9001
	ctl_ok "$c" add -t 8000-8010
	ctl_tcp_ok "$NS_PEER" 2001:db8:1::2 8005
	ctl_ok "$c" add -t 9000-9003,~9002
	ctl_tcp_ok "$NS_PEER" 203.0.113.2 9001
	ctl_tcp_ok "$NS_PEER" 2001:db8:1::2 9003
	ctl_tcp_no "$NS_PEER" 203.0.113.2 9002

	ctl_ok "$c" add -t 203.0.113.2/7000
	ctl_tcp_ok "$NS_PEER" 203.0.113.2 7000
	ctl_tcp_no "$NS_PEER" 2001:db8:1::2 7000
	[ "$(ctl_inode "$NS_POD" -t 7000 | cut -d/ -f1)" = 203.0.113.2:7000 ] ||
		fail "7000 not bound to 203.0.113.2 alone: $(ctl_inode "$NS_POD" -t 7000)"

	ctl_ok "$c" add -t %pod0/7100
	ctl_tcp_ok "$NS_PEER" 203.0.113.2 7100
	# Bound to pod0: the pod's loopback does not reach it
	ctl_tcp_no "$NS_POD" 127.0.0.1 7100

	ctl_ok "$c" add -u 5353:6000
	ctl_udp_expect "$NS_PEER" 203.0.113.2 5353 echo
	ctl_udp_expect "$NS_PEER" 2001:db8:1::2 5353 echo

	ctl_ok "$c" add -t "0.0.0.0/7200:$T4/7201"
	ctl_tcp_ok "$NS_PEER" 203.0.113.2 7200

	ctl_expect_rules "${BASE[@]}" \
		"HOST TCP [*]:8000-8010 => 8000-8010" \
		"HOST TCP [*]:9000-9001 => 9000-9001" \
		"HOST TCP [*]:9003 => 9003" \
		"HOST TCP [203.0.113.2]:7000 => 7000" \
		"HOST TCP [*]%pod0:7100 => 7100" \
		"HOST UDP [*]:5353 => 6000" \
		"HOST TCP [0.0.0.0]:7200 => $T4:7201"

	# Refused: netshim says why, the rules stay
	if [ "$c" = netshim-ctl ]; then
		out=$(ctl "$c" set -u auto 2>&1) &&
			fail "UDP auto for a VM accepted: $out"
		echo "$out" | grep -q "TCP's only" ||
			fail "UDP auto for a VM refused without the reason: $out"
		log "ok: UDP auto refused: $out"
	else
		before=$(grep -c "TCP's only" "$WORK/backend.log")
		ctl "$c" add -u 7300-7310,auto >/dev/null 2>&1
		topo_wait_log "$WORK/backend.log" "TCP's only" 20 ||
			fail "no reason logged for refusing UDP auto"
		[ "$(grep -c "TCP's only" "$WORK/backend.log")" -gt "$before" ] ||
			fail "pesto's UDP auto not refused"
		log "ok: pesto's UDP auto refused, the log says why"
	fi
	ctl_tcp_ok "$NS_PEER" 203.0.113.2 9001

	ctl_ok "$c" delete -t 8000-8010
	ctl_tcp_no "$NS_PEER" 203.0.113.2 8005
	ctl_ok "$c" delete -t 9003
	ctl_tcp_no "$NS_PEER" 2001:db8:1::2 9003
	ctl_ok "$c" delete -u 5353:6000
	ctl_udp_expect "$NS_PEER" 203.0.113.2 5353 none
	ctl_ok "$c" add -t 8020
	ctl_tcp_ok "$NS_PEER" 203.0.113.2 8020

	# Replaced whole, as pesto without -A does
	ctl_ok "$c" set -t 2222 -u 5300
	ctl_expect_rules "HOST TCP [*]:2222 => 2222" "HOST UDP [*]:5300 => 5300"
	for p in 9001 7000 7100 7200 8020; do
		ctl_tcp_no "$NS_PEER" 203.0.113.2 "$p"
	done
	ctl_tcp_ok "$NS_PEER" 2001:db8:1::2 2222
	ctl_udp_expect "$NS_PEER" 2001:db8:1::2 5300 echo
	[ "$(ctl_inode "$NS_POD" -t 2222)" = "$ino_tcp" ] &&
		[ "$(ctl_inode "$NS_POD" -u 5300)" = "$ino_udp" ] ||
		fail "2222 or 5300 bound again: $(ctl_inode "$NS_POD" -t 2222)," \
			"$(ctl_inode "$NS_POD" -u 5300)"
	log "ok: the sockets of 2222 and 5300 were never bound again"

	# A port below 1024 after root is gone: left out, said why
	if [ "$c" = netshim-ctl ]; then
		out=$(ctl "$c" add -t 80 2>&1) && fail "port 80 taken: $out"
		echo "$out" | grep -q "cannot bind TCP port 80" ||
			fail "port 80 refused without the reason: $out"
		log "ok: port 80 left out: $out"
		ctl_expect_rules "HOST TCP [*]:2222 => 2222" \
			"HOST UDP [*]:5300 => 5300"
	fi

	ctl_ok "$c" clear HOST
	ctl_expect_rules
	ctl_tcp_no "$NS_PEER" 203.0.113.2 2222
	ctl_udp_expect "$NS_PEER" 203.0.113.2 5300 none

	# Back as at start, for the next client
	ctl_ok netshim-ctl add -t 2222 -u 5300
	ctl_expect_rules "${BASE[@]}"
	ino_tcp=$(ctl_inode "$NS_POD" -t 2222)
	ino_udp=$(ctl_inode "$NS_POD" -u 5300)
	ctl_tcp_ok "$NS_PEER" 203.0.113.2 2222
done

now=$(in_pod ss -Hltne 2>/dev/null | awk '$4 ~ /^(127\.0\.0\.1|\[::1\]):/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^ino:/) print $4 "/" $i }' | sort)
[ "$now" = "$ino_lookup" ] ||
	fail "the sk_lookup sockets changed: '$ino_lookup' then '$now'"
log "ok: the sk_lookup program's sockets were never bound again"
ctl_long_conn_check long
kill -0 "$BACKEND_PID" || fail "netshim exited"
