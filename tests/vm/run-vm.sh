#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-vm.sh - boot the test guest under QEMU and run one scenario
#
# Usage: tests/vm/run-vm.sh SCENARIO SOCKETPATH [KERNEL ARGS...]
#        tests/vm/run-vm.sh --accel
#
# The guest (Debian's kernel, the initramfs of mkinitramfs.sh) gets one
# virtio-net NIC on `-netdev stream` connected to SOCKETPATH, where netshim
# or passt listens, runs tests/vm/scenarios/SCENARIO.sh and powers off.
# Extra arguments go to the kernel command line (netshim.KEY=VALUE are the
# scenarios' parameters).
#
# Environment:
#   NETDEV=user     QEMU's built-in libslirp instead of the stream socket
#                   (SOCKETPATH is then ignored; run it in the pod netns;
#                   the guest gets 10.0.2.15, so pass netshim.server=)
#   NETDEV=vhost-user  QEMU is the vhost-user front-end of the back-end
#                   listening on SOCKETPATH (netshim --vhost-user, passt
#                   --vhost-user); guest RAM is a shared memfd.  Needs
#                   QEMU 10 (bookworm-backports): 7.2 hangs at DRIVER_OK
#                   under TCG
#   VM_REBOOT=1     let the guest reboot (no -no-reboot): a scenario that
#                   reboots then runs until VM_TIMEOUT or a kill of the
#                   pid in VM_PIDFILE
#   VM_PIDFILE=FILE QEMU's pid, written once it runs
#   VM_RECONNECT_MS=N  with NETDEV=vhost-user, QEMU reconnects to the
#                   back-end every N ms when it goes (reconnect-ms=)
#   VM_SERVER=1     QEMU listens on SOCKPATH and the back-end connects
#                   (netshim --connect): -netdev stream,server=on, or
#                   -chardev socket,server=on under vhost-user, which
#                   waits for the back-end before the guest starts (QEMU
#                   does for vhost-user whatever wait= says).  The socket
#                   is made under umask 0, as a launcher running QEMU as
#                   another user than the back-end must: netshim drops
#                   root, and connect() needs write permission
#   VM_LOG=FILE     console log (default build/vm/SCENARIO.log), with the
#                   serial line's carriage returns removed
#   VM_QUIET=1      do not copy the console to stdout
#   VM_TIMEOUT=SEC  hard limit of the whole run (default 300)
#   VM_ACCEL=kvm|tcg  skip the probe
#   VM_PCAP=FILE    record the guest's frames (QEMU filter-dump)
#   VM_INITRD=FILE  boot this initramfs instead of mkinitramfs.sh's; then
#                   SCENARIO need not be one of scenarios/ (the Debian
#                   guest of tests/vm/debian/ runs its own checks)
#   VM_DISK=FILE    raw disk image on virtio-blk (/dev/vda), opened with
#                   snapshot=on: the guest's writes never reach FILE
#   VM_DISK_SHARED=1  write VM_DISK in place instead: a test's own copy of
#                   the image, which a live migration's source and
#                   destination QEMUs share as two nodes share storage
#   VM_MEM=MIB      guest memory (default 512)
#   VM_MAXMEM=MIB   room for memory hot-plug: two DIMM slots, up to this
#                   much memory in all (-m MEM,slots=2,maxmem=MAXMEM)
#   VM_QMP=SOCKET   a QMP monitor on this UNIX socket (tests/vm/qmp.py)
#   VM_INCOMING=URI  wait for a live migration's state (-incoming URI,
#                   "defer" to be given one with QMP migrate-incoming):
#                   the guest then runs where the source's left off
#   VM_QUEUES=N     with NETDEV=vhost-user, N queue pairs (queues=N, and
#                   mq=on on the device, as libvirt writes <driver
#                   queues='N'/>)
#   VM_SMP=N        guest CPUs (default 1)
#   VM_TRACE=PATTERN[,PATTERN...]  QEMU trace events to log to
#                   VM_LOG.trace (each line PID@EPOCH-SECONDS:EVENT), e.g.
#                   'vmstate_downtime*' for where a migration's downtime
#                   goes, device by device
#   VM_NIC_OPTS=P=V,...  more properties of the virtio-net-pci device, e.g.
#                   csum=off,guest_csum=off,guest_tso4=off,... to run
#                   without the offloads a vhost-user back-end offers
#
# Exit status: 0 when the guest printed NETSHIM-DONE, 1 otherwise.
set -eu

VMDIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$VMDIR/../.." && pwd)
OUT=$REPO/build/vm

usage() {
	echo "usage: $0 SCENARIO SOCKETPATH [KERNEL ARGS...]" >&2
	exit 2
}

# kvm_boots - tell whether KVM really runs our guest here. /dev/kvm may
# exist and even run real-mode code yet hang once the kernel starts (seen
# under nested virtualisation), so the probe boots the guest itself to /init
# with netshim.run=probe; that takes about a second where KVM works.
# Return: 0 when it does.
kvm_boots() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	timeout -k 2 20 qemu-system-x86_64 -accel kvm -m 256 -smp 1 \
		-nographic -nodefaults -no-reboot -serial stdio \
		-kernel "$KERNEL" -initrd "$OUT/initramfs.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1 netshim.run=probe" \
		</dev/null 2>/dev/null | grep -q NETSHIM-DONE
}

# pick_accel - print the QEMU accelerator to use: VM_ACCEL, or the verdict
# of kvm_boots cached in build/vm/accel for this kernel, QEMU and host.
pick_accel() {
	if [ -n "${VM_ACCEL:-}" ]; then
		echo "$VM_ACCEL"
		return
	fi
	key="$(uname -r) $(qemu-system-x86_64 --version | head -n 1) $KERNEL"
	if [ -f "$OUT/accel" ] && [ "$(sed 1d "$OUT/accel")" = "$key" ]; then
		head -n 1 "$OUT/accel"
		return
	fi
	if kvm_boots; then
		accel=kvm
	else
		accel=tcg
	fi
	printf '%s\n%s\n' "$accel" "$key" >"$OUT/accel"
	echo "$accel"
}

# --accel: only print the accelerator a guest would get (kvm or tcg), for
# other launchers of this guest (tests/libvirt)
if [ "${1:-}" = --accel ]; then
	"$VMDIR/mkinitramfs.sh" "$OUT"
	KERNEL=$(cat "$OUT/kernel")
	pick_accel
	exit 0
fi
[ $# -ge 2 ] || usage
SCENARIO=$1
SOCK=$2
shift 2
[ -n "${VM_INITRD:-}" ] || [ -f "$VMDIR/scenarios/$SCENARIO.sh" ] || {
	echo "run-vm: no scenario $SCENARIO in $VMDIR/scenarios" >&2
	exit 2
}

"$VMDIR/mkinitramfs.sh" "$OUT"
KERNEL=$(cat "$OUT/kernel")
LOG=${VM_LOG:-$OUT/$SCENARIO.log}
TIMEOUT=${VM_TIMEOUT:-300}
INITRD=${VM_INITRD:-$OUT/initramfs.cpio.gz}
ACCEL=$(pick_accel)
if [ "$ACCEL" != kvm ]; then
	echo "run-vm: KVM cannot run guests here: using TCG (slow)" >&2
fi

GUEST_ARGS=""
VU=""
case "${NETDEV:-stream}" in
user)
	NET="user,id=n"
	# libslirp forwards DNS to the machine's resolvers, which tests never
	# use: no lookup unless the caller names a server (a later
	# netshim.dns= on the command line wins).
	GUEST_ARGS="netshim.dns=none"
	;;
stream)
	if [ -n "${VM_SERVER:-}" ]; then
		NET="stream,id=n,server=on,addr.type=unix,addr.path=$SOCK"
	else
		[ -S "$SOCK" ] || {
			echo "run-vm: $SOCK is not a listening socket" >&2
			exit 1
		}
		NET="stream,id=n,server=off,addr.type=unix,addr.path=$SOCK"
	fi
	;;
