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
# starts beside the source and the destination of each migration, as
# KubeVirt's virt-handler starts passt-repair;
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
#   - the inbound connection went with it: the peer, connected to the
#     pod's port 5315, which the first back-end forwards (-t), before the
#     first migration, has each line it writes echoed by the guest, in
#     order, before and after the last one (the other back-ends share the
#     pod, where a second listener could not bind the port: between
#     pods, as KubeVirt migrates, each would forward it);
#   - the guest's UDP flow went with it: the peer, which pushes a datagram
#     every 0.2 s to where the guest's only datagram came from, still
#     reaches it from the destination (netshim's own stream,
#     MIG_FORMAT=netshim); passt's stream carries TCP only, and there the
#     flow must have ended;
#   - with MIG_CONNS=N, N more TCP connections, each echoing a line per
#     round, all go on, not a byte wrong (tests/vm/conns.c in the guest);
#   - the guest's virtio driver did not complain;
#   - from the destination the guest renews its lease, pings the peer and
#     opens new TCP connections both ways.
# With MIG_FAIL=1 the destination refuses the state (more connections
# than its --max-tcp): its QEMU gives up, the source's resumes (QMP cont,
# as libvirt does after a failed migration), and the source netshim, run
# without --migrate-exit and --migrate-no-linger, takes its sockets out of
# repair mode: both transfers go on there, to their ends.
# MIG_CANCEL=1 first cancels a migration half-way through its memory copy
# (migrate_cancel, bandwidth capped so that it is caught there): the
# source QEMU and netshim go on serving, the destination is dropped, and
# the next migration starts from the same source.  MIG_ROUNDS=N migrates
# N times, each time to a new QEMU on a new back-end, as a VM goes back
# and forth between nodes, under the same two transfers, which must
# outlast the last migration.
# MIG_NEWPOD=1 migrates to a back-end in another pod, with another
# address (198.51.100.66), as a node gives a VM whose address does not
# move with it: the destination cannot rebuild the sockets on the old
# address, resets the guest's connections (a reset, never a hang), and
# the guest's new lease carries the new address, with which ping and new
# TCP connections work at once.
# MIG_PODS=1 migrates between two pods with the same address
# (203.0.113.2, 2001:db8:1::2), as a network with persistent IPs gives a
# VM: each hop goes to the other pod, and the peer's route to the address
# moves there once the migration completed, as the network moves the
# VM's port to the node where it resumed, 2 s later (MIG_MOVE_DELAY),
# the source QEMU gone by then.  Every back-end runs with the launcher's
# defaults, no --migrate-exit or --migrate-no-linger, and forwards the
# inbound port in its own pod.  Until the route moves, the peer's
# segments still reach the source's sockets: they must not take and
# acknowledge bytes the destination never gets, nor reset anything.
# After each hop the source back-end still runs (its options ask no
# exit), and is then stopped, as KubeVirt deletes the source's pod.
# Nothing of the pod's kernel is held back here.
# MIG_DOWN_STALL=S stops the guest's download reader for S seconds from
# two seconds in, across the first migration: the guest's window and the
# pod's receive queue are full when it comes.
# BACKEND=passt runs passt through the same test (MIG_HELPER names
# passt-repair then); MIG_DEBUG=1 runs both back-ends with -d, MIG_PCAP=1
# with --pcap (NAME.pcap in the test's directory: TOPO_KEEP=1 keeps it).
# MIG_CHAIN="passt netshim passt" gives each QEMU its own back-end, the
# first the source, each migration to the next (one hop fewer than
# entries: MIG_ROUNDS follows), as a cluster moves a VM between nodes
# that run passt and nodes that run netshim; MIG_CANCEL's dropped
# destination is of the second's kind.  passt is PASST, else PASST_VU,
# else build/passt-vu/passt (tests/bench/passt-vu.sh builds it from
# trixie's source; make integration does), and only one that has
# --vhost-user: the test fails, and says why, without one.
# MIG_HELPER: passt-repair (beside PASST), netshim-repair
# (build/netshim-repair), a path, or none; by default the first back-end's
# own.  Either serves either back-end: one protocol.
# netshim writes passt's stream (version 2) by default, which carries TCP
# connections only: the guest's UDP flow ends at the migration, as with
# passt, and the test checks that it did.  MIG_FORMAT=netshim runs every
# back-end with --migrate-format netshim (every one of MIG_CHAIN must be
# netshim then): netshim's own stream carries the UDP flow, and the test
# checks that it went with the guest.
# netshim offers passt's virtio features by default, so that a guest
# booted on it may move to passt; MIG_FEATURES=all runs every back-end
# with --virtio-features all (netshims only: a guest that took them
# cannot move to passt), its offloads, GUEST_ANNOUNCE and the rest, and
# only then does the test ask that the guest took GUEST_ANNOUNCE.
# MIG_PROBE=1: the guest also opens a new TCP connection to the peer every
# second (netshim.probe), and after each migration the test waits for two
# of them, whose lives began where the guest arrived.

set -u
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/peer.sh"
. "$(dirname "$0")/migrate-lib.sh"

