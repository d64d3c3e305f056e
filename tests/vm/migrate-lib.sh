#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The host's side of a live migration test, shared by the busybox guest's
# (tests/vm/t_vm_migrate.sh) and the Debian guest's
# (tests/integration/t_vm_debian_migrate.sh): back-ends and repair
# helpers in the pod, QMP, the migration's status, and the pod's resets
# held back while two back-ends share it.  For tests that source
# tests/lib/topo.sh; MIG_HELPER names the repair helper ("none": no
# helper), QRUN[NAME] holds the pid of each QEMU's run-vm.sh.

MIG_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# qmp() - one QMP command on a monitor, its answer on stdout
# $1: monitor socket, $2...: command and JSON arguments
qmp() {
	local mon=$1

	shift
	python3 "$MIG_LIB_DIR/qmp.py" "$mon" "$@"
}

# wait_console() - wait for a result line on a running guest's console
# (run-vm.sh writes LOG.raw while QEMU runs, LOG once it ended)
# $1: console log, $2: result key, $3: seconds
wait_console() {
	local _

	for _ in $(seq $(($3 * 10))); do
		grep -q "^NETSHIM-RESULT $2" "$1.raw" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# result_of() - a result line's text on a guest's console
# $1: console log (or LOG.raw), $2: key
result_of() {
	tr -d '\r' <"$1" | sed -n "s/^NETSHIM-RESULT $2 //p" | tail -n 1
}

declare -A BPID QRUN HPID
# backend() - a back-end in the pod on $WORK/NAME.sock, its repair socket
# beside it, its log in $WORK/backend-NAME.log
# $1: NAME, $@: more options
backend() {
	local name=$1

	shift
	topo_backend --vhost-user "$@" ${MIG_DEBUG:+-d} \
		${MIG_PCAP:+--pcap "$WORK/$name.pcap"}
	BPID[$name]=$BACKEND_PID
	mv "$WORK/backend.sock" "$WORK/$name.sock"
	# passt listens for passt-repair beside its socket: out of the
	# next one's way
	[ -S "$WORK/backend.sock.repair" ] &&
		mv "$WORK/backend.sock.repair" "$WORK/$name.sock.repair"
	mv "$WORK/backend.log" "$WORK/backend-$name.log"
}

# helper() - a repair helper for back-end NAME, as virt-handler starts
# one on each side of every migration: netshim and passt hang up on it
# once the migration is over, and it exits; its pid in HPID[NAME], its
# log in $WORK/helper-NAME.log, then -NAME.log.1, ...
# $1: NAME
helper() {
	local log=$WORK/helper-$1.log n=0

	while [ -e "$log" ]; do
		n=$((n + 1))
		log=$WORK/helper-$1.log.$n
	done
	[ "$MIG_HELPER" = none ] && return
	[ -x "$MIG_HELPER" ] || fail "no repair helper $MIG_HELPER (make)"
	ip netns exec "$NS_POD" "$MIG_HELPER" "$WORK/$1.sock.repair" \
		>"$log" 2>&1 &
	HPID[$1]=$!
	topo_pid_add $!
}

# helpers_gone() - fail unless the repair helpers of back-ends exited
# (their back-ends hung up on them once the migration was over: a
# process with CAP_NET_ADMIN lives no longer than it is needed)
# $@: NAMEs
helpers_gone() {
	local n

	for n in "$@"; do
		[ -n "${HPID[$n]:-}" ] || continue
		topo_wait_exit "${HPID[$n]}" 50 ||
			fail "the repair helper of back-end $n still runs" \
				"after the migration: $(tail -n 3 "$WORK/backend-$n.log")"
	done
}

# migration_status() - the source's migration status, its query-migrate
# answer in $WORK/query-migrate.out
# $1: source NAME
migration_status() {
	qmp "$WORK/$1.qmp" query-migrate >"$WORK/query-migrate.out" 2>&1
	sed -n 's/.*"status": "\([a-z-]*\)".*/\1/p' "$WORK/query-migrate.out" |
		head -n 1
}

# migration_wait() - wait until the source's migration completed, failed
# or was cancelled, or its QEMU ended; sets STATUS
# $1: source NAME, $2: seconds to wait
migration_wait() {
	local end=$((SECONDS + $2))

	while [ "$SECONDS" -lt "$end" ]; do
		STATUS=$(migration_status "$1")
		case "$STATUS" in
		completed | failed | cancelled) return ;;
		esac
		if ! kill -0 "${QRUN[$1]}" 2>/dev/null; then
			STATUS="not done: QEMU $1 ended ($(tail -n 2 \
				"$WORK/run-$1.out" | tr '\n' ' '))"
			return
		fi
		sleep 0.1
	done
}

# migration_field() - a number from the last query-migrate answer
# $1: field name
migration_field() {
	sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$WORK/query-migrate.out" |
		head -n 1
}

# mig_rst_drop() - drop the pod's TCP resets until mig_rst_release.
# Both back-ends share the pod: between the source letting go of a
# socket (--migrate-no-linger) and the destination restoring it, the
# pod's kernel would answer a segment of the peer (a window probe, an
# ACK) with a reset, which between two nodes, the source's socket
# lingering, nobody sends.  The test drops those while it migrates.
mig_rst_drop() {
	ip netns exec "$NS_POD" nft -f - <<-EOF ||
		table inet migtest {
			chain out {
				type filter hook output priority 0; policy accept;
				tcp flags & rst == rst counter drop
			}
		}
	EOF
		fail "nft in the pod"
}

# mig_rst_release() - let the pod's resets go again; log how many were
# dropped
# $1: what to log them as (nothing: no log)
mig_rst_release() {
	[ -n "${1:-}" ] &&
		ip netns exec "$NS_POD" nft list table inet migtest 2>/dev/null |
		sed -n 's/.*counter packets \([1-9][0-9]*\) .*/\1/p' |
			while read -r n; do
				log "$1: $n resets of the pod's kernel dropped"
			done
	ip netns exec "$NS_POD" nft delete table inet migtest
}
