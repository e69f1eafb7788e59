#!/usr/bin/env python3
"""A shipped pool out of an exploration pool's runs: for every problem of the gconv-bench CSVs the
best verified latency, then every kernel within --within percent of it on at least one problem is
kept (with --against, the best also counts the verified cells of other pools' runs, whose kernels
are never kept, so only kernels that come near the best of every pool stay; --against-report
takes the per-shape best of a class report, bench/report.py --classes --shapes --markdown, where
the runs behind it are not at hand: a shape is matched by its layer name, and the report's
four-decimal milliseconds round the best by up to half a unit); the output is the
--base trait config with its tile records (tile, wave layout, warp tile), block_per_cu values
and runtime_filter values (`_kx` kernels) cut down to those of the kept kernels. Every other axis
stays as --base has it, so this suits pools that vary only those (the cartesian product may also
bring back a few combinations that were not kept; their count is printed). With --exact the output
also gets a top-level "where" naming the kept kernels (c.name in [...]), so the pool is exactly
them whatever axes the exploration varied (vectors, channel_pad, ...). Per problem it prints the
best kernel and how many are kept.

usage: bench/pool_from_runs.py --base EXPLORE.json [--within 3] [--match RE] [--exact]
                               [--against OTHER.csv]... [--against-report REPORT.md]...
                               [--description TEXT]
                               -o OUT.json RUN.csv [RUN.csv ...]
exit status: 0 written, 1 bad input (no verified cell, a kernel name it cannot read, a report
without a per-shape table), 2 usage.
"""
import argparse
import csv
import json
import re
import sys

# <variant>_<dtype>_<n>d_<m>x<n>x<k>_<pipeline>_<scheduler>_w<wave>_wt<warp tile>_v<vectors>[_...]
NAME = re.compile(r"_(\d+)d_(\d+)x(\d+)x(\d+)_[a-z0-9_]+?_(?:intrawave|interwave)"
                  r"_w(\d+)x(\d+)x(\d+)_wt(\d+)x(\d+)x(\d+)_v\d+x\d+x\d+(.*)$")


def kernel_traits(name):
    m = NAME.search(name)
    if not m:
        raise ValueError(f"cannot read the tile of kernel name '{name}'")
    g = [int(x) for x in m.groups()[:10]]
    bpc = re.search(r"_bpc(\d+)", m.group(11))
    runtime_filter = re.search(r"_kx(?:_|$)", m.group(11)) is not None
    tile = {"m": g[1], "n": g[2], "k": g[3], "wave": g[4:7], "warp_tile": g[7:10]}
    return tile, int(bpc.group(1)) if bpc else 1, runtime_filter


def report_best(path):
    """{layer: best ms} from the per-shape table of a class report (the table whose header names
    `shape` and `best ms`)."""
    best, columns = {}, None
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if "shape" in cells and "best ms" in cells:
                columns = (cells.index("shape"), cells.index("best ms"))
                continue
            if columns is None or len(cells) <= max(columns):
                continue
            try:
                best[cells[columns[0]]] = float(cells[columns[1]])
            except ValueError:
                continue  # the separator row
    if not best:
        raise ValueError(f"{path}: no per-shape table (a header with 'shape' and 'best ms')")
    return best


