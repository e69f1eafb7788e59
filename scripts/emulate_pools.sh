#!/usr/bin/env bash
# Every kernel of the given pools on the CPU emulator (docs/emulator.md), each on its direction's
# test_validation set (2D or 3D by the pool's name): what a device verification would say about
# what they compute, without a GPU. One summary line per pool; exit 1 if any cell failed.
# usage: scripts/emulate_pools.sh [POOL.json ...]   (default: the exploration pools of bench/configs)
#   GCONV_EMULATE=path/to/gconv-emulate (default build/default/app/gconv-emulate)
#   GCONV_EMULATE_ARGS="--limit 8" extra arguments for every pool
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
emulate=${GCONV_EMULATE:-build/default/app/gconv-emulate}
[ -x "$emulate" ] || { echo "emulate_pools.sh: $emulate not built (scripts/build.sh default)" >&2; exit 2; }
pools=("$@")
[ ${#pools[@]} -gt 0 ] || pools=(bench/configs/*_explore.json)
status=0
for pool in "${pools[@]}"; do
  name=$(basename "$pool" .json)
  case $name in forward*) dir=forward ;; bwd_data*) dir=bwd_data ;; bwd_weight*) dir=bwd_weight ;;
    *) echo "emulate_pools.sh: $pool: no direction in its name" >&2; status=1; continue ;; esac
  dims=2d; [[ $name == *3d* ]] && dims=3d
  log=$(mktemp)
  "$emulate" "$pool" --problems ${dir}_${dims}_test_validation ${GCONV_EMULATE_ARGS:-} > "$log" 2>&1
  rc=$?
  echo "$pool: $(tail -1 "$log")"
  grep -E "^(FAIL|ERROR)" "$log" | head -20
  [ $rc -eq 0 ] || status=1
  rm -f "$log"
done
exit $status
