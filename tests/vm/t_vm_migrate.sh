#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Live migration of a QEMU 10 guest on netshim --vhost-user to another
# QEMU on another netshim in the same pod, as KubeVirt moves a VM between
# pods that keep their address.  The source QEMU runs the migrate
# scenario; the destination waits with -incoming defer.  While the guest
# downloads the peer's counter stream and uploads seq's lines, QMP
# migrates it (migrate-incoming, migrate, query-migrate until completed),
# so the source netshim writes receive buffers and used rings during the
# memory copy: QEMU refuses to start without the dirty log (LOG_ALL,
# LOG_SHMFD).  A TCP repair helper (MIG_HELPER, default
# build/netshim-repair; passt's passt-repair speaks the same protocol)
# runs beside each back-end, as KubeVirt's virt-handler runs passt-repair;
# the source runs with --migrate-no-linger, since the destination restores
# the same 4-tuples in the same namespace.  Then:
#   - the source netshim (--migrate-exit) handed its state over and exits;
#   - with the helper, both transfers go on from the destination, on the
#     same connections, to their end: every line the peer sent reached
#     the guest and every line the guest sent reached the peer, in order,
#     and the guest's kernel counted no reset;
#   - with MIG_HELPER=none, the destination resets the guest's connections
#     at once (the sockets stayed with the source): the transfers end with
#     a reset, not a hang, and the lines before it are intact;
#   - the guest's virtio driver did not complain;
#   - from the destination the guest renews its lease, pings the peer and
#     opens new TCP connections both ways.
# With MIG_FAIL=1 the destination refuses the state (more connections
# than its --max-tcp): its QEMU gives up, the source's resumes (QMP cont,
# as libvirt does after a failed migration), and the source netshim, run
# without --migrate-exit and --migrate-no-linger, takes its sockets out of
# repair mode: both transfers go on there, to their ends.
# BACKEND=passt runs passt through the same test (MIG_HELPER names
# passt-repair then); MIG_DEBUG=1 runs both back-ends with -d.

set -u
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/peer.sh"

COUNTER_PORT=5310
UPLOAD_PORT=5311
DOWN_S=${DOWN_S:-10}
UP_LINES=${UP_LINES:-2000000}
if [ "$BACKEND" = passt ]; then
	MIG_HELPER=${MIG_HELPER:-$(dirname "${PASST:-passt}")/passt-repair}
else
	MIG_HELPER=${MIG_HELPER:-$REPO/build/netshim-repair}
fi

# qmp() - one QMP command on a monitor, its answer on stdout
# $1: monitor socket, $2...: command and JSON arguments
qmp() {
	local mon=$1

	shift
	python3 "$(dirname "$0")/qmp.py" "$mon" "$@"
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

topo_init
topo_peer_pod
vm_peer_iperf
# The counter stream: 16-byte lines ("%15d\n") numbered from 0, as fast
# as the guest takes them for DOWN_S seconds, then the end of the stream
vm_peer_start counter python3 -c '
import socket, sys, threading, time
def serve(c, secs):
    n = 0
    end = time.time() + secs
    try:
        while time.time() < end:
            c.sendall(b"".join(b"%15d\n" % (n + i) for i in range(4096)))
            n += 4096
        c.shutdown(socket.SHUT_WR)
        print("counter: sent %d lines" % n, flush=True)
        while c.recv(4096):
            pass
    except OSError as e:
        print("counter: stream broken after %d lines: %s" % (n, e), flush=True)
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(8)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c, float(sys.argv[2])),
                     daemon=True).start()
' "$COUNTER_PORT" "$DOWN_S"
# The upload's judge: lines "0\n", "1\n", ... in order, to the end
vm_peer_start upload python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(8)
c, _ = s.accept()
n = bad = 0
rest = b""
how = "eof"
try:
    while True:
        b = c.recv(65536)
        if not b:
            break
        lines = (rest + b).split(b"\n")
        rest = lines.pop()
        for l in lines:
            if l != b"%d" % n:
                bad += 1
            n += 1
except OSError as e:
    how = "error %s" % e
print("upload: %d lines, %d wrong, %s%s" % (n, bad, how,
      ", %d bytes left over" % len(rest) if rest else ""), flush=True)
' "$UPLOAD_PORT"
vm_peer_wait tcp "$COUNTER_PORT"
vm_peer_wait tcp "$UPLOAD_PORT"

# Source back-end: exits once its state reached the destination, and
# lets go of the sockets it hands over at once (same namespace)
if [ -n "${MIG_FAIL:-}" ]; then
	[ "$BACKEND" = netshim ] ||
		skip "MIG_FAIL makes netshim's destination refuse (--max-tcp)"
	topo_backend --vhost-user ${MIG_DEBUG:+-d}
elif [ "$BACKEND" = netshim ]; then
	topo_backend --vhost-user --migrate-exit --migrate-no-linger \
		${MIG_DEBUG:+-d}
