#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# netshim as launchers start it: in the background (no -f), with a PID file
# and a log file. The exit status comes back at once, the daemon answers
# SIGUSR1 with its counters, serves a guest, and on SIGTERM exits, removing
# its socket and PID file.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

# wait_sock() - wait up to 5 s for a netshim to create its socket
# $1: socket path, $2: its log, $3: what to call it in a failure
wait_sock() {
	local _

	for _ in $(seq 50); do
		[ -S "$1" ] && return 0
		sleep 0.1
	done
	fail "$3: no socket: $(tail -3 "$2")"
}

topo_init
topo_peer_pod
chmod 1777 "$WORK"
sock=$WORK/backend.sock
pidf=$WORK/backend.pid
logf=$WORK/daemon.log

in_pod timeout 10 "$NETSHIM" -s "$sock" -P "$pidf" -l "$logf" \
	-D 203.0.113.1 || fail "netshim did not start: $(tail -3 "$logf")"
[ -s "$pidf" ] || fail "no PID file after start"
pid=$(cat "$pidf")
topo_pid_add "$pid"
[ -S "$sock" ] || fail "no socket after start"
log "daemon $pid running as $(ps -o user= -p "$pid")"

kill -USR1 "$pid"
topo_wait_log "$logf" 'counters:' 20 ||
	fail "no counters in the log after SIGUSR1"

topo_relay_guest
guest_dhcp4
[ "$(topo_env_get "$WORK/udhcpc.env" ip)" = 203.0.113.2 ] ||
	fail "the guest of the daemon got no address"
log "ok: the daemon served DHCP"

kill -TERM "$pid"
for _ in $(seq 30); do
	[ ! -e "$sock" ] && [ ! -e "$pidf" ] && break
	sleep 0.1
done
[ ! -e "$sock" ] || fail "socket left behind after SIGTERM"
[ ! -e "$pidf" ] || fail "PID file left behind after SIGTERM"
grep -q 'exiting' "$logf" || fail "no exit message in the log"
log "ok: SIGTERM removed the socket and the PID file"

# Unprivileged, as KubeVirt starts its network backends: uid 4242 has no
# passwd entry and no capability, so the filesystem detach needs a user
# namespace of its own
kill "$RELAY_PID" 2>/dev/null
sock=$WORK/user.sock
ip netns exec "$NS_POD" setpriv --reuid=4242 --regid=4242 --clear-groups \
	"$NETSHIM" -f -d -s "$sock" -D 203.0.113.1 >"$WORK/user.log" 2>&1 &
upid=$!
topo_pid_add "$upid"
wait_sock "$sock" "$WORK/user.log" "unprivileged netshim"
ip netns exec "$NS_GUEST" "$REPO/tests/relay" tap1 "$sock" \
	>"$WORK/relay1.log" 2>&1 &
topo_pid_add $!
for _ in $(seq 50); do
	ip -n "$NS_GUEST" -o link show tap1 2>/dev/null | grep -q '[<,]UP[,>]' &&
		break
	sleep 0.1
done
in_guest busybox udhcpc -i tap1 -f -q -n -t 10 -T 1 \
	-s "$WORK/udhcpc.script" >"$WORK/udhcpc1.log" 2>&1 ||
	fail "unprivileged netshim: no DHCP lease: $(tail -3 "$WORK/user.log")"
grep -q 'detached from the filesystem' "$WORK/user.log" ||
	fail "unprivileged netshim did not detach from the filesystem"
kill -TERM "$upid"
for _ in $(seq 30); do
	[ ! -e "$sock" ] && break
	sleep 0.1
done
[ ! -e "$sock" ] || fail "unprivileged netshim left its socket behind"
log "ok: unprivileged netshim (uid 4242) served DHCP, detached, cleaned up"

# Started as root with its files in a directory only root may write, as
# launchers do with /run: the unprivileged user netshim becomes cannot
# remove them.  SIGTERM must still be a clean exit (status 0, not killed
# by its own seccomp filter on the way out), and the log says what was left.
rundir=$WORK/run
mkdir -m 755 "$rundir"
sock=$rundir/backend.sock
ip netns exec "$NS_POD" "$NETSHIM" -f -s "$sock" -P "$rundir/backend.pid" \
	-D 203.0.113.1 >"$WORK/rootdir.log" 2>&1 &
rpid=$!
topo_pid_add "$rpid"
wait_sock "$sock" "$WORK/rootdir.log" "netshim with files in $rundir"
kill -TERM "$rpid"
wait "$rpid"
rc=$?
[ "$rc" = 0 ] ||
	fail "SIGTERM with files in a root-only directory: exit status $rc, log: $(tail -3 "$WORK/rootdir.log")"
grep -q 'backend.sock left in place' "$WORK/rootdir.log" &&
	grep -q 'backend.pid left in place' "$WORK/rootdir.log" ||
	fail "the log does not say the files were left: $(tail -3 "$WORK/rootdir.log")"
log "ok: files in a root-only directory: clean exit, the log names what was left"
