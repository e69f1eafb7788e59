#!/usr/bin/env bash
# One device call for the staged direct K x K entries (direct + dsb, gconv_direct_staged.h), forward
# and bwd_data: build, verify every kernel of the pool on scripts/device/staged_problems.json and on
# the direction's 2D test_validation set, then time the pool and the direction's register-window
# direct pool (configs/<dir>_direct.json) against cuDNN on the depthwise baseline shapes in one run
# and print the per-shape table (best staged kernel, best other, speedups, share of copy bandwidth).
# usage (on the GPU machine, .deps carried): scripts/device/verify_staged.sh
#   GCONV_STAGED_POOLS="forward=FILE bwd_data=FILE" picks the pools (default: the exploration pools
#   bench/configs/<dir>_direct_staged_explore.json); GCONV_DIRS="forward" runs one direction;
#   GCONV_SKIP_OTHER=1 leaves the register-window pool's timing out. The tensor-core K x K entries
#   (warp tile 16x8x16) run the same way: GCONV_STAGED_POOLS names their pools and
#   GCONV_MATCH='_wt16x8x16_' GCONV_LABEL=tc picks them for the table (default: the staged ones).
#   GCONV_EXTRA_PROBLEMS="forward=FILE" adds a problem set to a direction's timed runs.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
work=/tmp/staged-out
mkdir -p "$work"
t0=$(date +%s)
build_tools "$work/build.log" gconv-bench gconv-worker
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
pool_of() { # direction -> pool file
  local d=$1 kv
  for kv in ${GCONV_STAGED_POOLS:-}; do [ "${kv%%=*}" = "$d" ] && { echo "${kv#*=}"; return; }; done
  echo "bench/configs/${d}_direct_staged_explore.json"
}
for dir in ${GCONV_DIRS:-forward bwd_data}; do
  pool=$(pool_of $dir)
  common=(--variant $dir --arch auto --progress none --kernel-timeout 10)
  python3 - "$dir" "$work" <<'PY'
import json, sys
d, work = sys.argv[1], sys.argv[2]
v = json.load(open("scripts/device/staged_problems.json"))
v["direction"] = d
json.dump(v, open(f"{work}/staged_problems_{d}.json", "w"))
b = json.load(open(f"bench/baselines/baseline_{d}_2d.json"))
b["problems"] = [p for p in b["problems"] if p["C"] == p["G"] and p["K"] == p["G"]]
json.dump(b, open(f"{work}/baseline_dw_{d}.json", "w"))
PY
  t=$(date +%s)
  $bench "${common[@]}" --batch-size 200 --warmup 1 --repeat 3 --config $pool \
    --problems-file "$work/staged_problems_$dir.json" --problems ${dir}_2d_test_validation \
    --output "$work/verify_$dir.csv" > "$work/verify_$dir.log" 2>&1
  echo "$dir verify: exit $? in $(( $(date +%s) - t )) s"
  b=(--batch-size 100 --warmup 3 --repeat 20 --baseline cudnn --ceilings --problems-file "$work/baseline_dw_$dir.json")
  # More shapes for the timed runs of one direction (GCONV_EXTRA_PROBLEMS="forward=FILE ...").
  for kv in ${GCONV_EXTRA_PROBLEMS:-}; do [ "${kv%%=*}" = "$dir" ] && b+=(--problems-file "${kv#*=}"); done
  t=$(date +%s)
  $bench "${common[@]}" "${b[@]}" --config $pool --output "$work/base_${dir}_staged.csv" > "$work/base_${dir}_staged.log" 2>&1
  echo "$dir baseline staged: exit $? in $(( $(date +%s) - t )) s"
  if [ -z "${GCONV_SKIP_OTHER:-}" ]; then
    t=$(date +%s)
    $bench "${common[@]}" "${b[@]}" --config configs/${dir}_direct.json --output "$work/base_${dir}_other.csv" > "$work/base_${dir}_other.log" 2>&1
    echo "$dir baseline ${dir}_direct: exit $? in $(( $(date +%s) - t )) s"
  fi
  python3 bench/report.py "$work/verify_$dir.csv" | tee "$work/verify_report_$dir.txt"
  python3 scripts/device/direct_mma_table.py --match "${GCONV_MATCH:-_direct_intrawave_.*_dsb}" \
    --label "${GCONV_LABEL:-staged}" \
    "$work"/base_${dir}_*.csv | tee "$work/table_$dir.txt"
  python3 bench/report.py --best "$work/base_${dir}_staged.csv" > "$work/best_$dir.md" 2>&1
done
tar -czf "$out/staged_runs.tgz" -C "$work" .
echo "total: $(( $(date +%s) - t0 )) s"
