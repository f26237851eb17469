#!/usr/bin/env bash
# `sitepack survey` on real entries: 19HC (PDB, 18 haems), 4CUM (free ARG ligands) and 1A4W (a
# multi-residue inhibitor that contains DAR), run with the real CCD excerpt (gzip). Asserts: the
# 18 HEM instances of 19hc.pdb.gz are one molecule; the totals (structures, instances, classes,
# molecules) equal what the ligand table holds (counted here with h5py independently); ARG and
# DAR (L- and D-arginine) share a key and the group is confirmed by graph isomorphism of their
# CCD definitions; without a CCD (the run's moved) the group is reported unconfirmed; a --ccd that
# cannot be opened exits 2.
# usage: test_survey_cmd.sh SITEPACK MPIEXEC DATA_DIR WORKDIR
set -euo pipefail
SP=$1; MPIEXEC=$2; DATA=$3; WORK=$4
FLAGS="--oversubscribe --mca osc sm"
[ "$(id -u)" = 0 ] && FLAGS="$FLAGS --allow-run-as-root"
rm -rf "$WORK"; mkdir -p "$WORK/a" "$WORK/b"
fail() { echo "FAIL: $*" >&2; exit 1; }
# run a: 19HC alone; run b: 4CUM + 1A4W
ln -s "$DATA/structures/19hc.pdb.gz" "$WORK/a/"
ln -s "$DATA/structures/4cum.pdb" "$DATA/structures/1a4w.cif" "$WORK/b/"
for r in a b; do
  "$MPIEXEC" $FLAGS -np 2 "$SP" run --input "$WORK/$r" --ccd "$DATA/ccd/components_excerpt.cif.gz" \
    --out "$WORK/$r.h5" --quiet > "$WORK/run-$r.log"
  "$SP" survey "$WORK/$r.h5" --per-comp > "$WORK/survey-$r.txt"
  cat "$WORK/survey-$r.txt"
done
grep -qP '^HEM\t18\t1\tcofactor$' "$WORK/survey-a.txt" || fail "19HC: 18 HEM instances, one molecule"
grep -qP '\tARG DAR\tconfirmed$' "$WORK/survey-b.txt" || fail "ARG DAR share a key, confirmed"
/usr/bin/python3 - "$WORK/b.h5" "$WORK/survey-b.txt" <<'PY'
import collections, re, sys
import h5py
f = h5py.File(sys.argv[1], "r")
txt = open(sys.argv[2]).read()
cls = collections.Counter(c.decode() for c in f["/ligands/class"][()])
keys = {k.decode() for k in f["/ligands/molecule_key"][()] if k}
n = f["/ligands/comp_id"].shape[0]
m = re.search(r"ligand instances: (\d+); distinct molecules \(molecule keys\): (\d+)", txt)
assert m and int(m.group(1)) == n and int(m.group(2)) == len(keys), (m and m.groups(), n, len(keys))
for c, k in cls.items():
    assert re.search(rf"\b{c} {k}\b", txt), (c, k)
