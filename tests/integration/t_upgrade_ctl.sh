#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# An upgrade in place of a netshim whose forwarding was changed at run
# time through its control socket (-c, --metrics, a relay guest on the
# stream socket), as an operator would meet it:
# - -t 8080 on the command line; through the control socket (pesto where
#   tests/ctl/lib.sh can have it, and netshim-ctl) 9090 added and 8080
#   deleted; a connection from the peer to 9090 left open;
# - 5 upgrades with the same command line, under traffic (tests/lib/
#   upgrade.sh: every byte checked): after them both clients list the
#   changed rules, not the command line's; the peer reaches the guest's
#   server on 9090 and no longer on 8080; 9090's listening socket, the
#   -c socket and the --metrics one keep their inodes (the same sockets,
#   handed over) and answer; the counters go on from where they were,
#   and the connection open before the upgrades still echoes;
# - then an upgrade whose command line has no -c: it still happens, the
#   log says that the changed rules are not kept, and the command line's
#   apply again (8080 forwarded, 9090 not); --metrics answers on.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/ctl/lib.sh
. "$(dirname "$0")/../ctl/lib.sh"
# shellcheck source=tests/lib/upgrade.sh
. "$(dirname "$0")/../lib/upgrade.sh"

ROUNDS=${UPGRADE_ROUNDS:-5}

[ "$BACKEND" = netshim ] || skip "netshim only: passt has no upgrade in place"
topo_init
topo_peer_pod
CTL_SOCK=$WORK/ctl.sock
MET=$WORK/metrics.sock
ctl_clients
up_backend -s "$WORK/backend.sock" -P "$WORK/backend.pid" \
	-D 203.0.113.1 -D 2001:db8:1::1 -S netshim.test \
	-c "$CTL_SOCK" --metrics "$MET" -t 8080
topo_relay_guest 1500
guest_dhcp
tcp_many_server "$NS_GUEST" "" 8080
tcp_many_server "$NS_GUEST" "" 9090

# unix_ino() - the inode of the listening UNIX socket at a path, as ss
# lists the pod's: the same number means the same socket
# $1: path
unix_ino() {
	in_pod ss -Hxln | awk -v p="$1" '$5 == p { print $6 }'
}

# metric() - a counter as --metrics reads it to an HTTP GET
# $1: name, netshim_ and _total left out
metric() {
	curl -s --max-time 5 --unix-socket "$MET" http://localhost/metrics |
		sed -n "s/^netshim_$1_total \([0-9]*\)$/\1/p"
}

# --- The rules changed at run time, before any upgrade
ctl_expect_rules "HOST TCP [*]:8080 => 8080"
ctl_tcp_ok "$NS_PEER" 203.0.113.2 8080
ctl_tcp_no "$NS_PEER" 203.0.113.2 9090
ctl_ok "${CLIENTS[0]}" add -t 9090
ctl_ok netshim-ctl delete -t 8080
ctl_expect_rules "HOST TCP [*]:9090 => 9090"
ctl_tcp_ok "$NS_PEER" 203.0.113.2 9090
ctl_tcp_ok "$NS_PEER" 2001:db8:1::2 9090
ctl_tcp_no "$NS_PEER" 203.0.113.2 8080
ctl_long_conn "$NS_PEER" 203.0.113.2 9090 long

ino_9090=$(ctl_inode "$NS_POD" -t 9090)
ino_ctl=$(unix_ino "$CTL_SOCK")
ino_met=$(unix_ino "$MET")
[ -n "$ino_9090" ] && [ -n "$ino_ctl" ] && [ -n "$ino_met" ] ||
	fail "no listening sockets: 9090 '$ino_9090', -c '$ino_ctl'," \
		"--metrics '$ino_met'"
declare -A before
for m in ctl_requests tcp_conns dhcp_replies vmm_connects; do
	before[$m]=$(metric "$m")
	[ -n "${before[$m]}" ] && [ "${before[$m]}" -gt 0 ] ||
		fail "--metrics: $m is '${before[$m]}' before the upgrades"
done
log "counters before the upgrades: $(for m in "${!before[@]}"; do
	printf '%s=%s ' "$m" "${before[$m]}"; done)"

