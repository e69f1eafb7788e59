#!/usr/bin/env bash
# A/B of an opt-in switch read from the environment: the same kernels on the same shapes, once
# with VAR=0 and once with VAR=1, every cell verified; two rounds of A then B, so the A/A ratio
# of the rounds shows the noise; then per shape the best of each and their ratio
# (bench/ab_table.py).
# usage (on the GPU machine, carry .deps):
#   scripts/device/env_ab.sh VAR DIRECTION KERNELS.json SET.json [SET2.json ...]
#   KERNELS.json: {"<config stem>": ["<kernel name>", ...], ...} (configs/ or bench/configs/)
# e.g. GCONV_WGMMA_INPUT_TILED (scripts/device/input_tiled_ab.sh), GCONV_WORKSPACE_KEPT_ZERO,
# GCONV_WGMMA_FINISH_IN_BLOCK (docs/notes/device-runs.md, session 39).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
var=$1 direction=$2 kernels=$3
shift 3
build_tools "$out/build.log" gconv-bench gconv-worker || exit 1
for round in 1 2; do
  for mode in 0 1; do
    python3 -c "import json,sys; [print(k, repr(v)) for k, v in json.load(open(sys.argv[1])).items()]" "$kernels" |
    while read -r stem names; do
      config=configs/$stem.json; [ -f "$config" ] || config=bench/configs/$stem.json
      i=0
      for set in "$@"; do
        env "$var=$mode" $bench --variant "$direction" --arch auto --progress none \
          --kernel-timeout 10 --warmup 3 --repeat 20 --batch-size 200 --config "$config" \
          --filter "c.name in $names" --problems-file "$set" \
          --output "$out/ab_${mode}_r${round}_${stem}_$i.csv" 2>&1 | tail -1
        i=$((i + 1))
      done
    done
  done
done
echo "== A/A ($var=0, round 1 against round 2)"
python3 bench/ab_table.py --base "$out"/ab_0_r1_*.csv --new "$out"/ab_0_r2_*.csv | tail -3
echo "== $var=0 (base) against $var=1 (new)"
python3 bench/ab_table.py --base "$out"/ab_0_r*.csv --new "$out"/ab_1_r*.csv
