#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck source-path=SCRIPTDIR
#
# bench.sh - iperf3 throughput of netshim, passt and QEMU's libslirp side by
# side, on one topology (tests/lib/topo.sh), in one run. `make bench`.
#
# Cases, each TCP guest->peer (iperf3 -c) and peer->guest (iperf3 -c -R):
#   kernel            the pod itself to the peer over the veth: the ceiling
#   netshim/passt     relay guest (a tap in a namespace), MTU 65520 and 1500
#   netshim/pasta     namespace mode ("-- COMMAND"), MTU 65520: to the peer,
#                     and local flows (-T) to the pod's loopback, beside
#                     the pod's own loopback; and UDP local flows (-U,
#                     iperf3 -u -b 0: what reaches the server), beside
#                     the pod's own loopback
#   netshim/passt     vhost-user relay guest (the same tap joined by
#                     tests/vu_relay, the tests' vhost-user front-end), MTU
#                     65520 and 1500; passt's is a 2025 build (PASST_VU)
#   netshim/passt     a real Linux guest under QEMU on -netdev stream, and
#                     on -netdev vhost-user
#   libslirp          the same guest on QEMU's -netdev user, run in the pod
#   local flows       then tests/bench/local.sh (not with BENCH_QUICK):
#                     kernel loopback, pasta, netshim splice, sockmap and
#                     auto, -P 1 and -P 4, request/response latency
# For the relay guests at MTU 65520 (and the kernel path) also: the
# backend's CPU time per GiB moved, its peak RSS, and TCP connections per
# second (short connect/send/recv/close loops, tests/bench/connrate.py).
# For the kernel path, the relay guests (the stream back-end) and
# namespace mode to the peer (the tap): request/response latency and
# transactions per second, 1 B and 1 KiB each way (tests/bench/rr.c).
# Then every port forwarded, -t and -u, netshim (one socket per port, and
# eBPF sk_lookup) beside passt (PASST): descriptors, memory cgroup, RSS,
# start-up time, with a guest attached (tests/bench/fwdall.sh).  Not with
# BENCH_QUICK: memory with 1000 and 10 000 connections (memory.sh), live
# migration beside passt (migrate.sh), and the cost of a frame without
# offloads through DPDK's testpmd beside passt (vu_testpmd.sh, into
# DIR/testpmd.txt), and io_uring's multishot receives beside epoll and
# recv() on the stream back-end's socket, the mechanism alone
# (recv_uring.c, into DIR/recv_uring.txt).  And the checksum's speed
# beside the scalar sum it replaced (csum.c, into DIR/csum.txt).
#
# Environment:
#   BENCH_TIME=SEC    seconds per iperf3 run (default 10)
#   BENCH_RUNS=N      runs per case and direction (default 3)
#   BENCH_QUICK=1     CI mode: 1 s, 1 run, VM cases only where KVM works
#   BENCH_CONNS=N     connections of the connection-rate loop (default 2000)
#   BENCH_OUT=DIR     results directory (default results/bench-TIMESTAMP)
#   BENCH_ONLY="GROUP..."  only these groups of cases, for side-by-side
#                     repeats of a few rows: kernel, relay, vu, ns, local,
#                     udp, vm (default: all; the local.sh detail and
#                     fwdall.sh run only with all)
#   BENCH_PREV=PATH   a previous netshim build, put beside this one in the
#                     VM and testpmd rows ("prev")
#   VM_ACCEL=kvm|tcg  skip the KVM probe
#   PASST=PATH        passt of the other rows (default: passt in PATH);
#                     fwdall.sh's compare with passt 2026's
#   FWD_PORTS="SPEC..." fwdall.sh's -t/-u specs (default "2000-5999 all")
#   PASST_VU=PATH     passt with --vhost-user for its vhost-user rows
#                     (default: build/passt-vu/passt, built by
#                     passt-vu.sh from trixie's source if missing, but
#                     not with BENCH_QUICK)
#   PASST_VU2=PATH    a second passt with --vhost-user (passt 2026),
#                     beside the first in the testpmd rows ("passt2")
#   BENCH_VU_FEATURES="none all"  netshim's vhost-user relay rows once per
#                     word, each a tests/vu_relay --features list (offloads
#                     asked of the back-end; default "none all", "all" with
#                     BENCH_QUICK)
#
# Writes DIR/results.json, DIR/throughput.png and DIR/raw/ (every iperf3
# report and VM console log), prints the table. Exit status 1 only when a
# transfer failed or moved nothing, never because something was slow.

