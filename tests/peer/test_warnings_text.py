#!/usr/bin/python3
"""/structures/warnings (format version 4; docs/format.md "/structures") of a real run, read with h5py.

usage: test_warnings_text.py SITEPACK MPIEXEC CCD WORKDIR CASE_DIR...

Each CASE_DIR is a reader case (tests/cases/Rxx_*, ../shared/cases/Bxx_*) with its expected.json: its inputs
are run together with two files made here,
  - many.pdb: 120 ALA residues, each with two atoms named CA: 120 warnings "repeated_atom_name: residue ALA A i:
    ..." of 104 bytes, more than the 1023 bytes of the column hold;
  - escape.pdb: an occupancy 'ab\\cd' and a B factor 'x<0xff>y' (a backslash, a byte that is not UTF-8): two
    warnings that quote them;
at -np 1 and -np 3. Then, for every row: warnings is empty exactly when n_warnings is 0, its lines are
n_warnings messages or k messages and "... N more" with k + N = n_warnings; each case file's expected
"warnings_contain" texts are in it (the whole text when n_warnings says all fit); many.pdb's row holds the
first k warnings in order, residues 1..k, and "... 120-k more" with k the most that fit; escape.pdb's texts are
escaped (\\x5c, \\xff); the texts and the whole files (compare_h5.py) are identical at -np 1 and 3; check passes;
`dump structures` has as many fields on every line as in its header, the separator printed as \\n.
"""
import json
import os
import shutil
import subprocess
import sys

import h5py

sp, mpiexec, ccd, work = sys.argv[1:5]
cases = sys.argv[5:]
HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def make_inputs(inp):
    expected = {}   # file -> (warnings_contain, error class or None)
    for d in cases:
        top = json.load(open(os.path.join(d, "expected.json")))
        errors = {e["file"]: e["class"] for e in top.get("expect_error", [])}
        for name in top.get("inputs") or sorted(top.get("per_file", {})):
            if not os.path.exists(os.path.join(d, name)):
                continue
            pf = top.get("per_file", {}).get(name, {})
            want = pf.get("warnings_contain", top.get("warnings_contain", []))
            shutil.copy(os.path.join(d, name), os.path.join(inp, f"{os.path.basename(d)[:3]}_{name}"))
            expected[f"{os.path.basename(d)[:3]}_{name}"] = (want, errors.get(name))
    rows = []
    for r in range(1, 121):
        for name, x in (("N", 0.0), ("CA", 1.4), ("CA", 1.6), ("C", 2.5)):
            rows.append(f"ATOM  {len(rows) + 1:5d}  {name:<3s} ALA A{r:4d}    {x:8.3f}{r * 3.8:8.3f}{0.0:8.3f}  1.00 20.00"
                        f"           {name[0]}")
    with open(os.path.join(inp, "many.pdb"), "w") as fh:
        fh.write("\n".join(rows + ["END"]) + "\n")
    esc = [b"ATOM      1  N   ALA A   1       0.000   0.000   0.000 ab\\cd 20.00           N",
           b"ATOM      2  CA  ALA A   1       1.400   0.000   0.000  1.00 x\xffy             C",
           b"END"]
    with open(os.path.join(inp, "escape.pdb"), "wb") as fh:
        fh.write(b"\n".join(esc) + b"\n")
    return expected


def run(np_, inp, out):
    flags = ["--oversubscribe", "--mca", "osc", "sm"] + (["--allow-run-as-root"] if os.getuid() == 0 else [])
    p = subprocess.run([mpiexec, *flags, "-np", str(np_), sp, "run", "--input", inp, "--ccd", ccd, "--out", out,
                        "--force", "--quiet"], capture_output=True, text=True)
    check(p.returncode == 0, f"run -np {np_}: {p.returncode} {p.stderr[-500:]}")


def lines_ok(text, n):
    if n == 0:
        return text == ""
    lines = text.split("\n") if text else []
    if len(lines) == n:
        return True
    t = lines[-1] if lines else ""
    return t.startswith("... ") and t.endswith(" more") and t[4:-5].isdigit() and len(lines) - 1 + int(t[4:-5]) == n


