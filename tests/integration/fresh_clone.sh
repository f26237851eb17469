#!/usr/bin/env bash
# Issue 26: a clone of HEAD in an empty folder, with nothing beside it (no ../shared, no SITEPACK_CORPUS, not
# under CI=true), runs the README's quick start: `make demo` and `make test` exit 0. The corpus tests are then
# not registered, and the summary says so in one line.
# usage: fresh_clone.sh SOURCE_DIR WORK
set -uo pipefail
SRC=$1 W=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$W"; mkdir -p "$W/empty"
git clone -q --no-local "$SRC" "$W/empty/sitepack" || fail "git clone of $SRC"
cd "$W/empty/sitepack" || fail "no clone"
[ ! -e ../shared ] || fail "../shared exists beside the clone"
run() { env -u SITEPACK_CORPUS -u CI -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$@"; }
start=$(date +%s)
run make demo >"$W/demo.log" 2>&1 || fail "make demo: $(tail -20 "$W/demo.log")"
grep -q "output .*out/demo.h5" "$W/demo.log" || fail "make demo printed no summary: $(tail -20 "$W/demo.log")"
t_demo=$(( $(date +%s) - start ))
start=$(date +%s)
run make test >"$W/test.log" 2>&1 || fail "make test: $(tail -40 "$W/test.log")"
t_test=$(( $(date +%s) - start ))
grep -qE "^sitepack: [0-9]+ corpus tests not registered: no corpus" "$W/test.log" ||
  fail "make test did not say that the corpus tests are not registered: $(tail -5 "$W/test.log")"
grep -E "tests passed|corpus tests not registered|slow tests not run" "$W/test.log"
echo "fresh clone of $(git -C "$SRC" rev-parse --short HEAD): make demo ${t_demo} s (build included), make test ${t_test} s"
