#!/usr/bin/env bash
# Issue 39 item 2: a truncated or damaged merged file gets the same diagnosis from every command that opens one
# (check, dump, survey, export, cluster, split, report, bench read --real) and from sitepack.open in Python: class
# unknown_format, the same message naming the file and ending "(the file is damaged or truncated)", exit 1 (one
# open for all: sp_h5_open_merged, h5util.h). Before, dump said hdf5_error without the hint, cluster and split
# "not an HDF5 file (or damaged)" with exit 2, and a damaged dataset header was "missing dataset" in some.
# usage: reliability_damaged.sh SITEPACK MPIEXEC WORKDIR SOURCE_DIR (MPIEXEC unused: one process per command)
. "$(dirname "$0")/reliability_lib.sh"
HINT="(the file is damaged or truncated)"
GOOD=$T/good.h5
expect_rc 0 "$T/run.log" "sample run" "$BIN" run --input "$SRC/tests/data/structures" --ccd "$CCD" --out "$GOOD" --quiet
SIZE=$(stat -c %s "$GOOD")

# the damaged copies: cut in half, cut to its first 3000 bytes (HDF5 finds the end short: "truncated file"), and
# 64 bytes of 0xff over the object header of /sites/atom_ptr (read by every command) or of the last object of
# the file in name order (read by none of them but the walk): the file opens, a header does not parse
head -c $((SIZE / 2)) "$GOOD" > "$T/half.h5"
head -c 3000 "$GOOD" > "$T/head.h5"
$PY - "$GOOD" "$T" <<'PY' || die "damaging headers"
import shutil, sys, h5py
good, t = sys.argv[1:]
with h5py.File(good, "r") as f:
    names = []
    f.visit(names.append)
    addr = {"hdr_sites": h5py.h5o.get_info(f["sites/atom_ptr"].id).addr,
            "hdr_last": h5py.h5o.get_info(f[sorted(names)[-1]].id).addr}
for name, a in addr.items():
    shutil.copy(good, f"{t}/{name}.h5")
    with open(f"{t}/{name}.h5", "r+b") as fh:
        fh.seek(a)
        fh.write(b"\xff" * 64)
    print(name, "header at", a, "of", sorted(names)[-1] if name == "hdr_last" else "sites/atom_ptr")
PY
# every command is refused at the open, so cluster needs no MMseqs2 and split no /clusters here
CMDS=("check F" "dump F sites" "dump F bonds" "survey F" "export F --all --format sdf,pdb --out $T/x --force --quiet"
      "cluster F" "split F" "report F --out $T/r.html --force" "bench read --n 10 --atoms 4 --count 5 --reps 1 --dir $T/b --out $T/b.json --real F")
n=0
for d in half head hdr_sites hdr_last; do
  f=$T/$d.h5
  want=""
  for c in "${CMDS[@]}"; do
    rc=0
    timeout 60 "$BIN" ${c//F/$f} > "$T/o.txt" 2> "$T/e.txt" || rc=$?
    [ "$rc" = 1 ] || die "$d: sitepack ${c//F/...}: exit $rc, expected 1: $(cat "$T/e.txt")"
    line=$(grep -m1 "^sitepack" "$T/e.txt" || true)   # bench read prints its synthetic runs on stdout first
    case "$line" in
      *": unknown_format: "*"$f"*" $HINT") ;;
      *) die "$d: sitepack ${c//F/...}: not 'unknown_format: ... $f ... $HINT': $(cat "$T/e.txt")" ;;
    esac
    msg=${line#*unknown_format: }                        # the text after the class: one text for every command
    [ -z "$want" ] && want=$msg
    [ "$msg" = "$want" ] || die "$d: sitepack ${c//F/...} says '$msg', sitepack check '$want'"
    n=$((n + 1))
  done
  # the Python package: FormatError, the commands' class, the file named, the same hint
  $PY - "$SRC/python" "$f" "$HINT" <<'PY' || die "$d: sitepack.open in Python"
import sys
sys.path.insert(0, sys.argv[1])
import sitepack
from sitepack.errors import DAMAGED_HINT
path, hint = sys.argv[2:]
assert DAMAGED_HINT == hint, DAMAGED_HINT
try:
    sitepack.open(path)
except sitepack.FormatError as e:
    assert e.error_class == "unknown_format" and e.path == path, (e.error_class, e.path)
    assert path in str(e) and str(e).endswith(hint), str(e)
else:
    raise AssertionError(f"sitepack.open({path}) opened a damaged file")
PY
  echo "ok: $d.h5: ${#CMDS[@]} commands and sitepack.open: unknown_format, exit 1: $want"
done
# the good file still opens everywhere the damaged ones were refused (the walk refuses no sound file)
expect_rc 0 "$T/c.log" "check of the good file" "$BIN" check "$GOOD" --quiet
expect_rc 0 "$T/d.log" "dump of the good file" "$BIN" dump "$GOOD" sites
$PY -c "import sys; sys.path.insert(0, '$SRC/python'); import sitepack; assert len(sitepack.open('$GOOD')) > 0" \
  || die "sitepack.open of the good file"
echo "reliability_damaged: ok ($n refusals, 4 damaged copies)"
