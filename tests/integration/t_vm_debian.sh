#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# A Debian 12 guest configured as a stock cloud image is (systemd-networkd
# with DHCP=yes, router advertisements accepted, systemd-resolved), built
# from Debian's packages by tests/vm/debian/mkrootfs.sh and booted under
# QEMU on the backend's stream socket. Its netshim-check service, once
# networkd says the link is online, checks from inside: the link is
# routable, the pod's IPv4 address, IPv6 addresses in the pod's prefix,
# default routes via the peer (203.0.113.1, fe80::1), resolvectl resolves
# peer.netshim.test, curl fetches pages from the peer over both families by
# name and by address, through the default routes, and from each of its
# IPv6 addresses. Then the guest routes to a nested network (a namespace
# behind a veth pair, as a container runtime in the guest makes one,
# holding 198.51.100.77 and 2001:db8:77::7), and the peer reaches the
# guest's web server through the backend's -t 8080, and the nested one's
# through mappings to those target addresses (passt 2026's -t
# 0.0.0.0/8081:198.51.100.77/8080), over both families. Any failure
# shows the guest's own view of its network (networkctl, ip, resolvectl).
# BACKEND=netshim|passt as for every topo.sh test (passt from 2026-07 on,
# for the target-address mappings: PASST=...); VM_ACCEL=kvm|tcg forces
# the accelerator; NETDEV=vhost-user boots it with QEMU as the backend's
# vhost-user front-end instead (t_vm_debian_vhost.sh).

set -u
VM=$(cd "$(dirname "$(readlink -f "$0")")/../vm" && pwd)
. "$VM/../lib/topo.sh"
. "$VM/peer.sh"
. "$VM/debian/lib.sh"

# inbound_check - from the peer, fetch the guest's page through the
# backend's -t 8080 at the pod's addresses, and the nested network's page
# through the target-address mappings (ports 8081 and 8082); print the
# verdict line.
inbound_check() {
	deb_fetch "$NS_PEER" "peer fetched the guest's and the nested network's pages over IPv4 and IPv6" \
		"http://203.0.113.2:8080/=netshim-guest $TOKEN" \
		"http://[2001:db8:1::2]:8080/=netshim-guest $TOKEN" \
		"http://203.0.113.2:8081/=netshim-nested $TOKEN" \
		"http://[2001:db8:1::2]:8082/=netshim-nested $TOKEN"
}

topo_init
trap deb_stop_vm EXIT
deb_image

topo_peer_pod
topo_dns
deb_www "$NS_PEER" peer
head -c 262144 /dev/urandom >"$WORK/www/blob.bin"
BLOB_SHA=$(sha256sum <"$WORK/www/blob.bin" | cut -d' ' -f1)
vm_peer_wait tcp 80
# The nested network behind the guest, by target address (passt 2026's
# form: passt before 2026-07 has no target addresses)
FWD=(-t 8080 -t 0.0.0.0/8081:198.51.100.77/8080
	-t "::/8082:[2001:db8:77::7]/8080")
if [ "${NETDEV:-stream}" = vhost-user ]; then
	topo_backend --vhost-user "${FWD[@]}"
else
	topo_backend "${FWD[@]}"
fi

# The guest says when its web server waits for the peer; the verdict goes
# back on the peer's web server, where the guest polls for it.
deb_boot "$WORK/www" inbound_check netshim.token="$TOKEN" \
	netshim.blob_sha256="$BLOB_SHA" netshim.nested=1

deb_expect online
deb_expect link ' routable configured'
deb_expect ipv4_addr '^ok 203\.0\.113\.2/24$'
deb_expect ipv6_addr '^ok 2001:db8:1:'
deb_expect route4 'via 203\.0\.113\.1 '
deb_expect route6 'via fe80::1 '
deb_expect dns '203\.0\.113\.1'
for k in http4_name http6_name http4_addr http6_addr http4_remote \
	http6_remote; do
	deb_expect "$k"
done
# Every IPv6 address the guest holds, SLAAC's as well as DHCPv6's
deb_expect http6_src '^ok from 2001:db8:1:'
deb_expect nested '198\.51\.100\.77/30 2001:db8:77::7/64'
deb_inbound
log "Debian guest check passed behind $BACKEND"
