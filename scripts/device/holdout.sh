#!/usr/bin/env bash
# Best of the shipped pools against cuDNN over a large problem set (issue 7's report over
# validation_holdout: 300 forward shapes, 221 of them dense) in two passes that fit one device
# call: every pool on a few probes spread over the set's classes (bench/shortlist.py probes), then
# only the kernels within GCONV_WITHIN percent of some probe's best (at most GCONV_TOP per probe;
# bench/shortlist.py kernels) on the whole set with cuDNN timed beside them (in the runs until
# every shape has it: bench/report.py takes it from any row, and on 300 shapes each timing of it
# cost a pool's run minutes), and the class report over that second pass (a lower bound of best of
# every pool: a kernel that won no probe is not run). Every cell is verified; the runs, the
# probes and the shortlist stay under $OUT. The set's largest shapes (2 TFLOP) take longer than
# the probes' cells: GCONV_SET_TIMEOUT (default 30 s) is the second pass's --kernel-timeout. A
# third pass runs every pool, unfiltered, on the shapes no shortlisted kernel ran (the gaps).
# The probes take one per depthwise or grouped kernel signature besides the proportional ones
# (bench/shortlist.py --per-signature; GCONV_PER_SIGNATURE=0 leaves it out). A run that did not
# finish in one call goes on in the next: GCONV_HOLDOUT_FROM names the folder of the earlier
# run's files, whose finished cells are kept (--resume) and whose shortlist is reused. The
# shortlist also takes every kernel that won a shape of the set in earlier runs
# (GCONV_HOLDOUT_SEED, default bench/baselines/<set>_winners.txt where it exists, `none` for
# none; bench/shortlist.py winners writes it), so that the probes' near-ties do not move it.
# GCONV_PROBE_POOLS names the pools the probes run (default all of them; the set pass runs every
# pool under the shortlist): after a change to a few pools, probing only those with the seed in
# the shortlist keeps the other pools' winners at a fraction of the probes' time (every forward
# pool on 41 probes: 400 s on an H100).
# env: GCONV_HOLDOUT_SET (default problems/validation_holdout.json), GCONV_PROBES (20),
#      GCONV_WITHIN (5), GCONV_TOP (4), GCONV_HOLDOUT_FROM, GCONV_HOLDOUT_SEED, GCONV_HOLDOUT_POOLS (configs/*.json names; default every
#      pool of the set's direction), GCONV_PROBE_POOLS (some of those: the probes' pools), GCONV_BENCH + GCONV_WORKER + GCONV_ARCH (a build and worker of
#      your own instead of building build/device, for example the fake worker of the tests).
# usage (on the GPU machine, carry .deps): OUT=/tmp/o scripts/device/holdout.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
if [ -n "${GCONV_BENCH:-}" ]; then
  bench=$GCONV_BENCH
else
  build_tools "$out/build.log" gconv-bench gconv-worker
fi
set_file=${GCONV_HOLDOUT_SET:-problems/validation_holdout.json}
variant=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['direction'])" "$set_file") || exit 1
pools=$(direction_pools "$variant") ||
  { echo "holdout.sh: $set_file: unknown direction '$variant'" >&2; exit 1; }
pools=${GCONV_HOLDOUT_POOLS:-$pools}
worker=()
[ -n "${GCONV_WORKER:-}" ] && worker=(--worker "$GCONV_WORKER")
resume=()
if [ -n "${GCONV_HOLDOUT_FROM:-}" ]; then
  [ -d "$GCONV_HOLDOUT_FROM" ] || { echo "holdout.sh: GCONV_HOLDOUT_FROM: no folder $GCONV_HOLDOUT_FROM" >&2; exit 2; }
  for f in "$GCONV_HOLDOUT_FROM"/{probes.json,shortlist.txt,probe_*,set_*,gap_*}; do
    [ -f "$f" ] && cp "$f" "$out/"
  done
  resume=(--resume)
  echo "resuming from $GCONV_HOLDOUT_FROM: $(cat "$out"/*.csv 2>/dev/null | grep -c ',ok,') ok cells kept"
fi