set -u
BENCH_DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=../lib/topo.sh
. "$BENCH_DIR/../lib/topo.sh"
# shellcheck source=../vm/peer.sh
. "$BENCH_DIR/../vm/peer.sh"
# shellcheck source=lib.sh
. "$BENCH_DIR/lib.sh"

if [ -n "${BENCH_QUICK:-}" ]; then
	BENCH_TIME=${BENCH_TIME:-1}
	BENCH_RUNS=${BENCH_RUNS:-1}
fi
BENCH_TIME=${BENCH_TIME:-10}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_CONNS=${BENCH_CONNS:-2000}
BENCH_PARALLEL=8
CONN_PORT=5300
RR_PORT=5310
SERVER=203.0.113.1
BIG_MTU=65520
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${BENCH_OUT:-$REPO/results/bench-$STAMP}
RAW=$OUT/raw
# Offloads on are what QEMU's virtio-net negotiates by default; the full
# run shows them off too
if [ -n "${BENCH_QUICK:-}" ]; then
	BENCH_VU_FEATURES=${BENCH_VU_FEATURES:-all}
fi
BENCH_VU_FEATURES=${BENCH_VU_FEATURES:-none all}
PASST_VU=${PASST_VU:-$REPO/build/passt-vu/passt}
BENCH_ONLY=${BENCH_ONLY:-}

# want() - tell if a group of cases is to run (BENCH_ONLY)
# $1: group
want() {
	[ -z "$BENCH_ONLY" ] || [[ " $BENCH_ONLY " == *" $1 "* ]]
}

# bench_info() - record the machine and the settings of this run
# $1: accelerator of the VM cases
bench_info() {
	{
		echo "date=$(date -Iseconds)"
		echo "host_cores=$(nproc)"
		echo "host_cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo |
			head -n 1)"
		echo "host_kernel=$(uname -r)"
		echo "time_s=$BENCH_TIME"
		echo "runs=$BENCH_RUNS"
		echo "quick=${BENCH_QUICK:-0}"
		echo "vm_accel=$1"
		echo "netshim=$("$NETSHIM" --version 2>&1 | head -n 1)"
		echo "passt=$(dpkg-query -W -f='${Version}' passt 2>/dev/null)"
		echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
		echo "iperf3=$(iperf3 --version | head -n 1)"
		echo "conns=$BENCH_CONNS"
		echo "conn_parallel=$BENCH_PARALLEL"
		# Other work on the machine skews every figure: keep the load
		echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$RAW/info"
}

# case_begin() - start a case: its raw directory, meta file and list entry
# $1: case id (a directory name)
# $@: key=value lines for the meta file (label=... first)
case_begin() {
	CASE=$1
	shift
	mkdir -p "$RAW/$CASE"
	printf '%s\n' "$@" >"$RAW/$CASE/meta"
	echo "$CASE" >>"$RAW/cases"
	log "case $CASE: ${1#label=}"
}

# iperf_once() - one iperf3 client run, its report kept as JSON
# $1: namespace the client runs in
# $2: up or down
# $3: run number
# $4: pid whose CPU time is charged to the transfer (empty: none)
iperf_once() {
	local ns=$1 dir=$2 n=$3 pid=$4 base rev=() before after

	base=$RAW/$CASE/$dir-$n
	[ "$dir" = down ] && rev=(-R)
	# UDP: as fast as the sender can, the rate is what the server got
	[ -n "${IPERF_UDP:-}" ] && rev+=(-u -b 0)
	[ -n "$pid" ] && before=$(ticks "$pid" 2>/dev/null)
	ip netns exec "$ns" timeout -k 5 $((BENCH_TIME + 30)) \
		iperf3 -c "$SERVER" -t "$BENCH_TIME" --connect-timeout 5000 \
		-J "${rev[@]}" >"$base.json" 2>"$base.err" ||
		log "  $dir run $n: iperf3 failed (status $?)"
	if [ -n "$pid" ]; then
		after=$(ticks "$pid" 2>/dev/null)
		[ -n "$before" ] && [ -n "$after" ] &&
			echo "$before $after" >"$base.cpu"
	fi
	# iperf3 -s takes the next test only once it has closed this one
	sleep 0.3
}

