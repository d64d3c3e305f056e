#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# passt-vu.sh - build passt with --vhost-user from Debian trixie's passt
# source package (Debian 12's passt predates vhost-user): the peer of the
# migration tests between passt and netshim (make integration) and of the
# benchmark's vhost-user rows (make bench).
#
# Usage: passt-vu.sh OUTDIR
# Leaves OUTDIR/passt and its TCP repair helper OUTDIR/passt-repair; does
# nothing if both are there.  Needs a trixie deb-src entry for apt
# (apt-get source, contrib/install-deps.sh adds one); otherwise prints why
# it failed, writes the same to OUTDIR/failed.txt, where the tests that
# need this passt read it, and exits 1.

set -eu
mkdir -p "$1"
OUT=$(cd "$1" && pwd)

# failed() - say why there is no passt, here and to the tests, and exit 1
# $@: why
failed() {
	echo "passt-vu: $*" | tee "$OUT/failed.txt" >&2
	exit 1
}

[ -x "$OUT/passt" ] && [ -x "$OUT/passt-repair" ] && exit 0
mkdir -p "$OUT/src"
cd "$OUT/src"
if ! ls passt_*.orig.tar.xz >/dev/null 2>&1; then
	# Only the tarballs are used: the .dsc may be gone from the mirror
	# while they are still there, so a failed fetch of the rest is not
	# fatal
	apt-get source --download-only passt/trixie >apt.log 2>&1 || true
	ls passt_*.orig.tar.xz >/dev/null 2>&1 ||
		failed "no trixie passt source (a trixie deb-src entry is" \
			"needed: contrib/install-deps.sh): $(tail -n 1 apt.log)"
fi
rm -rf build
mkdir build
tar -xJf passt_*.orig.tar.xz -C build --strip-components=1
# Debian's own patches, as trixie ships passt (a fix of an assertion on
# the guest's broadcasts, for one)
if ls passt_*.debian.tar.xz >/dev/null 2>&1; then
	tar -xJf passt_*.debian.tar.xz -C build
	if [ -f build/debian/patches/series ]; then
		grep -v '^#' build/debian/patches/series | while read -r p _; do
			[ -n "$p" ] || continue
			patch -d build -p1 -s <"build/debian/patches/$p" ||
				exit 1
		done || failed "Debian's patches do not apply"
	fi
fi
make -C build -j2 passt passt-repair >make.log 2>&1 ||
	failed "build failed: $(tail -n 3 make.log)"
build/passt --help 2>&1 | grep -q -- --vhost-user ||
	failed "this passt has no --vhost-user"
cp build/passt-repair "$OUT/passt-repair"
cp build/passt "$OUT/passt"
rm -f "$OUT/failed.txt"
