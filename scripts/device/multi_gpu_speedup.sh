#!/usr/bin/env bash
# One device call on a machine of 2 (or more) GPUs (kind nvidia-h200-x2): builds gconv-bench and
# gconv-worker, then times the benchmark phase of the same sweep with --devices 0 and with
# --devices all (bench/multi_gpu_speedup.py) and prints the ratio against issue 8's target
# (<= 0.55x on 2 GPUs). The CSVs, sidecars and worker logs land in $OUT.
# GCONV_SPEEDUP_ARGS replaces the sweep (default: the bf16 forward pool's first 120 kernels on
# the forward 2D validation set); GCONV_SPEEDUP_TARGET the target ratio.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build_tools "$out/build.log" gconv-bench gconv-worker
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv 2>/dev/null || true
read -r -a sweep <<<"${GCONV_SPEEDUP_ARGS:---variant forward --arch auto --config configs/forward_bf16.json --problems forward_2d_test_validation --max-kernels 120 --batch-size 20}"
python3 bench/multi_gpu_speedup.py --bench "$bench" --out "$out" \
    --target "${GCONV_SPEEDUP_TARGET:-0.55}" -- "${sweep[@]}"
