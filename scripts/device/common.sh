# Sourced by the scripts/device/*.sh device calls: from the repository root, with $out (the
# call's $OUT, else /tmp/gconv-out) made, $bench the device build's gconv-bench and the kernel
# cache shared by the calls of one machine.
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo" || exit 1
out=${OUT:-/tmp/gconv-out}
mkdir -p "$out"
bench=build/device/app/gconv-bench
export GCONV_CACHE_DIR=/tmp/gconv-cache

# build_tools LOG TARGET...: scripts/device/build.sh into build/device, its output in LOG; prints
# the build time, or the log's tail and exits when the build fails.
build_tools() {
  local log=$1 t0
  shift
  t0=$(date +%s)
  scripts/device/build.sh "$@" > "$log" 2>&1 || { tail -40 "$log"; exit 1; }
  echo "build: $(( $(date +%s) - t0 )) s"
}

# direction_pools DIRECTION: every shipped bf16 pool of a direction (configs/<name>.json), 2D and
# 3D, the list the whole-set runs (holdout.sh, check_all's hold) time.
direction_pools() {
  case $1 in
    forward) echo "forward_bf16 forward_bf16_3d forward_bf16_narrow forward_bf16_narrow_n forward_bf16_wgmma forward_bf16_persistent_wgmma forward_bf16_persistent_cshuffle_wgmma forward_bf16_pingpong_wgmma forward_bf16_cluster_wgmma forward_bf16_wide_n_wgmma forward_bf16_three_consumer_wgmma forward_bf16_nsplit_wgmma forward_bf16_wide_acc_wgmma forward_bf16_pixels_on_n_wgmma forward_bf16_cluster_k_wgmma forward_bf16_odd_k_wgmma forward_bf16_k32_wgmma forward_bf16_k32_pn_wgmma forward_bf16_direct_wgmma forward_bf16_3d_splitk_wgmma forward_bf16_direct_mma forward_bf16_s2_direct_mma forward_bf16_3d_direct_mma forward_direct forward_direct_staged forward_direct_tc" ;;
    bwd_data) echo "bwd_data bwd_data_3d bwd_data_wgmma bwd_data_persistent_wgmma bwd_data_k32_wgmma bwd_data_direct bwd_data_direct_mma bwd_data_3d_direct_mma bwd_data_direct_staged bwd_data_direct_tc" ;;
    bwd_weight) echo "bwd_weight bwd_weight_3d bwd_weight_wgmma bwd_weight_direct bwd_weight_direct_mma bwd_weight_3d_direct_mma bwd_weight_direct_tc" ;;
    *) return 1 ;;
  esac
}

# pool_has_ndim CONFIG.json NDIM: whether the trait config's ndim_spatial (default 2) holds NDIM.
pool_has_ndim() {
  python3 -c 'import json, sys
v = json.load(open(sys.argv[1])).get("trait_config", {}).get("ndim_spatial", {}).get("values", [2])
sys.exit(0 if int(sys.argv[2]) in v else 1)' "$1" "$2"
}

# class_shapes SET.json dw|grouped OUT.json: the set's depthwise shapes, or its grouped shapes with
# C/G <= 32 (not depthwise).
class_shapes() {
  python3 - "$@" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
dw = lambda p: p["C"] == p["G"] and p["K"] == p["G"]
grouped = lambda p: 1 < p["G"] < p["C"] and p["C"] // p["G"] <= 32
b["problems"] = [p for p in b["problems"] if (dw if sys.argv[2] == "dw" else grouped)(p)]
json.dump(b, open(sys.argv[3], "w"))
PY
}

# layer_problems SET LAYER[,LAYER...] OUT.json: the problems of those layers from SET (a baseline
# set's key, bench/baselines/<key>.json, or any problem file such as
# problems/validation_holdout.json) as a problem file of their own, for a profile of one shape or
# a run on a few; fails when SET lacks one of them.
layer_problems() {
  python3 - "$@" <<'PY'
import json, sys
path = sys.argv[1] if sys.argv[1].endswith(".json") else f"bench/baselines/{sys.argv[1]}.json"
src = json.load(open(path))
layers = sys.argv[2].split(",")
src["problems"] = [p for p in src["problems"] if p["layer"] in layers]
src["key"] = "profile"
missing = set(layers) - {p["layer"] for p in src["problems"]}
if missing:
    sys.exit(f"no layer {', '.join(sorted(missing))} in {sys.argv[1]}")
json.dump(src, open(sys.argv[3], "w"))
PY
}
