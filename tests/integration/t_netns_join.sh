#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Namespace mode, the other ways in:
# - "netshim --netns PATH" serves a namespace made by "ip netns add", its
#   tap named and addressed as --ns-ifname and --ns-mac-addr say;
# - "netshim --netns PID" serves the namespace of a process that lives in
#   a user namespace of its own (netshim joins it to set the tap up);
# - "netshim -- COMMAND" started by an unprivileged user works: it needs
#   no capability outside the namespace it makes;
# - "netshim COMMAND", pasta's form without "--": the command keeps its own
#   options and its exit status is netshim's.
# Each time the namespace gets the pod's addresses and reaches the peer.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

# reaches_peer() - the namespace has the pod's address and talks to the peer
# $1: namespace name, $2: what it is, for messages
reaches_peer() {
	local out

	out=$(ip -n "$1" -o addr show)
	echo "$out" | grep -q 'inet 203\.0\.113\.2/24 ' ||
		fail "$2: no 203.0.113.2/24: $out"
	echo "$out" | grep -q 'inet6 2001:db8:1::2/64 ' ||
		fail "$2: no 2001:db8:1::2/64: $out"
	out=$(ip netns exec "$1" timeout 20 busybox ping -c 2 -W 2 \
		203.0.113.1 2>&1) || fail "$2: ping: $out"
	tcp_upload "$1" "$NS_PEER" 4 203.0.113.1 5201 1 "$(tcp_size 16M)" 30
	tcp_download "$1" "$NS_PEER" 6 2001:db8:1::1 5202 2 "$(tcp_size 16M)" 30
	log "ok: $2"
}

# start_netshim() - netshim in the pod, in the foreground, in the background
# $@: its arguments
start_netshim() {
	log "backend: $NETSHIM $*"
	ip netns exec "$NS_POD" "$NETSHIM" -f --config-net -D 203.0.113.1 "$@" \
		>>"$WORK/backend.log" 2>&1 &
	BACKEND_PID=$!
	topo_pid_add "$BACKEND_PID"
}

[ "$BACKEND" = netshim ] || skip "netshim only: runs $NETSHIM itself"
topo_init
topo_peer_pod
chmod 1777 "$WORK"

# --netns PATH
topo_ns_add "$NS_GUEST"
start_netshim --netns "/run/netns/$NS_GUEST" --ns-ifname eth7 \
	--ns-mac-addr 02:00:5e:00:53:07
ns_wait_addr "$NS_GUEST"
ip -n "$NS_GUEST" -o link show eth7 | grep -q '[<,]UP[,>]' ||
	fail "--ns-ifname eth7: $(ip -n "$NS_GUEST" -o link show)"
ip -n "$NS_GUEST" -o link show eth7 | grep -q 'ether 02:00:5e:00:53:07 ' ||
	fail "--ns-mac-addr: $(ip -n "$NS_GUEST" -o link show eth7)"
reaches_peer "$NS_GUEST" "--netns /run/netns/$NS_GUEST, --ns-ifname eth7, --ns-mac-addr"
kill "$BACKEND_PID"
wait "$BACKEND_PID"
ip netns del "$NS_GUEST"

# --netns PID, in a user namespace of its own
ns_holder ip netns exec "$NS_POD" unshare --user --map-root-user
holder=$HOLDER
touch "/run/netns/$NS_GUEST" &&
	mount --bind "/proc/$holder/ns/net" "/run/netns/$NS_GUEST" ||
	fail "cannot name the namespace of process $holder"
start_netshim --netns "$holder"
ns_wait_addr "$NS_GUEST"
reaches_peer "$NS_GUEST" "--netns PID in its own user namespace"
kill "$BACKEND_PID" "$holder"
wait "$BACKEND_PID"
ip netns del "$NS_GUEST"

# An unprivileged user runs a command under netshim
out=$(ip netns exec "$NS_POD" timeout 30 setpriv --reuid=65534 \
	--regid=65534 --clear-groups "$NETSHIM" -f -q --config-net \
	-D 203.0.113.1 -- \
	sh -c 'ip -o addr show; busybox ping -c 2 -W 2 203.0.113.1' 2>&1) ||
	fail "netshim as uid 65534: $out"
echo "$out" | grep -q 'inet 203\.0\.113\.2/24 ' &&
	echo "$out" | grep -q '2 packets received' ||
	fail "netshim as uid 65534: $out"
log "ok: started by an unprivileged user"

# pasta's form: the command without "--", its own options its own
out=$(ip netns exec "$NS_POD" timeout 30 "$NETSHIM" -f -q --config-net \
	-D 203.0.113.1 sh -c 'ip -o addr show; exit 7' 2>&1)
rc=$?
[ "$rc" = 7 ] && echo "$out" | grep -q 'inet 203\.0\.113\.2/24 ' ||
	fail "command without --: status $rc: $out"
log "ok: a command without --, its status is ours"
