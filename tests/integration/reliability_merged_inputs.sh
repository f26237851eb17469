#!/usr/bin/env bash
# Merged files and shards as *inputs* (a damaged-file hunt of 2026-12-01): a damaged copy, an odd attribute or
# a FIFO given to check, dump, survey, export, bench read --real and merge gives a clear error naming the
# file: never a signal, a hang, an exit 0 with garbage, or a merged file that check refuses.
# usage: reliability_merged_inputs.sh SITEPACK MPIEXEC WORKDIR SOURCE_DIR (MPIEXEC unused: every command
# runs as one process, so that the ASan build runs it too)
. "$(dirname "$0")/reliability_lib.sh"
IN=$SRC/tests/data/structures
SMALL=$T/small.h5
expect_rc 0 "$T/run.log" "small run" "$BIN" run --input "$IN" --ccd "$CCD" --out "$SMALL" --quiet
for i in 0 1; do
  expect_rc 0 "$T/shard$i.log" "shard $i" "$BIN" run --input "$IN" --ccd "$CCD" --out "$T/s$i.h5" --shard $i/2 --quiet
done

# damage SRC NAME 'python lines using f (an h5py File opened r+) and np' -> $T/NAME.h5
damage() {
  cp "$1" "$T/$2.h5"
  $PY -c "import h5py, numpy as np
f = h5py.File('$T/$2.h5', 'r+')
$3
f.close()" || die "damage $2"
}

