#!/usr/bin/env python3
"""Best-of-pool per shape from gconv-bench CSVs run with --baseline cudnn: latency, GB/s of
minimal bytes (input + weight + output once), share of the copy ceiling, speedup against cuDNN
timed in the same run; geomean and worst speedup per direction over the shapes a kernel ran
(verified cells only).

usage: scripts/device/direct_table.py [--copy-gbps 4300] FILE.csv [FILE.csv ...]
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from ab_table import best_rows, num  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copy-gbps", type=float, default=4300.0)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    cudnn = {}
    best = best_rows(a.files, cudnn)
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