# --- Upgrades under traffic, the same command line
up_traffic_start "$NS_GUEST" 203.0.113.1
up_rounds "$ROUNDS"
up_traffic_stop

ctl_expect_rules "HOST TCP [*]:9090 => 9090"
log "ok: after $ROUNDS upgrades the rules are those the control socket left"
ctl_tcp_ok "$NS_PEER" 203.0.113.2 9090
ctl_tcp_ok "$NS_PEER" 2001:db8:1::2 9090
ctl_tcp_no "$NS_PEER" 203.0.113.2 8080
ctl_tcp_no "$NS_PEER" 2001:db8:1::2 8080
ctl_long_conn_check long
[ "$(ctl_inode "$NS_POD" -t 9090)" = "$ino_9090" ] ||
	fail "9090 bound again: $ino_9090 before, $(ctl_inode "$NS_POD" -t 9090)"
[ "$(unix_ino "$CTL_SOCK")" = "$ino_ctl" ] ||
	fail "-c socket: inode $ino_ctl before, '$(unix_ino "$CTL_SOCK")' now"
[ "$(unix_ino "$MET")" = "$ino_met" ] ||
	fail "--metrics socket: inode $ino_met before, '$(unix_ino "$MET")' now"
log "ok: 9090's listener ($ino_9090), -c ($ino_ctl) and --metrics" \
	"($ino_met) are the sockets of before the upgrades"
for m in "${!before[@]}"; do
	now=$(metric "$m")
	[ -n "$now" ] && [ "$now" -ge "${before[$m]}" ] ||
		fail "--metrics: $m was ${before[$m]} before the upgrades," \
			"is '$now' after them"
	log "ok: $m: ${before[$m]} before the upgrades, $now after"
done
[ "$(metric vmm_connects)" = 1 ] ||
	fail "the VMM connected $(metric vmm_connects) times"

# --- An upgrade whose command line has no -c: the rules the control
# socket changed are not kept, and the log says so
args=()
skip_next=
for a in "${UP_ARGS[@]}"; do
	if [ -n "$skip_next" ]; then
		skip_next=
		continue
	fi
	[ "$a" = -c ] && { skip_next=1; continue; }
	args+=("$a")
done
UP_ARGS=("${args[@]}")
n_warn=$(grep -a -c 'this command line has no -c' "$WORK/backend.log")
up_upgrade "without -c"
topo_wait_log "$WORK/backend.log" 'this command line has no -c' 20 &&
	[ "$(grep -a -c 'this command line has no -c' "$WORK/backend.log")" \
		-gt "$n_warn" ] ||
	fail "no warning that the changed rules are not kept"
log "ok: upgraded without -c: $(grep -a -o 'upgrade: the running .*no -c' \
	"$WORK/backend.log" | tail -1)"
ctl_tcp_ok "$NS_PEER" 203.0.113.2 8080
ctl_tcp_no "$NS_PEER" 203.0.113.2 9090
log "ok: the command line's -t 8080 forwards again, 9090 no longer"
out=$("$NETSHIM_CTL" "$CTL_SOCK" rules 2>&1) &&
	fail "the control socket answers without -c: $out"
log "ok: nothing answers on the control socket: $out"
# Removed by the new netshim, unless the user it runs as may not (the
# file stays root's, owner-only, in a sticky directory): then it says so
if [ -e "$CTL_SOCK" ]; then
	topo_wait_log "$WORK/backend.log" 'ctl.sock left in place' 5 ||
		fail "the control socket's file stays, and the log does not say why"
	log "ok: $(grep -a -o 'ctl.sock left in place.*' "$WORK/backend.log" |
		tail -1)"
else
	log "ok: the control socket's file went with the old netshim"
fi
[ "$(unix_ino "$MET")" = "$ino_met" ] ||
	fail "--metrics socket: inode $ino_met before, '$(unix_ino "$MET")' now"
now=$(metric tcp_conns)
[ -n "$now" ] && [ "$now" -ge "${before[tcp_conns]}" ] ||
	fail "--metrics after the upgrade without -c: tcp_conns '$now'"
log "ok: --metrics answers on, tcp_conns $now"