# run LABEL CONFIG PROBLEMS [ARGS...]: one pool on a problem file into $out/LABEL_<pool>.csv; a
# pool the filter leaves empty is skipped (gconv-bench says so).
run() {
  local label=$1 cfg=$2 problems=$3 log
  shift 3
  log=$("$bench" --variant "$variant" --arch "${GCONV_ARCH:-auto}" --progress none \
    --kernel-timeout "${timeout_s:-10}" --warmup 3 --repeat 20 --batch-size 100 "${worker[@]}" \
    --config "configs/$cfg.json" --problems-file "$problems" \
    --output "$out/${label}_$cfg.csv" "${resume[@]}" "$@" 2>&1)
  local rc=$?
  if grep -q "no kernel left" <<< "$log"; then
    echo "$label $cfg: no kernel of the shortlist"
    return 1
  fi
  echo "$label $cfg: $(tail -1 <<< "$log") (exit $rc)"
}

t0=$(date +%s)
if [ -f "$out/shortlist.txt" ]; then
  echo "probes: the shortlist of $GCONV_HOLDOUT_FROM"
else
  signature=(--per-signature)
  [ "${GCONV_PER_SIGNATURE:-1}" = 0 ] && signature=()
  [ -f "$out/probes.json" ] ||
    python3 bench/shortlist.py probes "$set_file" --count "${GCONV_PROBES:-20}" "${signature[@]}" \
      -o "$out/probes.json" || exit 1
  for cfg in ${GCONV_PROBE_POOLS:-$pools}; do run probe "$cfg" "$out/probes.json" || true; done
  echo "probes: $(( $(date +%s) - t0 )) s"
  seed=${GCONV_HOLDOUT_SEED:-bench/baselines/$(basename "$set_file" .json)_winners.txt}
  seed_args=()
  [ "$seed" != none ] && [ -f "$seed" ] && seed_args=(--seed "$seed")
  python3 bench/shortlist.py kernels --within "${GCONV_WITHIN:-5}" --top "${GCONV_TOP:-4}" \
    "${seed_args[@]}" -o "$out/shortlist.txt" "$out"/probe_*.csv || exit 1
fi
t1=$(date +%s)
# uncovered: how many problems of the set no set run has timed cuDNN for yet.
uncovered() {
  python3 - "$set_file" "$out" <<'PY'
import csv, glob, json, sys
want = len(json.load(open(sys.argv[1]))["problems"])
timed = {r["problem_key"] for f in glob.glob(sys.argv[2] + "/set_*.csv")
         for r in csv.DictReader(open(f)) if r.get("baseline_ms")}
print(want - len(timed))
PY
}
baseline=(--baseline cudnn)
timeout_s=${GCONV_SET_TIMEOUT:-30}
for cfg in $pools; do
  run set "$cfg" "$set_file" --filter-file "$out/shortlist.txt" "${baseline[@]}" || continue
  [ ${#baseline[@]} -gt 0 ] && [ "$(uncovered)" = 0 ] && baseline=()
done
echo "set: $(( $(date +%s) - t1 )) s"
# The gaps: the set's problems that no shortlisted kernel ran (a 3-channel stem, odd channel
# counts, a filter only one pool's kernels take): every pool on them, unfiltered, so a shape
# has a kernel wherever some pool has one (GCONV_GAP_TIMEOUT seconds in all, default 120).
python3 - "$set_file" "$out" > "$out/gaps.json" <<'PY'
import csv, glob, json, sys
d = json.load(open(sys.argv[1]))
ran = {int(r["problem_idx"]) for f in glob.glob(sys.argv[2] + "/set_*.csv")
       for r in csv.DictReader(open(f)) if r["status"] == "ok"}
d["problems"] = [p for i, p in enumerate(d["problems"]) if i not in ran]
json.dump(d, sys.stdout)
PY
gaps=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['problems']))" "$out/gaps.json")
echo "gaps: $gaps problems no shortlisted kernel ran"
if [ "$gaps" -gt 0 ]; then
  t2=$(date +%s)
  for cfg in $pools; do
    [ $(( $(date +%s) - t2 )) -ge "${GCONV_GAP_TIMEOUT:-120}" ] && { echo "gap: out of time before $cfg"; break; }
    run gap "$cfg" "$out/gaps.json" --baseline cudnn || true
  done
  echo "gap: $(( $(date +%s) - t2 )) s"
fi
runs=("$out"/set_*.csv)
compgen -G "$out/gap_*.csv" > /dev/null && runs+=("$out"/gap_*.csv)
python3 bench/report.py --classes --shapes --markdown "${runs[@]}" | tee "$out/classes.md"
python3 bench/report.py --best "${runs[@]}" > "$out/best.md"
