#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# netshim started with the command lines real launchers give passt, in
# their order, and the launchers' expectations checked: the process they
# start returns 0 once the back-end runs (with the PID file written when
# they ask for one), the guest gets DHCP and reaches the peer, and the
# back-end goes away as they expect.
#
#   libvirt 9.0 (qemu_passt.c): --one-off --socket S --mac-addr MAC,
#     daemonising, no PID file;
#   libvirt 11.x (qemu_passt.c): --one-off --socket S --pid P, then
#     --mtu, --interface, --log-file, --hostname, --fqdn, --address and
#     --netmask per family, --tcp-ports, --udp-ports; started without
#     capabilities as the unprivileged qemu user, stopped with SIGTERM;
#   KubeVirt's passt binding: libvirt's command line with --interface of
#     the pod and the log file in /var/run/kubevirt, the VMI's ports;
#   QEMU 10.1 -netdev passt (net/passt.c): --quiet, the netdev's options,
#     --pid P --fd 3, fd 3 one end of a socketpair; QEMU waits for the exit
#     status and reads the PID file; its end closing ends the back-end.
#
# The test rules ask for an explicit --dns into the peer: where a launcher
# passes none, it is appended last.

set -u
# shellcheck source=tests/lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"

[ "$BACKEND" = netshim ] || skip "netshim only"

DNS=(--dns 203.0.113.1)
MAC=52:54:00:4e:53:01

# guest_lease() - DHCPv4 on tap0 with busybox udhcpc, every variable kept
# $1: file for the script's environment; $@: more udhcpc options
guest_lease() {
	local env=$1

	shift
	cat >"$WORK/lease.script" <<-EOF
	#!/bin/sh
	case "\$1" in
	bound|renew)
		env | grep -E "^(interface|ip|mask|router|dns|hostname|opt81)=" >"$env"
		ip -4 addr flush dev "\$interface"
		ip addr add "\$ip/\${mask:-24}" dev "\$interface" || exit 1
		ip route replace default via "\$router" dev "\$interface"
		;;
	esac
	exit 0
	EOF
	chmod +x "$WORK/lease.script"
	rm -f "$env"
	in_guest busybox udhcpc -i tap0 -f -q -n -t 10 -T 1 "$@" \
		-s "$WORK/lease.script" >"$WORK/udhcpc.log" 2>&1 ||
		fail "DHCPv4 failed: $(tail -3 "$WORK/udhcpc.log")"
	[ -s "$env" ] || fail "udhcpc script did not run"
	[ "$(topo_env_get "$env" ip)" = 203.0.113.2 ] ||
		fail "guest got '$(topo_env_get "$env" ip)', not 203.0.113.2"
}

# guest_ping() - the guest pings the peer through the back-end
guest_ping() {
	in_guest timeout 20 busybox ping -c 2 -W 2 203.0.113.1 \
		>"$WORK/ping.log" 2>&1 ||
		fail "guest cannot ping the peer: $(tail -2 "$WORK/ping.log")"
}

# guest_stop() - stop the relay guest and remove its namespace
guest_stop() {
	kill "$RELAY_PID" 2>/dev/null
	wait "$RELAY_PID" 2>/dev/null
	ip netns del "$NS_GUEST" 2>/dev/null
}

# wait_gone() - wait until a process has exited
# $1: pid, $2: what, for the message
wait_gone() {
	for _ in $(seq 50); do
		topo_alive "$1" || return 0
		sleep 0.1
	done
	fail "$2 still runs after 5 s"
}

# pod_netshim_pids() - netshim processes running in the pod namespace
pod_netshim_pids() {
	local pid

	for pid in $(ip netns pids "$NS_POD"); do
		[ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$NETSHIM")" ] &&
			echo "$pid"
	done
}

topo_init
topo_peer_pod
chmod 1777 "$WORK"
sock=$WORK/backend.sock

# --- libvirt 9.0 ---------------------------------------------------------
in_pod timeout 10 "$NETSHIM" --one-off --socket "$sock" --mac-addr "$MAC" \
	"${DNS[@]}" >"$WORK/libvirt9.out" 2>&1 ||
	fail "libvirt 9.0 command line: exit $?: $(tail -3 "$WORK/libvirt9.out")"
[ -S "$sock" ] || fail "libvirt 9.0: no socket once the command returned"
pid=$(pod_netshim_pids)
[ -n "$pid" ] || fail "libvirt 9.0: no daemon running"
topo_pid_add "$pid"
topo_relay_guest
# libvirt gives the guest this MAC address: set it as QEMU would
ip -n "$NS_GUEST" link set tap0 address "$MAC" || fail "tap0 MAC"
guest_lease "$WORK/libvirt9.env"
guest_ping
guest_stop
wait_gone "$pid" "libvirt 9.0: --one-off daemon, the VMM gone,"
[ ! -e "$sock" ] || fail "libvirt 9.0: socket left behind"
log "ok: libvirt 9.0 command line: daemon, DHCP, ping, one-off exit"

