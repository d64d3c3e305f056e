#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The test guest of tests/vm booted by libvirt, with netshim as the "passt"
# libvirt starts for <interface type='user'><backend type='passt'/>.
#
# A libvirt daemon of this test's own (libvirtd, monolithic, foreground)
# runs in the pod namespace, in a private mount namespace where
# /etc/libvirt, /run, /var/lib/libvirt, /var/cache/libvirt and
# /var/log/libvirt are directories under $WORK, and /etc/resolv.conf is the
# pod's (the peer's DNS): it cannot meet the machine's own libvirt, its
# networks or its resolvers, and everything it leaves goes with $WORK.
# libvirt finds "passt" in its PATH, where $WORK/lv/bin/passt is netshim.
# virsh creates a transient domain (direct kernel boot, serial console to
# a file) that runs the "check" scenario: DHCPv4, SLAAC, DHCPv6, ping, DNS,
# TCP and UDP over IPv4 and IPv6, then powers off.
#
# Checks: the domain's interface has the passt backend, the process libvirt
# started for it is netshim, running as libvirt's unprivileged user, the
# domain's forwarded ports are its sockets in the pod, and every result of
# the guest is ok with the pod's addresses and DNS. The argv libvirt gave
# the backend is logged; on failure, the backend's log (libvirt's
# --log-file), libvirt's logs and the guest's console are printed.
#
# LV_IFACE=vhostuser (tests/integration/t_libvirt_vhost.sh) makes the NIC
# <interface type='vhostuser'> with the same passt backend, and the
# domain's RAM a shared memfd (libvirt 11.1+ then runs the backend with
# --vhost-user, QEMU is its vhost-user front-end): the live XML must show
# that interface, the backend's command line --vhost-user, and QEMU's a
# vhost-user netdev on the backend's --socket. The NIC then has
# LV_QUEUES queue pairs (<driver queues='N'/>, KubeVirt's
# networkInterfaceMultiqueue; default 2, 1 for passt, whose vhost-user
# serves one) and the domain as many vCPUs: the guest runs its checks
# from the last one, and their answers must come back on the last
# pair's receive queue (vm_check_queues).
#
# BACKEND=passt runs Debian's passt (or PASST=path) through the same
# harness; VM_ACCEL=kvm|tcg forces the accelerator, VM_TIMEOUT (default
# 200) bounds the guest's run in seconds, VM_TCP_MIB its TCP payloads.

set -u
TESTDIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
VM=$TESTDIR/../vm
. "$TESTDIR/../lib/topo.sh"
. "$VM/peer.sh"

LV_USER=libvirt-qemu
# The guest talks to a host beyond the router, as a pod's DNS server and
# services are: libvirt gives passt no --no-map-gw, so passt takes the
# router's own address for the pod itself.
PEER4=198.51.100.1
PEER6=2001:db8:2::1
export VM_PEER4=$PEER4 VM_PEER6=$PEER6
# Ports the domain forwards to the guest
FWD_TCP=8022
FWD_UDP=5353
# The guest's payloads: the link is what is tested here, tests/vm moves
# the big ones.
export VM_TCP_MIB=${VM_TCP_MIB:-4}
# The domain's NIC: user (passt over a stream socket) or vhostuser
LV_IFACE=${LV_IFACE:-user}
case "$LV_IFACE" in
user) MEMBACKING= ;;
vhostuser)
	# vhost-user maps the guest's RAM in the back-end: it must be
	# shared memory libvirt can pass as a file descriptor
	MEMBACKING="<memoryBacking><source type='memfd'/><access mode='shared'/></memoryBacking>" ;;
*) echo "t_libvirt: unknown LV_IFACE=$LV_IFACE (user or vhostuser)" >&2
	exit 1 ;;
esac
# Queue pairs of a vhostuser NIC, one vCPU each
if [ "$LV_IFACE" = user ] || [ "${BACKEND:-netshim}" = passt ]; then
	LV_QUEUES=${LV_QUEUES:-1}
else
	LV_QUEUES=${LV_QUEUES:-2}
fi
LV_DRIVER=
LV_CPU=
if [ "$LV_QUEUES" -gt 1 ]; then
	LV_DRIVER="<driver queues='$LV_QUEUES'/>"
	LV_CPU="netshim.cpu=$((LV_QUEUES - 1))"
fi

