#!/usr/bin/env bash
# make format-check: the C lines changed against a base are formatted as .clang-format says (docs/testing.md
# "Formatting"). Only changed lines are checked, never the whole tree (today's code keeps its hand layout).
#
# usage: tests/structure/format_check.sh [BASE]
#   BASE: a commit; default $FORMAT_BASE, else the merge-base of HEAD with main (origin/main, then main) when
#   that is not HEAD itself, else HEAD~1 (on main: the last commit). The working tree's uncommitted changes
#   are checked too. Exit 0: nothing to format; 1: the diff clang-format wants is printed (apply it with
#   `git clang-format BASE`); 2: no git-clang-format, or no base to compare with.
set -euo pipefail
cd "$(dirname "$0")/../.."
GCF=${GIT_CLANG_FORMAT:-git-clang-format}
if ! command -v "$GCF" >/dev/null; then
  echo "format-check: $GCF not found (Debian package clang-format: make deps)" >&2
  exit 2
fi
base=${1:-${FORMAT_BASE:-}}
if [ -z "$base" ]; then
  head=$(git rev-parse HEAD)
  for b in origin/main main; do
    if mb=$(git merge-base HEAD "$b" 2>/dev/null) && [ "$mb" != "$head" ]; then base=$mb; break; fi
  done
  if [ -z "$base" ]; then
    base=$(git rev-parse -q --verify HEAD~1) || { echo "format-check: no base commit (HEAD has no parent)" >&2; exit 2; }
  fi
fi
echo "format-check: C lines changed since $(git rev-parse --short "$base") ($(git log -1 --format=%s "$base" | cut -c1-60))"
# git-clang-format 14 exits 0 whether or not it finds something (its main() returns no status): read its output.
out=$("$GCF" --diff --extensions c,h,inc "$base" -- 2>&1) || { echo "$out" >&2; exit 2; }
if grep -q '^diff --git' <<<"$out"; then
  echo "$out"
  echo "format-check: FAILED: changed lines are not formatted as .clang-format says; fix with: git clang-format $base" >&2
  exit 1
fi
echo "format-check: ok ($out)"