else
	topo_backend --vhost-user --migrate-no-linger ${MIG_DEBUG:+-d}
fi
SRC_PID=$BACKEND_PID
mv "$WORK/backend.sock" "$WORK/src.sock"
# passt listens for passt-repair beside its socket: out of the second's way
[ -S "$WORK/backend.sock.repair" ] &&
	mv "$WORK/backend.sock.repair" "$WORK/src.sock.repair"
mv "$WORK/backend.log" "$WORK/backend-src.log"
# Destination back-end, in the same pod; with MIG_FAIL one that refuses
# the state: more TCP connections than its --max-tcp
topo_backend --vhost-user ${MIG_FAIL:+--max-tcp 1} ${MIG_DEBUG:+-d}
mv "$WORK/backend.sock" "$WORK/dst.sock"
[ -S "$WORK/backend.sock.repair" ] &&
	mv "$WORK/backend.sock.repair" "$WORK/dst.sock.repair"

NETDEV=vhost-user VM_QMP="$WORK/src.qmp" VM_LOG="$WORK/vm-src.log" \
	VM_QUIET=1 VM_TIMEOUT=400 "$(dirname "$0")/run-vm.sh" migrate \
	"$WORK/src.sock" "netshim.up_lines=$UP_LINES" \
	>"$WORK/run-src.out" 2>&1 &
SRC_RUN=$!
topo_pid_add "$SRC_RUN"
NETDEV=vhost-user VM_QMP="$WORK/dst.qmp" VM_LOG="$WORK/vm-dst.log" \
	VM_INCOMING=defer VM_QUIET=1 VM_TIMEOUT=400 \
	"$(dirname "$0")/run-vm.sh" migrate "$WORK/dst.sock" \
	"netshim.up_lines=$UP_LINES" >"$WORK/run-dst.out" 2>&1 &
DST_RUN=$!
topo_pid_add "$DST_RUN"

wait_console "$WORK/vm-src.log" migrate_ready 200 ||
	fail "the guest did not start its download:" \
		"$(tail -n 5 "$WORK/vm-src.log.raw" "$WORK/run-src.out")"
log "guest: $(result_of "$WORK/vm-src.log.raw" migrate_ready)"
# The repair helpers, as virt-handler starts them when a migration begins
if [ "$MIG_HELPER" != none ]; then
	[ -x "$MIG_HELPER" ] || fail "no repair helper $MIG_HELPER (make)"
	for side in src dst; do
		ip netns exec "$NS_POD" "$MIG_HELPER" \
			"$WORK/$side.sock.repair" >"$WORK/helper-$side.log" 2>&1 &
		topo_pid_add $!
	done
fi
for _ in $(seq 50); do
	[ -S "$WORK/dst.qmp" ] && break
	sleep 0.1
done
[ -S "$WORK/dst.qmp" ] ||
	fail "the destination QEMU did not start: $(tail -n 3 "$WORK/run-dst.out")"
qmp "$WORK/dst.qmp" "migrate-incoming {\"uri\": \"unix:$WORK/mig.sock\"}" \
	>/dev/null || fail "destination QEMU: migrate-incoming refused"
start=$(date +%s.%N)
qmp "$WORK/src.qmp" "migrate {\"uri\": \"unix:$WORK/mig.sock\"}" \
	>"$WORK/qmp-migrate.out" 2>&1 ||
	fail "source QEMU refused to migrate: $(cat "$WORK/qmp-migrate.out")"
status=
for _ in $(seq 600); do
	out=$(qmp "$WORK/src.qmp" query-migrate 2>&1)
	status=$(echo "$out" | sed -n 's/.*"status": "\([a-z-]*\)".*/\1/p' |
		head -n 1)
	case "$status" in
	completed | failed | cancelled) break ;;
	esac
	sleep 0.2
done
echo "$out" >"$WORK/query-migrate.out"
# A destination that refuses the state closes the migration's socket: the
# source may see the migration fail, or complete before it notices
[ "$status" = completed ] || { [ -n "${MIG_FAIL:-}" ] && [ "$status" = failed ]; } ||
	fail "migration $status: $out; $(tail -n 3 "$WORK/backend-src.log")"
total=$(echo "$out" | sed -n 's/.*"total-time": \([0-9]*\).*/\1/p')
down=$(echo "$out" | sed -n 's/.*"downtime": \([0-9]*\).*/\1/p')
log "migrated in ${total:-?} ms, downtime ${down:-?} ms" \
	"(wall $(echo "$(date +%s.%N) $start" | awk '{ printf "%.1f", $1 - $2 }') s)"
