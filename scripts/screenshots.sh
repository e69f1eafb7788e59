#!/usr/bin/env bash
# Renders every page of gconv-explorer (bundled config and sample results, or the CSVs given)
# into out/screenshots/NN-page.png, offscreen. Usage: scripts/screenshots.sh [csv...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
explorer="${GCONV_EXPLORER:-$here/build/default/app/gconv-explorer}"
[ -x "$explorer" ] || { echo "screenshots: build first (scripts/build.sh): $explorer missing" >&2; exit 1; }
out="${GCONV_SCREENSHOTS:-$here/out/screenshots}"
QT_QPA_PLATFORM=offscreen "$explorer" --config "$here/configs/forward_bf16.json" "$@" \
  --screenshots "$out" --wait-ms "${GCONV_SCREENSHOT_WAIT_MS:-3000}"
