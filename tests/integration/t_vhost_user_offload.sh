#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Checksum and segmentation offloads over vhost-user at native speed:
# tests/vu_relay --offload negotiates VIRTIO_NET_F_CSUM, GUEST_CSUM and
# HOST/GUEST_TSO4/6 with netshim, and its tap hands the guest kernel's
# frames over as Linux's virtio-net does (partial checksums, TSO frames up
# to 64 KiB at MTU 1500).  TCP both ways on both families, hashed; UDP
# echoed both ways; then netshim's counters must show TSO frames in both
# directions, frames written straight into the guest's receive buffers,
# UDP datagrams received straight into them, guest payload written to
# sockets straight from the guest's memory, and no frame refused for its
# checksum or header.  A datagram larger than the guest's MTU leaves room
# for in its buffers still reaches it whole.

set -u
. "$(dirname "$0")/../lib/topo.sh"
. "$(dirname "$0")/../lib/udp.sh"
. "$(dirname "$0")/../tcp/lib.sh"

# counter_is() - fail unless one of netshim's counters satisfies a test
# $1: counter, $2: test operator (-gt, -eq), $3: value
counter_is() {
	local v

	v=$(topo_counter "$1")
	[ -n "$v" ] || fail "counter $1 not in the dump"
	[ "$v" "$2" "$3" ] || fail "counter $1 is $v, expected $2 $3"
	log "ok: $1 = $v"
}

n=$(tcp_size "${VU_OFFLOAD_SIZE:-64M}")
topo_init
topo_peer_pod
topo_backend --vhost-user --virtio-features all -u 5001:5000 -u 5005
RELAY_ARGS=--offload topo_vu_relay_guest 1500
guest_dhcp
tcp_upload "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5001 1 "$n" 60
tcp_download "$NS_GUEST" "$NS_PEER" 4 203.0.113.1 5002 2 "$n" 60
tcp_upload "$NS_GUEST" "$NS_PEER" 6 2001:db8:1::1 5003 3 "$n" 60
tcp_download "$NS_GUEST" "$NS_PEER" 6 2001:db8:2::1 5004 4 "$n" 60
udp_both_ways 203.0.113.1 2001:db8:1::1
counter_is udp_in_place -gt 0

# One datagram of 20000 bytes from the peer to the guest's port 5005: the
# pod reassembles it, netshim hands it over in one frame
head -c 20000 /dev/urandom >"$WORK/big.in"
ip netns exec "$NS_GUEST" timeout 10 socat -u -b 65536 UDP4-RECV:5005 \
	"OPEN:$WORK/big.out,creat,trunc" &
topo_pid_add $!
for _ in $(seq 50); do
	in_guest ss -Hlun 'sport = :5005' | grep -q . && break
	sleep 0.1
done
in_peer socat -u -b 65536 "OPEN:$WORK/big.in" UDP4-SENDTO:203.0.113.2:5005 ||
	fail "sending the large datagram"
for _ in $(seq 50); do
	[ "$(stat -c %s "$WORK/big.out" 2>/dev/null)" = 20000 ] && break
	sleep 0.1
done
cmp -s "$WORK/big.in" "$WORK/big.out" ||
	fail "20000-byte datagram: the guest got $(stat -c %s "$WORK/big.out") bytes, not the same"
log "ok: a 20000-byte datagram reached the guest intact"

# A burst of 40 datagrams answering the guest's one, sizes 64..17000 (some
# larger than the MTU's room), as fast as the peer sends them: each must
# reach the guest whole, once, in the order sent, as through a NIC
cat >"$WORK/burst.py" <<'PY'
import socket, sys
SIZES = [(i * 2711) % 1472 + 1 if i % 7 else 3000 + i * 400 for i in range(40)]
def dg(i):
    return bytes((i * 31 + k) & 0xff for k in range(SIZES[i]))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
if sys.argv[1] == "peer":
    s.bind(("203.0.113.1", 7100))
    s.settimeout(10)
    _, addr = s.recvfrom(100)
    for i in range(40):
        s.sendto(dg(i), addr)
    sys.exit(0)
s.settimeout(5)
s.sendto(b"go", ("203.0.113.1", 7100))
for i in range(40):
    try:
        d = s.recv(65536)
    except TimeoutError:
        sys.exit("datagram %d of 40 (%d bytes) not there after 5 s"
                 % (i, SIZES[i]))
    if d != dg(i):
        sys.exit("datagram %d: got %d bytes, expected %d, or other bytes"
                 % (i, len(d), SIZES[i]))
print("40 datagrams of up to %d bytes, whole and in order" % max(SIZES))
PY
# udp_overflows() - datagrams a namespace's sockets had no room for
# $1: the namespace
udp_overflows() {
	ip netns exec "$1" awk '/^Udp: [0-9]/ { print $6 }' /proc/net/snmp
}

before=$(topo_counter udp_in_place)
ip netns exec "$NS_PEER" timeout 15 python3 "$WORK/burst.py" peer &
topo_pid_add $!
sleep 0.3
out=$(in_guest timeout 15 python3 "$WORK/burst.py" guest 2>&1) ||
	fail "burst to the guest: $out; netshim's counters:" \
		"$(topo_counters | grep -E ' (udp|drop|frames)_' |
			awk '$4 != 0 { printf " %s=%s", $3, $4 }');" \
		"UDP receive buffer overflows, pod $(udp_overflows "$NS_POD")," \
		"guest $(udp_overflows "$NS_GUEST")"
log "ok: $out"
[ "$(topo_counter udp_in_place)" -gt "$before" ] ||
	fail "the burst took no datagram straight into the guest's buffers"

counter_is tso_out -gt 0
counter_is tso_in -gt 0
counter_is frames_in_place -gt 0
counter_is payload_in_place -gt 0
counter_is drop_csum -eq 0
counter_is drop_vnet_hdr -eq 0
log "TCP and UDP with checksum and TSO offloads over vhost-user at MTU 1500"
