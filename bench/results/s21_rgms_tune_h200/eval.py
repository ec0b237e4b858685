#!/usr/bin/env python3
"""The RGMS tuner against the exhaustive bench (bench/RESULTS.md, "RGMS in
the tuner"): for each graph, feature size and program of tune_*.txt (run.sh:
stirc tune --model-only, the measured search, the record hit), the pick's
time in bench_rgms_*.txt (every candidate, timed in the same device call)
over the fastest there of the candidates the tuner had, and the wall times.
Usage: python3 eval.py (in this folder)."""
import glob
import re

# the tuner's candidate i of each program -> bench_rgms.py's name
NAMES = {
    "rgms_agg --tf32": ["rgms_k4", "rgms_k8"] +
    ["rgms_tc_p%d" % p for p in (32, 64, 128, 256, 512, 1024)],
    "rgms_agg": ["rgms_k4", "rgms_k8"],
    "rgms_edge": ["rgms_edge_k1", "rgms_edge_k4", "rgms_edge_k8"],
}

bench = {}
for f in sorted(glob.glob("bench_rgms_*.txt")):
    g = None
    for line in open(f):
        m = re.match(r"(\S+): \d+ nodes", line)
        if m:
            g = m.group(1).split("/")[-1].split(".")[0]
        m = re.match(r"  f=(\d+) (\S+): ([\d.]+) ms", line)
        if m:
            bench[(g, int(m.group(1)), m.group(2))] = float(m.group(3))

rows = []
for f in sorted(glob.glob("tune_*.txt")):
    case = None
    for line in open(f):
        m = re.match(r"== (\S+) f=(\d+) (\S+) ?(\S*)", line)
        if m:
            g = m.group(1).split("/")[-1].split(".")[0]
            case = {"g": g, "f": int(m.group(2)),
                    "p": (m.group(3) + " " + m.group(4)).strip()}
            rows.append(case)
            continue
        m = re.search(r"candidate (\d+), the rules' pick", line)
        if m:
            case["rule"] = int(m.group(1))
        m = re.search(r"candidate (\d+), measured", line)
        if m:
            case["pick"] = int(m.group(1))
        m = re.match(r"rc=(\d+) (search|hit) wall (\d+) ms", line)
        if m:
            case[m.group(2)] = int(m.group(3))

print("| graph | F | program | rules' pick / best | tuned / best | best (ms) | search (s) | hit (s) |")
print("|---|---|---|---|---|---|---|---|")
within, n, rule_ratios = 0, 0, []
for c in rows:
    names = NAMES[c["p"]]
    times = [bench.get((c["g"], c["f"], x)) for x in names]
    if None in times or "pick" not in c:
        print("| %s | %d | %s | (no bench figures) | | | | |" % (c["g"], c["f"], c["p"]))
        continue
    best = min(times)
    r_rule = times[c["rule"]] / best
    r_pick = times[c["pick"]] / best
    n += 1
    within += r_pick <= 1.03
    rule_ratios.append(r_rule)
    print("| %s | %d | %s | %.3f (%s) | %.3f (%s) | %.4f | %.2f | %.2f |" % (
        c["g"], c["f"], c["p"], r_rule, names[c["rule"]], r_pick,
        names[c["pick"]], best, c["search"] / 1e3, c["hit"] / 1e3))
geo = 1.0
for r in rule_ratios:
    geo *= r
print("\ntuned within 3%% of the bench's fastest: %d of %d; the rules' pick / "
      "fastest, geometric mean %.3f, worst %.3f" % (
          within, n, geo ** (1 / len(rule_ratios)), max(rule_ratios)))
