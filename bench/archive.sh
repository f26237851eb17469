#!/usr/bin/env bash
# One archive-scale run of `sitepack run` (docs/scaling.md "Archive scale"; `make bench-archive`).
#
#   bench/archive.sh [BUILD_DIR]
#
# Input: FILES files (20000) made from ../shared/data/structures as bench/scaling.sh makes its replicas:
# copy i >= 2 of each file gets one more line of i spaces (gzip files re-compressed), so that no two
# files have the same size or SHA-256 (duplicates would be processed once). They go to a scratch
# directory (SCRATCH, default a new /tmp/sitepack-archive.XXXXXX; about 0.67 MB per file: check
# `df -h /tmp`), which is removed at the end (KEEP=1 keeps it); nothing of it is committed.
# One run at -np NP (2) with the excerpt CCD. Writes results/archive-<date>-<host>.{json,md}: the
# run's own wall seconds (report; mpirun's start excluded), every step of the run on rank 0 (the
# report's steps_seconds: scan, plan, merge, ...), the merge's own steps, peak RSS per rank, the sizes
# of the report and of the merged file, the load average before and after, and a projection to
# PROJECT_FILES (220000) files at P = 22 and P = 22 x 10 from the measured per-step costs: a step that
# runs on every rank for its share scales with files / P, one that rank 0 (or every rank) does for
# all files scales with files; the CCD open is kept as measured.
#
# Environment: FILES (20000), NP (2), DATA (../shared/data), MPIRUN (mpirun), MPIRUN_FLAGS, PY
# (python3), RESULTS (results/), SCRATCH, KEEP (0), GEN_ONLY (0: 1 makes the input and keeps it),
# PROJECT_FILES (220000).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
SP=$BUILD/bin/sitepack
DATA=${DATA:-$SRC/../shared/data}
FILES=${FILES:-20000}
NP=${NP:-2}
MPIRUN=${MPIRUN:-mpirun}
PY=${PY:-python3}
RESULTS=${RESULTS:-$SRC/results}
PROJECT_FILES=${PROJECT_FILES:-220000}
if [ -z "${MPIRUN_FLAGS:-}" ]; then
  MPIRUN_FLAGS="--oversubscribe --mca osc sm"
  [ "$(id -u)" = 0 ] && MPIRUN_FLAGS="$MPIRUN_FLAGS --allow-run-as-root"
fi
[ -x "$SP" ] || { echo "no $SP: build first (make build)"; exit 2; }
SCRATCH=${SCRATCH:-$(mktemp -d /tmp/sitepack-archive.XXXXXX)}
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$SCRATCH"' EXIT
CCD="$DATA/ccd/components_excerpt.cif.gz"
DF_BEFORE=$(df -h "$SCRATCH" | tail -1)
echo "scratch $SCRATCH: $DF_BEFORE"

# the input: whole replicas of the corpus, the last one cut at FILES (kept from an earlier call with the
# same SCRATCH and FILES: its .made marker says how many it made; GEN_ONLY=1 stops after making it)
mkdir -p "$SCRATCH/in"
T0=$(date +%s)
n=0; i=0
mapfile -t CORPUS < <(ls "$DATA/structures")
[ "$(cat "$SCRATCH/.made" 2>/dev/null)" = "$FILES" ] && n=$FILES
while [ $n -lt "$FILES" ]; do
  i=$((i + 1))
  d=$(printf '%s/in/r%03d' "$SCRATCH" "$i"); mkdir -p "$d"
  pad=$(printf '%*s' "$i" '')
  for b in "${CORPUS[@]}"; do
    [ $n -lt "$FILES" ] || break
    f="$DATA/structures/$b"
    if [ "$i" = 1 ]; then cp "$f" "$d/$b"
    elif [ "$(head -c 2 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then { gzip -dc "$f"; printf '%s\n' "$pad"; } | gzip -1 > "$d/$b"
    else { cat "$f"; printf '%s\n' "$pad"; } > "$d/$b"
    fi
    n=$((n + 1))
  done
done
echo "$FILES" > "$SCRATCH/.made"
GEN_S=$(( $(date +%s) - T0 ))
IN_BYTES=$(du -sb "$SCRATCH/in" | cut -f1)
echo "made $n files ($IN_BYTES bytes) in $GEN_S s"
[ "${GEN_ONLY:-0}" = 1 ] && { trap - EXIT; exit 0; }

LOAD_BEFORE=$(cat /proc/loadavg)
$MPIRUN $MPIRUN_FLAGS -np "$NP" "$SP" run --input "$SCRATCH/in" --ccd "$CCD" --out "$SCRATCH/out.h5" --quiet --force \
  > "$SCRATCH/run.log" 2>&1 || { echo "run failed:"; tail -20 "$SCRATCH/run.log"; exit 1; }
LOAD_AFTER=$(cat /proc/loadavg)
OUT_BYTES=$(stat -c %s "$SCRATCH/out.h5")
REPORT_BYTES=$(stat -c %s "$SCRATCH/out.report.json")
DF_AFTER=$(df -h "$SCRATCH" | tail -1)
"$SP" check "$SCRATCH/out.h5" --quiet || { echo "check of the merged file failed"; exit 1; }

mkdir -p "$RESULTS"
HOST=$(hostname | tr -c 'A-Za-z0-9._\n-' '_')
OUTBASE="$RESULTS/archive-$(date -u +%Y-%m-%d)-$HOST-$(nproc)cpu"
cp "$SCRATCH/out.report.json" "$OUTBASE.report.json"
"$PY" "$SRC/bench/archive_report.py" "$SCRATCH/out.report.json" "$OUTBASE" "$LOAD_BEFORE" "$LOAD_AFTER" "$IN_BYTES" \
  "$OUT_BYTES" "$REPORT_BYTES" "$PROJECT_FILES" "$SRC" "$MPIRUN" "$GEN_S" "$DF_BEFORE" "$DF_AFTER"
echo "wrote $OUTBASE.json and .md"
