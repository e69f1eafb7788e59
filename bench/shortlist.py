#!/usr/bin/env python3
"""A large problem set timed in two passes (issue 7's report over validation_holdout): every
shipped pool runs on a few probe problems, and only the kernels that came near the best of some
probe run on the whole set beside cuDNN. The report over the second pass is best of the
shortlist: at most what best of every pool would give, never more.

  shortlist.py probes SET.json --count N -o PROBES.json
      N problems of SET spread over its classes (depthwise, grouped C/G <= 32 and > 32, dense;
      2D and 3D: at least one from each present, the rest in proportion to their sizes) and,
      within a class, evenly over its FLOPs; the same problems every time. With
      --per-signature, one more probe (the median FLOPs) for each kernel signature of the
      depthwise and grouped classes that none of them has: C/G, K/G, the channel vector that
      divides C, filter, stride and dilation pick those classes' direct kernels (a pool of
      them builds one C/G and one filter per kernel), so a probe of another signature
      shortlists none of its kernels.
  shortlist.py kernels [--within 5] [--top 4] -o FILTER.txt RUN.csv [RUN.csv ...]
      per problem of the runs, its verified kernels within --within percent of its best (at
      most --top of them, fastest first); their union as one gconv filter expression,
      `c.name in ['...', ...]`, for gconv-bench --filter-file. With --seed NAMES.txt (one kernel
      name per line, `#` comments) those kernels join the shortlist whatever the probes say.
  shortlist.py winners -o NAMES.txt RUN.csv [RUN.csv ...]
      per problem of the runs (of a whole set, say, from several calls), its fastest verified
      kernel; their union, one name per line, as a --seed for the next shortlist: a kernel that
      won a shape of the set once stays in the runs that measure the set, so that the best of
      the shortlist no longer moves with the probes' near-ties.
  shortlist.py filter -o FILTER.txt NAMES.txt
      a names file (winners) as the same gconv-bench filter expression.

exit status: 0 written, 1 bad input (an empty set, no verified cell), 2 usage.
"""
import argparse
import collections
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pool_from_runs import verified_cells  # noqa: E402
from report_classes import intensity, problem_class  # noqa: E402

PROBLEM_DEFAULTS = {"Di": 1, "Z": 1, "stride_d": 1, "stride_h": 1, "stride_w": 1, "pad_d": 0,
                    "pad_h": 0, "pad_w": 0, "dilation_d": 1, "dilation_h": 1, "dilation_w": 1}


def problem_shape(p):
    s = dict(PROBLEM_DEFAULTS)
    s.update({k: v for k, v in p.items() if k != "layer"})
    return s


def problem_group(p):
    s = problem_shape(p)
    three_d = "Di" in p or "Z" in p or "stride_d" in p
    return problem_class(s), 3 if three_d else 2


