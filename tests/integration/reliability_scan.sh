#!/bin/bash
# Issue 16 item 4: every path the scan cannot enter or read is a counted, listed warning in the summary
# and the run report (never dropped without a word); a loop is reported once. On main at b0a8729 (run
# once against it) the run said nothing of them (the report had no "scan" object). The unreadable
# directory needs a process without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH: as root the run is started
# through setpriv with both dropped (exit 77 = skipped where setpriv is missing).
source "$(dirname "$0")/reliability_lib.sh"
command -v setpriv > /dev/null || { echo "SKIP: no setpriv to drop root's file capabilities"; exit 77; }
D=$T/in; mkdir -p "$D/sub" "$D/locked"
cp "$SRC/tests/data/structures/1stp.cif" "$D/"
cp "$SRC/tests/data/structures/1cbn.pdb" "$D/sub/"
cp "$SRC/tests/data/structures/7gsa.cif" "$D/locked/"
chmod 000 "$D/locked"                          # unreadable_directory: its file is unknown
ln -s nothere.cif "$D/broken.cif"              # broken_symlink
ln -s self.cif "$D/self.cif"                   # symlink_loop
mkfifo "$D/pipe.pdb"                           # not_a_file
ln -s .. "$D/sub/up"                           # directory_loop (reported once)
ln -s nothere "$D/notes"                       # not structure-named: only counted
trap 'chmod 755 "$D/locked" 2>/dev/null || true' EXIT
NOCAP=(setpriv --inh-caps=-all --bounding-set=-dac_override,-dac_read_search)
"${NOCAP[@]}" "${MPI[@]}" -np 2 "$BIN" run --input "$D" --ccd "$CCD" --out "$T/s.h5" > "$T/s.log" 2>&1 \
  || die "run failed: $(cat $T/s.log)"
grep -A8 "scan:" "$T/s.log" || true
grep -q "scan: 5 paths could not be read" "$T/s.log" || die "summary: $(cat $T/s.log)"
$PY - "$T/s.h5" "$T/s.report.json" <<'PY'
import json, sys, h5py
f = h5py.File(sys.argv[1], "r")
paths = sorted(p.decode() for p in f["structures/path"][:])
assert paths == ["1stp.cif", "sub/1cbn.pdb"], paths
rep = json.load(open(sys.argv[2]))
scan = rep["scan"]
want = {"unreadable_directory": 1, "broken_symlink": 1, "symlink_loop": 1, "not_a_file": 1, "directory_loop": 1}
assert scan["problems_by_kind"] == want, scan
got = {(p["path"], p["kind"]) for p in scan["paths"]}
assert got == {("locked", "unreadable_directory"), ("broken.cif", "broken_symlink"), ("self.cif", "symlink_loop"),
               ("pipe.pdb", "not_a_file"), ("sub/up", "directory_loop")}, got
assert scan["problems"] == 5 and scan["skipped"] == 6, scan
print("scan problems:", sorted(got))
PY
echo "reliability_scan: ok"