# iperf_runs() - every run of both directions of the current case
# $1: namespace the client runs in
# $2: pid of the backend (empty for the kernel case)
iperf_runs() {
	local n

	for n in $(seq "$BENCH_RUNS"); do
		iperf_once "$1" up "$n" "$2"
		iperf_once "$1" down "$n" "$2"
	done
}

# connrate() - TCP connections per second from a namespace to the peer
# $1: namespace the client runs in
connrate() {
	log "  $BENCH_CONNS connections, $BENCH_PARALLEL at a time"
	ip netns exec "$1" timeout -k 5 90 python3 "$BENCH_DIR/connrate.py" \
		client "$SERVER" "$CONN_PORT" -n "$BENCH_CONNS" \
		-j "$BENCH_PARALLEL" --limit 60 >"$RAW/$CASE/connrate.json" ||
		log "  connection loop failed"
}

# rr() - request/response from a namespace to the peer (tests/bench/rr.c):
# one transaction at a time, 1 B and 1 KiB each way, 20000 of them or
# BENCH_TIME seconds (at least 4), into rr-SIZE.json
# $1: namespace the client runs in
rr() {
	local size secs=$((BENCH_TIME < 4 ? 4 : BENCH_TIME))

	[ -n "${BENCH_QUICK:-}" ] && secs=1
	for size in 1 1024; do
		ip netns exec "$1" timeout -k 5 $((secs + 30)) "$RR" client \
			"$SERVER" "$RR_PORT" "$size" 20000 "$secs" 0 \
			>"$RAW/$CASE/rr-$size.json" 2>"$RAW/$CASE/rr-$size.err" ||
			log "  request/response $size B failed"
	done
}

# peak_rss() - record the backend's peak resident set size (VmHWM, kB)
# $1: pid
peak_rss() {
	sed -n 's/^VmHWM:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null |
		awk '{ print $1 }' >"$RAW/$CASE/rss"
}

# backend_pid() - the pid of the running backend, from its pid file
#
# Both daemons write it once ready; the pid $! of "ip netns exec" is the
# same process, kept as the fallback.
backend_pid() {
	local pid

	pid=$(cat "$WORK/backend.pid" 2>/dev/null)
	echo "${pid:-$BACKEND_PID}"
}

# stop_pid() - stop one process of this run and forget it
# $1: pid
stop_pid() {
	local _

	kill -TERM "$1" 2>/dev/null
	for _ in $(seq 30); do
		topo_alive "$1" || break
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	sed -i "/^$1\$/d" "$PIDS"
}

# backend_start() - start a backend in the pod for the current case
# $1: netshim or passt
# $@: extra arguments of the backend
backend_start() {
	BACKEND=$1
	shift
	rm -f "$WORK/backend.sock" "$WORK/backend.pid"
	[ "$BACKEND" = passt ] && set -- -P "$WORK/backend.pid" "$@"
	topo_backend "$@"
	BPID=$(backend_pid)
}

# backend_stop() - stop the backend, and the relay guest if there is one
backend_stop() {
	local pid

	if [ -n "${RELAY_PID:-}" ]; then
		stop_pid "$RELAY_PID"
		RELAY_PID=
		ip netns del "$NS_GUEST" 2>/dev/null
	fi
	# Everything left in the pod is the backend's (and its children)
	for pid in "$BACKEND_PID" $(ip netns pids "$NS_POD" 2>/dev/null); do
		stop_pid "$pid"
	done
	rm -f "$WORK/backend.sock" "$WORK/backend.pid" "$WORK/udhcpc.env"
}

# case_kernel() - the ceiling: iperf3 from the pod itself
case_kernel() {
	case_begin kernel "label=kernel (pod veth)" backend=kernel guest=pod \
		mtu=1500
	iperf_runs "$NS_POD" ""
	connrate "$NS_POD"
	rr "$NS_POD"
}

# case_kernel_lo() - the ceiling of local flows: the pod's own loopback
case_kernel_lo() {
	case_begin kernel-lo "label=kernel (pod loopback)" backend=kernel \
		guest=pod mtu=65536
	SERVER=127.0.0.1 iperf_runs "$NS_POD" ""
	SERVER=127.0.0.1 connrate "$NS_POD"
}

