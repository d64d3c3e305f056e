#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# passt-vu.sh - build passt with --vhost-user for the benchmark's
# vhost-user rows, from the upstream tarball of Debian trixie's passt
# source package (Debian 12's passt predates vhost-user).
#
# Usage: passt-vu.sh OUTDIR
# Leaves OUTDIR/passt and its TCP repair helper OUTDIR/passt-repair; does
# nothing if both are there.  Needs a
# trixie deb-src entry for apt (apt-get source); prints why it failed and
# exits 1 otherwise.

set -eu
OUT=$1

[ -x "$OUT/passt" ] && [ -x "$OUT/passt-repair" ] && exit 0
mkdir -p "$OUT/src"
cd "$OUT/src"
if ! ls passt_*.orig.tar.xz >/dev/null 2>&1; then
	# Only the upstream tarball is used: the .dsc may be gone from the
	# mirror while the tarball is still there, so a failed fetch of the
	# rest is not fatal
	apt-get source --download-only passt/trixie >apt.log 2>&1 || true
	ls passt_*.orig.tar.xz >/dev/null 2>&1 || {
		echo "passt-vu: no trixie passt source (a trixie deb-src entry" \
			"is needed): $(tail -n 1 apt.log)" >&2
		exit 1
	}
fi
rm -rf build
mkdir build
tar -xJf passt_*.orig.tar.xz -C build --strip-components=1
make -C build -j2 passt >make.log 2>&1 || {
	echo "passt-vu: build failed: $(tail -n 3 make.log)" >&2
	exit 1
}
build/passt --help 2>&1 | grep -q -- --vhost-user || {
	echo "passt-vu: this passt has no --vhost-user" >&2
	exit 1
}
cp build/passt "$OUT/passt"
# Its TCP repair helper, for the migration rows (migrate.sh)
if make -C build -j2 passt-repair >>make.log 2>&1; then
	cp build/passt-repair "$OUT/passt-repair"
else
	echo "passt-vu: no passt-repair: $(tail -n 1 make.log)" >&2
fi
