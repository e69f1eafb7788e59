#!/usr/bin/env python3
"""Per-shape cuDNN figures from gconv-worker logs of `gconv-bench --baseline cudnn` runs: what the
legacy search and the graph-API tuning each timed, which one was kept, against a shared cuDNN
latency file (bench/baselines/cudnn_latencies.json: PyTorch's cuDNN calls, same shapes).

usage: cudnn_compare.py [--shared FILE] LOG=SET [LOG=SET ...]
  LOG  a FILE.csv.worker.log of one run
  SET  the problem set that run used (bench/baselines/baseline_*.json)
Prints one Markdown table row per (shape, direction)."""
import json
import re
import sys

LINE = re.compile(r"cuDNN baseline for (\S+): (legacy|graph): ([0-9.]+) ms \(search [^)]*\), "
                  r"max_rel_err \S+, (.*)$")
KEPT = re.compile(r"cuDNN baseline for (\S+): ([0-9.]+) ms kept \((.*), max_rel_err")


def problem_key(p):
    three_d = any(f in p for f in ("Di", "Z", "stride_d", "pad_d", "dilation_d"))
    g = lambda f, d: p.get(f, d)
    return (f"{3 if three_d else 2}d:N{p['N']},C{p['C']},K{p['K']},G{p['G']},"
            f"in{g('Di', 1)}x{p['Hi']}x{p['Wi']},f{g('Z', 1)}x{p['Y']}x{p['X']},"
            f"s{g('stride_d', 1)}x{g('stride_h', 1)}x{g('stride_w', 1)},"
            f"p{g('pad_d', 0)}x{g('pad_h', 0)}x{g('pad_w', 0)},"
            f"d{g('dilation_d', 1)}x{g('dilation_h', 1)}x{g('dilation_w', 1)}")


def main(argv):
    shared_file = "bench/baselines/cudnn_latencies.json"
    if len(argv) > 1 and argv[0] == "--shared":
        shared_file, argv = argv[1], argv[2:]
    if not argv:
        sys.exit(__doc__)
    shared = {(r["layer"], r["direction"]): r["cudnn_ms"]
              for r in json.load(open(shared_file))["rows"]}
    print("| shape | dir | legacy ms | graph ms | kept ms | shared ms | kept / shared | kept |")
    print("|---|---|---|---|---|---|---|---|")
    for arg in argv:
        log, _, set_file = arg.partition("=")
        if not set_file:
            sys.exit(f"cudnn_compare.py: '{arg}': expected LOG=SET")
        problem_set = json.load(open(set_file))
        direction = problem_set["direction"]
        layer_of = {problem_key(p): p.get("layer", "?") for p in problem_set["problems"]}
        found = {}
        for text in open(log, errors="replace"):
            if m := LINE.search(text):
                found.setdefault(m[1], {})[m[2]] = float(m[3])
            elif m := KEPT.search(text):
                found.setdefault(m[1], {})["kept"] = float(m[2])
                found[m[1]]["name"] = m[3]
        for key, layer in layer_of.items():
            f = found.get(key, {})
            ref = shared.get((layer, direction))
            cell = lambda v: f"{v:.4f}" if v is not None else "-"
            kept = f.get("kept")
            ratio = f"{kept / ref:.2f}" if kept and ref else "-"
            short = re.sub(r"^cudnn \S+ ", "", f.get("name", "-"))
            print(f"| {layer.removeprefix('baseline.')} | {direction} | {cell(f.get('legacy'))} | "
                  f"{cell(f.get('graph'))} | {cell(kept)} | {cell(ref)} | {ratio} | {short} |")


if __name__ == "__main__":
    main(sys.argv[1:])