vhost-user)
	[ -n "${VM_SERVER:-}" ] || [ -S "$SOCK" ] || {
		echo "run-vm: $SOCK is not a listening socket" >&2
		exit 1
	}
	# The back-end reads and writes guest memory: it must be shared
	NET="vhost-user,id=n,chardev=vu${VM_QUEUES:+,queues=$VM_QUEUES}"
	[ -z "${VM_QUEUES:-}" ] ||
		VM_NIC_OPTS="mq=on,vectors=$((2 * VM_QUEUES + 2))${VM_NIC_OPTS:+,$VM_NIC_OPTS}"
	if [ -n "${VM_SERVER:-}" ]; then
		CHR="socket,id=vu,path=$SOCK,server=on"
	else
		CHR="socket,id=vu,path=$SOCK${VM_RECONNECT_MS:+,reconnect-ms=$VM_RECONNECT_MS}"
	fi
	VU="-chardev $CHR
	    -object memory-backend-memfd,id=mem,size=${VM_MEM:-512}M,share=on
	    -numa node,memdev=mem"
	;;
*)
	echo "run-vm: NETDEV must be stream, user or vhost-user" >&2
	exit 2
	;;
esac

# The console goes to our stdout as it is: opening /dev/stdout again
# would start at offset 0 of a log file and write over what came before
if [ -n "${VM_QUIET:-}" ]; then
	exec 3>/dev/null
else
	exec 3>&1
fi
PCAP=""
[ -z "${VM_PCAP:-}" ] ||
	PCAP="-object filter-dump,id=dump,netdev=n,file=$VM_PCAP"
MON=""
[ -z "${VM_QMP:-}" ] || MON="-qmp unix:$VM_QMP,server=on,wait=off"
[ -z "${VM_INCOMING:-}" ] || MON="$MON -incoming $VM_INCOMING"
MEM=${VM_MEM:-512}
[ -z "${VM_MAXMEM:-}" ] || MEM="$MEM,slots=2,maxmem=${VM_MAXMEM}M"
NOREBOOT=-no-reboot
[ -z "${VM_REBOOT:-}" ] || NOREBOOT=
PIDFILE=""
[ -z "${VM_PIDFILE:-}" ] || PIDFILE="-pidfile $VM_PIDFILE"
TRACE=""
[ -z "${VM_TRACE:-}" ] ||
	TRACE="-d trace:$(echo "$VM_TRACE" | sed 's/,/,trace:/g') -D $LOG.trace -msg timestamp=on"
DISK=""
if [ -n "${VM_DISK_SHARED:-}" ]; then
	DISK="-drive file=$VM_DISK,format=raw,if=virtio"
elif [ -n "${VM_DISK:-}" ]; then
	DISK="-drive file=$VM_DISK,format=raw,if=virtio,snapshot=on"
fi
mkdir -p "$(dirname "$LOG")"
rm -f "$LOG" "$LOG.raw"
[ -z "${VM_SERVER:-}" ] || umask 0
echo "run-vm: $SCENARIO, $ACCEL, netdev ${NETDEV:-stream}, log $LOG" >&2
start=$(date +%s.%N)
rc=0
# shellcheck disable=SC2086 # $PCAP, $DISK, $VU, $MON, $TRACE: lists of words
timeout -k 5 "$TIMEOUT" qemu-system-x86_64 -accel "$ACCEL" \
	-m "$MEM" $VU -smp "${VM_SMP:-1}" \
	-nographic -nodefaults $NOREBOOT $PIDFILE $MON \
	-chardev "stdio,id=con,signal=off,logfile=$LOG.raw" -serial chardev:con \
	-kernel "$KERNEL" -initrd "$INITRD" \
	-append "console=ttyS0 quiet panic=-1 netshim.run=$SCENARIO $GUEST_ARGS $*" \
	-device "virtio-net-pci,netdev=n,mac=52:54:00:12:34:56,romfile=${VM_NIC_OPTS:+,$VM_NIC_OPTS}" \
	-netdev "$NET" $PCAP $DISK $TRACE </dev/null >&3 ||
	rc=$?
end=$(date +%s.%N)
# Plain lines for parsers: no carriage returns, no firmware escape codes.
tr -d '\r' <"$LOG.raw" |
	sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' >"$LOG"
rm -f "$LOG.raw"

secs=$(echo "$end $start" | awk '{ printf "%.1f", $1 - $2 }')
if grep -q '^NETSHIM-DONE' "$LOG"; then
	echo "run-vm: $SCENARIO done in $secs s" >&2
	exit 0
fi
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "run-vm: $SCENARIO timed out after $TIMEOUT s" >&2
else
	echo "run-vm: $SCENARIO ended without NETSHIM-DONE" \
		"(qemu status $rc, $secs s)" >&2
fi
exit 1
