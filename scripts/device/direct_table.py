#!/usr/bin/env python3
"""Best-of-pool per shape from gconv-bench CSVs run with --baseline cudnn: latency, GB/s of
minimal bytes (input + weight + output once), share of the copy ceiling, speedup against cuDNN
timed in the same run; geomean and worst speedup per direction over the shapes a kernel ran.

usage: scripts/device/direct_table.py [--copy-gbps 4300] FILE.csv [FILE.csv ...]
"""
import argparse
import csv
import math


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copy-gbps", type=float, default=4300.0)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    best, cudnn = {}, {}
    for path in a.files:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                key = (r.get("variant", ""), r.get("layer", ""))
                b = num(r.get("baseline_ms"))
                if b:
                    cudnn[key] = b
                ms = num(r.get("latency_ms"))
                if r.get("status") == "ok" and ms and (key not in best or ms < num(best[key]["latency_ms"])):
                    best[key] = r
    print("| dir | shape | best kernel | ms | GB/s | %% of %.0f | cuDNN ms | speedup |" % a.copy_gbps)
    print("|---|---|---|---|---|---|---|---|")
    per_dir = {}
    for key in sorted(best):
        r = best[key]
        ms, gb = num(r["latency_ms"]), num(r.get("gbps")) or 0.0
        ref = cudnn.get(key)
        sp = ref / ms if ref else None
        if sp:
            per_dir.setdefault(key[0], []).append(sp)
        print("| %s | %s | %s | %.4f | %.0f | %.0f%% | %s | %s |" % (
            key[0], key[1], r["kernel"].replace("grouped_conv_", ""), ms, gb,
            100 * gb / a.copy_gbps, "%.4f" % ref if ref else "-", "%.2fx" % sp if sp else "-"))
    for d, sps in sorted(per_dir.items()):
        g = math.exp(sum(math.log(s) for s in sps) / len(sps))
        print("%s: %d shapes, geomean %.2fx cuDNN, worst %.2fx" % (d, len(sps), g, min(sps)))


if __name__ == "__main__":
    main()
