#!/usr/bin/env bash
# One device call for the tensor-core direct pipeline (direct_mma): build the Qt-free tools,
# verify every kernel of configs/forward_bf16_direct_mma.json on the forward 2D test_validation
# set and on scripts/device/direct_mma_problems.json (every C/G it is built for, tile and channel
# tails, stride, dilation), then time it and the existing forward_bf16.json pool against cuDNN on
# the 2D baseline shapes in the same run and print the class report and the best-of-pool table.
# usage (on the GPU machine, .deps carried): scripts/device/verify_direct_mma.sh
# GCONV_SKIP_GEMM=1 leaves the forward_bf16.json timing out (it was measured in an earlier call).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
work=/tmp/direct-mma-out
mkdir -p "$work"
t0=$(date +%s)
build_tools "$work/build.log" gconv-bench gconv-worker
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
common=(--variant forward --arch auto --progress none --kernel-timeout 10)
pool=configs/forward_bf16_direct_mma.json
t=$(date +%s)
$bench "${common[@]}" --batch-size 200 --warmup 2 --repeat 5 --config $pool \
  --problems forward_2d_test_validation --output "$work/verify_set.csv" > "$work/verify_set.log" 2>&1
echo "verify test_validation: exit $? in $(( $(date +%s) - t )) s"
t=$(date +%s)
$bench "${common[@]}" --batch-size 200 --warmup 2 --repeat 5 --config $pool \
  --problems-file scripts/device/direct_mma_problems.json --output "$work/verify_extra.csv" > "$work/verify_extra.log" 2>&1
echo "verify direct_mma_problems: exit $? in $(( $(date +%s) - t )) s"
python3 bench/report.py "$work"/verify_*.csv | tee "$work/verify_report.txt"
b=(--batch-size 100 --warmup 3 --repeat 20 --baseline cudnn --ceilings --problems-file bench/baselines/baseline_forward_2d.json)
t=$(date +%s)
$bench "${common[@]}" "${b[@]}" --config $pool --output "$work/baseline_direct_mma.csv" > "$work/baseline_direct_mma.log" 2>&1
echo "baseline direct_mma: exit $? in $(( $(date +%s) - t )) s"
if [ -z "${GCONV_SKIP_GEMM:-}" ]; then
  t=$(date +%s)
  $bench "${common[@]}" "${b[@]}" --config configs/forward_bf16.json --output "$work/baseline_gemm.csv" > "$work/baseline_gemm.log" 2>&1
  echo "baseline forward_bf16: exit $? in $(( $(date +%s) - t )) s"
fi
# Optional counters: GCONV_NCU_SHAPE=resnext50_s2 GCONV_NCU_FILTER="c.name == '...'" profiles
# those kernels on that baseline shape with Nsight Compute (clocks left alone).
if [ -n "${GCONV_NCU_FILTER:-}" ] && command -v ncu > /dev/null; then
  python3 - "${GCONV_NCU_SHAPE:-resnext50_s2}" > "$work/ncu_problem.json" <<'PY'
import json, sys
d = json.load(open("bench/baselines/baseline_forward_2d.json"))
d["problems"] = [p for p in d["problems"] if p["layer"] == "baseline." + sys.argv[1]]
print(json.dumps(d))
PY
  t=$(date +%s)
  ncu --clock-control none --target-processes all -k regex:gconv_main -c 12 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section LaunchStats \
    --section ComputeWorkloadAnalysis --section InstructionStats \
    $bench --variant forward --arch auto --progress none --kernel-timeout 300 \
    --batch-size 10 --warmup 1 --repeat 1 --config $pool \
    --filter "$GCONV_NCU_FILTER" --problems-file "$work/ncu_problem.json" \
    --output "$work/ncu.csv" > "$work/ncu.txt" 2>&1
  echo "ncu: exit $? in $(( $(date +%s) - t )) s"
  cp "$work/ncu.txt" "$out/"
fi
{
  echo "== direct_mma pool alone"
  python3 bench/report.py --classes --shapes "$work/baseline_direct_mma.csv"
  echo "== direct_mma + forward_bf16 pools"
  python3 bench/report.py --classes --shapes "$work"/baseline_*.csv
  python3 bench/report.py --best "$work"/baseline_*.csv
} > "$work/classes.txt" 2>&1
python3 scripts/device/direct_mma_table.py "$work"/baseline_*.csv > "$work/table.txt" 2>&1
cp "$work/verify_report.txt" "$work/classes.txt" "$work/table.txt" "$out/"
tar -czf "$out/direct_mma_runs.tgz" -C "$work" .
cat "$work/table.txt"
grep -E "^forward|PASS|MISS" "$work/classes.txt" | head -20
echo "total: $(( $(date +%s) - t0 )) s"
