#!/usr/bin/env bash
# scripts/device/holdout.sh end to end on the fake worker: probes of a small mixed set, every
# pool on them, the shortlist as a filter, the shortlisted kernels on the whole set with the
# (fake) cuDNN timed once beside them, and a class report with a row per class of the set.
# usage: test_holdout.sh GCONV-BENCH FAKE-WORKER
set -euo pipefail
bench=$(realpath "$1") worker=$(realpath "$2")
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/set.json" <<'EOF'
{"key": "mixed", "direction": "forward", "problems": [
 {"N": 2, "C": 64, "K": 64, "G": 64, "Hi": 14, "Wi": 14, "Y": 3, "X": 3, "pad_h": 1, "pad_w": 1, "layer": "dw_a"},
 {"N": 4, "C": 96, "K": 96, "G": 96, "Hi": 28, "Wi": 28, "Y": 7, "X": 7, "pad_h": 3, "pad_w": 3, "layer": "dw_b"},
 {"N": 2, "C": 128, "K": 128, "G": 1, "Hi": 14, "Wi": 14, "Y": 1, "X": 1, "layer": "dense_a"},
 {"N": 4, "C": 256, "K": 256, "G": 1, "Hi": 14, "Wi": 14, "Y": 1, "X": 1, "layer": "dense_b"},
 {"N": 8, "C": 256, "K": 128, "G": 1, "Hi": 28, "Wi": 28, "Y": 1, "X": 1, "layer": "dense_c"}]}
EOF
OUT="$tmp/out" GCONV_BENCH="$bench" GCONV_WORKER="$worker" GCONV_ARCH=sm_90a \
  GCONV_HOLDOUT_SET="$tmp/set.json" GCONV_PROBES=2 GCONV_TOP=1 \
  GCONV_HOLDOUT_POOLS="forward_direct_tc forward_bf16_pingpong_wgmma" \
  "$src/scripts/device/holdout.sh" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
fail() { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }
# One probe per class (depthwise, dense), the median FLOPs of each, then one for the depthwise
# signature (7x7 vs 3x3) the proportional ones lack.
layers() { python3 -c "import json,sys; print(' '.join(p['layer'] for p in json.load(open(sys.argv[1]))['problems']))" "$1"; }
probes=$(layers "$tmp/out/probes.json")
[ "$probes" = "dense_b dw_b dw_a" ] || fail "probes '$probes'"
# At most one kernel per probe: two or three names (the fake worker's depthwise winner may be
# one kernel for both filters).
grep -Eq "^c.name in \['grouped_conv_forward_bf16_2d_[^']*'(, 'grouped_conv_forward_bf16_2d_[^']*'){1,2}\]$" \
  "$tmp/out/shortlist.txt" || fail "shortlist: $(cat "$tmp/out/shortlist.txt")"
# The whole set ran on the shortlist only, with the baseline beside every cell.
python3 - "$tmp/out" "$tmp/out/shortlist.txt" <<'PY' || fail "set runs"
import csv, glob, re, sys
listed = set(re.findall(r"'([^']*)'", open(sys.argv[2]).read()))
rows = [r for f in glob.glob(sys.argv[1] + "/set_*.csv") for r in csv.DictReader(open(f))]
assert rows and all(r["kernel"] in listed for r in rows), "a kernel outside the shortlist"
assert {r["layer"] for r in rows if r["status"] == "ok"} == {"dw_a", "dw_b", "dense_a", "dense_b", "dense_c"}
# cuDNN is timed once, in the first pool's run, for every problem.
timed = {f for f in glob.glob(sys.argv[1] + "/set_*.csv")
         if any(r["baseline_ms"] for r in csv.DictReader(open(f)))}
assert len(timed) == 1, "cuDNN timed in %d runs" % len(timed)
assert {r["layer"] for r in rows if r["baseline_ms"]} == {r["layer"] for r in rows}, "no cuDNN"
PY
grep -q "| forward | depthwise | 2D | 2 |" "$tmp/out/classes.md" || fail "no depthwise class row"
grep -q "| forward | dense | 2D | 3 |" "$tmp/out/classes.md" || fail "no dense class row"
grep -q "^gaps: 0 " "$tmp/log" || fail "gaps in a set the shortlist covers"