COUNTER_PORT=5310
UPLOAD_PORT=5311
UDP_PORT=5312
ECHO_PORT=5313
HOLD_PORT=5314
INBOUND_PORT=5315
# MIG_CONNS=N: the guest also holds N TCP connections to the peer's echo
# server, each checked round after round (tests/vm/conns.c)
CONNS=${MIG_CONNS:-0}
ROUNDS=${MIG_ROUNDS:-1}
# The back-end of each QEMU: n0, n1, ... in KIND, c1 (a cancelled
# destination) of n1's
declare -A KIND
if [ -n "${MIG_CHAIN:-}" ]; then
	read -ra CHAIN <<<"$MIG_CHAIN"
	[ "${#CHAIN[@]}" -ge 2 ] ||
		fail "MIG_CHAIN='$MIG_CHAIN': two back-ends at least"
	[ -z "${MIG_ROUNDS:-}" ] ||
		[ "$MIG_ROUNDS" -eq $((${#CHAIN[@]} - 1)) ] ||
		fail "MIG_ROUNDS=$MIG_ROUNDS, but MIG_CHAIN has" \
			"$((${#CHAIN[@]} - 1)) migrations"
	ROUNDS=$((${#CHAIN[@]} - 1))
else
	CHAIN=()
	for i in $(seq 0 "$ROUNDS"); do
		CHAIN+=("$BACKEND")
	done
fi
ALL_NETSHIM=1
for i in "${!CHAIN[@]}"; do
	case "${CHAIN[$i]}" in
	netshim) ;;
	passt) ALL_NETSHIM= ;;
	*) fail "MIG_CHAIN: '${CHAIN[$i]}' is neither netshim nor passt" ;;
	esac
	KIND[n$i]=${CHAIN[$i]}
done
KIND[c1]=${CHAIN[1]}
FORMAT=${MIG_FORMAT:-}
case "$FORMAT" in
"") ;;
netshim)
	[ -n "$ALL_NETSHIM" ] ||
		fail "MIG_FORMAT=netshim: passt reads only its own stream," \
			"every back-end of '${CHAIN[*]}' must be netshim"
	;;
*) fail "MIG_FORMAT is netshim or unset (passt's stream), not '$FORMAT'" ;;
esac
FEATURES=${MIG_FEATURES:-}
case "$FEATURES" in
"") ;;
all)
	[ -n "$ALL_NETSHIM" ] ||
		fail "MIG_FEATURES=all: a guest that took netshim's own" \
			"features cannot move to passt, every back-end of" \
			"'${CHAIN[*]}' must be netshim"
	;;
*) fail "MIG_FEATURES is all or unset (passt's features), not '$FEATURES'" ;;
esac
# PASST: passt with --vhost-user, trixie's (make integration builds it)
MIG_HELPER=${MIG_HELPER:-${CHAIN[0]}-repair}
if [ -z "$ALL_NETSHIM" ] || [ "$MIG_HELPER" = passt-repair ]; then
	PASST=${PASST:-${PASST_VU:-$REPO/build/passt-vu/passt}}
	"$PASST" --help 2>&1 | grep -q -- --vhost-user ||
		fail "no passt with --vhost-user at $PASST (make integration" \
			"builds it from trixie's source package with" \
			"tests/bench/passt-vu.sh)$(sed 's/^/: /' \
			"$(dirname "$PASST")/failed.txt" 2>/dev/null)"
	# A passt before 2025's --migrate-no-linger closes the sockets it
	# handed over by itself
	PASST_LINGER=()
	"$PASST" --help 2>&1 | grep -q -- --migrate-no-linger &&
		PASST_LINGER=(--migrate-no-linger)
fi
case "$MIG_HELPER" in
passt-repair) MIG_HELPER=$(dirname "$PASST")/passt-repair ;;
netshim-repair) MIG_HELPER=$REPO/build/netshim-repair ;;
esac
CANCEL=${MIG_CANCEL:-}
# The download goes on until after the last migration, DOWN_S seconds at
# most: a hop, with its QEMU's start, takes up to 12 s here alone, and 15
# to 27 s beside another guest test and a build; the bound only stops a
# stream whose test went wrong
DOWN_S=${DOWN_S:-$((60 + 30 * ROUNDS))}
UP_LINES=${UP_LINES:-2000000}
PROBE_PORT=5316

topo_init
topo_peer_pod
NEWPOD=${MIG_NEWPOD:-}
if [ -n "$NEWPOD" ]; then
	if [ "$ROUNDS" -ne 1 ] || [ -n "$CANCEL" ] || [ -n "${MIG_FAIL:-}" ]; then
		fail "MIG_NEWPOD is one migration, without MIG_CANCEL or MIG_FAIL"
	fi
	topo_pod2
fi
PODS=${MIG_PODS:-}
# MIG_MOVE_DELAY: how long after the migration completed the network
# moves the address (OVN moves a migrated VM's port when the destination
# announces it; a slower network leaves the source in the way longer)
MOVE_DELAY=${MIG_MOVE_DELAY:-2}
declare -A PODNS=([n0]=$NS_POD)
if [ -n "$PODS" ]; then
	if [ -n "$NEWPOD" ] || [ -n "$CANCEL" ] || [ -n "${MIG_FAIL:-}" ]; then
		fail "MIG_PODS is without MIG_NEWPOD, MIG_CANCEL or MIG_FAIL"
	fi
	topo_pod2_same
