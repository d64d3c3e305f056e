#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# TCP keepalive, as a guest application with SO_KEEPALIVE meets it:
# - while the remote lives, the guest's probes (1 s apart) are answered
#   and its idle connection stays up;
# - once the remote goes away without a word (the peer drops everything
#   from then on, as a host that lost power), the guest's connection is
#   reset within seconds, not kept open for ever: the pod's socket probes
#   the remote too once the guest does, with the pod's keepalive timers
#   (set short here: 2 s idle, 1 s apart, 2 probes), as passt does.
# Run passt 2026 through it with BACKEND=passt PASST=...

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/../tcp/lib.sh"

command -v nft >/dev/null || skip "nft missing (make deps)"

topo_init
topo_peer_pod
in_pod sysctl -qw net.ipv4.tcp_keepalive_time=2 \
	net.ipv4.tcp_keepalive_intvl=1 net.ipv4.tcp_keepalive_probes=2 ||
	fail "cannot set the pod's keepalive timers"

# A server that accepts and says nothing
ip netns exec "$NS_PEER" timeout 120 python3 -c '
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("203.0.113.1", 5014)); s.listen(4)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
' >"$WORK/peer.log" 2>&1 &
topo_pid_add $!
tcp_wait_listen "$NS_PEER" 5014

topo_backend
topo_relay_guest
guest_dhcp4

# The guest's client: keepalive every second; says "alive" after 5 s of
# idle probing, then how its connection ended once told the remote died
ip netns exec "$NS_GUEST" timeout 60 python3 -c '
import os, socket, sys, time
s = socket.create_connection(("203.0.113.1", 5014), timeout=5)
s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 30)
s.settimeout(5)
try:
    s.recv(1)
    print("closed early", flush=True)
    sys.exit(1)
except socket.timeout:
    print("alive", flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.1)
t = time.time()
s.settimeout(30)
try:
    d = s.recv(1)
    print("ended: eof" if not d else "ended: data", flush=True)
except socket.timeout:
    print("ended: still open after 30 s", flush=True)
except OSError as e:
    print("ended: %s after %.1f s" % (e.strerror, time.time() - t),
          flush=True)
' "$WORK/dead" >"$WORK/client.log" 2>&1 &
CLIENT=$!
topo_pid_add "$CLIENT"

topo_wait_log "$WORK/client.log" 'alive\|closed early\|Error' 100
grep -q '^alive' "$WORK/client.log" ||
	fail "the idle connection did not stay up: $(cat "$WORK/client.log")"
log "ok: 5 s of the guest's keepalive probes answered, connection up"

in_peer nft -f - <<-EOF || fail "nft in the peer"
	table inet dead {
		chain in { type filter hook input priority 0; policy drop; }
		chain out { type filter hook output priority 0; policy drop; }
	}
EOF
touch "$WORK/dead"
wait "$CLIENT"
out=$(grep '^ended' "$WORK/client.log")
case "$out" in
"ended: Connection reset by peer after "*)
	log "ok: the remote gone, the guest's connection was $out" ;;
*)	fail "the remote gone, the guest's connection $out" ;;
esac
