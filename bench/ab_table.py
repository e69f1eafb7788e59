#!/usr/bin/env python3
"""Two builds of gconv side by side: per shape, the best verified latency of the base build's CSVs and of
the new build's (gconv-bench runs of the same pools on the same shapes in one device call), the
new build's speedup over the base, and each against cuDNN where a run carried a baseline_ms; the
geomeans over the shapes both ran. Written by scripts/device/ab_compare.sh. With --base-match /
--new-match (regular expressions searched in kernel names) the two sides are two kinds of kernel
of the same runs instead, for example the per-size and the `_kx` forms of the tensor-core pools.

usage: bench/ab_table.py --base A.csv [A2.csv ...] --new B.csv [B2.csv ...]
                         [--base-match RE] [--new-match RE]
"""
import argparse
import csv
import math
import re


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def best_rows(files, cudnn, match=None):
    """Per (direction, layer): the fastest verified row of the CSVs (of the kernels whose names
    match the regular expression `match`, if given); cudnn collects baseline_ms."""
    pattern = re.compile(match) if match else None
    out = {}
    for path in files:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                key = (r.get("variant", ""), r.get("layer", ""))
                b = num(r.get("baseline_ms"))
                if b:
                    cudnn[key] = b
                if pattern and not pattern.search(r.get("kernel", "")):
                    continue
                ms = num(r.get("latency_ms"))
                good = r.get("status") == "ok" and r.get("verified") == "true"
                if good and ms and (key not in out or ms < num(out[key]["latency_ms"])):
                    out[key] = r
    return out


def best(files, cudnn, match=None):
    return {k: (num(r["latency_ms"]), r["kernel"])
            for k, r in best_rows(files, cudnn, match).items()}


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", nargs="+", required=True)
    ap.add_argument("--new", nargs="+", required=True)
    ap.add_argument("--base-match", help="only base kernels whose names match this expression")
    ap.add_argument("--new-match", help="only new kernels whose names match this expression")
    a = ap.parse_args()
    cudnn = {}
    base, new = best(a.base, cudnn, a.base_match), best(a.new, cudnn, a.new_match)
    print("| dir | shape | base ms | new ms | new / base speedup | cuDNN ms | base x | new x |")
    print("|---|---|---|---|---|---|---|---|")
    gains, vs_base, vs_new = [], [], []
    for key in sorted(set(base) | set(new)):
        b, n, c = base.get(key), new.get(key), cudnn.get(key)
        cell = lambda v: f"{v[0]:.4f}" if v else "-"
        gain = b[0] / n[0] if b and n else None
        xb = c / b[0] if c and b else None
        xn = c / n[0] if c and n else None
        if gain:
            gains.append(gain)
            if xb and xn:
                vs_base.append(xb), vs_new.append(xn)
        fmt = lambda v: f"{v:.2f}x" if v else "-"
        print(f"| {key[0]} | {key[1]} | {cell(b)} | {cell(n)} | {fmt(gain)} | "
              f"{c and f'{c:.4f}' or '-'} | {fmt(xb)} | {fmt(xn)} |")
    against = (f"against cuDNN base {geomean(vs_base):.3f}x, new {geomean(vs_new):.3f}x"
               if vs_base else "no cuDNN baseline in the runs")
    print(f"\ngeomean over {len(gains)} shapes both ran: new / base {geomean(gains):.3f}x; "
          f"{against}")


if __name__ == "__main__":
    main()
