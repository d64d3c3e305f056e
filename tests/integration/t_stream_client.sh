#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Client mode (--connect) on the stream socket without QEMU: tests/relay
# --listen listens as QEMU's -netdev stream,server=on does, a namespace's
# kernel plays the guest.
# - The VMM first, then netshim: it connects, the guest gets its
#   addresses (DHCPv4, SLAAC, DHCPv6) and reaches the peer over TCP in
#   both families, the peer reaches it through -t.
# - The VMM restarts (killed, another on the same path a second later):
#   netshim connects to it again on its own, after failed attempts it
#   counts; the guest, its link new, gets DHCPv4 again and reaches the
#   peer.
# - netshim first, then the VMM: it waits, connects once the VMM
#   listens, and the guest works; when that VMM goes for good, netshim
#   exits 0 once --connect-timeout ran out.
# - No VMM ever: netshim exits 1 after --connect-timeout, saying why.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

[ "$BACKEND" = netshim ] || skip "passt has no client mode (--connect)"

# accepted() - connections the relays accepted so far
accepted() {
	grep -c 'relay: connection [0-9]* accepted' "$WORK/relay.log"
}

# relay_restart() - the VMM stopped, and started again a second later
relay_restart() {
	kill "$RELAY_PID"
	topo_wait_exit "$RELAY_PID" 50 || fail "the relay did not stop"
	sleep 1
	topo_relay_listen 1500
	topo_relay_wait "$WORK/relay.log"
}

# guest_tcp() - the guest's TCP both ways: to the peer in both families,
# from the peer through -t 8080
guest_tcp() {
	tcp_many_check "$NS_GUEST" 203.0.113.1 7000 2 65536 10
	tcp_many_check "$NS_GUEST" 2001:db8:1::1 7000 2 65536 10
	tcp_many_check "$NS_PEER" 203.0.113.2 8080 1 65536 10
}

topo_init
topo_peer_pod
tcp_many_server "$NS_PEER" "" 7000

# --- The VMM first
topo_relay_listen 1500
topo_backend --connect -t 8080 --connect-timeout 5
topo_relay_wait "$WORK/relay.log"
guest_dhcp
in_guest ping -c 2 -i 0.2 -W 2 203.0.113.1 >/dev/null ||
	fail "no ping from the guest"
tcp_many_server "$NS_GUEST" "" 8080
guest_tcp
[ "$(accepted)" = 1 ] || fail "the relay accepted $(accepted) connections"
[ "$(topo_counter vmm_connects)" = 1 ] ||
	fail "vmm_connects: $(topo_counter vmm_connects)"
log "ok: netshim connected to a VMM that listened first"

# --- The VMM restarts
relay_restart
[ "$(accepted)" = 2 ] || fail "the relays accepted $(accepted) connections"
failed=$(topo_counter vmm_connect_failed)
[ "$(topo_counter vmm_connects)" = 2 ] && [ "${failed:-0}" -gt 0 ] ||
	fail "vmm_connects: $(topo_counter vmm_connects), failed: $failed"
log "ok: connected again to the restarted VMM, after $failed failed attempts"
rm -f "$WORK/udhcpc.env"
guest_dhcp4
guest_slaac
guest_tcp

# --- netshim first
kill "$BACKEND_PID"
topo_wait_exit "$BACKEND_PID" 50 || fail "netshim did not stop"
kill "$RELAY_PID"
topo_wait_exit "$RELAY_PID" 50 || fail "the relay did not stop"
rm -f "$WORK/backend.sock"
topo_backend --connect -t 8080 --connect-timeout 5
sleep 1.5
kill -0 "$BACKEND_PID" 2>/dev/null ||
	fail "netshim gave up on a VMM not there yet: $(tail -3 "$WORK/backend.log")"
grep -q "no VMM listens on $WORK/backend.sock yet" "$WORK/backend.log" ||
	fail "netshim did not say it waits for the VMM"
topo_relay_listen 1500
topo_relay_wait "$WORK/relay.log"
log "ok: netshim started first connected once the VMM listened"
rm -f "$WORK/udhcpc.env"
guest_dhcp4
guest_slaac
guest_tcp

# --- That VMM goes for good: netshim exits 0 after --connect-timeout
kill "$RELAY_PID"
t0=$(date +%s)
topo_wait_exit "$BACKEND_PID" 150 ||
	fail "netshim still runs 15 s after the VMM went, --connect-timeout 5"
wait "$BACKEND_PID"
rc=$?
[ "$rc" = 0 ] || fail "netshim exited $rc once the VMM it served went"
grep -q "no VMM came back to $WORK/backend.sock within 5 s" \
	"$WORK/backend.log" || fail "no reason given: $(tail -3 "$WORK/backend.log")"
log "ok: netshim exited 0, $(( $(date +%s) - t0 )) s after the VMM went"

# --- No VMM ever: exit 1, and why
t0=$(date +%s)
out=$(ip netns exec "$NS_POD" timeout 20 "$NETSHIM" -f --connect \
	--connect-timeout 1 -s "$WORK/nobody.sock" -D 203.0.113.1 2>&1)
rc=$?
[ "$rc" = 1 ] || fail "netshim with no VMM exited $rc: $(tail -3 <<<"$out")"
grep -q "no VMM listened on $WORK/nobody.sock within 1 s" <<<"$out" ||
	fail "no reason given: $(tail -3 <<<"$out")"
log "ok: no VMM: exit 1 after $(( $(date +%s) - t0 )) s: $(grep -o \
	'no VMM listened.*' <<<"$out")"
