#!/usr/bin/env bash
# Device-machine entry point: build kernel_check, verify a random sample of the config space
# on small shapes with tails / stride / pad / dilation / 3D / depthwise / G=1, and (forward)
# time the bf16 fast paths on cuDNN baseline shapes.
# Usage: bench/kernel_check/run.sh [configs] [seed] [variant: forward|bwd_data|bwd_weight|all]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${OUT:-/tmp/kernel_check_out}
variant=${3:-forward}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
[ -x /tmp/kernel_check ] || "$here/build.sh" /tmp/kernel_check 2>&1 | tail -5
time_flag=
[ "$variant" = forward ] && time_flag=--time
/tmp/kernel_check "$root/core/kernels" --configs "${1:-150}" --seed "${2:-1}" --variant "$variant" \
  $time_flag 2>&1 | tee "$out/kernel_check_$variant.log"
rc=${PIPESTATUS[0]}
grep -E "^(RESULT|FAIL|BAD|failures|verified|compiled [0-9])" "$out/kernel_check_$variant.log" | head -80
exit $rc