# every reader of a merged file: no signal, no timeout (exit 0, 1 or 2); prints each exit status
readers_survive() {
  local f=$1 c rc
  for c in "check F" "dump F sites" "dump F bonds" "dump F components" "survey F" \
           "export F --all --format sdf,pdb,cif --out $T/x --force --quiet" \
           "bench read --n 10 --atoms 4 --count 5 --reps 1 --dir $T/b --out $T/b.json --real F"; do
    rc=0
    timeout 60 "$BIN" ${c//F/$f} > "$T/o.txt" 2>&1 || rc=$?
    [ "$rc" -le 2 ] || die "$(basename "$f"): sitepack ${c//F/...}: exit $rc (a signal or a timeout): $(tail -3 "$T/o.txt")"
  done
}

# check, export and survey refuse the file (exit 1: an invalid input, as every reader of a merged file says
# it) with a message that names it and says WORDS
refused() {
  local f=$1 words=$2 c rc
  for c in "check F" "export F --all --format sdf --out $T/x --force --quiet" "survey F"; do
    rc=0
    timeout 60 "$BIN" ${c//F/$f} > "$T/o.txt" 2>&1 || rc=$?
    [ "$rc" = 1 ] || die "$(basename "$f"): sitepack ${c//F/...}: exit $rc, expected 1: $(tail -3 "$T/o.txt")"
    grep -q -- "$f" "$T/o.txt" || die "$(basename "$f"): sitepack ${c//F/...}: message does not name the file: $(cat "$T/o.txt")"
    grep -q -- "$words" "$T/o.txt" || die "$(basename "$f"): sitepack ${c//F/...}: message lacks '$words': $(cat "$T/o.txt")"
  done
}

# 1. export read unvalidated indices (segfaults, aborts, a heap overflow with exit 0); it now runs check first
damage "$SMALL" nlig_huge "f['sites/n_ligand'][1] = 10**6"
damage "$SMALL" nlig_plus1 "f['sites/n_ligand'][1] = f['sites/n_atoms'][1] + 1"
damage "$SMALL" bond_atom "f['bonds/atom1'][0] = 10**6"
damage "$SMALL" bond_neg "f['bonds/atom1'][:] = -1"
damage "$SMALL" st_idx "f['sites/structure_idx'][1] = 2**62"
damage "$SMALL" lig_idx "f['sites/ligand_idx'][1] = 2**62"
damage "$SMALL" atom_ptr "f['sites/atom_ptr'][1] = -5"
damage "$SMALL" res_idx "f['atoms/residue_idx'][5] = f['residues/kind'].shape[0] + 7"
damage "$SMALL" flags_short "a = f['atoms/flags'][:-1]; del f['atoms/flags']; f.create_dataset('atoms/flags', data=a)"
damage "$SMALL" flags_zero "f['atoms/flags'][...] = 0"   # export wrote the ligand as ATOM records, exit 0
# a site of a failed file: survey counted it ok (the status test was the spot check's only)
damage "$SMALL" status "import numpy as np; sp = f['structures/site_ptr'][:]; k = int(np.flatnonzero(np.diff(sp) > 0)[0]); f['structures/status'][k] = b'syntax_error'"
for n in nlig_huge nlig_plus1 bond_atom bond_neg st_idx lig_idx atom_ptr res_idx flags_short flags_zero status; do
  readers_survive "$T/$n.h5"
  refused "$T/$n.h5" "unknown_format"
done
echo "ok: 11 damaged copies: check, export and survey refuse each, no reader crashes"
# the C reader (sp_reader_open, here through bench read --real) hands n_ligand to its caller: validated too
expect_rc 1 "$T/b.log" "bench read --real of an n_ligand above the site" "$BIN" bench read --n 10 --atoms 4 \
  --count 5 --reps 1 --dir "$T/b" --out "$T/b.json" --real "$T/nlig_plus1.h5"
grep -q "nlig_plus1.h5: site 1: n_ligand .* outside \[0, n_atoms" "$T/b.log" || die "reader n_ligand: $(cat "$T/b.log")"

# 2. an integer attribute stored as an array was read whole into one value (a stack overflow in every command)
damage "$SMALL" ver_array "f.attrs['format_version'] = np.arange(1000, dtype=np.int64)"
readers_survive "$T/ver_array.h5"
refused "$T/ver_array.h5" "format_version"
echo "ok: format_version as an array: refused, no crash"

# 3. /components sorted, one row per comp_id, a row for every ligand's comp_id (check did not test it)
damage "$SMALL" comp_swap "a = f['components/comp_id'][:2]; f['components/comp_id'][:2] = a[::-1]"
damage "$SMALL" comp_dup "f['components/comp_id'][1] = f['components/comp_id'][0]"
damage "$SMALL" lig_comp "f['ligands/comp_id'][0] = b'ZZZZZ'"
refused "$T/comp_swap.h5" "not sorted"
refused "$T/comp_dup.h5" "not sorted"
refused "$T/lig_comp.h5" "has no /components row"
echo "ok: /components order and coverage checked"

# 4. a FIFO (or a directory) is no sitepack file: HDF5's open of a FIFO blocked for ever
mkfifo "$T/fifo.h5"
for c in "check F" "dump F sites" "survey F" "export F --all --out $T/x --force" "merge $T/m.h5 F $T/s1.h5"; do
  rc=0
  timeout 20 "$BIN" ${c//F/$T/fifo.h5} > "$T/o.txt" 2>&1 || rc=$?
  [ "$rc" = 1 ] || die "FIFO: sitepack ${c//F/...}: exit $rc, expected 1: $(cat "$T/o.txt")"
  grep -q "is not a regular file (a FIFO)" "$T/o.txt" || die "FIFO: sitepack ${c//F/...}: $(cat "$T/o.txt")"
done
rc=0; "$BIN" check "$T" > "$T/o.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "not a regular file (a directory)" "$T/o.txt" || die "check DIR: exit $rc: $(cat "$T/o.txt")"
echo "ok: a FIFO or a directory is refused at once"

# 5. merge copies shard rows as they are: the merged file is checked before it becomes OUT.h5
damage "$T/s0.h5" s0_bad "a = f['bonds/rows'][...]; a['atom1'][len(a) // 2] = -1; f['bonds/rows'][...] = a"
expect_rc 1 "$T/m.log" "merge of a damaged shard" "$BIN" merge "$T/m.h5" "$T/s0_bad.h5" "$T/s1.h5"
grep -q "the merged file fails sitepack check" "$T/m.log" || die "merge of a damaged shard: $(cat "$T/m.log")"
[ ! -e "$T/m.h5" ] && [ ! -e "$T/m.h5.tmp" ] || die "merge of a damaged shard left an output"
expect_rc 0 "$T/m.log" "merge --no-check of a damaged shard" "$BIN" merge "$T/m.h5" "$T/s0_bad.h5" "$T/s1.h5" --no-check
expect_rc 1 "$T/c.log" "check of the --no-check merge" "$BIN" check "$T/m.h5"
rm -f "$T/m.h5"
damage "$T/s0.h5" s0_flag "a = f['atoms/rows'][...]; a['flags'][len(a) // 2] ^= 1; f['atoms/rows'][...] = a"
expect_rc 1 "$T/m.log" "merge of a shard with a ligand flag flipped" "$BIN" merge "$T/m.h5" "$T/s0_flag.h5" "$T/s1.h5"
grep -q "ligand flag" "$T/m.log" || die "merge of a flipped flag: $(cat "$T/m.log")"
damage "$T/s0.h5" s0_status "a = f['structures/rows'][...]; a['status'][:] = b'syntax_error'; f['structures/rows'][...] = a"
expect_rc 1 "$T/m.log" "merge of a shard whose files all failed but kept sites" "$BIN" merge "$T/m.h5" "$T/s0_status.h5" "$T/s1.h5"
grep -q "whose status is 'syntax_error'" "$T/m.log" || die "merge of failed files with sites: $(cat "$T/m.log")"
damage "$T/s0.h5" s0_parts "a = f['tasks'][...]; a['n_parts'][len(a) // 2] = 2**31 - 1; f['tasks'][...] = a"
expect_rc 1 "$T/m.log" "merge of a shard whose task says 2^31-1 parts" "$BIN" merge "$T/m.h5" "$T/s0_parts.h5" "$T/s1.h5"
grep -q "expected parts 0..n_parts-1" "$T/m.log" || die "merge of a bad n_parts: $(cat "$T/m.log")"
damage "$T/s0.h5" s0_attr "f.attrs['site_flags_or'] = np.arange(1000, dtype=np.int64)"
rc=0; timeout 60 "$BIN" merge "$T/m2.h5" "$T/s0_attr.h5" "$T/s1.h5" > "$T/o.txt" 2>&1 || rc=$?
[ "$rc" -le 2 ] || die "merge of a shard with an array attribute: exit $rc: $(cat "$T/o.txt")"
expect_rc 0 "$T/m.log" "merge of good shards" "$BIN" merge "$T/m3.h5" "$T/s0.h5" "$T/s1.h5"
expect_rc 0 "$T/c.log" "check of the merge" "$BIN" check "$T/m3.h5"
echo "ok: merge refuses a damaged shard (exit 1, no output), --no-check keeps it, good shards merge"

# 6. merge's output: missing directories created (as run), an unwritable place named before any work, and a
#    file system with no blocks at all (sysfs) is not called full
expect_rc 0 "$T/m.log" "merge into a new directory" "$BIN" merge "$T/new/sub/m.h5" "$T/s0.h5" "$T/s1.h5"
[ -s "$T/new/sub/m.h5" ] || die "merge into a new directory: no file"
if [ -d /sys/kernel ]; then
  expect_rc 1 "$T/m.log" "merge into /sys" "$BIN" merge /sys/kernel/sitepack-test.h5 "$T/s0.h5" "$T/s1.h5"
  grep -q "cannot write output /sys/kernel/sitepack-test.h5" "$T/m.log" || die "merge into /sys: $(cat "$T/m.log")"
  ! grep -q "no space left" "$T/m.log" || die "merge into /sys says the disk is full: $(cat "$T/m.log")"
fi
echo "ok: merge output directories and probe"
echo "reliability_merged_inputs: all checks passed"
