#!/usr/bin/env bash
# Issue 21: the parallel merge (store.h sp_merge_parallel()) writes the file of the serial merge.
# The serial reference: one shard of everything (`run --shard 0/1`) merged by `sitepack merge` without
# mpirun (sp_merge(): one process, every row written through HDF5). Against it, with the same content
# (tests/integration/compare_h5.py: every dataset, timing fields aside):
#   - `sitepack run` at -np 1, 2, 3, 4 (every rank writes its share at the datasets' offsets), and the
#     report says each rank wrote rows;
#   - split files (parts of one file from several ranks) at -np 1 and 3, against their serial merge;
#   - a merge whose rank 1 (then rank 0) fails a write (test hook SITEPACK_TEST_MERGE_FAIL_RANK): exit 1,
#     "merge failed", no output and no OUT.tmp, the per-rank files kept; --resume at another -np completes it;
#   - shards merged under mpirun -np 2 and -np 3, and without MPI: byte-identical datasets;
#   - /residues/symop decided from the inputs' site_flags_or and, without it, from the site rows;
#   - duplicates and --resume at -np 3 (the SHA-256 pre-pass over the ranks) give the -np 1 file.
# usage: merge_np.sh SITEPACK WORKDIR SOURCE_DIR
set -euo pipefail
SP=$(realpath "$1"); WORK=$2; SRC=$3
PY=/usr/bin/python3
CMP="$PY $SRC/tests/integration/compare_h5.py"
MPI=(mpirun --oversubscribe --mca osc sm)
[ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)
JOB=$SRC/jobs/demo.json
SPLIT=(--split-min-bytes 1000 --split-min-ligands 2 --split-no-guard)
die() { echo "FAIL: $*"; exit 1; }
rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"

# the serial references
"${MPI[@]}" -np 2 "$SP" run "$JOB" --shard 0/1 --out shard.h5 --quiet > /dev/null
"$SP" merge serial.h5 shard.h5 --quiet
"${MPI[@]}" -np 2 "$SP" run "$JOB" "${SPLIT[@]}" --shard 0/1 --out shard_split.h5 --quiet > /dev/null
"$SP" merge serial_split.h5 shard_split.h5 --quiet

for np in 1 2 3 4; do
  "${MPI[@]}" -np $np "$SP" run "$JOB" --out np$np.h5 --quiet > /dev/null
  $CMP serial.h5 np$np.h5 > cmp.log || { cat cmp.log; die "-np $np differs from the serial merge"; }
  echo "-np $np: $(cat cmp.log)"
done
"$SP" check np4.h5 --quiet || die "check of the -np 4 file"
$PY - np3.report.json <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
ranks = r["ranks"]
assert len(ranks) == 3, len(ranks)
w = [x["merge"]["bytes_written"] for x in ranks]
t = [x["merge"]["tasks"] for x in ranks]
assert all(b > 0 for b in w) and sum(t) == r["files"]["total"], (w, t)
assert r["merge"]["copy_seconds"] >= 0 and "merge" in r["steps_seconds"], r["merge"]
print("-np 3 report: rows written by every rank:", w, "bytes,", t, "tasks")
PYEOF

for np in 1 3; do
  "${MPI[@]}" -np $np "$SP" run "$JOB" "${SPLIT[@]}" --out split$np.h5 --quiet > split$np.log
  grep -q "split [1-9][0-9]* large files" split$np.log || die "no file split at -np $np: $(cat split$np.log)"
  $CMP serial_split.h5 split$np.h5 > cmp.log || { cat cmp.log; die "split files at -np $np differ from the serial merge"; }
  echo "split files, -np $np: $(cat cmp.log)"
done

# a rank fails during the merge: exit 1, parts kept; --resume completes it
for bad in 1 0; do
  set +e
  "${MPI[@]}" -np 2 -x SITEPACK_TEST_MERGE_FAIL_RANK=$bad "$SP" run "$JOB" --out fail$bad.h5 --quiet > fail$bad.log 2>&1
  rc=$?
  set -e
  [ $rc -eq 1 ] || die "merge failure on rank $bad: exit $rc, expected 1: $(cat fail$bad.log)"
  grep -q "merge failed (io_error: cannot write .*(rank $bad)" fail$bad.log || die "no merge failure text: $(cat fail$bad.log)"
  grep -q "rerun with --resume" fail$bad.log || die "no resume hint: $(cat fail$bad.log)"
  grep -qi "HDF5-DIAG\|Segmentation" fail$bad.log && die "HDF5 noise or a crash: $(cat fail$bad.log)"
  [ -e fail$bad.h5 ] && die "a failed merge left a file under the final name"
  [ -e fail$bad.h5.tmp ] && die "a failed merge left fail$bad.h5.tmp"
  ls fail$bad.h5.parts/rank-00000.h5 fail$bad.h5.parts/rank-00001.h5 > /dev/null || die "per-rank files not kept"
  "${MPI[@]}" -np 3 "$SP" run "$JOB" --out fail$bad.h5 --resume --quiet > resume$bad.log 2>&1 \
    || die "--resume after the failed merge: $(cat resume$bad.log)"
  $CMP serial.h5 fail$bad.h5 > cmp.log || { cat cmp.log; die "resumed file differs from the serial merge"; }
  echo "merge failure on rank $bad: exit 1, parts kept; --resume at -np 3: $(cat cmp.log)"
