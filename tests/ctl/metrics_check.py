#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""netshim - the counters a scraper reads, against those SIGUSR1 logs

    metrics_check.py LOG_DUMP METRICS [METRICS_AFTER]

LOG_DUMP is one SIGUSR1 dump of netshim's log (tests/lib/topo.sh's
topo_counters): "counters: N TCP connections, M UDP/ICMP flows open", then
"NAME VALUE description" a counter.  METRICS is Prometheus' text exposition
as netshim served it, parsed by the Prometheus project's own parser
(Debian's python3-prometheus-client): a malformed line fails the parse.

Every counter of the dump must be a sample of the same value: drop_NAME as
netshim_dropped_total{reason="NAME"}, link_buf_reached as
netshim_link_buf_reached_bytes, sk_lookup as
netshim_sk_lookup_assigned_total, any other NAME as netshim_NAME_total;
the open TCP connections and UDP/ICMP flows as netshim_open_flows.  With
METRICS_AFTER, a second scrape must equal the first but for
netshim_ctl_requests_total, one more (each scrape counts once served):
nothing moved meanwhile, so the comparison is exact.  Exits 1, saying what
differs, if anything does; 2 if the counters moved (run it again).
"""
import re
import sys

from prometheus_client.parser import text_string_to_metric_families


def samples(path):
    """Every sample of a scrape, by (name, labels)."""
    out = {}
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if text.startswith("HTTP/"):
        text = text.split("\r\n\r\n", 1)[1]
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def logged(path):
    """The counters of a SIGUSR1 dump, by the sample they must be."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.search(r"counters: (\d+) TCP connections, (\d+) "
                          r"UDP/ICMP flows open", line)
            if m:
                out[("netshim_open_flows", (("proto", "tcp"),))] = \
                    float(m.group(1))
                out["udp+icmp"] = float(m.group(2))
                continue
            m = re.search(r"netshim:\s+([a-z0-9_]+)\s+(\d+)\s", line)
            if not m or line.split("netshim:")[1].startswith("  local"):
                continue
            name, value = m.group(1), float(m.group(2))
            if name.startswith("drop_"):
                key = ("netshim_dropped_total", (("reason", name[5:]),))
            elif name == "link_buf_reached":
                key = ("netshim_link_buf_reached_bytes", ())
            elif name == "sk_lookup":
                key = ("netshim_sk_lookup_assigned_total", ())
            else:
                key = ("netshim_%s_total" % name, ())
            out[key] = value
    return out


def main():
    want = logged(sys.argv[1])
    got = samples(sys.argv[2])
    if len(sys.argv) > 3:
        after = samples(sys.argv[3])
        req = ("netshim_ctl_requests_total", ())
        moved = [k for k in got if k != req and after.get(k) != got[k]]
        if moved or after.get(req) != got.get(req, 0) + 1:
            print("counters moved between the scrapes: %s" %
                  ", ".join("%s%s" % k for k in moved[:5]))
            sys.exit(2)
        got = after
    bad = []
    flows = want.pop("udp+icmp", None)
    if flows is not None:
        sum_ = sum(v for (n, l), v in got.items()
                   if n == "netshim_open_flows" and
                   l in ((("proto", "udp"),), (("proto", "icmp"),)))
        if sum_ != flows:
            bad.append("UDP/ICMP flows: logged %d, scraped %d" %
                       (flows, sum_))
    for key, value in want.items():
        if key not in got:
            bad.append("%s%s: logged %d, not scraped" % (key[0], key[1],
                                                         value))
        elif got[key] != value:
            bad.append("%s%s: logged %d, scraped %d" % (key[0], key[1],
                                                        value, got[key]))
    if len(want) < 60:
        bad.append("only %d counters in the dump" % len(want))
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    print("%d counters scraped as logged" % len(want))


if __name__ == "__main__":
    main()
