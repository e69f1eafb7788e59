#!/usr/bin/env bash
# Nsight Compute over one kernel of a pool (the first FILTER keeps; direct, direct_mma and GEMM pools,
# whose main entries are gconv_direct_k<K> / gconv_main) on one baseline shape (carry .deps): the
# worker runs the cell under `ncu --target-processes all` with the clocks as found; the report's
# speed-of-light, memory, occupancy, warp-stall, compute and instruction sections go to
# $OUT/<name>.ncu.txt.
# usage: scripts/device/profile_direct.sh NAME VARIANT CONFIG FILTER LAYER [BASELINE_SET | FILE.json]
#   e.g. profile_direct.sh fwd_dw144 forward configs/forward_direct.json \
#          "c.tile_m == 64 and c.tile_n == 32 and c.vector_size_a == 4" baseline.mbv2_dw144
#   GCONV_NCU_KERNELS (a regex of entry names, default 'gconv_(direct|main)'), GCONV_NCU_SKIP
#   (matching launches skipped first, default 3), GCONV_NCU_COUNT (launches profiled, default 1)
#   and GCONV_NCU_METRICS (a comma-separated list of further ncu metrics, e.g. dram__bytes_read.sum)
#   reach the other entries of a launch sequence, e.g. gconv_finish after a 2stage gconv_main.
#   GCONV_PROFILE_ARGS adds gconv-bench flags ('--baseline cudnn' with GCONV_NCU_KERNELS naming
#   an entry scripts/device/profile_cudnn.sh listed profiles cuDNN's kernel on the same shape);
#   GCONV_NCU_EXTRA adds ncu flags ('--print-details all': every stall reason).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
name=$1 variant=$2 config=$3 filter=$4 layer=$5 set=${6:-baseline_${2}_2d}
[ -x "$bench" ] || build_tools "$out/build.log" gconv-bench gconv-worker
problems=/tmp/profile_$name.json
layer_problems "$set" "$layer" "$problems" || exit 1
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "profile_direct.sh: no ncu" >&2; exit 1; }
# Skip the verification launch and warm-ups; profile one timed launch of the kernel itself.
timeout 150 "$ncu" --target-processes all --clock-control none --kernel-name regex:"${GCONV_NCU_KERNELS:-gconv_(direct|main)}" \
  --launch-skip "${GCONV_NCU_SKIP:-3}" --launch-count "${GCONV_NCU_COUNT:-1}" --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats \
  --section ComputeWorkloadAnalysis --section InstructionStats ${GCONV_NCU_METRICS:+--metrics "$GCONV_NCU_METRICS"} \
  ${GCONV_NCU_EXTRA:-} \
  "$bench" --variant "$variant" --arch auto --progress none --config "$config" --filter "$filter" \
  --max-kernels 1 --problems-file "$problems" --warmup 3 --repeat 3 --kernel-timeout 120 \
  --output "/tmp/profile_$name.csv" ${GCONV_PROFILE_ARGS:-} > "$out/$name.ncu.txt" 2>&1
echo "ncu $name: exit $?"
grep -E "${GCONV_NCU_METRICS:+$(tr , '|' <<< "$GCONV_NCU_METRICS")|}Duration|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Theoretical Occupancy|Compute \(SM\)|Stall|Issued Warp|No Eligible|Eligible Warps" "$out/$name.ncu.txt" | head -40