# case_kernel_lo_udp() - the ceiling of UDP local flows
case_kernel_lo_udp() {
	case_begin kernel-lo-udp "label=kernel (pod loopback) UDP" \
		backend=kernel guest=pod mtu=65536
	SERVER=127.0.0.1 IPERF_UDP=1 iperf_runs "$NS_POD" ""
}

# case_relay() - a backend with the relay guest
# $1: netshim or passt
# $2: MTU of the guest
case_relay() {
	local b=$1 mtu=$2 args=()

	case_begin "$b-relay-$mtu" "label=$b relay MTU $mtu" backend="$b" \
		guest=relay mtu="$mtu"
	# Each at its default (65520 for both) unless told otherwise
	[ "$mtu" != "$BIG_MTU" ] && args=(-m "$mtu")
	backend_start "$b" "${args[@]}"
	topo_relay_guest "$mtu"
	guest_dhcp4
	iperf_runs "$NS_GUEST" "$BPID"
	[ "$mtu" = "$BIG_MTU" ] && connrate "$NS_GUEST"
	rr "$NS_GUEST"
	peak_rss "$BPID"
	backend_stop
}

# case_vu_relay() - a backend in vhost-user mode with the vhost-user relay
# guest
# $1: netshim or passt
# $2: MTU of the guest
# $3: offloads tests/vu_relay asks for (a --features list)
#
# The same tap guest as case_relay, joined by tests/vu_relay instead of
# tests/relay: the front-end is the tests' own, so the back-end's ring
# handling, not a VM, bounds the rate.
case_vu_relay() {
	local b=$1 mtu=$2 feat=$3 id label

	id="$b-vu-relay-$mtu"
	label="$b vu relay MTU $mtu"
	if [ "$feat" != none ]; then
		id="$id-${feat//,/+}"
		label="$label, offloads $feat"
	fi
	case_begin "$id" "label=$label" backend="$b" guest=vu-relay \
		mtu="$mtu" features="$feat"
	if [ "$b" = passt ] && [ -n "$PASST_VU_SKIP" ]; then
		echo "skip=$PASST_VU_SKIP" >>"$RAW/$CASE/meta"
		return
	fi
	# Offloads asked of netshim: offered with --virtio-features all
	if [ "$b" = netshim ] && [ "$feat" != none ]; then
		backend_start "$b" --vhost-user -m "$mtu" \
			--virtio-features all
	else
		PASST=$PASST_VU backend_start "$b" --vhost-user -m "$mtu"
	fi
	VU_RELAY_FEATURES=$feat topo_vu_relay_guest "$mtu"
	guest_dhcp4
	iperf_runs "$NS_GUEST" "$BPID"
	peak_rss "$BPID"
	backend_stop
	# What the front-end negotiated and moved, printed as it stopped
	cp "$WORK/relay.log" "$RAW/$CASE/relay.log" 2>/dev/null
}

# passt_vu() - find or build passt with --vhost-user, else say why not
#
# Sets PASST_VU_SKIP to the reason when there is none: its rows are then
# listed as skipped, never silently dropped.
passt_vu() {
	PASST_VU_SKIP=
	[ -x "$PASST_VU" ] && return
	if [ -n "${BENCH_QUICK:-}" ]; then
		# A build takes minutes, more than CI's short run may spend
		PASST_VU_SKIP="quick mode builds no passt (make bench does: tests/bench/passt-vu.sh)"
		log "note: $PASST_VU_SKIP"
		return
	fi
	if [ "$PASST_VU" = "$REPO/build/passt-vu/passt" ] &&
	   "$BENCH_DIR/passt-vu.sh" "$REPO/build/passt-vu" \
		2>"$RAW/passt-vu.log"; then
		return
	fi
	PASST_VU_SKIP="no passt with --vhost-user: $(tail -n 1 \
		"$RAW/passt-vu.log" 2>/dev/null)"
	log "note: $PASST_VU_SKIP"
}

