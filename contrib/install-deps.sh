#!/bin/sh
# Install the Debian packages netshim's build, tests, demo and benchmark use.
# Only what is missing is installed; nothing is fetched from anywhere else.
set -eu

PKGS="gcc make libc6-dev libmnl-dev liburing-dev libcmocka-dev pkg-config
      iproute2 iperf3 qemu-system-x86 busybox-static linux-image-amd64
      passt dnsmasq-base bind9-dnsutils socat cpio gzip gnuplot-nox
      clang libclang-rt-14-dev kmod isc-dhcp-client nftables ndisc6"

# From bookworm-backports: QEMU 10, as Debian 12's QEMU 7.2 hangs at the
# guest's DRIVER_OK with any vhost-user back-end under TCG
BPO_SOURCES=/etc/apt/sources.list.d/netshim-backports.sources
BPO_PKGS="qemu-system-x86"

# qemu_new - true if the installed QEMU is 10 or later
qemu_new() {
	v=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) ||
		return 1
	v=${v#*:}
	[ "${v%%.*}" -ge 10 ] 2>/dev/null
}

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && qemu_new && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing Debian packages:$missing, or QEMU 10" \
		"(run as root)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! grep -rqs bookworm-backports /etc/apt/sources.list \
	/etc/apt/sources.list.d/; then
	cat >"$BPO_SOURCES" <<-EOT
	Types: deb
	URIs: http://deb.debian.org/debian
	Suites: bookworm-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOT
fi
apt-get update -q
if [ -n "$missing" ]; then
	echo "install-deps: installing$missing"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
if ! qemu_new; then
	echo "install-deps: installing $BPO_PKGS from bookworm-backports"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends -t bookworm-backports \
		$BPO_PKGS
fi
