#!/usr/bin/env bash
# One device call over the whole tree: build once, then the parts named in GCONV_ONLY (default
# all, in this order), each under its own time limit, results under $OUT/<part>/:
#   overhead   scripts/device/sweep_overhead.sh without the fresh-worker runs (issue 4 figures)
#   wgmma      scripts/device/verify_wgmma.sh (verify the wgmma pools, time them against cuDNN)
#   wgmma_bwd_data, wgmma_bwd_weight   the same for the backward wgmma pools (GCONV_VARIANT)
#   sample     a sample of every other pool (GCONV_SAMPLE_KERNELS kernels each, default 48, of
#              those GCONV_SAMPLE_FILTER keeps) verified on its test_validation sets
#   classes    every shipped bf16 pool of a direction (direction_pools) on its baseline shapes
#              (GCONV_CLASSES, default all six: forward_2d ... bwd_weight_3d) with cuDNN in the
#              same run, then `report.py --classes` over all of them, also over what ran when the
#              part's limit stops it (best of all pools; GCONV_CLASS_POOLS, a bash regex, keeps
#              the pools whose config name matches it). All six take longer than one call:
#              bwd_data_2d and bwd_weight_2d's first three pools took 470 s (H100, session 37),
#              so split them over calls with GCONV_CLASSES and GCONV_LIMIT_CLASSES;
#              GCONV_CLASS_PROBLEMS=test_validation runs the sets'
#              problems/<set>_test_validation.json instead of the baseline shapes
#   mma_verify scripts/device/verify_direct_mma.sh with GCONV_VERIFY_ONLY=1 for every direction,
#              2D and 3D (every direct_mma pool on its test_validation set and extra shapes)
#   tc         scripts/device/verify_staged.sh on the tensor-core direct exploration pools
#              (bench/configs/*_direct_tc_explore.json), forward, bwd_data and bwd_weight
#              (GCONV_TC_DIRS picks some of them; tc_ship then rebuilds only those pools)
#   tc_ship    after tc in the same call: bench/pool_from_runs.py rebuilds
#              configs/<dir>_direct_tc.json from its runs (tiles within 3% of the best of the
#              exploration pool and configs/<dir>_direct.json), so a classes part after it times
#              the new pools; the rebuilt configs come back under tc_ship/
#   wsplit     the bwd_weight GEMM pipelines with split_k 4 to 32
#              (bench/configs/bwd_weight_2d_splitk_explore.json) with cuDNN on the grouped C/G <= 32
#              2D baseline shapes, then the class report
#   fsplit     forward split-K (bench/configs/forward_{wgmma_,}splitk_explore.json): both pools
#              verified on forward_{2d,3d}_test_validation, then timed with cuDNN beside the shipped
#              wgmma pools on GCONV_FSPLIT_SET (default bench/baselines/dense_2d_probe.json;
#              bench/baselines/compute_tail_probe.json: the compute-bound dense shapes that
#              trail cuDNN), then the per-shape best
#   narrow     the narrow-vector exploration pool (bench/configs/forward_narrow_explore.json)
#              verified, then timed with it and the channel-padded copies
#              (bench/configs/forward_cpad_explore.json) with cuDNN beside configs/forward_bf16_narrow.json on
#              GCONV_NARROW_SET (default bench/baselines/narrow_probe.json), the per-shape best
#   dws2       the staged entries' stride-2 walk: bench/configs/forward_direct_staged_s2_explore.json
#              and configs/forward_direct_staged.json verified on tests/emu/depthwise_stride2.json
#              and scripts/device/depthwise_stride2_problems.json, then timed with cuDNN beside the
#              shipped direct pools on GCONV_DWS2_SET (default bench/baselines/dw_s2_probe.json:
#              the holdout's 17 stride-2 depthwise shapes), the per-shape best and winners.txt
#   dwx        bench/configs/forward_direct_explore.json and forward_staged_n8_explore.json beside the shipped direct pools with
#              cuDNN on GCONV_DWX_SET (default bench/baselines/dw_tail_probe.json), per-shape best
#   n48        the GEMM tiles whose N is not a power of two (bench/configs/forward_n48_explore.json)
#              verified on forward_2d_test_validation, then timed with cuDNN on GCONV_N48_SET
#              (default bench/baselines/n48_probe.json: the dense 2D holdout shapes under 0.95x
#              whose K is not a multiple of 128), the per-shape best and winners.txt
#   cluster    the persistent wgmma kernels alone and in clusters of two sharing A by multicast
#              (bench/configs/forward_cluster_explore.json) verified on forward_{2d,3d}_test_validation
#              and scripts/device/wgmma_problems.json, then timed with cuDNN on GCONV_CLUSTER_SET
#              (default bench/baselines/compute_tail_probe.json), the per-shape best and winners.txt
#   wide_acc   the two-consumer wgmma tiles of 160 / 192 accumulators (bench/configs/
#              forward_wgmma_wide_acc_explore.json) verified as cluster's, then timed with cuDNN
#              beside the cluster, three-consumer and persistent cshuffle pools on
#              GCONV_WIDE_ACC_SET (default bench/baselines/n48_probe.json), per-shape best
#   nsplit     the N-split wgmma tiles (bench/configs/forward_wgmma_nsplit_explore.json: two
#              consumer warpgroups side by side in N, 192-row tiles, halves of 72-128 columns)
#              and the wide_acc tiles, both verified as cluster's, then timed with cuDNN beside
#              wide_acc's pools on GCONV_NSPLIT_SET (default bench/baselines/n48_probe.json)
#   pixels     the pixels_on_n wgmma tiles (bench/configs/forward_wgmma_pixels_on_n_explore.json:
#              pixels on the instruction's N side, edges in 8s), verified as cluster's, then
#              timed with cuDNN beside the main, N-split and shipped two-consumer pools on
#              GCONV_PIXELS_SET (default bench/baselines/dense_worst_probe.json); GCONV_PIXELS_POOL
#              another exploration pool (then the shipped pixels_on_n pool is timed beside)
#   ck         the wgmma tiles in clusters along K (bench/configs/forward_wgmma_cluster_k_explore.json:
#              cluster_k 2-8 blocks sum their partial tiles in distributed shared memory), verified as
#              cluster's, then timed with cuDNN beside the main and pixels_on_n pools on
#              GCONV_CK_SET (default bench/baselines/dense_worst_probe.json)
#   oddk       the wgmma tiles with 1- and 2-element output vectors (bench/configs/
#              forward_wgmma_narrow_c_explore.json: K/G not a multiple of 8, lone blocks and clusters
#              along K) verified as cluster's, then timed with cuDNN on GCONV_ODDK_SET (default
#              bench/baselines/odd_k_probe.json; compare with the holdout's best of those shapes)
#   k32x       the tile_k 32 wgmma tiles beyond the shipped pool (bench/configs/
#              forward_wgmma_k32_explore.json: 64-256 pixels, three consumers on 192, pixels_on_n)
#              verified as cluster's, then timed with cuDNN beside configs/forward_bf16_k32_wgmma.json
#              on GCONV_K32X_SET (default bench/baselines/half_slices_probe.json: C/G 32 under 3x3)
#   s2x        the direct_mma tiles sized for stride-2 grouped shapes (bench/configs/
#              forward_direct_mma_s2_explore.json: tile m 72-288 whole output rows, n 16-64, C/G
#              8-32) verified on forward_2d_test_validation, then timed with cuDNN beside
#              configs/forward_bf16_direct_mma.json
#              on GCONV_S2X_SET (default bench/baselines/s2_grouped_probe.json: C/G <= 32 under stride 2)
#   dwg        the direct_wgmma kernels (bench/configs/forward_direct_wgmma_explore.json: wgmma taps
#              from one staged input band) verified on scripts/device/direct_wgmma_problems.json,
#              then timed with cuDNN beside the holdout's winning kernels of every forward pool on
#              GCONV_DWG_SET (default bench/baselines/dense_small_c_probe.json: dense C <= 64)
#   proto      bench/proto/halo_wgmma.cu (the staged-band wgmma prototype) built with nvcc, every
#              variant verified and timed on xception.conv2 b48 and b12, then the k32 wgmma pools
#              with cuDNN on the same two shapes (gconv-bench), side by side in one call
#   wgmma_all  every forward bf16 wgmma pool unfiltered with cuDNN on GCONV_WGMMA_ALL_SET (default
#              bench/baselines/compute_tail_probe.json), the per-shape best, and winners.txt for
#              the holdout's seed (bench/shortlist.py winners)
#   hold       the holdout's winning kernels and cuDNN on GCONV_HOLD_SET (default
#              bench/baselines/small_cudnn_probe.json) with --launch-hold off and on (the
#              default), per shape held / free (worker/stream_hold.h)
#   ksplit     direct_mma with wave_k 2 (bench/configs/*_direct_mma_ksplit_explore.json) beside the
#              shipped direct_mma pool and cuDNN on the grouped C/G <= 32 baseline shapes of
#              forward and bwd_data, 2D and 3D (GCONV_KSPLIT_SETS), then the class report
#   direct     scripts/device/verify_direct.sh (every configs/*_direct.json pool verified, then
#              best of pool against cuDNN on the baseline shapes)
#   compile    bench/compile_time.py over whole pools (GCONV_COMPILE_CONFIGS, default forward_bf16,
#              bwd_data, bwd_weight) on every core, cold cache then cached
#   holdout    scripts/device/holdout.sh: every forward pool on 20 probes of
#              problems/validation_holdout.json, the kernels near each probe's best on all 300
#              shapes (221 dense) with cuDNN, the class report (GCONV_HOLDOUT_* as it says)
#   gpu_tests  scripts/device/gpu_tests.sh (the Qt Test GPU suites; carry .qt)
# usage (on the GPU machine, carry .deps [and .qt]): GCONV_ONLY=overhead,wgmma scripts/device/check_all.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
t0=$(date +%s)
build_tools "$out/build.log" gconv-bench gconv-worker
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
IFS=, read -ra parts <<< "${GCONV_ONLY:-overhead,wgmma,sample,classes,gpu_tests}"
tc_dirs=${GCONV_TC_DIRS:-forward bwd_data bwd_weight}
limit() { local v="GCONV_LIMIT_${1^^}"; echo "${!v:-$2}"; } # seconds per part, GCONV_LIMIT_<PART>


