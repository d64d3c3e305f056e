#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every forwarded TCP port through one socket per family (eBPF sk_lookup,
# bpf/sk_lookup.c), with a relay guest answering on many ports and a pod
# process (tests/tcp/whoami.py: each reply names who took the connection):
# 1. -t all -t ~5000-5009 -t 40000-40009:6000-6009 --bpf require:
#    - ports sampled across 1-65535 reach the guest, from the peer over
#      IPv4 and IPv6 and from the pod to 127.0.0.1; 40000-40009 reach the
#      guest's 6000-6009;
#    - port 3000, where a pod process listened before netshim started,
#      stays the pod's; excluded 5000-5009 are refused (the guest listens
#      there too: it must not get them), and so is 45678, an ephemeral
#      port of the pod, which "all" leaves out;
#    - a pod process that starts listening on a forwarded port gets its
#      connections within 2 s, and the guest gets them back within 2 s of
#      its exit;
#    - netshim holds fewer than 100 descriptors; its sk_lookup counter
#      counts the connections.
# 2. --bpf off, a range (-t 1000-2999 ...): one socket per port for both
#    families, as passt's, the same reachability of that range over IPv4
#    and IPv6, 2000 descriptors and a few; the same without CAP_BPF
#    (--bpf auto), after a warning naming it.
# 3. -t auto for a VM: every port no pod process listens on reaches the
#    guest, ephemeral ones too; with --bpf off or without CAP_BPF it is refused, saying why.
# Skipped, saying so, where the kernel cannot load the program.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"

[ "$BACKEND" = netshim ] || skip "netshim only"

WHOAMI=$REPO/tests/tcp/whoami.py
SAMPLE="1 22 80 443 1023 1024 3001 8080 12345 20000 32767 61000 63333
	65535"
LATE=63333
# In the pod's ephemeral range (32768-60999): left out of "all"
EPH=45678
# Prefix of netshim's command: setpriv to start it without CAP_BPF
PRIV=()
# shellcheck disable=SC2054 # one argument: setpriv's list of capabilities
NOBPF=(setpriv --bounding-set=-bpf,-sys_admin)

# start_backend() - start netshim in the pod, wait for its socket
# $@: netshim arguments
# Return: 1 if netshim exited (its log is $WORK/backend.log)
start_backend() {
	local _

	topo_backend_cmd "$@"
	chmod 1777 "$WORK"
	rm -f "$WORK/backend.sock"
	log "backend: ${BACKEND_CMD[*]}"
	ip netns exec "$NS_POD" "${PRIV[@]}" "${BACKEND_CMD[@]}" \
		>"$WORK/backend.log" 2>&1 &
	BACKEND_PID=$!
	topo_pid_add "$BACKEND_PID"
	for _ in $(seq 100); do
		[ -S "$WORK/backend.sock" ] && return 0
		kill -0 "$BACKEND_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	fail "netshim socket not there after 10 s"
}

# stop_backend() - stop netshim and the relay (tap0 goes with it)
stop_backend() {
	kill "$BACKEND_PID" "$RELAY_PID" 2>/dev/null
	wait "$BACKEND_PID" "$RELAY_PID" 2>/dev/null
}

# guest_up() - join the guest to the new netshim, address it
guest_up() {
	ip netns exec "$NS_GUEST" "$REPO/tests/relay" tap0 \
		"$WORK/backend.sock" >"$WORK/relay.log" 2>&1 &
	RELAY_PID=$!
	topo_pid_add "$RELAY_PID"
	topo_relay_wait "$WORK/relay.log"
	guest_dhcp4
	guest_slaac
}

# who() - who answers on ports: one "PORT NAME GOTPORT" line each
# $1: client namespace, $2: address, $@: ports
who() {
	local ns=$1 addr=$2

	shift 2
	ip netns exec "$ns" timeout 60 python3 "$WHOAMI" client "$addr" 2 "$@"
}

