#!/usr/bin/env bash
# The cuDNN baseline on the shared baseline shapes: gconv-bench --baseline cudnn with a pool of
# one kernel (the point is cuDNN's figures: legacy search against graph-API tuning), the worker
# logs and a table against bench/baselines/cudnn_latencies.json (bench/cudnn_compare.py).
# Usage (on the GPU machine, after scripts/device/build.sh gconv-bench gconv-worker):
#   scripts/device/cudnn_baseline_run.sh OUTDIR [SET:VARIANT:CONFIG ...]
set -uo pipefail
out="${1:?usage: cudnn_baseline_run.sh OUTDIR [SET:VARIANT:CONFIG ...]}"
shift
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(
  baseline_forward_2d:forward:forward_bf16.json
  baseline_forward_3d:forward:forward_bf16_3d.json
  baseline_bwd_data_2d:bwd_data:bwd_data.json
  baseline_bwd_weight_2d:bwd_weight:bwd_weight.json)
mkdir -p "$out" /tmp/cudnn_runs
pairs=()
for r in "${runs[@]}"; do
  IFS=: read -r set variant config <<<"$r"
  csv="/tmp/cudnn_runs/${set}_${config%.json}.csv"
  start=$(date +%s)
  timeout "${GCONV_RUN_TIMEOUT_S:-120}" build/device/app/gconv-bench --variant "$variant" \
    --arch auto --progress none --config "configs/$config" --max-kernels 1 \
    --problems-file "bench/baselines/$set.json" --baseline cudnn --warmup 3 --repeat 20 \
    --kernel-timeout 90 --output "$csv" >"$csv.out" 2>&1
  echo "$set $config: rc=$? in $(( $(date +%s) - start )) s"
  cat "$csv.worker.log" >>"$out/worker_logs.txt" 2>/dev/null
  pairs+=("$csv.worker.log=bench/baselines/$set.json")
done
python3 bench/cudnn_compare.py "${pairs[@]}" | tee -a "$out/compare.md"