def verified_cells(paths, match, layers=None):
    """(problem, kernel, ms) of every verified cell; `layers`, where given, gets each problem's
    layer name (the key of a class report's shapes)."""
    pattern = re.compile(match) if match else None
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("status") != "ok" or row.get("verified") not in ("1", "true", "True"):
                    continue
                if pattern and not pattern.search(row["kernel"]):
                    continue
                try:
                    ms = float(row["latency_ms"])
                except (KeyError, ValueError):
                    continue
                problem = row.get("problem_key") or row.get("layer")
                if layers is not None:
                    layers[problem] = row.get("layer") or problem
                yield problem, row["kernel"], ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the exploration pool's trait config")
    ap.add_argument("--within", type=float, default=3.0, help="percent over the best kept")
    ap.add_argument("--match", help="only kernels whose names match this regular expression")
    ap.add_argument("--against", action="append", default=[], metavar="OTHER.csv",
                    help="a run of another pool (repeatable): it sets the best, none of its "
                         "kernels is kept")
    ap.add_argument("--against-report", action="append", default=[], metavar="REPORT.md",
                    help="a class report (repeatable): its per-shape best ms sets the best of the "
                         "shapes of that layer name")
    ap.add_argument("--description", help="the output config's description")
    ap.add_argument("--exact", action="store_true",
                    help="add a top-level where that keeps exactly the kept kernels")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()

    best, cells, layers = {}, [], {}
    for problem, kernel, ms in verified_cells(args.runs, args.match, layers):
        cells.append((problem, kernel, ms))
        if problem not in best or ms < best[problem][1]:
            best[problem] = (kernel, ms)
    if not best:
        print("pool_from_runs.py: no verified cell in the runs", file=sys.stderr)
        return 1
    for problem, kernel, ms in verified_cells(args.against, None):
        if problem in best and ms < best[problem][1]:
            best[problem] = (kernel, ms)
    if args.against_report:
        try:
            reported = {}
            for path in args.against_report:
                for layer, ms in report_best(path).items():
                    reported[layer] = min(ms, reported.get(layer, ms))
        except (OSError, ValueError) as e:
            print(f"pool_from_runs.py: {e}", file=sys.stderr)
            return 1
        for problem in best:
            ms = reported.get(layers[problem])
            if ms is not None and ms < best[problem][1]:
                best[problem] = ("(report)", ms)
    kept = {}
    for problem, kernel, ms in cells:
        if ms <= best[problem][1] * (1 + args.within / 100):
            kept.setdefault(kernel, set()).add(problem)
    if not kept:
        print("pool_from_runs.py: no kernel of the runs comes within "
              f"{args.within:g}% of the best of the other pools", file=sys.stderr)
        return 1
    for problem in sorted(best):
        near = sum(1 for k in kept if problem in kept[k])
        print(f"{problem}: best {best[problem][0]} {best[problem][1]:.4f} ms, {near} within "
              f"{args.within:g}%")

    try:
        traits = {k: kernel_traits(k) for k in kept}
    except ValueError as e:
        print(f"pool_from_runs.py: {e}", file=sys.stderr)
        return 1
    tiles, bpcs, filters = [], set(), set()
    for tile, bpc, runtime_filter in traits.values():
        if tile not in tiles:
            tiles.append(tile)
        bpcs.add(bpc)
        filters.add(runtime_filter)
    tiles.sort(key=lambda t: (t["m"], t["n"], t["k"], t["wave"], t["warp_tile"]))
    with open(args.base) as f:
        config = json.load(f)
    tc = config["trait_config"]
    # The tile records carry the wave layout and warp tile: keys that set them apart go.
    for key in ("tile_m", "tile_n", "tile_k", "wave_layout", "wave_m", "wave_n", "wave_k",
                "warp_tile", "warp_tile_m", "warp_tile_n", "warp_tile_k"):
        tc.pop(key, None)
    tc["tile"] = {"values": tiles}
    tc["block_per_cu"] = {"values": sorted(bpcs)}
    if "runtime_filter" in tc or True in filters:
        tc["runtime_filter"] = {"values": sorted(filters)}
    if args.description:
        config["description"] = args.description
    if args.exact:
        names = ", ".join(f"'{k}'" for k in sorted(kept))
        config = {**{k: v for k, v in config.items() if k not in ("where", "trait_config")},
                  "where": f"c.name in [{names}]", "trait_config": tc}
    with open(args.output, "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    combos = len(tiles) * len(bpcs) * len(filters)
    print(f"{len(kept)} kernels kept: {len(tiles)} tiles x {len(bpcs)} block_per_cu x "
          f"{len(filters)} runtime_filter = {combos} configurations before the rules -> "
          f"{args.output}")
    extra = combos - len(kept)
    if args.exact:
        print(f"  its where keeps exactly the {len(kept)} kept kernels")
    elif extra > 0:
        print(f"  ({extra} combinations of a kept tile with another kept block_per_cu or "
              f"runtime_filter were not kept themselves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