# case_ns() - a backend serving a namespace it makes for a command
# $1: netshim or pasta
# $2: "local" for local flows: the namespace's loopback forwarded (-T) to
#     servers on the pod's loopback; "udp" for UDP local flows (-U, and -T
#     for iperf3's control connection); else traffic to the peer
#
# "netshim -- CMD" and "pasta -- CMD" side by side, MTU 65520 (pasta's
# default), the "guest" being the namespace; pasta runs unprivileged, as
# it is meant to (as root it cannot map its user namespace here).
case_ns() {
	local b=$1 pid child _ cmd server=$SERVER id=$1-ns label="$1 netns"
	local udp=

	if [ "${2:-}" = local ]; then
		server=127.0.0.1
		id=$b-ns-local
		label="$b netns local"
	elif [ "${2:-}" = udp ]; then
		server=127.0.0.1
		udp=1
		id=$b-ns-local-udp
		label="$b netns local UDP"
	fi
	case_begin "$id" "label=$label MTU $BIG_MTU" \
		backend="$b" guest=netns mtu="$BIG_MTU"
	chmod 1777 "$WORK"
	if [ "$b" = netshim ]; then
		cmd=("$NETSHIM" -f -q --config-net -D "$SERVER")
	else
		cmd=(setpriv --reuid=65534 --regid=65534 --clear-groups
			pasta -f -q --config-net -I pod0 -D "$SERVER"
			--no-map-gw)
	fi
	[ "$server" = 127.0.0.1 ] && cmd+=(-T "5201,$CONN_PORT")
	[ -n "$udp" ] && cmd+=(-U 5201)
	ip netns exec "$NS_POD" "${cmd[@]}" -- sleep 3600 \
		>"$WORK/backend.log" 2>&1 &
	pid=$!
	topo_pid_add "$pid"
	child=
	for _ in $(seq 50); do
		for child in $(cat "/proc/$pid/task/$pid/children" \
			2>/dev/null); do
			[ "$(readlink "/proc/$child/exe")" = \
			  "$(command -v sleep)" ] && break 2
		done
		child=
		sleep 0.1
	done
	if [ -z "$child" ]; then
		log "  $b did not start its command: $(tail -3 "$WORK/backend.log")"
		echo "skip=did not start" >>"$RAW/$CASE/meta"
		stop_pid "$pid"
		return
	fi
	touch "/run/netns/$NS_GUEST" &&
		mount --bind "/proc/$child/ns/net" "/run/netns/$NS_GUEST" ||
		fail "cannot name the namespace of $b's command"
	SERVER=$server IPERF_UDP=$udp iperf_runs "$NS_GUEST" "$pid"
	[ -n "$udp" ] || SERVER=$server connrate "$NS_GUEST"
	[ "$server" = 127.0.0.1 ] || rr "$NS_GUEST"
	peak_rss "$pid"
	stop_pid "$child"
	stop_pid "$pid"
	ip netns del "$NS_GUEST" 2>/dev/null
}

# vm_extract() - cut the iperf3 reports of one VM run out of its console
# $1: console log
# $2: run number
vm_extract() {
	local dir

	for dir in up down; do
		awk -v d="$dir" '$0 == "NETSHIM-JSON-BEGIN " d { f = 1; next }
			$0 == "NETSHIM-JSON-END " d { f = 0 } f' "$1" \
			>"$RAW/$CASE/$dir-$2.json"
		grep "^NETSHIM-TCP-SNMP $dir " "$1" | tr -d '\r' \
			>"$RAW/$CASE/$dir-$2.snmp"
	done
}

# vm_boot() - boot the guest once for the bench scenario
# $1: run number
# $2...: how to run run-vm.sh (a namespace prefix, or nothing)
vm_boot() {
	local n=$1 log

	shift
	log=$RAW/$CASE/vm-$n.log
	VM_LOG=$log VM_QUIET=1 VM_ACCEL=$ACCEL \
		VM_TIMEOUT=$((2 * BENCH_TIME + VM_SLACK)) \
		"$@" "$BENCH_DIR/../vm/run-vm.sh" bench "$WORK/backend.sock" \
		"netshim.server=$SERVER" "netshim.iperf_time=$BENCH_TIME" \
		>>"$RAW/$CASE/run-vm.log" 2>&1 ||
		log "  VM run $n failed: $(tail -n 1 "$RAW/$CASE/run-vm.log")"
	vm_extract "$log" "$n"
}

