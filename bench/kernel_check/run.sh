#!/usr/bin/env bash
# Device-machine entry point: build kernel_check, verify a random sample of the config space
# on small shapes with tails / stride / pad / dilation / 3D / depthwise / G=1, and time the
# bf16 fast paths on cuDNN baseline shapes. Usage: bench/kernel_check/run.sh [configs] [seed]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${OUT:-/tmp/kernel_check_out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
"$here/build.sh" /tmp/kernel_check 2>&1 | tail -5
/tmp/kernel_check "$root/core/kernels" --configs "${1:-150}" --seed "${2:-1}" --time 2>&1 | tee "$out/kernel_check.log"
rc=${PIPESTATUS[0]}
grep -E "^(RESULT|failures|verified|compiled [0-9])" "$out/kernel_check.log"
exit $rc
