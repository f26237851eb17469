#!/bin/bash
# Issue 16 item 5: shards and duplicates. Two files with the same bytes, planned into different shards:
# the merge of `--shard 0/2` and `1/2` must be exactly the file of one run over all inputs (the second
# file a `duplicate` row, its sites not there twice). On main at 6dbf0bd (run once against it) this
# test failed at the compare: /structures/status and error differ, /sites has 3 rows instead of 2 (the
# copy's site again: a shard run decided no duplicates). And no message of a shard run advises
# --resume (refused with --shard).
source "$(dirname "$0")/reliability_lib.sh"
CMP="$PY $SRC/tests/integration/compare_h5.py"
D=$T/in; mkdir -p "$D"
cp "$SRC/tests/data/structures/1stp.cif" "$D/a.cif"
cp "$SRC/tests/data/structures/1stp.cif" "$D/b.cif"       # the same bytes as a.cif: a duplicate
cp "$SRC/tests/data/structures/1cbn.pdb" "$D/c.pdb"
RUN=("${MPI[@]}" -np 2 "$BIN" run --input "$D" --ccd "$CCD")
"${RUN[@]}" --out "$T/single.h5" --quiet > "$T/single.log" 2>&1 || die "single run: $(cat "$T/single.log")"
for i in 0 1; do
  "${RUN[@]}" --shard $i/2 --out "$T/shard-$i.h5" > "$T/shard-$i.log" 2>&1 || die "shard $i: $(cat "$T/shard-$i.log")"
done
# the set-up is what the test is about: a.cif and b.cif are in different shards
$PY - "$T" <<'PY'
import sys, h5py
t = sys.argv[1]
where = {}
for i in (0, 1):
    with h5py.File(f"{t}/shard-{i}.h5", "r") as f:
        for k in f["shard_files"][()]:
            where[int(k)] = i
print("shard of each file (a.cif, b.cif, c.pdb):", [where[k] for k in range(3)])
assert where[0] != where[1], "test set-up: a.cif and b.cif planned into one shard"
PY
"$BIN" merge "$T/merged.h5" "$T/shard-0.h5" "$T/shard-1.h5" --quiet || die "merge of the shards failed"
$CMP "$T/single.h5" "$T/merged.h5" || die "the merged shards differ from the single run"
"$BIN" dump "$T/merged.h5" structures | grep -P "^b.cif\t|\tb.cif\t" | grep -q duplicate \
  || die "b.cif is no duplicate row in the merged shards: $("$BIN" dump "$T/merged.h5" structures)"
"$BIN" check "$T/merged.h5" --quiet || die "check refuses the merged shards"
# the output is one of the inputs: refused before any work, the input unchanged (fresh-user trial)
sum0=$(sha256sum < "$T/shard-0.h5")
rc=0; "$BIN" merge "$T/shard-0.h5" "$T/shard-0.h5" "$T/shard-1.h5" --force > "$T/mi.log" 2>&1 || rc=$?
[ "$rc" = 2 ] || die "merge into one of its inputs: exit $rc, not 2: $(cat "$T/mi.log")"
grep -q "output $T/shard-0.h5 is an input of the merge: refused" "$T/mi.log" || die "merge into an input: $(cat "$T/mi.log")"
[ "$(sha256sum < "$T/shard-0.h5")" = "$sum0" ] || die "merge overwrote its input shard"
# a merged output given as a shard: said so
rc=0; "$BIN" merge "$T/m2.h5" "$T/merged.h5" > "$T/mm.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || die "merge of a merged output: exit $rc: $(cat "$T/mm.log")"
grep -q "$T/merged.h5 is a merged sitepack output, not a shard or per-rank file" "$T/mm.log" \
  || die "merge of a merged output: $(cat "$T/mm.log")"
# a shard that stops never advises --resume (refused with --shard): a stop by SIGTERM after one task
SITEPACK_TEST_TASK_DELAY_MS=3000 "${MPI[@]}" -np 1 "$BIN" run --input "$D" --ccd "$CCD" --shard 0/2 \
  --out "$T/stop.h5" > "$T/stop.log" 2>&1 & mp=$!
for k in $(seq 1 100); do [ -e "$T/stop.h5.parts/rank-00000.h5" ] && break; sleep 0.1; done
sleep 1; kill -TERM $mp; rc=0; wait $mp || rc=$?
cat "$T/stop.log"
[ "$rc" != 0 ] || die "the stopped shard exited 0"
grep -q "interrupted" "$T/stop.log" || die "the stopped shard does not say it was interrupted"
! grep -q -- "--resume" "$T/stop.log" || die "a shard run advises --resume"
grep -q "rerun this shard" "$T/stop.log" || die "the stopped shard does not say how to go on"
"${RUN[@]}" --shard 0/2 --out "$T/r.h5" --resume > "$T/r.log" 2>&1 && die "--resume --shard accepted"
grep -q "resume does not work with --shard" "$T/r.log" || die "--resume --shard: $(cat "$T/r.log")"
echo "shards: ok"