# Going on from that run (as a second device call would): the shortlist is reused, no probe
# runs again, every finished cell is kept and the report is the same.
OUT="$tmp/again" GCONV_BENCH="$bench" GCONV_WORKER="$worker" GCONV_ARCH=sm_90a \
  GCONV_HOLDOUT_SET="$tmp/set.json" GCONV_HOLDOUT_FROM="$tmp/out" \
  GCONV_HOLDOUT_POOLS="forward_direct_tc forward_bf16_pingpong_wgmma" \
  "$src/scripts/device/holdout.sh" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
grep -q "^probes: the shortlist of $tmp/out" "$tmp/log" || fail "the probes ran again"
grep -q "^probe " "$tmp/log" && fail "a probe run in the resumed run"
cmp -s "$tmp/out/shortlist.txt" "$tmp/again/shortlist.txt" || fail "another shortlist"
python3 - "$tmp/out" "$tmp/again" <<'PY' || fail "resumed set runs"
import csv, glob, os, sys
def cells(d):
    return {(os.path.basename(f), r["kernel"], r["problem_idx"]): r["latency_ms"]
            for f in glob.glob(d + "/set_*.csv") for r in csv.DictReader(open(f))
            if r["status"] == "ok"}
before, after = cells(sys.argv[1]), cells(sys.argv[2])
assert before and after == before, "resumed cells differ: %d before, %d after" % (len(before), len(after))
PY
cmp -s "$tmp/out/classes.md" "$tmp/again/classes.md" || fail "the resumed report differs"
OUT="$tmp/none" GCONV_BENCH="$bench" GCONV_WORKER="$worker" GCONV_HOLDOUT_SET="$tmp/set.json" \
  GCONV_HOLDOUT_FROM="$tmp/missing" "$src/scripts/device/holdout.sh" > "$tmp/log" 2>&1 &&
  fail "a missing GCONV_HOLDOUT_FROM folder ran"
grep -q "no folder $tmp/missing" "$tmp/log" || fail "no message for a missing folder: $(cat "$tmp/log")"

# A 3-channel stem only the narrow-vector pool takes: its shortlisted kernel is the wgmma one
# that won the dense probe, so the stem is a gap, and the gap pass runs every pool on it.
cat > "$tmp/gap.json" <<'EOF'
{"key": "gap", "direction": "forward", "problems": [
 {"N": 4, "C": 256, "K": 256, "G": 1, "Hi": 14, "Wi": 14, "Y": 1, "X": 1, "layer": "dense_b"},
 {"N": 2, "C": 3, "K": 64, "G": 1, "Hi": 32, "Wi": 32, "Y": 7, "X": 7, "stride_h": 2, "stride_w": 2, "pad_h": 3, "pad_w": 3, "layer": "stem"}]}
EOF
OUT="$tmp/gap" GCONV_BENCH="$bench" GCONV_WORKER="$worker" GCONV_ARCH=sm_90a GCONV_FAKE_SUPPORT=1 \
  GCONV_HOLDOUT_SET="$tmp/gap.json" GCONV_PROBES=1 GCONV_TOP=1 GCONV_WITHIN=0 \
  GCONV_HOLDOUT_POOLS="forward_bf16_pingpong_wgmma forward_bf16_narrow" \
  "$src/scripts/device/holdout.sh" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
grep -q "^gaps: 1 " "$tmp/log" || fail "the stem is not a gap"
python3 - "$tmp/gap" <<'PY' || fail "gap runs"
import csv, glob, sys
gap = [r for f in glob.glob(sys.argv[1] + "/gap_*.csv") for r in csv.DictReader(open(f))]
assert {r["layer"] for r in gap} == {"stem"}, "the gap pass ran other problems"
assert any(r["status"] == "ok" and "_v1x" in r["kernel"] for r in gap), "no narrow kernel ran it"
PY
grep -q "no kernel" "$tmp/gap/classes.md" && fail "the report still has a shape without a kernel"

