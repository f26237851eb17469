#!/usr/bin/env bash
# On a real local SLURM (tests/integration/slurm_lib.sh): slurm/submit.sh submits a 4-task array
# over the sample (mpirun -np 1 in each task) and the dependent merge, parallel (--merge-ranks 2:
# sbatch --ntasks=2, mpirun -np 2 sitepack merge inside the job); the merged file must equal one run
# over all inputs and the serial `sitepack merge` of the same shard files. Prints the wall times of
# both paths (the SLURM path's overhead).
# usage: slurm_array.sh SITEPACK_BIN SOURCE_DIR
set -euo pipefail
BIN=$(realpath "$1")
SRC=$(realpath "$2")
cd "$SRC"
source tests/integration/slurm_lib.sh
T=$(mktemp -d /tmp/sitepack-slurm-array.XXXXXX)
slurm_start "$T/slurm"
trap 'slurm_stop; rm -rf "$T"' EXIT
now() { date +%s.%N; }
MPI_ARGS="--mca osc sm --oversubscribe --allow-run-as-root"

t0=$(now)
mpirun $MPI_ARGS -np 2 "$BIN" run jobs/demo.json --out "$T/single.h5" --quiet >/dev/null
t1=$(now)

slurm/submit.sh --job jobs/demo.json --shards 4 --dir "$T/shards" --out "$T/merged.h5" \
  --sitepack "$BIN" --launcher mpirun --np 1 --merge-ranks 2 --mpirun-args "$MPI_ARGS" >"$T/ids"
aid=$(sed -n 's/^array //p' "$T/ids")
mid=$(sed -n 's/^merge //p' "$T/ids")
slurm_log "array $aid, merge $mid"
slurm_wait_gone "$aid" "$mid" --timeout=180
t2=$(now)
for i in 0 1 2 3; do
  st=$(slurm_state "${aid}_$i")
  [ "$st" = COMPLETED ] || { cat "$T/shards/logs/"*; echo "FAIL: shard task $i: $st"; exit 1; }
done
st=$(slurm_state "$mid")
[ "$st" = COMPLETED ] || { cat "$T/shards/logs/"*; echo "FAIL: merge job: $st"; exit 1; }
ls "$T/shards"
cat "$T/shards/logs/merge-$mid.out"
grep -q ', 2 merge ranks)' "$T/shards/logs/merge-$mid.out" || { echo "FAIL: the merge job did not run at 2 ranks"; exit 1; }
ntasks=$(scontrol -o show job "$mid" | tr ' ' '\n' | sed -n 's/^NumTasks=//p')
[ "$ntasks" = 2 ] || { echo "FAIL: merge job NumTasks=$ntasks, expected 2 (--merge-ranks 2)"; exit 1; }
/usr/bin/python3 tests/integration/compare_h5.py "$T/single.h5" "$T/merged.h5"
"$BIN" merge "$T/serial.h5" "$T/shards/shard-*-of-00004.h5" --quiet
/usr/bin/python3 tests/integration/compare_h5.py "$T/serial.h5" "$T/merged.h5"
echo "the 2-rank merge job's file equals the serial merge of the same shards"
/usr/bin/python3 - "$T/merged.h5" <<'PYEOF'
import json, sys, h5py
f = h5py.File(sys.argv[1])
assert int(f["run"].attrs["n_ranks"]) == 4, f["run"].attrs["n_ranks"]  # 4 shards x 1 rank
print("merged /run n_ranks = 4 (sum over the shards)")
PYEOF
python3 -c "import sys; a,b,c=map(float,sys.argv[1:]); print(f'TIMING single run (mpirun -np 2): {b-a:.2f} s; SLURM path (submit -> 4 shards -> merge done): {c-b:.2f} s; overhead {c-b-(b-a):.2f} s')" "$t0" "$t1" "$t2"
# a second submission onto the merged file is refused before any sbatch (exit 2), as `sitepack run` refuses
rc=0
slurm/submit.sh --job jobs/demo.json --shards 4 --dir "$T/shards2" --out "$T/merged.h5" --sitepack "$BIN" \
  >"$T/again.out" 2>"$T/again.err" || rc=$?
[ "$rc" = 2 ] && grep -q "exists (use --force" "$T/again.err" && [ ! -d "$T/shards2" ] \
  || { echo "FAIL: resubmission onto an existing merged file: rc $rc, $(cat "$T/again.err")"; exit 1; }
echo "resubmission onto $T/merged.h5 without --force: refused (exit 2), nothing submitted"
echo "PASS: SLURM array + dependent merge equal the single run"
