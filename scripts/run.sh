#!/usr/bin/env bash
# The README's main job: set up, build, and run gconv on the bundled defaults.
# Today that is the instance builder on the bundled forward bf16 config for the H200 (sm_90):
# the pool summary, then the kernel list.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh" default
tool="$here/build/default/app/gconv-instances"
"$tool" "$here/configs/forward_bf16.json" --arch "${GCONV_ARCH:-sm_90}"
"$tool" "$here/configs/forward_bf16.json" --arch "${GCONV_ARCH:-sm_90}" --list
