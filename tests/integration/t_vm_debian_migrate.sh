#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
# run.sh timeout: 600
#
# Live migration of a distribution's guest, configured as a stock cloud
# image is: the Debian 12 guest of t_vm_debian.sh (systemd-networkd with
# DHCP=yes, its IPv6 address by SLAAC from the back-end's router
# advertisements, systemd-resolved), here with RFC 4941 temporary
# addresses too (IPv6PrivacyExtensions=yes, netshim.privacy=1), on QEMU
# 10's vhost-user front-end,
# moved to a new QEMU on a new back-end in the same pod, each with its
# repair helper, as t_vm_migrate.sh moves the busybox guest.  The two
# QEMUs share the guest's disk (a copy of the image for this test), as
# two nodes share a volume.  Once networkd calls the link routable, the
# guest (netshim-check, netshim.mode=migrate) starts two downloads from
# the peer, over IPv4 and over IPv6, of "%15d\n" lines numbered from 0,
# and says it is ready; the test migrates it, tells it so (a page on
# the peer's web server), and a few seconds later ends both streams.
# From the destination the guest checks:
#   - both downloads ended on the connections they started on, every line
#     in its place, after the migration was over, and as many lines as
#     the peer sent (the test compares), with no reset counted;
#   - it holds the addresses it had, IPv4 and IPv6, the temporary one
#     among them;
#   - resolved resolves, and curl reaches the peer and the host behind it
#     by name over both families and from each IPv6 address, through the
#     neighbour entries and routes it kept;
#   - networkctl renew keeps the DHCPv4 lease;
#   - after networkctl reconfigure (the link configured from nothing, as
#     after a reboot) it is routable again with the same checks passing.
# BACKEND=passt PASST=... runs passt 2026 and its passt-repair through the
# same test (MIG_HELPER overrides the helper).

set -u
VM=$(cd "$(dirname "$(readlink -f "$0")")/../vm" && pwd)
. "$VM/../lib/topo.sh"
. "$VM/peer.sh"
. "$VM/debian/lib.sh"
. "$VM/migrate-lib.sh"

LONG_PORT=5320
if [ "$BACKEND" = passt ]; then
	MIG_HELPER=${MIG_HELPER:-$(dirname "${PASST:-passt}")/passt-repair}
	MIG_OPTS=(--migrate-no-linger)
else
	MIG_HELPER=${MIG_HELPER:-$REPO/build/netshim-repair}
	MIG_OPTS=(--migrate-exit --migrate-no-linger)
fi

# guest() - the Debian guest's QEMU on back-end NAME, console in
# $WORK/vm-NAME.log, QMP on $WORK/NAME.qmp; with a second argument,
# waiting for the migration
# $1: NAME, $2: anything to start it with -incoming defer
guest() {
	local name=$1

	NETDEV=vhost-user VM_QMP="$WORK/$name.qmp" VM_LOG="$WORK/vm-$name.log" \
		VM_INCOMING=${2:+defer} VM_QUIET=1 VM_MEM=1024 \
		VM_PIDFILE="$WORK/$name.qemu.pid" VM_TIMEOUT=560 \
		VM_INITRD="$IMG/initrd.gz" VM_DISK="$WORK/disk.img" \
		VM_DISK_SHARED=1 "$VM/run-vm.sh" debian "$WORK/$name.sock" \
		netshim.token="$TOKEN" netshim.mode=migrate netshim.privacy=1 \
		>"$WORK/run-$name.out" 2>&1 &
	QRUN[$name]=$!
	topo_pid_add $!
	topo_wait_file "$WORK/$name.qemu.pid" &&
		topo_pid_add "$(cat "$WORK/$name.qemu.pid")"
}

topo_init
deb_image
topo_peer_pod
topo_dns
deb_www "$NS_PEER" peer
# The endless page, over both families: an HTTP/1.0 answer of numbered
# lines at 200 KB/s until the stop file is there, then the end
vm_peer_start long python3 -c '
import os, socket, sys, threading, time
def serve(c, a):
    n = 0
    try:
        c.recv(4096)
        c.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n")
        while not os.path.exists(sys.argv[2]):
            c.sendall(b"".join(b"%15d\n" % (n + i) for i in range(1280)))
            n += 1280
            time.sleep(0.1)
        c.shutdown(socket.SHUT_WR)
        print("long: %s sent %d lines" % (a[0].removeprefix("::ffff:"), n), flush=True)
        c.close()
    except OSError as e:
        print("long: %s broken after %d lines: %s" % (a[0].removeprefix("::ffff:"), n, e), flush=True)
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", int(sys.argv[1])))
s.listen(8)
while True:
    c, a = s.accept()
    threading.Thread(target=serve, args=(c, a), daemon=True).start()
' "$LONG_PORT" "$WORK/long.stop"
vm_peer_wait tcp 80
vm_peer_wait tcp "$LONG_PORT"
# The guest's disk, shared by both QEMUs: a sparse copy of the image
cp --sparse=always "$IMG/rootfs.img" "$WORK/disk.img" ||
	fail "cannot copy the guest's image"

backend n0 "${MIG_OPTS[@]}"
guest n0
start=$SECONDS
while ! grep -aq '^NETSHIM-READY migrate' "$WORK/vm-n0.log.raw" 2>/dev/null; do
	kill -0 "${QRUN[n0]}" 2>/dev/null ||
		fail "the guest ended before it was ready to migrate:" \
			"$(tail -n 5 "$WORK/run-n0.out")"
	[ $((SECONDS - start)) -lt 300 ] ||
		fail "the guest was not ready to migrate in 300 s"
	sleep 1
