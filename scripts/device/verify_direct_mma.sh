#!/usr/bin/env bash
# One device call for the tensor-core direct pipeline (direct_mma): build the Qt-free tools,
# verify every kernel of the direction's direct_mma pool (GCONV_VARIANT forward, the default:
# configs/forward_bf16_direct_mma.json; bwd_data: configs/bwd_data_direct_mma.json; bwd_weight:
# configs/bwd_weight_direct_mma.json) on its 2D
# test_validation set and on scripts/device/direct_mma_problems.json (every C/G it is built for,
# tile and channel tails, stride, dilation; bwd_data runs the stride-1 ones), then time it and the
# direction's GEMM pool (forward_bf16.json / bwd_data.json) against cuDNN on the 2D baseline
# shapes in the same run and print the class report and the best-of-pool table.
# usage (on the GPU machine, .deps carried): [GCONV_VARIANT=bwd_data] [GCONV_DIMS=3d] scripts/device/verify_direct_mma.sh
# GCONV_DIMS=3d: the 3D pools (configs/*_3d_direct_mma.json), the 3D test_validation set,
# scripts/device/direct_mma_3d_problems.json and the 3D baseline shapes, against the 3D GEMM pool.
# GCONV_SKIP_GEMM=1 leaves the GEMM pool's timing out (it was measured in an earlier call);
# GCONV_VERIFY_ONLY=1 stops after the verification (no timing at all).
# Results go to $OUT/<variant>_<dims>_*.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
variant=${GCONV_VARIANT:-forward}
dims=${GCONV_DIMS:-2d}
work=/tmp/direct-mma-out-${variant}-${dims}
mkdir -p "$work"
t0=$(date +%s)
build_tools "$work/build.log" gconv-bench gconv-worker
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
common=(--variant $variant --arch auto --progress none --kernel-timeout 10)
case $dims in
  2d) infix= extra=scripts/device/direct_mma_problems.json ;;
  3d) infix=_3d extra=scripts/device/direct_mma_3d_problems.json ;;
  *) echo "verify_direct_mma.sh: GCONV_DIMS is 2d or 3d, not '$dims'" >&2; exit 2 ;;
esac
case $variant in
  forward) pool=configs/forward_bf16${infix}_direct_mma.json gemm=configs/forward_bf16${infix}.json ;;
  bwd_data) pool=configs/bwd_data${infix}_direct_mma.json gemm=configs/bwd_data${infix}.json ;;
  bwd_weight) pool=configs/bwd_weight${infix}_direct_mma.json gemm=configs/bwd_weight${infix}.json ;;
  *) echo "verify_direct_mma.sh: no direct_mma pool for '$variant'" >&2; exit 2 ;;
esac
# The extra shapes in the direction's name (the file says forward).
python3 - "$variant" "$extra" > "$work/direct_mma_problems.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
d["direction"] = sys.argv[1]
print(json.dumps(d))
PY
t=$(date +%s)
$bench "${common[@]}" --batch-size 200 --warmup 2 --repeat 5 --config $pool \
  --problems ${variant}_${dims}_test_validation --output "$work/verify_set.csv" > "$work/verify_set.log" 2>&1
echo "verify test_validation: exit $? in $(( $(date +%s) - t )) s"
t=$(date +%s)
$bench "${common[@]}" --batch-size 200 --warmup 2 --repeat 5 --config $pool \
  --problems-file "$work/direct_mma_problems.json" --output "$work/verify_extra.csv" > "$work/verify_extra.log" 2>&1
echo "verify direct_mma_problems: exit $? in $(( $(date +%s) - t )) s"
python3 bench/report.py "$work"/verify_*.csv | tee "$work/verify_report.txt"
if [ -n "${GCONV_VERIFY_ONLY:-}" ]; then
  cp "$work/verify_report.txt" "$out/${variant}_${dims}_verify_report.txt"
  echo "total: $(( $(date +%s) - t0 )) s"
  exit 0
fi
b=(--batch-size 100 --warmup 3 --repeat 20 --baseline cudnn --ceilings --problems-file bench/baselines/baseline_${variant}_${dims}.json)
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
for f in verify_report.txt classes.txt table.txt; do cp "$work/$f" "$out/${variant}_${dims}_$f"; done
tar -czf "$out/${variant}_${dims}_direct_mma_runs.tgz" -C "$work" .
cat "$work/table.txt"
grep -E "^$variant|PASS|MISS" "$work/classes.txt" | head -20
echo "total: $(( $(date +%s) - t0 )) s"
