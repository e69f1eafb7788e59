#!/usr/bin/env bash
# One device call for the sm_90a wgmma pipeline: build the Qt-free tools, verify every kernel
# of configs/forward_{bf16,fp16}_wgmma.json on the forward 2D / 3D test_validation sets and
# validation_holdout, then time forward_bf16.json (its sm_90a pool holds wgmma kernels too) and
# the bf16 wgmma pool against cuDNN on the 2D baseline shapes, and print the class report.
# usage (on the GPU machine, .deps carried): scripts/device/verify_wgmma.sh
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
out=${OUT:-/tmp/gconv-out}
mkdir -p "$out"
t0=$(date +%s)
scripts/device/build.sh gconv-bench gconv-worker > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
bench=build/device/app/gconv-bench
export GCONV_CACHE_DIR=/tmp/gconv-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
common=(--variant forward --arch auto --progress none --kernel-timeout 10)
for cfg in forward_bf16_wgmma forward_fp16_wgmma; do
  t=$(date +%s)
  $bench "${common[@]}" --batch-size 400 --warmup 2 --repeat 5 --config configs/$cfg.json \
    --problems forward_2d_test_validation,forward_3d_test_validation,validation_holdout \
    --output "$out/verify_$cfg.csv" 2>&1 | tail -3
  echo "$cfg: $(( $(date +%s) - t )) s"
done
python3 bench/report.py "$out"/verify_*.csv | tee "$out/verify_report.txt"
[ -n "${GCONV_VERIFY_ONLY:-}" ] && exit 0
for cfg in forward_bf16_wgmma forward_bf16; do
  $bench "${common[@]}" --batch-size 100 --warmup 3 --repeat 20 --baseline cudnn --config configs/$cfg.json \
    --problems-file bench/baselines/baseline_forward_2d.json --output "$out/baseline_$cfg.csv" 2>&1 | tail -2
done
python3 bench/report.py --classes --shapes --markdown "$out"/baseline_forward_bf16*.csv | tee "$out/classes.md"
python3 bench/report.py --best "$out"/baseline_forward_bf16*.csv | tee "$out/best.txt"
echo "total: $(( $(date +%s) - t0 )) s"