# case_vm() - a real Linux guest under QEMU
# $1: netshim, prev (BENCH_PREV, run as netshim), passt or slirp
# $2: vhost-user for -netdev vhost-user (else -netdev stream, or user)
# $3: all for netshim's offloads over vhost-user (--virtio-features all;
#     its default offers what passt does)
case_vm() {
	local b=$1 vu=${2:-} feat=${3:-} n mtu=$BIG_MTU id=$1-vm label
	local NETSHIM=$NETSHIM

	[ "$b" = slirp ] && mtu=1500
	label="${b/slirp/libslirp} VM MTU $mtu"
	if [ "$b" = prev ]; then
		NETSHIM=$BENCH_PREV
		b=netshim
	fi
	if [ -n "$vu" ]; then
		id=$1-vm-vu
		label="$1 VM vu MTU $mtu"
	fi
	if [ -n "$feat" ]; then
		id=$id-$feat
		label="$label, --virtio-features $feat"
	fi
	case_begin "$id" "label=$label" \
		backend="$b" guest=vm mtu="$mtu" accel="$ACCEL" netdev="${vu:-stream}"
	if [ -n "$VM_SKIP" ]; then
		echo "skip=$VM_SKIP" >>"$RAW/$CASE/meta"
		return
	fi
	if [ -n "$vu" ]; then
		if [ "$b" = passt ] && [ -n "$PASST_VU_SKIP" ]; then
			echo "skip=$PASST_VU_SKIP" >>"$RAW/$CASE/meta"
			return
		fi
		PASST=$PASST_VU backend_start "$b" --vhost-user -m "$mtu" \
			${feat:+--virtio-features "$feat"}
		for n in $(seq "$BENCH_RUNS"); do
			vm_boot "$n" env NETDEV=vhost-user
		done
		peak_rss "$BPID"
		backend_stop
		return
	fi
	if [ "$b" = slirp ]; then
		# slirp's sockets must be the pod's: QEMU runs in the pod
		for n in $(seq "$BENCH_RUNS"); do
			vm_boot "$n" env NETDEV=user ip netns exec "$NS_POD"
		done
		return
	fi
	# Both at their defaults (65520 for both)
	backend_start "$b"
	for n in $(seq "$BENCH_RUNS"); do
		vm_boot "$n"
	done
	peak_rss "$BPID"
	backend_stop
}

# vm_accel() - pick KVM or TCG for the VM cases, as run-vm.sh would
#
# run-vm.sh caches the verdict of its boot probe in build/vm/accel (first
# line; the second names kernel, QEMU and host): reuse it, else probe the
# same way (boot to /init under KVM within 20 s) and leave the same cache.
vm_accel() {
	local vm=$REPO/build/vm key kernel

	if [ -n "${VM_ACCEL:-}" ]; then
		echo "$VM_ACCEL"
		return
	fi
	"$BENCH_DIR/../vm/mkinitramfs.sh" "$vm" >&2 || fail "mkinitramfs"
	kernel=$(cat "$vm/kernel")
	key="$(uname -r) $(qemu-system-x86_64 --version | head -n 1) $kernel"
	if [ -f "$vm/accel" ] && [ "$(sed 1d "$vm/accel")" = "$key" ]; then
		head -n 1 "$vm/accel"
		return
	fi
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] &&
	   timeout -k 2 20 qemu-system-x86_64 -accel kvm -m 256 -smp 1 \
		-nographic -nodefaults -no-reboot -serial stdio \
		-kernel "$kernel" -initrd "$vm/initramfs.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1 netshim.run=probe" \
		</dev/null 2>/dev/null | grep -q NETSHIM-DONE; then
		printf 'kvm\n%s\n' "$key" >"$vm/accel"
	else
		printf 'tcg\n%s\n' "$key" >"$vm/accel"
	fi
	head -n 1 "$vm/accel"
}

# plot() - draw throughput.png from throughput.dat
plot() {
	local ttl sub

	if ! command -v gnuplot >/dev/null; then
		log "no gnuplot (contrib/install-deps.sh installs gnuplot-nox): no chart"
		return
	fi
	ttl="netshim, passt, QEMU libslirp: iperf3 TCP throughput, $(date +%F)"
	sub="$(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo |
		head -n 1)), Linux $(uname -r); $BENCH_TIME s x $BENCH_RUNS runs,"
	sub="$sub median and min-max; VM guests under $ACCEL"
	[ -n "$VM_SKIP" ] && sub="$sub (skipped in quick mode)"
	gnuplot -e "data='$OUT/throughput.dat'; out='$OUT/throughput.png'" \
		-e "ttl='$ttl'; sub='$sub'" "$BENCH_DIR/throughput.gp" ||
		log "gnuplot failed: no chart"
}