# --- libvirt 11.x ----------------------------------------------------------
pidf=$WORK/libvirt11.pid
logf=$WORK/libvirt11.log
: >"$logf"
chown 4242:4242 "$logf"
# virCommandClearCaps(), as the qemu user
ip netns exec "$NS_POD" setpriv --reuid=4242 --regid=4242 --clear-groups \
	--inh-caps=-all --bounding-set=-all \
	"$NETSHIM" --one-off --socket "$sock" --pid "$pidf" --mtu 1500 \
	--interface pod0 --log-file "$logf" --hostname vm1 \
	--fqdn vm1.netshim.test --address 203.0.113.2 --netmask 24 \
	--address 2001:db8:1::2 --tcp-ports 2222:22 --udp-ports 5353:53 \
	"${DNS[@]}" >"$WORK/libvirt11.out" 2>&1 ||
	fail "libvirt 11 command line: exit $?: $(tail -3 "$logf" "$WORK/libvirt11.out")"
# libvirt reads the PID file as soon as the command returns
[ -s "$pidf" ] || fail "libvirt 11: no PID file when the command returned"
pid=$(cat "$pidf")
topo_pid_add "$pid"
topo_alive "$pid" || fail "libvirt 11: PID $pid of the PID file not running"
[ "$(stat -c %u "/proc/$pid")" = 4242 ] ||
	fail "libvirt 11: daemon runs as uid $(stat -c %u "/proc/$pid")"
grep -q '^CapEff:[[:space:]]*0*$' "/proc/$pid/status" ||
	fail "libvirt 11: daemon has capabilities"
in_pod ss -Htln 'sport = :2222' | grep -q . ||
	fail "libvirt 11: TCP port 2222 not forwarded"
topo_relay_guest
guest_lease "$WORK/libvirt11.env" -F vm1
[ "$(topo_env_get "$WORK/libvirt11.env" hostname)" = vm1 ] ||
	fail "libvirt 11: --hostname not in the lease: $(cat "$WORK/libvirt11.env")"
# udhcpc -F sends option 81 with S set and the name in ASCII (E clear);
# busybox hands the reply's option 81 to its script as hex.  RFC 4702:
# flags N|O (0x0a: no update by the server, the client's S overridden),
# RCODEs 255, the name in the client's encoding
fqdn_hex=0affff$(printf vm1.netshim.test | od -An -tx1 | tr -d ' \n')
got=$(topo_env_get "$WORK/libvirt11.env" opt81)
[ "$got" = "$fqdn_hex" ] ||
	fail "libvirt 11: option 81 is '$got', expected $fqdn_hex"
guest_ping
# ISC dhclient -6 asks for the FQDN (option 39) with S set, and reads the
# reply as a client does: the name, and the server updating no record
guest_slaac
cat >"$WORK/fqdn6.conf" <<-EOF
	timeout 10;
	send fqdn.fqdn "vm1";
	send fqdn.server-update on;
	EOF
cat >"$WORK/fqdn6.script" <<-EOF
	#!/bin/sh
	env | grep -E '^(reason|new_fqdn_)' >>"$WORK/fqdn6.env"
	EOF
chmod +x "$WORK/fqdn6.script"
in_guest timeout 20 dhclient -6 -1 -cf "$WORK/fqdn6.conf" \
	-sf "$WORK/fqdn6.script" -lf "$WORK/fqdn6.leases" \
	-pf "$WORK/fqdn6.pid" tap0 >"$WORK/fqdn6.log" 2>&1 ||
	fail "libvirt 11: DHCPv6 failed: $(tail -3 "$WORK/fqdn6.log")"
topo_pid_add "$(cat "$WORK/fqdn6.pid" 2>/dev/null)"
[ "$(topo_env_get "$WORK/fqdn6.env" new_fqdn_fqdn)" = vm1.netshim.test ] ||
	fail "libvirt 11: DHCPv6 FQDN: $(cat "$WORK/fqdn6.env")"
[ "$(topo_env_get "$WORK/fqdn6.env" new_fqdn_server_update)" = false ] ||
	fail "libvirt 11: DHCPv6 FQDN flags: $(cat "$WORK/fqdn6.env")"
