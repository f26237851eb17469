#!/usr/bin/env bash
# CLI behaviour: --help/--version, exit statuses of runs that cannot happen, output safety.
# usage: cli.sh SITEPACK MPIEXEC WORKDIR SOURCE_DIR
set -uo pipefail
SP=$1; MPIEXEC=$2; WORK=$3; SRC=$4
FLAGS="--oversubscribe --mca osc sm"
[ "$(id -u)" = 0 ] && FLAGS="$FLAGS --allow-run-as-root"
rm -rf "$WORK"; mkdir -p "$WORK/empty"
fail=0
expect() { # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" > "$WORK/out.txt" 2> "$WORK/err.txt"; local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; cat "$WORK/out.txt" "$WORK/err.txt"; fail=1
  else
    echo "ok: $what (exit $got)"
  fi
}
expect 0 "--help" -- "$SP" --help
grep -q "usage:" "$WORK/out.txt" || { echo "FAIL: --help prints no usage"; fail=1; }
expect 0 "--version" -- "$SP" --version
grep -q "^sitepack " "$WORK/out.txt" || { echo "FAIL: --version"; fail=1; }
expect 0 "run --help" -- "$SP" run --help
expect 2 "unknown command" -- "$SP" frobnicate
expect 2 "run without input" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --out "$WORK/x.h5"
expect 2 "missing job file" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/nope.json"
echo '{"input": "x", "outptu": "y"}' > "$WORK/typo.json"
expect 2 "job file with unknown key" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/typo.json"
grep -q "unknown key" "$WORK/err.txt" || { echo "FAIL: unknown key not named"; fail=1; }
printf '{"input": "x",\n "ph": 7.4,\n "ph": 3}\n' > "$WORK/dupkey.json"
expect 2 "job file with a key given twice" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/dupkey.json"
grep -q "key given twice: ph" "$WORK/err.txt" || { echo "FAIL: duplicate key not named"; fail=1; }
printf '{"input": "x",\n "ph": 7.4,,\n}\n' > "$WORK/syntax.json"
expect 2 "job file with a JSON syntax error" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/syntax.json"
grep -q "line 2" "$WORK/err.txt" || { echo "FAIL: syntax error line not given"; fail=1; }
expect 2 "two job files" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$SRC/jobs/demo.json" "$SRC/jobs/demo.json"
echo '{"input": ' > "$WORK/broken.json"
expect 2 "job file not JSON" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/broken.json"
expect 2 "no input files" -- "$MPIEXEC" $FLAGS -np 2 "$SP" run --input "$WORK/empty" --out "$WORK/e.h5"
grep -q "no structure files" "$WORK/err.txt" || { echo "FAIL: no-input message"; fail=1; }
expect 2 "unreadable CCD" -- "$MPIEXEC" $FLAGS -np 2 "$SP" run --input "$SRC/tests/data/structures" --ccd "$WORK/none.cif" --out "$WORK/c.h5"
grep -qi "CCD" "$WORK/err.txt" || { echo "FAIL: CCD error not named"; fail=1; }
expect 2 "bad --cutoff" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures" --out "$WORK/c.h5" --cutoff -1
# one file as input, no CCD: completes
expect 0 "single file input" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures/1stp.cif" --out "$WORK/one.h5" --quiet
expect 2 "existing output without --force" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures/1stp.cif" --out "$WORK/one.h5"
grep -q "force" "$WORK/err.txt" || { echo "FAIL: --force not suggested"; fail=1; }
mkdir -p "$WORK/adir"
expect 2 "output is a directory" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures/1stp.cif" --out "$WORK/adir" --force
grep -q "is a directory" "$WORK/err.txt" || { echo "FAIL: directory output not named"; fail=1; }
expect 2 "structure file given as CCD" -- "$MPIEXEC" $FLAGS -np 2 "$SP" run --input "$SRC/tests/data/structures" --ccd "$SRC/tests/data/structures/1stp.cif" --out "$WORK/sc.h5"
grep -q "not a chemical component" "$WORK/err.txt" || { echo "FAIL: non-CCD file not named"; fail=1; }
[ ! -e "$WORK/sc.h5.parts" ] || { echo "FAIL: a run that could not start left $WORK/sc.h5.parts"; fail=1; }
expect 0 "report into a new directory" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures/1stp.cif" --out "$WORK/r.h5" --report "$WORK/rep/sub/r.json" --quiet
[ -s "$WORK/rep/sub/r.json" ] || { echo "FAIL: report not written into a new directory"; fail=1; }
expect 1 "report not writable" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures/1stp.cif" --out "$WORK/r2.h5" --report /proc/sitepack-report.json --quiet
# found before any work: no output file, and the message names the report
[ ! -e "$WORK/r2.h5" ] || { echo "FAIL: an unwritable report was found only after the run wrote $WORK/r2.h5"; fail=1; }
grep -q "cannot write report" "$WORK/err.txt" || { echo "FAIL: unwritable report not named"; fail=1; }
expect 2 "unknown option as the last argument" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures/1stp.cif" --frob
grep -q "unknown option: --frob" "$WORK/err.txt" || { echo "FAIL: a last unknown option is not called unknown"; fail=1; }
expect 0 "dump structures" -- "$SP" dump "$WORK/one.h5" structures
head -1 "$WORK/out.txt" | grep -q "path" || { echo "FAIL: dump header"; fail=1; }
grep -q "1stp.cif" "$WORK/out.txt" || { echo "FAIL: dump row"; fail=1; }
expect 2 "dump unknown table" -- "$SP" dump "$WORK/one.h5" nosuchtable
# a directory with a bad file: the run completes (exit 0) and the row says why
mkdir -p "$WORK/mixed"; cp "$SRC/tests/data/structures/1stp.cif" "$WORK/mixed/"; : > "$WORK/mixed/empty.cif"
head -c 3000 "$SRC/tests/data/structures/1kqe.cif.gz" > "$WORK/mixed/cut.cif.gz"
expect 0 "bad files do not fail the run" -- "$MPIEXEC" $FLAGS -np 2 "$SP" run --input "$WORK/mixed" --out "$WORK/m.h5" --quiet
"$SP" dump "$WORK/m.h5" structures > "$WORK/m.tsv"
grep -P "empty.cif\t.*no_atoms" -q "$WORK/m.tsv" || { echo "FAIL: empty.cif not no_atoms"; cat "$WORK/m.tsv"; fail=1; }
grep -P "cut.cif.gz\t.*truncated_gzip" -q "$WORK/m.tsv" || { echo "FAIL: cut.cif.gz not truncated_gzip"; cat "$WORK/m.tsv"; fail=1; }
# a file that failed to read still records what it is as stored: size, gzip flag, SHA-256
/usr/bin/python3 - "$WORK/m.h5" "$WORK/mixed/cut.cif.gz" <<'PYEOF' || fail=1
import hashlib, os, sys
import h5py
f = h5py.File(sys.argv[1], "r")["structures"]
i = [p.decode() for p in f["path"][()]].index("cut.cif.gz")
raw = open(sys.argv[2], "rb").read()
ok = (f["bytes"][i] == len(raw) == os.path.getsize(sys.argv[2]) and f["gzip"][i] == 1
      and f["sha256"][i].decode() == hashlib.sha256(raw).hexdigest())
print("ok: failed file row has size, gzip and sha256" if ok else
      f"FAIL: failed file row: bytes {f['bytes'][i]} gzip {f['gzip'][i]} sha {f['sha256'][i]}")
sys.exit(0 if ok else 1)
PYEOF
grep -P "1stp.cif\t.*\tok\t" -q "$WORK/m.tsv" || { echo "FAIL: 1stp.cif not ok"; cat "$WORK/m.tsv"; fail=1; }
exit $fail
