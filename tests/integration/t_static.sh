#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The statically linked build (make static, build/static/netshim), as a
# launcher image of another distribution runs it (contrib/kubevirt.md):
# - ldd says it is not a dynamic executable;
# - --runas takes names from /etc/passwd, and without one refuses them
#   with the reason;
# - alone in an empty root (the binary, /proc and /dev, in a mount
#   namespace of its own so that nothing leaks), no /etc/passwd: started
#   as root it says it takes uid 65534 for nobody, and runs as that user;
# - as a VM's back-end, on the stream socket and as a vhost-user back-end,
#   the relay guest (tests/relay, tests/vu_relay) gets its address by
#   DHCP and moves TCP data to and from the peer, checksummed;
# - as a namespace's back-end (--netns PID), the namespace gets the pod's
#   addresses and moves TCP data to and from the peer, checksummed.
# NETSHIM_STATIC names another binary to check (default
# build/static/netshim); a missing or dynamic one fails the test.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

STATIC=${NETSHIM_STATIC:-$REPO/build/static/netshim}

[ "$BACKEND" = netshim ] || skip "netshim only: runs $STATIC itself"
[ -x "$STATIC" ] || fail "$STATIC not built (make static)"
out=$(ldd "$STATIC" 2>&1)
echo "$out" | grep -q 'not a dynamic executable' ||
	fail "$STATIC is not static: ldd says: $out"
log "ok: ldd $STATIC: not a dynamic executable"

topo_init
topo_peer_pod
ROOT=$WORK/root

# empty_root() - a root directory with the binary alone, and empty /proc
# and /dev for the bind mounts, and /run for the socket
empty_root() {
	rm -rf "$ROOT"
	mkdir -p "$ROOT/proc" "$ROOT/dev" "$ROOT/run" || fail "mkdir $ROOT"
	# Started as root, netshim becomes uid 65534 before it binds
	chmod 1777 "$ROOT/run"
	cp "$STATIC" "$ROOT/netshim" || fail "cannot copy $STATIC"
}

# start_in_root() - netshim in the pod, in the empty root, in a mount
# namespace of its own (unshare -m: the mounts go with it), the root made
# a mount point and pivoted to, as a container runtime does, so that
# netshim detaches from it as in a pod; its pid is BACKEND_PID, as each
# command execs the next
# $@: netshim's arguments, paths as seen inside the root
start_in_root() {
	log "backend (in $ROOT): /netshim -f $*"
	# pivot_root . . stacks the old root on the new one: detaching it
	# leaves the new one alone, with no directory for the old one.
	# busybox-static's shell runs its own umount and exec from there,
	# with no file of the old root
	ip netns exec "$NS_POD" unshare -m --propagation private \
		busybox sh -c '
		mount --bind "$0" "$0" &&
		mount --bind /proc "$0/proc" &&
		mount --rbind /dev "$0/dev" &&
		cd "$0" && pivot_root . . && umount -l . &&
		exec /netshim -f "$@"' "$ROOT" "$@" \
		>"$WORK/backend.log" 2>&1 &
	BACKEND_PID=$!
	topo_pid_add "$BACKEND_PID"
	export BACKEND_PID
}

# check_nobody() - netshim runs as uid 65534 and said why
check_nobody() {
	local uid _

	for _ in $(seq 50); do
		uid=$(awk '/^Uid:/ { print $2 }' "/proc/$BACKEND_PID/status" \
			2>/dev/null)
		[ "$uid" = 65534 ] && break
		sleep 0.1
	done
	[ "$uid" = 65534 ] || fail "netshim runs as uid '$uid', not 65534"
	topo_wait_log "$WORK/backend.log" '/etc/passwd has no user nobody' ||
		fail "no message about the missing passwd entry of nobody"
	! grep -q 'cannot detach' "$WORK/backend.log" ||
		fail "netshim could not detach from the empty root"
	! grep -qF "$ROOT" /proc/self/mountinfo ||
		fail "mounts of $ROOT leaked out of its mount namespace"
}

# Users by name: from /etc/passwd where there is one, refused with the
# reason where there is none (a static build has no NSS to ask)
if id -u daemon >/dev/null 2>&1; then
	out=$("$STATIC" --runas daemon:daemon --vhost-user \
		--print-capabilities 2>&1) ||
		fail "--runas daemon:daemon refused with /etc/passwd: $out"
