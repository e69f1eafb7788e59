#!/usr/bin/env bash
# scripts/slurm/submit.sh against a real single-node Slurm: starts slurmctld and slurmd on
# localhost (ports of their own, a private slurm.conf in a temporary directory, no munge),
# submits a sharded sweep of gconv-bench with the fake worker as a job array of 3 shards plus
# the dependent merge, waits for both, checks the merged CSV against the shards and tears
# everything down. Exits 77 (CTest: skipped) only when the Slurm programs are not installed.
#
#   test_slurm_sweep.sh GCONV_BENCH FAKE_WORKER
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 GCONV_BENCH FAKE_WORKER" >&2; exit 2; }
export PATH="$PATH:/usr/sbin:/sbin"
for tool in slurmctld slurmd sbatch squeue sinfo scancel; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool is not installed (Debian: apt-get install slurm-wlm)"
        exit 77
    fi
done
bench="$(realpath "$1")" fake="$(realpath "$2")"
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/gconv-slurm.XXXXXX")"
ctld_pid="" slurmd_pid="" passed=0
cleanup() {
    if [[ -n "$ctld_pid" ]]; then scancel --full --quiet --user "$(id -un)" 2>/dev/null || true; fi
    for pid in $slurmd_pid $ctld_pid; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in $slurmd_pid $ctld_pid; do
        wait "$pid" 2>/dev/null || true
    done
    if [[ "$passed" != 1 ]]; then
        for log in "$work"/slurmctld.log "$work"/slurmd.log "$work"/out/*.log; do
            [[ -f "$log" ]] && { echo "== $log"; tail -n 40 "$log"; }
        done
    fi
    rm -rf "$work"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Two free ports on the loopback interface.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')

user="$(id -un)"
mkdir -p "$work/state" "$work/spool" "$work/out"
# Two stand-in GPU files: the node offers gres gpu:2, as the sbatch script asks for gpu:1.
touch "$work/gpu0" "$work/gpu1"
cat >"$work/slurm.conf" <<EOF
ClusterName=gconvtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
echo "NodeName=localhost Name=gpu File=$work/gpu[0-1]" >"$work/gres.conf"
export SLURM_CONF="$work/slurm.conf"
# Nothing of an outer Slurm job may leak into this cluster's commands.
while read -r name; do unset "$name"; done < <(env | sed -n 's/^\(SLURM_[A-Z_]*\)=.*/\1/p' | grep -v '^SLURM_CONF$')

slurmctld -D >"$work/slurmctld.out" 2>&1 &
ctld_pid=$!
slurmd -D -N localhost >"$work/slurmd.out" 2>&1 &
slurmd_pid=$!

for ((i = 0; i < 300; ++i)); do
    state="$(sinfo -h -n localhost -o %t 2>/dev/null || true)"
    [[ "$state" == "idle" ]] && break
    kill -0 "$ctld_pid" 2>/dev/null || fail "slurmctld exited: $(tail -n 5 "$work/slurmctld.out")"
    kill -0 "$slurmd_pid" 2>/dev/null || fail "slurmd exited: $(tail -n 5 "$work/slurmd.out")"
    sleep 0.1
done
[[ "$state" == "idle" ]] || fail "the node did not become idle (state '$state')"

out="$work/out"
# A filter with blanks and quotes: it must reach every shard's gconv-bench as one argument.
submitted="$("$source_dir/scripts/slurm/submit.sh" -n 3 -o "$out" -b "$bench" -s "--time=10" -- \
    --variant forward --arch sm_90 --problems forward_2d_test_validation --max-kernels 3 \
    --workers 1 --filter "c.pipeline == 'compv3'" --worker "$fake" --cache-dir "$work/cache")"
echo "$submitted"
[[ "$submitted" =~ job\ array\ ([0-9]+).*merge:\ job\ ([0-9]+) ]] || fail "submit.sh said: $submitted"

for ((i = 0; i < 1800; ++i)); do
    [[ -z "$(squeue -h -o %i 2>/dev/null)" ]] && break
    sleep 0.1
done
[[ -z "$(squeue -h -o %i)" ]] || fail "jobs still queued after 180 s: $(squeue)"

[[ -s "$out/merged.csv" ]] || fail "no merged.csv"
python3 - "$out" <<'EOF'
import csv, json, sys
out = sys.argv[1]
def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
shard_keys = []
for i in range(1, 4):
    shard = rows(f"{out}/shard-{i}-of-3.csv")
    meta = json.load(open(f"{out}/shard-{i}-of-3.csv.meta.json"))
    assert meta["state"] == "finished", (i, meta["state"])
    assert meta["shard"]["text"] == f"{i}/3", meta["shard"]
    assert meta["config"]["selected"] == 3, meta["config"]
    assert len(shard) == meta["shard"]["cells"], (i, len(shard), meta["shard"])
    shard_keys += [r["content_key"] for r in shard]
assert len(shard_keys) == len(set(shard_keys)), "a cell in two shards"
merged = rows(f"{out}/merged.csv")
keys = [r["content_key"] for r in merged]
assert len(keys) == len(set(keys)), "a cell twice in merged.csv"
assert set(keys) == set(shard_keys), "merged.csv is not the union of the shards"
assert len(keys) == 3 * 22, f"{len(keys)} cells, not 66"
assert any(r["status"] == "ok" for r in merged), "no cell measured"
# The --filter (blanks and quotes) reached every shard whole.
assert all("_compv3_" in r["kernel"] for r in merged), "a kernel the filter leaves out"
meta = json.load(open(f"{out}/merged.csv.meta.json"))
assert len(meta["inputs"]) == 3 and meta["merge"]["rows_out"] == 66, meta["merge"]
print(f"merged.csv: {len(keys)} cells from 3 shards")
EOF
passed=1
echo "PASS: the Slurm job array and its merge produced the whole sweep"
