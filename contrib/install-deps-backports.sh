#!/bin/sh
# Install, on Debian 12, what its own release is too old for, from
# bookworm-backports:
#  - libvirt 11.3: Debian 12's libvirt 9.0 has the passt back-end of
#    <interface type='user'> disabled by a Debian patch, and the libvirt
#    test (tests/libvirt) boots its guest through it;
#  - QEMU 10, the QEMU that libvirt drives (7.2 also hangs on vhost-user
#    under TCG).
# Called by install-deps.sh. On later releases their own packages are
# recent enough and are installed as they are.
set -eu

# Package and the oldest version the tests need
NEED="libvirt-daemon:11.3
      libvirt-daemon-driver-qemu:11.3
      libvirt-daemon-system:11.3
      libvirt-clients:11.3
      qemu-system-x86:1:10.0"
SOURCES=/etc/apt/sources.list.d/netshim-backports.sources

# recent() - whether a package is installed at a version or later
# $1: package, $2: version
recent() {
	st=$(dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null) ||
		return 1
	case "$st" in
	"install ok installed "*) ;;
	*) return 1 ;;
	esac
	dpkg --compare-versions "${st##* }" ge "$2"
}

pkgs=""
old=""
for n in $NEED; do
	p=${n%%:*}
	pkgs="$pkgs $p"
	recent "$p" "${n#*:}" || old="$old $p"
done
[ -z "$old" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: too old or missing:$old (run as root)" >&2
	exit 1
fi
. /etc/os-release
export DEBIAN_FRONTEND=noninteractive
if [ "${VERSION_CODENAME:-}" != bookworm ]; then
	echo "install-deps: installing$old"
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $pkgs
	exit 0
fi

# The backports suite from the archive the machine already uses
if ! grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list \
	/etc/apt/sources.list.d/; then
	uri=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' \
		/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	echo "install-deps: adding bookworm-backports in $SOURCES"
	cat >"$SOURCES" <<-EOF
	Types: deb
	URIs: ${uri:-http://deb.debian.org/debian}
	Suites: bookworm-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
fi
echo "install-deps: installing from bookworm-backports:$old"
apt-get update -q
# No recommends: libvirt-daemon-config-network would define a default
# network with a bridge on the machine
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends -t bookworm-backports $pkgs
