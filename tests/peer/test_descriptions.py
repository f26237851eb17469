#!/usr/bin/python3
"""Every dataset of a merged file says what it is: a `description` attribute (issue 39 item 5; docs/format.md
"Units and codes"), read with h5py alone, and the descriptions agree with the data they describe.

Usage: test_descriptions.py FILE.h5 (a merged file; with /clusters and /splits when cluster and split ran)

Walks every dataset and checks:
- a non-empty str attribute `description` on each (h5py decodes it: variable-length UTF-8);
- a dataset described as "CSR pointer, length N+1 (N = rows of /A): row i of /A owns rows ... of /B" has
  rows(A) + 1 values, starts at 0, never decreases and ends at rows(B);
- one described as "an offset into its site's atom block" holds values in [0, n_atoms of the row's site)
  (-1 allowed where its `missing` says so), and atom_ptr[site_idx] + value is a row of /atoms;
- one described as "a global row" of /T holds values in [0, rows(T)) (or its `missing` value);
- /interactions/angle, angle2, offset and distance2 name, per interaction type, the types that hold a value in
  the file and no type that holds none (the `codes` of /interactions/type give the names).
"""
import json
import re
import sys

import h5py
import numpy as np

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def rows(f, table):
    """Rows of a table: the first dimension of a dataset of it that is no CSR pointer."""
    g = f[table]
    if isinstance(g, h5py.Dataset):
        return g.shape[0]
    for name, ds in g.items():
        if not name.endswith("_ptr"):
            return ds.shape[0]
    return None


def missing_value(ds):
    m = ds.attrs.get("missing")
    return int(m.split(":")[0].split()[0]) if isinstance(m, str) and m.lstrip("-")[:1].isdigit() else None


def check_csr(f, name, ds, text):
    m = re.match(r"CSR pointer, length N\+1 \(N = rows of /(\w+)\): row i of /\1 owns rows \w+\[i\] : \w+\[i\+1\] "
                 r"of /([\w/]+)$", text)
    check(m is not None, f"/{name}: a CSR pointer described as {text!r}")
    if not m:
        return 0
    owner, target = m.group(1), m.group(2)
    p = ds[:]
    check(len(p) == rows(f, owner) + 1, f"/{name}: {len(p)} values, /{owner} has {rows(f, owner)} rows (N+1)")
    check(len(p) > 0 and p[0] == 0 and np.all(np.diff(p) >= 0), f"/{name}: not a CSR pointer from 0")
    check(len(p) > 0 and p[-1] == rows(f, target), f"/{name}: ends at {p[-1]}, /{target} has {rows(f, target)} rows")
    return 1


def check_offset(f, name, ds, text):
    table = name.split("/")[0]
    v = ds[:].astype(np.int64)
    site = f[table + "/site_idx"][:]
    ap = f["sites/atom_ptr"][:]
    n_at = (ap[1:] - ap[:-1])[site]
    miss = missing_value(ds)
    ok = (v >= 0) & (v < n_at)
    if miss is not None:
        ok |= v == miss
    check(bool(np.all(ok)), f"/{name}: described as an offset into its site's atom block, {int((~ok).sum())} values "
          "are not")
    g = ap[site] + v
    check(bool(np.all((g[v >= 0] >= 0) & (g[v >= 0] < f["atoms/position"].shape[0]))), f"/{name}: global rows out")
    return 1


def check_global(f, name, ds, text):
    m = re.match(r"(?:the chain of each /sites row: )?(?:a global )?row of /(\w+)", text) or \
        re.search(r"row of /(\w+) .*a global row", text) or re.search(r"a global row of /(\w+)", text)
    check(m is not None, f"/{name}: 'a global row' of which table? {text!r}")
    if not m:
        return 0
    t = m.group(1)
    v = ds[:].astype(np.int64)
    miss = missing_value(ds)
    ok = (v >= 0) & (v < rows(f, t))
    if miss is not None:
        ok |= v == miss
    check(bool(np.all(ok)), f"/{name}: described as a global row of /{t}, {int((~ok).sum())} values are not")
    return 1


def check_per_type(f):
    """The per-type columns of /interactions name exactly the types that hold a value."""
    if "interactions" not in f or f["interactions/type"].shape[0] == 0:
        return 0
    t = f["interactions/type"][:]
    names = json.loads(f["interactions/type"].attrs["codes"])
    n = 0
    for col in ("angle", "angle2", "offset", "distance2"):
        if col not in f["interactions"]:
            continue
        text = f["interactions/" + col].attrs.get("description", "")
        a = f["interactions/" + col][:]
        for code in sorted(set(t.tolist())):
            nm = names[str(code)]
            stem = "pi_stack" if nm.startswith("pi_stack") else nm   # "pi_stack" names both pi-stack types
            has = bool(np.isfinite(a[t == code]).any())
            said = re.search(r"(^|[ ;:/(])" + re.escape(stem) + r"\b", text.replace("per type: ", " ")) is not None
            check(has == said, f"/interactions/{col}: type {nm} {'holds' if has else 'holds no'} values, the "
                  f"description {'names' if said else 'does not name'} it: {text!r}")
            n += 1
    return n


def main(argv):
    f = h5py.File(argv[1], "r")
    names = []
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    counts = {"datasets": len(names), "csr": 0, "offset": 0, "global": 0}
    for name in sorted(names):
        ds = f[name]
        text = ds.attrs.get("description")
        check(isinstance(text, str) and text.strip() != "", f"/{name}: no str attribute description ({text!r})")
        if not isinstance(text, str):
            continue
        if text.startswith("CSR pointer"):
            counts["csr"] += check_csr(f, name, ds, text)
        elif "offset into its site's atom block" in text:
            counts["offset"] += check_offset(f, name, ds, text)
        elif "a global row" in text:
            counts["global"] += check_global(f, name, ds, text)
    counts["per_type"] = check_per_type(f)
    print("descriptions:", counts, "groups:", sorted(f.keys()))
    check(counts["csr"] >= 8 and counts["offset"] >= 5, f"fewer CSR pointers or offsets than the format has: {counts}")
    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
