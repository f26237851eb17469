#!/usr/bin/env bash
# Shards without SLURM: `sitepack run --shard I/N` + `sitepack merge` equal one run over all inputs,
# and merge refuses what is not one complete job (docs/slurm.md).
# usage: slurm_shards.sh SITEPACK_BIN SOURCE_DIR
set -euo pipefail
BIN=$(realpath "$1")
SRC=$2
cd "$SRC"
PY=/usr/bin/python3
CMP="$PY tests/integration/compare_h5.py"
MPI=(mpirun --oversubscribe --mca osc sm)
[ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# expect_refused EXIT_CODE PATTERN CMD...: the command fails with that status and says PATTERN
expect_refused() {
  local want=$1 pat=$2 rc=0
  shift 2
  "$@" >"$T/out.txt" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || { cat "$T/out.txt"; fail "'$*' exited $rc, expected $want"; }
  grep -q -- "$pat" "$T/out.txt" || { cat "$T/out.txt"; fail "'$*' did not say '$pat'"; }
  echo "refused as expected ($rc): $(head -n1 "$T/out.txt")"
}

JOB=jobs/demo.json
"${MPI[@]}" -np 2 "$BIN" run $JOB --out "$T/single.h5" --quiet >/dev/null
n_files=$($PY -c "import h5py,sys; print(len(h5py.File(sys.argv[1])['structures/file_idx']))" "$T/single.h5")
[ "$n_files" -ge 10 ] || fail "sample has $n_files files"

# 4 shards at mixed -np; the share of each is disjoint, covers every file, and is balanced by LPT
for i in 0 1 2 3; do
  np=$((1 + i % 2))
  "${MPI[@]}" -np $np "$BIN" run $JOB --shard $i/4 --out "$T/s4/shard-$i.h5" --quiet >/dev/null
done
$PY - "$T/s4" "$n_files" <<'PYEOF'
import glob, sys, h5py, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
seen, loads = [], []
for p in sorted(glob.glob(d + "/shard-*.h5")):
    with h5py.File(p) as f:
        assert f.attrs["format"] == b"sitepack-rank", p
        assert int(f.attrs["shard_count"]) == 4
        files = list(f["shard_files"][()])
        got = sorted(int(x) for x, part in zip(f["tasks"]["file_idx"], f["tasks"]["part"]) if part == 0)
        assert got == sorted(files), (p, got, files)
        seen += files
        loads.append(len(files))
assert sorted(seen) == list(range(n)), sorted(seen)
assert min(loads) >= 1, loads
print("shares:", loads, "of", n, "files: disjoint and complete")
PYEOF
"$BIN" merge "$T/merged.h5" "$T/s4/shard-*.h5"
$CMP "$T/single.h5" "$T/merged.h5"
"$BIN" check "$T/merged.h5" --quiet

# explicit list in another order gives the same file; more shards than files (empty shards) too
"$BIN" merge "$T/merged2.h5" "$T/s4/shard-3.h5" "$T/s4/shard-1.h5" "$T/s4/shard-0.h5" "$T/s4/shard-2.h5" --quiet
$CMP "$T/single.h5" "$T/merged2.h5"
# one input file over 3 shards: two empty shards
ONE=(--input tests/data/structures/1stp.cif)
"${MPI[@]}" -np 1 "$BIN" run $JOB "${ONE[@]}" --out "$T/one.h5" --quiet >/dev/null
for i in 0 1 2; do
  "${MPI[@]}" -np 1 "$BIN" run $JOB "${ONE[@]}" --shard $i/3 --out "$T/s1/shard-$i.h5" --quiet >/dev/null
done
"$BIN" merge "$T/merged1.h5" "$T/s1/*.h5" --quiet
$CMP "$T/one.h5" "$T/merged1.h5"

# --shard auto from the SLURM array variables
mkdir -p "$T/auto"
for id in 6 8; do
  SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_MAX=8 SLURM_ARRAY_TASK_COUNT=4 \
    "${MPI[@]}" -np 1 "$BIN" run $JOB --shard auto --out "$T/auto/a-$id.h5" --quiet >/dev/null
done
$PY - "$T" <<'PYEOF'
import sys, h5py, numpy as np
t = sys.argv[1]
for id in (6, 8):
    a, b = h5py.File(f"{t}/auto/a-{id}.h5"), h5py.File(f"{t}/s4/shard-{id - 5}.h5")
    assert int(a.attrs["shard_index"]) == id - 5
    assert np.array_equal(a["shard_files"][()], b["shard_files"][()]), id
print("--shard auto: array 5-8, task ids 6 and 8 are shards 1 and 3")
PYEOF

# refusals
expect_refused 2 "array 0-7 has 3 tasks" env SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=7 \
  SLURM_ARRAY_TASK_COUNT=3 "${MPI[@]}" -np 1 "$BIN" run $JOB --shard auto --out "$T/x.h5"
expect_refused 2 "must be I/N" "${MPI[@]}" -np 1 "$BIN" run $JOB --shard 1-4 --out "$T/x.h5"
expect_refused 1 "missing 1 of 4 shards: 2 " "$BIN" merge "$T/m.h5" "$T/s4/shard-0.h5" "$T/s4/shard-1.h5" "$T/s4/shard-3.h5"
cp "$T/s4/shard-1.h5" "$T/dup.h5"
expect_refused 1 "shard 1/4 given twice" "$BIN" merge "$T/m.h5" "$T/s4/shard-*.h5" "$T/dup.h5"
"${MPI[@]}" -np 1 "$BIN" run $JOB --ph 6.5 --shard 2/4 --out "$T/other-ph.h5" --quiet >/dev/null
expect_refused 1 "shards of different jobs" "$BIN" merge "$T/m.h5" "$T/s4/shard-0.h5" "$T/s4/shard-1.h5" \
  "$T/other-ph.h5" "$T/s4/shard-3.h5"
"${MPI[@]}" -np 1 "$BIN" run $JOB --shard 2/5 --out "$T/other-n.h5" --quiet >/dev/null
expect_refused 1 "shards of different jobs" "$BIN" merge "$T/m.h5" "$T/s4/shard-0.h5" "$T/s4/shard-1.h5" \
  "$T/other-n.h5" "$T/s4/shard-3.h5"
expect_refused 1 "is a merged sitepack output, not a shard or per-rank file" "$BIN" merge "$T/m.h5" "$T/single.h5"
"${MPI[@]}" -np 1 "$BIN" run $JOB --out "$T/plain.h5" --keep-parts --quiet >/dev/null
expect_refused 1 "is not a shard file" "$BIN" merge "$T/m.h5" "$T/plain.h5.parts/rank-00000.h5"
expect_refused 1 "no shard file matches" "$BIN" merge "$T/m.h5" "$T/nothing-*.h5"
expect_refused 2 "exists (use --force" "$BIN" merge "$T/merged.h5" "$T/s4/shard-*.h5"
[ ! -e "$T/m.h5" ] && [ ! -e "$T/m.h5.tmp" ] || fail "a refused merge left an output"
echo "PASS: shards + merge equal the single run; refusals clear"