sample() {
  local n=${GCONV_SAMPLE_KERNELS:-48} variant cfg set filter
  for cfg in forward_fp16 forward_fp32 forward_bf16_3d bwd_data bwd_weight bwd_data_3d bwd_weight_3d bwd_data_fp16 bwd_weight_fp16 bwd_data_fp32 bwd_weight_fp32 bwd_data_direct bwd_weight_direct; do
    case $cfg in forward*) variant=forward ;; bwd_data*) variant=bwd_data ;; *) variant=bwd_weight ;; esac
    case $cfg in
      forward_fp*) set=forward_2d_test_validation,forward_3d_test_validation ;;
      *_3d) set=${variant}_3d_test_validation ;;
      *_direct) set=${variant}_2d_test_validation,${variant}_3d_test_validation ;;
      *) set=${variant}_2d_test_validation ;;
    esac
    # A cross-section of pipelines and tiles (the first kernels of a whole pool share one).
    filter=${GCONV_SAMPLE_FILTER:-c.wave_m == 2 and c.tile_k == 64}; [ "${cfg%_direct}" != "$cfg" ] && filter=
    $bench --variant $variant --arch auto --progress none --kernel-timeout 10 --warmup 1 --repeat 2 --batch-size 400 \
      --max-kernels $n --filter "$filter" --config configs/$cfg.json --problems $set --output "$1/verify_$cfg.csv" 2>&1 | tail -1
  done
  python3 bench/report.py "$1"/verify_*.csv
}

