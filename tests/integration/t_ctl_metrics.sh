#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What an operator reads of a running netshim (-c PATH --metrics PATH, a
# relay guest on the stream socket):
# - the counters on --metrics, to an HTTP GET (curl --unix-socket, with
#   Prometheus' content type) and to a plain read, and from netshim-ctl
#   metrics, are parsed by the Prometheus project's own parser (Debian's
#   python3-prometheus-client) and equal, counter for counter, what
#   SIGUSR1 logs at the same moment (tests/ctl/metrics_check.py);
# - netshim-ctl flows lists the guest's live flows as ss lists sockets:
#   a TCP connection the guest opened after moving 100000 bytes each
#   way, with its guest and remote addresses, the pod socket's own ends
#   and those byte counts; one the peer opened through -t (DIR in); a UDP
#   flow after 10 datagrams of 1000 bytes each way; a ping's echo flow;
# - netshim-ctl capture takes the guest's frames from then on as a pcap
#   file a reader takes (link type Ethernet, whole records, the guest's
#   ICMP echo requests and replies in it), -n frames of them; a second
#   capture meanwhile is refused with the reason; capture-stop from
#   another client ends a running one, whose file is whole.
# Anything else on --metrics is refused (HTTP 400).
# CTL_NETDEV=vhost-user (t_ctl_metrics_vhost_user.sh): the same through
# netshim's vhost-user back-end and tests/vu_relay, where frames to the
# guest are built in its buffers unless a capture runs.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
# shellcheck source=tests/tcp/lib.sh
. "$(dirname "$0")/../tcp/lib.sh"
# shellcheck source=tests/ctl/lib.sh
. "$(dirname "$0")/../ctl/lib.sh"

[ "$BACKEND" = netshim ] || skip "netshim's counters and control socket"
PY=/usr/bin/python3
$PY -c 'import prometheus_client' 2>/dev/null ||
	fail "no python3-prometheus-client (contrib/install-deps.sh)"

topo_init
topo_peer_pod
CTL_SOCK=$WORK/ctl.sock
MET=$WORK/metrics.sock
if [ "${CTL_NETDEV:-stream}" = vhost-user ]; then
	topo_backend --vhost-user --virtio-features all -c "$CTL_SOCK" \
		--metrics "$MET" -t 2222 -u 5300
	topo_vu_relay_guest
else
	topo_backend -c "$CTL_SOCK" --metrics "$MET" -t 2222 -u 5300
	topo_relay_guest
fi
guest_dhcp

# scrape() - the counters through one way of reading them
# $1: http, raw or ctl; $2: output file
scrape() {
	case "$1" in
	http) curl -si --max-time 5 --unix-socket "$MET" \
		http://localhost/metrics >"$2" ;;
	raw) timeout 5 socat -u "UNIX-CONNECT:$MET" - >"$2" ;;
	ctl) "$NETSHIM_CTL" "$CTL_SOCK" metrics >"$2" ;;
	esac || fail "scrape ($1) failed"
}

# --- Flows: known byte counts each way
tcp_many_server "$NS_PEER" "" 7000
tcp_many_server "$NS_GUEST" "" 2222
ctl_udp_echo "$NS_PEER" 7001 ""
in_guest timeout 60 python3 -c '
import os, socket, sys, time
s = socket.create_connection(("203.0.113.1", 7000), timeout=10)
data = os.urandom(100000)
s.sendall(data)
got = b""
while len(got) < len(data):
    got += s.recv(65536)
assert got == data
print("held", flush=True)
time.sleep(40)
' >"$WORK/held.out" 2>&1 &
topo_pid_add $!
in_peer timeout 60 python3 -c '
import socket, time
s = socket.create_connection(("203.0.113.2", 2222), timeout=10)
s.sendall(b"x" * 1000)
got = b""
while len(got) < 1000:
    got += s.recv(4096)
print("held", flush=True)
time.sleep(40)
' >"$WORK/held-in.out" 2>&1 &
topo_pid_add $!
in_guest timeout 20 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.bind(("0.0.0.0", 40001))
for i in range(10):
    s.sendto(bytes([i]) * 1000, ("203.0.113.1", 7001))
    assert s.recv(2000) == bytes([i]) * 1000
' || fail "UDP datagrams to the peer not echoed"
in_guest ping -c 3 -i 0.2 -W 2 203.0.113.1 >/dev/null ||
	fail "no ping from the guest"
topo_wait_file "$WORK/held.out" 50
for f in held held-in; do
	for _ in $(seq 100); do
		grep -q held "$WORK/$f.out" && break
		sleep 0.1
	done
	grep -q held "$WORK/$f.out" || fail "$f: $(cat "$WORK/$f.out")"
done
sleep 0.5

"$NETSHIM_CTL" "$CTL_SOCK" flows >"$WORK/flows" || fail "netshim-ctl flows failed"
cat "$WORK/flows" >&2
# flow() - the line of the flows listing whose fields match
# $1: proto, $2: a pattern of the REMOTE column
flow() {
	awk -v p="$1" -v r="$2" '$1 == p && $5 ~ r' "$WORK/flows"
}
line=$(flow tcp '^203\.0\.113\.1:7000$')
set -- $line
[ "${3:-}" = out ] && [ "${4%:*}" = 203.0.113.2 ] && [ "${6%:*}" = 203.0.113.2 ] &&
	[ "$7" = 203.0.113.1:7000 ] && [ "$8" = 100000 ] && [ "$9" = 100000 ] ||
	fail "the guest's TCP connection: '$line'"