done
log "guest on line and downloading after $((SECONDS - start)) s"

backend n1 "${MIG_OPTS[@]}"
guest n1 incoming
# A helper on each side, as virt-handler starts them
helper n1
helper n0
topo_wait_file "$WORK/n1.qmp" ||
	fail "QEMU n1 did not start: $(tail -n 3 "$WORK/run-n1.out")"
qmp "$WORK/n1.qmp" "migrate-incoming {\"uri\": \"unix:$WORK/mig-n1.sock\"}" \
	>/dev/null || fail "QEMU n1: migrate-incoming refused"
mig_rst_drop
qmp "$WORK/n0.qmp" "migrate {\"uri\": \"unix:$WORK/mig-n1.sock\"}" \
	>"$WORK/qmp-migrate.out" 2>&1 ||
	fail "QEMU n0 refused to migrate: $(cat "$WORK/qmp-migrate.out")"
migration_wait n0 180
[ "$STATUS" = completed ] ||
	fail "migration n0 -> n1 $STATUS: $(cat "$WORK/query-migrate.out");" \
		"$(tail -n 3 "$WORK/backend-n0.log")"
SUMMARY="$(migration_field total-time) ms, downtime $(migration_field downtime) ms"
sleep 1
mig_rst_release "n0 -> n1"
log "n0 -> n1: $STATUS in $SUMMARY"
qmp "$WORK/n0.qmp" quit >/dev/null 2>&1
wait "${QRUN[n0]}"
helpers_gone n0 n1
if [ "$BACKEND" = netshim ]; then
	topo_wait_exit "${BPID[n0]}" ||
		fail "back-end n0 did not exit (--migrate-exit)"
else
	kill "${BPID[n0]}"	# its pod goes (passt deprecates --migrate-exit)
fi

# The guest hears it arrived, then the streams end while it is there
echo "ok migrated, $SUMMARY" >"$WORK/www/migrated"
sleep 5
touch "$WORK/long.stop"
wait "${QRUN[n1]}"
rc=$?
grep -a '^NETSHIM-' "$WORK/vm-n1.log" | grep -v '^NETSHIM-DIAG' >&2
[ "$rc" = 0 ] || {
	LOG=$WORK/vm-n1.log deb_show_diag
	fail "the guest did not finish at the destination (run-vm.sh $rc):" \
		"$(grep -v '^NETSHIM' "$WORK/vm-n1.log" | tail -n 10)"
}

# Before: on line as a cloud image gets there
for k in online ipv4_addr ipv6_addr temp6 route4 route6; do
	LOG=$WORK/vm-n0.log deb_expect "$k"
done
# After
LOG=$WORK/vm-n1.log deb_expect migrated
topo_wait_log "$WORK/peer-long.log" '^long: 203' 100
topo_wait_log "$WORK/peer-long.log" '^long: 2001' 100
for f in 4:203.0.113.2 6:2001:db8:1:; do
	LOG=$WORK/vm-n1.log deb_expect "long${f%%:*}_after"
	got=$(vm_result "$WORK/vm-n1.log" "long${f%%:*}_after")
	sent=$(grep "^long: ${f#*:}" "$WORK/peer-long.log")
	case "$sent" in
	"long: "*" sent "*" lines") ;;
	*) fail "IPv${f%%:*} download: the peer says '${sent:-nothing}'" ;;
	esac
	n=${sent% lines}
	n=${n##* }
	[ "${got%% *}" = "ok" ] && [ "$(echo "$got" | awk '{ print $2 }')" = "$n" ] ||
		fail "IPv${f%%:*} download: the peer sent $n lines, the guest" \
			"got: $got"
	log "ok: IPv${f%%:*} download kept across the migration: ${got#ok }"
done
for k in tcp_resets addrs dns http4_name http6_name http4_remote \
	http6_remote; do
	LOG=$WORK/vm-n1.log deb_expect "${k}_after"
done
LOG=$WORK/vm-n1.log deb_expect http6_src_after '^ok from 2001:db8:1:'
LOG=$WORK/vm-n1.log deb_expect dhcp4_renew '^ok renewed, 203\.0\.113\.2/24$'
LOG=$WORK/vm-n1.log deb_expect online_reconf
LOG=$WORK/vm-n1.log deb_expect link_reconf ' routable configured'
LOG=$WORK/vm-n1.log deb_expect ipv4_addr_reconf '^ok 203\.0\.113\.2/24$'
LOG=$WORK/vm-n1.log deb_expect ipv6_addr_reconf '^ok 2001:db8:1:'
for k in route4 route6 dns http4_name http6_name; do
	LOG=$WORK/vm-n1.log deb_expect "${k}_reconf"
done
LOG=$WORK/vm-n1.log deb_expect http6_src_reconf '^ok from 2001:db8:1:'

# The destination rebuilt both connections and served the renewal and
# the reconfiguration itself
if [ "$BACKEND" = netshim ]; then
	ln -sf backend-n1.log "$WORK/backend.log"
	BACKEND_PID=${BPID[n1]}
	for c in migrations_in:1 tcp_migrated:2 dhcp_replies:2 ndp_replies:1; do
		n=$(topo_counter "${c%:*}")
		[ "${n:-0}" -ge "${c#*:}" ] ||
			fail "destination: ${c%:*} is '$n', below ${c#*:}"
	done
fi
log "ok: Debian guest migrated ($SUMMARY) with both downloads kept;" \
	"addresses, names, renewal and reconfiguration fine at the destination"
