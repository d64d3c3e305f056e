#!/bin/sh
# Install the Debian packages netshim's build, tests, demo and benchmark use.
# Only what is missing is installed; nothing is fetched from anywhere else.
set -eu

PKGS="gcc make libc6-dev libmnl-dev liburing-dev libcmocka-dev pkg-config
      iproute2 iperf3 qemu-system-x86 busybox-static linux-image-amd64
      passt dnsmasq-base bind9-dnsutils socat cpio gzip gnuplot-nox
      clang libclang-rt-14-dev kmod isc-dhcp-client nftables ndisc6 python3
      mmdebstrap e2fsprogs curl libbpf-dev bpftool libelf-dev zlib1g-dev
      dhcpcd-base traceroute iputils-tracepath iputils-ping
      python3-prometheus-client cppcheck clang-format"
# "bench": also what only the full benchmark uses (DPDK's testpmd, a
# vhost-user front-end without a VM: tests/bench/vu_testpmd.sh)
[ "${1:-}" != bench ] || PKGS="$PKGS dpdk-dev"

# libvirt 11.3 and QEMU 10, from bookworm-backports on Debian 12
"$(dirname "$0")/install-deps-backports.sh"

# passt with --vhost-user for the benchmark's rows beside netshim's is
# built from trixie's source package (tests/bench/passt-vu.sh): its
# deb-src entry, on Debian 12 where passt is older
TRIXIE_SRC=/etc/apt/sources.list.d/netshim-trixie-src.sources
. /etc/os-release
# systemd-networkd in a namespace (t_netns_selfconf.sh): part of systemd
# on Debian 12, a package of its own from Debian 13
if [ "${VERSION_CODENAME:-}" = bookworm ]; then
	PKGS="$PKGS systemd"
else
	PKGS="$PKGS systemd-networkd"
fi
if [ "${VERSION_CODENAME:-}" = bookworm ] && [ "$(id -u)" = 0 ] &&
   ! grep -rqs '^[^#]*deb-src.*trixie\|^Suites:.*trixie' \
	/etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "install-deps: adding trixie sources (deb-src) in $TRIXIE_SRC"
	cat >"$TRIXIE_SRC" <<-EOF
	Types: deb-src
	URIs: http://deb.debian.org/debian
	Suites: trixie
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	apt-get update -q
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing Debian packages:$missing (run as root)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
