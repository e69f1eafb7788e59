#!/usr/bin/env bash
# One device call: every kernel of the shipped backward configs verified through gconv-bench on
# the backward test-validation sets, then best-of-pool against cuDNN timed in the same run
# (--baseline cudnn) on the baseline shapes of both backward directions and of forward.
# Parts run in order of importance; once GCONV_DEADLINE_S (default 480) seconds have passed,
# the remaining parts are skipped and listed. GCONV_PARTS="name1 name2" runs only those parts
# (not GCONV_ONLY: check_all.sh is called with that one, naming its own parts).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
start=$(date +%s)
deadline=${GCONV_DEADLINE_S:-480}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
build_tools "$out/build.log" gconv-bench gconv-worker
skipped=()
run() { # name variant config problems-arg... (extra args)
  local name=$1 variant=$2 config=$3; shift 3
  if [ -n "${GCONV_PARTS:-}" ] && [[ " $GCONV_PARTS " != *" $name "* ]]; then return; fi
  if [ $(( $(date +%s) - start )) -ge "$deadline" ]; then skipped+=("$name"); return; fi
  local t0=$(date +%s)
  $bench --variant "$variant" --arch auto --progress none --config "$config" "$@" \
    --output "$out/$name.csv" > "$out/$name.log" 2>&1
  echo "$name: exit $? in $(( $(date +%s) - t0 )) s; $(grep -h 'build:' "$out/$name.log" | tail -1)"
}
v=(--warmup 2 --repeat 5 --batch-size 100)
run bwd_data_bf16_2d  bwd_data   configs/bwd_data.json        --problems bwd_data_2d_test_validation "${v[@]}"
run bwd_weight_bf16_2d bwd_weight configs/bwd_weight.json     --problems bwd_weight_2d_test_validation "${v[@]}"
run bwd_data_bf16_3d  bwd_data   configs/bwd_data_3d.json     --problems bwd_data_3d_test_validation "${v[@]}"
run bwd_weight_bf16_3d bwd_weight configs/bwd_weight_3d.json  --problems bwd_weight_3d_test_validation "${v[@]}"
b=(--warmup 3 --repeat 20 --batch-size 100 --baseline cudnn)
run base_bwd_data_2d   bwd_data   configs/bwd_data.json      --problems-file bench/baselines/baseline_bwd_data_2d.json "${b[@]}"
run base_bwd_weight_2d bwd_weight configs/bwd_weight.json    --problems-file bench/baselines/baseline_bwd_weight_2d.json "${b[@]}"
run base_bwd_data_3d   bwd_data   configs/bwd_data_3d.json   --problems-file bench/baselines/baseline_bwd_data_3d.json "${b[@]}"
run base_bwd_weight_3d bwd_weight configs/bwd_weight_3d.json --problems-file bench/baselines/baseline_bwd_weight_3d.json "${b[@]}"
run base_forward_2d    forward    configs/forward_bf16.json  --problems-file bench/baselines/baseline_forward_2d.json "${b[@]}"
run base_forward_3d    forward    configs/forward_bf16_3d.json --problems-file bench/baselines/baseline_forward_3d.json "${b[@]}"
run bwd_data_fp16_2d   bwd_data   configs/bwd_data_fp16.json   --problems bwd_data_2d_test_validation "${v[@]}"
run bwd_weight_fp16_2d bwd_weight configs/bwd_weight_fp16.json --problems bwd_weight_2d_test_validation "${v[@]}"
run bwd_data_fp32_2d   bwd_data   configs/bwd_data_fp32.json   --problems bwd_data_2d_test_validation "${v[@]}"
run bwd_weight_fp32_2d bwd_weight configs/bwd_weight_fp32.json --problems bwd_weight_2d_test_validation "${v[@]}"
echo "== verification"
for f in "$out"/bwd_*.csv; do [ -f "$f" ] && python3 bench/report.py "$f"; done
echo "== best of pool against cuDNN in the same run"
base=(); for f in "$out"/base_*.csv; do [ -f "$f" ] && base+=("$f"); done
[ ${#base[@]} -gt 0 ] && python3 bench/report.py --best --baseline bench/baselines/cudnn_latencies.json "${base[@]}" | grep -v "^/\|largest\|FAILING"
grep -h "cuDNN" "$out"/base_*.csv.worker.log 2>/dev/null | grep -v "baseline for" | sort -u | head -3
grep -h "did not verify\|cuDNN baseline for.*failed\|no algorithm" "$out"/base_*.csv.worker.log 2>/dev/null | head -10
[ ${#skipped[@]} -gt 0 ] && echo "skipped (deadline ${deadline} s): ${skipped[*]}"
echo "total $(( $(date +%s) - start )) s"
