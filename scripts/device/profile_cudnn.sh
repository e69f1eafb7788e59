#!/usr/bin/env bash
# Which kernels cuDNN runs on one shape, and their launch shapes: the worker times the shape's
# cuDNN baseline (--baseline cudnn, beside one kernel of CONFIG) under `ncu --target-processes
# all`, every launch whose entry is not gconv's own (cuDNN's search included) with its duration,
# grid, block, registers, shared memory and cluster; then one line per entry: launches, the
# fastest and median duration and the launch shape (the entry with the most launches is the one
# the search kept: it runs in the warm-ups and timed repeats). The raw CSV goes to
# $OUT/cudnn_<name>.csv.
# usage: scripts/device/profile_cudnn.sh NAME VARIANT LAYER [BASELINE_SET | FILE.json] [CONFIG]
#   e.g. profile_cudnn.sh regnet168 forward regnet_x_1_6gf.trunk_output.block3.block3-0.f.a.b12 \
#          problems/validation_holdout.json
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
name=$1 variant=$2 layer=$3 set=${4:-baseline_${2}_2d} config=${5:-configs/${2}_bf16.json}
[ "$variant" = forward ] || [ -n "${5:-}" ] || config=configs/$variant.json
[ -x "$bench" ] || build_tools "$out/build.log" gconv-bench gconv-worker
problems=/tmp/profile_cudnn_$name.json
layer_problems "$set" "$layer" "$problems" || exit 1
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "profile_cudnn.sh: no ncu" >&2; exit 1; }
metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread
metrics=$metrics,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static
metrics=$metrics,launch__cluster_dim_x,launch__cluster_dim_y
timeout 150 "$ncu" --target-processes all --clock-control none --kernel-name regex:'^(?!gconv_)' \
  --launch-count 400 --metrics "$metrics" --csv --page raw \
  "$bench" --variant "$variant" --arch auto --progress none --config "$config" --max-kernels 1 \
  --problems-file "$problems" --warmup 3 --repeat 5 --baseline cudnn \
  --output "/tmp/profile_cudnn_$name.csv" > "$out/cudnn_$name.csv" 2> "$out/cudnn_$name.err"
echo "ncu cudnn_$name: exit $?"
python3 - "$out/cudnn_$name.csv" <<'PY'
import collections, csv, sys
rows = list(csv.reader(line for line in open(sys.argv[1]) if line.startswith('"')))
if len(rows) < 3:
    sys.exit("profile_cudnn.sh: ncu recorded no cuDNN launch")
header, data = rows[0], [dict(zip(rows[0], r)) for r in rows[2:]]
entries = collections.OrderedDict()
for d in data:
    entries.setdefault(d["Kernel Name"][:160], []).append(d)
num = lambda s: float(s.replace(",", "") or 0)
for name, launches in entries.items():
    t = sorted(num(d["gpu__time_duration.sum"]) for d in launches)
    d = launches[-1]
    print(f"{len(launches):4d}x min {t[0] / 1e3:8.2f} us med {t[len(t) // 2] / 1e3:8.2f} us "
          f"grid {d['launch__grid_size']} block {d['launch__block_size']} "
          f"regs {d['launch__registers_per_thread']} smem {d['launch__shared_mem_per_block_dynamic']}"
          f"+{d['launch__shared_mem_per_block_static']} cluster {d['launch__cluster_dim_x']}x"
          f"{d['launch__cluster_dim_y']} {name}")
PY
