#!/bin/bash
# Submits a sharded gconv sweep to Slurm: a job array of N shards (gconv-sweep.sbatch) and a
# merge job that starts when every shard has ended (afterany: a failed shard still leaves its
# rows; merge reports what it joined). See docs/scale-out.md.
#
#   scripts/slurm/submit.sh -n 8 -o /shared/fwd2d [-b path/to/gconv-bench] [-s 'SBATCH OPTIONS'] \
#       -- --variant forward --problems forward_2d
set -euo pipefail

usage() {
    echo "usage: $0 -n SHARDS -o OUT_DIR [-b GCONV_BENCH] [-s 'SBATCH OPTIONS'] -- SWEEP ARGS..." >&2
    exit 2
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
shards="" out_dir="" bench="gconv-bench" sbatch_opts=""
while getopts "n:o:b:s:" opt; do
    case "$opt" in
    n) shards="$OPTARG" ;;
    o) out_dir="$OPTARG" ;;
    b) bench="$OPTARG" ;;
    s) sbatch_opts="$OPTARG" ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[[ "${1:-}" == "--" ]] && shift
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "$0: -n needs a whole number >= 1 (got '$shards')" >&2; usage; }
[[ -n "$out_dir" ]] || { echo "$0: -o OUT_DIR is required" >&2; usage; }
[[ $# -gt 0 ]] || { echo "$0: the sweep arguments are missing (after --)" >&2; usage; }
for arg in "$@"; do
    case "$arg" in
    --output | --output=* | --shard | --shard=*)
        echo "$0: $arg is set per shard by the script; leave it out" >&2
        exit 2
        ;;
    esac
done
mkdir -p "$out_dir"
# The jobs start in OUT_DIR, on another node: relative paths would point elsewhere there.
out_dir="$(cd "$out_dir" && pwd)"
[[ "$bench" == */* ]] && bench="$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")"

# Each argument quoted as a shell word, so one with blanks (a --filter) reaches gconv-bench whole.
GCONV_BENCH_ARGS="$(printf '%q ' "$@")"
export GCONV_BENCH="$bench" GCONV_OUT_DIR="$out_dir" GCONV_BENCH_ARGS
# shellcheck disable=SC2086  # sbatch_opts is a list of words on purpose
array_job=$(sbatch --parsable --export=ALL --array=1-"$shards" --chdir="$out_dir" $sbatch_opts \
    "$here/gconv-sweep.sbatch")
array_job="${array_job%%;*}"

inputs=()
for ((i = 1; i <= shards; ++i)); do inputs+=("$out_dir/shard-$i-of-$shards.csv"); done
merge_job=$(sbatch --parsable --export=ALL --dependency=afterany:"$array_job" \
    --job-name=gconv-merge --chdir="$out_dir" --output="$out_dir/gconv-merge-%j.log" \
    --wrap="$(printf '%q ' "$bench" merge "${inputs[@]}" -o "$out_dir/merged.csv")")

merge_job="${merge_job%%;*}"
echo "shards: job array $array_job (1-$shards), merge: job $merge_job -> $out_dir/merged.csv"
