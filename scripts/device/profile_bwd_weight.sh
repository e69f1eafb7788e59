#!/usr/bin/env bash
# One device call: Nsight Compute over the best bwd_weight kernels of the H200 class runs where
# bwd_weight misses its target most (docs/notes/2026-12-05-classes-report-session16.md): the
# tensor-core depthwise entry on convnext_dw96_7x7, the register-window direct entry on
# effnet_dw240_5x5, and on resnext50_s4 the GEMM pipeline (2stage split-K, whose blocks now
# finish the tiles themselves: no gconv_finish) and direct_mma. Reports under
# $OUT/<name>.ncu.txt (scripts/device/profile_direct.sh); then the shipped tensor-core
# bwd_weight pool timed with cuDNN on the depthwise shapes.
# usage (on the GPU machine, carry .deps): scripts/device/profile_bwd_weight.sh
set -uo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
p="$here/profile_direct.sh"
$p bw_tc_dw96 bwd_weight configs/bwd_weight_direct_tc.json \
  "c.tile_m == 512 and c.tile_n == 16 and c.tile_k == 2 and c.wave_m == 8 and c.block_per_cu == 1" baseline.convnext_dw96_7x7
$p bw_direct_effnet bwd_weight configs/bwd_weight_direct.json \
  "c.ndim_spatial == 2 and c.tile_m == 2048 and c.tile_n == 32 and c.tile_k == 128 and c.vector_size_a == 4" baseline.effnet_dw240_5x5
$p bw_gemm_s4 bwd_weight configs/bwd_weight.json \
  "c.tile_m == 32 and c.tile_n == 64 and c.pipeline == 'compv3' and c.scheduler == 'intrawave' and c.wave_m == 1 and c.split_k == 4 and c.split_image and c.split_k_mode == '2stage' and c.warp_tile_m == 16 and not c.double_smem_buffer" baseline.resnext50_s4
$p bw_mma_s4 bwd_weight configs/bwd_weight_direct_mma.json \
  "c.tile_m == 224 and c.tile_n == 32 and c.tile_k == 32 and c.wave_m == 4 and c.wave_n == 1 and c.split_k == 8" baseline.resnext50_s4
# Then the shipped tensor-core bwd_weight pool timed beside cuDNN on the 2D depthwise baseline
# shapes, so a change to its entries shows as figures of the same call.
source "$here/common.sh"
python3 - <<'PY'
import json
b = json.load(open("bench/baselines/baseline_bwd_weight_2d.json"))
b["problems"] = [p for p in b["problems"] if p["C"] == p["G"] and p["K"] == p["G"]]
json.dump(b, open("/tmp/baseline_dw_bwd_weight.json", "w"))
PY
$bench --variant bwd_weight --arch auto --progress none --kernel-timeout 10 --warmup 3 --repeat 20 \
  --batch-size 100 --baseline cudnn --config configs/bwd_weight_direct_tc.json \
  --problems-file /tmp/baseline_dw_bwd_weight.json --output "$out/tc_bwd_weight.csv" 2>&1 | tail -1
python3 bench/report.py --best "$out/tc_bwd_weight.csv" | grep "^|"
