#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mkrootfs.sh - build the Debian 12 test guest from Debian's packages
#
# Usage: tests/vm/debian/mkrootfs.sh [OUTDIR]
#
# Writes, under OUTDIR (default build/vm/debian):
#   rootfs.img   raw ext4 image of a bookworm minbase system with systemd,
#                systemd-networkd, systemd-resolved, udev, dbus, iproute2,
#                curl and busybox (its httpd is the guest's web server),
#                configured as a stock cloud image is (DHCP=yes on the NIC),
#                plus the test's own units and script from guest/
#   initrd.gz    busybox initramfs that loads the virtio and ext4 modules
#                of the host's kernel, mounts /dev/vda and starts systemd
#   kernel       path of the matching /boot/vmlinuz-*
#
# The system is made by mmdebstrap from the mirrors the machine's apt is
# configured with (bookworm, bookworm-updates, bookworm-security) and is
# kept in OUTDIR/base: it is made again only when this script changes. The
# image and the initramfs are remade when guest/, init or the kernel change.
# mmdebstrap's output goes to OUTDIR/mmdebstrap.log.
# Needs root (mmdebstrap's root mode, files owned by the guest's users).
set -eu

DEBDIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$DEBDIR/../../.." && pwd)
OUT=${1:-$REPO/build/vm/debian}
SUITE=bookworm

# The packages beyond minbase. systemd-networkd is part of systemd;
# resolvectl needs dbus; no DHCP client other than networkd's own.
PKGS=systemd,systemd-sysv,systemd-resolved,udev,dbus,iproute2,curl,busybox
# Modules the initramfs loads, in this order (modprobe adds what each
# needs): the NIC and the disk on the PCI bus, the root file system, and
# veth for the nested network of netshim-check (the root file system has
# no modules of its own to load later).
MODS="virtio_pci virtio_net virtio_blk crc32c_generic ext4 veth"

die() {
	echo "mkrootfs: $*" >&2
	exit 1
}

# mirrors - print one apt line per suite of the release that the machine's
# apt fetches from, so the guest comes from the same archive (no host is
# named here). Backports are left out: the guest is stock Debian 12.
mirrors() {
	# shellcheck disable=SC2016 # apt's own $(FIELD) syntax
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
		'Created-By: Packages' 'Component: main' |
		sort -u | awk -v s="$SUITE" '
		$2 == s || $2 == s "-updates" || $2 == s "-security" {
			print "deb " $1 " " $2 " main"
		}'
}

# newest_kernel - print the version of the newest /boot/vmlinuz-* whose
# modules are installed.
newest_kernel() {
	for k in $(printf '%s\n' /boot/vmlinuz-* |
		   sed -n 's,^/boot/vmlinuz-,,p' | sort -rV); do
		if [ -f "/lib/modules/$k/modules.dep" ]; then
			echo "$k"
			return 0
		fi
	done
	return 1
}

