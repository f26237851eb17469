#!/usr/bin/env bash
# bench-merge-io's two parts on the sample (issue 21; bench/merge_io.py, docs/decisions.md):
#   - the trace hook SITEPACK_MERGE_TRACE: a `sitepack run` at -np 2 traces every row write of its merge:
#     the extents are disjoint, lie inside datasets of the merged file, and with the four /structures
#     columns that rank 0 writes through HDF5 they are every byte of every dataset (h5py's storage sizes);
#     rank 0's trace holds /components (the union);
#   - sitepack_bench_merge_io replays them at -np 2 with every backend (pwrite, MPI-IO independent and
#     collective, parallel HDF5 independent and collective): each says verified (its extents read back,
#     through HDF5 at the dataset rows for the parallel HDF5 ones, equal the merged file's bytes), the
#     bytes per rank are the trace's, and parallel HDF5 lays the file out as the serial API does.
# usage: merge_io_bench.sh SITEPACK BENCH WORKDIR SOURCE_DIR
set -euo pipefail
SP=$(realpath "$1"); BENCH=$(realpath "$2"); WORK=$3; SRC=$4
MPI=(mpirun --oversubscribe --mca osc sm)
[ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)
rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
SITEPACK_MERGE_TRACE=$WORK/trace "${MPI[@]}" -x SITEPACK_MERGE_TRACE -np 2 "$SP" run "$SRC/jobs/demo.json" \
  --out merged.h5 --quiet > run.log
[ -s trace.0 ] && [ -s trace.1 ] && [ ! -e trace.2 ] || { echo "FAIL: no trace per rank"; ls; exit 1; }
"${MPI[@]}" -np 2 "$BENCH" --merged merged.h5 --trace trace --out target.h5 > bench.jsonl
cat bench.jsonl
/usr/bin/python3 - merged.h5 trace bench.jsonl <<'PYEOF'
import json, sys
import h5py
merged, trace, jl = sys.argv[1:]
f = h5py.File(merged, "r")
dsets = {}
f.visititems(lambda n, o: dsets.__setitem__(n, (o.id.get_offset(), o.id.get_storage_size())) if isinstance(o, h5py.Dataset) else None)
ext, per_rank = [], []
for r in (0, 1):
    rows = [l.split() for l in open(f"{trace}.{r}") if not l.startswith("#")]
    assert any(l.startswith("# copy_seconds") for l in open(f"{trace}.{r}")), "no copy_seconds line"
    ext += [(int(o), int(b), r) for o, b, _ in rows]
    per_rank.append(sum(int(b) for _, b, _ in rows))
ext.sort()
assert all(a[0] + a[1] <= b[0] for a, b in zip(ext, ext[1:])), "traced extents overlap"
spans = sorted((o, o + s, n) for n, (o, s) in dsets.items() if o is not None and s)
def owner(o, b):
    for lo, hi, n in spans:
        if lo <= o and o + b <= hi:
            return n
    raise AssertionError(f"extent {o}+{b} is in no dataset")
names = {owner(o, b) for o, b, _ in ext}
comp = {owner(o, b) for o, b, r in ext if r == 0 and owner(o, b).startswith("components/")}
assert comp, "rank 0 wrote no /components rows"
file_cols = sum(dsets["structures/" + n][1] for n in ("file_idx", "n_parts", "ligand_ptr", "site_ptr"))
total = sum(s for _, s in dsets.values())
assert sum(per_rank) + file_cols == total, (sum(per_rank), file_cols, total)
assert per_rank[0] > 0 and per_rank[1] > 0, per_rank
rows = [json.loads(l) for l in open(jl)]
assert [r["backend"] for r in rows] == ["pwrite", "mpiio-indep", "mpiio-coll", "phdf5-indep", "phdf5-coll"], rows
for r in rows:
    assert r["verified"] is True, r
    assert r["bytes"] == per_rank, (r["backend"], r["bytes"], per_rank)
    assert r["extents"] == [sum(1 for e in ext if e[2] == k) for k in (0, 1)], r
    if r["backend"].startswith("phdf5"):
        assert r["same_offsets_as_serial_api"] is True and r["file_bytes"] == r["serial_api_file_bytes"], r
print(f"PASS: {len(ext)} traced extents in {len(names)} datasets, {per_rank} bytes per rank + {file_cols} of "
      f"the /structures file columns = all {total} bytes; every backend verified")
PYEOF
