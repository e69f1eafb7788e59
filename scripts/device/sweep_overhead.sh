#!/usr/bin/env bash
# One device call: the orchestration cost of gconv-bench on the H200. Sweeps the bf16 forward
# pool over cheap shapes (the forward 2D validation set) and over the cuDNN baseline shapes,
# with batches of 20 cells, then prints two shares of the benchmark phase's wall time: "timed"
# (the timed launches alone, capped at repeat / (warmup + repeat)) and "GPU work" (each cell's
# GPU span: verification, warm-ups and timed launches), and the overhead per cell and per batch
# (from each run's .meta.json).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build_tools "$out/build.log" gconv-bench gconv-worker
run() { # name, extra args...
  local name=$1; shift
  local t=$(date +%s.%N)
  $bench --variant forward --arch auto --progress none --config configs/forward_bf16.json "$@" --output "$out/$name.csv" 2>&1 | tail -1
  python3 - "$out/$name.csv.meta.json" "$name" "$t" <<'PY'
import json, sys, time
m = json.load(open(sys.argv[1])); b = m["benchmark"]
work = b.get("gpu_work_share")
print("%-22s cells %6d  batches %4d  wall %7.1f s  timed %5.1f%%  GPU work %s  overhead/cell %6.2f ms  /batch %7.1f ms  in-cell %6.2f ms  preloaded %s  (whole command %.1f s, build %.1f s)" % (
    sys.argv[2], b["cells"], b["batches"], b["wall_s"], 100 * b["gpu_busy_share"],
    "%5.1f%%" % (100 * work) if work is not None else "  n/a", b["overhead_per_cell_ms"],
    b["overhead_per_batch_ms"], b["in_cell_overhead_ms"], b.get("kernels_preloaded", "n/a"),
    time.time() - float(sys.argv[3]), m["build"]["wall_s"]))
PY
  host_split "$out/$name.csv"
}
# The workers' own account of their host time (docs/worker-protocol.md, "Host time split"),
# summed over the run's workers (every worker log of the CSV, one per GPU with several):
# microseconds per cell, and the orchestrator's turn-around per request. gap is the host time between one cell's wait and the next cell's first launch, which
# the overlap of preparation and GPU work cannot hide.
host_split() {
  python3 - "$1" <<'PY'
import glob, re, sys
total, workers = {}, 0
logs = sorted(glob.glob(sys.argv[1] + ".worker.log") + glob.glob(sys.argv[1] + ".gpu*.worker.log"))
lines = [line for log in logs for line in open(log, errors="replace").read().splitlines()]
for line in lines:
    if "host time split:" not in line:
        continue
    workers += 1
    for key, value in re.findall(r"(\w+)=([0-9.]+)", line.split("host time split:", 1)[1]):
        total[key] = total.get(key, 0.0) + float(value)
cells = total.get("cells", 0)
if not cells:
    print("%22s no host time split in %s.worker.log" % ("", sys.argv[1]))
    sys.exit(0)
us = lambda key: 1e3 * total.get(key, 0.0) / cells
print("%22s worker host us/cell (%d workers, %d cells): prepare %.1f (load %.1f, %d code objects)  "
      "set-up %.1f  queue %.1f  wait %.1f  report %.1f  gap %.1f  |  between requests %.2f ms/request"
      "  |  preloaded %d in %.1f ms"
      % ("", workers, cells, us("prepare_ms"), us("load_ms"), total.get("code_objects_loaded", 0),
         us("setup_ms"), us("queue_ms"), us("wait_ms"), us("report_ms"), us("gap_ms"),
         total.get("between_requests_ms", 0.0) / max(total.get("requests", 1.0) - workers, 1.0),
         total.get("preloaded", 0), total.get("preload_ms", 0.0)))
PY
}
# Side by side in one call: one worker serving every batch (the default) against a fresh
# worker and GPU context per batch (--batches-per-worker 1, the tile engine's way);
# GCONV_SKIP_FRESH=1 leaves the fresh-worker runs out.
run validation_b20 --problems forward_2d_test_validation --batch-size 20
[ -z "${GCONV_SKIP_FRESH:-}" ] && run validation_b20_fresh --problems forward_2d_test_validation --batch-size 20 --batches-per-worker 1
run baseline_2d_b20 --problems-file bench/baselines/baseline_forward_2d.json --batch-size 20 --warmup 3 --repeat 20
[ -z "${GCONV_SKIP_FRESH:-}" ] && run baseline_2d_b20_fresh --problems-file bench/baselines/baseline_forward_2d.json --batch-size 20 --warmup 3 --repeat 20 --batches-per-worker 1
# The timed share with one warm-up: its cap is repeat / (1 + repeat) = 95% instead of 87%.
run baseline_2d_b20_w1 --problems-file bench/baselines/baseline_forward_2d.json --batch-size 20 --warmup 1 --repeat 20
python3 bench/report.py "$out/validation_b20.csv" "$out/baseline_2d_b20.csv"
