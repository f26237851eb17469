#!/bin/bash
# Issue 9: SIGKILL one rank in the middle of a run; `--resume` then completes and the merged file equals
# an uninterrupted run (compare_h5.py), at another P. Then: a killed run whose per-rank file is cut
# (a kill during a flush) and one of whose finished inputs changed: --resume redoes both and equals a
# fresh run of the changed input. Duplicate inputs: one processed, the copy recorded as "duplicate".
source "$(dirname "$0")/reliability_lib.sh"
cp -r "$SRC/tests/data/structures" "$T/in"
cp "$T/in/1stp.cif" "$T/in/zz_copy_of_1stp.cif"      # a duplicate (same bytes)
"${MPI[@]}" -np 2 "$BIN" run --input "$T/in" --ccd "$CCD" --out "$T/full.h5" --quiet > "$T/full.log"
grep -q "1 duplicates" "$T/full.log" || die "summary does not count the duplicate: $(cat $T/full.log)"
$PY - "$T/full.h5" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
st = {p.decode(): (s.decode(), e.decode(), h.decode()) for p, s, e, h in
      zip(f["structures/path"][:], f["structures/status"][:], f["structures/error"][:], f["structures/sha256"][:])}
assert len(st) == 18, len(st)
assert st["1stp.cif"][0] == "ok", st["1stp.cif"]
d = st["zz_copy_of_1stp.cif"]
assert d[0] == "duplicate" and "1stp.cif" in d[1] and d[2] == st["1stp.cif"][2], d
print("duplicate row ok:", d[1])
PY

# 1. kill rank 1 mid-run, resume at P=3
SITEPACK_TEST_TASK_DELAY_MS=600 "${MPI[@]}" -np 2 "$BIN" run --input "$T/in" --ccd "$CCD" --out "$T/k.h5" --quiet \
  > "$T/k1.log" 2>&1 & mp=$!
kill_rank1_after $mp 4 "$T/k.h5.parts"
wait $mp && die "the killed run exited 0"
[ -e "$T/k.h5" ] && die "a killed run left a file under the final name"
[ -e "$T/k.h5.tmp" ] && die "a killed run left OUT.tmp"
"${MPI[@]}" -np 3 "$BIN" run --input "$T/in" --ccd "$CCD" --out "$T/k.h5" --resume --quiet > "$T/k2.log" 2>&1
grep -E "resumed [1-9][0-9]* files" "$T/k2.log" || die "nothing resumed: $(cat $T/k2.log)"
$PY "$SRC/tests/integration/compare_h5.py" "$T/full.h5" "$T/k.h5"
[ -e "$T/k.h5.parts" ] && die "parts dir kept after a successful merge"
[ -e "$T/k.h5.resume" ] && die "resume dir kept after a successful merge"

# 2. kill again, cut a per-rank file in half, change a finished input: both redone
SITEPACK_TEST_TASK_DELAY_MS=600 "${MPI[@]}" -np 2 "$BIN" run --input "$T/in" --ccd "$CCD" --out "$T/c.h5" --quiet \
  > "$T/c1.log" 2>&1 & mp=$!
kill_rank1_after $mp 6 "$T/c.h5.parts"
wait $mp && die "the killed run exited 0"
changed=$($PY - "$T/c.h5.parts/rank-00000.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r", locking=False) as f:
    print(f["structures/rows"][0]["path"].decode())
PY
)
echo "changing finished input $changed; cutting rank-00001.h5"
printf 'REMARK 999 changed after the kill\n' | cat - "$T/in/$changed" > "$T/x" 2>/dev/null || true
if [[ "$changed" == *.gz ]]; then gzip -dc "$T/in/$changed" | { printf 'REMARK 999 changed\n'; cat; } | gzip -n > "$T/x"; fi
mv "$T/x" "$T/in/$changed"
sz=$(stat -c %s "$T/c.h5.parts/rank-00001.h5"); truncate -s $((sz / 2)) "$T/c.h5.parts/rank-00001.h5"
"${MPI[@]}" -np 2 "$BIN" run --input "$T/in" --ccd "$CCD" --out "$T/c.h5" --resume > "$T/c2.log" 2>&1
grep -q "1 changed since" "$T/c2.log" || die "changed file not detected: $(cat $T/c2.log)"
grep -q "unreadable" "$T/c2.log" || die "cut per-rank file not reported: $(cat $T/c2.log)"
"${MPI[@]}" -np 1 "$BIN" run --input "$T/in" --ccd "$CCD" --out "$T/fresh.h5" --quiet > /dev/null
$PY "$SRC/tests/integration/compare_h5.py" "$T/fresh.h5" "$T/c.h5"
echo "reliability_resume: ok"
