#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode with --netns: the back-end ends with the namespace, as
# pasta does, so that "ip netns del" or the end of the process that held
# the namespace leaves nothing behind (the tap and the back-end's helper
# inside would otherwise keep the namespace, and the back-end, alive):
# - "--netns NAME" (ip-netns's name, /run/netns/NAME), then "ip netns del":
#   the back-end exits with status 0 and no process is left in the
#   namespace;
# - a PID alone after the options (pasta's form), the back-end and the
#   process run by an unprivileged user, the process in a user namespace
#   of its own, then the process ends: the same;
# - "--netns /proc/PID/ns/net --userns /proc/PID/ns/user", as that user
#   too, then the process ends: the same;
# - "--no-netns-quit": the back-end keeps running after "ip netns del".
# Every command line is pasta's too (--config-net, which netshim always
# does, included): BACKEND=passt runs pasta from beside $PASST.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"

if [ "$BACKEND" = passt ]; then
	BIN=${PASTA:-$(dirname "$(command -v "${PASST:-passt}")")/pasta}
	# as root, pasta would become nobody, who cannot join the namespace
	EXTRA=(--runas 0:0)
	[ -x "$BIN" ] || skip "no pasta beside ${PASST:-passt}"
else
	BIN=$NETSHIM
	EXTRA=()
fi

# start() - the back-end in the pod, in the foreground, in the background
# $@: its arguments after the common ones
start() {
	log "backend: $BIN -f --config-net -D 203.0.113.1 ${EXTRA[*]} $*"
	ip netns exec "$NS_POD" "$BIN" -f --config-net -D 203.0.113.1 \
		"${EXTRA[@]}" "$@" >>"$WORK/backend.log" 2>&1 &
	BACKEND_PID=$!
	topo_pid_add "$BACKEND_PID"
}

# start_user() - the same as an unprivileged user, as pasta is run
# $@: its arguments after the common ones
start_user() {
	log "backend as uid 65534: $BIN -f --config-net -D 203.0.113.1 $*"
	ip netns exec "$NS_POD" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$BIN" -f --config-net -D 203.0.113.1 "$@" \
		>>"$WORK/backend.log" 2>&1 &
	BACKEND_PID=$!
	topo_pid_add "$BACKEND_PID"
}

# ends() - the back-end exits by itself, with status 0, leaving no process
# in the namespace
# $1: the namespace's inode, $2: what happened, for messages
ends() {
	local rc p left=

	for _ in $(seq 100); do
		kill -0 "$BACKEND_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$BACKEND_PID" 2>/dev/null &&
		fail "$2: backend still running after 10 s"
	wait "$BACKEND_PID"
	rc=$?
	[ "$rc" = 0 ] || fail "$2: backend exited with status $rc: $(tail -3 "$WORK/backend.log")"
	sleep 0.5
	for p in /proc/[0-9]*; do
		[ "$(stat -L -c %i "$p/ns/net" 2>/dev/null)" = "$1" ] &&
			left="$left ${p#/proc/}:$(cat "$p/comm" 2>/dev/null)"
	done
	[ -z "$left" ] || fail "$2: processes left in the namespace:$left"
	log "ok: $2: the backend exited (0), nothing left in the namespace"
}

topo_init
topo_peer_pod
chmod 1777 "$WORK"

# --netns NAME, then ip netns del
topo_ns_add "$NS_GUEST"
ino=$(stat -L -c %i "/run/netns/$NS_GUEST")
start --netns "$NS_GUEST"
ns_wait_addr "$NS_GUEST"
ip netns del "$NS_GUEST"
ends "$ino" "--netns NAME, ip netns del"

# PID, then the process ends: as pasta is used, by an unprivileged user
# for a process of that user in a user namespace of its own
ns_holder setpriv --reuid=65534 --regid=65534 --clear-groups unshare --user \
	--map-root-user
ino=$(stat -L -c %i "/proc/$HOLDER/ns/net")
start_user "$HOLDER"
ns_wait_addr "pid:$HOLDER"
kill "$HOLDER"
ends "$ino" "PID, the process ended"

# --netns /proc/PID/ns/net (and --userns, as pasta needs with a path),
# then the process ends
ns_holder setpriv --reuid=65534 --regid=65534 --clear-groups unshare --user \
	--map-root-user
ino=$(stat -L -c %i "/proc/$HOLDER/ns/net")
start_user --netns "/proc/$HOLDER/ns/net" --userns "/proc/$HOLDER/ns/user"
ns_wait_addr "pid:$HOLDER"
kill "$HOLDER"
ends "$ino" "--netns /proc/PID/ns/net, the process ended"

# --no-netns-quit: still there once the namespace's file is gone
topo_ns_add "$NS_GUEST"
start --netns "$NS_GUEST" --no-netns-quit
ns_wait_addr "$NS_GUEST"
ip netns del "$NS_GUEST"
sleep 3
kill -0 "$BACKEND_PID" 2>/dev/null ||
	fail "--no-netns-quit: backend exited: $(tail -3 "$WORK/backend.log")"
kill "$BACKEND_PID"
wait "$BACKEND_PID"
log "ok: --no-netns-quit: the backend kept running"
