#!/bin/bash
# Issue 16 item 7: no silent truncation of a path or of a text column a user's input can overflow.
# On main at b0a8729 (run once against it) this test failed at its first check: two files in a deep
# folder got the same 511-byte /structures/path; the component name, the entry id and the method
# were cut without a mark.
source "$(dirname "$0")/reliability_lib.sh"
D=$T/in; L=$(printf 'a%.0s' $(seq 200)); DEEP="$D/$L/$L/$L"   # relative paths of 600+ bytes
mkdir -p "$DEEP"
cp "$SRC/tests/data/structures/1stp.cif" "$DEEP/first.cif"
cp "$SRC/tests/data/structures/1cbn.pdb" "$DEEP/second.pdb"
# an entry id of 40 characters and two methods of 60 together: wider than entry_id (32) and method (48)
sed -e "s/^_entry.id .*/_entry.id   $(printf 'E%.0s' $(seq 40))/" \
    -e "s/^_exptl.method .*/_exptl.method 'X-RAY DIFFRACTION WITH A VERY LONG NAME OF A METHOD'/" \
    "$SRC/tests/data/structures/1stp.cif" > "$D/long_meta.cif"
cp "$SRC/tests/data/structures/4hhb.cif.gz" "$D/"
# a CCD whose HEM name (150 characters) is wider than /components/name (80)
LONG="PROTOPORPHYRIN IX CONTAINING FE $(printf 'X%.0s' $(seq 118))"
sed "s/^_chem_comp.name  *\"PROTOPORPHYRIN IX CONTAINING FE\"/_chem_comp.name \"$LONG\"/" "$CCD" > "$T/ccd.cif"
grep -q "$LONG" "$T/ccd.cif" || die "test set-up: HEM name not replaced"
"${MPI[@]}" -np 2 "$BIN" run --input "$D" --ccd "$T/ccd.cif" --out "$T/n.h5" --quiet > "$T/n.log" 2>&1 \
  || die "run failed: $(cat $T/n.log)"
$PY - "$T/n.h5" "$LONG" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
paths = [p.decode() for p in f["structures/path"][:]]
print("paths:", [p if len(p) < 60 else p[:20] + "...(%d bytes)" % len(p) for p in paths])
# the long paths are never cut into one name: not in /structures (the scan lists them, see the run report)
assert len(set(paths)) == len(paths), "two rows share a path"
assert all(len(p.encode()) < 511 for p in paths), "a path was cut to the column's width"
assert sorted(paths) == ["4hhb.cif.gz", "long_meta.cif"], paths
st = {p: i for i, p in enumerate(paths)}
eid = f["structures/entry_id"][st["long_meta.cif"]].decode()
meth = f["structures/method"][st["long_meta.cif"]].decode()
print("entry_id", eid, "method", meth)
assert eid.endswith("...") and eid.startswith("E" * 28), eid
assert meth.endswith("...") and meth.startswith("X-RAY DIFFRACTION WITH A VERY"), meth
comp = {c.decode(): i for i, c in enumerate(f["components/comp_id"][:])}
name = f["components/name"][comp["HEM"]].decode()
print("HEM name", name)
want = sys.argv[2]
assert name.endswith("...") and want.startswith(name[:-3]) and len(name) == f["components/name"].dtype.itemsize - 1, name
print("names: ok")
PY

