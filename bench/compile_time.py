#!/usr/bin/env python3
"""JIT compile time of a shipped pool (issue 7: median at most 0.5 s per kernel per core, a
cached rebuild compiles nothing).

For each config: gconv-bench --build-only on the first N kernels with --workers = cores into a
fresh kernel cache (cold), then the same again on that cache (cached). Figures come from
gconv-bench itself: the per-kernel compile seconds of its `compile` progress events, the build
counts its --build-only summary event gives (compiled / cached / failed / wall_s, the build
section of the .meta.json of a full sweep), and the CPU time of the
gconv-bench process (user + system, from the OS), which other work on a shared machine does not
inflate the way it inflates wall times.

usage: bench/compile_time.py [--bench build/app/gconv-bench] [--kernels 40] [--workers CORES]
                             [--sample I/N] [--arch sm_90] [--json] CONFIG.json [CONFIG.json ...]
--sample I/N measures a pseudo-random 1/N of the whole pool instead of its first kernels: the
kernels of gconv-bench's --shard I/N over a one-problem set (a hash of the kernel name, so the
same kernels every run and on every machine), drawn from the first --kernels of the pool.
exit status: 0 when every config meets both targets, 1 when one misses, 2 on a failed run.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_SECONDS_PER_KERNEL_PER_CORE = 0.5


def children_cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# The one problem of a --sample run: gconv-bench's shards split (kernel, problem) cells, so with
# one problem a shard is a fixed pseudo-random subset of the kernels. Its shape does not matter
# to the build phase.
SAMPLE_PROBLEM = {"N": 1, "C": 64, "K": 64, "G": 1, "Hi": 8, "Wi": 8, "Y": 3, "X": 3,
                  "stride_h": 1, "stride_w": 1, "pad_h": 1, "pad_w": 1, "dilation_h": 1,
                  "dilation_w": 1, "layer": "compile_time.sample"}


def sample_problems_file(variant, out_dir):
    path = os.path.join(out_dir, "sample_problems.json")
    with open(path, "w") as f:
        json.dump({"key": "compile_time_sample", "direction": variant,
                   "description": "one problem: bench/compile_time.py --sample",
                   "problems": [SAMPLE_PROBLEM]}, f)
    return path


def build(bench, config, variant, args, cache, out_dir, label):
    output = os.path.join(out_dir, "%s.csv" % label)
    command = [bench, "--variant", variant, "--config", config, "--arch", args.arch,
               "--build-only", "--max-kernels", str(args.kernels), "--workers", str(args.workers),
               "--cache-dir", cache, "--progress", "jsonl", "--output", output]
    if args.sample:
        command += ["--shard", args.sample, "--all-entries",
                    "--problems-file", sample_problems_file(variant, out_dir)]
    elif args.problems:
        command += ["--problems", args.problems]
    cpu_before, wall_before = children_cpu_seconds(), time.monotonic()
    p = subprocess.run(command, capture_output=True, text=True)
    cpu, wall = children_cpu_seconds() - cpu_before, time.monotonic() - wall_before
    events = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    compiles = [e for e in events if e.get("event") == "compile"]
    # The build counts: the summary event (--build-only ends with it), else the sidecar.
    summaries = [e for e in events if e.get("event") == "summary"]
    meta_build = summaries[-1] if summaries else {}
    if not meta_build:
        try:
            with open(output + ".meta.json") as f:
                meta_build = json.load(f).get("build", {})
        except OSError:
            pass
    if p.returncode not in (0, 1) or not compiles:
        raise RuntimeError("%s failed (exit %d):\n%s%s" % (" ".join(command), p.returncode,
                                                           p.stderr[-2000:], p.stdout[-2000:]))
    seconds = [e["seconds"] for e in compiles if e.get("status") == "compiled"]
    return {"kernels": len(compiles),
            "compiled": meta_build.get("compiled", sum(e["status"] == "compiled" for e in compiles)),
            "cached": meta_build.get("cached", sum(e["status"] == "cached" for e in compiles)),
            "failed": meta_build.get("failed", sum(e["status"] == "failed" for e in compiles)),
            "build_wall_s": meta_build.get("wall_s"), "process_wall_s": wall,
            "process_cpu_s": cpu,
            "median_compile_s": statistics.median(seconds) if seconds else None,
            "p90_compile_s": sorted(seconds)[int(0.9 * (len(seconds) - 1))] if seconds else None,
            "max_compile_s": max(seconds) if seconds else None}


def measure(args, config):
    with open(config) as f:
        variant = json.load(f).get("variant", "forward")
    with tempfile.TemporaryDirectory(prefix="gconv-compile-time-") as tmp:
        cache = os.path.join(tmp, "cache")
        load_before = os.getloadavg()[0]
        cold = build(args.bench, config, variant, args, cache, tmp, "cold")
        cached = build(args.bench, config, variant, args, cache, tmp, "cached")
        load_after = os.getloadavg()[0]
    n = max(cold["kernels"], 1)
    result = {"config": config, "variant": variant, "workers": args.workers, "arch": args.arch,
              "sample": args.sample,
              "load_average_before": load_before,
              "load_average_after": load_after, "cold": cold, "cached": cached,
              # Each kernel compiles on one thread, so its compile seconds are seconds of one
              # core; the throughput forms spread the whole build over the cores it had.
              "median_s_per_kernel_per_core": cold["median_compile_s"],
              "wall_s_x_workers_per_kernel": (cold["build_wall_s"] or cold["process_wall_s"])
              * args.workers / n,
              "cpu_s_per_kernel": cold["process_cpu_s"] / n}
    result["meets_compile_target"] = result["median_s_per_kernel_per_core"] is not None and \
        result["median_s_per_kernel_per_core"] <= TARGET_SECONDS_PER_KERNEL_PER_CORE
    result["meets_cache_target"] = cached["compiled"] == 0 and cached["failed"] == cold["failed"]
    return result


def print_result(r):
    c, k = r["cold"], r["cached"]
    print("%s (%s, %s, %d kernels%s, --workers %d, load average %.1f before, %.1f after):" % (
        r["config"], r["variant"], r["arch"], c["kernels"],
        ", sample " + r["sample"] if r["sample"] else "", r["workers"],
        r["load_average_before"], r["load_average_after"]))
    print("  cold:   %d compiled, %d failed; build %.1f s wall, gconv-bench %.1f s CPU" % (
        c["compiled"], c["failed"], c["build_wall_s"] or c["process_wall_s"], c["process_cpu_s"]))
    print("          per kernel: median %.2f s, p90 %.2f s, max %.2f s (one core each); "
          "wall x workers / kernels %.2f s; CPU / kernels %.2f s" % (
              c["median_compile_s"] or 0, c["p90_compile_s"] or 0, c["max_compile_s"] or 0,
              r["wall_s_x_workers_per_kernel"], r["cpu_s_per_kernel"]))
    print("  cached: %d compiled, %d cached, %d failed; %.2f s wall" % (
        k["compiled"], k["cached"], k["failed"], k["build_wall_s"] or k["process_wall_s"]))
    print("  target median <= %.1f s per kernel per core: %s; cached rebuild compiles nothing: %s"
          % (TARGET_SECONDS_PER_KERNEL_PER_CORE,
             "PASS" if r["meets_compile_target"] else "MISS",
             "PASS" if r["meets_cache_target"] else "MISS"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--bench", default=os.path.join(here, "..", "build", "app", "gconv-bench"),
                    help="the gconv-bench executable")
    ap.add_argument("--kernels", type=int, default=40, help="the first N kernels of each pool")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="compiler threads (default: the machine's cores)")
    ap.add_argument("--sample", metavar="I/N", default="",
                    help="a pseudo-random 1/N of the pool (gconv-bench --shard I/N over one "
                         "problem) instead of its first kernels")
    ap.add_argument("--problems", default="",
                    help="a problem set (registry key) the modules are built for: each holds "
                         "only the optional entries its cells launch, as in a sweep over that "
                         "set (default: no problems, every entry)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--json", action="store_true", help="one JSON object per config")
    ap.add_argument("configs", nargs="+")
    args = ap.parse_args()
    ok = True
    for config in args.configs:
        try:
            r = measure(args, config)
        except (RuntimeError, OSError, ValueError) as e:
            print("compile_time.py: %s" % e, file=sys.stderr)
            return 2
        print(json.dumps(r)) if args.json else print_result(r)
        ok &= r["meets_compile_target"] and r["meets_cache_target"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
