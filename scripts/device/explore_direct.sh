#!/usr/bin/env bash
# One device call: every kernel of an exploration pool (default bench/configs/forward_direct_explore.json)
# on the depthwise shapes of a baseline set, cuDNN timed in the same run, every result verified;
# prints the best kernels per shape (top GCONV_TOP, default 6) and the best-of-pool table.
# usage (carry .deps): scripts/device/explore_direct.sh [config] [variant] [baseline set]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
config=${1:-bench/configs/forward_direct_explore.json}
variant=${2:-forward}
set=${3:-bench/baselines/baseline_${variant}_2d.json}
build_tools "$out/build.log" gconv-bench gconv-worker
shapes=/tmp/depthwise_shapes.json
python3 - "$set" > "$shapes" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["problems"] = [p for p in d["problems"] if p["G"] == p["C"] == p["K"]]
json.dump(d, sys.stdout)
PY
csv="$out/explore_$(basename "$config" .json).csv"
$bench --variant "$variant" --arch auto --progress none --kernel-timeout 10 --warmup 3 --repeat 20 \
  --batch-size 200 --baseline cudnn --config "$config" --problems-file "$shapes" --output "$csv" 2>&1 | tail -2
python3 bench/report.py "$csv" | head -3
python3 - "$csv" "${GCONV_TOP:-6}" <<'PY'
import csv, sys, collections
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
by = collections.defaultdict(list)
for r in rows: by[r["layer"]].append(r)
for layer, rs in sorted(by.items()):
    rs.sort(key=lambda r: float(r["latency_ms"]))
    print(f"{layer} cuDNN {float(rs[0]['baseline_ms']):.4f} ms")
    for r in rs[:int(sys.argv[2])]:
        print(f"  {float(r['latency_ms']):.4f} {float(r['gbps']):6.0f} GB/s  {r['kernel'].split('_2d_')[1]}")
PY
python3 scripts/device/direct_table.py "$csv"
