#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Summarise one benchmark run of tests/bench/bench.sh.

    report.py OUTDIR

OUTDIR/raw holds what bench.sh measured: "cases" lists the case ids in
order and "info" the run's key=value settings; each OUTDIR/raw/CASE/ has
"meta" (key=value: label, backend, guest, mtu, skip), per run DIR-N.json
(iperf3 -J, DIR up or down) and DIR-N.cpu (the backend's utime+stime ticks
before and after), and optionally "rss" (VmHWM, kB), "connrate.json" and
rr-1.json, rr-1024.json (tests/bench/rr.c: request/response latency);
VM cases also DIR-N.snmp, the guest's TCP counters before and after the
run (NETSHIM-TCP-SNMP lines of tests/vm/scenarios/bench.sh).

Writes OUTDIR/results.json and OUTDIR/throughput.dat (for throughput.gp)
and prints the table. Exit status 1 when any transfer failed or moved
nothing, or netshim let a whole second pass without moving a byte: the
benchmark fails on broken transfers, never on speed.
"""
import json
import os
import statistics
import sys

DIRS = ("up", "down")
RR_SIZES = (1, 1024)
DIR_NAMES = {"up": "guest->peer", "down": "peer->guest"}
GIB = 1 << 30
SLOW = 0.1
LEGEND = """
Gbit/s: median of the runs (receiver side), min-max: their spread
zero s / slow s: one-second intervals that moved nothing / less than 10 %
  of the run's best second, over all runs (stalls)
CPU s/GiB: the backend's user+system time per GiB moved
RSS MiB: the backend's peak resident set (VmHWM) over the case
conn/s: sequential connect, 1 byte each way, close; 8 at a time
  ("N!F": F connections failed)"""


def read_kv(path):
    """Read a file of key=value lines.

    @path: file name

    Return: dict of the values as strings; empty when the file is missing.
    """
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                key, sep, val = line.rstrip("\n").partition("=")
                if sep:
                    out[key] = val
    except FileNotFoundError:
        pass
    return out


def read_json(path):
    """Load a JSON file, tolerating noise around the object.

    @path: file name

    Return: the object, or None when there is none to parse.
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        return json.loads(text[start:end + 1])
    except ValueError:
        return None


def parse_iperf(report):
    """Extract what the benchmark keeps from one iperf3 -J report.

    @report: the decoded report, or None

    Return: dict with bps and bytes (as received), zero_intervals (one-second
    intervals that moved nothing), slow_intervals (that moved something but
    less than SLOW of the run's best second: near-stalls) and error (None
    when the run succeeded).
    """
    run = {"bps": 0.0, "bytes": 0, "zero_intervals": 0, "slow_intervals": 0,
           "error": None}
    if report is None:
        run["error"] = "no iperf3 report"
        return run
    if report.get("error"):
        run["error"] = report["error"]
    recv = report.get("end", {}).get("sum_received", {})
    run["bps"] = float(recv.get("bits_per_second", 0))
    run["bytes"] = int(recv.get("bytes", 0))
    # iperf3 may close with a sliver of an interval: only whole seconds
    ivs = [iv["sum"] for iv in report.get("intervals", [])
           if iv.get("sum", {}).get("seconds", 0) >= 0.5]
    peak = max((iv.get("bits_per_second", 0) for iv in ivs), default=0)
    for iv in ivs:
        if iv.get("bytes", 0) == 0:
            run["zero_intervals"] += 1
        elif iv.get("bits_per_second", 0) < peak * SLOW:
            run["slow_intervals"] += 1
    if run["error"] is None and run["bytes"] == 0:
        run["error"] = "moved nothing"
    return run


def cpu_seconds(path):
    """CPU time a backend used during one run.

    @path: file with the utime+stime clock ticks before and after

    Return: seconds, or None when not measured.
    """
    try:
        with open(path, encoding="utf-8") as f:
            before, after = (int(x) for x in f.read().split())
    except (FileNotFoundError, ValueError):
        return None
    return (after - before) / os.sysconf("SC_CLK_TCK")


def guest_segments(path):
    """What the guest's TCP counters moved by over one run.

    @path: DIR-N.snmp: a "before" and an "after" line, each
           NETSHIM-TCP-SNMP DIR WHEN NAME... VALUE...

    Return: dict of InSegs, OutSegs and RetransSegs differences, or None
    when the file is missing or incomplete.
    """
    seen = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                words = line.split()
                if len(words) < 5 or words[0] != "NETSHIM-TCP-SNMP":
                    continue
                fields = words[3:]
                half = len(fields) // 2
                try:
                    seen[words[2]] = dict(zip(fields[:half],
                                              map(int, fields[half:])))
                except ValueError:
                    return None
    except FileNotFoundError:
        return None
    keys = ("InSegs", "OutSegs", "RetransSegs")
    if not all(k in seen.get(w, {}) for w in ("before", "after")
               for k in keys):
        return None
    return {k: seen["after"][k] - seen["before"][k] for k in keys}


