#!/usr/bin/python3
"""The compiled reader (sitepack._fast) against the pure-Python one on the merged output of shared/data/structures:
every site, every attribute ds[i] exposes (arrays with their dtypes and shapes), get_sites_flat of several
index sets (all sites shuffled with repeats, empty, negative, every integer dtype, a strided view, batches
below and above the block-copy threshold) with every /atoms column, and the same exceptions with the same
messages (indices out of range, of the wrong type, a closed dataset, a Site read after the close). With
SITEPACK_EXPECT_COMPILED=ON (CMake built build/python/sitepack/_fast) the compiled path must be the default;
SITEPACK_PURE_PYTHON=1 (in a child process) must turn it off. No timing.

Usage: test_py_compiled.py MERGED.h5
"""
import os
import pickle
import subprocess
import sys

import numpy as np

import sitepack
from sitepack.dataset import _BLOCK_FROM, Dataset

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def same(a, b):
    """Equal values (NaN equal to NaN), dtypes and shapes; dicts and structured arrays field by field."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(
            same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype.names:
            return all(same(a[c], b[c]) for c in a.dtype.names)
        return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return type(a) is type(b) and a == b


def outcome(fn):
    """(True, value) or (False, exception class, message)."""
    try:
        return (True, fn())
    except Exception as e:   # noqa: BLE001 - the outcome is compared, whatever it is
        return (False, type(e), str(e))


def same_outcome(a, b):
    if a[0] != b[0]:
        return False
    return same(a[1], b[1]) if a[0] else a[1:] == b[1:]


SITE_ATTRS = ("index", "n_atoms", "n_ligand", "positions", "elements", "flags", "center", "ligand_index",
              "structure_index", "ligand", "structure", "residues", "interactions", "bonds")


def check_sites(dc, dp):
    n = len(dc)
    atoms = [c.split("/", 1)[1] for c in dp._lay.cols if c.startswith("atoms/")]
    bad = 0
    for i in range(n):
        sc, sp = dc[i], dp[i]
        ok = isinstance(sc, sitepack.Site) and isinstance(sp, sitepack.Site) and repr(sc) == repr(sp)
        ok = ok and all(same_outcome(outcome(lambda a=a: getattr(sc, a)), outcome(lambda a=a: getattr(sp, a)))
                        for a in SITE_ATTRS)
        ok = ok and all(same(sc.atoms(c), sp.atoms(c)) for c in atoms + ["positions", "elements"])
        ok = ok and same(sc.site_value("sasa_free"), sp.site_value("sasa_free"))
        # the negative index of the same site
        ok = ok and sc.index == dc[i - n].index == i and same(dc[i - n].positions, sp.positions)
        if not ok:
            bad += 1
            if bad < 5:
                check(False, f"site {i}: the compiled Site differs from the pure-Python one")
    check(bad == 0, f"{bad} of {n} sites differ between the compiled and the pure-Python path")
    check(sum(1 for _ in dc) == n and all(same(a.positions, b.positions) for a, b in zip(dc, dp)), "iteration")
    return atoms


def check_flat(dc, dp, atoms):
    n = len(dc)
    rng = np.random.default_rng(11)
    perm = np.concatenate([rng.permutation(n), rng.integers(0, n, 300)])
    sets = {"all shuffled + repeats": perm, "empty list": [], "empty int64": np.zeros(0, dtype=np.int64),
            "negative": [-1, -n, 0, n - 1, -5], "list": [3, 1, 3], "int32": perm[:50].astype(np.int32),
            "uint64": perm[:50].astype(np.uint64), "uint8": np.array([0, 1, 255 % n], dtype=np.uint8),
            "int16 negative": np.array([-1, -2], dtype=np.int16), "strided view": perm[::3],
            "2-D": perm[:12].reshape(3, 4), "numpy scalar": np.int64(7), "64 sites": perm[:64],
            "one site": [int(perm[0])]}
    fields = ["positions", "elements", "flags"] + [c for c in atoms if c not in ("position", "element", "flags")]
    big = 0
    for what, idx in sets.items():
        for kw in ({}, {"fields": fields, "site_fields": ("n_ligand", "center", "ligand_idx")},
                   {"fields": "b_iso", "site_fields": "center"}, {"fields": (), "site_fields": ()}):
            a, b = outcome(lambda: dc.get_sites_flat(idx, **kw)), outcome(lambda: dp.get_sites_flat(idx, **kw))
            check(same_outcome(a, b), f"get_sites_flat({what}, {sorted(kw)}): compiled {a[:1] + a[2:]} "
                  f"vs pure {b[:1] + b[2:]}")
            if a[0] and len(a[1]["offsets"]) > 1:
                big = max(big, int(a[1]["offsets"][-1]))
    check(big >= _BLOCK_FROM, "get_sites_flat: no request above the block-copy threshold")
    # batches of 16 (the pure path's row-by-row gather) against the whole request (its block copy)
    parts = [dc.get_sites_flat(perm[k:k + 16]) for k in range(0, len(perm), 16)]
    whole = dp.get_sites_flat(perm)
    check(same(np.concatenate([p["positions"] for p in parts]), whole["positions"]), "flat in batches of 16")


def check_errors(path, dc, dp):
    n = len(dc)
    keys = [n, -n - 1, 2 ** 70, -2 ** 70, 1.0, True, np.bool_(False), "x", None, slice(0, 2), (1,),
            np.int64(n), np.uint64(3), np.int32(-1), np.array(5), np.array([5])]
    for k in keys:
        a, b = outcome(lambda: dc[k].positions), outcome(lambda: dp[k].positions)
        check(same_outcome(a, b), f"ds[{k!r}]: compiled {a[:1] + a[2:]} vs pure {b[:1] + b[2:]}")
    flat = [[0, n], [-n - 1], [1.5], np.array([n], dtype=np.uint64), np.array([2 ** 64 - 1], dtype=np.uint64),
            ["a"], [[0], [1, 2]]]
    for idx in flat:
        a, b = outcome(lambda: dc.get_sites_flat(idx)), outcome(lambda: dp.get_sites_flat(idx))
        check(same_outcome(a, b) and not a[0], f"get_sites_flat({idx!r}): compiled {a[:1] + a[2:]} vs pure "
              f"{b[:1] + b[2:]}")
    for kw in ({"fields": "nope"}, {"fields": "n_atoms"}, {"fields": "center", "site_fields": "center"},
               {"site_fields": "nope"}):
        a, b = outcome(lambda: dc.get_sites_flat([0], **kw)), outcome(lambda: dp.get_sites_flat([0], **kw))
        check(same_outcome(a, b) and not a[0], f"get_sites_flat([0], {kw}): {a[:1] + a[2:]} vs {b[:1] + b[2:]}")
    # a closed dataset and a Site taken before the close
    cc, cp = Dataset(path, compiled=dc.compiled), Dataset(path, compiled=False)
    sc, sp = cc[3], cp[3]
    cc.close()
    cp.close()
    for what, fa, fb in (("ds[0]", lambda: cc[0], lambda: cp[0]), ("ds[n]", lambda: cc[n], lambda: cp[n]),
                         ("flat", lambda: cc.get_sites_flat([0]), lambda: cp.get_sites_flat([0])),
                         ("flat []", lambda: cc.get_sites_flat([]), lambda: cp.get_sites_flat([])),
                         ("len", lambda: len(cc), lambda: len(cp)), ("n_atoms", lambda: sc.n_atoms, lambda: sp.n_atoms),
                         ("index", lambda: sc.index, lambda: sp.index)):
        a, b = outcome(fa), outcome(fb)
        check(same_outcome(a, b), f"closed {what}: compiled {a[:1] + a[2:]} vs pure {b[:1] + b[2:]}")
    for attr in ("positions", "elements", "flags", "n_ligand", "center", "ligand", "residues"):
        a, b = outcome(lambda: getattr(sc, attr)), outcome(lambda: getattr(sp, attr))
        check(same_outcome(a, b) and not a[0] and a[1] is ValueError, f"closed Site.{attr}: {a[:1] + a[2:]} vs "
              f"{b[:1] + b[2:]}")


def check_switches(path, dc):
    expect = os.environ.get("SITEPACK_EXPECT_COMPILED", "")
    if expect.upper() in ("ON", "1", "TRUE"):
        check(sitepack.COMPILED and dc.compiled and type(dc[0]).__name__ == "_CompiledSite",
              f"the build made sitepack._fast but it does not serve ds[i] (COMPILED {sitepack.COMPILED}, "
              f"{type(dc).__name__}, package path {list(sitepack.__path__)})")
    else:
        print(f"test_py_compiled: SITEPACK_EXPECT_COMPILED={expect!r}: the compiled path is "
              f"{'used' if sitepack.COMPILED else 'not used (not built, or SITEPACK_PURE_PYTHON set)'}")
    for d in (dc, Dataset(path, compiled=False)):
        e = pickle.loads(pickle.dumps(d))
        check(type(e) is type(d) and e.compiled == d.compiled, f"pickle keeps the path ({type(d).__name__})")
    check(Dataset(path, compiled=False).compiled is False and type(Dataset(path, compiled=False)) is Dataset,
          "Dataset(path, compiled=False) is the pure-Python Dataset")
    # SITEPACK_PURE_PYTHON=1 turns the compiled path off; compiled=True then raises ImportError
    code = ("import sys, sitepack\nds = sitepack.open(sys.argv[1])\nprint(sitepack.COMPILED, ds.compiled, "
            "type(ds[0]).__name__)\ntry:\n    sitepack.Dataset(sys.argv[1], compiled=True)\nexcept ImportError:\n"
            "    print('ImportError')\n")
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True,
                         env=dict(os.environ, SITEPACK_PURE_PYTHON="1"))
    check(out.stdout.split() == ["False", "False", "_PySite", "ImportError"],
          f"SITEPACK_PURE_PYTHON=1: {out.stdout!r} {out.stderr[-400:]!r}")


def main():
    path = sys.argv[1]
    dc = sitepack.open(path)
    dp = Dataset(path, compiled=False)
    check(not dp.compiled and type(dp[0]).__name__ == "_PySite", "the pure-Python Dataset")
    check_switches(path, dc)
    atoms = check_sites(dc, dp)
    check_flat(dc, dp, atoms)
    check_errors(path, dc, dp)
    if failures:
        print(f"test_py_compiled: {len(failures)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print(f"test_py_compiled: all checks passed ({len(dc)} sites, compiled path "
          f"{'used' if dc.compiled else 'not used'})")


main()
