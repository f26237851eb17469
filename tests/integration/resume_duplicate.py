#!/usr/bin/env python3
"""--resume of a file that was a duplicate before and is not now (issue 33 item 9; src/app/resume.c,
docs/reliability.md "Resume protocol" and "Duplicates").

Run 1 (-np 1, --keep-parts) over a.pdb, b.pdb (the same bytes) and c.cif: a is processed, b gets the
`duplicate` row naming a. Then a changes (case "edited": a line prepended) or goes away (case "removed"),
and run 2 resumes the parts (--resume --force). b is no duplicate now: it must be processed (status ok,
its ligand and site rows), a processed again (changed) or absent, c resumed from run 1; the summary's
counts say so ("N files (N tasks) resumed", "0 duplicates"), and the merged file equals a fresh run of
the inputs as they are now, apart from timing fields (compare_h5.py). A resume that copied b's old
`duplicate` row, or counted it as a finished task, fails here.

usage: resume_duplicate.py SITEPACK MPIEXEC WORKDIR SRC"""
import os
import re
import shutil
import subprocess
import sys

import h5py

BIN, MPIEXEC, T, SRC = sys.argv[1:5]
MPI = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "--mca", "osc", "sm", "-np", "1"]
CCD = os.path.join(SRC, "tests/data/ccd/components_sample.cif")
DATA = os.path.join(SRC, "tests/data/structures")
checks = 0


def die(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        die(msg)


def run(inp, out, *extra):
    p = subprocess.run(MPI + [BIN, "run", "--input", inp, "--ccd", CCD, "--out", out, *extra], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"sitepack run {' '.join(extra)} exited {p.returncode}: {p.stderr[-2000:]}")
    return p.stdout + p.stderr


def structures(path):
    """{path: (status, n_ligands, n_sites, error)} of /structures, and the /ligands rows per file."""
    with h5py.File(path, "r") as h:
        s = h["structures"]
        names = [x.decode() for x in s["path"][:]]
        rows = {n: (s["status"][i].decode(), int(s["n_ligands"][i]), int(s["n_sites"][i]), s["error"][i].decode())
                for i, n in enumerate(names)}
        lig = h["ligands/structure_idx"][:]
        per_file = {n: int((lig == i).sum()) for i, n in enumerate(names)}
    return rows, per_file


def case(name, change):
    d = os.path.join(T, name)
    inp = os.path.join(d, "in")
    os.makedirs(inp)
    shutil.copy(os.path.join(DATA, "1cbn.pdb"), os.path.join(inp, "a.pdb"))
    shutil.copy(os.path.join(DATA, "1cbn.pdb"), os.path.join(inp, "b.pdb"))
    shutil.copy(os.path.join(DATA, "1stp.cif"), os.path.join(inp, "c.cif"))
    out = os.path.join(d, "k.h5")
    run(inp, out, "--keep-parts", "--quiet")
    rows, _ = structures(out)
    check(rows["a.pdb"][0] == "ok" and rows["c.cif"][0] == "ok", f"{name}: run 1: a, c not ok: {rows}")
    check(rows["b.pdb"][0] == "duplicate" and "a.pdb" in rows["b.pdb"][3] and rows["b.pdb"][1] == 0,
          f"{name}: run 1: b.pdb not the duplicate of a.pdb: {rows['b.pdb']}")

    change(os.path.join(inp, "a.pdb"))
    text = run(inp, out, "--resume", "--force")
    m = re.search(r"--resume: (\d+) files \((\d+) tasks\) resumed, (\d+) changed since, (\d+) duplicates", text)
    check(m is not None, f"{name}: no --resume summary line in: {text[-1500:]}")
    resumed, tasks, changed, dups = map(int, m.groups())
    want_changed = 1 if name == "edited" else 0
    check((resumed, tasks, changed, dups) == (1, 1, want_changed, 0),
          f"{name}: --resume took over {resumed} files ({tasks} tasks), {changed} changed, {dups} duplicates; "
          f"expected 1 (c.cif), 1, {want_changed}, 0: {m.group(0)}")
    rows, lig = structures(out)
    check(rows["b.pdb"][0] == "ok", f"{name}: b.pdb after --resume: status {rows['b.pdb'][0]!r} "
          f"({rows['b.pdb'][3]!r}), expected ok: it is no duplicate now")
    check(rows["b.pdb"][1] > 0 and lig["b.pdb"] == rows["b.pdb"][1] and rows["b.pdb"][2] == rows["b.pdb"][1],
          f"{name}: b.pdb after --resume: {rows['b.pdb'][1]} ligands, {lig['b.pdb']} /ligands rows, "
          f"{rows['b.pdb'][2]} sites (1CBN has its ligand and site)")
    check(("a.pdb" in rows) == (name == "edited"), f"{name}: a.pdb rows: {sorted(rows)}")
    check(all(r[0] == "ok" for r in rows.values()), f"{name}: statuses after --resume: {rows}")

    fresh = os.path.join(d, "fresh.h5")
    run(inp, fresh, "--quiet")
    c = subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests/integration/compare_h5.py"), fresh, out],
                       capture_output=True, text=True)
    check(c.returncode == 0, f"{name}: resumed file differs from a fresh run: {c.stdout[-2000:]}{c.stderr[-500:]}")
    print(f"{name}: b.pdb processed after --resume ({rows['b.pdb'][1]} ligands), {m.group(0)}; equal to a fresh run")


def edit(path):
    data = open(path, "rb").read()
    open(path, "wb").write(b"REMARK 999 edited after run 1\n" + data)


shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)
case("edited", edit)
case("removed", os.remove)
print(f"resume_duplicate: all {checks} checks passed")
