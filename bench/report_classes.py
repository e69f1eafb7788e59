"""The per-class performance report of bench/report.py --classes (issue 7).

For one run (one or more gconv-bench CSVs with their .meta.json sidecars): the best kernel of
the pool per (direction, problem) against cuDNN timed in the same run, grouped by class of
problem and number of spatial dims, each class held to the issue's targets. Where several CSVs
time cuDNN on a problem (every pool's run of a class report, or the runs of several calls
given together), its fastest time counts. Pure Python 3
standard library, so that it runs wherever the CSVs are.
"""
import json
import math
import os

# Below this many FLOPs per byte of minimal traffic a shape is judged against the copy
# bandwidth, above it against the matmul rate (issue 7).
MEMORY_BOUND_INTENSITY = 150.0
CEILING_SHARE_TARGET = 0.70

CLASSES = ("depthwise", "grouped C/G<=32", "grouped C/G>32", "dense")
# class -> (least geomean speedup, least speedup of any shape)
SPEED_TARGETS = {
    "depthwise": (2.0, 0.9),
    "grouped C/G<=32": (2.0, 0.9),
    "grouped C/G>32": (1.0, 0.8),
    "dense": (1.0, 0.8),
}
DIRECTIONS = ("forward", "bwd_data", "bwd_weight")
ELEMENT_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
SHAPE_COLUMNS = ("N", "C", "K", "G", "Di", "Hi", "Wi", "Z", "Y", "X", "stride_d", "stride_h",
                 "stride_w", "pad_d", "pad_h", "pad_w", "dilation_d", "dilation_h", "dilation_w")
NEEDED_COLUMNS = SHAPE_COLUMNS + ("variant", "status", "latency_ms", "problem_key", "dtype")


class ReportError(Exception):
    pass


def num(x):
    try:
        v = float(x)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def shape(row):
    return {c: int(float(row[c])) for c in SHAPE_COLUMNS}


def problem_class(s):
    """One of CLASSES, from channels per group (C/G) and filters per group (K/G)."""
    if s["G"] == 1:
        return "dense"
    c_per_group, k_per_group = s["C"] // s["G"], s["K"] // s["G"]
    if c_per_group == 1 and k_per_group == 1:
        return "depthwise"
    return "grouped C/G<=32" if c_per_group <= 32 else "grouped C/G>32"


def output_extent(size, pad, filt, dilation, stride):
    span = size + 2 * pad - ((filt - 1) * dilation + 1)
    return span // stride + 1 if span >= 0 and stride > 0 else 0


def intensity(s, dtype):
    """FLOPs per byte when each tensor is read or written once (gconv's min_bytes)."""
    do = output_extent(s["Di"], s["pad_d"], s["Z"], s["dilation_d"], s["stride_d"])
    ho = output_extent(s["Hi"], s["pad_h"], s["Y"], s["dilation_h"], s["stride_h"])
    wo = output_extent(s["Wi"], s["pad_w"], s["X"], s["dilation_w"], s["stride_w"])
    c_per_group = s["C"] // s["G"]
    flops = 2.0 * s["N"] * s["K"] * do * ho * wo * c_per_group * s["Z"] * s["Y"] * s["X"]
    elements = (s["N"] * s["Di"] * s["Hi"] * s["Wi"] * s["C"] +
                s["K"] * s["Z"] * s["Y"] * s["X"] * c_per_group + s["N"] * do * ho * wo * s["K"])
    return flops, elements * ELEMENT_BYTES.get(dtype, 2)


def load_meta(csv_path):
    path = csv_path + ".meta.json"
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def pick_ceilings(metas, copy_flag, matmul_flag):
    """(copy GB/s, matmul TFLOP/s, where each came from): the run's measured ceilings first."""
    copy = matmul = None
    copy_from = matmul_from = None
    for path, meta in metas:
        c = (meta or {}).get("ceilings") or {}
        if copy is None and num(c.get("copy_gbps")):
            copy, copy_from = num(c["copy_gbps"]), "measured in the run (%s.meta.json)" % path
        if matmul is None and num(c.get("matmul_bf16_tflops")):
            matmul = num(c["matmul_bf16_tflops"])
            matmul_from = "measured in the run (%s.meta.json)" % path
    if copy is None and copy_flag:
        copy, copy_from = copy_flag, "--copy-gbps"
    if matmul is None and matmul_flag:
        matmul, matmul_from = matmul_flag, "--matmul-tflops"
    return copy, matmul, copy_from or "none (no meta ceilings, no --copy-gbps)", \
        matmul_from or "none (no meta ceilings, no --matmul-tflops)"


