#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# passt's logging options:
# - -e as a daemon: messages of the running daemon still reach the stderr
#   it was started with;
# - --trace: a message for every frame, both ways;
# - --log-size: the log file never grows beyond the size given, and
#   holds the newest messages: its oldest lines go, as passt's do;
# - -l: the file starts afresh at each start, its first line naming
#   netshim, its version and the PID that serves, as passt's.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

[ "$BACKEND" = netshim ] || skip "netshim only"

topo_init
topo_peer_pod
chmod 1777 "$WORK"
sock=$WORK/backend.sock

# A daemon (no -f) with -e and --trace, stderr to a file
in_pod timeout 10 "$NETSHIM" -e --trace -1 -s "$sock" -4 -D 203.0.113.1 \
	2>"$WORK/stderr.log" || fail "netshim -e did not start"
[ -S "$sock" ] || fail "-e: no socket"
topo_relay_guest
guest_dhcp4
in_guest timeout 10 busybox ping -c 1 -W 2 203.0.113.1 >/dev/null ||
	fail "-e --trace: no ping"
topo_wait_log "$WORK/stderr.log" 'frame to the guest' 20
# Logged by the daemon, after it went to the background
grep -q 'VMM connected' "$WORK/stderr.log" ||
	fail "-e: the daemon's messages did not reach stderr"
grep -q 'frame from the guest: .*ethertype 0x0800' "$WORK/stderr.log" ||
	fail "--trace: no message for a frame from the guest"
grep -q 'frame to the guest: .*ethertype 0x0800' "$WORK/stderr.log" ||
	fail "--trace: no message for a frame to the guest"
log "ok: -e keeps stderr as a daemon, --trace logs frames both ways"
kill "$RELAY_PID"
wait "$RELAY_PID" 2>/dev/null
ip netns del "$NS_GUEST"

# --log-size 4096 with --trace: far more than 4096 bytes are logged
logf=$WORK/small.log
topo_backend -4 --trace -l "$logf" --log-size 4096
topo_relay_guest
guest_dhcp4
in_guest timeout 20 busybox ping -c 20 -i 0.05 -W 2 203.0.113.1 >/dev/null ||
	fail "--log-size: no ping"
# SIGUSR1's counter dump is the newest message: the file must end in it,
# whatever the dump's length (the guest goes first: no frames traced after)
kill "$RELAY_PID"
sleep 0.3
kill -USR1 "$BACKEND_PID"
counter='  [a-z_0-9]+ +[0-9]+  [A-Za-z]'
for _ in $(seq 30); do
	tail -n 1 "$logf" | grep -Eq "$counter" && break
	sleep 0.1
done
size=$(stat -c %s "$logf")
[ "$size" -le 4096 ] || fail "--log-size 4096: the log file has $size bytes"
tail -n 1 "$logf" | grep -Eq "$counter" ||
	fail "--log-size: the newest messages (counters) do not end the file: $(tail -n 1 "$logf")"
log "ok: --log-size 4096: $size bytes, the newest messages kept"

# The file a run found holds only this run's messages, under a first line
# naming netshim, its version, its executable and the PID that serves (the
# one in the PID file), as passt's does; once full, it lost its oldest
# lines, and says so on that first line, and the lines left are whole and
# in the order they were written
head -n 1 "$logf" | grep -Eq "^netshim [^ ]+: /[^ ]*netshim[^ ]* \($BACKEND_PID\) - log truncated at [0-9]+\.[0-9]+$" ||
	fail "--log-size: first line: $(head -n 1 "$logf")"
[ "$size" -ge 2048 ] ||
	fail "--log-size 4096: only $size bytes left: the file was emptied"
tail -n +2 "$logf" | awk '
	$1 !~ /^[0-9]+\.[0-9][0-9][0-9]$/ || $2 != "netshim:" {
		print "not a whole line: " $0; exit 1
	}
	$1 + 0 < last { print "out of order: " $0; exit 1 }
	{ last = $1 + 0 }' >"$WORK/order.txt" ||
	fail "--log-size: $(cat "$WORK/order.txt")"
log "ok: --log-size: the oldest lines dropped, the first one says so"
kill "$RELAY_PID" "$BACKEND_PID" 2>/dev/null
wait "$BACKEND_PID" 2>/dev/null

# A second run on the same file, as a daemon: it starts the file afresh
echo "a line of an earlier run" >>"$logf"
in_pod "$NETSHIM" -4 -s "$WORK/again.sock" -P "$WORK/again.pid" \
	-D 203.0.113.1 -l "$logf" || fail "netshim -l as a daemon did not start"
pid=$(cat "$WORK/again.pid")
topo_pid_add "$pid"
topo_wait_log "$logf" 'listening on' 20 || fail "-l: nothing logged"
head -n 1 "$logf" | grep -Eq "^netshim [^ ]+: /[^ ]*netshim[^ ]* \($pid\)$" ||
	fail "-l: first line: $(head -n 1 "$logf"), PID file: $pid"
! grep -q 'earlier run\|frame from the guest' "$logf" ||
	fail "-l: the earlier run's lines are still in the file"
log "ok: -l: the file started afresh: $(head -n 1 "$logf")"
