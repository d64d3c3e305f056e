#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The loop with io_uring and without it (--io-uring), as pods differ:
# - under a seccomp filter that refuses io_uring_setup() with EPERM, as
#   the RuntimeDefault profiles of containerd 2.0, Docker 25 and CRI-O
#   do (tests/no_io_uring.c): --io-uring=require refuses to start and
#   says why; --io-uring=auto starts, says once that the loop uses epoll,
#   and moves 64 MiB each way (IPv4, MTU 1500), every byte checked, and
#   ping;
# - where the kernel has io_uring's epoll wait (Linux 6.15), with
#   --io-uring=require: the log says the ring is used, and the same
#   transfers pass, at MTU 65520 and 1500 and over IPv6.  The other tests
#   run the default, the epoll loop (--io-uring=off).

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

SIZE=$(tcp_size 64M)
REAL_NETSHIM=$NETSHIM

# wrap() - build the seccomp helper in $WORK and a netshim that runs
# under it; the backend's pid stays the wrapper's, exec keeps it
wrap() {
	cc -O2 -Wall -Wextra -Werror -o "$WORK/no_io_uring" \
		"$REPO/tests/no_io_uring.c" || fail "cannot build no_io_uring"
	printf '#!/bin/sh\nexec %s %s "$@"\n' "$WORK/no_io_uring" \
		"$REAL_NETSHIM" >"$WORK/netshim"
	chmod 755 "$WORK/netshim"
	NETSHIM=$WORK/netshim
}

# transfers() - 64 MiB each way over IPv4 and ping, through a guest that
# took its lease
# $1: MTU, $2: also over IPv6 (1) or not (0)
transfers() {
	topo_relay_guest "$1"
	guest_dhcp
	in_guest ping -c 2 -W 2 203.0.113.1 >/dev/null ||
		fail "MTU $1: no ping reply from the peer"
	tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5001 1 "$SIZE" 30
	tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5002 2 "$SIZE" 30
	[ "$2" = 1 ] || return 0
	tcp_upload "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5003 3 "$SIZE" 30
	tcp_download "$NS_GUEST" "$NS_PEER" 6 2001:db8:2::1 5004 4 "$SIZE" 30
}

# Refused by seccomp, required: no start, and the reason
topo_init
topo_peer_pod
wrap
topo_backend_cmd --io-uring=require
if out=$(in_pod timeout 10 "${BACKEND_CMD[@]}" 2>&1); then
	fail "--io-uring=require started where io_uring_setup() is refused"
fi
echo "$out" | grep -q -- "--io-uring=require: io_uring_setup() refused" ||
	fail "--io-uring=require did not say why it stopped: $(echo "$out" |
		tail -n 2)"
log "required and refused: $(echo "$out" | grep -o 'error: .*')"

# Refused by seccomp, where available: the epoll loop, said once
topo_backend -m 1500 --io-uring=auto
topo_wait_log "$WORK/backend.log" "the loop uses epoll" ||
	fail "no word in the log that the loop uses epoll"
[ "$(grep -c 'io_uring' "$WORK/backend.log")" = 1 ] ||
	fail "io_uring mentioned more than once: $(grep io_uring \
		"$WORK/backend.log")"
transfers 1500 0
topo_cleanup
NETSHIM=$REAL_NETSHIM

# Where the kernel has it, required
topo_init
topo_peer_pod
out=$(in_pod timeout 2 "$NETSHIM" -f -s "$WORK/probe.sock" \
	-D 203.0.113.1 --io-uring=require 2>&1)
if ! echo "$out" | grep -q "through it"; then
	topo_cleanup
	skip "io_uring cannot run the loop here: $(echo "$out" |
		grep -o 'error: .*')"
fi
rm -f "$WORK/probe.sock"
topo_backend -m 65520 --io-uring=require
topo_wait_log "$WORK/backend.log" "through it" ||
	fail "--io-uring=require started without saying it uses io_uring"
transfers 65520 1
topo_cleanup

topo_init
topo_peer_pod
topo_backend -m 1500 --io-uring=require
transfers 1500 1
topo_cleanup
