#!/usr/bin/env bash
# One device call for the sm_90a wgmma pipeline: build the Qt-free tools, verify every kernel
# of the direction's wgmma pools on its 2D / 3D test_validation sets (forward: and
# validation_holdout; backward: and scripts/device/wgmma_problems.json; the pools'
# verifications run side by side), then time the bf16 pools
# against cuDNN on the direction's baseline shapes and print the class report and a per-kernel
# table.
# usage (on the GPU machine, .deps carried): [GCONV_VARIANT=bwd_data] scripts/device/verify_wgmma.sh
#   GCONV_VARIANT           forward (default), bwd_data (configs/bwd_data_wgmma.json and
#                           bwd_data_persistent_wgmma.json: the forward kernels on the view of
#                           dOut, stride-1 problems) or bwd_weight (configs/bwd_weight_wgmma.json:
#                           MN-major operands, C/G a multiple of 32)
#   GCONV_WGMMA_VERIFY=a,b  pools to verify (forward default forward_bf16_wgmma,
#                           forward_bf16_persistent_wgmma, forward_bf16_persistent_cshuffle_wgmma,
#                           forward_bf16_pingpong_wgmma, forward_bf16_k32_wgmma, forward_fp16_wgmma;
#                           bwd_data: its three pools; bwd_weight: bwd_weight_wgmma)
#   GCONV_WGMMA_TIME=a,b    bf16 pools to time (forward default forward_bf16_wgmma,
#                           forward_bf16_persistent_wgmma, forward_bf16_persistent_cshuffle_wgmma,
#                           forward_bf16_pingpong_wgmma, forward_bf16_k32_wgmma; bwd_data and
#                           bwd_weight: as verified)
#                           (a pool is a config name under configs/ or a path, e.g.
#                           bench/configs/bwd_weight_wgmma_n192_explore.json)
#   GCONV_VERIFY_ONLY=1     stop after the verification
#   GCONV_WGMMA_SHAPES=a,b  time only these baseline shapes (layer names without "baseline.")
#   GCONV_WGMMA_3D=1        time the 3D baseline shapes too
#   GCONV_WGMMA_CPASYNC=1   time the first timed pool again with GCONV_WGMMA_TMA=0 (the cp.async
#                           producer instead of the tensor-map copies, same kernels)
#   GCONV_WGMMA_FULL=1      also time the direction's GEMM pool (forward_bf16.json holds wgmma
#                           kernels on sm_90a; bwd_data.json / bwd_weight.json are mma.sync)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
t0=$(date +%s)
build_tools "$out/build.log" gconv-bench gconv-worker
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
variant=${GCONV_VARIANT:-forward}
common=(--variant $variant --arch auto --progress none --kernel-timeout 10)
case $variant in
  forward)
    verify_default=forward_bf16_wgmma,forward_bf16_persistent_wgmma,forward_bf16_persistent_cshuffle_wgmma,forward_bf16_pingpong_wgmma,forward_bf16_k32_wgmma,forward_fp16_wgmma
    time_default=forward_bf16_wgmma,forward_bf16_persistent_wgmma,forward_bf16_persistent_cshuffle_wgmma,forward_bf16_pingpong_wgmma,forward_bf16_k32_wgmma
    sets=forward_2d_test_validation,forward_3d_test_validation,validation_holdout gemm=forward_bf16 ;;
  bwd_data)
    verify_default=bwd_data_wgmma,bwd_data_persistent_wgmma,bwd_data_k32_wgmma time_default=bwd_data_wgmma,bwd_data_persistent_wgmma,bwd_data_k32_wgmma
    sets=bwd_data_2d_test_validation,bwd_data_3d_test_validation gemm=bwd_data ;;
  bwd_weight)
    verify_default=bwd_weight_wgmma time_default=bwd_weight_wgmma
    sets=bwd_weight_2d_test_validation,bwd_weight_3d_test_validation gemm=bwd_weight ;;
  *) echo "verify_wgmma.sh: no wgmma pool for '$variant'" >&2; exit 2 ;;
esac
IFS=, read -ra verify <<< "${GCONV_WGMMA_VERIFY:-$verify_default}"
IFS=, read -ra timed_pools <<< "${GCONV_WGMMA_TIME:-$time_default}"
# The backward pools also take scripts/device/wgmma_problems.json (the shapes their tensor maps
# and tails need), in the direction's name.
extra=()
if [ "$variant" != forward ]; then
  python3 - "$variant" > /tmp/wgmma_problems.json <<'PY'
import json, sys
d = json.load(open("scripts/device/wgmma_problems.json"))
d["direction"] = sys.argv[1]
print(json.dumps(d))
PY
  extra=(--problems-file /tmp/wgmma_problems.json)
