#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""netshim - which source file calls which, read from the built objects

    tests/arch/callgraph.py [--edges] [OBJDIR]      (default build/obj)

Every object's undefined symbols are matched with the object that defines
them (nm), which gives file -> file calls as the linker sees them: calls
through static inline functions of headers are not among them, so the
sources' #include lines are read too (a header counts as its .c file).
Prints the loops of files that call each other (strongly connected
components of more than one file), the calls and includes that go up a
floor of tests/arch/floors (doc/architecture.md), and the folders that
reach each other both ways or reach a folder above the lowest floor they
hold; then, with --edges, every call edge with the names used.  Exits 1
if there is any of these, so that make check keeps the tree free of
them; the tests' own objects and sources are left out.
"""
import os
import re
import subprocess
import sys


def objects(top):
    """Every daemon object under top, as (source path, object path)."""
    for root, _, files in os.walk(top):
        for f in sorted(files):
            if not f.endswith(".o"):
                continue
            obj = os.path.join(root, f)
            src = os.path.relpath(obj, top)[:-2] + ".c"
            # Objects of sources since moved or removed are stale
            if not src.startswith("tests/") and os.path.exists(src):
                yield src, obj


def symbols(obj):
    """(defined, undefined) global symbol names of one object."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRGSVWC":
            defined.add(name)
    return defined, undefined


def loops(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def floors(path):
    """The floor of each file or folder, from tests/arch/floors."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) == 2:
                out[line[1]] = int(line[0])
    return out


def floor_of(table, src):
    """A file's floor: its own line, else its folder's, else None."""
    if src in table:
        return table[src]
    return table.get(os.path.dirname(src))


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(srcs):
    """File -> file includes of the daemon's sources, each header taken
    for its .c file where it has one: [(from, to, header)]."""
    out = []
    for src in srcs:
        for path in (src, src[:-2] + ".h"):
            if not os.path.exists(path):
                continue
            with open(path) as f:
                text = f.read()
            for h in INCLUDE.findall(text):
                cand = [os.path.normpath(os.path.join(os.path.dirname(path),
                                                      h)), h]
                found = next((c for c in cand if os.path.exists(c)), None)
                if not found:
                    continue	# generated (build/bpf) or the system's
                dst = found[:-2] + ".c" if found.endswith(".h") else found
                if not os.path.exists(dst):
                    dst = found	# a header alone (ctx.h, inany.h)
                if dst != src:
                    out.append((src, dst, h))
    return out


def folder_checks(table, edges):
    """Folder -> folder arrows that loop or run up: the lines to print."""
    lo, hi, arrows = {}, {}, {}
    for a, b in edges:
        for f in (a, b):
            d, fl = os.path.dirname(f), floor_of(table, f)
            if fl is not None:
                lo[d] = min(lo.get(d, fl), fl)
                hi[d] = max(hi.get(d, fl), fl)
        da, db = os.path.dirname(a), os.path.dirname(b)
        if da != db:
            arrows.setdefault((da, db), []).append("%s -> %s" % (a, b))
    out = []
    for (da, db), why in sorted(arrows.items()):
        if (db, da) in arrows and da < db:
            out.append("folders both ways: %s/ <-> %s/: %s; %s" %
                       (da, db, why[0], arrows[(db, da)][0]))
        if da in lo and db in hi and hi[db] > lo[da]:
            out.append("folder up: %s/ (floors %d-%d) -> %s/ (up to %d): %s"
                       % (da, lo[da], hi[da], db, hi[db], why[0]))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    top = args[0] if args else "build/obj"
    if not os.path.isdir(top):
        sys.exit("%s: no objects (run make first)" % top)
    owner, needs = {}, {}
    for src, obj in objects(top):
        defined, undefined = symbols(obj)
        for name in defined:
            owner[name] = src
        needs[src] = undefined
    graph, names = {}, {}
    for src, undefined in needs.items():
        graph.setdefault(src, set())
        for name in undefined:
            dst = owner.get(name)
            if dst and dst != src:
                graph[src].add(dst)
                names.setdefault((src, dst), set()).add(name)
    found = loops(graph)
    table = floors(os.path.join(os.path.dirname(__file__), "floors"))
    up, unplaced = [], sorted(s for s in graph if floor_of(table, s) is None)
    for (a, b), n in sorted(names.items()):
        fa, fb = floor_of(table, a), floor_of(table, b)
        if fa is not None and fb is not None and fb > fa:
            up.append("call up: %s (floor %d) -> %s (floor %d): %s" %
                      (a, fa, b, fb, ", ".join(sorted(n))))
    inc = includes(sorted(graph))
    for a, b, h in inc:
        fa, fb = floor_of(table, a), floor_of(table, b)
        if fa is not None and fb is not None and fb > fa:
            up.append("include up: %s (floor %d) -> %s (floor %d)" %
                      (a, fa, h, fb))
    folders = folder_checks(table, set(names) | {(a, b) for a, b, _ in inc})
    edges = sum(len(v) for v in graph.values())
    print("%d files, %d file-to-file call edges, %d includes, %d loops, "
          "%d calls or includes up, %d folder arrows wrong" %
          (len(graph), edges, len(inc), len(found), len(up), len(folders)))
    for line in up + folders:
        print(line)
    for src in unplaced:
        print("no floor in tests/arch/floors: %s" % src)
    for comp in found:
        print("loop: " + " ".join(comp))
        for a in comp:
            for b in comp:
                if (a, b) in names:
                    print("  %s -> %s: %s" %
                          (a, b, ", ".join(sorted(names[(a, b)]))))
    if "--edges" in sys.argv:
        for (a, b), n in sorted(names.items()):
            print("%s -> %s: %s" % (a, b, ", ".join(sorted(n))))
    return 1 if found or up or unplaced or folders else 0


if __name__ == "__main__":
    sys.exit(main())
