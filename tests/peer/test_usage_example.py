#!/usr/bin/python3
"""docs/usage.md's worked example of `sitepack export` runs as written (issue 14: "export one site, open it in
RDKit, draw its pocket residues").

usage: test_usage_example.py DOCS_USAGE_MD SITEPACK CORPUS_H5 WORK_DIR
The section "Worked example" of docs/usage.md holds a shell block (`$ ` commands, each followed by its output)
and a Python block (each print followed by `# ` lines: its output). The shell commands run in WORK_DIR with
`sitepack` the binary under test; `sitepack run` over the corpus is not run again: CORPUS_H5 (the same run,
made by the fixture py_corpus; the merged output does not depend on the number of ranks) is copied to its
--out. Every command's output must be the documented one, word for word (the export's timings aside),
the Python block must run and print its documented lines (compared as words), and the images it draws must exist.
"""
import io
import os
import re
import shutil
import subprocess
import sys
from contextlib import redirect_stdout

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL:", msg)


def blocks(md):
    text = open(md).read()
    sec = text[text.index("Worked example: export one site"):]
    return re.findall(r"```(\w*)\n(.*?)```", sec, re.S)[:2]


def norm(s):
    return " ".join(s.split())


def run_shell(block, exe, corpus, work):
    cmds, cur = [], None
    for line in block.splitlines():
        if line.startswith("$ "):
            cur = [line[2:], []]
            cmds.append(cur)
        elif cur is not None:
            cur[1].append(line)
    check(len(cmds) >= 4, f"{len(cmds)} shell commands in the example")
    for cmd, want in cmds:
        if cmd.startswith("sitepack run "):
            out = cmd.split("--out ")[1].split()[0]
            check("--input ../shared/data/structures" in cmd, f"the example's run is not the corpus: {cmd}")
            shutil.copy(corpus, os.path.join(work, out))
            continue
        sh = re.sub(r"(^|\| *)sitepack ", lambda m: m.group(1) + exe + " ", cmd)
        r = subprocess.run(["bash", "-c", "set -o pipefail; " + sh], cwd=work, capture_output=True, text=True)
        check(r.returncode == 0, f"'{cmd}': exit {r.returncode}: {r.stderr[-300:]}")
        got, want = r.stdout + r.stderr, "\n".join(want)
        if cmd.startswith("sitepack export "):   # timings differ from run to run
            got, want = re.sub(r" \(.*?\)", "", got), re.sub(r" \(.*?\)", "", want)
        # compared as words: tabs shown as blanks, `ls` one name a line when not on a terminal
        check(got.split() == want.split(), f"'{cmd}': output {got.split()}, documented {want.split()}")


def run_python(block, work):
    want = []
    lines = block.splitlines()
    for k, line in enumerate(lines):
        if line.lstrip().startswith("print(") and k + 1 < len(lines) and lines[k + 1].startswith("# "):
            want.append(norm(lines[k + 1][2:].split("   (")[0]))
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(work)
    try:
        with redirect_stdout(out):
            exec(compile(block, "docs/usage.md", "exec"), {"__name__": "__usage__"})
    except Exception as e:  # noqa: BLE001 - the example must run
        check(False, f"the Python example raised {type(e).__name__}: {e}")
    finally:
        os.chdir(cwd)
    got = [norm(x) for x in out.getvalue().splitlines()]
    check(got == want, f"Python example printed {got}, documented {want}")
    for png in re.findall(r'"([\w.]+\.png)"', block):
        p = os.path.join(work, png)
        check(os.path.isfile(p) and os.path.getsize(p) > 1000, f"the example drew no {png}")
    return len(want)


def main():
    md, exe, corpus, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    (k1, sh), (k2, py) = blocks(md)
    check(k1 == "" and k2 == "python", f"block kinds {k1!r}, {k2!r}")
    run_shell(sh, exe, corpus, work)
    n = run_python(py, work)
    print(f"docs/usage.md worked example: shell commands and {n} printed lines as documented, images drawn: "
          f"{sorted(x for x in os.listdir(work) if x.endswith('.png'))}")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