# lv_virsh() - virsh connected to this test's libvirt daemon
# $@: virsh arguments
lv_virsh() {
	virsh -q -c "qemu:///system?socket=$LV/sock/libvirt-sock" "$@"
}

# lv_fail() - print what libvirt, the backend and the guest said, then fail
# $@: message
lv_fail() {
	local f

	for f in "$LV/out/backend.log" "$LV/log/qemu/$DOM.log" \
		 "$LV/out/libvirtd.log" "$LV/out/console.log"; do
		[ -s "$f" ] || continue
		echo "--- ${f#"$WORK"/} (tail)" >&2
		# Not QEMU's command line (one option a line), nor libvirt
		# missing the /dev/kvm this test does not need
		grep -v -e ' \\$' -e '/dev/kvm' "$f" | tail -n 30 >&2
	done
	echo "---" >&2
	fail "$@"
}

# lv_reachable() - whether libvirt's unprivileged user can read a file
# $1: path
lv_reachable() {
	setpriv --reuid="$LV_USER" --regid="$LV_USER" --clear-groups \
		test -r "$1"
}

# lv_provide() - put a file where the guest's processes can read it: a
# symlink when its own path is reachable, a copy otherwise (a clone under
# /root is not)
# $1: source, $2: destination
lv_provide() {
	if lv_reachable "$1"; then
		ln -s "$1" "$2"
	else
		cp "$1" "$2"
	fi
}

# lv_setup() - the daemon's private directories, configuration, and the
# "passt" it will find first in its PATH
lv_setup() {
	local backend

	LV=$WORK/lv
	mkdir -p "$LV"/{etc,run,lib,cache,log,sock,bin,sbin,boot,out} ||
		fail "cannot create $LV"
	# out/: the console and the backend's log are written as $LV_USER
	chmod 1777 "$LV/out"
	chmod 755 "$WORK"

	case "$BACKEND" in
	netshim) backend=$NETSHIM ;;
	passt) backend=$(command -v "${PASST:-passt}") ||
		fail "no passt binary (${PASST:-passt})" ;;
	*) fail "unknown BACKEND=$BACKEND (netshim or passt)" ;;
	esac
	[ -x "$backend" ] || fail "$backend not built (make)"
	lv_provide "$backend" "$LV/bin/passt"
	# Debian's AppArmor profile attaches to /usr/sbin/libvirtd by path
	# and lets it execute programs of /usr/bin, /usr/sbin... only, not
	# a netshim of this tree: where AppArmor is on, only a daemon
	# started from another path can run it (users of a confined
	# libvirtd allow their netshim in local/usr.sbin.libvirtd)
	cp "$(command -v libvirtd)" "$LV/sbin/libvirtd"
	lv_provide "$KERNEL" "$LV/boot/vmlinuz"
	lv_provide "$INITRD" "$LV/boot/initramfs.cpio.gz"

	# The pod's resolver in its /etc/resolv.conf, which the backend
	# reads to answer the guest's DHCP and RAs
	printf 'nameserver %s\nnameserver %s\nsearch netshim.test\n' \
		"$PEER4" "$PEER6" >"$LV/resolv.conf"

	cat >"$LV/etc/libvirtd.conf" <<-EOF
	unix_sock_dir = "$LV/sock"
	unix_sock_rw_perms = "0700"
	unix_sock_ro_perms = "0700"
	unix_sock_admin_perms = "0700"
	auth_unix_ro = "none"
	auth_unix_rw = "none"
	log_outputs = "3:file:$LV/out/libvirtd.log"
	EOF
	# No virtlogd (stdio_handler), no file relabelling (the kernel is
	# the machine's), no cgroups or /dev namespace: only the network
	# back-end is under test, and nothing outside $WORK may change
	cat >"$LV/etc/qemu.conf" <<-EOF
	user = "$LV_USER"
	group = "$LV_USER"
	stdio_handler = "file"
	security_driver = "none"
	dynamic_ownership = 0
	remember_owner = 0
	namespaces = [ ]
	cgroup_controllers = [ ]
	EOF
}

