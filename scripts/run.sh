#!/usr/bin/env bash
# The README's main job: set up, build, and open gconv-explorer on the bundled defaults: the
# forward bf16 trait config on the Kernels page and the sample results measured on an H200 on
# the Results and Plots pages. Extra arguments go to gconv-explorer (e.g. results CSVs).
# Without a display (no DISPLAY / WAYLAND_DISPLAY) it renders every page offscreen into
# out/screenshots/ instead and says where.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh" default
explorer="$here/build/default/app/gconv-explorer"
args=(--config "$here/configs/forward_bf16.json" "$@")
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$explorer" "${args[@]}"
fi
shots="$here/out/screenshots"
echo "run: no display; rendering every page offscreen into $shots"
QT_QPA_PLATFORM=offscreen "$explorer" "${args[@]}" --screenshots "$shots"