# expect() - check who answers each port, with one client process
# $1: client namespace, $2: address,
# $@: PORT=WHO, WHO being guest (on the same port), guest:GUESTPORT, pod
#     or refused (a reset counts as refused)
expect() {
	local ns=$1 addr=$2 item port want got line
	local -a ports=()

	shift 2
	for item in "$@"; do
		ports+=("${item%%=*}")
	done
	got=$(who "$ns" "$addr" "${ports[@]}")
	for item in "$@"; do
		port=${item%%=*}
		want=${item#*=}
		line=$(echo "$got" | grep -m1 "^$port ")
		case "$want" in
		refused) [[ "$line" = "$port refused" ||
			    "$line" = "$port reset" ]] ;;
		*:*) [ "$line" = "$port ${want%%:*} ${want#*:}" ] ;;
		*) [ "$line" = "$port $want $port" ] ;;
		esac ||
			fail "$ns -> $addr port $port: '$line', wanted $want"
	done
	log "ok: $ns -> $addr: $*"
}

# each() - PORT=WHO for each port
# $1: WHO, $@: ports
each() {
	local who=$1

	shift
	printf "%s=$who " "$@"
}

# within() - wait until a port is answered as wanted, at most 2 s from
# now: one connection every 0.1 s, by one client process
# $1: "guest" or "pod", $2: port
# Return: 1 if it was not; prints the milliseconds it took
within() {
	ip netns exec "$NS_PEER" timeout 10 python3 - "$1" "$2" <<-'EOF'
	import socket, sys, time
	want, port = sys.argv[1], int(sys.argv[2])
	start = time.monotonic()
	while True:
	    line = ""
	    try:
	        with socket.create_connection(("203.0.113.2", port), 1) as s:
	            line = s.recv(256).decode().strip()
	    except OSError as e:
	        line = str(e)
	    ms = int((time.monotonic() - start) * 1000)
	    if line == f"{want} {port}":
	        print(ms)
	        sys.exit(0)
	    if ms > 2000:
	        print(f"{ms} ({line})")
	        sys.exit(1)
	    time.sleep(0.1)
	EOF
}

# fds() - descriptors netshim holds
fds() {
	find "/proc/$BACKEND_PID/fd" -mindepth 1 | wc -l
}

topo_init
topo_peer_pod

# A pod process listening before netshim starts
ip netns exec "$NS_POD" timeout 120 python3 "$WHOAMI" server pod 3000 \
	>>"$WORK/pod.log" 2>&1 &
topo_pid_add $!

ALL=(-t all -t "~5000-5009" -t 40000-40009:6000-6009)
if ! start_backend "${ALL[@]}" --bpf require; then
	if grep -q 'cannot load the eBPF sk_lookup program' \
		"$WORK/backend.log"; then
		skip "this kernel or these privileges cannot load the" \
		     "sk_lookup program: $(sed -n \
		     's/.*cannot load the eBPF sk_lookup program: //p' \
		     "$WORK/backend.log")"
	fi
	fail "netshim exited: $(tail -5 "$WORK/backend.log")"
fi
grep -q 'through one listening socket per family (eBPF sk_lookup)' \
	"$WORK/backend.log" || fail "netshim does not say it uses sk_lookup"
topo_relay_guest 1500
guest_dhcp4
guest_slaac

# The guest answers on every sampled port, on the excluded ones, and on
# the targets of the mapped range
# shellcheck disable=SC2086
ip netns exec "$NS_GUEST" timeout 120 python3 "$WHOAMI" server guest \
	$SAMPLE 3000 5000 5005 6000 6005 6009 1000 2222 2500 2999 "$EPH" \
	>>"$WORK/guest.log" 2>&1 &
topo_pid_add $!
topo_wait_log "$WORK/guest.log" listeners 50

# 1. -t all through sk_lookup
for a in 203.0.113.2 2001:db8:1::2; do
	# shellcheck disable=SC2046,SC2086
	expect "$NS_PEER" "$a" $(each guest $SAMPLE) 40000=guest:6000 \
		40005=guest:6005 40009=guest:6009 3000=pod 5000=refused \
		5005=refused "$EPH=refused"
done
expect "$NS_POD" 127.0.0.1 8080=guest 61000=guest "$EPH=refused"

n=$(fds)
[ "$n" -lt 100 ] || fail "netshim holds $n descriptors with sk_lookup"
log "ok: netshim holds $n descriptors for every forwarded port"
# 17 guest connections per family from the peer, 2 from the pod
n=$(topo_counter sk_lookup)
if [ -z "$n" ] || [ "$n" -lt 36 ]; then
	fail "sk_lookup counter '$n', wanted at least 36 connections"