done

# shards merged under mpirun
for i in 0 1 2; do "${MPI[@]}" -np 1 "$SP" run "$JOB" --shard $i/3 --out s3_$i.h5 --quiet > /dev/null; done
"$SP" merge m_serial.h5 s3_0.h5 s3_1.h5 s3_2.h5 --quiet
for np in 2 3; do
  "${MPI[@]}" -np $np "$SP" merge m_np$np.h5 s3_0.h5 s3_1.h5 s3_2.h5 > m_np$np.log
  grep -q "$np merge ranks" m_np$np.log || die "sitepack merge under mpirun -np $np: $(cat m_np$np.log)"
  $CMP serial.h5 m_np$np.h5 > cmp.log || { cat cmp.log; die "shards merged at -np $np differ"; }
  $PY - m_serial.h5 m_np$np.h5 <<'PYEOF'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
for n in names:
    x, y = a[n], b[n]
    assert x.dtype == y.dtype and x.shape == y.shape, n
    # raw bytes of every dataset, timing columns included: the same rows from the same shards
    assert np.array_equal(x[()].view(np.uint8), y[()].view(np.uint8)) if x.size else True, n
print(f"{len(names)} datasets byte-identical to the merge without MPI")
PYEOF
  echo "shards under mpirun -np $np: $(cat cmp.log)"
done
# symmetry mates decide the optional column /residues/symop: from the inputs' site_flags_or, or (a file
# without it, as an older build's shard) from the site rows
"${MPI[@]}" -np 2 "$SP" run "$JOB" --symmetry-mates --shard 0/1 --out sym_shard.h5 --quiet > /dev/null
cp sym_shard.h5 sym_shard_old.h5
$PY - sym_shard_old.h5 <<'PYEOF'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    assert f.attrs["site_flags_or"] & 4, "no site with symmetry mates in the shard"
    del f.attrs["site_flags_or"]
PYEOF
"${MPI[@]}" -np 2 "$SP" merge sym_a.h5 sym_shard.h5 --quiet
"${MPI[@]}" -np 2 "$SP" merge sym_b.h5 sym_shard_old.h5 --quiet
$CMP sym_a.h5 sym_b.h5 > cmp.log || { cat cmp.log; die "symmetry: the merge without site_flags_or differs"; }
$PY -c "import h5py,sys; assert 'symop' in h5py.File(sys.argv[1])['residues']" sym_b.h5 || die "no /residues/symop"
echo "symmetry mates, with and without site_flags_or: $(cat cmp.log)"

# the SHA-256 pre-pass spread over the ranks (src/app/hash_share.c): three exact copies and one file of
# the same size with other bytes; the duplicates and a --resume (every finished file hashed) at -np 3
# give the -np 1 file
mkdir -p dup/in
cp "$SRC"/tests/data/structures/* dup/in/
first=$(ls dup/in | grep -v '\.gz$' | head -1)
for k in 1 2 3; do cp "dup/in/$first" "dup/in/copy$k-$first"; done
sed '1s/./X/' "dup/in/$first" > "dup/in/same-size-$first"
CCD=$SRC/tests/data/ccd/components_sample.cif
"${MPI[@]}" -np 1 "$SP" run --input dup/in --ccd "$CCD" --out dup1.h5 --quiet > /dev/null
"${MPI[@]}" -np 3 "$SP" run --input dup/in --ccd "$CCD" --out dup3.h5 --keep-parts > dup3.log 2>&1
grep -q "3 duplicates" dup3.log || die "-np 3: not 3 duplicates: $(cat dup3.log)"
$CMP dup1.h5 dup3.h5 > cmp.log || { cat cmp.log; die "duplicates at -np 3 differ from -np 1"; }
rm dup3.h5 dup3.report.json
"${MPI[@]}" -np 3 "$SP" run --input dup/in --ccd "$CCD" --out dup3.h5 --resume > dup3r.log 2>&1
n_in=$(ls dup/in | wc -l)
grep -q "resumed, 0 changed since, 3 duplicates; $n_in hashed" dup3r.log || die "--resume at -np 3: $(cat dup3r.log)"
$CMP dup1.h5 dup3.h5 > cmp.log || { cat cmp.log; die "--resume at -np 3 differs from -np 1"; }
echo "duplicates and --resume hashed over 3 ranks: $(grep -o '[0-9]* files ([0-9]* tasks) resumed.*hashed' dup3r.log)"
echo "merge_np: ok"
