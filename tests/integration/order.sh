#!/usr/bin/env bash
# Integration (issue 20 item 1): the merged content does not depend on what a rank processed before.
# The shared corpus plus 1a4w_unl.pdb (1A4W.pdb with its waters renamed UNL: identical atoms at identical
# coordinates, other residue roles and ligands; next to 1a4w.pdb in the sorted input) at -np 1, every task
# in input order and in reverse order (test hook SITEPACK_TEST_TASK_ORDER), with and without
# --symmetry-mates: the same content (compare_h5.py, timing fields aside). Also 1a4w_unl.pdb alone against
# its rows in the corpus run. Fails on 2f41c4e (the burial of a file after its identical-atom twin).
# usage: order.sh SITEPACK MPIEXEC WORKDIR SOURCE_DIR SHARED_DATA
set -euo pipefail
SP=$1; MPIEXEC=$2; WORK=$3; SRC=$4; DATA=$5
PY=/usr/bin/python3
FLAGS="--oversubscribe --mca osc sm"
[ "$(id -u)" = 0 ] && FLAGS="$FLAGS --allow-run-as-root"
rm -rf "$WORK"; mkdir -p "$WORK/in" "$WORK/alone"
for f in "$DATA"/structures/*; do ln -s "$f" "$WORK/in/"; done
sed 's/HOH/UNL/g' "$DATA/structures/1a4w.pdb" > "$WORK/in/1a4w_unl.pdb"
cp "$WORK/in/1a4w_unl.pdb" "$WORK/alone/"
CCD="$DATA/ccd/components_excerpt.cif.gz"
for sym in "" --symmetry-mates; do
  for order in input reverse; do
    SITEPACK_TEST_TASK_ORDER=$order "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$WORK/in" --ccd "$CCD" $sym \
      --out "$WORK/$order$sym.h5" --force --quiet
  done
  "$PY" "$SRC/tests/integration/compare_h5.py" "$WORK/input$sym.h5" "$WORK/reverse$sym.h5"
done
"$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$WORK/alone" --ccd "$CCD" --out "$WORK/alone.h5" --force --quiet
"$PY" - "$WORK/input.h5" "$WORK/alone.h5" <<'PYEOF'
import sys
import h5py
import numpy as np
full, alone = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
def rows(f, name):
    paths = [p.decode() for p in f["/structures/path"][()]]
    i = [k for k, p in enumerate(paths) if p.endswith(name)]
    assert len(i) == 1, (name, i)
    sel = f["/sites/structure_idx"][()] == i[0]
    return f["/sites/sasa_complex"][()][sel], f["/sites/sasa_free"][()][sel]
a, b = rows(full, "1a4w_unl.pdb"), rows(alone, "1a4w_unl.pdb")
assert len(a[0]) > 0 and np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), (a, b)
print(f"ok: input and reverse order identical; 1a4w_unl.pdb in the corpus = alone ({len(a[0])} sites)")
PYEOF