def summarise_dir(casedir, direction, nruns):
    """Median, spread and cost of one direction of one case.

    @casedir:   the case's raw directory
    @direction: "up" or "down"
    @nruns:     runs bench.sh made

    Return: dict with the runs and their summary.
    """
    runs = []
    for i in range(1, nruns + 1):
        base = os.path.join(casedir, f"{direction}-{i}")
        run = parse_iperf(read_json(base + ".json"))
        run["cpu_s"] = cpu_seconds(base + ".cpu")
        run["guest_segs"] = guest_segments(base + ".snmp")
        runs.append(run)
    good = [r for r in runs if r["error"] is None]
    gbps = [r["bps"] / 1e9 for r in good]
    cpu = [r["cpu_s"] for r in good if r["cpu_s"] is not None]
    moved = sum(r["bytes"] for r in good if r["cpu_s"] is not None)
    segs = [r["guest_segs"] for r in good if r["guest_segs"]]
    guest = None
    if segs:
        guest = {k: sum(g[k] for g in segs) for k in segs[0]}
        # The guest's data segments and the ACKs that answer them: up, it
        # sends the data; down, it receives it
        data, acks = ("OutSegs", "InSegs") if direction == "up" else \
            ("InSegs", "OutSegs")
        guest["data_segments"] = guest[data]
        guest["acks_per_segment"] = round(guest[acks] / guest[data], 3) \
            if guest[data] else None
    return {
        "runs": runs,
        "guest_segs": guest,
        "median_gbps": round(statistics.median(gbps), 3) if gbps else None,
        "min_gbps": round(min(gbps), 3) if gbps else None,
        "max_gbps": round(max(gbps), 3) if gbps else None,
        "cpu_s_per_gib": round(sum(cpu) / (moved / GIB), 3)
        if cpu and moved else None,
        "zero_intervals": sum(r["zero_intervals"] for r in runs),
        "slow_intervals": sum(r["slow_intervals"] for r in runs),
        "failed_runs": len(runs) - len(good),
    }


def summarise_case(raw, case, nruns):
    """Everything measured for one case.

    @raw:   the raw directory
    @case:  case id
    @nruns: runs per direction

    Return: dict for results.json.
    """
    casedir = os.path.join(raw, case)
    meta = read_kv(os.path.join(casedir, "meta"))
    out = {"id": case}
    out.update(meta)
    if "mtu" in out:
        out["mtu"] = int(out["mtu"])
    if meta.get("skip"):
        return out
    out["directions"] = {d: summarise_dir(casedir, d, nruns) for d in DIRS}
    try:
        with open(os.path.join(casedir, "rss"), encoding="utf-8") as f:
            out["peak_rss_kib"] = int(f.read().split()[0])
    except (FileNotFoundError, ValueError, IndexError):
        pass
    conn = read_json(os.path.join(casedir, "connrate.json"))
    if conn is not None:
        out["connrate"] = conn
    rr = {}
    for size in RR_SIZES:
        r = read_json(os.path.join(casedir, f"rr-{size}.json"))
        if r is not None:
            rr[str(size)] = r
    if rr:
        out["rr"] = rr
    return out


def fmt(val, spec):
    """Format a number for the table, "-" when absent.

    @val:  number or None
    @spec: format specification

    Return: the text.
    """
    return "-" if val is None else format(val, spec)


def header(info):
    """Print what the figures were measured on.

    @info: the run's settings and machine (raw/info)
    """
    print(f"{info.get('date', '?')}: {info.get('host_cores', '?')} cores"
          f" ({info.get('host_cpu', '?')}), Linux"
          f" {info.get('host_kernel', '?')}; {info.get('time_s', '?')} s x"
          f" {info.get('runs', '?')} runs; VM guests under"
          f" {info.get('vm_accel', '?')}")
    print(f"load average at start {info.get('loadavg_start', '?')},"
          f" at end {info.get('loadavg_end', '?')}"
          f" (above 0 means other work shared the CPUs)")
    print()


def table(cases):
    """Print the human-readable table.

    @cases: summarised cases, in order
    """
    head = (f"{'case':<26} {'direction':<12} {'Gbit/s':>8} {'min-max':>15}"
            f" {'zero s':>6} {'slow s':>6} {'CPU s/GiB':>9} {'RSS MiB':>8}"
            f" {'conn/s':>8}")
    print(head)
    print("-" * len(head))
    for c in cases:
        if c.get("skip"):
            print(f"{c['label']:<26} skipped: {c['skip']}")
            continue
        first = True
        for d in DIRS:
            s = c["directions"][d]
            spread = "-" if s["min_gbps"] is None else \
                f"{s['min_gbps']:.2f}-{s['max_gbps']:.2f}"
            med = fmt(s["median_gbps"], ".2f")
            if s["failed_runs"]:
                med = f"FAIL {s['failed_runs']}"
            rss = c.get("peak_rss_kib")
            conn = c.get("connrate", {}).get("per_s")
            if conn is not None and c["connrate"].get("failed"):
                conn = f"{conn:.0f}!{c['connrate']['failed']}"
            elif conn is not None:
                conn = f"{conn:.0f}"
            line = (f"{c['label'] if first else '':<26} {DIR_NAMES[d]:<12}"
                    f" {med:>8} {spread:>15} {s['zero_intervals']:>6}"
                    f" {s['slow_intervals']:>6}"
                    f" {fmt(s['cpu_s_per_gib'], '.2f'):>9}"
                    f" {fmt(rss / 1024 if rss and first else None, '.1f'):>8}"
                    f" {(conn or '-') if first else '':>8}")
            print(line.rstrip())
            first = False
    print(LEGEND)


