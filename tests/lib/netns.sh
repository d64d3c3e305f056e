# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Namespace mode helpers, sourced after tests/lib/topo.sh: netshim runs in
# the pod and makes the namespace it serves ("netshim -- COMMAND"); the
# tests reach that namespace as $NS_GUEST, a name bound to it, so every
# helper that runs commands "in the guest" works unchanged, and
# topo_cleanup removes the name and stops what runs inside.

# ns_start() - netshim in the pod, serving a new namespace that sleeps
# $@: extra netshim arguments
#
# Sets BACKEND_PID (netshim) and NS_CHILD (the command in the namespace).
ns_start() {
	local _ ifname

	[ -x "$NETSHIM" ] || fail "$NETSHIM not built (make)"
	chmod 1777 "$WORK"
	NS_CMD=("$NETSHIM" -f -D 203.0.113.1 -D 2001:db8:1::1 -S netshim.test
		"$@" -- sleep 600)
	log "backend: ${NS_CMD[*]}"
	ip netns exec "$NS_POD" "${NS_CMD[@]}" >"$WORK/backend.log" 2>&1 &
	BACKEND_PID=$!
	topo_pid_add "$BACKEND_PID"
	NS_CHILD=
	for _ in $(seq 50); do
		NS_CHILD=$(cat "/proc/$BACKEND_PID/task/$BACKEND_PID/children" \
			2>/dev/null | awk '{print $1}')
		# The command runs once the namespace is ready
		[ -n "$NS_CHILD" ] &&
			[ "$(readlink "/proc/$NS_CHILD/exe")" = "$(command -v sleep)" ] &&
			break
		NS_CHILD=
		kill -0 "$BACKEND_PID" 2>/dev/null ||
			fail "netshim exited: $(tail -5 "$WORK/backend.log")"
		sleep 0.1
	done
	[ -n "$NS_CHILD" ] || fail "the command did not start within 5 s"
	topo_pid_add "$NS_CHILD"
	touch "/run/netns/$NS_GUEST" &&
		mount --bind "/proc/$NS_CHILD/ns/net" "/run/netns/$NS_GUEST" ||
		fail "cannot name the namespace of process $NS_CHILD"
	ifname=$(ip -n "$NS_POD" -o route show default | awk '{print $5}')
	NS_IF=${NS_IFNAME:-$ifname}
	export BACKEND_PID NS_CHILD NS_IF
}