def pick_launch_floor(metas):
    """(ms, where from): the run's measured per-launch floor, or (None, None) for a run that
    measured none (older sidecars)."""
    for path, meta in metas:
        c = (meta or {}).get("ceilings") or {}
        if num(c.get("launch_floor_ms")):
            return num(c["launch_floor_ms"]), "measured in the run (%s.meta.json)" % path
    return None, None


def check_columns(path, rows):
    if not rows:
        return
    missing = [c for c in NEEDED_COLUMNS if c not in rows[0]]
    if missing:
        raise ReportError("%s: --classes needs gconv-bench's full CSV form; missing column(s) %s"
                          % (path, ", ".join(missing)))


def best_by(rows, key_of, out=None):
    """key_of(row) -> dict(best: the fastest ok row or None, cudnn_ms: the same run's cuDNN ms or
    None, any: a row), added to `out`."""
    out = {} if out is None else out
    for r in rows:
        entry = out.setdefault(key_of(r), {"best": None, "cudnn_ms": None, "any": r})
        # Several runs (or pools of one run, only the first of which may time cuDNN) on a
        # shape: its fastest cuDNN time, so that a slow measurement never flatters a kernel.
        b = num(r.get("baseline_ms"))
        if b and (entry["cudnn_ms"] is None or b < entry["cudnn_ms"]):
            entry["cudnn_ms"] = b
        if r.get("status") != "ok":
            continue
        ms = num(r.get("latency_ms"))
        if ms and (entry["best"] is None or ms < num(entry["best"]["latency_ms"])):
            entry["best"] = r
    return out


def best_per_problem(files):
    """(direction, problem_key) -> best_by's entry."""
    out = {}
    for path, rows in files:
        check_columns(path, rows)
        best_by(rows, lambda r: (r["variant"], r["problem_key"]), out)
    return out


def shape_lines(files, baseline, copy_gbps, matmul_tflops, floor_ms=None):
    shared = {(b["layer"], b["direction"]): b["cudnn_ms"] for b in (baseline or {}).get("rows", [])}
    lines = []
    for (direction, key), e in best_per_problem(files).items():
        r = e["best"] or e["any"]
        s = shape(r)
        flops, min_bytes = intensity(s, r.get("dtype", "bf16"))
        line = {"direction": direction, "problem_key": key, "layer": r.get("layer", ""),
                "class": problem_class(s), "ndim": int(num(r.get("ndim")) or 2),
                "c_per_group": s["C"] // s["G"], "intensity": flops / min_bytes,
                "kernel": None, "ms": None, "cudnn_ms": None, "cudnn_from": None,
                "speedup": None, "ceiling": None, "ceiling_share": None,
                "at_ceiling": None, "at_floor": None, "floor_share": None}
        line["memory_bound"] = line["intensity"] < MEMORY_BOUND_INTENSITY
        if e["cudnn_ms"]:
            line["cudnn_ms"], line["cudnn_from"] = e["cudnn_ms"], "run"
        elif (line["layer"], direction) in shared:
            line["cudnn_ms"], line["cudnn_from"] = shared[(line["layer"], direction)], "file"
        # The speedup over cuDNN of a kernel that ran at the ceilings: the most any kernel can
        # show on this shape (the larger of the bytes and FLOPs floors).
        floors = ([min_bytes / (copy_gbps * 1e6)] if copy_gbps else []) + \
            ([flops / (matmul_tflops * 1e9)] if matmul_tflops else [])
        if line["cudnn_ms"] and floors:
            line["at_ceiling"] = line["cudnn_ms"] / max(floors)
        # With the run's per-launch floor: the least time a cell can show is the floor plus
        # the ceiling's time (a small shape is bound by the launch, not by its bytes).
        least_ms = floor_ms + max(floors) if floor_ms and floors else None
        if line["cudnn_ms"] and least_ms:
            line["at_floor"] = line["cudnn_ms"] / least_ms
        if e["best"]:
            ms = num(r["latency_ms"])
            line["kernel"], line["ms"] = r["kernel"], ms
            if line["cudnn_ms"]:
                line["speedup"] = line["cudnn_ms"] / ms
            if least_ms:
                line["floor_share"] = least_ms / ms
            if line["memory_bound"]:
                line["ceiling"] = "copy"
                if copy_gbps:
                    line["ceiling_share"] = min_bytes / (ms * 1e6) / copy_gbps
            else:
                line["ceiling"] = "matmul"
                if matmul_tflops:
                    line["ceiling_share"] = flops / (ms * 1e9) / matmul_tflops
        lines.append(line)
    lines.sort(key=lambda l: (DIRECTIONS.index(l["direction"]) if l["direction"] in DIRECTIONS
                              else 9, CLASSES.index(l["class"]), l["ndim"], l["c_per_group"],
                              l["layer"] or l["problem_key"]))
    return lines