START=$(date +%s)
mkdir -p "$RAW" || fail "cannot create $RAW"
: >"$RAW/cases"
[ -x "$NETSHIM" ] || fail "$NETSHIM not built (make)"
ACCEL=$(vm_accel)
VM_SKIP=
VM_SLACK=120
if [ "$ACCEL" != kvm ]; then
	# A TCG boot alone takes tens of seconds on a small machine
	VM_SLACK=300
	if [ -n "${BENCH_QUICK:-}" ]; then
		VM_SKIP="KVM cannot run guests here; TCG is too slow for quick mode"
		log "note: $VM_SKIP: VM cases skipped"
	fi
fi
bench_info "$ACCEL"

topo_init
topo_peer_pod
vm_peer_iperf
vm_peer_start connrate python3 "$BENCH_DIR/connrate.py" server "$CONN_PORT"
vm_peer_wait tcp "$CONN_PORT"
RR=$WORK/rr
cc -O2 -Wall -Wextra -o "$RR" "$BENCH_DIR/rr.c" || fail "cannot build rr"
vm_peer_start rr "$RR" server "$SERVER" "$RR_PORT"
vm_peer_wait tcp "$RR_PORT"

if want kernel; then
	case_kernel
fi
if want relay; then
	case_relay netshim "$BIG_MTU"
	case_relay passt "$BIG_MTU"
	case_relay netshim 1500
	case_relay passt 1500
fi
if want vu; then
	passt_vu
	for mtu in "$BIG_MTU" 1500; do
		for feat in $BENCH_VU_FEATURES; do
			case_vu_relay netshim "$mtu" "$feat"
		done
		# passt offers no offloads: one row per MTU
		case_vu_relay passt "$mtu" none
	done
fi
if want ns; then
	case_ns netshim
	case_ns pasta
fi
# Local flows: servers on the pod's loopback, reached from the namespace's
ip netns exec "$NS_POD" iperf3 -s -B 127.0.0.1 >"$WORK/pod-iperf3.log" 2>&1 &
topo_pid_add $!
ip netns exec "$NS_POD" python3 "$BENCH_DIR/connrate.py" server "$CONN_PORT" \
	>"$WORK/pod-connrate.log" 2>&1 &
topo_pid_add $!
if want local; then
	case_kernel_lo
	case_ns netshim local
	case_ns pasta local
fi
if want udp; then
	case_kernel_lo_udp
	case_ns netshim udp
	case_ns pasta udp
fi
if want vm; then
	want vu || passt_vu
	case_vm netshim
	[ -z "${BENCH_PREV:-}" ] || case_vm prev
	case_vm passt
	case_vm netshim vhost-user
	[ -n "${BENCH_QUICK:-}" ] || case_vm netshim vhost-user all
	[ -z "${BENCH_PREV:-}" ] || case_vm prev vhost-user
	case_vm passt vhost-user
	case_vm slirp
fi
# Local flows in detail: splice against the eBPF sockmap, -P 1 and -P 4,
# request/response latency (not in quick mode: minutes, not seconds)
[ -n "${BENCH_QUICK:-}" ] || [ -n "$BENCH_ONLY" ] ||
	BENCH_OUT=$OUT/local BENCH_TIME=5 "$BENCH_DIR/local.sh" ||
	log "local-flow bench failed"

{
	echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "elapsed_s=$(($(date +%s) - START))"
} >>"$RAW/info"
python3 "$BENCH_DIR/report.py" "$OUT"
rc=$?
# -t all -u all: netshim beside passt, descriptors and memory cgroup
# (fwdall.sh, its own topology)
[ -n "$BENCH_ONLY" ] || NETSHIM=$NETSHIM "$BENCH_DIR/fwdall.sh" "$OUT" || rc=1
# Memory and descriptors at start, with a guest, at 1000 and 10 000
# connections, beside passt (memory.sh, its own topology; minutes)
[ -n "${BENCH_QUICK:-}" ] || [ -n "$BENCH_ONLY" ] ||
	NETSHIM=$NETSHIM "$BENCH_DIR/memory.sh" "$OUT" || rc=1
# Live migration with 1, 100 and 1000 TCP connections in each direction
# between passt and netshim, total time and
# downtime beside passt's (migrate.sh: QEMU guests, minutes).  passt's
# rows need a passt with --vhost-user and its passt-repair
if [ -z "${BENCH_QUICK:-}" ] && [ -z "$BENCH_ONLY" ]; then
	want vu || passt_vu
	mig_passt=
	[ -n "${PASST_VU_SKIP:-}" ] || mig_passt=$PASST_VU
	PASST=$mig_passt "$BENCH_DIR/migrate.sh" "$OUT" || rc=1
