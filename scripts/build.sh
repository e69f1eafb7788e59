#!/usr/bin/env bash
# Configures and builds gconv with a CMake preset (default: "default").
# usage: scripts/build.sh [preset] [extra cmake -D options...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
preset=${1:-default}
shift || true
jobs=${GCONV_JOBS:-$(nproc)}
cmake --preset "$preset" -S "$here" "$@"
cmake --build --preset "$preset" -j "$jobs"