fi
# Under MIG_CONNS the guest's reader of the download is slow (its TCG
# CPU goes to the connections' rounds), and what the pod's socket holds
# at the hop must reach it within the test's wait: that socket may grow
# to the pod's tcp_rmem maximum, 32 MiB on this kernel, which it took
# minutes to drain.  6 MiB is the maximum most kernels ship with
# (Debian 12's, for one)
if [ "$CONNS" -gt 0 ]; then
	for ns in "$NS_POD" "$NS_POD2"; do
		[ -e "/run/netns/$ns" ] || continue
		ip netns exec "$ns" sysctl -qw \
			net.ipv4.tcp_rmem="4096 131072 6291456" ||
			fail "tcp_rmem in $ns"
	done
fi
vm_peer_iperf
# The counter stream: 16-byte lines ("%15d\n") numbered from 0, as fast
# as the guest takes them, until the test says the guest arrived where it
# stays (a file, made a few seconds after the last migration) or DOWN_S
# seconds passed; then the end of the stream
vm_peer_start counter python3 -c '
import os, socket, sys, threading, time
def serve(c, secs):
    n = 0
    end = time.time() + secs
    try:
        while time.time() < end and not os.path.exists(sys.argv[3]):
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
' "$COUNTER_PORT" "$DOWN_S" "$WORK/counter.stop"
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
# The peer's UDP servers, one script: from a client's first datagram on,
# one datagram every 0.2 s to where it came from, the guest sending
# nothing more.  KIND udp: "N\n" without end, as a game or voice server
# pushes to its client; only a flow that went with the guest (its socket
# open again at the destination on the same pod port) takes them after
# the migration.  KIND hold: 1000 at most, of 8000 bytes each, larger than
# a receive buffer, a four-byte count then a pattern the count decides
# (udphold.c's), fewer than the guest's socket holds unread.
# Arguments: PORT KIND
PUSH_PY='
import socket, sys, threading, time
kind = sys.argv[2]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", int(sys.argv[1])))
def payload(n):
    if kind == "hold":
        return n.to_bytes(4, "big") + bytes(
            (n * 131 + i * 7 + (i >> 8)) & 255 for i in range(4, 8000))
    return b"%d\n" % n
def push(a):
    n = 0
    while kind != "hold" or n < 1000:
        try:
            s.sendto(payload(n), a)
        except OSError:
            pass
        n += 1
        time.sleep(0.2)
    print("%s: sent %d" % (kind, n), flush=True)
seen = set()
while True:
    b, a = s.recvfrom(2048)
    if a not in seen:
        seen.add(a)
        print("%s: from %s:%d" % ((kind,) + a), flush=True)
        threading.Thread(target=push, args=(a,), daemon=True).start()
'
vm_peer_start udp python3 -c "$PUSH_PY" "$UDP_PORT" udp
vm_peer_start hold python3 -c "$PUSH_PY" "$HOLD_PORT" hold
if [ "$CONNS" -gt 0 ]; then
	# Every byte back as it came, on as many connections as come
	vm_peer_start echo python3 -c '
import resource, selectors, socket, sys
h = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (h, h))
sel = selectors.DefaultSelector()
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("0.0.0.0", int(sys.argv[1])))
ls.listen(4096)
sel.register(ls, selectors.EVENT_READ)
while True:
    for key, _ in sel.select():
        s = key.fileobj
        if s is ls:
            sel.register(ls.accept()[0], selectors.EVENT_READ)
            continue
        try:
            b = s.recv(65536)
            if b:
                s.sendall(b)
                continue
        except OSError:
            pass
        sel.unregister(s)
        s.close()
' "$ECHO_PORT"
	vm_peer_wait tcp "$ECHO_PORT"
fi
if [ -n "${MIG_PROBE:-}" ]; then
	# The guest's new connections: each one's line, and when it came
	vm_peer_start probe python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(8)
while True:
    c, _ = s.accept()
    c.settimeout(5)
    b = b""
    try:
        while True:
            r = c.recv(64)
            if not r:
                break
            b += r
    except OSError:
        pass
    c.close()
    if b.endswith(b"\n"):
        print("probe: %s at %.1f" % (b.decode().strip(), time.time()),
              flush=True)
' "$PROBE_PORT"
	vm_peer_wait tcp "$PROBE_PORT"
fi
vm_peer_wait tcp "$COUNTER_PORT"
vm_peer_wait tcp "$UPLOAD_PORT"
vm_peer_wait udp "$UDP_PORT"

[ -z "${MIG_FAIL:-}" ] ||
	{ [ "${KIND[n0]}" = netshim ] && [ "${KIND[n1]}" = netshim ]; } ||
	skip "MIG_FAIL makes netshim's destination refuse (--max-tcp)"
[ -z "${MIG_FAIL:-}" ] || { [ "$ROUNDS" -eq 1 ] && [ -z "$CANCEL" ]; } ||
	fail "MIG_FAIL is one migration, without MIG_CANCEL"