class_problems() {
  if [ "${GCONV_CLASS_PROBLEMS:-baseline}" = test_validation ]; then
    echo "problems/$1_test_validation.json"
  else
    echo "bench/baselines/baseline_$1.json"
  fi
}

# Every shipped pool of the set's direction (direction_pools, the list the holdout times) on its
# shapes, a 3D-only pool left out of 2D sets (a 2D kernel also runs the 3D problems that are 2D
# problems, so 3D sets take every pool).
classes() {
  local set v d cfg
  for set in ${GCONV_CLASSES:-forward_2d forward_3d bwd_data_2d bwd_data_3d bwd_weight_2d bwd_weight_3d}; do
    v=${set%_*}; d=${set##*_}
    for cfg in $(direction_pools "$v"); do
      [ -f configs/$cfg.json ] || continue
      [[ $cfg =~ ${GCONV_CLASS_POOLS:-.} ]] || continue
      [ "$d" = 2d ] && ! pool_has_ndim "configs/$cfg.json" 2 && continue
      $bench --variant $v --arch auto --progress none --kernel-timeout 10 --warmup 3 --repeat 20 --batch-size 100 \
        --baseline cudnn --config configs/$cfg.json --problems-file "$(class_problems $set)" \
        --output "$1/base_${set}_$cfg.csv" 2>&1 | tail -1
    done
  done
}

# The class report over whatever classes finished (run after its limit, so a stopped part still
# reports the pools that ran).
classes_report() {
  ls "$1"/base_*.csv > /dev/null 2>&1 || { echo "classes: no runs"; return 1; }
  python3 bench/report.py --classes --shapes --markdown "$1"/base_*.csv | tee "$1/classes.md"
  python3 bench/report.py --best "$1"/base_*.csv > "$1/best.md"
}

ksplit() {
  local set v d cfg ship
  for set in ${GCONV_KSPLIT_SETS:-forward_3d bwd_data_3d forward_2d bwd_data_2d}; do
    v=${set%_*}; d=${set##*_}
    ship=configs/${v}$([ $v = forward ] && echo _bf16)$([ $d = 3d ] && echo _3d)_direct_mma.json
    class_shapes "bench/baselines/baseline_$set.json" grouped "$1/grouped_$set.json"
    for cfg in bench/configs/${v}_${d}_direct_mma_ksplit_explore.json $ship; do
      $bench --variant $v --arch auto --progress none --kernel-timeout 10 --warmup 3 --repeat 20 --batch-size 100 \
        --baseline cudnn --config $cfg --problems-file "$1/grouped_$set.json" \
        --output "$1/ks_${set}_$(basename $cfg .json).csv" 2>&1 | tail -1
    done
  done
  python3 bench/report.py --classes --shapes --markdown "$1"/ks_*.csv | tee "$1/classes.md"
  python3 bench/report.py --best "$1"/ks_*.csv > "$1/best.md"
}

tc_ship() {
  local d desc
  for d in $tc_dirs; do
    desc=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['description'])" configs/${d}_direct_tc.json)
    python3 bench/pool_from_runs.py --base bench/configs/${d}_direct_tc_explore.json --within 3 \
      --against /tmp/staged-out/base_${d}_other.csv --description "$desc" \
      -o configs/${d}_direct_tc.json /tmp/staged-out/base_${d}_staged.csv | tail -3
    cp configs/${d}_direct_tc.json "$1/"
  done
}

wsplit() {
  class_shapes bench/baselines/baseline_bwd_weight_2d.json grouped "$1/grouped_bwd_weight_2d.json"
  $bench --variant bwd_weight --arch auto --progress none --kernel-timeout 10 --warmup 3 --repeat 20 --batch-size 100 \
    --baseline cudnn --config bench/configs/bwd_weight_2d_splitk_explore.json \
    --problems-file "$1/grouped_bwd_weight_2d.json" --output "$1/wsplit.csv" 2>&1 | tail -1
  python3 bench/report.py --classes --shapes --markdown "$1"/wsplit.csv | tee "$1/classes.md"
  python3 bench/report.py --best "$1"/wsplit.csv > "$1/best.md"
}
fsplit() {
  local pool set=${GCONV_FSPLIT_SET:-bench/baselines/dense_2d_probe.json}
  # forward_splitk_explore holds bf16 and fp32 kernels: one run per type.
  for pool in forward_wgmma_splitk:bf16 forward_splitk:bf16 forward_splitk:fp32; do
    $bench --variant forward --arch auto --progress none --batch-size 400 --warmup 1 --repeat 2 \
      --config "bench/configs/${pool%:*}_explore.json" --filter "c.dtype == '${pool#*:}'" \
      --problems forward_2d_test_validation,forward_3d_test_validation --output "$1/verify_${pool/:/_}.csv" 2>&1 | tail -1
  done
  python3 bench/report.py "$1"/verify_*.csv | tail -4
  for pool in bench/configs/forward_wgmma_splitk_explore.json bench/configs/forward_splitk_explore.json \
      configs/forward_bf16_wgmma.json configs/forward_bf16_persistent_cshuffle_wgmma.json; do
    $bench --variant forward --arch auto --progress none --kernel-timeout 10 --warmup 3 --repeat 20 \
      --batch-size 100 --baseline cudnn --config "$pool" --filter "c.dtype == 'bf16'" --problems-file "$set" \
      --output "$1/dense_$(basename "$pool" .json).csv" 2>&1 | tail -1
  done
  python3 bench/report.py --best "$1"/dense_*.csv | tee "$1/best.md"
}

# pools_with_cudnn DIR PREFIX SET [gconv-bench args...] -- CONFIG...: each forward pool timed with
# cuDNN on the problem file SET into DIR/PREFIX_<config>.csv, then the per-shape best (DIR/best.md)
# and the winners for the holdout's seed (DIR/winners.txt, bench/shortlist.py winners).
pools_with_cudnn() {
  local dir=$1 prefix=$2 set=$3 pool args=()
  shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  for pool in "$@"; do
    $bench --variant forward --arch auto --progress none --kernel-timeout 10 --warmup 3 --repeat 20 \
      --batch-size 100 --baseline cudnn "${args[@]}" --config "$pool" --problems-file "$set" \
      --output "$dir/${prefix}_$(basename "$pool" .json).csv" 2>&1 | tail -1
  done
  python3 bench/report.py --best "$dir/$prefix"_*.csv | tee "$dir/best.md"
  python3 bench/shortlist.py winners -o "$dir/winners.txt" "$dir/$prefix"_*.csv
}

# The narrow-vector exploration pool (bench/configs/forward_narrow_explore.json, A and B vectors
# equal) verified on the forward test_validation sets, then timed with cuDNN beside the shipped
# narrow pool on GCONV_NARROW_SET (default bench/baselines/narrow_probe.json: the holdout's shapes
# whose C/G or K/G refuses or wastes 8-element vectors), the per-shape best and winners.txt.
narrow() {
  local set=${GCONV_NARROW_SET:-bench/baselines/narrow_probe.json}
  local pool
  for pool in forward_narrow_explore forward_cpad_explore; do
    $bench --variant forward --arch auto --progress none --batch-size 400 --warmup 1 --repeat 2 \
      --config bench/configs/$pool.json \
      --problems forward_2d_test_validation,forward_3d_test_validation --output "$1/verify_$pool.csv" 2>&1 | tail -1
  done
  python3 bench/report.py "$1"/verify_*.csv | tail -5
  pools_with_cudnn "$1" narrow "$set" -- bench/configs/forward_narrow_explore.json \
    bench/configs/forward_cpad_explore.json configs/forward_bf16_narrow.json
}

# The depthwise exploration pool (bench/configs/forward_direct_explore.json: 8- to 64-channel
# tiles) beside the shipped direct pools with cuDNN on GCONV_DWX_SET (default
# bench/baselines/dw_tail_probe.json: the holdout's depthwise shapes that trail cuDNN), the
# per-shape best and winners.txt.
dwx() {
  pools_with_cudnn "$1" dw "${GCONV_DWX_SET:-bench/baselines/dw_tail_probe.json}" -- \
    bench/configs/forward_direct_explore.json bench/configs/forward_staged_n8_explore.json configs/forward_direct.json \
    configs/forward_direct_staged.json configs/forward_direct_tc.json
}

dws2() {
  local pool
  for pool in bench/configs/forward_direct_staged_s2_explore.json configs/forward_direct_staged.json; do
    $bench --variant forward --arch auto --progress none --batch-size 400 --warmup 1 --repeat 2 \
      --config "$pool" --problems-file tests/emu/depthwise_stride2.json \
      --problems-file scripts/device/depthwise_stride2_problems.json \
      --output "$1/verify_$(basename "$pool" .json).csv" 2>&1 | tail -1
  done
  python3 bench/report.py "$1"/verify_*.csv | tail -4
  pools_with_cudnn "$1" dws2 "${GCONV_DWS2_SET:-bench/baselines/dw_s2_probe.json}" -- \
    bench/configs/forward_direct_staged_s2_explore.json configs/forward_direct_staged.json \
    configs/forward_direct.json configs/forward_direct_tc.json bench/configs/forward_direct_explore.json
}

# The GEMM tiles whose N is not a power of two (bench/configs/forward_n48_explore.json) verified,
# then timed with cuDNN on GCONV_N48_SET, the per-shape best and winners.txt.
# verify_2d DIR CONFIG: a forward 2D exploration config verified on forward_2d_test_validation.
verify_2d() {
  $bench --variant forward --arch auto --progress none --batch-size 400 --warmup 1 --repeat 2 \
    --config "$2" --problems forward_2d_test_validation \
    --output "$1/verify_$(basename "$2" .json).csv" 2>&1 | tail -1
  python3 bench/report.py "$1"/verify_*.csv | tail -3
}

n48() {
  verify_2d "$1" bench/configs/forward_n48_explore.json
  pools_with_cudnn "$1" n48 "${GCONV_N48_SET:-bench/baselines/n48_probe.json}" -- \
    bench/configs/forward_n48_explore.json
}

# explore_wgmma DIR PREFIX SET CONFIG... [-- POOL...]: forward wgmma exploration configs, each
# verified on forward_{2d,3d}_test_validation and scripts/device/wgmma_problems.json, then timed
# with cuDNN beside the POOLs on SET, the per-shape best and winners.txt.
explore_wgmma() {
  local dir=$1 prefix=$2 set=$3 config configs=()
  shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do configs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  for config in "${configs[@]}"; do
    local verify=($bench --variant forward --arch auto --progress none --batch-size 400 --warmup 1
      --repeat 2 --kernel-timeout 20 --config "$config") name
    name=$(basename "$config" .json)
    "${verify[@]}" --problems forward_2d_test_validation,forward_3d_test_validation \
      --output "$dir/verify_${name}_test_validation.csv" 2>&1 | tail -1
    "${verify[@]}" --problems-file scripts/device/wgmma_problems.json \
      --output "$dir/verify_${name}_wgmma_problems.csv" 2>&1 | tail -1
  done
  python3 bench/report.py "$dir"/verify_*.csv | tail -6
  pools_with_cudnn "$dir" "$prefix" "$set" -- "${configs[@]}" "$@"
}
# The persistent wgmma kernels alone and in clusters of two (bench/configs/forward_cluster_explore.json)
# verified, then timed with cuDNN on GCONV_CLUSTER_SET, the per-shape best and winners.txt.
cluster() {
  explore_wgmma "$1" cluster "${GCONV_CLUSTER_SET:-bench/baselines/compute_tail_probe.json}" \
    bench/configs/forward_cluster_explore.json
}
# The shipped pools the two-consumer explorations would add to or replace (paths without spaces,
# a string so that the parts' `bash -c` inherits it).
export wgmma_shipped="configs/forward_bf16_cluster_wgmma.json configs/forward_bf16_three_consumer_wgmma.json
  configs/forward_bf16_persistent_cshuffle_wgmma.json"
# The two-consumer tiles of 160 and 192 accumulators beside the pools they would replace.
wide_acc() {
  explore_wgmma "$1" wide "${GCONV_WIDE_ACC_SET:-bench/baselines/n48_probe.json}" \
    bench/configs/forward_wgmma_wide_acc_explore.json -- $wgmma_shipped
}
# The N-split tiles (two consumer warpgroups side by side in N: 192-row tiles, 8-step N) with
# the wide-accumulator tiles beside the same pools.
nsplit() {
  explore_wgmma "$1" nsplit "${GCONV_NSPLIT_SET:-bench/baselines/n48_probe.json}" \
    bench/configs/forward_wgmma_nsplit_explore.json bench/configs/forward_wgmma_wide_acc_explore.json \
    -- $wgmma_shipped
}

# The tiles with the output pixels on the instruction's N side (pixels_on_n: pixel edges in 8s)
# verified, then timed with cuDNN beside the main and N-split pools and the shipped two-consumer
# pools on GCONV_PIXELS_SET (default the dense holdout shapes furthest behind cuDNN).
# GCONV_PIXELS_POOL names another exploration pool (bench/configs/forward_wgmma_pn_fit_explore.json:
# the pixel edges the first left out), timed beside the shipped pixels_on_n pool too.
pixels() {
  local pool=${GCONV_PIXELS_POOL:-bench/configs/forward_wgmma_pixels_on_n_explore.json} beside=()
  [ -n "${GCONV_PIXELS_POOL:-}" ] && beside=(configs/forward_bf16_pixels_on_n_wgmma.json)
  explore_wgmma "$1" pixels "${GCONV_PIXELS_SET:-bench/baselines/dense_worst_probe.json}" \
    "$pool" -- "${beside[@]}" configs/forward_bf16_wgmma.json \
    configs/forward_bf16_nsplit_wgmma.json $wgmma_shipped
}
# The tiles in clusters along K (cluster_k: partial tiles summed in distributed shared memory)
# beside the main and pixels_on_n pools, the best on most of these shapes (session 33). Not yet
# run on a GPU: a smoke run of two kernels first, which stops the part unless a cell verifies
# (a cluster barrier that never completes would cost the kernel timeout on every batch).
ck() {
  timeout 60 $bench --variant forward --arch auto --progress none --kernel-timeout 8 --warmup 1 \
    --repeat 2 --config bench/configs/forward_wgmma_cluster_k_explore.json \
    --problems forward_2d_test_validation --output "$1/smoke.csv" \
    --filter "c.ndim_spatial == 2 and c.tile_m == 128 and c.tile_n == 64 and c.cluster_k in [2, 4]" \
    2>&1 | tail -1
  grep -q ",ok," "$1/smoke.csv" 2>/dev/null ||
    { echo "ck: no verified cell in the smoke run ($1/smoke.csv): stopped"; return 1; }
  explore_wgmma "$1" ck "${GCONV_CK_SET:-bench/baselines/dense_worst_probe.json}" \
    bench/configs/forward_wgmma_cluster_k_explore.json -- configs/forward_bf16_wgmma.json \
    configs/forward_bf16_pixels_on_n_wgmma.json
}
# The wgmma tiles that store 1 or 2 outputs per access, on the dense shapes whose K/G is not a
# multiple of 8 (the shipped wgmma pools store 16-byte vectors and leave them to mma.sync).
oddk() {
  explore_wgmma "$1" oddk "${GCONV_ODDK_SET:-bench/baselines/odd_k_probe.json}" \
    bench/configs/forward_wgmma_narrow_c_explore.json
}

# The tile_k 32 wgmma tiles the shipped pool lacks, on the C/G 32 3x3 shapes (xception.conv2.b48,
# dense 2D's worst in session 34, among them).
k32x() {
  explore_wgmma "$1" k32x "${GCONV_K32X_SET:-bench/baselines/half_slices_probe.json}" \
    bench/configs/forward_wgmma_k32_explore.json -- configs/forward_bf16_k32_wgmma.json
}

s2x() {
  verify_2d "$1" bench/configs/forward_direct_mma_s2_explore.json
  pools_with_cudnn "$1" s2x "${GCONV_S2X_SET:-bench/baselines/s2_grouped_probe.json}" -- \
    bench/configs/forward_direct_mma_s2_explore.json configs/forward_bf16_direct_mma.json
}

# Every forward bf16 wgmma pool, unfiltered, with cuDNN on a problem file (GCONV_WGMMA_ALL_SET,
# default the compute-bound dense shapes that trail cuDNN): what the holdout's shortlist cannot
# say (a kernel that won no probe never runs there), then the per-shape best and the winners
# file for the holdout's seed (bench/shortlist.py winners).
wgmma_all() {
  local pool pools=()
  for pool in forward_bf16_wgmma forward_bf16_persistent_wgmma forward_bf16_persistent_cshuffle_wgmma \
      forward_bf16_pingpong_wgmma forward_bf16_k32_wgmma forward_bf16_3d_splitk_wgmma; do
    pools+=("configs/$pool.json")
  done
  pools_with_cudnn "$1" all "${GCONV_WGMMA_ALL_SET:-bench/baselines/compute_tail_probe.json}" -- "${pools[@]}"
}

# The direct_wgmma exploration pool verified on its own shapes (none of forward_2d_test_validation
# is dense with C 16-64), then timed with cuDNN beside the holdout's winners of every forward pool
# (bench/baselines/validation_holdout_winners.txt) on the dense small-C shapes it is built for.
dwg() {
  local set=${GCONV_DWG_SET:-bench/baselines/dense_small_c_probe.json} pool baseline=(--baseline cudnn)
  $bench --variant forward --arch auto --progress none --batch-size 400 --warmup 1 --repeat 2 \
    --kernel-timeout 20 --config bench/configs/forward_direct_wgmma_explore.json \
    --problems-file scripts/device/direct_wgmma_problems.json \
    --output "$1/verify_direct_wgmma.csv" 2>&1 | tail -1
  python3 bench/report.py "$1"/verify_*.csv | tail -3
  python3 bench/shortlist.py filter -o "$1/winners_filter.txt" \
    bench/baselines/validation_holdout_winners.txt || return 1
  for pool in $(direction_pools forward); do
    $bench --variant forward --arch auto --progress none --kernel-timeout 10 --warmup 3 --repeat 20 \
      --batch-size 100 "${baseline[@]}" --config "configs/$pool.json" --problems-file "$set" \
      --filter-file "$1/winners_filter.txt" --output "$1/dwg_$pool.csv" 2>&1 | tail -1
    baseline=()
  done
  pools_with_cudnn "$1" dwg "$set" -- bench/configs/forward_direct_wgmma_explore.json
}

# The staged-band wgmma prototype beside the pool's best and cuDNN on the shapes it is built for.
proto() {
  local nvcc args
  nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | head -1)
  [ -n "$nvcc" ] || { echo "proto: no nvcc"; return 1; }
  "$nvcc" -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a bench/proto/halo_wgmma.cu \
    -o "$1/halo_wgmma" || return 1
  for args in "48 165 165 0 50" "12 165 165 0 50"; do "$1/halo_wgmma" $args; done | tee "$1/proto.txt"
  layer_problems problems/validation_holdout.json xception.conv2.b48,xception.conv2.b12 \
    /tmp/proto_shapes.json || return 1
  pools_with_cudnn "$1" proto /tmp/proto_shapes.json -- configs/forward_bf16_k32_wgmma.json \
    configs/forward_bf16_k32_pn_wgmma.json
  rm -f "$1/halo_wgmma"
}

