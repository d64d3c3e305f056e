#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The control socket as an attack surface (netshim -c PATH, a relay
# guest), while the guest's traffic goes on:
# - the socket is owner-only (mode 0700, owned by the user that started
#   netshim); a client of another uid, given the right to connect, is
#   refused with the reason (SO_PEERCRED) and counted;
# - malformed requests (an HTTP request, a line of another version, an
#   unknown verb, a table of an interface netshim lacks, one given twice,
#   more than 255 rules, an interface name without its NUL, a port 0,
#   unknown flags, conflicting rules, a request cut short, a line too
#   long) are each refused with its reason, the rules unchanged; random
#   bytes on 40 connections are each answered or hung up on (and may
#   make a valid update: a lone 0 byte empties the tables, as with
#   passt);
# - a client that sends a byte and then nothing is cut off after 10 s,
#   told why, while pesto or netshim-ctl is still served meanwhile;
# - 40 silent connections at once: netshim serves four at a time, the
#   others wait, nothing is refused that should not be, and netshim-ctl
#   is served once they are gone;
# - a capture whose reader reads nothing while the guest moves 64 MiB:
#   the transfer completes, frames are left out and counted
#   (capture_dropped), and a new capture runs once it hung up;
# - through it all the guest's connections work: a transfer runs during
#   the flood and the slow client, a connection open from the start
#   echoes at the end, and netshim-allocguard (make check) allocates
#   nothing in the loop.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/ctl/lib.sh
. "$(dirname "$0")/../ctl/lib.sh"

[ "$BACKEND" = netshim ] || skip "netshim's control socket"
RAW="/usr/bin/python3 $REPO/tests/ctl/raw.py"

# rule() - a rule as pesto sends it, in hex
# $1: first, $2: last, $3: to, $4: protocol, $5: flags, $6: address (32
# hex digits, default ::), $7: interface name, hex (default none)
rule() {
	local ifn=${7:-}

	printf '%s%032x%s%04x%04x%04x%02x%02x' "${6:-$(printf '%032x' 0)}" 0 \
		"$ifn$(printf '%0*x' $((32 - ${#ifn})) 0)" "$1" "$2" "$3" "$4" \
		"$5"
}

# table() - a table of an update, in hex
# $1: interface number, $2: rule count, then the rules in hex
table() {
	printf '%02x%08x' "$1" "$2"
	shift 2
	printf '%s' "$@"
}

# refused() - send a request, expect a refusal naming the reason
# $1: what it is, $2: the request in hex, $3: a part of the reason
refused() {
	local out

	out=$($RAW "$CTL_SOCK" send "$2")
	echo "$out" | grep -q "^error: .*$3" ||
		fail "$1: answer '$out', expected the reason '$3'"
	log "ok: $1: $out"
}

topo_init
topo_peer_pod
CTL_SOCK=$WORK/ctl.sock
ctl_clients
topo_backend -c "$CTL_SOCK" -t 2222 -u 5300
topo_relay_guest
guest_dhcp
tcp_many_server "$NS_GUEST" "" 2222
ctl_long_conn "$NS_PEER" 203.0.113.2 2222 long
RULES="HOST TCP [*]:2222 => 2222"$'\n'"HOST UDP [*]:5300 => 5300"

# --- Owner only; other users refused, told why
[ "$(stat -c '%a %u' "$CTL_SOCK")" = "700 0" ] ||
	fail "control socket mode and owner: $(stat -c '%a %u' "$CTL_SOCK")"
log "ok: the control socket is mode 700, root's"
refused_before=$(topo_counter ctl_refused)
chmod 0777 "$CTL_SOCK" "$WORK"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$NETSHIM_CTL" "$CTL_SOCK" rules 2>&1) &&
	fail "uid 65534 was served: $out"
echo "$out" | grep -q "refused: uid 65534 is neither root nor netshim's owner (uid 0)" ||
	fail "uid 65534 refused without the reason: $out"
log "ok: uid 65534 refused: $out"
chmod 0700 "$CTL_SOCK"
chmod 1777 "$WORK"

# --- Malformed requests: each refused with its reason
any=$(printf '%032x' 0)
v4=00000000000000000000ffffcb007102
refused "an HTTP request" "$(printf 'GET / HTTP/1.0\r\n\r\n' | od -An -tx1 | tr -d ' \n')" \
	"more rules than a table holds"
refused "another version's line" "$(printf 'NSCTL9 rules\n' | od -An -tx1 | tr -d ' \n')" \
	"neither rule tables"
