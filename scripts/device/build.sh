#!/usr/bin/env bash
# Configures and builds the Qt-free targets on the GPU machine (preset "device": GUI off,
# tests off, NVIDIA platform) into build/device, with headers from .deps
# (scripts/device/bundle_deps.sh, run beforehand on a machine with apt).
# Usage: scripts/device/build.sh [target...]   (default: all Qt-free targets)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
[ -d .deps/hip/include/hip ] || { echo "build.sh: .deps missing: run scripts/device/bundle_deps.sh and carry .deps" >&2; exit 1; }

export PATH="/usr/local/cuda/bin:$PATH"
cmake --preset device -DGCONV_DEPS_DIR="$repo/.deps" -DCUDAToolkit_ROOT=/usr/local/cuda
jobs="$(nproc 2>/dev/null || echo 4)"
if [ $# -gt 0 ]; then
  cmake --build build/device -j "$jobs" --target "$@"
else
  cmake --build build/device -j "$jobs"
fi