assert re.search(r"structures: 2 \(ok 2, failed 0\)", txt)
print("survey totals agree with h5py:", n, "instances,", len(keys), "molecules,", dict(cls))
# the protein context lines (issue 17): chains, UniProt coverage, systems, counted here from the tables
db = f["/chains/db_name"][()]
unp = [a for d, a in zip(db, f["/chains/db_accession"][()]) if d == b"UNP"]
m = re.search(r"polymer chains: (\d+); with a UniProt reference: (\d+) \([0-9.]+ %\), distinct UniProt accessions: (\d+)", txt)
assert m and tuple(map(int, m.groups())) == (len(db), len(unp), len(set(unp))), (m and m.groups(), len(db), len(unp))
systems = set(zip(f["/ligands/structure_idx"][()], f["/ligands/system_id"][()]))
size = f["/ligands/system_size"][()]
multi = {k for k, z in zip(zip(f["/ligands/structure_idx"][()], f["/ligands/system_id"][()]), size) if z > 1}
m = re.search(r"systems \(ligands of one model within 4 A, PLINDER\): (\d+); of 2 or more ligands: (\d+), holding (\d+)", txt)
assert m and tuple(map(int, m.groups())) == (len(systems), len(multi), int((size > 1).sum())), (m and m.groups(), len(systems))
print("survey context agrees with h5py:", len(db), "chains,", len(unp), "UniProt,", len(systems), "systems")
PY
# structures by status in the run summary's words (fresh-user trial: on ff5a492 survey said "ok 1,
# failed 2" where the run said "ok 1, failed 1 / 1 duplicates"): a copy of 4cum.pdb (duplicate) and an
# empty file (no_atoms), counted here from /structures/status with h5py and from the run's summary
mkdir -p "$WORK/c"
cp "$DATA/structures/4cum.pdb" "$WORK/c/4cum.pdb"; cp "$DATA/structures/4cum.pdb" "$WORK/c/copy.pdb"; : > "$WORK/c/empty.cif"
"$MPIEXEC" $FLAGS -np 2 "$SP" run --input "$WORK/c" --ccd "$DATA/ccd/components_excerpt.cif.gz" --out "$WORK/c.h5" \
  --quiet > "$WORK/run-c.log"
"$SP" survey "$WORK/c.h5" > "$WORK/survey-c.txt"
grep -q "^  files ok 1, failed 1 (no_atoms 1)$" "$WORK/run-c.log" && grep -q "^  1 duplicates" "$WORK/run-c.log" \
  || fail "run c summary: $(cat "$WORK/run-c.log")"
/usr/bin/python3 - "$WORK/c.h5" "$WORK/survey-c.txt" <<'PY'
import collections, sys, h5py
st = collections.Counter(h5py.File(sys.argv[1], "r")["/structures/status"].asstr()[:])
assert st == {"ok": 1, "duplicate": 1, "no_atoms": 1}, st
want = f"structures: 3 (ok {st['ok']}, failed {st['no_atoms']} (no_atoms {st['no_atoms']}), duplicates {st['duplicate']})"
line = next(l for l in open(sys.argv[2]).read().splitlines() if l.startswith("structures:"))
assert line == want, (line, want)
print("survey structures by status:", line)
PY
# the run's CCD (/run/ccd_path) moved since: the group stays unconfirmed, with a warning
cp "$WORK/b.h5" "$WORK/moved.h5"
/usr/bin/python3 -c "import h5py,sys; import numpy; h5py.File(sys.argv[1],'r+')['run'].attrs['ccd_path']=numpy.bytes_(b'/nonexistent.cif')" "$WORK/moved.h5"
"$SP" survey "$WORK/moved.h5" 2> "$WORK/err.txt" | grep -qP '\tARG DAR\tunconfirmed$' \
  || fail "no CCD: unconfirmed"
grep -q "nonexistent" "$WORK/err.txt" || fail "no CCD: message"
# a --ccd that cannot be opened is a command-line error (issue 16, docs/usage.md): exit 2
set +e; "$SP" survey "$WORK/b.h5" --ccd /nonexistent.cif > /dev/null 2>&1; rc=$?; set -e
[ $rc -eq 2 ] || fail "survey --ccd of a missing file: exit $rc, expected 2"
"$SP" survey /nonexistent.h5 > /dev/null 2>&1 && fail "missing file must fail"
# a --ccd other than the run's (another SHA-256) is said; the run's own CCD gives no warning
"$SP" survey "$WORK/b.h5" --ccd "$DATA/ccd/components_excerpt.cif" > /dev/null 2> "$WORK/err.txt"
grep -q "warning: CCD .*components_excerpt.cif is not the file the run read" "$WORK/err.txt" || fail "other CCD: no warning"
"$SP" survey "$WORK/b.h5" --ccd "$DATA/ccd/components_excerpt.cif.gz" > /dev/null 2> "$WORK/err.txt"
! grep -q "warning: CCD" "$WORK/err.txt" || fail "the run's own CCD: a warning: $(cat "$WORK/err.txt")"
echo "test_survey_cmd: all checks passed"
