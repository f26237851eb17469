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
for o in --entries --shard --resume --symmetry-mates --model; do   # fresh-user trial: --entries was missing
  grep -q -- "$o\b" "$WORK/out.txt" || { echo "FAIL: sitepack --help does not list $o"; fail=1; }
done
expect 0 "--version" -- "$SP" --version
grep -q "^sitepack " "$WORK/out.txt" || { echo "FAIL: --version"; fail=1; }
expect 0 "run --help" -- "$SP" run --help
# every subcommand's help through `sitepack help CMD` is its own `CMD --help` (was the general help)
for c in dump check export merge survey bench cluster split report; do
  "$SP" help $c > "$WORK/h1.txt" 2>&1; r1=$?; "$SP" $c --help > "$WORK/h2.txt" 2>&1; r2=$?
  { [ "$r1" = 0 ] && [ "$r1" = "$r2" ] && cmp -s "$WORK/h1.txt" "$WORK/h2.txt" && ! grep -q '^usage:$' "$WORK/h1.txt"; } \
    || { echo "FAIL: sitepack help $c (exit $r1) differs from $c --help (exit $r2)"; fail=1; }
done
expect 2 "help of an unknown command" -- "$SP" help frobnicate
# the general help lists every option of split's and cluster's usage lines, --by time, and dump's index and --csv
"$SP" --help > "$WORK/general.txt"
for c in split cluster; do
  for o in $("$SP" $c --help | sed -n '1,/^[A-Z]/p' | grep -o -- '--[a-z-]*' | sort -u); do
    grep -q -- "$o\b" "$WORK/general.txt" || { echo "FAIL: sitepack --help lacks $c's $o"; fail=1; }
  done
done
grep -q -- '--by protein|ligand|both|time' "$WORK/general.txt" || { echo "FAIL: sitepack --help lacks --by time"; fail=1; }
grep -q 'sitepack dump FILE.h5 TABLE \[--csv\]' "$WORK/general.txt" && grep -q 'segments, or index' "$WORK/general.txt" \
  || { echo "FAIL: sitepack --help lacks dump's index or --csv"; fail=1; }
# dump's lists of valid tables name the index too
"$SP" dump "$WORK/nosuch.h5" > /dev/null 2> "$WORK/e1.txt"
"$SP" dump "$WORK/nosuch.h5" nosuchtable > /dev/null 2> "$WORK/e2.txt"
for e in e1 e2; do
  grep -q 'segments, index' "$WORK/$e.txt" || { echo "FAIL: dump's list of tables lacks index: $(cat "$WORK/$e.txt")"; fail=1; }
done
"$SP" --help | grep -q -- '--assembly none|first' || { echo "FAIL: --help lacks --assembly"; fail=1; }
# docs/usage.md's job file spells out every key that `run --help` lists, and runs
"$SP" run --help > "$WORK/runhelp.txt"
/usr/bin/python3 - "$SRC/docs/usage.md" "$WORK/runhelp.txt" "$WORK/usage_job.json" "$SRC" <<'PYEOF' || fail=1
import json, re, sys
doc, helptext, out, src = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3], sys.argv[4]
block = re.search(r"## Job file\n\n```json\n(.*?)```", doc, re.S).group(1)
job = json.loads(block)
def keys(d, pre=""):
    for k, v in d.items():
        yield pre + k
        if isinstance(v, dict):
            yield from keys(v, pre + k + ".")
have = set(keys(job))
line = re.search(r"job file keys: (.*?)\n\n", helptext, re.S).group(1)
want = set()
for m in re.finditer(r"(\w+): \{([^}]*)\}|(\w+)", re.sub(r"\([^)]*\)", "", line)):
    if m.group(1):
        want |= {m.group(1)} | {m.group(1) + "." + k.strip() for k in m.group(2).split(",")}
    else:
        want.add(m.group(3))
want -= {"report"}   # the example writes the default report path (OUT.report.json)
missing = sorted(want - have)
print("ok: docs/usage.md job file spells out every key of run --help" if not missing else
      f"FAIL: docs/usage.md job file lacks {missing}")
