#!/usr/bin/env bash
# One device call for the tensor-core direct pipeline (direct_mma): build the Qt-free tools,
# verify every kernel of the direction's direct_mma pool (GCONV_VARIANT forward, the default:
# configs/forward_bf16_direct_mma.json; bwd_data: configs/bwd_data_direct_mma.json; bwd_weight:
# configs/bwd_weight_direct_mma.json) on its 2D
# test_validation set and on scripts/device/direct_mma_problems.json (every C/G it is built for,
# tile and channel tails, stride, dilation; bwd_data runs the stride-1 ones), then time it and the
# direction's GEMM pool (forward_bf16.json / bwd_data.json) against cuDNN on the 2D baseline
# shapes in the same run and print the class report and the best-of-pool table.
# usage (on the GPU machine, .deps carried): [GCONV_VARIANT=bwd_data] scripts/device/verify_direct_mma.sh
# GCONV_SKIP_GEMM=1 leaves the GEMM pool's timing out (it was measured in an earlier call).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
work=/tmp/direct-mma-out
mkdir -p "$work"
t0=$(date +%s)
build_tools "$work/build.log" gconv-bench gconv-worker
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
variant=${GCONV_VARIANT:-forward}
common=(--variant $variant --arch auto --progress none --kernel-timeout 10)
case $variant in
  forward) pool=configs/forward_bf16_direct_mma.json gemm=configs/forward_bf16.json ;;
  bwd_data) pool=configs/bwd_data_direct_mma.json gemm=configs/bwd_data.json ;;
  bwd_weight) pool=configs/bwd_weight_direct_mma.json gemm=configs/bwd_weight.json ;;
  *) echo "verify_direct_mma.sh: no direct_mma pool for '$variant'" >&2; exit 2 ;;
esac
# The extra shapes in the direction's name (the file says forward).
python3 - "$variant" > "$work/direct_mma_problems.json" <<'PY'
import json, sys
d = json.load(open("scripts/device/direct_mma_problems.json"))
d["direction"] = sys.argv[1]
print(json.dumps(d))
PY
t=$(date +%s)
$bench "${common[@]}" --batch-size 200 --warmup 2 --repeat 5 --config $pool \
  --problems ${variant}_2d_test_validation --output "$work/verify_set.csv" > "$work/verify_set.log" 2>&1
echo "verify test_validation: exit $? in $(( $(date +%s) - t )) s"
t=$(date +%s)
$bench "${common[@]}" --batch-size 200 --warmup 2 --repeat 5 --config $pool \
  --problems-file "$work/direct_mma_problems.json" --output "$work/verify_extra.csv" > "$work/verify_extra.log" 2>&1
echo "verify direct_mma_problems: exit $? in $(( $(date +%s) - t )) s"
python3 bench/report.py "$work"/verify_*.csv | tee "$work/verify_report.txt"
b=(--batch-size 100 --warmup 3 --repeat 20 --baseline cudnn --ceilings --problems-file bench/baselines/baseline_${variant}_2d.json)
t=$(date +%s)
$bench "${common[@]}" "${b[@]}" --config $pool --output "$work/baseline_direct_mma.csv" > "$work/baseline_direct_mma.log" 2>&1
echo "baseline direct_mma: exit $? in $(( $(date +%s) - t )) s"
if [ -z "${GCONV_SKIP_GEMM:-}" ]; then
  t=$(date +%s)
  $bench "${common[@]}" "${b[@]}" --config $gemm --output "$work/baseline_gemm.csv" > "$work/baseline_gemm.log" 2>&1
  echo "baseline $gemm: exit $? in $(( $(date +%s) - t )) s"
fi
# Optional counters: GCONV_NCU_SHAPE=resnext50_s2 GCONV_NCU_FILTER="c.name == '...'" profiles
# the first kernel the filter keeps on that baseline shape with Nsight Compute (profile_direct.sh).
if [ -n "${GCONV_NCU_FILTER:-}" ]; then
  OUT="$out" scripts/device/profile_direct.sh direct_mma_ncu "$variant" "$pool" "$GCONV_NCU_FILTER" \
    "baseline.${GCONV_NCU_SHAPE:-resnext50_s2}"
fi
{
  echo "== direct_mma pool alone"
  python3 bench/report.py --classes --shapes "$work/baseline_direct_mma.csv"
  echo "== direct_mma + $gemm pools"
  python3 bench/report.py --classes --shapes "$work"/baseline_*.csv
  python3 bench/report.py --best "$work"/baseline_*.csv
} > "$work/classes.txt" 2>&1
python3 scripts/device/direct_mma_table.py "$work"/baseline_*.csv > "$work/table.txt" 2>&1
cp "$work/verify_report.txt" "$work/classes.txt" "$work/table.txt" "$out/"
tar -czf "$out/direct_mma_runs.tgz" -C "$work" .
cat "$work/table.txt"
grep -E "^$variant|PASS|MISS" "$work/classes.txt" | head -20
echo "total: $(( $(date +%s) - t0 )) s"