def main():
    shutil.rmtree(work, ignore_errors=True)
    inp = os.path.join(work, "in")
    os.makedirs(inp)
    expected = make_inputs(inp)
    outs = [os.path.join(work, f"np{n}.h5") for n in (1, 3)]
    for n, out in zip((1, 3), outs):
        run(n, inp, out)
    texts = []
    for out in outs:
        with h5py.File(out, "r") as f:
            st = f["structures"]
            check(int(f.attrs["format_version"]) == 8, f"{out}: format_version {f.attrs['format_version']}")
            check(st["warnings"].dtype.itemsize == 1024, f"warnings dtype {st['warnings'].dtype}")
            texts.append((st["path"][:].tolist(), st["n_warnings"][:].tolist(), st["warnings"][:].tolist(),
                          st["status"][:].tolist()))
    check(texts[0] == texts[1], "/structures path, n_warnings, warnings or status differ between -np 1 and -np 3")
    paths, nw, ws, status = texts[0]
    # the run's report and summary say how many files have warnings (a fresh-user trial found no hint of them)
    for out in outs:
        with open(os.path.splitext(out)[0] + ".report.json") as fh:
            got = json.load(fh)["files"].get("with_warnings")
        check(got == sum(1 for n in nw if n > 0), f"{out}: report files.with_warnings {got}, rows with warnings "
              f"{sum(1 for n in nw if n > 0)}")
    rows = {p.decode(): (n, w.decode("utf-8"), s.decode()) for p, n, w, s in zip(paths, nw, ws, status)}
    check(set(rows) == set(expected) | {"many.pdb", "escape.pdb"}, f"rows {sorted(rows)}")
    n_contained = 0
    for p, (n, text, s) in rows.items():
        check(lines_ok(text, n), f"{p}: {n} warnings but the text is {text!r}")
        check(all(c >= " " or c == "\n" for c in text), f"{p}: a control character other than the separator")
        want, err = expected.get(p, ([], None))
        if err:
            check(s == err, f"{p}: status {s}, expected {err}")
        for w in want:
            check(w.lower() in text.lower(), f"{p}: '{w}' not in its warnings {text!r}")
            n_contained += 1
    check(n_contained >= len(cases), f"only {n_contained} expected warning texts checked for {len(cases)} cases")
    n, text, _ = rows["many.pdb"]
    lines = text.split("\n")
    k = len(lines) - 1
    msg = "repeated_atom_name: residue ALA A {}: 2 atoms named 'CA', kept as one residue; their CCD bonds are left out"
    check(n == 120 and lines[-1] == f"... {120 - k} more" and 5 <= k < 120, f"many.pdb: {n} warnings, {k} shown, "
          f"last line {lines[-1]!r}")
    check(lines[:k] == [msg.format(i) for i in range(1, k + 1)], f"many.pdb: shown lines {lines[:3]}...")
    nxt = len("\n".join(lines[:k] + [msg.format(k + 1), f"... {120 - k - 1} more"]))
    check(len(text.encode()) <= 1023 and nxt > 1023, f"many.pdb: {len(text)} bytes, one more would be {nxt}")
    n, text, _ = rows["escape.pdb"]
    check(n == 2 and "'ab\\x5ccd'" in text and "'x\\xffy'" in text and len(text.split("\n")) == 2,
          f"escape.pdb: {n} {text!r}")
    for out in outs:
        p = subprocess.run([sp, "check", out], capture_output=True, text=True)
        check(p.returncode == 0 and "format version 8" in p.stdout, f"check {out}: {p.returncode} {p.stderr}")
    p = subprocess.run([sys.executable, os.path.join(HERE, "..", "integration", "compare_h5.py"), *outs],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"compare_h5 -np 1 / -np 3: {p.stdout[-500:]} {p.stderr[-500:]}")
    d = subprocess.run([sp, "dump", outs[0], "structures"], capture_output=True, text=True)
    dl = d.stdout.rstrip("\n").split("\n")
    head = dl[0].split("\t")
    check(d.returncode == 0 and len(dl) == len(rows) + 1 and all(len(x.split("\t")) == len(head) for x in dl),
          f"dump structures: {len(dl)} lines for {len(rows)} rows, fields {set(len(x.split(chr(9))) for x in dl)}")
    col = head.index("warnings") if "warnings" in head else -1
    got = {x.split("\t")[head.index("path")]: x.split("\t")[col] for x in dl[1:]} if col >= 0 else {}
    check(all(got.get(p) == t.replace("\n", "\\n") for p, (_, t, _) in rows.items()), "dump: warnings with \\n")
    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print(f"/structures/warnings: {len(rows)} files, {sum(nw)} warnings, {n_contained} expected texts found; "
          f"many.pdb shows {k} of 120; identical at -np 1 and 3: ok")


main()
