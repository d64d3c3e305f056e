#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Upgrades in place of netshim under a running QEMU 10 guest, as a launcher
# runs them (the same command line and --upgrade, tests/lib/upgrade.sh):
# NETDEV=vhost-user (the default) or stream.  While the guest
# (scenarios/upgrade.sh) downloads the peer's stream and uploads random
# bytes, each hashed at both ends, netshim is upgraded UPGRADE_ROUNDS
# times (default 100, a minute or two under TCG here).  Then:
#   - both transfers ended whole on the connections the guest opened
#     before the first upgrade: every byte as sent;
#   - QEMU noticed nothing: it connected once, and with vhost-user it sent
#     no message after the guest started (its own trace of what it wrote
#     and read on the vhost-user socket, and of its socket's events): no
#     reconnect, no renegotiation, the rings went on from where each
#     netshim left them;
#   - the guest's virtio driver did not complain;
#   - the serving netshim has as many descriptors after the last upgrade
#     as after the first, and no more memory;
#   - from there the guest renews its lease, pings the peer and opens new
#     TCP connections both ways.

set -u
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/peer.sh"
. "$(dirname "$0")/../tcp/lib.sh"
. "$(dirname "$0")/../lib/upgrade.sh"

ROUNDS=${UPGRADE_ROUNDS:-100}
NETDEV=${NETDEV:-vhost-user}
STEADY=$REPO/tests/tcp/steady.py

# vm_result() - a result line's text on the guest's console
# $1: key
vm_result() {
	tr -d '\r' <"$WORK/vm.log" | sed -n "s/^NETSHIM-RESULT $1 //p" |
		tail -n 1
}

# vu_messages() - vhost-user messages QEMU wrote or read, and its
# socket's events, so far (its trace)
vu_messages() {
	grep -c 'vhost_user_write\|vhost_user_read\|chr_socket' \
		"$WORK/vm.log.trace" 2>/dev/null
}

[ "$BACKEND" = netshim ] || skip "netshim only: passt has no upgrade in place"
case "$NETDEV" in
vhost-user) VU=(--vhost-user) ;;
stream) VU=() ;;
*) fail "NETDEV is vhost-user or stream, not $NETDEV" ;;
esac
topo_init
topo_peer_pod
vm_peer_iperf
rm -f "$WORK/up-stop"
vm_peer_start down timeout 900 python3 "$STEADY" send listen 0.0.0.0 5320 \
	5 "$UP_RATE" "$WORK/up-stop" 900
vm_peer_start up timeout 900 python3 "$STEADY" recv listen 0.0.0.0 5321 900
# The guest's word to stop its upload: this connection closed
vm_peer_start stop python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5322))
s.listen(1)
c, _ = s.accept()
while not os.path.exists(sys.argv[1]):
    time.sleep(0.1)
c.close()
' "$WORK/up-stop"
vm_peer_wait tcp 5320
vm_peer_wait tcp 5321
vm_peer_wait tcp 5322
up_backend -s "$WORK/backend.sock" -P "$WORK/backend.pid" \
	-D 203.0.113.1 -D 2001:db8:1::1 -S netshim.test "${VU[@]}"
NETDEV=$NETDEV VM_LOG="$WORK/vm.log" VM_QUIET=1 VM_TIMEOUT=900 \
	VM_PIDFILE="$WORK/qemu.pid" \
	VM_TRACE='vhost_user_write,vhost_user_read,vhost_user_event,chr_socket_*' \
	"$(dirname "$0")/run-vm.sh" upgrade "$WORK/backend.sock" \
	netshim.wait=600 >"$WORK/run-vm.out" 2>&1 &
QRUN=$!
topo_pid_add "$QRUN"
topo_wait_file "$WORK/qemu.pid" && topo_pid_add "$(cat "$WORK/qemu.pid")"
for _ in $(seq 3000); do
	grep -q '^NETSHIM-RESULT upgrade_ready' "$WORK/vm.log.raw" \
		2>/dev/null && break
	topo_alive "$QRUN" ||
		fail "QEMU ended: $(tail -n 5 "$WORK/run-vm.out")"
	sleep 0.1
done
grep -q '^NETSHIM-RESULT upgrade_ready' "$WORK/vm.log.raw" ||
	fail "the guest did not start its transfers: $(tail -n 5 "$WORK/vm.log.raw")"
log "guest ($NETDEV): transfers running"
messages=$(vu_messages)
# Its setup is there, or the check below would prove nothing
[ "$NETDEV" != vhost-user ] || [ "${messages:-0}" -gt 0 ] ||
	fail "no trace of QEMU's vhost-user messages in $WORK/vm.log.trace"

up_rounds "$ROUNDS"
log "longest pause of an upgrade, as the old netshims measured it:" \
	"$(up_pause_max) us"
[ "$(vu_messages)" = "$messages" ] ||
	fail "QEMU spoke to netshim during the upgrades: $(tail -n 5 "$WORK/vm.log.trace")"
[ "$NETDEV" != vhost-user ] ||
	log "ok: QEMU wrote and read $messages vhost-user messages before" \
		"the first upgrade, none during them"
# Bytes both ways after the last upgrade too, then the end
sleep 2
touch "$WORK/up-stop"
wait "$QRUN"
grep -q '^NETSHIM-RESULT upgrade_done' "$WORK/vm.log" ||
	fail "the guest did not finish: $(tail -n 5 "$WORK/run-vm.out")"
grep 'NETSHIM-RESULT' "$WORK/vm.log" | sed 's/^/    /' >&2
if grep -E 'is not a head|[Bb]ad (used|avail)|id [0-9]+ out of range|virtio.*(error|broken)' \
	"$WORK/vm.log"; then
	fail "the guest's virtio driver complained across the upgrades"
fi
for dir in down up; do
	g=$(vm_result "$dir")
	if [ "$dir" = down ]; then
		p=$(cat "$WORK/peer-down.log")
	else
		p=$(cat "$WORK/peer-up.log")
	fi
	[ -n "$p" ] && [ "$g" = "${p#* } ${p%% *}" ] ||
		fail "$dir: the guest has '$g', the peer '$p' (sha256 bytes)"
	log "ok: $dir: $(numfmt --to=iec "${p%% *}")B, every byte as sent"
done
vm_result transfers | grep -q 'ended.*status 0' ||
	fail "transfers: $(vm_result transfers)"
for r in ping4_after tcp_up_after tcp_down_after; do
	vm_result "$r" | grep -q '^ok' ||
		fail "$r after the upgrades: $(vm_result "$r")"
done
[ "$(topo_counter vmm_connects)" = 1 ] ||
	fail "QEMU connected $(topo_counter vmm_connects) times"
log "ok: $ROUNDS upgrades under a QEMU guest on $NETDEV; QEMU connected" \
	"once"
