#!/usr/bin/env python3
"""Compare two merged sitepack files: every dataset and attribute must be equal, except the
timing fields (docs/format.md): /structures/t_* and the /run attributes n_ranks, created,
wall_seconds. Exit 0 when equal, 1 with the differences listed otherwise.

usage: compare_h5.py A.h5 B.h5 [--exclude PATH ...]
  --exclude PATH  leave out every object whose path is PATH or starts with PATH/ (e.g. /chains), and
                  attributes written as /OBJ@ATTR (e.g. /@format_version), in both files: compares a file
                  with one of an older format on what they share
"""
import sys

import h5py
import numpy as np

TIMING_DATASETS = {"/structures/t_read", "/structures/t_parse", "/structures/t_survey", "/structures/t_site"}
TIMING_ATTRS = {("/run", "n_ranks"), ("/run", "created"), ("/run", "wall_seconds"),
                ("/", "n_ranks"), ("/", "created"), ("/", "wall_seconds")}


def walk(f):
    out = {}
    def visit(name, obj):
        out["/" + name] = obj
    f.visititems(visit)
    out["/"] = f
    return out


def excluded(name, exclude):
    return any(name == e or name.startswith(e.rstrip("/") + "/") for e in exclude if "@" not in e)


def main(a_path, b_path, exclude=()):
    diffs = []
    with h5py.File(a_path, "r") as a, h5py.File(b_path, "r") as b:
        oa = {k: v for k, v in walk(a).items() if not excluded(k, exclude)}
        ob = {k: v for k, v in walk(b).items() if not excluded(k, exclude)}
        if set(oa) != set(ob):
            diffs.append(f"objects differ: only in A {sorted(set(oa) - set(ob))}, only in B {sorted(set(ob) - set(oa))}")
        n_ds = 0
        for name in sorted(set(oa) & set(ob)):
            x, y = oa[name], ob[name]
            for k in sorted(set(x.attrs) | set(y.attrs)):
                if (name, k) in TIMING_ATTRS or f"{name}@{k}" in exclude or f"{name.rstrip('/')}/@{k}" in exclude:
                    continue
                if k not in x.attrs or k not in y.attrs:
                    diffs.append(f"{name}@{k}: present in one file only")
                elif not np.array_equal(np.asarray(x.attrs[k]), np.asarray(y.attrs[k])):
                    diffs.append(f"{name}@{k}: {x.attrs[k]!r} != {y.attrs[k]!r}")
            if isinstance(x, h5py.Dataset):
                n_ds += 1
                if name in TIMING_DATASETS:
                    if x.shape != y.shape:
                        diffs.append(f"{name}: shape {x.shape} != {y.shape}")
                    continue
                if x.dtype != y.dtype or x.shape != y.shape:
                    diffs.append(f"{name}: dtype/shape {x.dtype}{x.shape} != {y.dtype}{y.shape}")
                    continue
                xa, ya = x[()], y[()]
                if xa.dtype.kind == "f":
                    same = np.array_equal(xa, ya, equal_nan=True)
                else:
                    same = np.array_equal(xa, ya)
                if not same:
                    diffs.append(f"{name}: values differ")
    if diffs:
        print("DIFFERENT:\n  " + "\n  ".join(diffs))
        return 1
    print(f"equal: {n_ds} datasets compared (timing fields excluded{', and ' + ' '.join(exclude) if exclude else ''})")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    excl = [args[i + 1] for i, x in enumerate(args) if x == "--exclude" and i + 1 < len(args)]
    pos = [x for i, x in enumerate(args) if x != "--exclude" and (i == 0 or args[i - 1] != "--exclude")]
    sys.exit(main(pos[0], pos[1], excl))
