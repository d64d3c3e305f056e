#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pesto.sh - build pesto, passt 2026's configuration client, which the
# control socket tests (tests/integration/t_ctl_*.sh) drive netshim with
# beside netshim-ctl.
#
# Usage: pesto.sh OUTDIR
# Leaves OUTDIR/pesto; does nothing if it is there.  Built from, in this
# order: the source tree PASST_SRC (default /tmp/passt2026, where a passt
# 2026 tree with pesto.c is kept on the test machines), or passt's git
# repository (PASST_GIT, default https://passt.top/passt), copied first so
# that the tree is never written.  Where neither can be had, it says why
# here and in OUTDIR/failed.txt, where the tests read it (they then run
# with netshim-ctl alone and say so), and exits 1.

set -eu
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
SRC=${PASST_SRC:-/tmp/passt2026}
GIT=${PASST_GIT:-https://passt.top/passt}

# failed() - say why there is no pesto, here and to the tests, and exit 1
# $@: why
failed() {
	echo "pesto: $*" | tee "$OUT/failed.txt" >&2
	exit 1
}

[ -x "$OUT/pesto" ] && exit 0
rm -rf "$OUT/src"
mkdir -p "$OUT/src"
if [ -f "$SRC/pesto.c" ] && [ -f "$SRC/Makefile" ]; then
	why_src=
	(cd "$SRC" && tar --exclude=./.git -cf - .) | tar -xf - -C "$OUT/src" ||
		failed "cannot copy $SRC"
else
	why_src="no passt source with pesto.c in $SRC (PASST_SRC)"
	timeout 120 git clone -q --depth 1 "$GIT" "$OUT/src" \
		>"$OUT/git.log" 2>&1 ||
		failed "$why_src, and $GIT cannot be cloned:" \
			"$(tail -n 1 "$OUT/git.log")"
	[ -f "$OUT/src/pesto.c" ] ||
		failed "$why_src, and $GIT has no pesto.c (passt before 2026)"
fi
rm -f "$OUT/src/pesto"
make -C "$OUT/src" pesto >"$OUT/make.log" 2>&1 ||
	failed "build failed: $(tail -n 3 "$OUT/make.log")"
cp "$OUT/src/pesto" "$OUT/pesto"
rm -f "$OUT/failed.txt"
