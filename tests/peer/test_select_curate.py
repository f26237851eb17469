#!/usr/bin/python3
"""ds.select's filters of issue 36 (python/sitepack/_select.py curate_mask; docs/python.md "Selecting sites") on
the corpus, each against the same selection computed here from the file with h5py and numpy: descriptor ranges,
rules (ro5, ro3, drug_like), max_r_free, release dates, interaction counts by type, pocket size, pass_quality and
quality criteria, alone and combined; every filter selects some sites and leaves some out; bad names and values
raise ValueError / TypeError.
usage: test_select_curate.py CORPUS_H5
"""
import sys

import h5py
import numpy as np

import sitepack

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL:", msg)


def main():
    path = sys.argv[1]
    with h5py.File(path, "r") as f:
        lig, st = f["sites/ligand_idx"][:], f["sites/structure_idx"][:]
        n = len(lig)
        L = {k: f["ligands"][k][:][lig] for k in ("mw", "qed", "hbd", "desc_flags", "tpsa")}
        rfree, rel = f["structures/r_free"][:][st], f["structures/release_date"][:][st]
        xp, xt = f["sites/interaction_ptr"][:], f["interactions/type"][:]
        rp, kind = f["sites/residue_ptr"][:], f["residues/kind"][:]
        q, pq = f["sites/quality"][:], f["sites/pass_quality"][:]
    site_of_ix = np.repeat(np.arange(n), np.diff(xp))
    site_of_res = np.repeat(np.arange(n), np.diff(rp))
    hb = np.bincount(site_of_ix[xt == 2], minlength=n)
    anyx = np.diff(xp)
    pocket = np.bincount(site_of_res[kind == 1], minlength=n)
    comp = (L["desc_flags"] & 1) != 0
    cases = {
        "descriptors mw 150..500, qed >= 0.5": (dict(descriptors={"mw": (150, 500), "qed": (0.5, None)}),
                                                comp & (L["mw"] >= 150) & (L["mw"] <= 500) & (L["qed"] >= 0.5)),
        "descriptors hbd <= 2": (dict(descriptors={"hbd": (None, 2)}), comp & (L["hbd"] <= 2)),
        "rules drug_like": (dict(rules="drug_like"), (L["desc_flags"] & 8) != 0),
        "rules ro5 + ro3": (dict(rules=["ro5", "ro3"]), (L["desc_flags"] & 6) == 6),
        "max_r_free 0.25": (dict(max_r_free=0.25), rfree <= 0.25),
        "released 2000..2010": (dict(released_after="2000-01-01", released_before="2010-12-31"),
                                (rel != b"") & (rel >= b"2000-01-01") & (rel <= b"2010-12-31")),
        "interactions hbond >= 2": (dict(interactions={"hbond": 2}), hb >= 2),
        "interactions any >= 5": (dict(interactions={"any": 5}), anyx >= 5),
        "pocket 10..30": (dict(min_pocket_residues=10, max_pocket_residues=30), (pocket >= 10) & (pocket <= 30)),
        "pass_quality": (dict(pass_quality=True), pq == 1),
        "not pass_quality": (dict(pass_quality=False), pq == 0),
        "quality r_free, ligand_b": (dict(quality=["r_free", "ligand_b"]), (q & (4 | 128)) == 0),
    }
    ds = sitepack.open(path)
    total = np.ones(n, dtype=bool)
    combo = {}
    for name, (kw, want) in cases.items():
        got = ds.select(**kw)
        exp = np.flatnonzero(want)
        check(np.array_equal(got, exp), f"{name}: {len(got)} sites, expected {len(exp)}")
        check(0 < len(exp) < n, f"{name}: selects {len(exp)} of {n} (a filter that cannot fail)")
        print(f"{name}: {len(got)} of {n}")
    kw = dict(max_r_free=0.25, rules="ro5", interactions={"hbond": 1}, pass_quality=True, max_resolution=2.5)
    with h5py.File(path, "r") as f:
        res = f["structures/resolution"][:][st]
    exp = np.flatnonzero((rfree <= 0.25) & ((L["desc_flags"] & 2) != 0) & (hb >= 1) & (pq == 1) & (res <= 2.5))
    check(np.array_equal(ds.select(**kw), exp), f"combined: {len(ds.select(**kw))} vs {len(exp)}")
    for bad, exc in ((dict(descriptors={"weight": (0, 1)}), ValueError), (dict(rules="lipinski"), ValueError),
                     (dict(quality="rfree"), ValueError), (dict(interactions={"hydrogen": 1}), ValueError),
                     (dict(released_after="2010"), TypeError), (dict(max_r_free="0.3"), TypeError),
                     (dict(bogus=1), TypeError)):
        try:
            ds.select(**bad)
            check(False, f"select({bad}) raised nothing")
        except exc:
            pass
    print(f"{len(FAILS)} failures")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