# lv_daemon() - start libvirtd in the pod, in a private mount namespace,
# and wait for its socket
lv_daemon() {
	local _

	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$NS_POD" unshare --mount --propagation private \
		sh -c '
		set -e
		LV=$1
		mount --bind "$LV/etc" /etc/libvirt
		mount --bind "$LV/run" /run
		mount --bind "$LV/lib" /var/lib/libvirt
		mount --bind "$LV/cache" /var/cache/libvirt
		mount --bind "$LV/log" /var/log/libvirt
		mount --bind "$LV/resolv.conf" /etc/resolv.conf
		PATH=$LV/bin:$PATH exec "$LV/sbin/libvirtd"' lv "$LV" \
		>"$LV/out/libvirtd.out" 2>&1 &
	LV_PID=$!
	topo_pid_add "$LV_PID"
	for _ in $(seq 150); do
		[ -S "$LV/sock/libvirt-sock" ] &&
			lv_virsh version >/dev/null 2>&1 && return 0
		kill -0 "$LV_PID" 2>/dev/null ||
			fail "libvirtd exited: $(tail -5 "$LV/out/libvirtd.out")"
		sleep 0.1
	done
	fail "libvirtd socket not there after 15 s"
}

# lv_domain_xml() - print the domain: direct kernel boot of the test guest,
# serial console to a file, one NIC on the passt back-end with what users
# set there (template interface, the guest's addresses, forwarded ports),
# so that libvirt passes those options too
# $1: libvirt domain type (kvm or qemu)
lv_domain_xml() {
	cat <<-EOF
	<domain type='$1'>
	  <name>$DOM</name>
	  <memory unit='MiB'>512</memory>
	  <vcpu>$LV_QUEUES</vcpu>
	  $MEMBACKING
	  <os>
	    <type arch='x86_64'>hvm</type>
	    <kernel>$LV/boot/vmlinuz</kernel>
	    <initrd>$LV/boot/initramfs.cpio.gz</initrd>
	    <cmdline>console=ttyS0 quiet panic=-1 netshim.run=check netshim.tcp_mib=$VM_TCP_MIB netshim.peer4=$PEER4 netshim.peer6=$PEER6 $LV_CPU</cmdline>
	  </os>
	  <features><acpi/></features>
	  <on_poweroff>destroy</on_poweroff>
	  <on_reboot>destroy</on_reboot>
	  <on_crash>destroy</on_crash>
	  <devices>
	    <interface type='$LV_IFACE'>
	      <mac address='52:54:00:12:34:56'/>
	      <source dev='pod0'/>
	      <ip family='ipv4' address='203.0.113.2' prefix='24'/>
	      <ip family='ipv6' address='2001:db8:1::2'/>
	      <portForward proto='tcp'>
	        <range start='$FWD_TCP' to='22'/>
	      </portForward>
	      <portForward proto='udp' address='203.0.113.2'>
	        <range start='$FWD_UDP'/>
	      </portForward>
	      <model type='virtio'/>
	      $LV_DRIVER
	      <backend type='passt' logFile='$LV/out/backend.log'/>
	      <rom enabled='no'/>
	    </interface>
	    <serial type='file'>
	      <source path='$LV/out/console.raw'/>
	    </serial>
	    <memballoon model='none'/>
	  </devices>
	</domain>
	EOF
}

