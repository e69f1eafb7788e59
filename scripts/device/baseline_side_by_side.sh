#!/usr/bin/env bash
# One device call: the best kernel of a pool on the cuDNN baseline shapes with cuDNN timed in the
# same run (gconv-bench --baseline cudnn: same data, same timing, cuDNN's own algorithm search),
# then the report table. Usage: scripts/device/baseline_side_by_side.sh [variant] [config] [set...]
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
out=${OUT:-/tmp/gconv-out}
mkdir -p "$out"
variant=${1:-forward}
config=${2:-configs/forward_bf16.json}
shift 2 2>/dev/null || shift $#
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(bench/baselines/baseline_forward_2d.json bench/baselines/baseline_forward_3d.json)
scripts/device/build.sh gconv-bench gconv-worker > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
export GCONV_CACHE_DIR=/tmp/gconv-cache
files=()
for set in "${sets[@]}"; do
  name="${variant}_$(basename "$set" .json)"
  build/device/app/gconv-bench --variant "$variant" --arch auto --progress none --config "$config" \
    --problems-file "$set" --warmup 3 --repeat 20 --baseline cudnn --output "$out/$name.csv" 2>&1 | tail -2
  grep -h "cuDNN" "$out/$name.csv.worker.log" | head -30
  files+=("$out/$name.csv")
done
python3 bench/report.py --best --baseline bench/baselines/cudnn_latencies.json "${files[@]}"
