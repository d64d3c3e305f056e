#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A guest's window update lost while its window is closed: the download
# must go on.  The guest reads a little of a 16 MiB download, then
# stops: its window closes and the pod's socket fills.  While the
# guest's frames towards the back-end are dropped (nftables on its tap),
# it reads what it holds, and its kernel sends the one window update it
# ever sends, which is lost.  Then the drop ends.  From then on neither
# side has a reason to send but the sender's persist timer (RFC 9293
# 3.8.6.1): a back-end without one leaves the connection stuck for ever.
# It must probe the closed window, learn that it opened, and deliver the
# rest, every byte checked, within 30 s.  A migration's hop or a VMM
# that dropped frames loses such an update the same way.
# Run passt 2026 through it with BACKEND=passt PASST=...

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/../tcp/lib.sh"

command -v nft >/dev/null || skip "nft missing (make deps)"

PORT=5021
SIZE=$((16 << 20))
SECS=30

topo_init
topo_peer_pod
topo_backend
topo_relay_guest
guest_dhcp4

p=$WORK/down
tcp_send "$NS_PEER" 90 "TCP4-LISTEN:$PORT,reuseaddr" "$p" 23 "$SIZE" &
spid=$!
tcp_wait_listen "$NS_PEER" "$PORT"

# The guest's reader: a small receive buffer, so that its window closes
# soon; reads 1 MiB, says "paused", reads nothing until told "go", then
# reads what it holds and says "drained" once nothing more came for
# 0.5 s; then reads to the end, within SECS, and writes the hash
ip netns exec "$NS_GUEST" timeout $((SECS + 60)) python3 -c '
import hashlib, os, socket, sys, time
work, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
s.connect(("203.0.113.1", port))
h, n = hashlib.sha256(), 0
while n < 1 << 20:
    b = s.recv(65536)
    if not b:
        break
    h.update(b); n += len(b)
open(work + "/paused", "w").write("1")
while not os.path.exists(work + "/go"):
    time.sleep(0.05)
s.settimeout(0.5)
told = False
end = time.time() + secs
while time.time() < end:
    try:
        b = s.recv(65536)
    except socket.timeout:
        if not told:
            open(work + "/drained", "w").write("1")
            told = True
        continue
    if not b:
        break
    h.update(b); n += len(b)
open(work + "/down.recv", "w").write("%s %d\n" % (h.hexdigest(), n))
' "$WORK" "$PORT" "$SECS" >"$WORK/reader.log" 2>&1 &
rpid=$!
topo_pid_add "$rpid"

tcp_wait_file "$WORK/paused" 20 || fail "the guest's reader did not start"
# The window closes, the pod's socket fills, the peer stops
sleep 2
tcp_drop_add "$NS_GUEST" lost tap0 egress "tcp dport $PORT"
echo 1 >"$WORK/go"
tcp_wait_file "$WORK/drained" 20 ||
	fail "the guest's reader did not drain what it held"
lost=$(tcp_drop_count "$NS_GUEST" lost)
tcp_drop_del "$NS_GUEST" lost
[ "${lost:-0}" -gt 0 ] ||
	fail "no guest frame was dropped: the window update was not lost"
t0=$(date +%s%N)

wait "$rpid"
wait "$spid" || log "sender socat failed: $(tail -2 "$p.err")"
[ -s "$p.recv" ] || fail "the guest's reader ended without a result:" \
	"$(tail -3 "$WORK/reader.log")"
tcp_check "$p" "16 MiB 203.0.113.1 port $PORT -> guest, window update lost"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$BACKEND" = netshim ]; then
	probes=$(topo_counter tcp_window_probes)
	[ "${probes:-0}" -gt 0 ] ||
		fail "the transfer ended, yet netshim counted no window probe"
	log "ok: $lost guest frames dropped, the window probed" \
		"($probes probes), the rest delivered ${ms} ms after"
else
	log "ok: $lost guest frames dropped, the rest delivered ${ms} ms after"
fi