# dest_running() - fail unless the destination's QEMU runs the guest
# within 10 s of its migration's end, with what it said if it ended
# $1: DST
dest_running() {
	local _

	for _ in $(seq 50); do
		kill -0 "${QRUN[$1]}" 2>/dev/null ||
			fail "QEMU $1 (${KIND[$1]}) ended instead of running the" \
				"migrated guest: $(grep -v '^run-vm' \
				"$WORK/run-$1.out" | tail -n 4)"
		qmp "$WORK/$1.qmp" query-status 2>/dev/null |
			grep -q '"running": true' && return
		sleep 0.2
	done
	fail "QEMU $1 (${KIND[$1]}) does not run the guest 10 s after its" \
		"migration: $(qmp "$WORK/$1.qmp" query-status 2>&1)"
}

# probe_wait() - wait for two more of the guest's new connections than
# the peer had when the migration completed (MIG_PROBE): the last began
# where the guest arrived; fail after 40 s without them
# $1: SRC, $2: DST, $3: the peer's count then
probe_wait() {
	local _ n

	for _ in $(seq 400); do
		n=$(grep -c '^probe:' "$WORK/peer-probe.log")
		[ "$n" -ge $(($3 + 2)) ] && return
		sleep 0.1
	done
	fail "no new TCP connection from the guest within 40 s of the" \
		"migration ${KIND[$1]} $1 -> ${KIND[$2]} $2 ($n since the" \
		"guest started, $3 when it completed)"
}

# guest() - a QEMU on back-end NAME, console in $WORK/vm-NAME.log, QMP on
# $WORK/NAME.qmp; with a second argument, waiting for a migration.  The
# guest kernel runs with init_on_alloc=0, as kernels before 5.3 and those
# built without CONFIG_INIT_ON_ALLOC_DEFAULT_ON do: Debian's zeroes each
# page it allocates, receive buffers too, just before the back-end fills
# them, and that write of the guest's own puts the page in the next copy
# whether or not the back-end logged its write.  With it on, the held
# datagrams and the download came through intact with the source's
# receive buffers left out of the dirty log; with it off, 4 of 207 and
# 13 of 261 datagrams came wrong in two runs, and the download in one.
# $1: NAME, $2: anything to start it with -incoming defer
guest() {
	local name=$1 _

	NETDEV=vhost-user VM_QMP="$WORK/$name.qmp" VM_LOG="$WORK/vm-$name.log" \
		VM_INCOMING=${2:+defer} VM_QUIET=1 \
		VM_PIDFILE="$WORK/$name.qemu.pid" \
		VM_TIMEOUT=$((DOWN_S + 400)) "$(dirname "$0")/run-vm.sh" \
		migrate "$WORK/$name.sock" "netshim.up_lines=$UP_LINES" \
		"netshim.conns=$CONNS" init_on_alloc=0 \
		"netshim.down_stall=${MIG_DOWN_STALL:-0}" \
		"netshim.probe=$([ -n "${MIG_PROBE:-}" ] && echo "$PROBE_PORT" || echo 0)" \
		"netshim.wait=$((DOWN_S + 110))" >"$WORK/run-$name.out" 2>&1 &
	QRUN[$name]=$!
	topo_pid_add $!
	# QEMU itself, stopped with the test's processes if it fails
	topo_wait_file "$WORK/$name.qemu.pid" &&
		topo_pid_add "$(cat "$WORK/$name.qemu.pid")"
}

# same_pod_opts() - the options of a back-end whose guest moves to
# another in the same pod, into OPTS: netshim exits once its state reached
# the destination, and lets go at once of the sockets it hands over;
# passt 2026 does the latter on request, trixie's always
# $1: KIND
same_pod_opts() {
	if [ "$1" = netshim ]; then
		OPTS=(--migrate-exit --migrate-no-linger)
	else
		OPTS=("${PASST_LINGER[@]}")
	fi
}

# format_opts() - MIG_FORMAT's and MIG_FEATURES's options for a back-end
# of KIND, into FOPTS
# $1: KIND
format_opts() {
	FOPTS=()
	[ "$1" = netshim ] || return 0
	[ -z "$FORMAT" ] || FOPTS+=(--migrate-format "$FORMAT")
	[ -z "$FEATURES" ] || FOPTS+=(--virtio-features "$FEATURES")
}

