# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# IPv6 of a guest that runs no DHCPv6 client, as most systems are set up:
# its addresses come from the router advertisement alone (SLAAC: EUI-64,
# RFC 7217 stable-privacy, RFC 4941 temporary addresses), its resolver from
# the advertisement's RDNSS option.  Sourced by t_slaac_*.sh after
# tests/lib/topo.sh, tests/tcp/lib.sh and tests/lib/udp.sh.
#
# slaac_run KIND runs every check; KIND says which address the guest must
# have formed and use as its source: eui64, stable or temporary.

# slaac_mac_iid() - the modified EUI-64 interface identifier of tap0's MAC
slaac_mac_iid() {
	local mac b

	mac=$(cat "/sys/class/net/tap0/address" 2>/dev/null ||
		in_guest cat /sys/class/net/tap0/address)
	IFS=: read -r -a b <<<"$mac"
	printf '%x:%x:%x:%x' $(( (0x${b[0]} ^ 2) << 8 | 0x${b[1]} )) \
		$(( 0x${b[2]} << 8 | 0xff )) $(( 0xfe << 8 | 0x${b[3]} )) \
		$(( 0x${b[4]} << 8 | 0x${b[5]} ))
}

# slaac_src() - the source address the guest picks for a destination
# $1: destination
slaac_src() {
	in_guest ip -6 route get "$1" | sed -n 's/.* src \([0-9a-f:]*\).*/\1/p'
}

# slaac_wait_addr() - wait for the address of the kind, print it
# $1: kind (eui64, stable or temporary)
slaac_wait_addr() {
	local _ list a iid

	iid=$(slaac_mac_iid)
	for _ in $(seq 100); do
		list=$(in_guest ip -6 -o addr show dev tap0 scope global \
			-tentative)
		case "$1" in
		eui64)
			a=$(echo "$list" | grep -v temporary |
				grep -o "inet6 2001:db8:1:0:$iid/64") ;;
		stable)
			a=$(echo "$list" | grep stable-privacy |
				grep -o 'inet6 2001:db8:1:0:[0-9a-f:]*/64') ;;
		temporary)
			a=$(echo "$list" | grep temporary |
				grep -o 'inet6 2001:db8:1:0:[0-9a-f:]*/64' |
				head -1) ;;
		esac
		if [ -n "$a" ]; then
			a=${a#inet6 }
			echo "${a%/64}"
			return 0
		fi
		sleep 0.1
	done
	fail "no $1 SLAAC address on tap0 after 10 s:" \
		"$(in_guest ip -6 -o addr show dev tap0)"
}

# slaac_check_addresses() - the guest formed what its settings ask for
# from the RA, holds no DHCPv6 address, and uses it as its source
# $1: kind; sets SLAAC_ADDR
slaac_check_addresses() {
	local src route

	SLAAC_ADDR=$(slaac_wait_addr "$1")
	log "ok: $1 address $SLAAC_ADDR"
	case "$1" in
	eui64) ;;
	*)
		[ "${SLAAC_ADDR#2001:db8:1:0:"$(slaac_mac_iid)"}" = \
			"$SLAAC_ADDR" ] ||
			fail "$1 address $SLAAC_ADDR is the EUI-64 one" ;;
	esac
	in_guest ip -6 -o addr show dev tap0 | grep -q 'inet6 2001:db8:1::2/' &&
		fail "the guest holds 2001:db8:1::2 without a DHCPv6 client"
	src=$(slaac_src 2001:db8:2::1)
	[ "$src" = "$SLAAC_ADDR" ] ||
		fail "the guest's source for 2001:db8:2::1 is '$src'," \
			"not its $1 address $SLAAC_ADDR"
	log "ok: the guest speaks from $src"
	route=$(in_guest ip -6 route show default)
	case "$route" in
	"default via fe80::1 dev tap0 proto ra "*) log "ok: $route" ;;
	*) fail "IPv6 default route is '$route', expected via fe80::1" ;;
	esac
}

# slaac_rdnss() - the resolver the RA announces (RFC 8106), read with
# rdisc6 as resolvconf hooks and networkd would
slaac_rdnss() {
	in_guest timeout 10 rdisc6 -1 -r 3 tap0 2>&1 |
		sed -n 's/^ *Recursive DNS server *: *\([0-9a-f:]*\).*/\1/p' |
		head -1
}

