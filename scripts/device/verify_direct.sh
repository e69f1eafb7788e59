#!/usr/bin/env bash
# One device call for the direct pipeline: every kernel of configs/*_direct.json verified through
# gconv-bench on the 2D and 3D test-validation sets of its direction, then best-of-pool against
# cuDNN timed in the same run on the baseline shapes. Writes one tarball of CSVs and logs plus a
# summary to $OUT. GCONV_PARTS="name1 name2" runs only those parts (not GCONV_ONLY: check_all.sh
# is called with that one, naming its own parts).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
work=/tmp/direct-out
mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
build_tools "$work/build.log" gconv-bench gconv-worker
run() { # name variant config problems-args...
  local name=$1 variant=$2 config=$3; shift 3
  if [ -n "${GCONV_PARTS:-}" ] && [[ " $GCONV_PARTS " != *" $name "* ]]; then return; fi
  local t0=$(date +%s)
  $bench --variant "$variant" --arch auto --progress none --config "$config" "$@" \
    --output "$work/$name.csv" > "$work/$name.log" 2>&1
  echo "$name: exit $? in $(( $(date +%s) - t0 )) s"
}
v=(--warmup 2 --repeat 5 --batch-size 100)
b=(--warmup 3 --repeat 20 --batch-size 100 --baseline cudnn)
for dir in forward bwd_data bwd_weight; do
  for nd in 2d 3d; do
    run "val_${dir}_${nd}" "$dir" "configs/${dir}_direct.json" --problems "${dir}_${nd}_test_validation" "${v[@]}"
  done
done
for dir in forward bwd_data bwd_weight; do
  for nd in 2d 3d; do
    run "base_${dir}_${nd}" "$dir" "configs/${dir}_direct.json" --problems-file "bench/baselines/baseline_${dir}_${nd}.json" "${b[@]}"
  done
done
{
  echo "== verification"
  for f in "$work"/val_*.csv; do [ -f "$f" ] && python3 bench/report.py "$f"; done
  echo "== best of pool against cuDNN in the same run"
  for f in "$work"/base_*.csv; do [ -f "$f" ] && { echo "# $f"; python3 bench/report.py --best "$f" | grep -v "FAILING"; }; done
} > "$work/summary.txt" 2>&1
if compgen -G "$work/base_*.csv" > /dev/null; then
  python3 scripts/device/direct_table.py "$work"/base_*.csv > "$work/table.txt" 2>&1
else
  echo "no timed runs (GCONV_PARTS named verification only)" > "$work/table.txt"
fi
cp "$work/summary.txt" "$work/table.txt" "$out/"
tar -czf "$out/direct_runs.tgz" -C "$work" .
cat "$work/table.txt"
grep -E "kernels|fail|error|ok" "$work/summary.txt" | head -40
