#!/usr/bin/env bash
# The per-file output bound (issue 20, item 4; limits.max_file_site_atoms): the 5-frame
# trajectory of case R04 (every frame written as MODEL 1) with --model all gives 5 models and
# 5 ZN sites; with --max-file-site-atoms below its site atoms it is recorded as too_many_atoms
# with no rows, the other file of the run (R02's chain_a.pdb) unaffected; the limit is written
# to /run job_json only when it is not the default.
# usage: reader_guard.sh SITEPACK MPIEXEC CASES_DIR CCD WORKDIR
set -uo pipefail
SP=$1; MPIEXEC=$2; CASES=$3; CCD=$4; WORK=$5
FLAGS="--oversubscribe --mca osc sm"
[ "$(id -u)" = 0 ] && FLAGS="$FLAGS --allow-run-as-root"
rm -rf "$WORK"; mkdir -p "$WORK/in"
fail() { echo "FAIL: $*" >&2; exit 1; }
cp "$CASES/R04_repeated_model_numbers/every_frame_model_1.pdb" "$CASES/R02_blank_chain_seqres_ca_only/chain_a.pdb" "$WORK/in/"
run() { "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$WORK/in" --ccd "$CCD" --model all --quiet --force "$@"; }
run --out "$WORK/a.h5" > "$WORK/a.log" 2>&1 || { cat "$WORK/a.log"; fail "run a"; }
"$SP" dump "$WORK/a.h5" structures > "$WORK/a.tsv" || fail "dump a"
cat "$WORK/a.tsv" | cut -f1-12
# site atoms of the trajectory: the sum of /sites n_atoms of its rows (counted here with h5py)
N=$(/usr/bin/python3 - "$WORK/a.h5" <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
paths = [p.decode() for p in f["/structures/path"][:]]
k = paths.index("every_frame_model_1.pdb")
si, na = f["/sites/structure_idx"][:], f["/sites/n_atoms"][:]
assert f["/structures/n_models"][k] == 5, f["/structures/n_models"][k]
assert (si == k).sum() == 5, (si == k).sum()
assert sorted(f["/ligands/model_num"][f["/ligands/structure_idx"][:] == k]) == [1, 2, 3, 4, 5]
print(int(na[si == k].sum()))
PY
) || fail "run a: 5 models, 5 sites, model numbers 1..5"
echo "site atoms of the trajectory: $N"
# fresh-user trial: `dump sites` has the ligand's model_num, so the 5 models' sites are told apart
# (the same values as /ligands/model_num; before, the five rows differed in nothing but site_idx)
"$SP" dump "$WORK/a.h5" sites > "$WORK/a_sites.tsv" || fail "dump a sites"
col=$(head -1 "$WORK/a_sites.tsv" | tr '\t' '\n' | grep -nx model_num | cut -d: -f1)
[ -n "$col" ] || fail "dump sites has no model_num column: $(head -1 "$WORK/a_sites.tsv")"
got=$(grep -P "\tevery_frame_model_1.pdb\t" "$WORK/a_sites.tsv" | cut -f"$col" | sort -n | tr '\n' ' ')
[ "$got" = "1 2 3 4 5 " ] || fail "dump sites model_num of the trajectory: '$got', not 1..5"
[ "$N" -gt 5 ] || fail "too few site atoms: $N"
run --out "$WORK/b.h5" --max-file-site-atoms $((N - 1)) > "$WORK/b.log" 2>&1 || { cat "$WORK/b.log"; fail "run b"; }
"$SP" dump "$WORK/b.h5" structures > "$WORK/b.tsv" || fail "dump b"
/usr/bin/python3 - "$WORK/a.h5" "$WORK/b.h5" "$N" <<'PY' || fail "run b: too_many_atoms for the trajectory only"
import json, sys, h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
st = {p.decode(): (s.decode(), e.decode()) for p, s, e in zip(b["/structures/path"][:], b["/structures/status"][:], b["/structures/error"][:])}
print(st)
assert st["every_frame_model_1.pdb"][0] == "too_many_atoms", st
assert "limits.max_file_site_atoms" in st["every_frame_model_1.pdb"][1], st
assert st["chain_a.pdb"][0] == "ok", st
paths = [p.decode() for p in b["/structures/path"][:]]
k = paths.index("every_frame_model_1.pdb")
assert (b["/ligands/structure_idx"][:] == k).sum() == 0 and (b["/sites/structure_idx"][:] == k).sum() == 0
ka = [p.decode() for p in a["/structures/path"][:]].index("chain_a.pdb")
assert (b["/sites/structure_idx"][:] == paths.index("chain_a.pdb")).sum() == (a["/sites/structure_idx"][:] == ka).sum() == 1
ja, jb = json.loads(a["/run"].attrs["job_json"]), json.loads(b["/run"].attrs["job_json"])
assert "max_file_site_atoms" not in ja.get("limits", {}), ja
assert jb["limits"]["max_file_site_atoms"] == int(sys.argv[3]) - 1, jb
PY
echo "reader_guard: ok"
