#!/usr/bin/env python3
"""Reports on gconv-bench CSVs: verification per file, and the best kernel per problem against
the cuDNN baseline and the device's ceilings.

usage: bench/report.py [--best] [--baseline bench/baselines/cudnn_latencies.json]
                       [--copy-gbps 4149] [--matmul-tflops 738] FILE.csv [FILE.csv ...]
       bench/report.py --classes [--markdown] [--shapes] [--json] FILE.csv [FILE.csv ...]

--classes: the performance report of one run per direction and class of problem (depthwise,
grouped C/G <= 32, grouped C/G > 32, dense G = 1; 2D and 3D): best of pool against cuDNN
timed in the same run (the CSV's baseline_ms; the --baseline file only where a CSV has none),
geomean and worst speedup, share of shapes won, and the share of the device's ceiling each
shape reaches (the copy bandwidth below 150 FLOP/B of minimal bytes, else the bf16 matmul
rate; the ceilings the run measured, from FILE.csv.meta.json, else --copy-gbps and
--matmul-tflops), each class held to the targets of issue 7 (PASS / MISS). Exit status of
--classes: 0 when every class passes, 1 when one misses, 2 when a CSV lacks the full columns.
"""
import argparse
import collections
import csv
import json
import math

import report_classes


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


num = report_classes.num  # one reading of a CSV number for both reports


def verification(path, rows):
    by_status = collections.Counter(r.get("status", "") for r in rows)
    kernels = {r["kernel"] for r in rows}
    failing = sorted({r["kernel"] for r in rows if r.get("status") in ("fail", "error", "crash", "timeout", "compile_error")})
    ran = {r["kernel"] for r in rows if r.get("status") in ("ok", "fail")}
    print("%s: %d cells, %d kernels (%d ran on some problem); %s" % (
        path, len(rows), len(kernels), len(ran), ", ".join("%s %d" % kv for kv in sorted(by_status.items()))))
    worst = max((num(r.get("max_rel_err")) or 0.0 for r in rows if r.get("status") == "ok"), default=0.0)
    print("  largest max_rel_err among passing cells: %.3g" % worst)
    for k in failing[:20]:
        bad = [r for r in rows if r["kernel"] == k and r.get("status") != "ok" and r.get("status") != "unsupported"]
        print("  FAILING %s: %s" % (k, (bad[0].get("error") or bad[0].get("status"))[:160]))
    return len(failing)


def best_table(rows_all, baseline, copy_gbps, matmul):
    base = {(b["layer"], b["direction"]): b for b in baseline["rows"]} if baseline else {}
    # --best also reads CSVs without gconv-bench's full columns: keys default to "".
    best = {k: e for k, e in report_classes.best_by(rows_all, lambda r: (
        r.get("layer", ""), r.get("variant", ""), r.get("problem_key", ""))).items() if e["best"]}
    print("\n| shape | dir | best kernel | ms | TFLOP/s | GB/s | cuDNN ms (this run) | cuDNN ms (shared file) | speedup | % copy BW | % matmul |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    speedups = []
    for (layer, variant, _), e in sorted(best.items()):
        r = e["best"]
        ms, tf, gb = num(r["latency_ms"]), num(r["tflops"]), num(r.get("gbps"))
        b = base.get((layer, variant))
        # cuDNN measured in the same run (--baseline cudnn) wins over the shared file's number.
        same = e["cudnn_ms"]
        ref = same if same else (b["cudnn_ms"] if b else None)
        sp = ref / ms if ref else None
        if sp:
            speedups.append(sp)
        print("| %s | %s | %s | %.4f | %.1f | %.0f | %s | %s | %s | %.0f%% | %.1f%% |" % (
            layer, variant, r["kernel"].replace("grouped_conv_", ""), ms, tf or 0, gb or 0,
            "%.4f" % same if same else "-", "%.4f" % b["cudnn_ms"] if b else "-",
            "%.2fx" % sp if sp else "-", 100 * (gb or 0) / copy_gbps, 100 * (tf or 0) / matmul))
    missing = [b["layer"] for b in (baseline or {"rows": []})["rows"]
               if any(r.get("layer") == b["layer"] and r.get("variant") == b["direction"] for r in rows_all)
               and not any(k[0] == b["layer"] and k[1] == b["direction"] for k in best)]
    for m in sorted(set(missing)):
        print("| %s | - | no kernel of the pool supports or passed it | | | | | | | | |" % m)
    if speedups:
        g = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        print("\ngeomean speedup over cuDNN: %.2fx over %d shapes (min %.2fx, max %.2fx)" % (g, len(speedups), min(speedups), max(speedups)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline")
    # No defaults here: --classes prefers the ceilings the run measured and must know whether
    # these were given; --best falls back to the H200 figures (PyTorch, hip-on-nvidia notes).
    ap.add_argument("--copy-gbps", type=float, help="copy bandwidth, GB/s read + written (4149)")
    ap.add_argument("--matmul-tflops", type=float, help="bf16 matmul rate, TFLOP/s (738)")
    ap.add_argument("--best", action="store_true", help="print the best-of-pool table")
    ap.add_argument("--classes", action="store_true",
                    help="per direction and class of problem: speedup over cuDNN, ceilings, PASS/MISS")
    ap.add_argument("--markdown", action="store_true", help="--classes tables in Markdown")
    ap.add_argument("--shapes", action="store_true", help="--classes: also one line per shape")
    ap.add_argument("--json", action="store_true", help="--classes: the report as one JSON object")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    baseline = json.load(open(a.baseline)) if a.baseline else None
    if a.classes:
        return report_classes.main(a, baseline, [(f, read(f)) for f in a.files])
    rows_all, failing = [], 0
    for f in a.files:
        rows = read(f)
        failing += verification(f, rows)
        rows_all += rows
    if a.best:
        best_table(rows_all, baseline, a.copy_gbps or 4149.0, a.matmul_tflops or 738.0)
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())
