#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# A Debian 12 guest configured as a stock cloud image is (systemd-networkd
# with DHCP=yes, router advertisements accepted, systemd-resolved), built
# from Debian's packages by tests/vm/debian/mkrootfs.sh and booted under
# QEMU on the backend's stream socket. Its netshim-check service, once
# networkd says the link is online, checks from inside: the link is
# routable, the pod's IPv4 address, IPv6 addresses in the pod's prefix,
# default routes via the peer (203.0.113.1, fe80::1), resolvectl resolves
# peer.netshim.test, curl fetches pages from the peer over both families by
# name and by address, through the default routes, and from each of its
# IPv6 addresses. Then the peer reaches the guest's web server through
# the backend's -t 8080 over both families. Any failure shows the guest's
# own view of its network (networkctl, ip, resolvectl).
# BACKEND=netshim|passt as for every topo.sh test; VM_ACCEL=kvm|tcg forces
# the accelerator; NETDEV=vhost-user boots it with QEMU as the backend's
# vhost-user front-end instead (t_vm_debian_vhost.sh).

set -u
VM=$(cd "$(dirname "$(readlink -f "$0")")/../vm" && pwd)
. "$VM/../lib/topo.sh"
. "$VM/peer.sh"

# show_diag - print the guest's own view of its network, if it gave one.
show_diag() {
	[ -f "$LOG" ] || return 0
	sed -n '/^NETSHIM-DIAG-BEGIN/,/^NETSHIM-DIAG-END/p' "$LOG" >&2
}

# guest_result - value of one NETSHIM-RESULT line of the guest's console.
# $1: key
guest_result() {
	sed -n "s/^NETSHIM-RESULT $1 //p" "$LOG" | head -n 1
}

# expect - fail unless the guest's result for a key is ok and, when a
# pattern is given, matches it.
# $1: key
# $2: extended regular expression the value must match (optional)
expect() {
	local v

	v=$(guest_result "$1")
	[ -n "$v" ] || { show_diag; fail "guest reported no $1"; }
	case "$v" in
	ok*) ;;
	*) show_diag; fail "$1: $v" ;;
	esac
	if [ -n "${2:-}" ] && ! echo "$v" | grep -Eq "$2"; then
		show_diag
		fail "$1: '$v' does not match '$2'"
	fi
	log "ok: $1 ${v#ok }"
}

# stop_vm - end the VM's process group (run-vm.sh, timeout, QEMU), then
# the topology. QEMU runs outside the test's namespaces, where
# topo_cleanup does not look.
stop_vm() {
	[ -n "${VM_PGID:-}" ] && kill -TERM -- "-$VM_PGID" 2>/dev/null
	topo_cleanup
}

# inbound_check - from the peer, fetch the guest's page through the
# backend's -t 8080 at the pod's addresses; print the verdict line.
inbound_check() {
	local url got bad=

	for url in http://203.0.113.2:8080/ 'http://[2001:db8:1::2]:8080/'; do
		got=$(in_peer curl -sS --max-time 15 "$url" 2>&1 | head -c 200)
		if [ "$got" = "netshim-guest $TOKEN" ]; then
			log "ok: peer fetched $url"
		else
			bad="$bad $url: '$got'"
		fi
	done
	if [ -z "$bad" ]; then
		echo "ok peer fetched the guest's page over IPv4 and IPv6"
	else
		echo "fail$bad"
	fi
}

topo_init
trap stop_vm EXIT

start=$(date +%s)
"$VM/debian/mkrootfs.sh" || fail "cannot build the Debian guest"
log "Debian guest ready in $(($(date +%s) - start)) s"
IMG=$REPO/build/vm/debian

topo_peer_pod
topo_dns
TOKEN=$ID-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
mkdir "$WORK/www"
echo "netshim-peer $TOKEN" >"$WORK/www/index.html"
head -c 262144 /dev/urandom >"$WORK/www/blob.bin"
BLOB_SHA=$(sha256sum <"$WORK/www/blob.bin" | cut -d' ' -f1)
ip netns exec "$NS_PEER" busybox httpd -f -p 80 -h "$WORK/www" \
	>"$WORK/httpd.log" 2>&1 &
topo_pid_add "$!"
vm_peer_wait tcp 80
if [ "${NETDEV:-stream}" = vhost-user ]; then
	topo_backend --vhost-user -t 8080
else
	topo_backend -t 8080
fi

LOG=$WORK/vm.log
start=$(date +%s)
VM_LOG=$LOG VM_QUIET=1 VM_TIMEOUT=${VM_TIMEOUT:-180} VM_MEM=1024 \
	VM_INITRD=$IMG/initrd.gz VM_DISK=$IMG/rootfs.img \
	setsid "$VM/run-vm.sh" debian "$WORK/backend.sock" \
	netshim.token="$TOKEN" netshim.blob_sha256="$BLOB_SHA" &
VM_PGID=$!

# The guest says when its web server waits for the peer; the verdict goes
# back on the peer's web server, where the guest polls for it.
while kill -0 "$VM_PGID" 2>/dev/null; do
	grep -aq '^NETSHIM-READY' "$LOG.raw" 2>/dev/null && break
	sleep 1
done
if kill -0 "$VM_PGID" 2>/dev/null; then
	log "guest ready for inbound after $(($(date +%s) - start)) s"
	INBOUND=$(inbound_check)
	echo "$INBOUND" >"$WORK/www/inbound.tmp"
	mv "$WORK/www/inbound.tmp" "$WORK/www/inbound"
fi
wait "$VM_PGID"
rc=$?
VM_PGID=
log "boot and checks took $(($(date +%s) - start)) s"
[ -f "$LOG" ] || fail "no console log"
grep '^NETSHIM-' "$LOG" | grep -v '^NETSHIM-DIAG' >&2
[ "$rc" = 0 ] || {
	show_diag
	fail "the guest did not finish: $(grep -v '^NETSHIM' "$LOG" |
		tail -n 15)"
}

expect online
expect link ' routable configured'
expect ipv4_addr '^ok 203\.0\.113\.2/24$'
expect ipv6_addr '^ok 2001:db8:1:'
expect route4 'via 203\.0\.113\.1 '
expect route6 'via fe80::1 '
expect dns '203\.0\.113\.1'
for k in http4_name http6_name http4_addr http6_addr http4_remote \
	http6_remote; do
	expect "$k"
done
# Every IPv6 address the guest holds, SLAAC's as well as DHCPv6's
expect http6_src '^ok from 2001:db8:1:'
[ -n "${INBOUND:-}" ] || fail "the guest never said it was ready for inbound"
case "$INBOUND" in
ok*) log "ok: inbound, as the peer saw it: ${INBOUND#ok }" ;;
*) show_diag; fail "inbound -t 8080: $INBOUND" ;;
esac
expect inbound
log "Debian guest check passed behind $BACKEND"