fi
# Upgrades in place: the guest's pause, the longest gap in a stream it
# receives, beside the live migration's just measured (upgrade.sh: relay
# guests and namespace mode; it reads migrate.json from the same OUT)
[ -n "${BENCH_QUICK:-}" ] || [ -n "$BENCH_ONLY" ] ||
	NETSHIM=$NETSHIM "$BENCH_DIR/upgrade.sh" "$OUT" || rc=1
# The cost of a frame without offloads at MTU 1500, DPDK's testpmd as the
# vhost-user front-end (vu_testpmd.sh): netshim beside passt, and beside
# a previous build of it with BENCH_PREV=PATH
if [ -z "${BENCH_QUICK:-}" ] && [ -z "$BENCH_ONLY" ]; then
	want vu || passt_vu
	tp="netshim"
	[ -z "${BENCH_PREV:-}" ] || tp="$tp prev=$BENCH_PREV"
	[ -n "${PASST_VU_SKIP:-}" ] || tp="$tp passt"
	[ -z "${PASST_VU2:-}" ] || tp="$tp passt2=$PASST_VU2"
	if NETSHIM=$NETSHIM PASST=$PASST_VU BACKENDS=$tp ROUNDS=2 \
		"$BENCH_DIR/vu_testpmd.sh" >"$OUT/testpmd.txt" 2>&1; then
		grep -v '^\[' "$OUT/testpmd.txt"
	else
		log "testpmd bench failed: $(tail -n 2 "$OUT/testpmd.txt")"
	fi
	# guest->peer again with the guest held to 1 Gbit/s: unbounded,
	# passt drops what a short write left and crawls on the guest's
	# retransmissions here (tests/bench/README.md); at one rate both
	# back-ends move the same bytes, and CPU per GiB compares
	if IPERF_ARGS="-b 1G" DIRS=up RR_SIZES= CONNS=0 NETSHIM=$NETSHIM \
		PASST=$PASST_VU BACKENDS=$tp ROUNDS=3 \
		"$BENCH_DIR/vu_testpmd.sh" >"$OUT/testpmd-1g.txt" 2>&1; then
		echo "guest->peer at 1 Gbit/s (iperf3 -b 1G):"
		grep -v '^\[' "$OUT/testpmd-1g.txt"
	else
		log "testpmd bench at 1 Gbit/s failed: $(tail -n 2 \
			"$OUT/testpmd-1g.txt")"
	fi
fi
# io_uring's multishot receives into provided buffers against epoll and
# one recv() per wake-up (link/stream.c's way), on frames written as QEMU's
# -netdev stream writes them, MTU 1500 and 65520; rounds alternate
if [ -z "${BENCH_QUICK:-}" ] && [ -z "$BENCH_ONLY" ]; then
	if cc -O2 -Wall -Wextra -o "$WORK/recv_uring" \
		"$BENCH_DIR/recv_uring.c" -luring; then
		for _ in 1 2 3; do
			for args in "epoll 3 1514" "uring 3 1514 64 64" \
				"uring 3 1514 16 16" "epoll 3 65534" \
				"uring 3 65534 1024 16" "uring 3 65534 128 4"; do
				# shellcheck disable=SC2086
				timeout -k 5 30 "$WORK/recv_uring" $args ||
					echo "recv_uring $args: failed"
			done
		done >"$OUT/recv_uring.txt"
		cat "$OUT/recv_uring.txt"
	else
		log "recv_uring not built"
	fi
fi
# The one's complement sum, which a guest without checksum offload pays
# on every frame: netshim's beside the scalar sum it replaced (csum.c)
if cc -O2 -Wall -Wextra -I"$REPO" -D_GNU_SOURCE -o "$WORK/csum" \
	"$BENCH_DIR/csum.c" "$REPO/netshim/checksum.c" &&
	"$WORK/csum" >"$OUT/csum.txt"; then
	cat "$OUT/csum.txt"
else
	log "checksum bench failed"
	rc=1
fi
plot
log "results: $OUT/results.json, chart: $OUT/throughput.png"
log "total $(($(date +%s) - START)) s"
exit $rc