def spread(items, want):
    """`want` of the sorted items, evenly spaced from the first to the last."""
    if want >= len(items):
        return list(items)
    if want == 1:
        return [items[len(items) // 2]]
    return [items[round(i * (len(items) - 1) / (want - 1))] for i in range(want)]


def kernel_signature(p):
    s = problem_shape(p)
    # The widest channel vector (up to 16 elements) that divides C: the direct kernels' vectors
    # run across groups, so it picks their vector width and how full their channel blocks are.
    return (problem_group(p), s["C"] // s["G"], s["K"] // s["G"], math.gcd(s["C"], 16), s["Z"],
            s["Y"], s["X"], s["stride_d"], s["stride_h"], s["stride_w"], s["dilation_d"],
            s["dilation_h"], s["dilation_w"])


def flops_order(p):
    return intensity(problem_shape(p), "bf16")[0], p.get("layer", "")


def signature_probes(problems, picked):
    """The median-FLOPs problem of each depthwise or grouped signature `picked` lacks."""
    have = {kernel_signature(p) for p in picked}
    by_signature = {}
    for p in problems:
        if problem_group(p)[0] != "dense":
            by_signature.setdefault(kernel_signature(p), []).append(p)
    extra = []
    for sig in sorted(by_signature, key=str):
        if sig not in have:
            extra += spread(sorted(by_signature[sig], key=flops_order), 1)
    return extra


def pick_probes(problems, count):
    groups = {}
    for p in problems:
        groups.setdefault(problem_group(p), []).append(p)
    # One per group, then the rest in proportion to the groups' sizes (largest remainder).
    share = {g: 1 for g in groups}
    left = max(0, count - len(groups))
    total = len(problems)
    exact = {g: left * len(ps) / total for g, ps in groups.items()}
    for g in groups:
        share[g] += int(exact[g])
    rest = count - sum(share.values())
    for g in sorted(groups, key=lambda g: (int(exact[g]) - exact[g], str(g)))[:max(0, rest)]:
        share[g] += 1
    picked = []
    for g in sorted(groups, key=str):
        by_flops = sorted(groups[g], key=flops_order)
        picked += spread(by_flops, min(share[g], len(by_flops)))
    return picked


def probes(args):
    with open(args.set) as f:
        doc = json.load(f)
    problems = doc.get("problems") or []
    if not problems:
        print(f"shortlist.py: {args.set}: no problems", file=sys.stderr)
        return 1
    picked = pick_probes(problems, args.count)
    if args.per_signature:
        picked += signature_probes(problems, picked)
    out = {k: v for k, v in doc.items() if k != "problems"}
    out["key"] = doc.get("key", "set") + "_probes"
    out["description"] = (f"{len(picked)} probes of {doc.get('key', args.set)} "
                          "(bench/shortlist.py probes)")
    out["problems"] = picked
    with open(args.output, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    counts = collections.Counter(problem_group(p) for p in picked)
    print(f"{len(picked)} probes of {len(problems)} problems: " +
          ", ".join(f"{c} {d}D {n}" for (c, d), n in sorted(counts.items(), key=str)))
    return 0


def kernels(args):
    per_problem = {}
    for problem, kernel, ms in verified_cells(args.runs, None):
        best = per_problem.setdefault(problem, {})
        best[kernel] = min(ms, best.get(kernel, ms))
    if not per_problem:
        print("shortlist.py: no verified cell in the runs", file=sys.stderr)
        return 1
    chosen = []
    seeded = 0
    for path in args.seed or []:
        for name in read_names(path):
            if name not in chosen:
                chosen.append(name)
                seeded += 1
    for problem in sorted(per_problem):
        ranked = sorted(per_problem[problem].items(), key=lambda kv: (kv[1], kv[0]))
        limit = ranked[0][1] * (1 + args.within / 100)
        for kernel, ms in ranked[:args.top]:
            if ms <= limit and kernel not in chosen:
                chosen.append(kernel)
    write_filter(args.output, chosen)
    print(f"{len(chosen)} kernels from {len(per_problem)} problems (within {args.within:g}%, "
          f"at most {args.top} per problem; {seeded} seeded) -> {args.output}")
    return 0


def write_filter(path, names):
    with open(path, "w") as f:
        f.write("c.name in [%s]\n" % ", ".join("'%s'" % k for k in sorted(names)))


def name_filter(args):
    names = read_names(args.names)
    if not names:
        print(f"shortlist.py: {args.names}: no kernel name", file=sys.stderr)
        return 1
    write_filter(args.output, names)
    return 0


def read_names(path):
    names = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                names.append(line)
    return names


def winners(args):
    best = {}
    for problem, kernel, ms in verified_cells(args.runs, None):
        if problem not in best or (ms, kernel) < best[problem]:
            best[problem] = (ms, kernel)
    if not best:
        print("shortlist.py: no verified cell in the runs", file=sys.stderr)
        return 1
    names = sorted({kernel for _, kernel in best.values()})
    with open(args.output, "w") as f:
        f.write(f"# the fastest verified kernel of each of {len(best)} problems "
                "(bench/shortlist.py winners)\n")
        for name in names:
            f.write(name + "\n")
    print(f"{len(names)} kernels win the {len(best)} problems -> {args.output}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("probes", help="spread probe problems of a set")
    p.add_argument("set")
    p.add_argument("--count", type=int, default=16)
    p.add_argument("--per-signature", action="store_true",
                   help="one more probe per depthwise or grouped kernel signature not yet probed")
    p.add_argument("-o", "--output", required=True)
    k = sub.add_parser("kernels", help="the kernels near each problem's best, as a filter")
    k.add_argument("--within", type=float, default=5.0)
    k.add_argument("--top", type=int, default=4)
    k.add_argument("-o", "--output", required=True)
    k.add_argument("--seed", action="append", metavar="NAMES.txt",
                   help="kernels to keep whatever the runs say (shortlist.py winners)")
    k.add_argument("runs", nargs="+")
    w = sub.add_parser("winners", help="each problem's fastest kernel, as a --seed file")
    w.add_argument("-o", "--output", required=True)
    w.add_argument("runs", nargs="+")
    n = sub.add_parser("filter", help="a names file (winners) as a gconv-bench filter")
    n.add_argument("-o", "--output", required=True)
    n.add_argument("names")
    args = ap.parse_args()
    if args.command == "probes":
        if args.count < 1:
            ap.error("--count must be at least 1")
        return probes(args)
    if args.command == "winners":
        return winners(args)
    if args.command == "filter":
        if not os.path.isfile(args.names):
            ap.error(f"no file {args.names}")
        return name_filter(args)
    for path in args.seed or []:
        if not os.path.isfile(path):
            ap.error(f"--seed: no file {path}")
    if args.top < 1 or args.within < 0:
        ap.error("--top must be at least 1 and --within at least 0")
    return kernels(args)


if __name__ == "__main__":
    sys.exit(main())
