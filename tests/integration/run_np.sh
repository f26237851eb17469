#!/usr/bin/env bash
# Integration: the demo job at -np 1 and -np 3 (oversubscribed) gives merged files with the
# same content apart from timing fields; every input file has a /structures row.
# usage: run_np.sh SITEPACK MPIEXEC WORKDIR SOURCE_DIR
set -euo pipefail
SP=$1; MPIEXEC=$2; WORK=$3; SRC=$4
PY=/usr/bin/python3
FLAGS="--oversubscribe --mca osc sm"
[ "$(id -u)" = 0 ] && FLAGS="$FLAGS --allow-run-as-root"
rm -rf "$WORK"; mkdir -p "$WORK"
for np in 1 3; do
  "$MPIEXEC" $FLAGS -np $np "$SP" run "$SRC/jobs/demo.json" --out "$WORK/np$np.h5" --quiet > "$WORK/np$np.log"
  cat "$WORK/np$np.log"
done
"$PY" "$SRC/tests/integration/compare_h5.py" "$WORK/np1.h5" "$WORK/np3.h5"
# symmetry mates (docs/sites.md): the same determinism, and the image residues are there
for np in 1 3; do
  "$MPIEXEC" $FLAGS -np $np "$SP" run "$SRC/jobs/demo.json" --symmetry-mates --out "$WORK/sym$np.h5" --quiet > "$WORK/sym$np.log"
done
"$PY" "$SRC/tests/integration/compare_h5.py" "$WORK/sym1.h5" "$WORK/sym3.h5"
"$SP" check "$WORK/sym3.h5" > /dev/null
"$PY" - "$WORK/sym1.h5" "$WORK/np1.h5" <<'PYEOF'
import sys
import h5py
m, a = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert "symop" not in a["residues"], "/residues/symop written without --symmetry-mates"
sym = m["residues/symop"][()]
n = int((sym != b"").sum())
assert n > 0, "no symmetry-mate residue in the demo sample"
assert (m["sites/flags"][()] & 4).any()
print(f"ok: symmetry mates at -np 1 and 3 identical, {n} image residues")
PYEOF
n_files=$(find "$SRC/tests/data/structures" -type f | wc -l)
"$PY" - "$WORK/np1.h5" "$n_files" "$WORK/np1.report.json" <<'PYEOF'
import json, sys
import h5py
f = h5py.File(sys.argv[1], "r")
n_files = int(sys.argv[2])
st = f["/structures"]
paths = [p.decode() for p in st["path"][()]]
status = [s.decode() for s in st["status"][()]]
assert len(paths) == n_files, (len(paths), n_files)
assert paths == sorted(paths), "structures not ordered by path"
bad = [(p, s) for p, s in zip(paths, status) if s != "ok"]
assert not bad, f"sample files failed: {bad}"
n_lig = f["/ligands/comp_id"].shape[0]
ptr = f["/sites/atom_ptr"][()]
assert ptr[0] == 0 and (ptr[1:] >= ptr[:-1]).all() and ptr[-1] == f["/atoms/element"].shape[0]
rep = json.load(open(sys.argv[3]))
assert rep["files"]["total"] == n_files and rep["files"]["ok"] == n_files, rep["files"]
assert rep["ligands"] == n_lig, (rep["ligands"], n_lig)
assert len(rep["ranks"]) == 1
print(f"ok: {n_files} files, {n_lig} ligands, {len(ptr) - 1} sites, {ptr[-1]} site atoms")
PYEOF
