#!/bin/sh
# bench-site: site search + site chemistry speed on shared/data/structures and the segment-scaling run.
# Writes results/site-<date>.json (raw JSON lines + provenance); the .md beside it is written by hand
# from those numbers. usage: bench/site_bench.sh BUILD_DIR [REPEAT]
set -eu
BUILD=${1:-build}
REPEAT=${2:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${SP_SHARED_DIR:-$ROOT/../shared}/data
OUT=${OUT_JSON:-$ROOT/results/site-$(date -u +%Y-%m-%d).json}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# SITE_BENCH_BIN / SEG_DIR: a prebuilt bench binary and prebuilt segments (hosts without a compiler,
# the -dev packages or gemmi); by default both are made here.
if [ -n "${SITE_BENCH_BIN:-}" ]; then cp "$SITE_BENCH_BIN" "$TMP/site_bench"; else
cc -O2 -std=c11 -D_GNU_SOURCE -I"$ROOT/include" -I"$ROOT/src" "$ROOT/bench/site_bench.c" "$BUILD/libsitepack.a" \
  $(pkg-config --libs libdeflate 2>/dev/null || echo -ldeflate) -lz -lcrypto -lm \
  $(sed -n 's/^CCP4C_LIBRARY:FILEPATH=\(.*ccp4c.*\)$/\1/p' "$BUILD/CMakeCache.txt") -lpthread -o "$TMP/site_bench"
fi
if [ -n "${SEG_DIR:-}" ]; then cp -r "$SEG_DIR" "$TMP/seg"; else
/usr/bin/python3 "$ROOT/bench/site_scaling.py" "$DATA/structures/6wlb.cif" B "$TMP/seg" 100 200 300 400 500 600 720 >/dev/null
fi
{
  printf '{"provenance": {"git": "%s", "host": "%s", "cpus": %s, "load_before": "%s", "date": "%s", "repeat": %s,\n' \
    "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "${GIT_SHA:-unknown}")" "$(hostname)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "$(date -u +%FT%TZ)" "$REPEAT"
  printf '  "inputs": "all files of %s/structures (6 A sites); segments of 6WLB chain B, first L residues + BGC Z 5, cutoff 1000 A"},\n' "$DATA"
  printf ' "all_structures_first_pass": '
  (cd "$DATA/structures" && "$TMP/site_bench" --repeat 1 ../ccd/components_excerpt.cif . $(ls))
  printf ' ,"all_structures_median": '
  (cd "$DATA/structures" && "$TMP/site_bench" --repeat "$REPEAT" ../ccd/components_excerpt.cif . $(ls))
  printf ' ,"segment_scaling": [\n'
  (cd "$TMP/seg" && "$TMP/site_bench" --cutoff 1000 --repeat "$REPEAT" --per-file "$DATA/ccd/components_excerpt.cif" . $(ls)) | sed '2,$s/^/,/'
  printf ' ], "load_after": "%s"}\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT"
echo "$OUT"