# lv_backend_pid() - print the pid of the back-end libvirt started, from the
# pid file it passed (--pid)
lv_backend_pid() {
	cat "$LV"/run/libvirt/qemu/passt/*-passt.pid 2>/dev/null | head -n 1
}

# lv_qemu_vhost() - check that QEMU's NIC is a vhost-user netdev on the
# socket libvirt gave the backend, so that the guest's frames go through
# the backend's vhost-user rings
# $1: pid of the backend
lv_qemu_vhost() {
	local qpid sock

	qpid=$(cat "$LV/run/libvirt/qemu/$DOM.pid" 2>/dev/null)
	if [ -z "$qpid" ] || [ ! -r "/proc/$qpid/cmdline" ]; then
		lv_fail "no QEMU process for $DOM"
	fi
	tr '\0' '\n' <"/proc/$qpid/cmdline" >"$LV/out/qemu.argv"
	sock=$(tr '\0' '\n' <"/proc/$1/cmdline" | sed -n '/^--socket$/{n;p;q}')
	[ -n "$sock" ] || lv_fail "no --socket in the backend's argv"
	grep -q '"type":"vhost-user"' "$LV/out/qemu.argv" ||
		lv_fail "QEMU has no vhost-user netdev"
	grep -q "path=$sock" "$LV/out/qemu.argv" ||
		lv_fail "QEMU has no chardev on the backend's socket $sock"
	log "ok: QEMU: $(grep -o -e '{"type":"vhost-user"[^}]*}' \
		-e '[^ ]*path='"$sock"'[^ ]*' \
		-e '{"qom-type":"memory-backend-memfd"[^}]*}' \
		"$LV/out/qemu.argv" | tr '\n' ' ')"
}

# lv_inspect() - while the guest runs: the interface's backend in the live
# XML, and the back-end process: its argv, its user, that it is netshim
lv_inspect() {
	local pid _ exe

	lv_virsh dumpxml "$DOM" >"$LV/out/live.xml" ||
		lv_fail "virsh dumpxml $DOM failed"
	grep -q "<backend type='passt'" "$LV/out/live.xml" ||
		lv_fail "the live domain has no passt backend"
	grep -q "<interface type='$LV_IFACE'" "$LV/out/live.xml" ||
		lv_fail "the live domain has no $LV_IFACE interface"
	log "ok: live domain: $(grep -o -e "<interface [^>]*>" \
		-e "<backend [^>]*>" -e "<source type='memfd'/>" \
		-e "<access mode='shared'/>" "$LV/out/live.xml" | tr '\n' ' ')"
	lv_virsh domiflist "$DOM" | sed 's/^/domiflist: /' >&2

	for _ in $(seq 50); do
		pid=$(lv_backend_pid)
		[ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] || lv_fail "no pid file of the backend"
	tr '\0' ' ' <"/proc/$pid/cmdline" >"$LV/out/backend.argv"
	log "backend argv from libvirt: $(cat "$LV/out/backend.argv")"
	# libvirt tells the backend to be a vhost-user back-end with
	# --vhost-user: without it QEMU could not connect
	if [ "$LV_IFACE" = vhostuser ]; then
		tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qx -- --vhost-user ||
			lv_fail "no --vhost-user in the backend's argv"
		log "ok: the backend runs with --vhost-user"
		lv_qemu_vhost "$pid"
	fi
	exe=$(readlink "/proc/$pid/exe")
	# Debian's passt re-executes itself as passt.avx2 where it can
	case "$exe" in
	"$(readlink -f "$LV/bin/passt")" | "$(readlink -f "$LV/bin/passt")".avx2) ;;
	*) lv_fail "the backend libvirt runs is $exe, not $LV/bin/passt" ;;
	esac
	[ "$(stat -c %U "/proc/$pid")" = "$LV_USER" ] ||
		lv_fail "the backend runs as $(stat -c %U "/proc/$pid")"
	log "ok: backend pid $pid is $exe, user $LV_USER"
	# The <portForward>s: the pod's ports are the backend's sockets
	for _ in $(seq 50); do
		lv_forwarded "$pid" && break
		sleep 0.1
	done
	in_pod ss -Hltnp "sport = :$FWD_TCP" | grep -q "pid=$pid," ||
		lv_fail "backend does not listen on TCP port $FWD_TCP"
	lv_forwarded "$pid" ||
		lv_fail "backend has no UDP socket on 203.0.113.2:$FWD_UDP"
	log "ok: forwarded TCP port $FWD_TCP and UDP 203.0.113.2:$FWD_UDP"
}

# lv_forwarded() - whether a process has the sockets of the domain's
# forwarded ports in the pod
# $1: pid
lv_forwarded() {
	in_pod ss -Hltnp "sport = :$FWD_TCP" | grep -q "pid=$1," &&
		in_pod ss -Hlunp "sport = :$FWD_UDP" | grep "pid=$1," |
		grep -q '203\.0\.113\.2:'
}

# lv_wait_guest() - wait for the transient domain to power off and vanish
# $1: seconds at most
lv_wait_guest() {
	local end=$((SECONDS + $1))

	while lv_virsh domstate "$DOM" >/dev/null 2>&1; do
		if [ $SECONDS -ge "$end" ]; then
			lv_virsh destroy "$DOM" >/dev/null 2>&1
			lv_fail "the guest still runs after $1 s"
		fi
		sleep 1
	done
	tr -d '\r' <"$LV/out/console.raw" |
		sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' \
		>"$LV/out/console.log"
	grep -q '^NETSHIM-DONE' "$LV/out/console.log" ||
		lv_fail "the guest did not finish"
}

# expect() - fail unless a result of the guest is ok (vm_check)
# $1: key, $2: extended regular expression the value must match (optional)
expect() {
	local e

	e=$(vm_check "$LV/out/console.log" "$@") || lv_fail "$e"
}

for c in libvirtd virsh unshare setpriv; do
	command -v "$c" >/dev/null || fail "$c missing (contrib/install-deps.sh)"
done
id "$LV_USER" >/dev/null 2>&1 || fail "no user $LV_USER (libvirt-daemon-system)"
# Debian 12's libvirt 9.0 refuses the passt backend (a Debian patch)
v=$(libvirtd --version | awk '{ print $NF }')
dpkg --compare-versions "$v" ge 11.3 ||
	fail "libvirtd $v: 11.3 or later needed (contrib/install-deps.sh)"

topo_init
DOM=netshim-$ID
"$VM/mkinitramfs.sh" "$REPO/build/vm" || fail "cannot build the initramfs"
KERNEL=$(cat "$REPO/build/vm/kernel")
INITRD=$REPO/build/vm/initramfs.cpio.gz
case "$("$VM/run-vm.sh" --accel)" in
kvm) DOMTYPE=kvm ;;
*) DOMTYPE=qemu ;;
esac
topo_peer_pod
topo_dns "$PEER4" "$PEER6"
vm_peer_servers
lv_setup
lv_daemon
log "libvirtd $(lv_virsh version | sed -n 's/.*libvirt \([0-9.]*\)$/\1/p' | head -1), domain type $DOMTYPE, backend $BACKEND, interface $LV_IFACE"

lv_domain_xml "$DOMTYPE" >"$LV/domain.xml"
start=$SECONDS
# Bounded: when the back-end does not answer as a vhost-user back-end,
# QEMU's start waits for it and virsh create with it (libvirt's QEMU log,
# printed by lv_fail, has the back-end's argv and QEMU's error)
timeout 60 virsh -q -c "qemu:///system?socket=$LV/sock/libvirt-sock" \
	create "$LV/domain.xml" >"$LV/out/create.log" 2>&1 ||
	lv_fail "virsh create failed or took over 60 s: $(cat "$LV/out/create.log")"
lv_inspect
lv_wait_guest "${VM_TIMEOUT:-200}"
log "guest ran $((SECONDS - start)) s"

expect dhcp4 ' 203\.0\.113\.2/24$'
[ "$(vm_result "$LV/out/console.log" dhcp4_router)" = 203.0.113.1 ] ||
	lv_fail "DHCPv4 router: $(vm_result "$LV/out/console.log" dhcp4_router)"
expect slaac ' 2001:db8:1:0:[0-9a-f:]+/64$'
expect dhcp6 ' 2001:db8:1::2/'
expect ping4
expect ping6
[ "$(vm_result "$LV/out/console.log" dhcp4_dns)" = "$PEER4" ] ||
	lv_fail "DHCPv4 DNS: $(vm_result "$LV/out/console.log" dhcp4_dns)"
vm_result "$LV/out/console.log" dhcp6_dns | grep -qw "$PEER6" ||
	lv_fail "DHCPv6 DNS: $(vm_result "$LV/out/console.log" dhcp6_dns)"
expect dns ' 203\.0\.113\.1 .*2001:db8:1::1'
for k in tcp4_up tcp4_down tcp6_up tcp6_down udp4_echo udp6_echo; do
	expect "$k"
done
for k in tcp4_halfclose tcp6_halfclose; do
	# Debian 12's passt does not pass the peer's FIN on after the
	# guest's (see tests/vm/t_vm.sh; passt 2025_05_03 does): recorded
	if [ "$BACKEND" = passt ]; then
		log "passt: $k $(vm_result "$LV/out/console.log" "$k")"
		continue
	fi
	expect "$k"
done
if [ "$LV_QUEUES" -gt 1 ]; then
	grep -q "<driver queues='$LV_QUEUES'/>" "$LV/out/live.xml" ||
		lv_fail "the live domain's NIC has not $LV_QUEUES queues"
	grep -q "queues=$LV_QUEUES\|\"queues\":$LV_QUEUES" "$LV/out/qemu.argv" ||
		lv_fail "libvirt gave QEMU no queues=$LV_QUEUES"
	e=$(vm_check_queues "$LV/out/console.log" "$LV_QUEUES") || lv_fail "$e"
fi
[ -s "$LV/out/backend.log" ] && log "backend log: $(wc -l <"$LV/out/backend.log") lines"
log "guest check passed through libvirt with $BACKEND as passt, interface $LV_IFACE"
