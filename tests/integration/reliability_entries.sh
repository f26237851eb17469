#!/bin/bash
# Issue 16 item 12: the same entry in two files (4hhb.cif.gz and 4hhb.pdb.gz; 1stp.cif and 1stp.cif.gz,
# other bytes, so no duplicate). Default `entries: all`: every file is processed and
# /structures/entry_first names the first file of each entry; `entries: first` (job file or
# --entries first): the later files get a `repeated_entry` row and no ligands, the rest is the same as
# the `all` run; the summary and the report count them; the same with two shards. On main at 6dbf0bd
# (run once against it) this test failed at its second run: --entries was an unknown option (and the
# first run had no /structures/entry_first and no count in the summary).
source "$(dirname "$0")/reliability_lib.sh"
CMP="$PY $SRC/tests/integration/compare_h5.py"
D=$T/in; mkdir -p "$D"
cp "$SRC/tests/data/structures/4hhb.cif.gz" "$SRC/tests/data/structures/4hhb.pdb.gz" "$SRC/tests/data/structures/1cbn.pdb" "$D/"
cp "$SRC/tests/data/structures/1stp.cif" "$D/"; gzip -c "$D/1stp.cif" > "$D/1stp.cif.gz"
RUN=("${MPI[@]}" -np 2 "$BIN" run --input "$D" --ccd "$CCD")
"${RUN[@]}" --out "$T/all.h5" > "$T/all.log" 2>&1 || die "entries all: $(cat "$T/all.log")"
"${RUN[@]}" --out "$T/first.h5" --entries first > "$T/first.log" 2>&1 || die "entries first: $(cat "$T/first.log")"
cat "$T/all.log" "$T/first.log" | grep "entries in more than one file"
grep -q "entries in more than one file: 2; their 2 later files kept (processed unless a duplicate" "$T/all.log" || die "all: summary"
grep -q "entries in more than one file: 2; their 2 later files not processed (entries: first" "$T/first.log" \
  || die "first: summary"
printf '{"input": "%s", "ccd": "%s", "output": "%s", "entries": "first"}' "$D" "$CCD" "$T/job.h5" > "$T/job.json"
"${MPI[@]}" -np 1 "$BIN" run "$T/job.json" --quiet > "$T/job.log" 2>&1 || die "job file entries: first: $(cat "$T/job.log")"
printf '{"input": "%s", "output": "%s", "entries": "some"}' "$D" "$T/bad.h5" > "$T/bad.json"
"${MPI[@]}" -np 1 "$BIN" run "$T/bad.json" > "$T/bad.log" 2>&1 && die "entries: some accepted"
grep -q 'entries must be "all" or "first"' "$T/bad.log" || die "bad entries message: $(cat "$T/bad.log")"
for i in 0 1; do
  "${RUN[@]}" --entries first --shard $i/2 --out "$T/s$i.h5" --quiet > /dev/null 2>&1 || die "shard $i"
done
"$BIN" merge "$T/sm.h5" "$T/s0.h5" "$T/s1.h5" --quiet || die "merge of the entries: first shards"
$CMP "$T/first.h5" "$T/sm.h5" || die "entries: first shards differ from the single run"
for f in all first job sm; do "$BIN" check "$T/$f.h5" --quiet || die "check refuses $f.h5"; done
$PY - "$T" <<'PY'
import json, sys, h5py, numpy as np
t = sys.argv[1]
def rows(name):
    f = h5py.File(f"{t}/{name}.h5", "r")
    s = f["structures"]
    return f, {p: k for k, p in enumerate(s["path"].asstr()[:])}, s
fa, ia, sa = rows("all")
ff, i_f, sf = rows("first")
want_first = {"1cbn.pdb": "1cbn.pdb", "1stp.cif": "1stp.cif", "1stp.cif.gz": "1stp.cif",
              "4hhb.cif.gz": "4hhb.cif.gz", "4hhb.pdb.gz": "4hhb.cif.gz"}
paths = list(ia)
for s, idx in ((sa, ia), (sf, i_f)):
    ef = s["entry_first"][:]
    got = {p: paths[ef[k]] for p, k in idx.items()}
    assert got == want_first, got
# the parsers' own entry ids agree with the grouping (cross-check of the head reader)
eid = sa["entry_id"].asstr()[:]
for p, k in ia.items():
    assert eid[k].upper() == eid[ia[want_first[p]]].upper(), (p, eid[k])
st_a, st_f = sa["status"].asstr()[:], sf["status"].asstr()[:]
assert all(x == "ok" for x in st_a), st_a
later = {"1stp.cif.gz", "4hhb.pdb.gz"}
for p, k in i_f.items():
    assert st_f[k] == ("repeated_entry" if p in later else "ok"), (p, st_f[k])
err = sf["error"].asstr()[i_f["4hhb.pdb.gz"]]
assert err == "entry 4HHB is in 4hhb.cif.gz, processed instead (entries: first)", err
nl_a, nl_f = sa["n_ligands"][:], sf["n_ligands"][:]
for p in later:
    assert nl_f[i_f[p]] == 0 and nl_a[ia[p]] > 0, p
# every other file: the same ligands and sites as in the `all` run
keep = [p for p in paths if p not in later]
assert [nl_a[ia[p]] for p in keep] == [nl_f[i_f[p]] for p in keep]
assert ff["sites/n_atoms"].shape[0] == sum(sa["n_sites"][ia[p]] for p in keep)
for name, nrep in (("all", 0), ("first", 2)):
    fl = json.load(open(f"{t}/{name}.report.json"))["files"]
    e = fl["entries"]
    assert e == {"policy": name, "in_several_files": 2, "later_files": 2, "not_processed": nrep}, e
    assert fl["failed"] == 0 and "repeated_entry" not in fl["failed_by_class"], fl
print("entries: ok", {p: want_first[p] for p in paths})
PY
# fresh-user trial: a file that fails to parse gets its head's entry id as entry_id (on ff5a492 it was
# empty while entry_first linked it to its entry): the first 3000 bytes of 4hhb.cif.gz (truncated_gzip)
mkdir -p "$T/tr"; cp "$D/4hhb.cif.gz" "$T/tr/"; head -c 3000 "$D/4hhb.cif.gz" > "$T/tr/x_trunc.cif.gz"
"${MPI[@]}" -np 2 "$BIN" run --input "$T/tr" --ccd "$CCD" --out "$T/tr.h5" --quiet > "$T/tr.log" 2>&1 || die "trunc: $(cat "$T/tr.log")"
"$BIN" check "$T/tr.h5" --quiet || die "check refuses tr.h5"
$PY - "$T/tr.h5" <<'PY'
import sys, h5py
s = h5py.File(sys.argv[1], "r")["structures"]
row = {p: k for k, p in enumerate(s["path"].asstr()[:])}
st, eid, ef = s["status"].asstr()[:], s["entry_id"].asstr()[:], s["entry_first"][:]
t, h = row["x_trunc.cif.gz"], row["4hhb.cif.gz"]
assert st[t] == "truncated_gzip" and st[h] == "ok", (st[t], st[h])
assert eid[t] == eid[h] == "4HHB" and ef[t] == h == ef[h], (eid[t], eid[h], ef[t], ef[h])
print("failed file's entry_id from its head:", eid[t], "entry_first", ef[t])
PY