fi
pool_path() { [[ $1 == */* ]] && echo "$1" || echo "configs/$1.json"; }
pool_name() { basename "$1" .json; }
t=$(date +%s)
for cfg in "${verify[@]}"; do
  name=$(pool_name "$cfg")
  timeout 150 $bench "${common[@]}" --batch-size 400 --warmup 1 --repeat 2 --config "$(pool_path "$cfg")" \
    --problems $sets "${extra[@]}" \
    --output "$out/verify_$name.csv" > "$out/verify_$name.txt" 2>&1 &
done
wait
tail -q -n 2 "$out"/verify_*.txt
echo "verify: $(( $(date +%s) - t )) s"
python3 bench/report.py "$out"/verify_*.csv | tee "$out/verify_report.txt"
[ -n "${GCONV_VERIFY_ONLY:-}" ] && exit 0
shape_files=(bench/baselines/baseline_${variant}_2d.json)
[ -n "${GCONV_WGMMA_3D:-}" ] && shape_files+=(bench/baselines/baseline_${variant}_3d.json)
if [ -n "${GCONV_WGMMA_SHAPES:-}" ]; then
  for i in "${!shape_files[@]}"; do
    python3 - "$GCONV_WGMMA_SHAPES" "${shape_files[$i]}" > "/tmp/wgmma_shapes_$i.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
keep = {"baseline." + s for s in sys.argv[1].split(",")}
d["problems"] = [p for p in d["problems"] if p["layer"] in keep]
print(json.dumps(d))
PY
    shape_files[$i]=/tmp/wgmma_shapes_$i.json
  done
fi
timed=(--batch-size 100 --warmup 3 --repeat 20)
for i in "${!shape_files[@]}"; do
  for cfg in "${timed_pools[@]}"; do
    $bench "${common[@]}" "${timed[@]}" --problems-file "${shape_files[$i]}" --baseline cudnn \
      --config "$(pool_path "$cfg")" --output "$out/baseline_$(pool_name "$cfg")_$i.csv" 2>&1 | tail -1
  done
  if [ -n "${GCONV_WGMMA_CPASYNC:-}" ]; then
    GCONV_WGMMA_TMA=0 $bench "${common[@]}" "${timed[@]}" --problems-file "${shape_files[$i]}" \
      --config "$(pool_path "${timed_pools[0]}")" --output "$out/cpasync_$(pool_name "${timed_pools[0]}")_$i.csv" 2>&1 | tail -1
  fi
  if [ -n "${GCONV_WGMMA_FULL:-}" ]; then
    $bench "${common[@]}" "${timed[@]}" --problems-file "${shape_files[$i]}" --baseline cudnn \
      --config configs/$gemm.json --output "$out/baseline_${gemm}_$i.csv" 2>&1 | tail -1
  fi
done
grep -h "tensor maps not used" "$out"/*.worker.log 2>/dev/null | sort | uniq -c | head -5
python3 bench/report.py --classes --shapes --markdown "$out"/baseline_*.csv | tee "$out/classes.md"
python3 - "$out" <<'PY'
import csv, glob, os, sys
out = sys.argv[1]
def ok(path):
    return {(r["layer"], r["kernel"]): r for r in csv.DictReader(open(path)) if r["status"] == "ok"}
cpa = {}
for p in glob.glob(os.path.join(out, "cpasync_*.csv")):
    cpa.update(ok(p))
print("| shape | kernel | ms | TFLOP/s | cp.async ms | cuDNN ms | vs cuDNN |")
print("|---|---|---|---|---|---|---|")
rows = {}
for p in glob.glob(os.path.join(out, "baseline_*.csv")):
    rows.update(ok(p))
for (layer, k), r in sorted(rows.items(), key=lambda kv: (kv[0][0], float(kv[1]["latency_ms"]))):
    c = cpa.get((layer, k))
    tile = k.split("_compv5")[0].split("_")[-1]
    rest = k.split("intrawave_")[1]
    tags = (" gm2" if "_gm2" in k else "") + (" direct" if "epdirect" in k else "") + (
        " cshufflebuf" if "epcshufflebuf" in k else "") + (" pingpong" if "_interwave_" in k else "")
    print(f"| {layer.replace('baseline.', '')} | {tile} {rest.split('_v')[0]}{tags} | "
          f"{float(r['latency_ms']):.4f} | {float(r['tflops']):.1f} | "
          f"{float(c['latency_ms']) if c else float('nan'):.4f} | {r['baseline_ms'][:6]} | "
          f"{r['speedup'][:5]} |")
PY
# Last, so that it survives a cut output: per shape the best kernel of each timed pool.
python3 - "$out" <<'PY'
import csv, glob, os, sys
print("| shape | pool | best kernel | ms | TFLOP/s | cuDNN ms | vs cuDNN |")
print("|---|---|---|---|---|---|---|")
best = {}
for p in sorted(glob.glob(os.path.join(sys.argv[1], "baseline_*.csv"))):
    pool = os.path.basename(p)[len("baseline_"):-len(".csv")].rsplit("_", 1)[0]
    for r in csv.DictReader(open(p)):
        key = (r["layer"].replace("baseline.", ""), pool)
        if r["status"] == "ok" and (key not in best or
                                    float(r["latency_ms"]) < float(best[key]["latency_ms"])):
            best[key] = r
for (layer, pool), r in sorted(best.items()):
    k = r["kernel"]
    print(f"| {layer} | {pool} | {k.split('_compv5')[0].split('_')[-1]} "
          f"w{k.split('_w')[1].split('_')[0]}{' gm2' if '_gm2' in k else ''} | "
          f"{float(r['latency_ms']):.4f} | {float(r['tflops']):.1f} | {r['baseline_ms'][:6]} | "
          f"{r['speedup'][:5]} |")
PY
echo "total: $(( $(date +%s) - t0 )) s"
