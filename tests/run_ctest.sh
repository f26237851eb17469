#!/usr/bin/env bash
# ctest with no skip path: runs `ctest ARGS...` and fails (exit 1) when ctest fails or when any test
# did not run: skipped (exit 77 where SKIP_RETURN_CODE allows it), disabled, or not run (a missing
# executable, a failed fixture). ctest itself reports skipped tests as passed ("100% tests passed"),
# so a missing tool would hide a whole group of tests. Used by make test, make sanitize, make fuzz
# and .ci/run. Usage: tests/run_ctest.sh CTEST_ARGS...
set -uo pipefail
log=$(mktemp "${TMPDIR:-/tmp}/sitepack-ctest.XXXXXX")
trap 'rm -f "$log"' EXIT
ctest "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if grep -qE '^\s*[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*(Skipped|Not Run)|The following tests did not run' "$log"; then
  echo "run_ctest: tests that did not run count as failures here (install what they need: make deps):" >&2
  grep -E '\*\*\*(Skipped|Not Run)|\((Skipped|Disabled|Not Run)\)' "$log" >&2
  exit 1
fi
if ! grep -qE 'tests passed, 0 tests failed out of [1-9]' "$log"; then
  [ "$rc" -ne 0 ] || { echo "run_ctest: no test ran" >&2; exit 1; }
fi
# what this run left out, one line each: the corpus tests not registered (configure wrote why) and the slow ones
dir=""; prev=""; slow_out=0
for a in "$@"; do
  [ "$prev" = "--test-dir" ] && dir=$a
  [ "$prev" = "-LE" ] && [ "$a" = "slow" ] && slow_out=1
  prev=$a
done
if [ -n "$dir" ]; then
  [ -s "$dir/corpus_note.txt" ] && cat "$dir/corpus_note.txt"
  if [ "$slow_out" = 1 ]; then
    n=$(cd "$dir" && ctest -N -L slow -FA '.*' 2>/dev/null | sed -n 's/^Total Tests: //p')
    [ -n "$n" ] && [ "$n" != 0 ] && echo "sitepack: $n slow tests not run (label slow): make test-full runs them"
  fi
fi
exit "$rc"