# The timing of launches with a slow host side, both ways in one call: the kernels that won a
# holdout shape (bench/baselines/validation_holdout_winners.txt) and cuDNN on GCONV_HOLD_SET
# (default the holdout's small-cuDNN shapes), as they come (--launch-hold off) and held (the
# worker's stream hold, the default), then per shape cuDNN's and the best kernel's held / free
# time.
hold_compare() {
  local mode pool set=${GCONV_HOLD_SET:-bench/baselines/small_cudnn_probe.json}
  python3 bench/shortlist.py filter -o "$1/winners_filter.txt" \
    bench/baselines/validation_holdout_winners.txt || return 1
  local baseline
  for mode in free held; do
    baseline=(--baseline cudnn) # cuDNN once per mode: in the first pool's run, on every shape
    for pool in $(direction_pools forward); do
      $bench --variant forward --arch auto --progress none --kernel-timeout 10 --warmup 3 --repeat 20 \
        --launch-hold $([ $mode = held ] && echo on || echo off) --batch-size 100 "${baseline[@]}" --config "configs/$pool.json" --problems-file "$set" \
        --filter-file "$1/winners_filter.txt" --output "$1/${mode}_$pool.csv" 2>&1 | tail -1
      baseline=()
    done
  done
  python3 - "$1" <<'PY'
import csv, glob, math, sys
def load(mode):
    cudnn, best = {}, {}
    for f in glob.glob("%s/%s_*.csv" % (sys.argv[1], mode)):
        for r in csv.DictReader(open(f)):
            k = r["layer"]
            if r.get("baseline_ms"):
                cudnn[k] = min(cudnn.get(k, 1e9), float(r["baseline_ms"]))
            if r["status"] == "ok":
                best[k] = min(best.get(k, 1e9), float(r["latency_ms"]))
    return cudnn, best
(cf, bf), (ch, bh) = load("free"), load("held")
def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
both = sorted(k for k in cf if k in ch and k in bf and k in bh)
print("shapes: %d; held / free: cuDNN %.3fx, best kernel %.3fx; speedup free %.3fx, held %.3fx" % (
    len(both), geo([ch[k] / cf[k] for k in both]), geo([bh[k] / bf[k] for k in both]),
    geo([cf[k] / bf[k] for k in both]), geo([ch[k] / bh[k] for k in both])))
print("| shape | cuDNN free | cuDNN held | best free | best held |")
print("|---|---|---|---|---|")
for k in sorted(both, key=lambda k: ch[k] / cf[k])[:12]:
    print("| %s | %.4f | %.4f | %.4f | %.4f |" % (k, cf[k], ch[k], bf[k], bh[k]))
PY
}

