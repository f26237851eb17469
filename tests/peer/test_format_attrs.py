#!/usr/bin/python3
"""The merged file describes itself (issue 26; docs/format.md "Units and codes"), read with h5py alone.

Usage: test_format_attrs.py FILE.h5 docs/format.md [--write]

Walks every dataset of FILE.h5 and checks, from the file alone:
- every numeric dataset has a `units` attribute, a str (h5py decodes it: variable-length UTF-8);
- a coded column's `codes` ({"code": "name"}) / `flag_bits` ({"bit": "name"}) / `values` (["name", ...]) is
  JSON that parses, and every value the column holds is one of its codes, within its bits, or one of its
  values (so the names cover the data, not only the header);
- a `missing` marker ("VALUE: meaning") is a value of the column's type (NaN in a float column);
- the flag and code names equal the Python package's tables (python/sitepack/_schema.py);
- the root attributes: format_version (int), sitepack_version (str), created (ISO 8601 UTC), job_json (JSON).
Then compares the table those attributes make with the generated section of docs/format.md between
`<!-- units-and-codes:begin -->` and `<!-- units-and-codes:end -->` (both ways: the doc cannot drift from the
file; rows of the optional groups /clusters and /splits, which sitepack cluster / split add, may be absent from the
file). --write rewrites that section from the file instead (after a deliberate change of src/store/describe.c).
"""
import datetime
import json
import os
import re
import sys

import h5py
import numpy as np

BEGIN, END = "<!-- units-and-codes:begin -->", "<!-- units-and-codes:end -->"
CODED = ("codes", "flag_bits", "values")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def datasets(f):
    out = {}
    f.visititems(lambda n, o: out.__setitem__(n, o) if isinstance(o, h5py.Dataset) else None)
    return out


def check_values(name, ds, kind, names):
    data = ds[()]
    if kind == "values":
        seen = {v.decode("utf-8") for v in np.unique(data)} if data.size else set()
        check(seen <= set(names), f"/{name}: values {sorted(seen - set(names))} not in its `values`")
    elif kind == "codes":
        keys = {int(k) for k in names}
        seen = set(np.unique(data).tolist())
        check(seen <= keys, f"/{name}: codes {sorted(seen - keys)} not in its `codes`")
    else:
        mask = 0
        for b in names:
            mask |= 1 << int(b)
        ored = int(np.bitwise_or.reduce(data.astype(np.uint64))) if data.size else 0
        check(ored & ~mask == 0, f"/{name}: bits {ored & ~mask:#x} not in its `flag_bits`")


def check_missing(name, ds, miss):
    """The marker is a value of the column's type: NaN in a float column, an integer in an integer column."""
    value = miss.split(":")[0].split()[0]
    if ds.dtype.kind == "f":
        check(value == "NaN", f"/{name}@missing: {value} in a float column")
    else:
        check(ds.dtype.kind in "iu" and np.iinfo(ds.dtype).min <= int(value) <= np.iinfo(ds.dtype).max,
              f"/{name}@missing: {value} is no value of {ds.dtype}")


