#!/usr/bin/env python3
"""Nsight Compute reports side by side: the text that `ncu --section ...` prints for one kernel
launch (scripts/device/profile_direct.sh writes one per kernel, <name>.ncu.txt), two or more of
them, as one markdown table: the launch (entry, grid x block), then the figures that say where a
block's time goes (duration, active cycles, tensor-pipe share, instructions, issue rate, memory
throughputs, occupancy), then the warp-stall samples as shares of each kernel's samples. With
--all, every metric that differs between the reports follows.

usage: bench/ncu_compare.py [--all] A.ncu.txt B.ncu.txt [...]
exit status: 0 printed, 1 a report without a kernel launch or metrics, 2 usage.
"""
import argparse
import re
import sys

LAUNCH = re.compile(r"^  (\S+) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\)")
METRIC = re.compile(r"^    (\S.*?)\s{2,}(?:(\S+)\s+)?(-?[\d,]*\.?\d+)\s*$")
STALL = re.compile(r"\(smsp__pcsamp_warps_issue_stalled_(\w+)\)$")

KEY = ["Duration", "Elapsed Cycles", "SM Active Cycles", "SM Frequency",
       "SM: Pipe Tensor Cycles Active", "Compute (SM) Throughput", "Instructions Executed",
       "Issued Warp Per Scheduler", "No Eligible", "Warp Cycles Per Issued Instruction",
       "Memory Throughput", "L2 Cache Throughput", "DRAM Throughput", "L2 Hit Rate",
       "Registers Per Thread", "Dynamic Shared Memory Per Block", "Cluster Size",
       "Achieved Occupancy"]


def parse(path):
    """(launch text, {metric: (value, unit)}, {stall reason: samples}, total samples); the first
    value of a metric that several sections print."""
    launch, metrics, stalls = None, {}, {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = LAUNCH.match(line)
            if m and launch is None:
                g = m.groups()
                launch = f"{g[0]} ({g[1]}x{g[2]}x{g[3]} blocks of {g[4]})"
                continue
            m = METRIC.match(line)
            if not m:
                continue
            name, unit, value = m.group(1).strip(), m.group(2) or "", m.group(3)
            number = float(value.replace(",", ""))
            s = STALL.search(name)
            if s and name.startswith("Warp Stall Sampling (All Samples)"):
                stalls[s.group(1)] = number
            metrics.setdefault(name, (number, unit))
    if launch is None or not metrics:
        raise ValueError(f"{path}: no kernel launch with metrics (an ncu --section report?)")
    samples = metrics.get("# Samples", (sum(stalls.values()), ""))[0]
    return launch, metrics, stalls, samples


def fmt(v):
    if v is None:
        return "-"
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.2f}".rstrip("0").rstrip(".")


def table(reports, show_all):
    names = [r[0] for r in reports]
    out = ["| metric | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]

    def row(label, values):
        out.append(f"| {label} | " + " | ".join(fmt(v) for v in values) + " |")

    for key in KEY:
        values = [r[1].get(key, (None, ""))[0] for r in reports]
        if any(v is not None for v in values):
            unit = next((r[1][key][1] for r in reports if key in r[1]), "")
            row(f"{key} ({unit})" if unit else key, values)
    reasons = sorted({k for r in reports for k in r[2]},
                     key=lambda k: -max(r[2].get(k, 0) / max(r[3], 1) for r in reports))
    for reason in reasons:
        shares = [100.0 * r[2].get(reason, 0) / r[3] if r[3] else None for r in reports]
        if any(s for s in shares):
            row(f"stall {reason} (% of samples)", shares)
    if show_all:
        shown = set(KEY)
        for name in sorted({k for r in reports for k in r[1]} - shown):
            values = [r[1].get(name, (None, ""))[0] for r in reports]
            if len(set(values)) > 1 and not STALL.search(name):
                row(name, values)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--all", action="store_true", help="every metric that differs, after the key ones")
    ap.add_argument("reports", nargs="+")
    args = ap.parse_args()
    if len(args.reports) < 2:
        ap.error("two or more reports")
    try:
        reports = [parse(p) for p in args.reports]
    except (OSError, ValueError) as e:
        print(f"ncu_compare.py: {e}", file=sys.stderr)
        return 1
    print(table(reports, args.all))
    return 0


if __name__ == "__main__":
    sys.exit(main())
