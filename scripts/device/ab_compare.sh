#!/usr/bin/env bash
# One device call that times a change against the tree before it: builds this tree and the base
# tree (.ab/base.tar.gz, carried: `mkdir -p .ab && git archive REV | gzip > .ab/base.tar.gz`),
# then for every run of GCONV_AB runs the same pool on the same shapes with both builds, each
# with cuDNN in its run, the first build alternating from run to run (every cell verified by
# both), and prints bench/ab_table.py's per-shape table. A run is VARIANT:CONFIG:PROBLEMS, PROBLEMS a problem file, a registry key, or
# `dw` for the direction's depthwise 2D baseline shapes, `grouped` for its grouped C/G <= 32 2D
# baseline shapes; runs are space-separated. GCONV_AB_BASE names another base archive.
# usage (on the GPU machine, carry .deps and .ab):
#   GCONV_AB="forward:configs/forward_direct_tc.json:dw" scripts/device/ab_compare.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
t0=$(date +%s)
tarball=${GCONV_AB_BASE:-.ab/base.tar.gz}
[ -f "$tarball" ] || { echo "ab_compare.sh: $tarball missing (carry .ab)" >&2; exit 2; }
base=/tmp/ab-base
rm -rf "$base" && mkdir -p "$base" && tar -xzf "$tarball" -C "$base" && ln -s "$repo/.deps" "$base/.deps"
build_tools "$out/build.log" gconv-bench gconv-worker
(cd "$base" && scripts/device/build.sh gconv-bench gconv-worker > "$out/build_base.log" 2>&1) ||
  { tail -40 "$out/build_base.log"; exit 1; }
# The runs' CSVs and logs go to a work folder (a device call brings back a limited number of
# files), then into one archive under $OUT with the tables.
final=$out
out=/tmp/ab-out
rm -rf "$out" && mkdir -p "$out"
echo "builds: $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
common=(--arch auto --progress none --kernel-timeout 10 --batch-size 100 --warmup 3 --repeat 20)
i=0
for run in ${GCONV_AB:?GCONV_AB names the runs}; do
  IFS=: read -r variant config problems <<< "$run"
  i=$((i + 1))
  if [ "$problems" = dw ] || [ "$problems" = grouped ]; then
    class_shapes "bench/baselines/baseline_${variant}_2d.json" "$problems" "$out/${problems}_$variant.json"
    set_args=(--problems-file "$out/${problems}_$variant.json")
  elif [ -f "$problems" ]; then
    set_args=(--problems-file "$(realpath "$problems")")
  else
    set_args=(--problems "$problems")
  fi
  # Both builds run with cuDNN beside them and take turns going first: an A/A run of the
  # earlier form (the base alone first, then the new build with cuDNN) read 0.985x.
  if [ $((i % 2)) -eq 1 ]; then order="base new"; else order="new base"; fi
  for side in $order; do
    t=$(date +%s)
    if [ "$side" = base ]; then
      (cd "$base" && build/device/app/gconv-bench --variant "$variant" "${common[@]}" --baseline cudnn \
        --config "$repo/$config" "${set_args[@]}" --output "$out/base_$i.csv" > "$out/base_$i.log" 2>&1)
    else
      $bench --variant "$variant" "${common[@]}" --baseline cudnn --config "$config" "${set_args[@]}" \
        --output "$out/new_$i.csv" > "$out/new_$i.log" 2>&1
    fi
    echo "run $i $side ($run): exit $? in $(( $(date +%s) - t )) s"
  done
  for f in "$out/base_$i.csv" "$out/new_$i.csv"; do tail -n +2 "$f" | grep -c ",fail,\|,error,"; done |
    paste -sd' ' | sed 's/^/fail+error rows (base new): /'
  python3 bench/ab_table.py --base "$out/base_$i.csv" --new "$out/new_$i.csv" > "$final/ab_run$i.md"
  tail -1 "$final/ab_run$i.md"
done
python3 bench/ab_table.py --base "$out"/base_*.csv --new "$out"/new_*.csv | tee "$final/ab.md"
tar -czf "$final/ab_runs.tgz" -C "$out" .
echo "total: $(( $(date +%s) - t0 )) s"