# hop() - migrate the guest from back-end SRC to a new back-end DST, on a
# new QEMU waiting with -incoming; sets STATUS and SUMMARY
# $1: SRC, $2: DST, $3: "cancel" to cancel it half-way
hop() {
	local src=$1 dst=$2 cancel=${3:-} start bw pod=$NS_POD opts=()
	local spod=${PODNS[$src]} probes

	kill -0 "${QRUN[$src]}" 2>/dev/null ||
		fail "QEMU $src ended before its migration to $dst:" \
			"$(tail -n 3 "$WORK/run-$src.out")"
	if [ -n "${MIG_FAIL:-}" ]; then
		# One that refuses the state: more TCP connections than
		# its --max-tcp
		opts=(--max-tcp 1)
	elif [ -n "$NEWPOD" ]; then
		pod=$NS_POD2
	elif [ -n "$PODS" ]; then
		# The other pod, the launcher's defaults, the port forwarded
		[ "$spod" = "$NS_POD" ] && pod=$NS_POD2
		opts=(-t "$INBOUND_PORT")
	else
		same_pod_opts "${KIND[$dst]}"
		opts=("${OPTS[@]}")
	fi
	format_opts "${KIND[$dst]}"
	NS_POD=$pod BACKEND=${KIND[$dst]} backend "$dst" "${opts[@]}" \
		"${FOPTS[@]}"
	PODNS[$dst]=$pod
	guest "$dst" incoming
	# A helper on each side, for this migration
	NS_POD=$pod helper "$dst"
	NS_POD=$spod helper "$src"
	topo_wait_file "$WORK/$dst.qmp" ||
		fail "QEMU $dst did not start: $(tail -n 3 "$WORK/run-$dst.out")"
	qmp "$WORK/$dst.qmp" "migrate-incoming {\"uri\": \"unix:$WORK/mig-$dst.sock\"}" \
		>/dev/null || fail "QEMU $dst: migrate-incoming refused"
	if [ -n "$cancel" ]; then
		# Slow enough to be caught in its iterative copy, with the
		# dirty log on in the source back-end
		bw=$(qmp "$WORK/$src.qmp" query-migrate-parameters |
			sed -n 's/.*"max-bandwidth": \([0-9]*\).*/\1/p')
		qmp "$WORK/$src.qmp" \
			'migrate-set-parameters {"max-bandwidth": 2097152}' \
			>/dev/null || fail "QEMU $src: max-bandwidth refused"
	fi
	[ -n "$PODS" ] || mig_rst_drop
	start=$(date +%s.%N)
	qmp "$WORK/$src.qmp" "migrate {\"uri\": \"unix:$WORK/mig-$dst.sock\"}" \
		>"$WORK/qmp-migrate.out" 2>&1 ||
		fail "QEMU $src refused to migrate: $(cat "$WORK/qmp-migrate.out")"
	if [ -n "$cancel" ]; then
		sleep 3
		STATUS=$(migration_status "$src")
		[ "$STATUS" = active ] ||
			fail "the migration to be cancelled is $STATUS after 3 s:" \
				"$(cat "$WORK/query-migrate.out")"
		log "cancelling $src -> $dst after" \
			"$(($(migration_field transferred) / 1024)) KiB"
		qmp "$WORK/$src.qmp" migrate_cancel >/dev/null ||
			fail "QEMU $src: migrate_cancel refused"
		migration_wait "$src" 10
		[ "$STATUS" = cancelled ] ||
			fail "the migration is $STATUS after migrate_cancel"
		qmp "$WORK/$src.qmp" \
			"migrate-set-parameters {\"max-bandwidth\": ${bw:-134217728}}" \
			>/dev/null
		qmp "$WORK/$src.qmp" query-status | grep -q '"running": true' ||
			fail "QEMU $src stopped running after migrate_cancel"
		# The destination's QEMU gives up; its back-end is dropped
		topo_wait_exit "${QRUN[$dst]}" 100 ||
			kill "${QRUN[$dst]}" 2>/dev/null
		kill -0 "${BPID[$src]}" 2>/dev/null ||
			fail "back-end $src exited after migrate_cancel:" \
				"$(tail -n 3 "$WORK/backend-$src.log")"
		kill "${BPID[$dst]}"
		mig_rst_release
		SUMMARY="cancelled"
		return
	fi
	migration_wait "$src" 120
	# The guest's new connections so far began before it paused
	probes=$(grep -c '^probe:' "$WORK/peer-probe.log" 2>/dev/null)
	# A destination that refuses the state closes the migration's socket:
	# the source may see the migration fail, or complete before it notices
	[ "$STATUS" = completed ] ||
		{ [ -n "${MIG_FAIL:-}" ] && [ "$STATUS" = failed ]; } ||
		fail "migration $src -> $dst $STATUS:" \
			"$(cat "$WORK/query-migrate.out"); source" \
			"back-end: $(tail -n 3 "$WORK/backend-$src.log");" \
			"destination QEMU: $(grep -v '^run-vm' \
				"$WORK/run-$dst.out" | tail -n 4)"
	SUMMARY="$(migration_field total-time) ms, downtime $(migration_field downtime) ms"
	# Between pods: the source QEMU quits at once, as libvirt ends the
	# source domain, and the network moves the address to where the guest
	# resumed some time later
	if [ -n "$PODS" ] && [ "$STATUS" = completed ]; then
		qmp "$WORK/$src.qmp" quit >/dev/null 2>&1
		wait "${QRUN[$src]}"
		sleep "$MOVE_DELAY"
		topo_pod_move "$([ "$pod" = "$NS_POD2" ] && echo 2 || echo 1)"
	fi
	# The source may see its migration complete while the destination
	# QEMU refuses what it got: the guest must run there
	[ -n "${MIG_FAIL:-}" ] || dest_running "$dst"
	# The destination restored its sockets as the guest resumed
	sleep 1
	[ -n "$PODS" ] || mig_rst_release "$src -> $dst"
	# The sockets where the guest arrived, for a failure to show
	ip netns exec "$pod" ss -tnieo >"$WORK/ss-pod-$dst.txt" 2>&1
	ip netns exec "$NS_PEER" ss -tnieo >"$WORK/ss-peer-$dst.txt" 2>&1
	# And 30 s later, while a transfer that hung is still there (the
	# guest reports it only once it gave up, and its back-end's sockets
	# go with it), with what uses the host's CPU and the destination's
	# counters then (SIGUSR1: in its log)
	{ sleep 30
	  ip netns exec "$pod" ss -tnieo >"$WORK/ss-pod-late-$dst.txt" 2>&1
	  ip netns exec "$NS_PEER" ss -tnieo \
		>"$WORK/ss-peer-late-$dst.txt" 2>&1
	  top -b -n 2 -d 1 2>&1 | awk '/^top -/ { n++ } n == 2' |
		sed -n '7,14p' >"$WORK/ps-late-$dst.txt"
	  [ "${KIND[$dst]}" != netshim ] ||
		kill -USR1 "${BPID[$dst]}" 2>/dev/null; } &
	topo_pid_add $!
	log "${KIND[$src]} $src -> ${KIND[$dst]} $dst: $STATUS in $SUMMARY" \
		"(wall $(echo "$(date +%s.%N) $start" |
		awk '{ printf "%.1f", $1 - $2 }') s)"
	# A refused state leaves the guest on the source
	[ "$STATUS" = completed ] && [ -z "${MIG_FAIL:-}" ] || return
	[ -z "${MIG_PROBE:-}" ] || probe_wait "$src" "$dst" "$probes"
	# The source QEMU is done; with --migrate-exit, its back-end too
	if [ -z "$PODS" ]; then
		qmp "$WORK/$src.qmp" quit >/dev/null 2>&1
		wait "${QRUN[$src]}"
	fi
	helpers_gone "$src" "$dst"
	if [ -n "$PODS" ]; then
		# Its options ask no exit: it idles until its pod goes
		if [ "${KIND[$src]}" = netshim ]; then
			kill -0 "${BPID[$src]}" 2>/dev/null ||
				fail "back-end $src exited without --migrate-exit:" \
					"$(tail -n 3 "$WORK/backend-$src.log")"
			grep -q 'migration complete$' "$WORK/backend-$src.log" ||
				fail "back-end $src did not say the migration completed"
		fi
		kill "${BPID[$src]}"
		topo_wait_exit "${BPID[$src]}" ||
			fail "back-end $src did not exit on SIGTERM"
		return
	fi
	if [ "${KIND[$src]}" != netshim ]; then
		# Its pod goes, as KubeVirt deletes the source's: passt 2026
		# deprecates --migrate-exit, and a source left running kept
		# the inbound connection stalling for seconds at every
		# other hop here, once for more than 30 s; trixie's exits
		# by itself once its QEMU hung up
		kill "${BPID[$src]}" 2>/dev/null
		return
	fi
	topo_wait_exit "${BPID[$src]}" ||
		fail "back-end $src did not exit (--migrate-exit)"
	grep -q 'migration complete: exiting' "$WORK/backend-$src.log" ||
		fail "back-end $src did not say it handed its state over:" \
			"$(tail -n 3 "$WORK/backend-$src.log")"
}

