#!/bin/bash
# Issue 9: a full disk. The output goes to a 1 MiB tmpfs (needs root: mount; skipped with exit 77
# otherwise). The run stops with exit 1, a clear error (ENOSPC text and "rerun with --resume"), no file
# under the final name and the per-rank files kept; after the tmpfs is grown, --resume completes and
# equals an uninterrupted run.
source "$(dirname "$0")/reliability_lib.sh"
M=$T/fs; mkdir -p "$M"
if ! mount -t tmpfs -o size=1m tmpfs "$M" 2>/dev/null; then echo "SKIP: cannot mount a tmpfs (not root?)"; exit 77; fi
trap 'umount "$M" 2>/dev/null || true' EXIT
IN=$SRC/tests/data/structures
"${MPI[@]}" -np 2 "$BIN" run --input "$IN" --ccd "$CCD" --out "$T/full.h5" --quiet > /dev/null
set +e
"${MPI[@]}" -np 2 "$BIN" run --input "$IN" --ccd "$CCD" --out "$M/o.h5" --quiet > "$T/d1.log" 2>&1
rc=$?
set -e
[ $rc -eq 1 ] || die "exit $rc, expected 1: $(cat $T/d1.log)"
grep -q "no space left on device" "$T/d1.log" || die "no ENOSPC text: $(cat $T/d1.log)"
grep -q "rerun with --resume" "$T/d1.log" || die "no resume hint: $(cat $T/d1.log)"
[ -e "$M/o.h5" ] && die "a failed run left a file under the final name"
[ -e "$M/o.h5.tmp" ] && die "a failed run left o.h5.tmp"
[ -f "$M/o.h5.parts/job.txt" ] || die "parts dir not kept"
grep -m1 "stopped" "$T/d1.log"
mount -o remount,size=32m "$M"
"${MPI[@]}" -np 2 "$BIN" run --input "$IN" --ccd "$CCD" --out "$M/o.h5" --resume --quiet > "$T/d2.log" 2>&1 \
  || die "resume failed: $(cat $T/d2.log)"
grep "resumed" "$T/d2.log"
$PY "$SRC/tests/integration/compare_h5.py" "$T/full.h5" "$M/o.h5"
echo "reliability_disk_full: ok"
