#!/usr/bin/env bash
# ctest structure_format_check_selftest: format_check.sh (make format-check) fails on a changed line that
# .clang-format would change and passes on a formatted one and on no change, in a scratch git repository with
# this tree's .clang-format and script (docs/testing.md "Formatting"). Exit 77 without git-clang-format.
# usage: format_check_selftest.sh SRC WORKDIR
set -euo pipefail
SRC=$1 W=$2
command -v git-clang-format >/dev/null || { echo "no git-clang-format (Debian clang-format: make deps)"; exit 77; }
rm -rf "$W"; mkdir -p "$W/tests/structure"
cp "$SRC/.clang-format" "$W/"; cp "$SRC/tests/structure/format_check.sh" "$W/tests/structure/"
cd "$W"
git init -q -b main .; git config user.email t@t; git config user.name t
printf 'int f(int a) {\n  if (a > 1) return 2;\n  return a;\n}\n' > f.c
git add -A; git commit -qm base
fail=0
expect() { # expect RC WHAT
  set +e; out=$(tests/structure/format_check.sh HEAD 2>&1); rc=$?; set -e
  if [ "$rc" != "$1" ]; then echo "FAIL: $2: exit $rc, expected $1: $out"; fail=1; else echo "ok: $2 (exit $rc)"; fi
}
expect 0 "no change"
printf 'int g(int b) { return b + 1; }\n' >> f.c
expect 0 "a formatted new function"
printf 'int h(int c){ if(c>1){return 2;}\n    return c; }\n' >> f.c
expect 1 "a misformatted new function"
git checkout -q f.c  # back to the commit
printf 'int   f(int a) {\n  if (a > 1) return 2;\n  return a;\n}\n' > f.c
expect 1 "a misformatted changed line"
git checkout -q f.c
# a hand layout on lines nobody changed is left alone
printf 'int k(int a) {\n  switch (a) {\n    case 1: return 1;  case 2: return 4;\n  }\n  return 0;\n}\n' > k.c
git add k.c; git commit -qm k
printf '/* more */\n' >> k.c
expect 0 "an added comment below an unformatted table"
exit $fail
