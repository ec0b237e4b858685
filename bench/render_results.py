#!/usr/bin/env python3
"""Render bench JSON files as the Markdown tables of bench/RESULTS.md.

usage: bench/render_results.py spmm FILE.json...
       bench/render_results.py sddmm FILE.json...
Prints the table and the geometric-mean summary to standard output."""
import json
import math
import sys


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def fmt(x, spec):
    return "—" if x is None else format(x, spec)


def spmm(results):
    print("| graph | rows | nnz | feat | cuSPARSE ms (alg) | stir CSR ms | "
          "stir hybrid ms | hybrid speedup | bw cuSPARSE / hybrid | "
          "best hybrid | build ms |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | --- | ---: |")
    for r in results:
        cfg = "c=%d [%s]" % (r["hyb_column_parts"],
                             ",".join(map(str, r["hyb_buckets"])))
        if r.get("hyb_group", 1) > 1:
            cfg += " g%d" % r["hyb_group"]
        if r.get("hyb_threads", 256) != 256:
            cfg += " %dt" % r["hyb_threads"]
        if r.get("hyb_locality"):
            cfg += " lo"
        if r.get("hyb_warp_cache"):
            cfg += " wc"
        if r.get("hyb_serial_lanes"):
            cfg += " s%d" % r["hyb_serial_lanes"]
        if r.get("hyb_min_blocks"):
            cfg += " mb%d" % r["hyb_min_blocks"]
        print("| %s | %d | %d | %d | %s (%s) | %s | %s | %s× | %s / %s | %s | %s |" % (
            r["graph"], r["rows"], r["nnz"], r["features"],
            fmt(r["cusparse_ms"], ".4f"), r["cusparse_alg"],
            fmt(r["stir_csr_ms"], ".4f"), fmt(r["stir_hyb_ms"], ".4f"),
            fmt(r["speedup_hyb"], ".2f"),
            fmt(100 * r["cusparse_bw_fraction"], ".0f") + "%",
            fmt(100 * r["hyb_bw_fraction"], ".0f") + "%", cfg,
            fmt(r["host_build_ms"], ".0f")))
    sp = [r["speedup_hyb"] for r in results]
    print()
    print("Hybrid over cuSPARSE: geometric mean %.3f×, worst %.3f×, "
          "%d of %d cases at 0.9× or better." % (
              geomean(sp), min(sp), sum(s >= 0.9 for s in sp), len(sp)))


def sddmm(results):
    print("| graph | rows | nnz | feat | cuSPARSE ms | stir ms | speedup | "
          "bw cuSPARSE / stir | kernel | lanes × vec |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |")
    for r in results:
        print("| %s | %d | %d | %d | %s | %s | %s× | %s%% / %s%% | %s | %d × %d |" % (
            r["graph"], r["rows"], r["nnz"], r["features"],
            fmt(r["cusparse_ms"], ".4f"), fmt(r["stir_ms"], ".4f"),
            fmt(r["speedup"], ".2f"),
            fmt(100 * r["cusparse_bw_fraction"], ".0f"),
            fmt(100 * r["stir_bw_fraction"], ".0f"),
            r.get("schedule", "fused"), r["lanes"], r["vec"]))
    sp = [r["speedup"] for r in results if r["speedup"]]
    print()
    print("SDDMM over cusparseSDDMM: geometric mean %.3f×, worst %.3f×, "
          "%d of %d cases at 0.9× or better." % (
              geomean(sp), min(sp), sum(s >= 0.9 for s in sp), len(sp)))


def main():
    render = {"spmm": spmm, "sddmm": sddmm}
    if len(sys.argv) < 3 or sys.argv[1] not in render:
        sys.exit(__doc__)
    kind, files = sys.argv[1], sys.argv[2:]
    results = []
    for f in files:
        with open(f) as fp:
            results += json.load(fp)["results"]
    render[kind](results)


if __name__ == "__main__":
    main()
