#!/usr/bin/env bash
# A/B of the wgmma input copies on 1x1 stride-1 unpadded layers (core/codegen/wgmma_tma.h
# `input_tiled`): the same kernels on the same shapes, once reading the input through the
# im2col map (GCONV_WGMMA_INPUT_TILED=0) and once through the tiled matrix map (=1), every cell
# verified; two rounds of A then B, so the A/A ratio of the rounds shows the noise; then per
# shape the best of each and their ratio (bench/ab_table.py).
# usage (on the GPU machine, carry .deps): scripts/device/input_tiled_ab.sh KERNELS.json [SET.json]
#   KERNELS.json: {"<config stem>": ["<kernel name>", ...], ...} (configs/ or bench/configs/);
#   SET.json: a problem set (default bench/baselines/dense_worst_probe.json), its 1x1 stride-1
#   unpadded problems taken.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
kernels=$1 set=${2:-bench/baselines/dense_worst_probe.json}
python3 - "$set" /tmp/pointwise.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
def flat(p):
    return all(p.get(k, 1) == 1 for k in ("Z", "Y", "X", "stride_d", "stride_h", "stride_w")) and \
        all(p.get(k, 0) == 0 for k in ("pad_d", "pad_h", "pad_w"))
s["problems"] = [p for p in s["problems"] if flat(p)]
print(f"{len(s['problems'])} pointwise problems")
json.dump(s, open(sys.argv[2], "w"))
PY
"$(dirname "${BASH_SOURCE[0]}")/env_ab.sh" GCONV_WGMMA_INPUT_TILED forward "$kernels" /tmp/pointwise.json
