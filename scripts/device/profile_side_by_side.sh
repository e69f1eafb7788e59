#!/usr/bin/env bash
# One gconv kernel and the engine cuDNN keeps on the same shape under Nsight Compute with the
# same sections, side by side (bench/ncu_compare.py): which entry cuDNN runs comes from
# scripts/device/profile_cudnn.sh (the entry of the most launches), both profiles from
# scripts/device/profile_direct.sh with the warp-stall sampling, the table on stdout and in
# $OUT/<name>.md.
# usage (on the GPU machine, carry .deps): scripts/device/profile_side_by_side.sh NAME CONFIG \
#          KERNEL LAYER [SET.json]
#   e.g. profile_side_by_side.sh regnet912 bench/configs/forward_wgmma_pn_fit_explore.json \
#          grouped_conv_forward_bf16_2d_192x128x64_..._pn \
#          regnet_x_1_6gf.trunk_output.block4.block4-0.f.a.b12 problems/validation_holdout.json
set -uo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
source "$here/common.sh"
name=$1 config=$2 kernel=$3 layer=$4 set=${5:-problems/validation_holdout.json}
extra="--section SourceCounters --section WarpStateStats --print-details all"
"$here/profile_cudnn.sh" "${name}_cudnn_list" forward "$layer" "$set" > "/tmp/$name.cudnn.txt" 2>&1
kept=$(grep -E "^ *[0-9]+x min" "/tmp/$name.cudnn.txt" | sort -n | tail -1 | awk '{print $NF}' |
  tr -cd 'A-Za-z0-9_' | cut -c1-60)
echo "cuDNN's kept engine: ${kept:-none found}"
GCONV_NCU_EXTRA="$extra" "$here/profile_direct.sh" "${name}_gconv" forward "$config" \
  "c.name == '$kernel'" "$layer" "$set" > /dev/null
reports=("$out/${name}_gconv.ncu.txt")
if [ -n "$kept" ]; then
  GCONV_NCU_EXTRA="$extra" GCONV_NCU_KERNELS="$kept" GCONV_PROFILE_ARGS='--baseline cudnn' \
    "$here/profile_direct.sh" "${name}_cudnn" forward "$config" "c.name == '$kernel'" "$layer" \
    "$set" > /dev/null
  reports+=("$out/${name}_cudnn.ncu.txt")
fi
[ ${#reports[@]} -ge 2 ] || { echo "profile_side_by_side.sh: no cuDNN engine to compare" >&2; exit 1; }
python3 bench/ncu_compare.py "${reports[@]}" | tee "$out/$name.md"
