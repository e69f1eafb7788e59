#!/usr/bin/env bash
# Prints the README's pool-count table: legal kernels per shipped config and architecture.
# usage: scripts/pool_counts.sh [path/to/gconv-instances]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tool=${1:-$here/build/default/app/gconv-instances}
archs=(sm_80 sm_89 sm_90 sm_90a gfx90a gfx942 gfx950)
printf '| config |'; printf ' %s |' "${archs[@]}"; printf '\n|---|'; printf -- '---:|%.0s' "${archs[@]}"; printf '\n'
for cfg in "$here"/configs/*.json; do
  name=$(basename "$cfg")
  [ "$name" = arch_specs.json ] && continue
  printf '| %s |' "$name"
  for a in "${archs[@]}"; do printf ' %s |' "$("$tool" "$cfg" --arch "$a" --count-only)"; done
  printf '\n'
done
