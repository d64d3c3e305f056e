#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mkinitramfs.sh - build the test guest's initramfs from Debian packages only
#
# Usage: tests/vm/mkinitramfs.sh [OUTDIR]
#
# Writes OUTDIR/initramfs.cpio.gz (default build/vm) holding busybox-static,
# iperf3, socat (UDP and TCP client for the checks), dhclient for DHCPv6 when
# isc-dhcp-client is installed (Debian's busybox has no udhcpc6), the virtio
# network modules of the newest installed kernel, /init and the scenarios.
# OUTDIR/kernel names the matching /boot/vmlinuz-* for run-vm.sh.
# Nothing is rebuilt when no input changed: a stamp lists every input with
# its size and modification time.
set -eu

VMDIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$VMDIR/../.." && pwd)
OUT=${1:-$REPO/build/vm}
IMG=$OUT/initramfs.cpio.gz

# Binaries the guest runs, with their shared libraries; optional ones are
# left out silently when their package is not installed.
BINS="/usr/bin/iperf3"
OPT_BINS="/usr/bin/socat /sbin/dhclient"
# virtio_pci is the bus the NIC sits on: no module depends on it.
MODS="virtio_pci virtio_net"

die() {
	echo "mkinitramfs: $*" >&2
	exit 1
}

# newest_kernel - print the version of the newest /boot/vmlinuz-* that has
# its modules installed, so the modules always match the booted kernel.
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

# mod_order - print the modules.dep paths of $MODS and of everything they
# need, dependencies first, each once: the order insmod needs.
mod_order() {
	awk -v mods="$MODS" '
	function base(p) { sub(/.*\//, "", p); sub(/\.ko.*/, "", p); return p }
	function walk(m,   n, i, d) {
		if (done[m]++)
			return
		if (!(m in path)) {
			print "module " m " not in modules.dep" > "/dev/stderr"
			exit 1
		}
		n = split(deps[m], d, " ")
		for (i = 1; i <= n; i++)
			walk(base(d[i]))
		print path[m]
	}
	{
		p = $1
		sub(/:$/, "", p)
		m = base(p)
		path[m] = p
		$1 = ""
		deps[m] = $0
	}
	END {
		n = split(mods, l, " ")
		for (i = 1; i <= n; i++)
			walk(l[i])
	}' "/lib/modules/$KVER/modules.dep"
}

# libs_of - print every shared object binary $1 loads, the loader included.
libs_of() {
	ldd "$1" | awk '/=>/ && $3 ~ /^\// { print $3 } /^\t\// { print $1 }'
}

# inputs - print every file the image is made from, one per line.
inputs() {
	echo /bin/busybox
	for b in $BINS $OPT_BINS; do
		[ -x "$b" ] || continue
		echo "$b"
		libs_of "$b"
	done
	for p in $(mod_order); do
		echo "/lib/modules/$KVER/$p"
	done
	echo "$VMDIR/mkinitramfs.sh"
	echo "$VMDIR/conns.c"
	echo "$VMDIR/qstats.c"
	echo "$VMDIR/udphold.c"
	find "$VMDIR/init" "$VMDIR/guest" "$VMDIR/scenarios" -type f
}

# stamp - describe the inputs: path, size and mtime of each, kernel version.
stamp() {
	echo "kernel $KVER"
	inputs | sort -u | while read -r f; do
		stat -L -c '%n %s %Y' "$f"
	done
}

# copy_file - copy $1 into the image at the same path, following symlinks.
copy_file() {
	mkdir -p "$ROOT$(dirname "$1")"
	cp -L "$1" "$ROOT$1"
}

# add_modules - put the virtio network modules into the image uncompressed
# (busybox insmod reads plain ELF only) and write their load order.
add_modules() {
	mkdir -p "$ROOT/lib/modules"
	: >"$ROOT/lib/modules/order"
	for p in $(mod_order); do
		src=/lib/modules/$KVER/$p
		base=$(basename "$p")
		name=${base%%.ko*}
		case "$base" in
		*.ko.xz) xz -dc "$src" >"$ROOT/lib/modules/$name.ko" ;;
		*.ko.zst) zstd -qdc "$src" >"$ROOT/lib/modules/$name.ko" ;;
		*.ko.gz) gzip -dc "$src" >"$ROOT/lib/modules/$name.ko" ;;
		*) cp "$src" "$ROOT/lib/modules/$name.ko" ;;
		esac
		echo "$name" >>"$ROOT/lib/modules/order"
	done
}