# Earlier winners seed the shortlist (GCONV_HOLDOUT_SEED): a kernel no probe shortlisted runs on
# the whole set all the same; `none` leaves the seed out.
seed_kernel=$(python3 - "$tmp/out" <<'PY'
import csv, glob, re, sys
listed = set(re.findall(r"'([^']*)'", open(sys.argv[1] + "/shortlist.txt").read()))
ran = sorted({r["kernel"] for f in glob.glob(sys.argv[1] + "/probe_*.csv") for r in csv.DictReader(open(f))})
print(next(k for k in ran if k not in listed))
PY
) || fail "no kernel outside the first shortlist"
printf '# an earlier winner\n%s\n' "$seed_kernel" > "$tmp/seed.txt"
OUT="$tmp/seeded" GCONV_BENCH="$bench" GCONV_WORKER="$worker" GCONV_ARCH=sm_90a \
  GCONV_HOLDOUT_SET="$tmp/set.json" GCONV_PROBES=2 GCONV_TOP=1 GCONV_HOLDOUT_SEED="$tmp/seed.txt" \
  GCONV_HOLDOUT_POOLS="forward_direct_tc forward_bf16_pingpong_wgmma" \
  "$src/scripts/device/holdout.sh" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
grep -q "'$seed_kernel'" "$tmp/seeded/shortlist.txt" || fail "the seeded kernel is not shortlisted"
grep -q "1 seeded" "$tmp/log" || fail "no seed count: $(grep kernels "$tmp/log")"
OUT="$tmp/unseeded" GCONV_BENCH="$bench" GCONV_WORKER="$worker" GCONV_ARCH=sm_90a \
  GCONV_HOLDOUT_SET="$tmp/set.json" GCONV_PROBES=2 GCONV_TOP=1 GCONV_HOLDOUT_SEED=none \
  GCONV_HOLDOUT_POOLS="forward_direct_tc forward_bf16_pingpong_wgmma" \
  "$src/scripts/device/holdout.sh" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
cmp -s "$tmp/out/shortlist.txt" "$tmp/unseeded/shortlist.txt" || fail "GCONV_HOLDOUT_SEED=none changed the shortlist"

# GCONV_PROBE_POOLS: the probes run only the named pools; the seed keeps an earlier winner of
# another pool in the shortlist, and the set pass runs every pool under it.
seed_pool=$(grep -l "$seed_kernel" "$tmp/out"/probe_*.csv | head -1)
seed_pool=$(basename "$seed_pool" .csv)
seed_pool=${seed_pool#probe_}
other_pool=forward_direct_tc
[ "$seed_pool" = forward_direct_tc ] && other_pool=forward_bf16_pingpong_wgmma
OUT="$tmp/probe_pools" GCONV_BENCH="$bench" GCONV_WORKER="$worker" GCONV_ARCH=sm_90a \
  GCONV_HOLDOUT_SET="$tmp/set.json" GCONV_PROBES=2 GCONV_TOP=1 GCONV_HOLDOUT_SEED="$tmp/seed.txt" \
  GCONV_HOLDOUT_POOLS="forward_direct_tc forward_bf16_pingpong_wgmma" GCONV_PROBE_POOLS="$other_pool" \
  "$src/scripts/device/holdout.sh" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
probed=$(cd "$tmp/probe_pools" && ls probe_*.csv | tr '\n' ' ')
[ "$probed" = "probe_$other_pool.csv " ] || fail "GCONV_PROBE_POOLS=$other_pool probed: $probed"
grep -q "'$seed_kernel'" "$tmp/probe_pools/shortlist.txt" || fail "the seed left the shortlist"
[ -f "$tmp/probe_pools/set_$seed_pool.csv" ] || fail "the set pass skipped the unprobed $seed_pool"
grep -q "^$seed_kernel," "$tmp/probe_pools/set_$seed_pool.csv" ||
  fail "the seeded $seed_pool kernel did not run on the set"
echo "holdout.sh: probes, probe pools, shortlist, seeds, set runs, gaps and class report as expected"
