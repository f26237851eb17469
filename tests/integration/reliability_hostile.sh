#!/bin/bash
# Issue 9: a directory of hostile files mixed with good ones. The run completes (exit 0), every good
# file is ok, every bad one has its stable class; the per-task guard --max-atoms records a large good
# file as too_many_atoms; two zero-byte files are each no_atoms (not a duplicate). Unreadable files: as
# root, chmod 000 does not stop reads, so the test uses what root cannot read as a file either: a directory
# named x.cif (the scan recurses into it: no row) and a FIFO named fifo.cif (not a regular file: listed
# by the scan as not_a_file, never opened, so no hang).
source "$(dirname "$0")/reliability_lib.sh"
D=$T/in; mkdir -p "$D/x.cif"
for f in 1stp.cif 1cbn.pdb 4hhb.cif.gz 7gsa.cif; do cp "$SRC/tests/data/structures/$f" "$D/"; done
: > "$D/empty.cif"
: > "$D/empty2.cif"   # issue 39 item 1: a second empty file is no_atoms too, never a duplicate of the first
head -c 3000 "$SRC/tests/data/structures/1dul.cif.gz" > "$D/truncated.cif.gz"
$PY -c "import random,sys; r=random.Random(9); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(5000)))" > "$D/random.cif"
printf 'This is a plain text note, not a structure.\nSecond line.\n' > "$D/text.cif"
ln -s loop.cif "$D/loop.cif"          # a symlink loop (ELOOP)
mkfifo "$D/fifo.cif"
cp "$SRC/tests/data/structures/1cbn.pdb" "$D/x.cif/1cbn_copy.pdb"   # inside the directory named x.cif: a duplicate
"${MPI[@]}" -np 2 "$BIN" run --input "$D" --ccd "$CCD" --out "$T/h.h5" --max-atoms 4800 --quiet > "$T/h.log" 2>&1 \
  || die "run failed: $(cat $T/h.log)"
cat "$T/h.log"
$PY - "$T/h.h5" "$T/h.report.json" <<'PY'
import json, sys, h5py
f = h5py.File(sys.argv[1], "r")
got = {p.decode(): s.decode() for p, s in zip(f["structures/path"][:], f["structures/status"][:])}
want = {
    "1stp.cif": "ok", "1cbn.pdb": "ok", "4hhb.cif.gz": "ok",   # good files (4hhb: 4779 atoms <= 4800)
    "7gsa.cif": "too_many_atoms",                               # good, but 4914 atoms > --max-atoms 4800
    "empty.cif": "no_atoms", "empty2.cif": "no_atoms", "truncated.cif.gz": "truncated_gzip", "random.cif": "binary_input",
    "text.cif": "unknown_format", "x.cif/1cbn_copy.pdb": "duplicate",
}
for k, v in sorted(got.items()):
    print(f"{k:24s} {v}")
assert got == want, (got, want)
err = {p.decode(): e.decode() for p, e in zip(f["structures/path"][:], f["structures/error"][:])}
assert "4914" in err["7gsa.cif"] and "4800" in err["7gsa.cif"], err["7gsa.cif"]
rep = json.load(open(sys.argv[2]))
assert rep["files"]["failed_by_class"].get("too_many_atoms") == 1, rep["files"]
# duplicates are neither ok nor failed: their own count, not a failure class
assert rep["files"]["duplicates"] == 1 and "duplicate" not in rep["files"]["failed_by_class"], rep["files"]
assert rep["files"]["failed"] == sum(rep["files"]["failed_by_class"].values()), rep["files"]
# issue 16 item 4: the scan lists what it could not read (b0a8729 dropped them without a word)
assert rep["scan"]["problems_by_kind"] == {"symlink_loop": 1, "not_a_file": 1}, rep["scan"]
print("hostile: ok,", len(got), "rows; loop.cif and fifo.cif listed by the scan:", rep["scan"]["problems_by_kind"])
PY

# --symmetry-mates on a crystal cell whose space group CCP4 does not know: no csymlib text on stdout,
# one warning on the file's row, the file ok
S=$T/sg; mkdir -p "$S"
{ echo "CRYST1   50.000   60.000   70.000  90.00  90.00  90.00 X 9 9 9       4"
  grep -E '^(ATOM|HETATM)' "$SRC/tests/data/structures/1cbn.pdb"; echo END; } > "$S/x.pdb"
"${MPI[@]}" -np 1 "$BIN" run --input "$S" --ccd "$CCD" --out "$T/sg.h5" --symmetry-mates > "$T/sg.log" 2>&1 \
  || die "symmetry run failed: $(cat $T/sg.log)"
grep -qi syminfo "$T/sg.log" && die "csymlib text reached the output: $(cat $T/sg.log)"
$PY - "$T/sg.h5" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
assert f["structures/status"][0].decode() == "ok" and int(f["structures/n_warnings"][0]) == 1, \
    (f["structures/status"][0], f["structures/n_warnings"][0])
print("unknown space group: ok, one warning, no csymlib text")
PY
