#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# An upgrade in place of netshim in client mode (--connect), the VMM
# listening as QEMU's -netdev stream,server=on does (tests/relay
# --listen stands for it, a namespace's kernel for the guest):
# - 10 upgrades under a TCP stream each way, a UDP flow and pings from the
#   guest (tests/lib/upgrade.sh): every byte arrives as sent, and the
#   VMM accepted one connection, the one netshim made before them: the
#   upgraded netshims took it over, none connected again;
# - a -t port reaches the guest after them;
# - then the VMM restarts (the relay killed, another listening on the
#   same path): the upgraded netshim connects to it on its own, and the
#   guest, its link new, gets its addresses again (DHCPv4, SLAAC) and
#   reaches the peer over TCP in both families;
# - upgraded once more, then the VMM gone for good: netshim exits once
#   --connect-timeout ran out, saying that the VMM it served did not come
#   back (not that none ever listened): the process that took over knows
#   it was serving one.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/lib/upgrade.sh
. "$(dirname "$0")/../lib/upgrade.sh"

ROUNDS=${UPGRADE_ROUNDS:-10}
# Seconds netshim waits for a VMM that went away before it exits
TMO=6

[ "$BACKEND" = netshim ] || skip "netshim only: passt has no upgrade in place"

# accepted() - connections the relays accepted so far
accepted() {
	grep -c 'relay: connection [0-9]* accepted' "$WORK/relay.log"
}

topo_init
topo_peer_pod
topo_relay_listen 1500
up_backend --connect -s "$WORK/backend.sock" -P "$WORK/backend.pid" \
	--connect-timeout "$TMO" -D 203.0.113.1 -D 2001:db8:1::1 \
	-S netshim.test -t 8080
topo_relay_wait "$WORK/relay.log"
[ -S "$WORK/backend.sock.upgrade" ] ||
	fail "no upgrade socket next to the VMM's: $(ls "$WORK")"
[ "$(accepted)" = 1 ] || fail "the relay accepted $(accepted) connections"
guest_dhcp
tcp_many_server "$NS_GUEST" "" 8080

up_traffic_start "$NS_GUEST" 203.0.113.1
up_rounds "$ROUNDS"
up_traffic_stop

[ "$(accepted)" = 1 ] ||
	fail "the relay accepted $(accepted) connections: $(cat "$WORK/relay.log")"
connects=$(topo_counter vmm_connects)
[ "$connects" = 1 ] ||
	fail "netshim counts $connects connections to the VMM"
log "ok: one connection to the VMM through $ROUNDS upgrades"
tcp_many_check "$NS_PEER" 203.0.113.2 8080 2 65536 10

# --- The VMM restarts: the upgraded netshim connects again by itself
kill "$RELAY_PID"
topo_wait_exit "$RELAY_PID" 50 || fail "the relay did not stop"
# A VMM is a while away: netshim tries to connect in between
sleep 1
topo_relay_listen 1500
topo_relay_wait "$WORK/relay.log"
[ "$(accepted)" = 2 ] || fail "relays accepted $(accepted) connections"
topo_alive "$BACKEND_PID" || fail "netshim exited"
log "ok: the upgraded netshim connected to the restarted VMM"
rm -f "$WORK/udhcpc.env"
guest_dhcp4
guest_slaac
tcp_many_server "$NS_PEER" "" 7000
tcp_many_check "$NS_GUEST" 203.0.113.1 7000 2 65536 10
tcp_many_check "$NS_GUEST" 2001:db8:1::1 7000 2 65536 10
tcp_many_check "$NS_PEER" 2001:db8:1::2 8080 1 65536 10
connects=$(topo_counter vmm_connects)
[ "$connects" = 2 ] ||
	fail "netshim counts $connects connections to the VMM, not 2"

# --- Upgraded again, then the VMM goes for good
up_upgrade "after the VMM's restart"
tcp_many_check "$NS_GUEST" 203.0.113.1 7000 1 65536 10
kill "$RELAY_PID"
topo_wait_exit "$RELAY_PID" 50 || fail "the relay did not stop"
t0=$(date +%s)
for _ in $(seq $(( (TMO + 10) * 10 ))); do
	topo_alive "$BACKEND_PID" || break
	sleep 0.1
done
topo_alive "$BACKEND_PID" &&
	fail "netshim still runs $((TMO + 10)) s after the VMM went"
log "netshim exited $(( $(date +%s) - t0 )) s after the VMM went"
grep -a -q "no VMM came back to $WORK/backend.sock within $TMO s" \
	"$WORK/backend.log" ||
	fail "netshim did not say the VMM it served did not come back:" \
		"$(grep -a 'VMM' "$WORK/backend.log" | tail -3)"
log "ok: $(grep -a -o 'no VMM came back.*' "$WORK/backend.log" | tail -1)"
