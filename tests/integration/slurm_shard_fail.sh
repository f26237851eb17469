#!/usr/bin/env bash
# On a real local SLURM: shard 2 of 4 cannot write its output (a plain file blocks its parts
# directory), so its array task fails and the merge job (afterok + kill-on-invalid-dep) is
# cancelled; `sitepack merge` by hand names the missing shard; after the cause is removed, only
# shard 2 is rerun (srun --mpi=pmix this time) with a new merge (parallel: --merge-ranks 2, srun
# --mpi=pmix -n 2 inside the merge job), which equals the single run.
# usage: slurm_shard_fail.sh SITEPACK_BIN SOURCE_DIR
set -euo pipefail
BIN=$(realpath "$1")
SRC=$(realpath "$2")
cd "$SRC"
source tests/integration/slurm_lib.sh
T=$(mktemp -d /tmp/sitepack-slurm-fail.XXXXXX)
slurm_start "$T/slurm"
trap 'slurm_stop; rm -rf "$T"' EXIT
MPI_ARGS="--mca osc sm --oversubscribe --allow-run-as-root"
fail() { cat "$T/shards/logs/"* 2>/dev/null; echo "FAIL: $*"; exit 1; }

mpirun $MPI_ARGS -np 2 "$BIN" run jobs/demo.json --out "$T/single.h5" --quiet >/dev/null

mkdir -p "$T/shards"
blocker=$T/shards/shard-00002-of-00004.h5.parts
echo "not a directory" >"$blocker"
slurm/submit.sh --job jobs/demo.json --shards 4 --dir "$T/shards" --out "$T/merged.h5" --sitepack "$BIN" \
  --launcher mpirun --np 1 --mpirun-args "$MPI_ARGS" >"$T/ids"
aid=$(sed -n 's/^array //p' "$T/ids")
mid=$(sed -n 's/^merge //p' "$T/ids")
slurm_log "array $aid, merge $mid (shard 2 will fail)"
slurm_wait_gone "$aid" "$mid" --timeout=180
for i in 0 1 3; do
  [ "$(slurm_state "${aid}_$i")" = COMPLETED ] || fail "shard $i: $(slurm_state "${aid}_$i")"
done
[ "$(slurm_state "${aid}_2")" = FAILED ] || fail "shard 2 should have failed: $(slurm_state "${aid}_2")"
st=$(slurm_state "$mid")
reason=$(scontrol -o show job "$mid" | tr ' ' '\n' | sed -n 's/^Reason=//p')
[ "$st" = CANCELLED ] || fail "merge job should be cancelled (kill-on-invalid-dep), is $st ($reason)"
slurm_log "shard 2 FAILED, merge job $st (reason $reason)"
[ ! -e "$T/merged.h5" ] || fail "a merged file exists"
grep -h "cannot" "$T/shards/logs/shard-${aid}_2.out" | head -n 3

rc=0
"$BIN" merge "$T/merged.h5" "$T/shards/shard-*-of-00004.h5" >"$T/m.txt" 2>&1 || rc=$?
cat "$T/m.txt"
[ "$rc" = 1 ] && grep -q "missing 1 of 4 shards: 2 " "$T/m.txt" || fail "merge by hand should name shard 2 missing"

# fix the cause, rerun only shard 2 (srun --mpi=pmix variant), merge again
rm -f "$blocker"
stamp() { stat -c %Y.%s "$T/shards/shard-0000$1-of-00004.h5"; }
before="$(stamp 0) $(stamp 1) $(stamp 3)"
sleep 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
slurm/submit.sh --job jobs/demo.json --shards 4 --dir "$T/shards" --out "$T/merged.h5" --sitepack "$BIN" \
  --launcher srun --np 1 --merge-ranks 2 --rerun 2 >"$T/ids2"
aid2=$(sed -n 's/^array //p' "$T/ids2")
mid2=$(sed -n 's/^merge //p' "$T/ids2")
slurm_log "rerun: array $aid2 (shard 2 only), merge $mid2"
slurm_wait_gone "$aid2" "$mid2" --timeout=180
[ "$(slurm_state "${aid2}_2")" = COMPLETED ] || fail "rerun of shard 2: $(slurm_state "${aid2}_2")"
[ "$(slurm_state "$mid2")" = COMPLETED ] || fail "second merge: $(slurm_state "$mid2")"
after="$(stamp 0) $(stamp 1) $(stamp 3)"
[ "$before" = "$after" ] || fail "shards 0, 1, 3 were rewritten ($before -> $after)"
ls "$T/shards/logs"
cat "$T/shards/logs/merge-$mid2.out"
grep -q ', 2 merge ranks)' "$T/shards/logs/merge-$mid2.out" || fail "the rerun's merge job did not run at 2 ranks (srun)"
/usr/bin/python3 tests/integration/compare_h5.py "$T/single.h5" "$T/merged.h5"
echo "PASS: failed shard -> merge cancelled -> rerun of that shard only -> merged file equals the single run"