def summarise(lines):
    groups = {}
    for l in lines:
        groups.setdefault((l["direction"], l["class"], l["ndim"]), []).append(l)
    out = []
    order = lambda k: (DIRECTIONS.index(k[0]) if k[0] in DIRECTIONS else 9, CLASSES.index(k[1]), k[2])
    for key in sorted(groups, key=order):
        g = groups[key]
        timed = [l for l in g if l["speedup"]]
        speedups = [l["speedup"] for l in timed]
        worst = min(timed, key=lambda l: l["speedup"]) if timed else None
        shares = [l["ceiling_share"] for l in g if l["ceiling_share"] is not None]
        least_geomean, least_speedup = SPEED_TARGETS[key[1]]
        uncovered = sum(1 for l in g if l["kernel"] is None)
        no_cudnn = sum(1 for l in g if l["kernel"] and not l["speedup"])
        s = {"direction": key[0], "class": key[1], "ndim": key[2], "shapes": len(g),
             "uncovered": uncovered, "no_cudnn": no_cudnn, "timed": len(timed),
             "geomean": geomean(speedups),
             "worst_shape": worst["layer"] or worst["problem_key"] if worst else None,
             "worst_speedup": worst["speedup"] if worst else None,
             "won_share": sum(1 for v in speedups if v > 1.0) / len(speedups) if speedups else None,
             "memory_bound": sum(1 for l in g if l["memory_bound"]),
             "ceiling_min": min(shares) if shares else None,
             "ceiling_geomean": geomean([v for v in shares if v > 0]),
             "ceiling_reached": sum(1 for v in shares if v >= CEILING_SHARE_TARGET),
             "ceiling_judged": len(shares),
             # The geomean a pool at the ceilings would reach: what the speed target asks of
             # the hardware (a class whose figure is under its target cannot pass it).
             "geomean_at_ceiling": geomean([l["at_ceiling"] for l in g if l["at_ceiling"]]),
             # The same with the per-launch floor under every shape's time (when measured).
             "geomean_at_floor": geomean([l["at_floor"] for l in g if l["at_floor"]]),
             "cudnn_from_file": sum(1 for l in g if l["cudnn_from"] == "file")}
        # A shape no kernel runs, or that lacks a cuDNN time, cannot meet a target: MISS.
        s["speed_pass"] = bool(speedups) and uncovered == 0 and no_cudnn == 0 and \
            s["geomean"] >= least_geomean and s["worst_speedup"] >= least_speedup
        s["ceiling_pass"] = bool(shares) and uncovered == 0 and len(shares) == len(g) and \
            s["ceiling_min"] >= CEILING_SHARE_TARGET
        s["target"] = "geomean >= %.1fx, none < %.1fx" % (least_geomean, least_speedup)
        # Where even kernels at the floor plus the ceilings would miss the geomean target.
        s["out_of_reach"] = s["geomean_at_floor"] is not None and \
            s["geomean_at_floor"] < least_geomean
        out.append(s)
    return out


def fmt(v, pattern, none="-"):
    return none if v is None else pattern % v


def percent(share):
    return "-" if share is None else "%.0f%%" % (100 * share)


