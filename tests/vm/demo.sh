#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# demo.sh - `make demo`: boot a real Linux guest behind the backend and show
# what it got: its addresses (DHCPv4, SLAAC, DHCPv6), ping, a DNS answer and
# iperf3 throughput each way. Everything runs in throw-away namespaces
# (tests/lib/topo.sh); the console log is kept in build/vm/demo.log.
#
# BACKEND=netshim (default) or passt; VM_ACCEL=kvm|tcg forces the
# accelerator; IPERF_TIME (default 3) seconds per iperf3 direction.

set -u
VM=$(cd "$(dirname "$0")" && pwd)
. "$VM/../lib/topo.sh"
. "$VM/peer.sh"

# show - print one line of the summary: a label and the guest's result for
# a key, without its leading "ok" (a failed check shows as FAILED).
# $1: label
# $2: key
# $3: text to add after the value (optional)
show() {
	local v

	v=$(vm_result "$LOG" "$2")
	case "$v" in
	ok*) v="${v#ok }${3:-}" ;;
	skip*) v="(skipped: ${v#skip })" ;;
	"") v="FAILED: no result"; FAILED=1 ;;
	*) v="FAILED: ${v#fail }"; FAILED=1 ;;
	esac
	printf '  %-13s %s\n' "$1" "$v"
}

# extra - print ", LABEL VALUE" for an informational result, or nothing.
# $1: label
# $2: key
extra() {
	local v

	v=$(vm_result "$LOG" "$2")
	[ -n "$v" ] && [ "$v" != none ] && printf ', %s %s' "$1" "$v"
}

topo_init
log "setting up peer and pod namespaces, DNS, iperf3 server, $BACKEND"
topo_peer_pod
topo_dns
vm_peer_iperf
topo_backend
LOG=$WORK/vm.log
log "booting the guest (Debian kernel, busybox initramfs, virtio-net)"
start=$(date +%s)
VM_QUIET=1 VM_LOG=$LOG VM_TIMEOUT=${VM_TIMEOUT:-150} \
	"$VM/run-vm.sh" demo "$WORK/backend.sock" \
	"netshim.iperf_time=${IPERF_TIME:-3}"
rc=$?
secs=$(($(date +%s) - start))
mkdir -p "$REPO/build/vm"
cp "$LOG" "$REPO/build/vm/demo.log"
[ $rc -eq 0 ] || fail "the guest did not finish; console: build/vm/demo.log"

FAILED=0
boot=$(sed -n 's/.*NETSHIM-BOOT uptime //p' "$LOG")
echo
accel=${VM_ACCEL:-$(head -n 1 "$REPO/build/vm/accel" 2>/dev/null)}
accel=$(echo "$accel" | tr '[:lower:]' '[:upper:]')
echo "A Linux guest behind $BACKEND ($accel): booted to /init in ${boot} s," \
	"whole run ${secs} s"
show "DHCPv4" dhcp4 \
	"$(extra router dhcp4_router)$(extra DNS dhcp4_dns)$(extra MTU dhcp4_mtu)"
show "SLAAC" slaac "$(extra router slaac_router)"
show "DHCPv6" dhcp6 "$(extra DNS dhcp6_dns)"
show "ping" ping4
show "ping6" ping6
show "DNS" dns
show "iperf3 up" iperf_up " (guest -> peer)"
show "iperf3 down" iperf_down " (peer -> guest)"
echo
[ "$FAILED" = 0 ] || fail "some checks failed; console: build/vm/demo.log"
