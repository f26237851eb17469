#!/bin/bash
# Issue 16 items 8 and 11: one run per output, no orphans, a clean stop on a signal. Each check failed
# on main at b0a8729 (run once against it): a second run with the same --out started and clobbered the
# first's per-rank folder; after kill -9 of mpirun its ranks ran on as orphans; SIGINT/SIGTERM ended
# the run without a word (exit 130 from the shell's default action, no message).
source "$(dirname "$0")/reliability_lib.sh"
IN=$SRC/tests/data/structures
# item 8: a second run and a resume of a running output are refused at once, naming the first run's pid
SITEPACK_TEST_TASK_DELAY_MS=3000 "${MPI[@]}" -np 2 "$BIN" run --input "$IN" --ccd "$CCD" --out "$T/a.h5" --quiet \
  > "$T/a.log" 2>&1 &
MP=$!
for i in $(seq 1 100); do [ -s "$T/a.h5.lock" ] && break; sleep 0.1; done
[ -s "$T/a.h5.lock" ] || die "no lock file $T/a.h5.lock: $(cat $T/a.log)"
for extra in "" "--resume"; do
  expect_rc 2 "$T/b.log" "second run ($extra)" "${MPI[@]}" -np 1 "$BIN" run --input "$IN" --ccd "$CCD" --out "$T/a.h5" $extra --quiet
  grep -q "another run (pid [0-9]*) is writing $T/a.h5" "$T/b.log" || die "second run ($extra): $(cat $T/b.log)"
done
echo "second run refused: $(grep -m1 'another run' "$T/b.log")"
# item 8: kill -9 of mpirun leaves no rank running (PR_SET_PDEATHSIG), so a resume finds the files whole
for i in $(seq 1 100); do [ "$( (pgrep -P $MP || true) | wc -l)" -ge 2 ] && break; sleep 0.1; done
sleep 1
kill -9 $MP; wait $MP 2>/dev/null || true
sleep 0.5
left=$( (pgrep -f -- "--out $T/a.h5" || true) | wc -l)
[ "$left" -eq 0 ] || die "$left ranks still running after kill -9 of mpirun"
"${MPI[@]}" -np 2 "$BIN" run --input "$IN" --ccd "$CCD" --out "$T/a.h5" --resume --quiet > "$T/r.log" 2>&1 \
  || die "resume after kill -9 of mpirun failed: $(cat $T/r.log)"
grep "resumed" "$T/r.log"
# item 11: SIGINT to a run without mpirun, SIGTERM to mpirun: stop at a task boundary with a word
SITEPACK_TEST_TASK_DELAY_MS=1500 "$BIN" run --input "$IN" --ccd "$CCD" --out "$T/s.h5" --quiet > "$T/s.log" 2>&1 &
P=$!
sleep 3; kill -INT $P
set +e; wait $P; rc=$?; set -e
[ $rc -eq 130 ] || die "SIGINT: exit $rc, expected 130: $(cat $T/s.log)"
grep -q "interrupted (SIGINT) after [0-9]* of 17 files.*rerun with --resume" "$T/s.log" || die "SIGINT: $(cat $T/s.log)"
[ ! -e "$T/s.h5" ] || die "SIGINT: an output was written"
cat "$T/s.log"
# the same command again without --resume: refused (exit 2), the parts untouched (on 9760c51 it removed
# the finished tasks and started from zero without a word); --force starts over, --resume keeps them
held=$(grep -o "[0-9]* finished tasks ([0-9]* files) are kept in $T/s.h5.parts: rerun with --resume" "$T/s.log" \
  | cut -d' ' -f1-5) || die "SIGINT: no count of the kept tasks: $(cat $T/s.log)"
