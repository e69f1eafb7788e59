#!/usr/bin/env python3
"""Per baseline shape: the best direct_mma kernel (or of the kernels whose names match --match,
called --label) and the best other kernel of gconv-bench CSVs run with --baseline cudnn, each with its latency, GB/s of minimal bytes (input + weight + output
once), share of the copy ceiling the run measured (FILE.csv.meta.json, else --copy-gbps) and
speedup against cuDNN timed in the same run; geomeans over the shapes direct_mma ran.

usage: scripts/device/direct_mma_table.py [--copy-gbps 4250] [--match RE --label NAME] FILE.csv ...
"""
import argparse
import csv
import json
import math
import os
import re


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def ceiling(files, fallback):
    for path in files:
        try:
            with open(path + ".meta.json") as f:
                c = json.load(f).get("ceilings", {}).get("copy_gbps")
            if c:
                return float(c)
        except (OSError, ValueError):
            pass
    return fallback


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copy-gbps", type=float, default=4250.0)
    ap.add_argument("--match", default="_direct_mma_", help="regular expression on kernel names")
    ap.add_argument("--label", default="direct_mma")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    match = re.compile(a.match)
    copy = ceiling(a.files, a.copy_gbps)
    best = {"direct_mma": {}, "other": {}}
    cudnn = {}
    for path in a.files:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                key = r.get("layer", "")
                b = num(r.get("baseline_ms"))
                if b:
                    cudnn[key] = b
                ms = num(r.get("latency_ms"))
                kind = "direct_mma" if match.search(r["kernel"]) else "other"
                if r.get("status") == "ok" and ms and (key not in best[kind] or ms < num(best[kind][key]["latency_ms"])):
                    best[kind][key] = r
    print("copy ceiling %.0f GB/s" % copy)
    print("| shape | C/G | %s ms | GB/s | %% copy | vs cuDNN | best other ms | vs cuDNN | cuDNN ms | %s kernel |"
          % (a.label, a.label))
    print("|---|---|---|---|---|---|---|---|---|---|")
    sp_mma, sp_best = [], []
    for key in sorted(set(best["direct_mma"]) | set(best["other"])):
        m, o, ref = best["direct_mma"].get(key), best["other"].get(key), cudnn.get(key)
        row = m or o
        cpg = int(row["C"]) // int(row["G"])
        cells = []
        for r in (m, o):
            if r:
                ms = num(r["latency_ms"])
                cells.append((ms, num(r.get("gbps")) or 0.0, ref / ms if ref else None))
            else:
                cells.append(None)
        fmt = lambda c: ("%.4f" % c[0], "%.0f" % c[1], "%.0f%%" % (100 * c[1] / copy),
                         "%.2fx" % c[2] if c[2] else "-") if c else ("-",) * 4
        mm, oo = fmt(cells[0]), fmt(cells[1])
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            key.replace("baseline.", ""), cpg, mm[0], mm[1], mm[2], mm[3], oo[0], oo[3],
            "%.4f" % ref if ref else "-", re.sub("^grouped_conv_[a-z_]+?_(bf16|fp16|fp32)_", "", m["kernel"]) if m else "-"))
        if cells[0] and cells[0][2]:
            sp_mma.append(cells[0][2])
            alts = [c[0] for c in cells if c]
            sp_best.append(ref / min(alts))
    print("%s: %d shapes, geomean %.2fx cuDNN, worst %.2fx; best of both pools geomean %.2fx" % (
        a.label, len(sp_mma), geomean(sp_mma), min(sp_mma) if sp_mma else float("nan"), geomean(sp_best)))


if __name__ == "__main__":
    main()