log "ok: TCP out: $line"
line=$(awk '$1 == "tcp" && $3 == "in"' "$WORK/flows")
set -- $line
[ "${4:-}" = 203.0.113.2:2222 ] && [ "$6" = 203.0.113.2:2222 ] &&
	[ "$8" = 1000 ] && [ "$9" = 1000 ] ||
	fail "the peer's TCP connection through -t: '$line'"
log "ok: TCP in: $line"
line=$(flow udp '^203\.0\.113\.1:7001$')
set -- $line
[ "${4:-}" = 203.0.113.2:40001 ] && [ "$8" = 10000 ] && [ "$9" = 10000 ] ||
	fail "the guest's UDP flow: '$line'"
log "ok: UDP: $line"
line=$(flow icmp '^203\.0\.113\.1$')
set -- $line
[ "${8:-}" = 192 ] && [ "$9" = 192 ] ||
	fail "the guest's ping flow: '$line'"
log "ok: ICMP: $line"

# --- Counters: as SIGUSR1 logs them, through each reader
curl -si --max-time 5 --unix-socket "$MET" http://localhost/metrics |
	grep -qi '^Content-Type: text/plain; version=0.0.4' ||
	fail "no Prometheus content type on --metrics"
for how in http raw ctl; do
	ok=
	for _ in $(seq 5); do
		scrape "$how" "$WORK/m1"
		topo_counters >"$WORK/dump" || fail "no SIGUSR1 dump"
		scrape "$how" "$WORK/m2"
		out=$($PY "$REPO/tests/ctl/metrics_check.py" "$WORK/dump" \
			"$WORK/m1" "$WORK/m2")
		rc=$?
		[ "$rc" = 2 ] && { sleep 0.5; continue; }
		[ "$rc" = 0 ] || fail "$how: $out"
		ok=1
		break
	done
	[ -n "$ok" ] || fail "$how: the counters never stood still: $out"
	log "ok: $how: $out"
done
out=$(printf 'POST /metrics HTTP/1.0\r\n\r\n' |
	timeout 5 socat - "UNIX-CONNECT:$MET")
echo "$out" | head -1 | grep -q '^HTTP/1.0 400' ||
	fail "POST on --metrics: $out"
log "ok: POST refused: $(echo "$out" | head -1)"

# --- Capture: -n frames, whole, the guest's pings in them
"$NETSHIM_CTL" "$CTL_SOCK" capture -w "$WORK/cap.pcap" -n 6 -d 20 \
	2>"$WORK/cap.err" &
cap=$!
topo_pid_add $cap
sleep 0.5
out=$("$NETSHIM_CTL" "$CTL_SOCK" capture -n 1 -d 2 2>&1 >/dev/null) &&
	fail "a second capture ran beside the first: $out"
echo "$out" | grep -q "runs already" || fail "second capture: $out"
log "ok: a second capture refused: $out"
in_guest ping -c 3 -i 0.2 -W 2 203.0.113.1 >/dev/null
wait "$cap" || fail "capture failed: $(cat "$WORK/cap.err")"
# pcap_read() - check a capture file, print its frames' count and the
# ICMP echo requests and replies among them
pcap_read() {
	$PY - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
magic, major, minor, _, _, snap, link = struct.unpack("<IHHiIII", data[:24])
assert magic == 0xa1b2c3d4 and (major, minor) == (2, 4) and link == 1, \
    "not a pcap file of Ethernet frames"
off, n, req, rep = 24, 0, 0, 0
while off < len(data):
    _, _, caplen, length = struct.unpack("<IIII", data[off:off + 16])
    frame = data[off + 16:off + 16 + caplen]
    assert len(frame) == caplen and caplen <= length, "record cut short"
    if frame[12:14] == b"\x08\x00" and frame[23] == 1:
        req += frame[34] == 8
        rep += frame[34] == 0
    off += 16 + caplen
    n += 1
print(n, req, rep)
PY
}
set -- $(pcap_read "$WORK/cap.pcap") || fail "capture file unreadable"
[ "$1" = 6 ] && [ "$2" -ge 1 ] && [ "$3" -ge 1 ] ||
	fail "capture: $1 frames, $2 echo requests, $3 replies"
log "ok: captured $1 frames, $2 echo requests and $3 replies of the guest"

# --- capture-stop from another client: the reader's file is whole
"$NETSHIM_CTL" "$CTL_SOCK" capture -w "$WORK/cap2.pcap" -d 30 \
	2>"$WORK/cap2.err" &
cap=$!
topo_pid_add $cap
sleep 0.5
in_guest ping -c 5 -i 0.2 -W 2 203.0.113.1 >/dev/null
out=$("$NETSHIM_CTL" "$CTL_SOCK" capture-stop) ||
	fail "capture-stop: $out"
log "ok: $out"
topo_wait_exit "$cap" 50 || fail "the capture did not end on capture-stop"
set -- $(pcap_read "$WORK/cap2.pcap") || fail "stopped capture unreadable"
[ "$1" -ge 10 ] || fail "stopped capture: $1 frames"
echo "$out" | grep -q "capture stopped: $1 frames" ||
	fail "capture-stop says '$out', the file has $1 frames"
log "ok: a stopped capture's file holds its $1 frames whole"
out=$("$NETSHIM_CTL" "$CTL_SOCK" capture-stop 2>&1) &&
	fail "capture-stop with none running: $out"
kill -0 "$BACKEND_PID" || fail "netshim exited"