refused "an unknown verb" "$(printf 'NSCTL1 reboot\n' | od -An -tx1 | tr -d ' \n')" \
	"unknown request"
refused "a table of interface 7" "$(table 7 0)00" "no interface 7 here"
refused "HOST twice" "$(table 1 0)$(table 1 0)00" "given twice"
refused "256 rules" "$(table 1 256)" "more rules than a table holds"
refused "a name without its NUL" \
	"$(table 1 1 "$(printf '%032x%032x%s%04x%04x%04x0601' 0 0 \
		"$(printf '41%.0s' $(seq 16))" 80 80 80)")00" "NUL"
refused "port 0" "$(table 1 1 "$(rule 0 0 80 6 1)")00" "port 0"
refused "unknown flags" "$(table 1 1 "$(rule 80 80 80 6 129)")00" \
	"unknown flags"
refused "conflicting rules" \
	"$(table 1 2 "$(rule 80 90 80 6 1)" "$(rule 85 85 85 6 0 "$v4")")00" \
	"conflicts with"
refused "a request cut short" "$(table 1 2 "$(rule 80 80 80 6 1)")" \
	"cut short"
refused "a line too long" "4e5343544c3120$(printf '61%.0s' $(seq 300))" \
	"too long"
ctl_expect_rules "$RULES"
log "ok: the rules are as they were"
out=$($RAW "$CTL_SOCK" noise 40) || fail "noise: $out"
log "ok: $out"
# A lone 0 byte is a valid update that empties every table, as passt
# takes it: set the rules again, whatever the noise did
ctl_ok netshim-ctl set -t 2222 -u 5300
ctl_expect_rules "$RULES"
ctl_tcp_ok "$NS_PEER" 2001:db8:1::2 2222

# --- A slow client is cut off; others are served meanwhile
$RAW "$CTL_SOCK" slow 13 >"$WORK/slow.out" 2>&1 &
slow=$!
topo_pid_add $slow
sleep 1
tcp_many_check "$NS_PEER" 203.0.113.2 2222 4 $((4 << 20)) 30
ctl_expect_rules "$RULES"
wait $slow
grep -q "error: no whole request within 10 s" "$WORK/slow.out" ||
	fail "the slow client was not cut off with the reason: $(cat "$WORK/slow.out")"
log "ok: the slow client cut off: $(cat "$WORK/slow.out")"

# --- A flood of silent connections: four served, the others wait
$RAW "$CTL_SOCK" flood 40 3 >"$WORK/flood.out" 2>&1 &
flood=$!
topo_pid_add $flood
sleep 0.5
tcp_many_check "$NS_PEER" 203.0.113.2 2222 4 $((4 << 20)) 30
wait $flood
log "ok: $(cat "$WORK/flood.out")"
for _ in $(seq 40); do
	ctl_rules netshim-ctl >/dev/null 2>&1 && break
	sleep 0.5
done
ctl_expect_rules "$RULES"
log "ok: served again once the flood was gone"

# --- A capture nobody reads: frames left out, the guest unslowed
dropped=$(topo_counter capture_dropped)
$RAW "$CTL_SOCK" capture 30 >"$WORK/cap.out" 2>&1 &
cap=$!
topo_pid_add $cap
sleep 0.5
tcp_many_check "$NS_PEER" 203.0.113.2 2222 4 $((16 << 20)) 60
now=$(topo_counter capture_dropped)
[ "$now" -gt "$dropped" ] ||
	fail "no frame left out of a capture nobody reads ($dropped, $now)"
log "ok: $((now - dropped)) frames left out of the unread capture"
kill "$cap" 2>/dev/null
wait "$cap" 2>/dev/null
for _ in $(seq 20); do
	"$NETSHIM_CTL" "$CTL_SOCK" capture -n 1 -d 3 -w "$WORK/c.pcap" \
		2>"$WORK/c.err" &
	c=$!
	sleep 0.3
	in_guest ping -c 2 -i 0.2 -W 1 203.0.113.1 >/dev/null 2>&1
	wait $c && break
	sleep 0.5
done
grep -q "1 frames captured" "$WORK/c.err" ||
	fail "no capture after the unread one: $(cat "$WORK/c.err")"
log "ok: a new capture ran once the unread one hung up"

now=$(topo_counter ctl_refused)
[ "$((now - refused_before))" -ge 14 ] ||
	fail "ctl_refused went from $refused_before to $now only"
log "ok: ctl_refused counts the refusals: $refused_before, then $now"
ctl_long_conn_check long
kill -0 "$BACKEND_PID" || fail "netshim exited"