def check_python_names(f):
    """The package's flag and code tables (python/sitepack/_schema.py) name what the file names."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    from sitepack import _schema
    def bits(path):
        return {v: 1 << int(k) for k, v in json.loads(f[path].attrs["flag_bits"]).items()}
    check(bits("ligands/flags") == _schema.LIGAND_FLAGS, "ligand flag names: file vs sitepack.LIGAND_FLAGS")
    check(bits("sites/flags") == _schema.SITE_FLAGS, "site flag names: file vs sitepack.SITE_FLAGS")
    check(bits("atoms/flags") == _schema.ATOM_FLAGS, "atom flag names: file vs sitepack.ATOM_FLAGS")
    kinds = {v: int(k) for k, v in json.loads(f["residues/kind"].attrs["codes"]).items()}
    check(kinds == _schema.RESIDUE_KINDS, "residue kinds: file vs sitepack.RESIDUE_KINDS")
    types = {int(k): v for k, v in json.loads(f["interactions/type"].attrs["codes"]).items()}
    check(types == _schema.INTERACTION_TYPES, f"interaction types: file {types} vs sitepack.INTERACTION_TYPES")


def describe(f):
    """[(dataset, units, kind, names)] of every numeric or coded dataset, in path order."""
    rows = []
    for name, ds in sorted(datasets(f).items()):
        units = ds.attrs.get("units")
        numeric = ds.dtype.kind in "iuf"
        if numeric:
            check(isinstance(units, str) and units != "", f"/{name}: numeric, no str attribute units ({units!r})")
        kinds = [k for k in CODED if k in ds.attrs]
        check(len(kinds) <= 1, f"/{name}: more than one of {CODED}")
        kind, names = (kinds[0], None) if kinds else (None, None)
        if kind:
            raw = ds.attrs[kind]
            check(isinstance(raw, str), f"/{name}@{kind} is not a str")
            try:
                names = json.loads(raw)
            except (TypeError, ValueError) as e:
                check(False, f"/{name}@{kind}: not JSON ({e})")
                continue
            check(isinstance(names, list if kind == "values" else dict), f"/{name}@{kind}: wrong JSON type")
            check_values(name, ds, kind, names)
        miss = ds.attrs.get("missing")
        if miss is not None:
            check(isinstance(miss, str) and ":" in miss, f"/{name}@missing {miss!r}: not 'VALUE: meaning'")
            check_missing(name, ds, miss)
        if numeric or kind:
            rows.append((name, units if numeric else "", kind, names, ds.attrs.get("note"), miss))
    return rows


def check_root(f):
    check(isinstance(f.attrs.get("format_version"), (int, np.integer)), "root format_version is not an integer")
    check(isinstance(f.attrs.get("sitepack_version"), str) and f.attrs["sitepack_version"], "root sitepack_version")
    created = f.attrs.get("created")
    try:
        t = datetime.datetime.strptime(created, "%Y-%m-%dT%H:%M:%SZ")
        check(abs((datetime.datetime.utcnow() - t).days) < 3650, f"root created {created!r} implausible")
    except (TypeError, ValueError):
        check(False, f"root created {created!r} is not ISO 8601 UTC")
    try:
        job = json.loads(f.attrs.get("job_json"))
        check(isinstance(job, dict) and "ph" in job and "site" in job, f"root job_json lacks ph/site: {job}")
    except (TypeError, ValueError):
        check(False, "root job_json is not JSON")


def names_text(kind, names):
    if kind is None:
        return ""
    if kind == "values":
        return "values: " + ", ".join(f"`{v}`" if v else "(empty)" for v in names)
    return f"{kind}: " + ", ".join(f"{k} `{v}`" for k, v in names.items())


OPTIONAL_GROUPS = ("clusters", "splits", "split_scores")   # written by sitepack cluster / split, not by every run


def table(rows):
    out = [BEGIN, "", "| dataset | units | names |", "|---|---|---|"]
    seen = set()
    for name, units, kind, names, note, miss in rows:
        if name.startswith("splits/"):   # one column per split, named by the user: one row for all
            name = "splits/NAME"
            if name in seen:
                continue
        if name.startswith("split_scores/"):   # one group per split: one row per column for all
            name = "split_scores/NAME/" + name.split("/")[-1]
            if name in seen:
                continue
        seen.add(name)
        u = f"`{units}`" if units else ""
        if note:
            u += f" ({note})"
        if miss:
            u += f"; missing `{miss.split(':')[0]}`:{miss.split(':', 1)[1]}"
        if name == "atoms/element":   # 119 codes: the table names the rule, the file holds every symbol
            text = "codes: 0 `unknown`, 1 `H`, 2 `He`, ..., 118 `Og` (the element symbol of each atomic number)"
        else:
            text = names_text(kind, names)
        out.append(f"| `/{name}` | {u} | {text.replace('|', '&#124;')} |")
    out += ["", END]
    return "\n".join(out)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, doc, write = argv[1], argv[2], "--write" in argv[3:]
    with h5py.File(path, "r") as f:
        check_root(f)
        rows = describe(f)
        check_python_names(f)
        groups = set(f.keys())
    text = open(doc, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        check(False, f"{doc}: no section between {BEGIN} and {END}")
    else:
        a, b = text.index(BEGIN), text.index(END) + len(END)
        want = table(rows)
        if write:
            open(doc, "w", encoding="utf-8").write(text[:a] + want + text[b:])
            print(f"{doc}: section rewritten ({len(rows)} datasets)")
        else:
            have = text[a:b].splitlines()
            for line in sorted(set(have) ^ set(want.splitlines())):
                where = "only in docs" if line in have else "only in the file"
                group = re.match(r"^\| `/(\w+)/", line)
                if where == "only in docs" and group and group.group(1) in OPTIONAL_GROUPS and group.group(1) not in groups:
                    continue   # a file without that optional group
                check(False, f"{doc} \"Units and codes\" {where}: {line}")
    print(f"{len(rows)} numeric or coded datasets described; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