if [ -n "${MIG_FAIL:-}" ]; then
	# The destination refused the state: its QEMU gives up, and the
	# source's goes on, as libvirt resumes it after a failed migration
	wait "$DST_RUN"
	grep -q 'more than --max-tcp' "$WORK/backend.log" ||
		fail "the destination did not refuse the state:" \
			"$(tail -n 3 "$WORK/backend.log")"
	# QEMU resumes the source by itself when it sees the migration
	# fail; if it completed on its side, libvirt would resume it so
	qmp "$WORK/src.qmp" cont >/dev/null 2>&1
	qmp "$WORK/src.qmp" query-status | grep -q '"running": true' ||
		fail "the source QEMU did not resume"
	log "the destination refused the state; the source QEMU resumed" \
		"(migration $status on its side)"
	wait "$SRC_RUN"
	rc=$?
	vmlog=$WORK/vm-src.log
	where=source
else
	qmp "$WORK/src.qmp" quit >/dev/null 2>&1
	wait "$DST_RUN"
	rc=$?
	vmlog=$WORK/vm-dst.log
	where=destination
fi
grep -q '^NETSHIM-RESULT migrate_done' "$vmlog" ||
	fail "the guest did not finish on the $where (run-vm.sh $rc):" \
		"$(tail -n 5 "$WORK/run-$([ $where = source ] && echo src || echo dst).out")"
grep 'NETSHIM-RESULT' "$vmlog" | sed 's/^/    /' >&2
if grep -E 'is not a head|[Bb]ad (used|avail)|id [0-9]+ out of range|virtio.*(error|broken)' \
	"$vmlog" "$WORK/vm-src.log"; then
	fail "the guest's virtio driver complained across the migration"
fi
lines=$(result_of "$vmlog" down_lines)
ended=$(result_of "$vmlog" transfers)
sent=$(sed -n 's/^counter: sent \([0-9]*\) lines/\1/p' "$WORK/peer-counter.log")
for _ in $(seq 50); do
	grep -q '^upload:' "$WORK/peer-upload.log" && break
	sleep 0.1
done
got=$(grep '^upload:' "$WORK/peer-upload.log")
if [ "$MIG_HELPER" != none ]; then
	# Both connections went on, to their ends
	[ "$ended" = "${ended#*still running}" ] ||
		fail "the transfers hung after the migration: $ended"
	case "$ended" in
	*"upload status 0; resets 0") ;;
	*) fail "the guest's connections did not survive: $ended" ;;
	esac
	[ "$lines" = "$sent lines, 0 wrong, 0 short" ] ||
		fail "download: the peer sent ${sent:-?} lines, the guest got" \
			"$lines"
	[ "$got" = "upload: $((UP_LINES + 1)) lines, 0 wrong, eof" ] ||
		fail "upload: the guest sent $((UP_LINES + 1)) lines, the" \
			"peer says '$got'"
	kept="both connections kept: $lines down, ${got#upload: } up"
else
	case "$lines" in
	*" 0 wrong, "[01]" short") ;;
	*) fail "the download before the migration came corrupted: $lines" ;;
	esac
	case "$ended" in
	"ended after "*"; resets "[1-9]*) ;;
	*) fail "the guest's connections were not reset after the" \
		"migration: $ended" ;;
	esac
	kept="connections reset ($ended); $lines before"
fi
for key in dhcp4 ping4_after tcp_up_after tcp_down_after; do
	result_of "$vmlog" "$key" | grep -q '^ok' ||
		fail "$key failed after the migration: $(result_of "$vmlog" "$key")"
done

if [ -n "${MIG_FAIL:-}" ]; then
	grep -q 'migration failed or cancelled: 2 TCP connections go on' \
		"$WORK/backend-src.log" ||
		fail "the source did not take its connections back:" \
			"$(grep migration "$WORK/backend-src.log" | tail -n 3)"
elif [ "$BACKEND" = netshim ]; then
	# The source handed its state over and left by itself
	for _ in $(seq 50); do
		kill -0 "$SRC_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$SRC_PID" 2>/dev/null &&
		fail "the source netshim did not exit (--migrate-exit)"
	grep -q 'migration complete: exiting' "$WORK/backend-src.log" ||
		fail "the source netshim did not say it handed its state over:" \
			"$(tail -n 3 "$WORK/backend-src.log")"
	n=$(topo_counter migrations_in)
	[ "${n:-0}" -eq 1 ] || fail "destination: migrations_in is '$n', not 1"
	if [ "$MIG_HELPER" = none ]; then
		n=$(topo_counter tcp_migrated_reset)
		[ "${n:-0}" -ge 1 ] ||
			fail "destination: no TCP connection reset towards" \
				"the guest"
	else
		n=$(topo_counter tcp_migrated)
		[ "${n:-0}" -ge 2 ] ||
			fail "destination: $n TCP connections rebuilt, not 2"
	fi
fi
if [ -n "${MIG_FAIL:-}" ]; then
	log "ok: the destination refused the state (migration $status on the" \
		"source's side), the source resumed; $kept; lease, ping and" \
		"new TCP both ways from the source"
else
	log "ok: migrated in ${total:-?} ms (downtime ${down:-?} ms) under" \
		"two transfers; $kept; lease, ping and new TCP both ways from" \
		"the destination"
fi