kill "$(cat "$WORK/fqdn6.pid")" 2>/dev/null
# qemuPasstKill(): SIGTERM to the PID of the PID file
kill -TERM "$pid"
wait_gone "$pid" "libvirt 11: daemon after SIGTERM"
[ ! -e "$sock" ] || fail "libvirt 11: socket left behind"
[ ! -e "$pidf" ] || fail "libvirt 11: PID file left behind"
grep -q 'VMM connected' "$logf" || fail "libvirt 11: nothing in --log-file"
guest_stop
log "ok: libvirt 11 command line: unprivileged, PID file, forwarding, host name, FQDN (udhcpc, dhclient -6), ping"

# --- KubeVirt passt binding ------------------------------------------------
pidf=$WORK/kubevirt.pid
logf=$WORK/passt.log
ip netns exec "$NS_POD" setpriv --reuid=4243 --regid=4243 --clear-groups \
	--inh-caps=-all --bounding-set=-all \
	"$NETSHIM" --one-off --socket "$sock" --pid "$pidf" \
	--interface pod0 --log-file "$logf" --tcp-ports 8080 \
	"${DNS[@]}" >"$WORK/kubevirt.out" 2>&1 ||
	fail "KubeVirt command line: exit $?: $(cat "$WORK/kubevirt.out")"
pid=$(cat "$pidf")
topo_pid_add "$pid"
topo_relay_guest
guest_lease "$WORK/kubevirt.env"
# The VMI's port: a connection from the peer reaches the guest's server
ip netns exec "$NS_GUEST" timeout 10 socat TCP-LISTEN:8080,reuseaddr \
	SYSTEM:'echo kubevirt-port' >/dev/null 2>&1 &
topo_pid_add $!
for _ in $(seq 30); do
	in_guest ss -Htln 'sport = :8080' | grep -q . && break
	sleep 0.1
done
got=$(in_peer timeout 5 socat -T 3 - TCP:203.0.113.2:8080 </dev/null 2>&1)
[ "$got" = kubevirt-port ] || fail "KubeVirt: port 8080 answered '$got'"
guest_ping
guest_stop
wait_gone "$pid" "KubeVirt: --one-off daemon, the VMM gone,"
log "ok: KubeVirt command line: forwarded port, ping, one-off exit"

# --- QEMU 10.1 -netdev passt -------------------------------------------------
pidf=$WORK/qemu.pid
# As QEMU: a socketpair, our end kept, the other as fd 3 of the back-end;
# wait for its exit status, read the PID file; then our end is joined to
# a UNIX socket for the relay guest, as QEMU's NIC would use it
ip netns exec "$NS_POD" python3 - "$NETSHIM" "$pidf" "$sock" \
	"$WORK/qemu.status" <<'EOF' >"$WORK/qemu.out" 2>&1 &
import fcntl, os, socket, subprocess, sys

netshim, pidf, path, status = sys.argv[1:5]
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
# Away from 3, which the back-end gets
ours = fcntl.fcntl(a.fileno(), fcntl.F_DUPFD, 10)
theirs = fcntl.fcntl(b.fileno(), fcntl.F_DUPFD, 10)
a.close()
b.close()
os.dup2(theirs, 3, inheritable=True)
os.close(theirs)
rc = subprocess.call([netshim, "--quiet", "--mtu", "1500",
                      "--dns", "203.0.113.1", "--pid", pidf, "--fd", "3"],
                     pass_fds=(3,))
os.close(3)
with open(status, "w") as f:
    f.write("%d %s\n" % (rc, open(pidf).read().strip() if rc == 0 else "-"))
if rc:
    sys.exit(1)
os.set_inheritable(ours, True)
os.execvp("socat", ["socat", "UNIX-LISTEN:" + path, "FD:%d" % ours])
EOF
qemu_pid=$!
topo_pid_add "$qemu_pid"
for _ in $(seq 50); do
	[ -S "$sock" ] && break
	topo_alive "$qemu_pid" ||
		fail "QEMU side exited: $(cat "$WORK/qemu.out" "$WORK/qemu.status" 2>&1)"
	sleep 0.1
done
[ -S "$sock" ] || fail "QEMU side: no socket for the relay"
read -r rc pid <"$WORK/qemu.status"
[ "$rc" = 0 ] || fail "QEMU -netdev passt command line: exit $rc"
topo_pid_add "$pid"
topo_alive "$pid" || fail "QEMU: PID $pid of the PID file not running"
topo_relay_guest
guest_lease "$WORK/qemu.env"
guest_ping
# QEMU closes its end: the back-end exits
guest_stop
kill "$qemu_pid" 2>/dev/null
wait_gone "$pid" "QEMU: back-end after its socketpair closed"
log "ok: QEMU -netdev passt command line: --fd socketpair, PID file, ping, exit with the VMM"
