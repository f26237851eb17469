#!/usr/bin/env bash
# Make N distinct replicas of a directory of structure files (bench/scaling.sh, bench/merge_io.py):
#
#   bench/replicas.sh STRUCTURES_DIR OUT_DIR N      -> OUT_DIR/r01 (a copy), OUT_DIR/r02, ... OUT_DIR/rNN
#
# Copy i (i >= 2) of each file gets one more line of i spaces (gzip files: re-compressed), so that no
# copy has the size or SHA-256 of another: sitepack would otherwise find them duplicates and process
# each entry once (docs/reliability.md). Blank lines at the end change nothing that is read.
set -euo pipefail
SRC_DIR=$1
OUT_DIR=$2
N=$3
mkdir -p "$OUT_DIR"
for i in $(seq 1 "$N"); do
  d=$(printf '%s/r%02d' "$OUT_DIR" "$i")
  if [ "$i" = 1 ]; then cp -a "$SRC_DIR" "$d"; continue; fi
  mkdir -p "$d"
  pad=$(printf '%*s' "$i" '')
  for f in "$SRC_DIR"/*; do
    b=$(basename "$f")
    if [ "$(head -c 2 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
      { gzip -dc "$f"; printf '%s\n' "$pad"; } | gzip -1 > "$d/$b"
    else
      { cat "$f"; printf '%s\n' "$pad"; } > "$d/$b"
    fi
  done
done
