#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Root of a user namespace that is not the machine's, as a rootless
# launcher or pasta makes (unshare -U --map-root-user: root inside is an
# ordinary user outside, and no other id exists there):
# - the back-end started as that root serves the guest (DHCP, a ping to
#   the peer), as passt does: with no nobody to become it stays the
#   namespace's root, an ordinary user outside, without capabilities;
# - in a namespace that maps a whole range, nobody (65534) among it, it
#   becomes that nobody as it does on the host (netshim only: passt
#   stays root in any user namespace).
# Run it through passt with BACKEND=passt (PASST= a 2026 build).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

USER_ID=4242

topo_init
topo_peer_pod
chmod 1777 "$WORK"

# backend_wait() - wait for the backend's socket, or fail with its log
# $1: pid
backend_wait() {
	topo_wait_file "$WORK/backend.sock" 50 && return 0
	kill -0 "$1" 2>/dev/null ||
		fail "$BACKEND exited: $(tail -5 "$WORK/backend.log")"
	fail "$BACKEND: no socket after 5 s: $(tail -5 "$WORK/backend.log")"
}

# expect_serves() - the guest gets its address and reaches the peer
expect_serves() {
	topo_relay_guest
	guest_dhcp4
	in_guest timeout 10 busybox ping -c 1 -W 2 203.0.113.1 >/dev/null ||
		fail "no ping through $BACKEND"
}

# status_of() - a field of a process's status, ids as seen from here
# $1: pid, $2: field (Uid, Gid, CapEff)
status_of() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# An ordinary user's namespace, its root mapped to that user alone
topo_backend_cmd
ip netns exec "$NS_POD" setpriv --reuid=$USER_ID --regid=$USER_ID \
	--clear-groups unshare -U --map-root-user "${BACKEND_CMD[@]}" \
	>"$WORK/backend.log" 2>&1 &
BACKEND_PID=$!
topo_pid_add "$BACKEND_PID"
backend_wait "$BACKEND_PID"
expect_serves
uid=$(status_of "$BACKEND_PID" Uid)
[ "$uid" = $USER_ID ] ||
	fail "root of the namespace: runs as uid $uid outside, not $USER_ID"
caps=$(status_of "$BACKEND_PID" CapEff)
[ "$((16#$caps))" = 0 ] || fail "root of the namespace: capabilities $caps"
log "ok: root of a namespace without nobody serves, uid $uid outside," \
	"no capabilities"
kill "$RELAY_PID" "$BACKEND_PID"
topo_wait_exit "$BACKEND_PID" || fail "$BACKEND did not stop on SIGTERM"
ip netns del "$NS_GUEST"
rm -f "$WORK/backend.sock"

[ "$BACKEND" = netshim ] || exit 0

# A namespace mapping 0-65535 to 100000-165535 outside, as subordinate ids
# give one: nobody is 165534 outside
ip netns exec "$NS_POD" unshare -U sleep 60 &
holder=$!
topo_pid_add "$holder"
for _ in $(seq 50); do
	[ "$(readlink "/proc/$holder/ns/user")" != "$(readlink /proc/self/ns/user)" ] &&
		break
	sleep 0.1
done
echo "0 100000 65536" >"/proc/$holder/uid_map" &&
	echo "0 100000 65536" >"/proc/$holder/gid_map" ||
	fail "cannot map the namespace's ids"
ip netns exec "$NS_POD" nsenter -t "$holder" -U -S 0 -G 0 -- \
	"${BACKEND_CMD[@]}" >"$WORK/backend.log" 2>&1 &
BACKEND_PID=$!
topo_pid_add "$BACKEND_PID"
backend_wait "$BACKEND_PID"
expect_serves
uid=$(status_of "$BACKEND_PID" Uid)
[ "$uid" = 165534 ] ||
	fail "root of a namespace with nobody: runs as uid $uid outside"
log "ok: root of a namespace with nobody becomes it: uid $uid outside"