for part in "${parts[@]}"; do
  t=$(date +%s)
  mkdir -p "$out/$part"
  echo "== $part"
  case $part in
    overhead) OUT="$out/$part" GCONV_SKIP_FRESH=1 timeout "$(limit $part 120)" scripts/device/sweep_overhead.sh ;;
    wgmma) OUT="$out/$part" timeout "$(limit $part 150)" scripts/device/verify_wgmma.sh ;;
    wgmma_bwd_data|wgmma_bwd_weight)
      OUT="$out/$part" GCONV_VARIANT=${part#wgmma_} timeout "$(limit $part 200)" scripts/device/verify_wgmma.sh ;;
    sample) export -f sample; export bench; timeout "$(limit $part 150)" bash -c "sample '$out/$part'" ;;
    fsplit) export -f fsplit; export bench; timeout "$(limit $part 200)" bash -c "fsplit '$out/$part'" ;;
    dwx) export -f dwx pools_with_cudnn; export bench; timeout "$(limit $part 200)" bash -c "dwx '$out/$part'" ;;
    dws2) export -f dws2 pools_with_cudnn; export bench; timeout "$(limit $part 300)" bash -c "dws2 '$out/$part'" ;;
    narrow) export -f narrow pools_with_cudnn; export bench; timeout "$(limit $part 240)" bash -c "narrow '$out/$part'" ;;
    n48) export -f n48 verify_2d pools_with_cudnn; export bench; timeout "$(limit $part 240)" bash -c "n48 '$out/$part'" ;;
    cluster) export -f cluster explore_wgmma pools_with_cudnn; export bench; timeout "$(limit $part 300)" bash -c "cluster '$out/$part'" ;;
    wide_acc) export -f wide_acc explore_wgmma pools_with_cudnn; export bench; timeout "$(limit $part 300)" bash -c "wide_acc '$out/$part'" ;;
    nsplit) export -f nsplit explore_wgmma pools_with_cudnn; export bench; timeout "$(limit $part 400)" bash -c "nsplit '$out/$part'" ;;
    pixels) export -f pixels explore_wgmma pools_with_cudnn; export bench; timeout "$(limit $part 450)" bash -c "pixels '$out/$part'" ;;
    oddk) export -f oddk explore_wgmma pools_with_cudnn; export bench; timeout "$(limit $part 200)" bash -c "oddk '$out/$part'" ;;
    k32x) export -f k32x explore_wgmma pools_with_cudnn; export bench; timeout "$(limit $part 300)" bash -c "k32x '$out/$part'" ;;
    s2x) export -f s2x verify_2d pools_with_cudnn; export bench; timeout "$(limit $part 300)" bash -c "s2x '$out/$part'" ;;
    ck) export -f ck explore_wgmma pools_with_cudnn; export bench; timeout "$(limit $part 400)" bash -c "ck '$out/$part'" ;;
    wgmma_all) export -f wgmma_all pools_with_cudnn; export bench; timeout "$(limit $part 240)" bash -c "wgmma_all '$out/$part'" ;;
    dwg) export -f dwg pools_with_cudnn direction_pools; export bench; timeout "$(limit $part 420)" bash -c "dwg '$out/$part'" ;;
    proto) export -f proto pools_with_cudnn layer_problems; export bench; timeout "$(limit $part 200)" bash -c "proto '$out/$part'" ;;
    hold) export -f hold_compare direction_pools; export bench; timeout "$(limit $part 300)" bash -c "hold_compare '$out/$part'" ;;
    classes) export -f classes class_problems direction_pools pool_has_ndim; export bench
      timeout "$(limit $part 240)" bash -c "classes '$out/$part'"; classes_report "$out/$part" ;;
    mma_verify)
      for d in 2d 3d; do for v in forward bwd_data bwd_weight; do
        OUT="$out/$part" GCONV_VERIFY_ONLY=1 GCONV_DIMS=$d GCONV_VARIANT=$v \
          timeout "$(limit $part 120)" scripts/device/verify_direct_mma.sh 2>&1 | grep -E "cells|max_rel|exit"
      done; done ;;
    tc)
      OUT="$out/$part" GCONV_DIRS="$tc_dirs" GCONV_MATCH='_direct_intrawave_.*_wt16x8x16_' \
        GCONV_LABEL=tc GCONV_EXTRA_PROBLEMS="$(for d in $tc_dirs; do
          printf '%s=scripts/device/depthwise_stride2_problems.json ' $d; done)" \
        GCONV_STAGED_POOLS="$(for d in $tc_dirs; do
          printf '%s=bench/configs/%s_direct_tc_explore.json ' $d $d; done)" \
        timeout "$(limit $part 420)" scripts/device/verify_staged.sh ;;
    tc_ship) tc_ship "$out/$part" ;;
    wsplit) export -f wsplit class_shapes; export bench; timeout "$(limit $part 150)" bash -c "wsplit '$out/$part'" ;;
    ksplit) export -f ksplit class_shapes; export bench; timeout "$(limit $part 300)" bash -c "ksplit '$out/$part'" ;;
    direct) OUT="$out/$part" timeout "$(limit $part 300)" scripts/device/verify_direct.sh ;;
    compile) timeout "$(limit $part 120)" python3 bench/compile_time.py --bench $bench --kernels 100000 \
               --workers "$(nproc)" --arch sm_90a ${GCONV_COMPILE_CONFIGS:-configs/forward_bf16.json configs/bwd_data.json configs/bwd_weight.json} ;;
    holdout) OUT="$out/$part" GCONV_BENCH=$bench timeout "$(limit $part 540)" scripts/device/holdout.sh ;;
    gpu_tests) OUT="$out/$part" timeout "$(limit $part 200)" scripts/device/gpu_tests.sh ;;
    *) echo "check_all.sh: unknown part '$part'" >&2; exit 2 ;;
  esac
  echo "== $part: rc $?, $(( $(date +%s) - t )) s"
done
echo "total: $(( $(date +%s) - t0 )) s"
# A device call brings back at most 8 files: every part's output goes into one archive.
# A part stopped at its limit can leave its benchmark running: stop it first; a file that
# changed while tar read it (exit 1) still leaves a usable archive.
if [ -n "${OUT:-}" ]; then
  pkill -x gconv-bench 2>/dev/null; pkill -x gconv-worker 2>/dev/null; sleep 1
  tar -czf /tmp/check_all.tgz -C "$out" .; [ $? -le 1 ] && rm -rf "${out:?}"/* && mv /tmp/check_all.tgz "$out/"
fi