# Issue 16 item 6: names with a tab, a newline and bytes that are not UTF-8. On main at b0a8729 (run once
# against it) the report was not valid JSON and the summary's failed-file line was split by the tab.
# Now: /structures/path holds the name escaped (io.h sp_path_escape: \xNN for a control byte, a byte
# that is not UTF-8, and the backslash), the report is valid JSON, the summary quotes the name.
O=$T/odd; mkdir -p "$O"
cp "$SRC/tests/data/structures/1stp.cif" "$O/$(printf 'tab\there.cif')"
cp "$SRC/tests/data/structures/1cbn.pdb" "$O/$(printf 'new\nline.pdb')"
cp "$SRC/tests/data/structures/4hhb.cif.gz" "$O/$(printf 'lat\xe9in.cif.gz')"
: > "$O/$(printf 'empty\tfile.cif')"
"${MPI[@]}" -np 2 "$BIN" run --input "$O" --ccd "$CCD" --out "$T/o.h5" > "$T/o.log" 2>&1 || die "odd names: $(cat $T/o.log)"
grep -A2 "failed files" "$T/o.log"
grep -qF '    "empty\x09file.cif"	no_atoms' "$T/o.log" || die "summary does not quote the odd name: $(cat $T/o.log)"
$PY - "$T/o.h5" "$T/o.report.json" <<'PY'
import json, sys, h5py
f = h5py.File(sys.argv[1], "r")
paths = sorted(p.decode("utf-8") for p in f["structures/path"][:])   # valid UTF-8
want = sorted(["tab\\x09here.cif", "new\\x0aline.pdb", "lat\\xe9in.cif.gz", "empty\\x09file.cif"])
assert paths == want, (paths, want)
raw = open(sys.argv[2], "rb").read()
rep = json.loads(raw.decode("utf-8"))                                  # valid JSON, valid UTF-8
fails = rep["files"]["failures"]
assert [x["path"] for x in fails] == ["empty\\x09file.cif"] and fails[0]["class"] == "no_atoms", fails
print("odd names:", paths)
PY

# fresh-user trial: a `"` inside the summary's quotes is escaped (\x22), as the backslash is (\x5c): one
# rule, replace each \xNN by its byte (before: "quoted".pdb printed as ""quoted".pdb")
Q=$T/quote; mkdir -p "$Q"
cp "$SRC/tests/data/structures/1stp.cif" "$Q/"; : > "$Q/\"quoted\".pdb"; echo "not a structure" > "$Q/back\\slash.pdb"
"${MPI[@]}" -np 1 "$BIN" run --input "$Q" --ccd "$CCD" --out "$T/q.h5" > "$T/q.log" 2>&1 || die "quoted names: $(cat $T/q.log)"
grep -qF '    "\x22quoted\x22.pdb"	' "$T/q.log" || die "summary quoting of a \": $(cat $T/q.log)"
grep -qF '    "back\x5cslash.pdb"	' "$T/q.log" || die "summary quoting of a backslash: $(cat $T/q.log)"

# Issue 16 item 6: the columns of the user's text are UTF-8 and say so (H5T_CSET_UTF8), so h5py's
# .asstr() decodes them; a UTF-8 name, a tab, a newline and a byte that is not UTF-8 in one run. On main
# at 6dbf0bd (run once against it) this failed at its first check: /structures/path was declared
# ASCII (cset 0), so .asstr() decodes 'café.cif' as ASCII and fails. sitepack check and the Python package read the file.
U=$T/utf8; mkdir -p "$U"
cp "$SRC/tests/data/structures/1stp.cif" "$U/café.cif"
cp "$SRC/tests/data/structures/1cbn.pdb" "$U/$(printf 'new\nline.pdb')"
cp "$SRC/tests/data/structures/4hhb.cif.gz" "$U/$(printf 'lat\xe9in.cif.gz')"
: > "$U/$(printf 'vidé\tfile.cif')"
"${MPI[@]}" -np 2 "$BIN" run --input "$U" --ccd "$CCD" --out "$T/u.h5" > "$T/u.log" 2>&1 || die "UTF-8 names: $(cat $T/u.log)"
grep -qF '    "vidé\x09file.cif"	no_atoms' "$T/u.log" || die "summary does not quote the odd name: $(cat $T/u.log)"
"$BIN" check "$T/u.h5" --quiet || die "check refuses the file with UTF-8 names"
PYTHONPATH="$SRC/python" $PY - "$T/u.h5" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
for col in ("path", "error", "entry_id", "method"):
    cs = f["structures/" + col].id.get_type().get_cset()
    assert cs == h5py.h5t.CSET_UTF8, (col, cs)
assert f["structures/status"].id.get_type().get_cset() == h5py.h5t.CSET_ASCII
paths = sorted(f["structures/path"].asstr()[:])
want = sorted(["café.cif", "new\\x0aline.pdb", "lat\\xe9in.cif.gz", "vidé\\x09file.cif"])
assert paths == want, (paths, want)
errors = [e for e in f["structures/error"].asstr()[:] if e]
assert len(errors) == 1 and "vidé" in errors[0] and "\t" not in errors[0], errors
import sitepack
ds = sitepack.open(sys.argv[1])
print("python package:", len(ds), "sites; paths", paths)
assert len(ds) >= 3
PY
echo "reliability_names: ok"