job["input"] = src + "/tests/data/structures/1stp.cif"
job["ccd"] = src + "/tests/data/ccd/components_sample.cif"
job["output"] = out.replace(".json", ".h5")
json.dump(job, open(out, "w"))
sys.exit(1 if missing else 0)
PYEOF
expect 0 "docs/usage.md's job file runs" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/usage_job.json" --quiet --force
expect 2 "unknown command" -- "$SP" frobnicate
expect 2 "run without input" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --out "$WORK/x.h5"
expect 2 "missing job file" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/nope.json"
echo '{"input": "x", "outptu": "y"}' > "$WORK/typo.json"
expect 2 "job file with unknown key" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/typo.json"
grep -q "unknown key" "$WORK/err.txt" || { echo "FAIL: unknown key not named"; fail=1; }
printf '{"input": "x",\n "ph": 7.4,\n "ph": 3}\n' > "$WORK/dupkey.json"
expect 2 "job file with a key given twice" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/dupkey.json"
grep -q "key given twice: ph" "$WORK/err.txt" || { echo "FAIL: duplicate key not named"; fail=1; }
for nested in 'site":{"cutoff":6,"cutoff":4}' 'limits":{"max_atoms":5,"max_atoms":6}' 'split":{"enabled":true,"enabled":false}'; do
  sect=${nested%%\"*}; key=${nested#*\{\"}; key=${key%%\"*}
  printf '{"input": "x", "%s}\n' "$nested" > "$WORK/dupnest.json"
  expect 2 "job file with $sect.$key given twice" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/dupnest.json"
  grep -q "key given twice: $sect.$key\$" "$WORK/err.txt" || { echo "FAIL: nested duplicate $sect.$key"; cat "$WORK/err.txt"; fail=1; }
done
echo '{"input": "x", "comment": 123}' > "$WORK/comment.json"
expect 2 "job file comment not a string" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/comment.json"
grep -q "value must be a string: comment" "$WORK/err.txt" || { echo "FAIL: comment 123"; cat "$WORK/err.txt"; fail=1; }
printf '{"input": "x",\n "ph": 7.4,,\n}\n' > "$WORK/syntax.json"
expect 2 "job file with a JSON syntax error" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/syntax.json"
grep -q "line 2" "$WORK/err.txt" || { echo "FAIL: syntax error line not given"; fail=1; }
expect 2 "two job files" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$SRC/jobs/demo.json" "$SRC/jobs/demo.json"
echo '{"input": ' > "$WORK/broken.json"
expect 2 "job file not JSON" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run "$WORK/broken.json"
expect 2 "no input files" -- "$MPIEXEC" $FLAGS -np 2 "$SP" run --input "$WORK/empty" --out "$WORK/e.h5"
grep -q "no structure files" "$WORK/err.txt" || { echo "FAIL: no-input message"; fail=1; }
# docs/usage.md "Exit status": under mpirun the first line is sitepack's, once; mpirun's banner comes after it
head -1 "$WORK/err.txt" | grep -q "^sitepack run: no structure files" && [ "$(grep -c '^sitepack' "$WORK/err.txt")" = 1 ] \
  && grep -q "^Primary job" "$WORK/err.txt" \
  || { echo "FAIL: under mpirun, sitepack's line first then mpirun's banner: $(head -3 "$WORK/err.txt")"; fail=1; }
expect 2 "unreadable CCD" -- "$MPIEXEC" $FLAGS -np 2 "$SP" run --input "$SRC/tests/data/structures" --ccd "$WORK/none.cif" --out "$WORK/c.h5"
grep -qi "CCD" "$WORK/err.txt" || { echo "FAIL: CCD error not named"; fail=1; }
expect 2 "bad --cutoff" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures" --out "$WORK/c.h5" --cutoff -1
# numbers are decimal: strtod's hexadecimal (--ph 0x5 ran at pH 5), inf and nan are refused (fresh-user trial)
for v in 0x5 inf nan; do
  expect 2 "--ph $v refused" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures" --out "$WORK/c.h5" --ph $v
done
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
# fresh-user trial: --out in an unwritable directory named the report (on ff5a492: "cannot write report
# /proc/trial.report.json"): the output the user gave is named, before any work
expect 1 "output not writable" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures/1stp.cif" --out /proc/sitepack-trial.h5 --quiet
grep -q "^sitepack run: cannot write output /proc/sitepack-trial.h5: " "$WORK/err.txt" || { echo "FAIL: unwritable output not named: $(cat "$WORK/err.txt")"; fail=1; }
grep -q "report" "$WORK/err.txt" && { echo "FAIL: unwritable output: the report named: $(cat "$WORK/err.txt")"; fail=1; }
expect 0 "output into a new directory" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures/1stp.cif" --out "$WORK/newdir/sub/o.h5" --quiet
[ -s "$WORK/newdir/sub/o.h5" ] && [ -s "$WORK/newdir/sub/o.report.json" ] || { echo "FAIL: output not written into a new directory"; fail=1; }
expect 2 "unknown option as the last argument" -- "$MPIEXEC" $FLAGS -np 1 "$SP" run --input "$SRC/tests/data/structures/1stp.cif" --frob
grep -q "unknown option: --frob" "$WORK/err.txt" || { echo "FAIL: a last unknown option is not called unknown"; fail=1; }
# --- issue 16. Each check below failed on main at b0a8729 (run once against it), except where noted.
S1="$SRC/tests/data/structures/1stp.cif"
RUN=("$MPIEXEC" $FLAGS -np 1 "$SP" run)
# item 13: getopt_long: --opt=value, --opt value, `--` ends the options, one error format
expect 0 "--opt=value" -- "${RUN[@]}" --input="$S1" --out="$WORK/eq.h5" --ph=6.5 --cutoff=5 --quiet
/usr/bin/python3 -c "import h5py,json,sys; j=json.loads(h5py.File(sys.argv[1],'r')['run'].attrs['job_json']); \
  sys.exit(0 if j['ph']==6.5 and abs(j['site']['cutoff']-5)<1e-6 else 1)" "$WORK/eq.h5" \
  || { echo "FAIL: --ph=6.5 --cutoff=5 not in /run/job_json"; fail=1; }
echo '{"input": "x"}' > "$WORK/j.json"
expect 0 "job file after the options, after --" -- "${RUN[@]}" --input "$S1" --out "$WORK/dd.h5" --quiet -- "$WORK/j.json"
expect 2 "option that takes no value given one" -- "${RUN[@]}" --input "$S1" --out "$WORK/nv.h5" --force=yes
grep -q "sitepack run: option --force takes no value" "$WORK/err.txt" || { echo "FAIL: --force=yes message"; cat "$WORK/err.txt"; fail=1; }
expect 2 "missing value at the end" -- "${RUN[@]}" --input "$S1" --out
grep -q "sitepack run: missing value for --out" "$WORK/err.txt" || { echo "FAIL: missing value message"; cat "$WORK/err.txt"; fail=1; }
for cmd in "dump" "check" "survey" "merge" "bench read" "report"; do
  expect 2 "$cmd: unknown option" -- "$SP" $cmd --frob
  grep -q "^sitepack $cmd: unknown option: --frob" "$WORK/err.txt" || { echo "FAIL: $cmd: error format"; cat "$WORK/err.txt"; fail=1; }
done
expect 0 "check --spot=3" -- "$SP" check --spot=3 "$WORK/eq.h5"
# an ambiguous prefix of long options is called ambiguous, with the options it could be (main at 6dbf0bd,
# run once against it: "unknown option: --s")
expect 2 "ambiguous option prefix" -- "${RUN[@]}" --input "$S1" --out "$WORK/amb.h5" --s 1
grep -q "^sitepack run: ambiguous option '--s' (could be --shard, --split-min-bytes, .*--symmetry-mates)$" "$WORK/err.txt" \
  || { echo "FAIL: ambiguous prefix message"; cat "$WORK/err.txt"; fail=1; }
expect 2 "check: ambiguous option prefix" -- "$SP" check --s "$WORK/eq.h5"
grep -q "^sitepack check: ambiguous option '--s' (could be " "$WORK/err.txt" || { echo "FAIL: check ambiguous"; cat "$WORK/err.txt"; fail=1; }
expect 0 "a unique prefix is taken" -- "${RUN[@]}" --inp "$S1" --out "$WORK/up.h5" --sym --quiet
# run --help lists every long option the parser knows (the table in src/app/job.c)
"$SP" run --help > "$WORK/help.txt"
for o in $(grep -o '^    {"[a-z-]*", ' "$SRC/src/app/job.c" | sed 's/.*{"\([a-z-]*\)".*/\1/'); do
  grep -q -- "--$o\b" "$WORK/help.txt" || { echo "FAIL: run --help does not list --$o"; fail=1; }
done
# item 10: an empty --out is refused at the start (it used to run the whole job, then fail to rename)
mkdir -p "$WORK/cwd"
expect 2 "--out \"\"" -- env -C "$WORK/cwd" "${RUN[@]}" --input "$S1" --out ""
grep -q "must name a file" "$WORK/err.txt" || { echo "FAIL: empty --out message"; cat "$WORK/err.txt"; fail=1; }
[ -z "$(ls -A "$WORK/cwd")" ] || { echo "FAIL: an empty --out left $(ls -A "$WORK/cwd")"; fail=1; }
printf '{"input": "x", "output": ""}' > "$WORK/eo.json"
expect 2 "job file output \"\"" -- "${RUN[@]}" "$WORK/eo.json"
# item 9: job-file numbers: integers must be whole numbers in range; the error names key, value, range
jobnum() { # jobnum JSON-FRAGMENT KEY VALUE
  printf '{"input": "%s", "output": "%s", %s}' "$S1" "$WORK/jn.h5" "$1" > "$WORK/jn.json"
  expect 2 "job file $2 = $3" -- "${RUN[@]}" "$WORK/jn.json"
  grep -q "job file: $2 must be .*\[.*\], got $3" "$WORK/err.txt" || { echo "FAIL: $2 message: $(cat "$WORK/err.txt")"; fail=1; }
}
jobnum '"site": {"max_atoms": 1.5}' site.max_atoms 1.5
jobnum '"limits": {"max_atoms": 1e20}' limits.max_atoms 1e+20
jobnum '"split": {"max_parts": 0}' split.max_parts 0
jobnum '"split": {"min_ligands": 2.5}' split.min_ligands 2.5
jobnum '"ph": 15' ph 15
expect 2 "--max-site-atoms 1.5" -- "${RUN[@]}" --input "$S1" --out "$WORK/ms.h5" --max-site-atoms 1.5
grep -q "max-site-atoms must be an integer in \[1, 1000000000\], got '1.5'" "$WORK/err.txt" || { echo "FAIL: flag range message"; cat "$WORK/err.txt"; fail=1; }
# item 2: --report obeys the output rules, refused before any work (each was accepted on b0a8729)
expect 2 "report is the output" -- "${RUN[@]}" --input "$S1" --out "$WORK/ro.h5" --report "$WORK/ro.h5"
grep -q "is the output file" "$WORK/err.txt" || { echo "FAIL: report = output message"; cat "$WORK/err.txt"; fail=1; }
[ ! -e "$WORK/ro.h5" ] || { echo "FAIL: report = output: a file was written"; fail=1; }
mkdir -p "$WORK/inp"; cp "$S1" "$WORK/inp/x.cif"; cp "$S1" "$WORK/inp/y.cif"
expect 2 "report is an input" -- "${RUN[@]}" --input "$WORK/inp" --out "$WORK/ri.h5" --report "$WORK/inp/y.cif" --force
grep -q "is an input of the run" "$WORK/err.txt" || { echo "FAIL: report = input message"; cat "$WORK/err.txt"; fail=1; }
cmp -s "$S1" "$WORK/inp/y.cif" || { echo "FAIL: the input named as --report was overwritten"; fail=1; }
cp "$SRC/tests/data/ccd/components_sample.cif" "$WORK/ccd.cif"
expect 2 "report is the CCD" -- "${RUN[@]}" --input "$S1" --ccd "$WORK/ccd.cif" --out "$WORK/rc.h5" --report "$WORK/ccd.cif" --force
cmp -s "$SRC/tests/data/ccd/components_sample.cif" "$WORK/ccd.cif" || { echo "FAIL: the CCD named as --report was overwritten"; fail=1; }
echo '{}' > "$WORK/old.json"
expect 2 "report exists without --force" -- "${RUN[@]}" --input "$S1" --out "$WORK/re.h5" --report "$WORK/old.json"
grep -q "report .*old.json exists (use --force" "$WORK/err.txt" || { echo "FAIL: existing report message"; cat "$WORK/err.txt"; fail=1; }
expect 0 "report exists with --force" -- "${RUN[@]}" --input "$S1" --out "$WORK/re.h5" --report "$WORK/old.json" --force --quiet
# fresh-user trial: the report is never the run's parts folder, its lock file, a directory; refused before any work
for r in "$WORK/rp.h5.parts" "$WORK/rp.h5.lock" "$WORK/rp.h5.tmp"; do
  expect 2 "report is ${r##*.}" -- "${RUN[@]}" --input "$S1" --out "$WORK/rp.h5" --report "$r" --force
  grep -q "report $r is the run's own .${r##*.} of $WORK/rp.h5" "$WORK/err.txt" || { echo "FAIL: report ${r##*.}: $(cat "$WORK/err.txt")"; fail=1; }
  [ ! -e "$WORK/rp.h5" ] && [ ! -e "$WORK/rp.h5.parts" ] || { echo "FAIL: report ${r##*.}: work was done"; fail=1; }
done
mkdir -p "$WORK/other.parts"
expect 2 "report is a directory" -- "${RUN[@]}" --input "$S1" --out "$WORK/rp.h5" --report "$WORK/other.parts" --force
grep -q "is a directory" "$WORK/err.txt" || { echo "FAIL: report directory: $(cat "$WORK/err.txt")"; fail=1; }
# fresh-user trial: /run@ccd_path is absolute (a relative --ccd from another directory), survey finds it
expect 0 "relative --ccd" -- env -C "$WORK/cwd" "${RUN[@]}" --input "$S1" --ccd ../ccd.cif --out "$WORK/rel.h5" --quiet
got=$(/usr/bin/python3 -c 'import h5py,sys; a=h5py.File(sys.argv[1],"r")["run"].attrs["ccd_path"]; print(a.decode() if isinstance(a,bytes) else a)' "$WORK/rel.h5")
[ "$got" = "$(realpath "$WORK/ccd.cif")" ] || { echo "FAIL: /run@ccd_path is '$got', not $(realpath "$WORK/ccd.cif")"; fail=1; }
# item 5: --resume with --shard is refused (b0a8729 accepted it and resumed nothing)
expect 2 "--resume with --shard" -- "${RUN[@]}" --input "$S1" --out "$WORK/sh.h5" --shard 0/2 --resume
grep -q "resume does not work with --shard" "$WORK/err.txt" || { echo "FAIL: --resume --shard message"; cat "$WORK/err.txt"; fail=1; }
# docs/usage.md: `survey --ccd` with a missing file exits 2
expect 2 "survey --ccd missing" -- "$SP" survey "$WORK/eq.h5" --ccd "$WORK/none.cif"

# fresh-user trial: the summary prints the output path normalised (jobs/../out/demo.h5 -> out/demo.h5)
mkdir -p "$WORK/cwd/sub" "$WORK/cwd/res"
expect 0 "summary path normalised" -- env -C "$WORK/cwd" "${RUN[@]}" --input "$S1" --out sub/../res/./n.h5 --force
grep -q "^  output res/n.h5$" "$WORK/out.txt" || { echo "FAIL: summary output path: $(grep output "$WORK/out.txt")"; fail=1; }
# fresh-user trial: export obeys the output rule (an existing file: exit 2) and names the valid classes
expect 0 "export one site" -- "$SP" export "$WORK/one.h5" --site 0 --out "$WORK/exp" --quiet
expect 2 "export to an existing file" -- "$SP" export "$WORK/one.h5" --site 0 --out "$WORK/exp"
grep -q "exists (use --force to overwrite)" "$WORK/err.txt" || { echo "FAIL: export exists: $(cat "$WORK/err.txt")"; fail=1; }
expect 0 "export --force" -- "$SP" export "$WORK/one.h5" --site 0 --out "$WORK/exp" --force --quiet
expect 2 "export --class nonsense" -- "$SP" export "$WORK/one.h5" --class nonsense --out "$WORK/exp2"
grep -q "unknown class 'nonsense' (valid: small_molecule, ion, artifact, glycan, cofactor, peptide, unknown, lipid, detergent)" "$WORK/err.txt" \
  || { echo "FAIL: export --class nonsense: $(cat "$WORK/err.txt")"; fail=1; }
expect 0 "dump structures" -- "$SP" dump "$WORK/one.h5" structures
head -1 "$WORK/out.txt" | grep -q "path" || { echo "FAIL: dump header"; fail=1; }
grep -q "1stp.cif" "$WORK/out.txt" || { echo "FAIL: dump row"; fail=1; }
expect 2 "dump unknown table" -- "$SP" dump "$WORK/one.h5" nosuchtable
# bench read on a merged file of fewer sites than a 256-site chunk, and a synthetic set of 100 (chunks are cut
# to the dataset's size: HDF5 refuses a chunk larger than a fixed dimension)
expect 0 "bench read --real of a small file" -- "$SP" bench read --n 100 --count 20 --reps 1 --dir "$WORK/br" \
  --real "$WORK/one.h5" --out "$WORK/br.json"
grep -q '"data": *"real"' "$WORK/br.json" || { echo "FAIL: bench read --real: no real rows"; fail=1; }
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
