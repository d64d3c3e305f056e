#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Debian guest's side of a test: build its image, boot it on the
# backend's socket, answer its NETSHIM-READY, read its NETSHIM-RESULT
# lines. For tests that source tests/lib/topo.sh and tests/vm/peer.sh and
# set VM to tests/vm.

# deb_show_diag - print the guest's own view of its network, if it gave
# one.
deb_show_diag() {
	[ -f "$LOG" ] || return 0
	sed -n '/^NETSHIM-DIAG-BEGIN/,/^NETSHIM-DIAG-END/p' "$LOG" >&2
}

# deb_expect - fail unless the guest's result for a key is ok and, when a
# pattern is given, matches it.
# $1: key
# $2: extended regular expression the value must match (optional)
deb_expect() {
	local e

	e=$(vm_check "$LOG" "$@") || { deb_show_diag; fail "$e"; }
}

# deb_stop_vm - end the VM's process group (run-vm.sh, timeout, QEMU),
# then the topology. QEMU runs outside the test's namespaces, where
# topo_cleanup does not look.
deb_stop_vm() {
	[ -n "${VM_PGID:-}" ] && kill -TERM -- "-$VM_PGID" 2>/dev/null
	topo_cleanup
}

# deb_image - build the guest's image if it changed; sets IMG.
deb_image() {
	local start

	start=$(date +%s)
	"$VM/debian/mkrootfs.sh" || fail "cannot build the Debian guest"
	log "Debian guest ready in $(($(date +%s) - start)) s"
	IMG=$REPO/build/vm/debian
}

# deb_www - a token for this run, and a web server on port 80 of a
# namespace serving $WORK/www, whose index.html says "netshim-WHO TOKEN";
# sets TOKEN.  The caller waits for it to listen.
# $1: namespace, $2: WHO (peer, pod)
deb_www() {
	TOKEN=$ID-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
	mkdir "$WORK/www"
	echo "netshim-$2 $TOKEN" >"$WORK/www/index.html"
	ip netns exec "$1" busybox httpd -f -p 80 -h "$WORK/www" \
		>"$WORK/httpd.log" 2>&1 &
	topo_pid_add "$!"
}

# deb_boot - boot the guest on the backend's socket and run it to its
# end. When it says NETSHIM-READY, the inbound check runs and its verdict
# line goes, as the file "inbound", to the web server the guest polls.
# Sets LOG (the console) and INBOUND (the verdict).
# $1: directory the guest polls for the verdict
# $2: the inbound check, a function printing its verdict line
# $@: more kernel parameters
deb_boot() {
	local www=$1 check=$2 start rc

	shift 2
	LOG=$WORK/vm.log
	INBOUND=
	start=$(date +%s)
	VM_LOG=$LOG VM_QUIET=1 VM_TIMEOUT=${VM_TIMEOUT:-180} VM_MEM=1024 \
		VM_INITRD=$IMG/initrd.gz VM_DISK=$IMG/rootfs.img \
		setsid "$VM/run-vm.sh" debian "$WORK/backend.sock" "$@" &
	VM_PGID=$!
	while kill -0 "$VM_PGID" 2>/dev/null; do
		grep -aq '^NETSHIM-READY' "$LOG.raw" 2>/dev/null && break
		sleep 1
	done
	if kill -0 "$VM_PGID" 2>/dev/null; then
		log "guest ready for inbound after $(($(date +%s) - start)) s"
		INBOUND=$("$check")
		echo "$INBOUND" >"$www/inbound.tmp"
		mv "$www/inbound.tmp" "$www/inbound"
	fi
	wait "$VM_PGID"
	rc=$?
	VM_PGID=
	log "boot and checks took $(($(date +%s) - start)) s"
	[ -f "$LOG" ] || fail "no console log"
	grep '^NETSHIM-' "$LOG" | grep -v '^NETSHIM-DIAG' >&2
	[ "$rc" = 0 ] || {
		deb_show_diag
		fail "the guest did not finish: $(grep -v '^NETSHIM' "$LOG" |
			tail -n 15)"
	}
}

# deb_fetch - fetch pages through the backend's forwarded ports, from a
# namespace, and print the verdict line the guest waits for: "ok WHAT" if
# each page says what it should, else "fail" and what each wrong one said
# $1: namespace, $2: what the verdict says was fetched
# $@: URL=TEXT pairs, the page and the text it must hold
deb_fetch() {
	local ns=$1 what=$2 p url got bad=""

	shift 2
	for p in "$@"; do
		url=${p%%=*}
		got=$(ip netns exec "$ns" curl -sS --max-time 15 "$url" 2>&1 |
			head -c 200)
		if [ "$got" = "${p#*=}" ]; then
			log "ok: fetched $url: $got"
		else
			bad="$bad $url: '$got'"
		fi
	done
	if [ -z "$bad" ]; then
		echo "ok $what"
	else
		echo "fail$bad"
	fi
}

# deb_inbound - fail unless the inbound check passed and the guest got
# its verdict.
deb_inbound() {
	[ -n "${INBOUND:-}" ] ||
		fail "the guest never said it was ready for inbound"
	case "$INBOUND" in
	ok*) log "ok: inbound, as the host saw it: ${INBOUND#ok }" ;;
	*) deb_show_diag; fail "inbound: $INBOUND" ;;
	esac
	deb_expect inbound
}