# The guest starts on n0, without --migrate-exit where it must take its
# connections back (MIG_FAIL)
OPTS=()
[ -n "${MIG_FAIL:-}" ] || [ -n "$PODS" ] || same_pod_opts "${KIND[n0]}"
format_opts "${KIND[n0]}"
BACKEND=${KIND[n0]} backend n0 -t "$INBOUND_PORT" "${OPTS[@]}" "${FOPTS[@]}"
guest n0
wait_console "$WORK/vm-n0.log" migrate_ready 200 ||
	fail "the guest did not start its download:" \
		"$(tail -n 5 "$WORK/vm-n0.log.raw" "$WORK/run-n0.out")"
log "guest: $(result_of "$WORK/vm-n0.log.raw" migrate_ready)"
# The inbound connection: from the peer to the pod's forwarded port, to
# the guest's echo server, a line every 0.1 s, each read back before the
# next, until the test says stop; the lines echoed once the test marked
# the guest's last arrival are counted apart
vm_peer_start inbound python3 -c '
import os, socket, sys, time
addr, port, mark, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
c = None
for _ in range(100):
    try:
        c = socket.create_connection((addr, port), timeout=5)
        break
    except OSError:
        time.sleep(0.2)
if c is None:
    print("inbound: no connection", flush=True)
    sys.exit()
c.settimeout(30)
n = before = bad = 0
how = "stopped"
try:
    while not os.path.exists(stop):
        want = b"%d\n" % n
        c.sendall(want)
        got = b""
        while len(got) < len(want):
            b = c.recv(len(want) - len(got))
            if not b:
                raise OSError("closed by the other end")
            got += b
        bad += got != want
        n += 1
        if not os.path.exists(mark):
            before = n
        time.sleep(0.1)
except OSError as e:
    how = "error: %s" % e
print("inbound: %d lines echoed, %d after the last migration, %d wrong, %s"
      % (n, n - before, bad, how), flush=True)
' 203.0.113.2 "$INBOUND_PORT" "$WORK/inbound.mark" "$WORK/inbound.stop"
at=n0
hops=""
if [ -n "$CANCEL" ]; then
	hop n0 c1 cancel
	hops="cancelled, "
fi
for i in $(seq "$ROUNDS"); do
	hop "$at" "n$i"
	[ "$STATUS" = completed ] && [ -z "${MIG_FAIL:-}" ] && at=n$i
