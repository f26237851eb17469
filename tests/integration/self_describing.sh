#!/usr/bin/env bash
# Issue 26: the merged file describes itself. Runs sitepack on the bundled sample (tests/data, no corpus needed),
# then: sitepack check passes; tests/peer/test_format_attrs.py walks every dataset with h5py alone (units of every
# numeric column, the names of every coded column covering the data, the root attributes) and compares them with
# docs/format.md "Units and codes"; a copy without one `units` attribute, one without a `codes` attribute and one
# without the root `created` are refused by check (exit 1, naming what is missing).
# usage: self_describing.sh SITEPACK PYTHON SOURCE_DIR WORK
set -uo pipefail
SP=$1 PY=$2 SRC=$3 W=$4
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$SP" run --input "$SRC/tests/data/structures" --ccd "$SRC/tests/data/ccd/components_sample.cif" --out "$W/s.h5" \
  >"$W/run.log" 2>&1 || fail "run: $(tail -3 "$W/run.log")"
"$SP" check "$W/s.h5" >"$W/check.log" 2>&1 || fail "check of the run's file: $(cat "$W/check.log")"
"$PY" "$SRC/tests/peer/test_format_attrs.py" "$W/s.h5" "$SRC/docs/format.md" || fail "test_format_attrs.py"
# issue 39 item 5: a description on every dataset, agreeing with the data (CSR pointers, offsets, per-type columns);
# /clusters and /splits: split_sample runs it after cluster and split
"$PY" "$SRC/tests/peer/test_descriptions.py" "$W/s.h5" || fail "test_descriptions.py"
refused() { # FILE WORDS: check exits 1 and its message holds WORDS
  "$SP" check "$1" >"$W/c.log" 2>&1; rc=$?
  [ $rc -eq 1 ] && grep -qF "$2" "$W/c.log" || fail "check $1: rc $rc, expected 1 with '$2': $(cat "$W/c.log")"
}
for cut in "atoms/position@units" "interactions/type@codes" "@created"; do
  obj=${cut%@*} attr=${cut#*@} copy="$W/cut_${attr}.h5"
  cp "$W/s.h5" "$copy"
  "$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r+'); del (f[sys.argv[2]] if sys.argv[2] else f).attrs[sys.argv[3]]" \
    "$copy" "$obj" "$attr" || fail "cannot cut $cut"
  if [ -n "$obj" ]; then refused "$copy" "/$obj has no string attribute $attr"; else refused "$copy" "no string root attribute $attr"; fi
done
echo "self-describing: check, h5py walk, docs/format.md, 3 cut copies refused"
