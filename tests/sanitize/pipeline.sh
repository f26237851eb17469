#!/bin/bash
# The whole pipeline under ASan + UBSan (make sanitize, label `sanitize`): run on the bundled sample plus
# tests/data/sanitize (a ligand of hydrogens only with no residue within the cutoff: its empty hit list once
# reached qsort as NULL), then check, dump, survey, export, split, cluster and report on the output.
# `run` is started alone (an MPI singleton) with leak detection off: Open MPI's own allocations, held until
# exit in components it unloads, are reported as leaks with no frame to suppress them by. Every other command
# is plain C + HDF5 and runs with leak detection on (an export once leaked /bonds/flags).
# usage: pipeline.sh SITEPACK SOURCE_DIR WORK_DIR
set -u
bin=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/in" || exit 1
cp "$src"/tests/data/structures/* "$src"/tests/data/sanitize/*.pdb "$work/in/" || exit 1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
fail() { echo "sanitize pipeline: $*" >&2; exit 1; }
ASAN_OPTIONS=detect_leaks=0 "$bin" run --input "$work/in" --ccd "$src/tests/data/ccd/components_sample.cif" \
  --out "$work/o.h5" --force --quiet || fail "run failed"
export ASAN_OPTIONS=detect_leaks=1
"$bin" check "$work/o.h5" --quiet || fail "check failed"
for t in structures ligands sites components residues interactions bonds chains segments; do
  "$bin" dump "$work/o.h5" "$t" > "$work/$t.tsv" || fail "dump $t failed"
done
"$bin" survey "$work/o.h5" > /dev/null || fail "survey failed"
"$bin" export "$work/o.h5" --all --format sdf,pdb,cif --out "$work/export" --force > /dev/null || fail "export failed"
if command -v mmseqs > /dev/null; then   # cluster runs MMseqs2 (Debian's mmseqs2); split needs its /clusters
  "$bin" cluster "$work/o.h5" --force --quiet > /dev/null || fail "cluster failed"
  "$bin" split "$work/o.h5" --force > /dev/null || fail "split failed"
fi
# the HTML page (docs/report.md), with the 3D blocks of the first site and of the hydrogen-only ligand's site
hyd=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["comp_id"] == "HYD" { print $c["site_idx"] }' "$work/ligands.tsv")
"$bin" report "$work/o.h5" --out "$work/report.html" --site "0,${hyd:-1}" --force --quiet || fail "report failed"
# the hydrogen-only ligand is there, with no heavy atom and no site residue
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["comp_id"] == "HYD" { n++; if ($c["n_heavy_atoms"] != 0) bad = 1 }
            END { exit !(n == 1 && !bad) }' "$work/ligands.tsv" || fail "the HYD ligand (2 H, no heavy atom) is not one row with n_heavy_atoms 0"
echo "sanitize pipeline: run, check, dump, survey, export, cluster, split, report clean under ASan + UBSan"