# add_busybox - install busybox and a symlink for each of its applets.
add_busybox() {
	mkdir -p "$ROOT/bin" "$ROOT/sbin" "$ROOT/usr/bin" "$ROOT/usr/sbin"
	cp /bin/busybox "$ROOT/bin/busybox"
	for a in $(/bin/busybox --list); do
		[ -e "$ROOT/bin/$a" ] || ln -s busybox "$ROOT/bin/$a"
	done
}

# add_binaries - copy the guest's dynamic binaries and their libraries.
add_binaries() {
	for b in $BINS $OPT_BINS; do
		if [ ! -x "$b" ]; then
			case " $BINS " in
			*" $b "*) die "$b is missing (install iperf3)" ;;
			esac
			continue
		fi
		copy_file "$b"
		for l in $(libs_of "$b"); do
			copy_file "$l"
		done
	done
}

# add_conns - the guest's programs for many connections (conns.c),
# per-queue packet counts (qstats.c) and datagrams held unread across a
# migration (udphold.c), built static here: the guest has no compiler and
# no libc of its own
add_conns() {
	for p in conns qstats udphold; do
		cc -O2 -static -Wall -Wextra -Werror -o "$ROOT/usr/bin/$p" \
			"$VMDIR/$p.c" || die "cannot build $p.c (cc -static)"
	done
}

# add_scripts - install /init, the guest helpers and the scenarios.
add_scripts() {
	install -m 0755 "$VMDIR/init" "$ROOT/init"
	mkdir -p "$ROOT/etc/netshim/scenarios"
	for f in "$VMDIR"/guest/*; do
		install -m 0755 "$f" "$ROOT/etc/netshim/$(basename "$f")"
	done
	for f in "$VMDIR"/scenarios/*.sh; do
		install -m 0755 "$f" "$ROOT/etc/netshim/scenarios/"
	done
	mkdir -p "$ROOT/proc" "$ROOT/sys" "$ROOT/dev" "$ROOT/tmp" \
		"$ROOT/run" "$ROOT/var/lib/dhcp" "$ROOT/etc"
	echo "root:x:0:0:root:/:/bin/sh" >"$ROOT/etc/passwd"
	echo "root:x:0:" >"$ROOT/etc/group"
}

[ -x /bin/busybox ] || die "/bin/busybox is missing (install busybox-static)"
KVER=$(newest_kernel) ||
	die "no /boot/vmlinuz-* with modules (install linux-image-amd64)"
mod_order >/dev/null || die "cannot load virtio_net from $KVER"
mkdir -p "$OUT"
# Tests may boot guests in parallel: one builder at a time.
exec 9>"$OUT/.lock"
flock 9

NEW=$(stamp)
if [ -f "$IMG" ] && [ -f "$OUT/initramfs.stamp" ] &&
   [ "$NEW" = "$(cat "$OUT/initramfs.stamp")" ]; then
	exit 0
fi

ROOT=$(mktemp -d "$OUT/root.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT
add_busybox
add_binaries
add_conns
add_modules
add_scripts
(cd "$ROOT" && find . | sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -1 >"$IMG.tmp"
mv "$IMG.tmp" "$IMG"
echo "/boot/vmlinuz-$KVER" >"$OUT/kernel"
echo "$NEW" >"$OUT/initramfs.stamp"
echo "mkinitramfs: $IMG ($(du -k "$IMG" | cut -f1) KiB, kernel $KVER)" >&2
