#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# Local mode with a real distribution's network stack: the Debian 12 guest
# of t_vm_debian.sh (systemd-networkd, DHCP=yes, router advertisements
# accepted) in a pod with no interface but loopback, on QEMU's vhost-user
# front-end, as passt serves such a pod since 2024-11. The guest's own
# checks (netshim-check with netshim.mode=local) expect what passt gives:
# networkd calls the link configured within 60 s, so that boot reaches
# network-online.target; DHCPv4 169.254.2.1/16 with router 169.254.2.2;
# the link-local IPv6 address only (no prefix to autoconfigure); curl to
# http://169.254.2.2/ and http://[fe80::1%eth]/ reaches the web server on
# the pod's loopback. Then the pod's own processes reach the guest's web
# server through -t 8080 at 127.0.0.1 and ::1.
# BACKEND=passt PASST=... runs passt (2025 or later, for --vhost-user)
# through the same test.

set -u
export NETDEV=vhost-user
VM=$(cd "$(dirname "$(readlink -f "$0")")/../vm" && pwd)
. "$VM/../lib/topo.sh"
. "$VM/peer.sh"
. "$VM/debian/lib.sh"
. "$VM/../tcp/lib.sh"

# inbound_check - from the pod, fetch the guest's page through -t 8080 at
# the pod's loopback addresses; print the verdict line.
inbound_check() {
	deb_fetch "$NS_POD" "the pod fetched the guest's page from 127.0.0.1 and ::1" \
		"http://127.0.0.1:8080/=netshim-guest $TOKEN" \
		"http://[::1]:8080/=netshim-guest $TOKEN"
}

topo_init
trap deb_stop_vm EXIT
deb_image

topo_ns_add "$NS_POD"
# The pod has loopback only: this server is on 127.0.0.1 and ::1
deb_www "$NS_POD" pod
tcp_wait_listen "$NS_POD" 80

TOPO_LOCAL=1 topo_backend --vhost-user -t 8080
if [ "$BACKEND" = netshim ]; then
	grep -q 'local mode' "$WORK/backend.log" ||
		fail "netshim does not say it runs in local mode"
fi

deb_boot "$WORK/www" inbound_check netshim.token="$TOKEN" netshim.mode=local

deb_expect online
deb_expect link ' configured'
deb_expect ipv4_addr '^ok 169\.254\.2\.1/16$'
deb_expect route4 'via 169\.254\.2\.2 '
deb_expect ipv6_addr '^ok fe80::[0-9a-f:]+/64$'
deb_expect http4_gw
deb_expect http6_gw
deb_inbound
log "Debian guest in local mode passed behind $BACKEND"