done
[ "$ROUNDS" -eq 1 ] || hops="$hops$ROUNDS migrations, the last "
hops="$hops$SUMMARY"
# The download was still running when the guest arrived where it ends;
# it goes on there a little, then ends
grep -q '^counter: sent' "$WORK/peer-counter.log" &&
	fail "the download ended before the last migration (DOWN_S $DOWN_S)"
touch "$WORK/inbound.mark"
sleep 3
touch "$WORK/counter.stop" "$WORK/inbound.stop"

if [ -n "${MIG_FAIL:-}" ]; then
	# The destination refused the state: its QEMU gives up, and the
	# source's goes on, as libvirt resumes it after a failed migration
	wait "${QRUN[n1]}"
	grep -q 'more than --max-tcp' "$WORK/backend-n1.log" ||
		fail "the destination did not refuse the state:" \
			"$(tail -n 3 "$WORK/backend-n1.log")"
	# QEMU resumes the source by itself when it sees the migration
	# fail; if it completed on its side, libvirt would resume it so
	qmp "$WORK/n0.qmp" cont >/dev/null 2>&1
	qmp "$WORK/n0.qmp" query-status | grep -q '"running": true' ||
		fail "the source QEMU did not resume"
	log "the destination refused the state; the source QEMU resumed" \
		"(migration $STATUS on its side)"
	where=source
else
	where=destination
fi
wait "${QRUN[$at]}"
rc=$?
vmlog=$WORK/vm-$at.log
grep -q '^NETSHIM-RESULT migrate_done' "$vmlog" ||
	fail "the guest did not finish on the $where (run-vm.sh $rc):" \
		"$(tail -n 5 "$WORK/run-$at.out")"
grep 'NETSHIM-RESULT' "$vmlog" | sed 's/^/    /' >&2
if grep -E 'is not a head|[Bb]ad (used|avail)|id [0-9]+ out of range|virtio.*(error|broken)' \
	"$WORK"/vm-*.log; then
	fail "the guest's virtio driver complained across the migration"
fi
lines=$(result_of "$vmlog" down_lines)
ended=$(result_of "$vmlog" transfers)
sent=$(sed -n 's/^counter: sent \([0-9]*\) lines/\1/p' "$WORK/peer-counter.log")
topo_wait_log "$WORK/peer-upload.log" '^upload:'
got=$(grep '^upload:' "$WORK/peer-upload.log")
if [ "$MIG_HELPER" != none ] && [ -z "$NEWPOD" ]; then
	# Both connections went on, to their ends
	if [ "$ended" != "${ended#*still running}" ]; then
		# The sockets 1 s and 30 s after the hop and what the
		# destination counted (window probes, drops), for the log;
		# the guest's side is in its results above (hung_*)
		for f in "$WORK/ss-pod-$at.txt" "$WORK/ss-peer-$at.txt" \
			 "$WORK/ss-pod-late-$at.txt" \
			 "$WORK/ss-peer-late-$at.txt"; do
			echo "--- ${f##*/}"
			grep -A1 -E ':(5310|5311)\b' "$f"
		done >&2
		echo "--- ps-late-$at.txt" >&2
		cat "$WORK/ps-late-$at.txt" >&2
		if [ "${KIND[$at]}" = netshim ]; then
			ln -sf "backend-$at.log" "$WORK/backend.log"
			BACKEND_PID=${BPID[$at]} topo_counters |
				grep -E 'tcp_|drop_|frames_' >&2
		fi
		fail "the transfers hung after the migration: $ended"
	fi
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
	# The inbound one too, echoing after the last migration (3 s of
	# lines at 10 a second, fewer under TCG)
	topo_wait_log "$WORK/peer-inbound.log" '^inbound:' 350
	inb=$(grep '^inbound:' "$WORK/peer-inbound.log")
	case "$inb" in
	"inbound: "*" lines echoed, "[1-9]*" after the last migration, 0 wrong, stopped") ;;
	*)
		# Its sockets 1 s and 30 s after each hop
		for f in "$WORK"/ss-pod-n*.txt "$WORK"/ss-peer-n*.txt; do
			echo "--- ${f##*/}"
			grep -A1 -E ":$INBOUND_PORT\b" "$f"
		done >&2
		fail "the inbound connection did not go on: ${inb:-no result}" ;;
	esac
	kept="$kept; ${inb#inbound: }"
else
	case "$lines" in
	*" 0 wrong, "[01]" short") ;;
	*) fail "the download before the migration came corrupted: $lines" ;;
	esac
	# The upload ends in an error, a reset: whatever the destination
	# knows of the connection, the guest's next segment on it gets one
	case "$ended" in
	"ended after "*"; upload status "[1-9]*"; resets "[1-9]*) ;;
	*) fail "the guest's connections were not reset after the" \
		"migration: $ended" ;;
	esac
	# With the guest's window closed at the hop (MIG_DOWN_STALL), its
	# reader's window update is the segment that gets the download its
	# reset too, even from a destination told of no connection
	down_err=$(result_of "$vmlog" down_err)
	if [ "${MIG_DOWN_STALL:-0}" -gt 0 ]; then
		case "$down_err" in
		*"reset by peer"*) ;;
		*) fail "the download did not end in a reset: '$down_err'" ;;
		esac
	fi
	kept="connections reset ($ended; download ${down_err#* W })"
	kept="$kept; $lines before"