# slaac_check_dns() - look up the test names through the RA's resolver
slaac_check_dns() {
	local dns out

	dns=$(slaac_rdnss)
	[ -n "$dns" ] || fail "no RDNSS in the RA: $(in_guest timeout 10 \
		rdisc6 -1 tap0 2>&1 | tail -20)"
	out=$(in_guest timeout 10 busybox nslookup peer.netshim.test "$dns" \
		2>&1) || fail "nslookup via $dns: $out"
	echo "$out" | grep -q '^Address: 2001:db8:1::1$' ||
		fail "nslookup peer.netshim.test via $dns: $out"
	log "ok: peer.netshim.test resolved through the RA's resolver $dns"
}

# slaac_check_ping() - ping the peer on-link and off-link
slaac_check_ping() {
	local a out

	for a in 2001:db8:1::1 2001:db8:2::1; do
		out=$(in_guest timeout 20 busybox ping6 -c 3 -W 2 "$a" 2>&1) ||
			fail "ping6 $a from the guest: $out"
		log "ok: ping6 $a: $(echo "$out" | grep -o '[0-9]* packets received')"
	done
}

# slaac_check_tcp() - TCP both ways to the peer, checksummed
slaac_check_tcp() {
	tcp_upload "$NS_GUEST" "$NS_PEER" 6 2001:db8:2::1 5201 1 \
		"$(tcp_size 32M)" 30
	tcp_download "$NS_GUEST" "$NS_PEER" 6 2001:db8:2::1 5202 2 \
		"$(tcp_size 32M)" 30
}

# slaac_check_udp() - UDP echoed from the peer, and forwarded into the
# guest (the backend runs with -u 5001:5000)
slaac_check_udp() {
	make_payloads "$WORK/u-out"
	make_payloads "$WORK/u-in"
	echo_server "$NS_PEER" "UDP6-LISTEN:7000,bind=[2001:db8:2::1]" \
		2001:db8:2::1
	run_client "$NS_GUEST" 2001:db8:2::1 7000 "$WORK/u-out"
	echo_server "$NS_GUEST" UDP6-LISTEN:5000,ipv6only=1 '\[::\]'
	run_client "$NS_PEER" 2001:db8:1::2 5001 "$WORK/u-in"
}

# slaac_check_inbound() - connections from the peer to the pod's port
# 8080 (-t 8080) reach an echo server in the guest, which holds only its
# SLAAC addresses, at the address the guest last used
# $1: that address
slaac_check_inbound() {
	local out port=8080 got

	rm -f "$WORK/inbound.addr"
	in_guest timeout 30 python3 -c '
import socket, sys, threading
srv = socket.socket(socket.AF_INET6)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("::", int(sys.argv[1])))
srv.listen(16)
def echo(c):
    with c:
        while True:
            d = c.recv(65536)
            if not d:
                break
            c.sendall(d)
while True:
    c, _ = srv.accept()
    with open(sys.argv[2], "a") as f:
        print(c.getsockname()[0], file=f)
    threading.Thread(target=echo, args=(c,), daemon=True).start()
' "$port" "$WORK/inbound.addr" >>"$WORK/server.log" 2>&1 &
	topo_pid_add $!
	tcp_wait_listen "$NS_GUEST" "$port"
	out=$(in_peer timeout 30 python3 "$TCP_DIR/many.py" client \
		2001:db8:1::2 "$port" 4 65536 10 2>&1) ||
		fail "peer -> [2001:db8:1::2]:$port -> guest: $out"
	got=$(sort -u "$WORK/inbound.addr" | tr '\n' ' ')
	[ "$got" = "$1 " ] ||
		fail "inbound connections reached the guest at '$got', not $1"
	kill "$!" 2>/dev/null
	log "ok: peer -> [2001:db8:1::2]:$port -> guest at $1: $out"
}

# slaac_check_foreign_source() - a source outside the /64 gets nowhere,
# and netshim counts it as dropped
slaac_check_foreign_source() {
	local before after

	in_guest ip -6 addr add 2001:db8:9::5/128 dev tap0 nodad
	[ "$BACKEND" = netshim ] && before=$(topo_counter drop_src)
	in_guest timeout 10 busybox ping6 -c 2 -W 1 -I 2001:db8:9::5 \
		2001:db8:1::1 >/dev/null 2>&1 &&
		fail "ping from 2001:db8:9::5 got through"
	in_guest ip -6 addr del 2001:db8:9::5/128 dev tap0
	if [ "$BACKEND" != netshim ]; then
		log "ok: source 2001:db8:9::5 got nowhere ($BACKEND: no counters)"
		return 0
	fi
	after=$(topo_counter drop_src)
	[ "$after" -gt "$before" ] ||
		fail "drop_src did not count the foreign source ($before ->" \
			"$after)"
	log "ok: source 2001:db8:9::5 dropped, drop_src $before -> $after"
}

