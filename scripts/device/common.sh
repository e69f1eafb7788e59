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
