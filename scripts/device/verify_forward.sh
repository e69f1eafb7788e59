#!/usr/bin/env bash
# One device call: build the Qt-free tools, verify every kernel of the shipped forward configs
# on the forward *_test_validation sets, and time the pools on the cuDNN baseline shapes.
# Results land in $OUT (CSV, worker logs, provenance, report).
# usage (on the GPU machine, .deps carried): scripts/device/verify_forward.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
t0=$(date +%s)
build_tools "$out/build.log" gconv-bench gconv-worker gconv-instances
common=(--variant forward --arch auto --progress none --batch-size ${GCONV_BATCH:-400} --warmup 2 --repeat 5)
csvs=()
for cfg in forward_bf16 forward_fp16 forward_fp32 forward_bf16_3d; do
  t=$(date +%s)
  case $cfg in *3d) sets=forward_3d_test_validation ;; forward_bf16) sets=forward_2d_test_validation ;; *) sets=forward_2d_test_validation,forward_3d_test_validation ;; esac
  $bench "${common[@]}" --config configs/$cfg.json --problems $sets --output "$out/verify_$cfg.csv" 2>&1 | tail -3
  echo "$cfg: $(( $(date +%s) - t )) s"
  csvs+=("$out/verify_$cfg.csv")
done
python3 bench/report.py "${csvs[@]}" | tee "$out/verify_report.txt"
for d in 2d 3d; do
  cfg=forward_bf16; [ $d = 3d ] && cfg=forward_bf16_3d
  $bench --variant forward --arch auto --progress none --batch-size 500 --warmup 3 --repeat 20 --config configs/$cfg.json \
    --problems-file bench/baselines/baseline_forward_$d.json --output "$out/baseline_forward_$d.csv" 2>&1 | tail -2
done
python3 bench/report.py --best --baseline bench/baselines/cudnn_latencies.json "$out"/baseline_forward_*.csv | tee "$out/baseline_report.txt"
echo "total: $(( $(date +%s) - t0 )) s"
