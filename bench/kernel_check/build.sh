#!/usr/bin/env bash
# Builds kernel_check from the gconv sources it needs (no CMake, no json): g++ + NVRTC + driver.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${1:-$here/kernel_check}
libdir=$cuda/lib64
# Without a driver (CI, build machines) link against the stub libcuda.
[ -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] || [ -e /usr/lib64/libcuda.so.1 ] || libdir_stub=-L$cuda/lib64/stubs
g++ -std=c++20 -O2 -I"$root/core" -I"$cuda/include" \
  "$here/kernel_check.cpp" "$root/core/codegen/kernel_source.cpp" "$root/core/codegen/launch_plan.cpp" \
  "$root/core/codegen/launch_plan_bwd.cpp" "$root/core/codegen/launch_sequence.cpp" \
  "$root/core/problem/problem.cpp" "$root/core/config/enum_strings.cpp" \
  -L"$libdir" ${libdir_stub:-} -lnvrtc -lcuda -lpthread -Wl,-rpath,"$libdir" -o "$out"
echo "built $out"
