#!/bin/bash
# Issue 16, the docs' claims (docs/reliability.md "Status classes"): a file removed between the scan and
# its task gets the status `not_found` (not `io_error`), its row names it, and the run goes on (exit 0).
# On main at 6dbf0bd (run once against it) this test passed already: the docs' `not_found` was right
# there; the test keeps it so. (`run --help` lists every option and `survey --ccd` with a missing file
# exits 2: both checked by integration_cli.)
source "$(dirname "$0")/reliability_lib.sh"
D=$T/in; mkdir -p "$D"
cp "$SRC/tests/data/structures/1stp.cif" "$SRC/tests/data/structures/1cbn.pdb" "$D/"
cp "$SRC/tests/data/structures/1stp.cif" "$D/zz_last.cif"; echo "# not the same bytes" >> "$D/zz_last.cif"
head -c 20000 "$SRC/tests/data/structures/1cbn.pdb" > "$D/small.pdb"   # the smallest: planned last (LPT)
# one rank, a pause after each task (test hook): the smallest file is removed while the others run
SITEPACK_TEST_TASK_DELAY_MS=1500 "${MPI[@]}" -np 1 "$BIN" run --input "$D" --ccd "$CCD" --out "$T/r.h5" \
  > "$T/r.log" 2>&1 & mp=$!
for k in $(seq 1 200); do [ -e "$T/r.h5.parts/rank-00000.h5" ] && break; sleep 0.05; done
rm "$D/small.pdb"
wait $mp || die "run failed: $(cat "$T/r.log")"
cat "$T/r.log"
$PY - "$T/r.h5" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
rows = {p.decode(): (s.decode(), e.decode()) for p, s, e in zip(f["structures/path"][:], f["structures/status"][:], f["structures/error"][:])}
print(rows["small.pdb"])
assert rows["small.pdb"][0] == "not_found", rows["small.pdb"]
assert "small.pdb" in rows["small.pdb"][1], rows["small.pdb"]
assert all(rows[p][0] == "ok" for p in ("1stp.cif", "1cbn.pdb", "zz_last.cif")), rows
PY
grep -q "not_found" "$T/r.log" || die "the summary does not name the class"
echo "reliability_removed: ok"
