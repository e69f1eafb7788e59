#!/usr/bin/env python3
"""Multi-GPU speed-up of gconv-bench (issue 8: the benchmark phase of a sweep on 2 GPUs takes at
most 0.55x the time it takes on one).

Runs the same sweep twice on one host, with --devices 0 and then with --devices all (or the
list given), each into its own CSV, and compares the benchmark phase's wall time as each run's
sidecar (.meta.json, "benchmark"."wall_s") gives it; the build phase is left out (the second run
finds every kernel cached). It checks that both runs had the same cells with the same outcome
and prints, per run, the cells, the wall time and what each GPU did (rows, batches, busy time).

usage: bench/multi_gpu_speedup.py [--bench build/app/gconv-bench] [--devices all]
           [--target 0.55] [--out DIR] [--json] -- SWEEP ARGS...
  SWEEP ARGS: gconv-bench's arguments without --output/--devices/--resume, e.g.
      --variant forward --problems forward_2d_test_validation --max-kernels 100
exit status: 0 when the ratio meets --target, 1 when it misses, 2 on a failed or unfair run
(a run that failed, only one GPU used, or runs that measured different cells).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

TARGET_RATIO = 0.55


def run_sweep(bench, sweep_args, devices, out_dir):
    name = "devices_" + devices.replace(",", "_")
    output = os.path.join(out_dir, name + ".csv")
    for stale in (output, output + ".meta.json"):
        if os.path.exists(stale):
            os.remove(stale)
    command = [bench] + sweep_args + ["--devices", devices, "--output", output,
                                      "--progress", "none"]
    p = subprocess.run(command, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s" % (" ".join(command), p.returncode,
                                                         p.stderr[-3000:]))
    with open(output + ".meta.json") as f:
        meta = json.load(f)
    with open(output, newline="") as f:
        outcome = {r["content_key"]: r["status"] for r in csv.DictReader(f)}
    bench_meta = meta["benchmark"]
    return {"devices": devices,
            "csv": output,
            "wall_s": bench_meta["wall_s"],
            "cells": bench_meta["cells"],
            "measured": sum(n for s, n in bench_meta["by_status"].items()
                            if s in ("ok", "fail")),
            "gpus": [{"index": d.get("index"), "name": d.get("name"),
                      "pci_bus_id": d.get("pci_bus_id"), "rows_written": d.get("rows_written"),
                      "batches": d.get("batches"), "busy_s": d.get("busy_s")}
                     for d in meta.get("devices", [])],
            "outcome": outcome}


def compare(single, multi, target):
    """The report of two runs: the ratio, whether it meets the target, what makes it unfair."""
    problems = []
    if len(multi["gpus"]) < 2:
        problems.append("--devices %s used %d GPU: nothing to compare" %
                        (multi["devices"], len(multi["gpus"])))
    if single["outcome"].keys() != multi["outcome"].keys():
        problems.append("the runs have different cells (%d and %d)" %
                        (len(single["outcome"]), len(multi["outcome"])))
    else:
        differ = [k for k, s in single["outcome"].items() if multi["outcome"][k] != s]
        if differ:
            problems.append("%d cells have another status in the second run" % len(differ))
    ratio = multi["wall_s"] / single["wall_s"] if single["wall_s"] > 0 else float("inf")
    return {"ratio": ratio, "target": target, "meets_target": ratio <= target,
            "problems": problems}


def describe(run):
    lines = ["--devices %-6s %5d cells, %5d measured, benchmark phase %8.2f s" %
             (run["devices"], run["cells"], run["measured"], run["wall_s"])]
    for g in run["gpus"]:
        lines.append("    GPU %s %-24s %-14s rows %5s  batches %4s  busy %7.2f s" %
                     (g["index"], g["name"], g["pci_bus_id"] or "", g["rows_written"],
                      g["batches"], g["busy_s"] or 0.0))
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=os.path.join("build", "app", "gconv-bench"))
    parser.add_argument("--devices", default="all", help="the multi-GPU run's --devices")
    parser.add_argument("--target", type=float, default=TARGET_RATIO)
    parser.add_argument("--out", help="where the CSVs go (default: a temporary directory)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("sweep", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    sweep = args.sweep[1:] if args.sweep[:1] == ["--"] else args.sweep
    for reserved in ("--output", "--devices", "--resume"):
        if any(a == reserved or a.startswith(reserved + "=") for a in sweep):
            parser.error("%s is set by this script; leave it out of the sweep arguments" %
                         reserved)
    if not sweep:
        parser.error("the sweep arguments are missing (after --)")

    out_dir = args.out or tempfile.mkdtemp(prefix="gconv-multi-gpu-")
    os.makedirs(out_dir, exist_ok=True)
    try:
        single = run_sweep(args.bench, sweep, "0", out_dir)
        multi = run_sweep(args.bench, sweep, args.devices, out_dir)
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        print("multi_gpu_speedup: %s" % e, file=sys.stderr)
        return 2
    verdict = compare(single, multi, args.target)
    if args.json:
        report = {"single": {k: v for k, v in single.items() if k != "outcome"},
                  "multi": {k: v for k, v in multi.items() if k != "outcome"}}
        report.update(verdict)
        print(json.dumps(report, indent=2))
    else:
        print(describe(single))
        print(describe(multi))
        print("ratio %.3fx (target <= %.2fx): %s" %
              (verdict["ratio"], args.target, "met" if verdict["meets_target"] else "MISSED"))
        for p in verdict["problems"]:
            print("not comparable: " + p)
    if verdict["problems"]:
        return 2
    return 0 if verdict["meets_target"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