def rr_table(cases):
    """Print request/response latency of the cases that measured it.

    @cases: summarised cases, in order
    """
    rows = [c for c in cases if c.get("rr")]
    if not rows:
        return
    print()
    print(f"{'request/response':<26}" + "".join(
        f" {f'{s} B p50/p99 us':>18} {'trans/s':>8}" for s in RR_SIZES))
    for c in rows:
        line = f"{c['label']:<26}"
        for s in RR_SIZES:
            r = c["rr"].get(str(s))
            if r is None:
                line += f" {'failed':>18} {'-':>8}"
                continue
            lat = f"{r['p50_us']:.1f}/{r['p99_us']:.1f}"
            tps = 1e6 / r["mean_us"] if r.get("mean_us") else None
            line += f" {lat:>18} {fmt(tps, '.0f'):>8}"
        print(line)
    print("one transaction at a time from the guest to the peer, each way"
          " SIZE bytes (tests/bench/rr.c)")


def segs_table(cases):
    """Print the guest's own TCP counters of the VM cases.

    @cases: summarised cases, in order
    """
    rows = [c for c in cases
            if any(s.get("guest_segs") for s in
                   c.get("directions", {}).values())]
    if not rows:
        return
    print()
    print(f"{'guest TCP segments':<26} {'direction':<12} {'data segs':>10}"
          f" {'ACKs/seg':>8} {'retrans':>8}")
    for c in rows:
        first = True
        for d in DIRS:
            g = c["directions"][d].get("guest_segs")
            if not g:
                continue
            print(f"{c['label'] if first else '':<26} {DIR_NAMES[d]:<12}"
                  f" {g['data_segments']:>10} {fmt(g['acks_per_segment'], '.2f'):>8}"
                  f" {g['RetransSegs']:>8}")
            first = False
    print("the guest kernel's /proc/net/snmp over the runs: segments it"
          " sent (up) or received\n(down), ACKs the other way per segment,"
          " segments it retransmitted")


def plot_data(path, cases):
    """Write throughput.dat: one line per measured case for gnuplot.

    @path:  output file
    @cases: summarised cases

    Columns: label, then median, min and max Gbit/s guest->peer, then the
    same peer->guest (0 where a direction has no successful run).
    """
    with open(path, "w", encoding="utf-8") as f:
        for c in cases:
            if c.get("skip"):
                continue
            cols = [f'"{c["label"]}"']
            for d in DIRS:
                s = c["directions"][d]
                for k in ("median_gbps", "min_gbps", "max_gbps"):
                    cols.append(str(s[k] or 0))
            f.write(" ".join(cols) + "\n")


def broken(cases):
    """Tell whether any transfer failed, or netshim stalled.

    @cases: summarised cases

    Return: list of "case direction: error" strings, empty when all passed.
    """
    out = []
    for c in cases:
        for d, s in c.get("directions", {}).items():
            for i, r in enumerate(s["runs"], 1):
                if r["error"]:
                    out.append(f"{c['label']} {DIR_NAMES[d]} run {i}:"
                               f" {r['error']}")
            # A second with nothing moved is a bug for netshim, whose
            # window is the socket's: never the price of a slow machine
            if c.get("backend") == "netshim" and s["zero_intervals"]:
                out.append(f"{c['label']} {DIR_NAMES[d]}: stalled for"
                           f" {s['zero_intervals']} s")
        conn = c.get("connrate")
        if conn is not None and not conn.get("ok"):
            out.append(f"{c['label']}: no connection succeeded")
    return out


def main():
    """Summarise OUTDIR (argv[1]).

    Return: process exit status, 1 when a transfer failed.
    """
    outdir = sys.argv[1]
    raw = os.path.join(outdir, "raw")
    info = read_kv(os.path.join(raw, "info"))
    nruns = int(info.get("runs", "1"))
    with open(os.path.join(raw, "cases"), encoding="utf-8") as f:
        ids = f.read().split()
    cases = [summarise_case(raw, i, nruns) for i in ids]
    result = {"info": info, "cases": cases}
    with open(os.path.join(outdir, "results.json"), "w",
              encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    plot_data(os.path.join(outdir, "throughput.dat"), cases)
    header(info)
    table(cases)
    rr_table(cases)
    segs_table(cases)
    errors = broken(cases)
    for e in errors:
        print(f"FAILED: {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