[ "${held%% *}" -ge 1 ] || die "SIGINT: nothing finished before the signal: $(cat $T/s.log)"
(cd "$T" && md5sum s.h5.parts/*) > "$T/parts.md5"
cp -a "$T/s.h5.parts" "$T/u.h5.parts"
expect_rc 2 "$T/s1.log" "rerun over kept tasks" "$BIN" run --input "$IN" --ccd "$CCD" --out "$T/s.h5" --quiet
grep -q "$T/s.h5.parts holds $held of an interrupted run: rerun with --resume to keep them, or --force to discard them" \
  "$T/s1.log" || die "rerun over kept tasks: $(cat $T/s1.log)"
(cd "$T" && md5sum -c --quiet parts.md5) || die "the refused rerun changed $T/s.h5.parts"
[ "$(ls "$T/s.h5.parts" | wc -l)" -eq "$(wc -l < "$T/parts.md5")" ] || die "the refused rerun added files: $(ls "$T/s.h5.parts")"
[ ! -e "$T/s.h5" ] && [ ! -e "$T/s.report.json" ] || die "the refused rerun wrote an output"
cat "$T/s1.log"
"$BIN" run --input "$IN" --ccd "$CCD" --out "$T/u.h5" --force > "$T/u.log" 2>&1 || die "--force over kept tasks: $(cat $T/u.log)"
grep -q "sitepack run: --force: discarding $held of an earlier run in $T/u.h5.parts" "$T/u.log" \
  || die "--force: $(cat $T/u.log)"
grep -q "^  17 tasks," "$T/u.log" && ! grep -q "resumed" "$T/u.log" || die "--force did not start over: $(cat $T/u.log)"
# item 11: --resume with changed options says which option differs (b0a8729: "resumed 0 files" only)
"$BIN" run --input "$IN" --ccd "$CCD" --out "$T/s.h5" --resume --ph 6.5 --quiet > "$T/s2.log" 2>&1 \
  || die "resume with another pH failed: $(cat $T/s2.log)"
grep -q "was a run of another job (ph: 7.4 in the earlier run, 6.5 now)" "$T/s2.log" || die "resume diff: $(cat $T/s2.log)"
grep -m1 "another job" "$T/s2.log"
SITEPACK_TEST_TASK_DELAY_MS=1500 "${MPI[@]}" -np 2 "$BIN" run --input "$IN" --ccd "$CCD" --out "$T/t.h5" --quiet \
  > "$T/t.log" 2>&1 &
P=$!
sleep 4; kill -TERM $P
set +e; wait $P; rc=$?; set -e
[ $rc -ne 0 ] || die "SIGTERM to mpirun: exit 0"
grep -q "interrupted (SIGTERM) after [0-9]* of 17 files.*rerun with --resume" "$T/t.log" || die "SIGTERM: $(cat $T/t.log)"
grep -m1 interrupted "$T/t.log"
expect_rc 2 "$T/t1.log" "rerun over kept tasks under mpirun" "${MPI[@]}" -np 2 "$BIN" run --input "$IN" --ccd "$CCD" \
  --out "$T/t.h5" --quiet
grep -q "holds [1-9][0-9]* finished tasks" "$T/t1.log" || die "rerun over kept tasks under mpirun: $(cat $T/t1.log)"
"${MPI[@]}" -np 2 "$BIN" run --input "$IN" --ccd "$CCD" --out "$T/t.h5" --resume --quiet > "$T/t2.log" 2>&1 \
  || die "resume after SIGTERM failed: $(cat $T/t2.log)"
grep -q "resumed [1-9][0-9]* files" "$T/t2.log" || die "resume after SIGTERM resumed nothing: $(cat $T/t2.log)"
"${MPI[@]}" -np 2 "$BIN" run --input "$IN" --ccd "$CCD" --out "$T/full.h5" --quiet > /dev/null
$PY "$SRC/tests/integration/compare_h5.py" "$T/full.h5" "$T/t.h5"
$PY "$SRC/tests/integration/compare_h5.py" "$T/full.h5" "$T/u.h5"
echo "reliability_guard: ok"