fi
log "ok: $n connections handed over by sk_lookup"

# A pod process binding a forwarded port later gets it, and gives it back
ip netns exec "$NS_POD" timeout 60 python3 "$WHOAMI" server pod "$LATE" \
	>>"$WORK/pod.log" 2>&1 &
late=$!
topo_pid_add "$late"
# From the moment it listens: Python's own start-up is not netshim's
tcp_wait_listen "$NS_POD" "$LATE"
ms=$(within pod "$LATE") ||
	fail "port $LATE not the pod process's $ms ms after it listened"
log "ok: port $LATE is the pod process's after $ms ms"
kill "$late"
wait "$late" 2>/dev/null
ms=$(within guest "$LATE") ||
	fail "port $LATE not back to the guest $ms ms after the pod's exit"
log "ok: port $LATE is back to the guest $ms ms after the pod's exit"
stop_backend

# 2. --bpf off: one socket per port, the same reachability
RANGE=(-t 1000-2999 -t "~2500-2509" -t 40000-40009:6000-6009)
start_backend "${RANGE[@]}" --bpf off ||
	fail "netshim exited: $(tail -5 "$WORK/backend.log")"
grep -q 'sk_lookup' "$WORK/backend.log" &&
	fail "--bpf off, and netshim speaks of sk_lookup"
guest_up
for a in 203.0.113.2 2001:db8:1::2; do
	expect "$NS_PEER" "$a" 1000=guest 2222=guest 2999=guest \
		40000=guest:6000 40009=guest:6009 2500=refused 3001=refused
done
# 2000 ports: one socket each, both families on it, as passt's
n=$(fds)
[ "$n" -ge 2000 ] && [ "$n" -le 2050 ] ||
	fail "--bpf off: $n descriptors for 2000 ports, one per port wanted"
log "ok: --bpf off: $n descriptors, one per port"
stop_backend

# ...and the same where the program cannot be loaded (--bpf auto)
PRIV=("${NOBPF[@]}")
start_backend "${RANGE[@]}" ||
	fail "netshim exited: $(tail -5 "$WORK/backend.log")"
PRIV=()
grep -q 'sk_lookup program not loaded, one socket per forwarded TCP port instead: .*lacks CAP_BPF' "$WORK/backend.log" ||
	fail "without CAP_BPF, no fallback message naming it"
guest_up
expect "$NS_PEER" 203.0.113.2 1000=guest 2999=guest 40005=guest:6005
n=$(fds)
[ "$n" -ge 2000 ] && [ "$n" -le 2050 ] ||
	fail "without CAP_BPF: $n descriptors for 2000 ports"
log "ok: without CAP_BPF: said so, $n descriptors, one per port"
stop_backend

# 3. -t auto for a VM: every port no pod process listens on
start_backend -t auto --bpf require ||
	fail "netshim exited: $(tail -5 "$WORK/backend.log")"
guest_up
for a in 203.0.113.2 2001:db8:1::2; do
	# shellcheck disable=SC2046,SC2086
	expect "$NS_PEER" "$a" $(each guest $SAMPLE 5000 "$EPH") 3000=pod
done
stop_backend

start_backend -t auto --bpf off &&
	fail "-t auto for a VM accepted with --bpf off"
grep -q -- '-t auto for a VM needs the eBPF sk_lookup program' \
	"$WORK/backend.log" ||
	fail "-t auto with --bpf off: '$(tail -1 "$WORK/backend.log")'"
log "ok: -t auto with --bpf off: $(grep -o 'error: .*' "$WORK/backend.log" |
	head -1)"

PRIV=("${NOBPF[@]}")
start_backend -t auto && fail "-t auto for a VM accepted without CAP_BPF"
PRIV=()
grep -q -- '-t auto for a VM needs the eBPF sk_lookup program, and it cannot be loaded: .*lacks CAP_BPF' \
	"$WORK/backend.log" ||
	fail "-t auto without CAP_BPF: '$(tail -1 "$WORK/backend.log")'"
log "ok: -t auto without CAP_BPF: $(grep -o 'error: .*' "$WORK/backend.log" |
	head -1)"