def table(header, rows, markdown):
    if markdown:
        text = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        text += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(text)
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def render(report, markdown, with_shapes):
    c = report["ceilings"]
    out = ["ceilings: copy %s GB/s (%s), bf16 matmul %s TFLOP/s (%s); memory-bound below %.0f "
           "FLOP/B, target %.0f%% of the ceiling" % (
               fmt(c["copy_gbps"], "%.0f"), c["copy_from"], fmt(c["matmul_tflops"], "%.0f"),
               c["matmul_from"], MEMORY_BOUND_INTENSITY, 100 * CEILING_SHARE_TARGET)]
    floor = c.get("launch_floor_ms")
    if floor:
        out.append("launch floor: %.4f ms (%s): \"at floor\" is cuDNN's time over the floor "
                   "plus the ceiling's time, the most any kernel can show on a shape" % (
                       floor, c["launch_floor_from"]))
    if report["cudnn_from_file"]:
        out.append("cuDNN: %d shape(s) have no baseline_ms in the CSV; their cuDNN time is the "
                   "--baseline file's (%s), not this run's" % (report["cudnn_from_file"],
                                                              report["baseline_file"]))
    out.append("")
    header = ["dir", "class", "dims", "shapes", "geomean", "at ceiling"] + \
        (["at floor"] if floor else []) + \
        ["worst shape", "worst", "won", "mem-bound", ">=70% ceil", "min ceil", "speed", "ceiling"]
    rows = []
    for s in report["classes"]:
        shapes = str(s["shapes"])
        if s["uncovered"]:
            shapes += " (%d no kernel)" % s["uncovered"]
        if s["no_cudnn"]:
            shapes += " (%d no cuDNN)" % s["no_cudnn"]
        rows.append([s["direction"], s["class"], "%dD" % s["ndim"], shapes,
                     fmt(s["geomean"], "%.2fx"), fmt(s["geomean_at_ceiling"], "%.2fx")] +
                    ([fmt(s["geomean_at_floor"], "%.2fx")] if floor else []) +
                    [s["worst_shape"] or "-",
                     fmt(s["worst_speedup"], "%.2fx"), percent(s["won_share"]),
                     "%d/%d" % (s["memory_bound"], s["shapes"]),
                     "%d/%d" % (s["ceiling_reached"], s["shapes"]),
                     percent(s["ceiling_min"]),
                     ("PASS" if s["speed_pass"] else "MISS") + " (%s)" % s["target"] +
                     (" out of reach at the floor" if s["out_of_reach"] else ""),
                     "PASS" if s["ceiling_pass"] else "MISS"])
    out.append(table(header, rows, markdown))
    if with_shapes:
        out.append("")
        header = ["dir", "shape", "class", "dims", "C/G", "FLOP/B", "best ms", "cuDNN ms",
                  "speedup", "at ceiling"] + (["at floor"] if floor else []) + \
            ["ceiling", "share"] + (["floor share"] if floor else [])
        rows = [[l["direction"], l["layer"] or l["problem_key"], l["class"], "%dD" % l["ndim"],
                 str(l["c_per_group"]), "%.0f" % l["intensity"], fmt(l["ms"], "%.4f", "no kernel"),
                 fmt(l["cudnn_ms"], "%.4f") + ("" if l["cudnn_from"] != "file" else " (file)"),
                 fmt(l["speedup"], "%.2fx"), fmt(l["at_ceiling"], "%.2fx")] +
                ([fmt(l["at_floor"], "%.2fx")] if floor else []) +
                [l["ceiling"] or "-", percent(l["ceiling_share"])] +
                ([percent(l["floor_share"])] if floor else []) for l in report["shapes"]]
        out.append(table(header, rows, markdown))
    return "\n".join(out)


def build_report(files, metas, baseline, baseline_path, copy_flag, matmul_flag):
    copy, matmul, copy_from, matmul_from = pick_ceilings(metas, copy_flag, matmul_flag)
    floor, floor_from = pick_launch_floor(metas)
    lines = shape_lines(files, baseline, copy, matmul, floor)
    return {"ceilings": {"copy_gbps": copy, "matmul_tflops": matmul, "copy_from": copy_from,
                         "matmul_from": matmul_from, "launch_floor_ms": floor,
                         "launch_floor_from": floor_from},
            "baseline_file": baseline_path,
            "cudnn_from_file": sum(1 for l in lines if l["cudnn_from"] == "file"),
            "classes": summarise(lines), "shapes": lines}


def main(args, baseline, files):
    """bench/report.py --classes; exit status 0 when every class passes, 1 otherwise."""
    try:
        metas = [(path, load_meta(path)) for path, _ in files]
        report = build_report(files, metas, baseline, args.baseline, args.copy_gbps,
                              args.matmul_tflops)
    except ReportError as e:
        print("report.py: %s" % e)
        return 2
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(render(report, args.markdown, args.shapes))
    passed = all(s["speed_pass"] and s["ceiling_pass"] for s in report["classes"])
    return 0 if passed and report["classes"] else 1