# build_base - run mmdebstrap into $OUT/base. Documentation, manual pages
# and translations are never unpacked; the cloud image's network set-up
# (networkd, resolved's stub resolver) is enabled as Debian's own
# postinst scripts and cloud images do.
build_base() {
	lines=$(mirrors)
	[ -n "$lines" ] ||
		die "apt knows no $SUITE mirror (apt-get update, sources.list)"
	rm -rf "$OUT/base" "$OUT/base.new"
	echo "mkrootfs: mmdebstrap $SUITE from:" >&2
	echo "$lines" | sed 's/^/  /' >&2
	# The mirror lines are separate arguments, one per line of $lines
	set -f
	IFS='
'
	# shellcheck disable=SC2086 # split on newlines on purpose
	set -- $lines
	unset IFS
	set +f
	# The merged-usr hook makes the root merged-/usr from the start:
	# otherwise init-system-helpers brings usrmerge, and perl (50 MB).
	# shellcheck disable=SC2016 # the hooks get the root as their $1
	mmdebstrap --variant=minbase --include="$PKGS" \
		--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
		--aptopt='Acquire::Languages "none"' \
		--dpkgopt=force-unsafe-io \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/lintian/*' \
		--customize-hook='chroot "$1" systemctl enable systemd-networkd systemd-resolved' \
		--customize-hook='ln -sf ../run/systemd/resolve/stub-resolv.conf "$1/etc/resolv.conf"' \
		--customize-hook='echo debguest >"$1/etc/hostname"' \
		--customize-hook='printf "127.0.0.1 localhost\n::1 localhost\n127.0.1.1 debguest\n" >"$1/etc/hosts"' \
		--customize-hook='chroot "$1" passwd --delete root' \
		"$SUITE" "$OUT/base.new" "$@" >"$OUT/mmdebstrap.log" 2>&1 ||
		die "mmdebstrap failed: $(tail -n 20 "$OUT/mmdebstrap.log")"
	mv "$OUT/base.new" "$OUT/base"
}

# build_image - copy the base system, add guest/ and enable the test's
# units, write it into a raw ext4 image (mkfs.ext4 -d: no loop device).
build_image() {
	stage=$OUT/stage
	rm -rf "$stage"
	cp -a "$OUT/base" "$stage"
	cp -a "$DEBDIR/guest/." "$stage/"
	chown -R 0:0 "$stage/etc/systemd/system" "$stage/etc/systemd/network" \
		"$stage/usr/local"
	mkdir -p "$stage/etc/systemd/system/multi-user.target.wants"
	for u in netshim-check.service guest-httpd.service; do
		ln -sf "../$u" "$stage/etc/systemd/system/multi-user.target.wants/$u"
	done
	# The serial console carries the results: the login prompt's getty
	# would flush lines written there while it starts, and lose them
	ln -sf /dev/null "$stage/etc/systemd/system/serial-getty@ttyS0.service"
	# Room for the journal and the logs of one boot (the image is booted
	# with snapshot=on: nothing is ever written back)
	kib=$(du -sk "$stage" | cut -f1)
	rm -f "$OUT/rootfs.img.new"
	truncate -s $((kib * 5 / 4 + 65536))K "$OUT/rootfs.img.new"
	mkfs.ext4 -q -F -L debguest -O ^has_journal -d "$stage" \
		"$OUT/rootfs.img.new" || die "mkfs.ext4 -d failed"
	rm -rf "$stage"
	mv "$OUT/rootfs.img.new" "$OUT/rootfs.img"
}

# build_initrd - busybox, the modules of $MODS with what they need (each
# once, dependencies first) and init, into $OUT/initrd.gz.
build_initrd() {
	root=$OUT/initrd.root
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/lib/modules" "$root/proc" "$root/sys" \
		"$root/dev" "$root/newroot"
	cp /bin/busybox "$root/bin/busybox"
	for a in sh mount umount insmod switch_root sleep cat echo mkdir; do
		ln -s busybox "$root/bin/$a"
	done
	: >"$root/lib/modules/order"
	for m in $MODS; do
		modprobe -S "$KVER" --show-depends "$m" ||
			die "no module $m for $KVER"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' |
	while read -r ko; do
		name=$(basename "$ko")
		name=${name%%.ko*}
		# busybox insmod reads plain ELF only
		case "$ko" in
		*.ko.xz) xz -dc "$ko" >"$root/lib/modules/$name.ko" ;;
		*.ko.zst) zstd -qdc "$ko" >"$root/lib/modules/$name.ko" ;;
		*.ko.gz) gzip -dc "$ko" >"$root/lib/modules/$name.ko" ;;
		*) cp "$ko" "$root/lib/modules/$name.ko" ;;
		esac
		echo "$name" >>"$root/lib/modules/order"
	done
	install -m 0755 "$DEBDIR/init" "$root/init"
	(cd "$root" && find . | sort | cpio -o -H newc --quiet -R 0:0) |
		gzip -1 >"$OUT/initrd.gz.new"
	rm -rf "$root"
	mv "$OUT/initrd.gz.new" "$OUT/initrd.gz"
}

[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, files owned by root)"
command -v mmdebstrap >/dev/null || die "mmdebstrap missing (make deps)"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 missing (make deps)"
[ -x /bin/busybox ] || die "/bin/busybox missing (install busybox-static)"
KVER=$(newest_kernel) ||
	die "no /boot/vmlinuz-* with modules (install linux-image-amd64)"
mkdir -p "$OUT"
# Tests may boot guests in parallel: one builder at a time.
exec 9>"$OUT/.lock"
flock 9

base_stamp=$(sha256sum <"$0" | cut -d' ' -f1)
if [ ! -d "$OUT/base" ] || [ "$(cat "$OUT/base.stamp" 2>/dev/null)" != "$base_stamp" ]; then
	start=$(date +%s)
	build_base
	echo "$base_stamp" >"$OUT/base.stamp"
	echo "mkrootfs: base system in $(($(date +%s) - start)) s," \
		"$(du -sh "$OUT/base" | cut -f1)" >&2
fi

img_stamp=$( (echo "$base_stamp $KVER"; cd "$DEBDIR" &&
	find guest init -type f | sort | xargs sha256sum) | sha256sum)
if [ ! -f "$OUT/rootfs.img" ] || [ ! -f "$OUT/initrd.gz" ] ||
   [ "$(cat "$OUT/image.stamp" 2>/dev/null)" != "$img_stamp" ]; then
	start=$(date +%s)
	build_image
	build_initrd
	echo "/boot/vmlinuz-$KVER" >"$OUT/kernel"
	echo "$img_stamp" >"$OUT/image.stamp"
	echo "mkrootfs: rootfs.img and initrd.gz in $(($(date +%s) - start)) s" \
		"($(du -h "$OUT/rootfs.img" | cut -f1) used)" >&2
fi