fi
empty_root
out=$(chroot "$ROOT" /netshim --runas nobody --vhost-user \
	--print-capabilities 2>&1) &&
	fail "--runas nobody accepted in a root without /etc/passwd: $out"
echo "$out" | grep -q 'give numbers' ||
	fail "--runas nobody without /etc/passwd: no reason given: $out"
log "ok: --runas names from /etc/passwd, refused with the reason without it"

# vm_pass() - a VM's back-end in the empty root: the relay guest gets its
# address by DHCP and moves data both ways, checksummed; netshim exits on
# SIGTERM
# $1: what it serves, for messages, $2: topo_relay_guest or
# topo_vu_relay_guest, $3, $4: ports of the two transfers, $5...: more
# netshim arguments
vm_pass() {
	local what=$1 guest=$2 p1=$3 p2=$4 _

	shift 4
	empty_root
	start_in_root -s /run/backend.sock -D 203.0.113.1 -D 2001:db8:1::1 \
		-S netshim.test "$@"
	for _ in $(seq 50); do
		[ -S "$ROOT/run/backend.sock" ] && break
		kill -0 "$BACKEND_PID" 2>/dev/null ||
			fail "netshim exited: $(tail -5 "$WORK/backend.log")"
		sleep 0.1
	done
	[ -S "$ROOT/run/backend.sock" ] ||
		fail "$what: no socket in the root after 5 s"
	# The relay reaches it from outside the root
	ln -sf "$ROOT/run/backend.sock" "$WORK/backend.sock"
	check_nobody
	"$guest"
	guest_dhcp4
	[ "$(topo_env_get "$WORK/udhcpc.env" ip)" = 203.0.113.2 ] ||
		fail "$what: the guest got" \
			"$(topo_env_get "$WORK/udhcpc.env" ip) by DHCP"
	log "ok: $what: the guest got 203.0.113.2 by DHCP"
	tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 "$p1" 1 \
		"$(tcp_size 32M)" 30
	tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 "$p2" 2 \
		"$(tcp_size 32M)" 30
	kill -0 "$BACKEND_PID" 2>/dev/null || fail "$what: netshim died"
	kill -TERM "$RELAY_PID" "$BACKEND_PID"
	topo_wait_exit "$BACKEND_PID" 50 ||
		fail "$what: netshim did not exit on SIGTERM"
	ip netns del "$NS_GUEST"
	rm -f "$WORK/backend.sock" "$WORK/udhcpc.env"
}

# The stream socket, as QEMU or libvirt's passt interface uses it, and
# vhost-user, as libvirt gives KubeVirt 1.6 and later (guest memory is a
# memfd the front-end sends, mapped from inside the empty root)
[ -x "$REPO/tests/vu_relay" ] && [ "$REPO/tests/vu_relay" -nt \
	"$REPO/tests/vu_relay.c" ] || make -s -C "$REPO" tests/vu_relay ||
	fail "cannot build tests/vu_relay"
vm_pass "stream socket" topo_relay_guest 5001 5002
vm_pass "vhost-user" topo_vu_relay_guest 5005 5006 --vhost-user

# Namespace mode: --netns PID of a namespace the test made, reached
# through the bind-mounted /proc
empty_root
ns_holder ip netns exec "$NS_POD"
touch "/run/netns/$NS_GUEST" &&
	mount --bind "/proc/$HOLDER/ns/net" "/run/netns/$NS_GUEST" ||
	fail "cannot name the namespace of process $HOLDER"
start_in_root --config-net -D 203.0.113.1 --netns "$HOLDER"
ns_wait_addr "$NS_GUEST"
check_nobody
out=$(ip -n "$NS_GUEST" -o addr show)
echo "$out" | grep -q 'inet6 2001:db8:1::2/64 ' ||
	fail "no 2001:db8:1::2/64 in the namespace: $out"
out=$(in_guest timeout 20 busybox ping -c 2 -W 2 203.0.113.1 2>&1) ||
	fail "ping from the namespace: $out"
log "ok: the namespace has the pod's addresses and pings the peer"
tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5003 3 "$(tcp_size 32M)" 30
tcp_download "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5004 4 \
	"$(tcp_size 32M)" 30
kill -0 "$BACKEND_PID" 2>/dev/null || fail "netshim died"
