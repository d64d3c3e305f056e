#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a hundred netshims start one after the other)
#
# An upgrade in place of netshim serving a -netdev stream VMM (tests/relay
# stands for QEMU, a namespace's kernel for the guest), run as a launcher
# runs it: the same command line and --upgrade, whose exit status says
# whether the new process took over.
# - Upgrades that must not happen leave the running netshim serving, the
#   guest's traffic undisturbed: a command line for vhost-user on the
#   stream's socket, refused at once; one whose --max-tcp cannot hold the
#   guest's connections, refused once the old netshim stopped its loop;
#   a new process that hangs up right after the old one stopped, and one
#   that hangs up half-way through the state (tests/upgrade/quit.py).
# - Then 100 upgrades in a row, under a TCP stream each way, a UDP flow
#   and pings from the guest: at the end every byte arrived as sent on
#   the connections the guest opened before the first, every datagram was
#   echoed and seen from one port, no ping was lost; the process serving
#   after the last upgrade has as many descriptors as after the first,
#   and no more memory.
# - The listeners moved too: a connection to a -t port reaches the guest
#   after them, and the VMM never connected again.
# - A new netshim refuses a bad state from a running one (a fake,
#   tests/upgrade/fake_old.py): another version, not netshim's, cut short,
#   with a section no netshim has, a connection out of bounds, garbage;
#   it says why and exits 1.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/lib/upgrade.sh
. "$(dirname "$0")/../lib/upgrade.sh"

ROUNDS=${UPGRADE_ROUNDS:-100}

[ "$BACKEND" = netshim ] || skip "netshim only: passt has no upgrade in place"
topo_init
topo_peer_pod
up_backend -s "$WORK/backend.sock" -P "$WORK/backend.pid" \
	-D 203.0.113.1 -D 2001:db8:1::1 -S netshim.test -t 8080
[ -S "$WORK/backend.sock.upgrade" ] ||
	fail "no upgrade socket next to the VMM's: $(ls "$WORK")"
topo_relay_guest 1500
guest_dhcp
up_traffic_start "$NS_GUEST" 203.0.113.1

up_refused "a vhost-user command line on a stream's socket" \
	"upgrade refused: the running netshim serves a -netdev stream VMM, this command line a vhost-user front-end" \
	+ --vhost-user
up_refused "--max-tcp too small for the guest's connections" \
	"more than --max-tcp 1 holds" + --max-tcp 1
for bytes in 0 300; do
	out=$(timeout 20 python3 "$REPO/tests/upgrade/quit.py" \
		"$WORK/backend.sock.upgrade" "$bytes" 2>&1) ||
		fail "quit.py: $out"
	topo_alive "$BACKEND_PID" ||
		fail "the old netshim went with a new one that hung up ($out)"
	log "ok: a new process that $out: process $BACKEND_PID serves on"
done
refused=$(topo_counter upgrades_refused)
[ "$refused" = 4 ] ||
	fail "upgrades_refused: $refused, the four above were not all counted"

up_rounds "$ROUNDS"
up_traffic_stop
log "longest pause of an upgrade, as the old netshims measured it:" \
	"$(up_pause_max) us"

tcp_upload "$NS_PEER" "$NS_GUEST" 4 203.0.113.2 8080 3 "$(tcp_size 4M)" 30
connects=$(topo_counter vmm_connects)
[ "$connects" = 1 ] ||
	fail "the VMM connected $connects times: it noticed the upgrades"
log "ok: the relay connected once, and serves on after $ROUNDS upgrades"

# A new netshim given a bad state by a running one (a fake, tests/
# upgrade/fake_old.py) refuses it, says why, and exits 1, never crashes
for c in "version:writes version 2 of the state" \
	"magic:is not a netshim's upgrade socket" \
	"truncated:it ends early" "section:unknown section 77" \
	"tcp:TCP connection 1 of 1 is malformed" \
	"garbage:upgrade refused: reading the state failed"; do
	kase=${c%%:*}
	rm -f "$WORK/fake.sock" "$WORK/fake.up"
	ip netns exec "$NS_POD" timeout 40 python3 \
		"$REPO/tests/upgrade/fake_old.py" "$WORK/fake.up" 65520 \
		"$kase" >"$WORK/fake.out" 2>&1 &
	fake=$!
	topo_pid_add "$fake"
	topo_wait_file "$WORK/fake.up" || fail "$kase: no fake netshim"
	out=$(ip netns exec "$NS_POD" timeout 30 "$NETSHIM" -f -e -m 65520 \
		-s "$WORK/fake.sock" --upgrade-path "$WORK/fake.up" \
		-D 203.0.113.1 --upgrade 2>&1)
	rc=$?
	wait "$fake"
	[ "$rc" = 1 ] || fail "$kase: netshim --upgrade exited $rc: $out"
	grep -q -- "${c#*:}" <<<"$out" ||
		fail "$kase: no '${c#*:}' in: $(tail -n 3 <<<"$out")"
	log "ok: a bad state ($kase): refused ($(grep -o "${c#*:}.*" \
		<<<"$out" | head -n 1)), the fake heard $(cat "$WORK/fake.out")"
done