# slaac_long_echo() - a connection from the guest that echoes a line
# every 0.2 s for some seconds, in the background; prints its local
# address first, "ok N" at the end if every echo came back
# $1: output file, $2: seconds
slaac_long_echo() {
	in_guest timeout $(($2 + 10)) python3 -c '
import socket, sys, time
s = socket.create_connection(("2001:db8:2::1", 5300), timeout=5)
print(s.getsockname()[0], flush=True)
end, n = time.time() + float(sys.argv[1]), 0
while time.time() < end:
    msg = b"%d " % n + b"x" * 100 + b"\n"
    s.sendall(msg)
    got = b""
    while len(got) < len(msg):
        chunk = s.recv(len(msg) - len(got))
        if not chunk:
            sys.exit("closed after %d echoes" % n)
        got += chunk
    if got != msg:
        sys.exit("echo %d differs" % n)
    n += 1
    time.sleep(0.2)
print("ok", n, flush=True)
' "$2" >"$1" 2>&1 &
	topo_pid_add $!
}

# slaac_check_rotation() - RFC 4941: the temporary address is replaced
# (here by shortening its preferred lifetime, as its daily expiry would),
# a connection on the old one keeps working, new ones use the new one
slaac_check_rotation() {
	local old=$SLAAC_ADDR new= src _ res

	in_peer timeout 60 socat TCP6-LISTEN:5300,reuseaddr PIPE \
		>>"$WORK/socat.log" 2>&1 &
	topo_pid_add $!
	tcp_wait_listen "$NS_PEER" 5300
	slaac_long_echo "$WORK/long.out" 12
	for _ in $(seq 50); do
		[ -s "$WORK/long.out" ] && break
		sleep 0.1
	done
	[ "$(head -1 "$WORK/long.out")" = "$old" ] ||
		fail "long connection from '$(head -1 "$WORK/long.out")'," \
			"expected $old"

	in_guest ip -6 addr change "$old/64" dev tap0 valid_lft forever \
		preferred_lft 4 ||
		fail "cannot shorten the lifetime of $old"
	for _ in $(seq 150); do
		src=$(slaac_src 2001:db8:2::1)
		if [ "$src" != "$old" ] && in_guest ip -6 -o addr show \
			dev tap0 temporary | grep -q "inet6 $src/64"; then
			new=$src
			break
		fi
		sleep 0.1
	done
	[ -n "$new" ] || fail "no new temporary address in 15 s:" \
		"$(in_guest ip -6 -o addr show dev tap0)"
	log "ok: temporary address rotated: $old -> $new"

	tcp_upload "$NS_GUEST" "$NS_PEER" 6 2001:db8:2::1 5203 3 \
		"$(tcp_size 4M)" 20
	slaac_check_inbound "$new"
	for _ in $(seq 200); do
		res=$(sed -n 2p "$WORK/long.out")
		[ -n "$res" ] && break
		sleep 0.1
	done
	case "$res" in
	"ok "*) log "ok: the connection on $old lived on: $res echoes" ;;
	*) fail "the connection on $old broke: $(cat "$WORK/long.out")" ;;
	esac
}

# slaac_check_link_quiet() - what the guest's kernel says to its link
# on its own (MLD reports, RFC 3810; neighbour advertisements answering
# netshim's probes, RFC 4861) is not counted as malformed or unsupported
slaac_check_link_quiet() {
	local drops

	[ "$BACKEND" = netshim ] || return 0
	drops=$(topo_counter drop_icmp)
	[ "$drops" = 0 ] ||
		fail "the guest's own link messages counted as dropped ICMP: drop_icmp $drops"
	log "ok: drop_icmp 0; the guest's link messages: icmp6_link $(topo_counter icmp6_link)"
}

# slaac_run() - the whole check of one kind of guest
# $1: kind (eui64, stable or temporary)
slaac_run() {
	topo_init
	topo_peer_pod
	topo_dns
	topo_backend -t 8080 -u 5001:5000
	topo_relay_guest
	slaac_check_addresses "$1"
	slaac_check_ping
	slaac_check_dns
	slaac_check_tcp
	slaac_check_udp
	slaac_check_inbound "$SLAAC_ADDR"
	slaac_check_link_quiet
	slaac_check_foreign_source
	[ "$1" = temporary ] && slaac_check_rotation
	return 0
}