fi
# The datagrams held unread across the migration: not one wrong (a
# receive buffer written during the memory copy and missing from the
# dirty log comes out as it was before), and some held at all
hold=$(result_of "$vmlog" hold)
case "$hold" in
*" datagrams, 0 wrong, "*) ;;
*) fail "datagrams held across the migration: ${hold:-no result}" ;;
esac
[ "${hold%% *}" -ge 5 ] 2>/dev/null ||
	fail "too few datagrams held across the migration: $hold"
kept="$kept; $hold held unread"
# GUEST_ANNOUNCE (bit 21): QEMU asks the guest to announce itself where it
# arrived (gratuitous ARP, unsolicited neighbour advertisements); netshim
# offers it with its own features (passt's lack it)
if [ "$FEATURES" = all ]; then
	f=$(result_of "$WORK/vm-n0.log" nic_features)
	[ "${f:21:1}" = 1 ] ||
		fail "the guest's NIC has no GUEST_ANNOUNCE: features '$f'"
fi
# The lease from where the guest arrived: the other pod's address there
if [ -n "$NEWPOD" ]; then
	[ "$(result_of "$vmlog" dhcp4)" = "ok 198.51.100.66/26" ] ||
		fail "the guest's lease in the new pod: $(result_of "$vmlog" dhcp4)"
fi
# The UDP session's pushes reached the guest where it arrived, and the
# guest sent nothing since its first datagram: its flow went with it, in
# netshim's own stream (MIG_FORMAT=netshim, netshims only), or stayed
# where the guest stayed (MIG_FAIL).  passt's stream carries no UDP flow:
# it ended at the migration, and no push reaches the guest any more.  In
# another pod, with another address, the server pushes to the old one:
# logged only
udp=$(result_of "$vmlog" udp)
sources=$(grep -c '^udp: from' "$WORK/peer-udp.log")
if [ -n "$NEWPOD" ]; then
	:
elif [ -n "${MIG_FAIL:-}" ] || [ "$FORMAT" = netshim ]; then
	case "$udp" in
	*", "[1-9]*" in the last 3 s") ;;
	*) fail "the UDP flow did not go with the guest: $udp" ;;
	esac
else
	case "$udp" in
	*", 0 in the last 3 s") ;;
	*) fail "the UDP flow went on after a migration in passt's stream," \
		"which carries none: $udp" ;;
	esac
fi
kept="$kept; UDP $udp, to $sources guest port(s)"
# The many connections all went on, every line back as written
if [ "$CONNS" -gt 0 ]; then
	res=$(result_of "$vmlog" conns)
	if [ "$MIG_HELPER" != none ] && [ -z "$NEWPOD" ]; then
		case "$res" in
		"$CONNS open, "*" rounds, 0 wrong, 0 lost; "[1-9]*) ;;
		*) fail "the $CONNS connections did not all go on: $res" ;;
		esac
	fi
	kept="$kept; $CONNS connections: $res"
fi
for key in dhcp4 ping4_after tcp_up_after tcp_down_after; do
	result_of "$vmlog" "$key" | grep -q '^ok' ||
		fail "$key failed after the migration: $(result_of "$vmlog" "$key")"
done

# Counters of the back-end the guest ended on
ln -sf "backend-$at.log" "$WORK/backend.log"
BACKEND_PID=${BPID[$at]}
if [ -n "${MIG_FAIL:-}" ]; then
	# The download, the upload, the inbound connection and MIG_CONNS more
	grep -q "migration failed or cancelled: $((3 + CONNS)) TCP connections go on" \
		"$WORK/backend-n0.log" ||
		fail "the source did not take its connections back:" \
			"$(grep migration "$WORK/backend-n0.log" | tail -n 3)"
	helpers_gone n0 n1
elif [ "${KIND[$at]}" = netshim ]; then
	n=$(topo_counter migrations_in)
	[ "${n:-0}" -eq 1 ] || fail "destination: migrations_in is '$n', not 1"
	# A source without a helper in passt's stream tells of no
	# connection (passt's sends none): the guest's next segment on
	# each gets a reset, counted elsewhere
	if [ "$MIG_HELPER" = none ] && [ "$FORMAT" != netshim ]; then
		:
	elif [ "$MIG_HELPER" = none ] || [ -n "$NEWPOD" ]; then
		n=$(topo_counter tcp_migrated_reset)
		[ "${n:-0}" -ge 1 ] ||
			fail "destination: no TCP connection reset towards" \
				"the guest"
	else
		# The upload may have ended before the last of several hops
		n=$(topo_counter tcp_migrated)
		[ "${n:-0}" -ge $((ROUNDS > 1 ? 1 : 2)) ] ||
			fail "destination: $n TCP connections rebuilt"
	fi
fi
if [ -n "${MIG_FAIL:-}" ]; then
	log "ok: the destination refused the state (migration $STATUS on the" \
		"source's side), the source resumed; $kept; lease, ping and" \
		"new TCP both ways from the source"
else
	log "ok: migrated ($hops) under two transfers; $kept; lease, ping" \
		"and new TCP both ways from the destination"
fi
