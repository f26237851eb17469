#!/bin/bash
# sitepack on SLURM: submit the shard array and the merge that depends on it (docs/slurm.md).
#
#   slurm/submit.sh --job JOB.json --shards N --dir SHARD_DIR --out MERGED.h5 [options] [-- SBATCH_ARGS...]
#
#   --np P              ranks per shard (sbatch --ntasks=P; default 1)
#   --merge-ranks R     ranks of the merge job (sbatch --ntasks=R; default $SITEPACK_MERGE_RANKS or 1:
#                       the serial merge); R > 1 runs the parallel merge with the same --launcher
#   --launcher L        srun (default: srun --mpi=pmix) or mpirun
#   --mpirun-args "A"   mpirun options (default "--mca osc sm")
#   --sitepack PATH     the sitepack binary (default: sitepack on PATH)
#   --run-args "A"      extra `sitepack run` options for every shard (e.g. "--ph 6.5")
#   --rerun I[,J,...]   resubmit only these shards (--array=I,J,...) and a new merge after them
#   --force             let the merge job replace an existing MERGED.h5 (without it: refused, exit 2, as
#                       `sitepack run` refuses an existing output)
#   -- SBATCH_ARGS      given to both sbatch calls (e.g. --partition=big --time=02:00:00 --exclusive)
#
# Prints "array JOBID" and "merge JOBID". The merge job is submitted with
# --dependency=afterok:JOBID --kill-on-invalid-dep=yes: it runs when all shards succeeded and is
# cancelled when one fails; then rerun that shard with --rerun I (same --shards N, --dir, --out).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
job="" shards="" dir="" out="" force=0 np=1 merge_ranks=${SITEPACK_MERGE_RANKS:-1} launcher=srun mpirun_args="--mca osc sm" sitepack=sitepack run_args="" rerun=""
# usage: the comment block above (line 2 up to the first line that is not a comment), to stdout
# for --help, to stderr after an error
usage() {
  local code=${1:-2}
  if [ "$code" -eq 0 ]; then
    sed -n '2,${/^#/!q;s/^# \{0,1\}//;p;}' "$0"
  else
    sed -n '2,${/^#/!q;s/^# \{0,1\}//;p;}' "$0" >&2
  fi
  exit "$code"
}
while [ $# -gt 0 ]; do
  case "$1" in
    --job) job=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --merge-ranks) merge_ranks=$2; shift 2 ;;
    --launcher) launcher=$2; shift 2 ;;
    --mpirun-args) mpirun_args=$2; shift 2 ;;
    --sitepack) sitepack=$2; shift 2 ;;
    --run-args) run_args=$2; shift 2 ;;
    --rerun) rerun=$2; shift 2 ;;
    --force) force=1; shift ;;
    -h|--help) usage 0 ;;
    --) shift; break ;;
    *) echo "submit.sh: unknown argument $1" >&2; usage ;;
  esac
done
[ -n "$job" ] && [ -n "$shards" ] && [ -n "$dir" ] && [ -n "$out" ] || usage
case "$shards" in ''|*[!0-9]*) echo "submit.sh: --shards must be a positive integer" >&2; exit 2 ;; esac
[ "$shards" -ge 1 ] || { echo "submit.sh: --shards must be >= 1" >&2; exit 2; }
case "$merge_ranks" in ''|*[!0-9]*|0) echo "submit.sh: --merge-ranks must be a positive integer" >&2; exit 2 ;; esac
case "$launcher" in srun|mpirun) ;; *) echo "submit.sh: --launcher must be srun or mpirun" >&2; exit 2 ;; esac
# the merge job writes MERGED.h5 with --force (it cannot ask): the question is asked here, at submission
if [ -e "$out" ] && [ "$force" = 0 ]; then
  echo "submit.sh: $out exists (use --force to overwrite: the merge job would replace it)" >&2
  exit 2
fi
if [ -n "$rerun" ]; then
  case "$rerun" in *[!0-9,]*) echo "submit.sh: --rerun takes shard indices I[,J...]" >&2; exit 2 ;; esac
  for i in ${rerun//,/ }; do
    [ "$i" -lt "$shards" ] || { echo "submit.sh: shard $i is not in 0..$((shards - 1))" >&2; exit 2; }
  done
  array=$rerun
else
  array=0-$((shards - 1))
fi
mkdir -p "$dir/logs"

# (sbatch --export splits on commas: the values must not contain any)
base="SITEPACK=$sitepack,SITEPACK_JOB=$job,SITEPACK_SHARDS=$shards,SITEPACK_SHARD_DIR=$dir"
aid=$(sbatch --parsable --chdir="$PWD" --array="$array" --ntasks="$np" --output="$dir/logs/shard-%A_%a.out" \
  --export="ALL,$base,SITEPACK_LAUNCHER=$launcher,SITEPACK_NP=$np,SITEPACK_MPIRUN_ARGS=$mpirun_args,SITEPACK_RUN_ARGS=$run_args" \
  "$@" "$here/shard.sbatch")
aid=${aid%%;*}
mid=$(sbatch --parsable --chdir="$PWD" --dependency="afterok:$aid" --kill-on-invalid-dep=yes --ntasks="$merge_ranks" \
  --output="$dir/logs/merge-%j.out" \
  --export="ALL,$base,SITEPACK_OUT=$out,SITEPACK_MERGE_RANKS=$merge_ranks,SITEPACK_LAUNCHER=$launcher,SITEPACK_MPIRUN_ARGS=$mpirun_args" \
  "$@" "$here/merge.sbatch")
mid=${mid%%;*}
echo "array $aid"
echo "merge $mid"
