#!/usr/bin/python3
"""The Python package's /bonds path on a merged file that has /bonds (the ligand-chemistry issue):
for every site, site.bonds equals h5py's slice of every /bonds column; for every ligand whose components
all have CCD blocks, site.to_rdkit() sanitizes (100 %: an RDKit exception is a failure) and has
/ligands/n_heavy_atoms heavy atoms; for every such ligand that is complete and single-component, the
InChIKey first block RDKit computes from to_rdkit() equals the CCD's (/components/inchikey), for at least
99 % of them, each exception listed.

Registered in CI together with the /bonds writer (tests/cmake/python.cmake), on the fixture py_corpus.
Usage: test_py_bonds.py MERGED.h5
"""
import sys

import h5py
import numpy as np
from rdkit import Chem, RDLogger

import sitepack

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def main():
    path = sys.argv[1]
    RDLogger.DisableLog("rdApp.*")
    ds = sitepack.open(path)
    check(ds.has_bonds, f"{path} has no /bonds")
    with h5py.File(path, "r") as f:
        bp = f["sites/bond_ptr"][:]
        bonds = {c: f[f"bonds/{c}"][:] for c in f["bonds"]}
        comp = {bytes(c).decode(): (int(i), bytes(k).decode()) for c, i, k in
                zip(f["components/comp_id"][:], f["components/in_ccd"][:], f["components/inchikey"][:])}
    bad_bonds = [i for i in range(len(ds)) if not all(
        np.array_equal(ds[i].bonds[c], bonds[c][bp[i]:bp[i + 1]]) for c in bonds)]
    check(not bad_bonds, f"site.bonds differs from h5py for sites {bad_bonds[:10]}")
    flags = sitepack.LIGAND_FLAGS
    n_ccd = n_key = agree = 0
    exceptions = []
    for i in range(len(ds)):
        s = ds[i]
        lig = s.ligand
        comps = [r.split("/")[0] for r in lig["residues"].split()]
        if lig["flags"] & flags["not_in_ccd"] or not all(comp.get(c, (0, ""))[0] for c in comps):
            continue
        n_ccd += 1
        try:
            m = s.to_rdkit()
        except Exception as e:   # noqa: BLE001 - every RDKit failure is a test failure
            check(False, f"site {i} {lig['comp_id']}: to_rdkit failed: {e}")
            continue
        heavy = sum(1 for a in m.GetAtoms() if a.GetAtomicNum() > 1)
        check(heavy == lig["n_heavy_atoms"], f"site {i} {lig['comp_id']}: {heavy} heavy atoms, "
              f"/ligands says {lig['n_heavy_atoms']}")
        key = comp[lig["comp_id"]][1]
        if lig["flags"] & flags["incomplete"] or lig["n_residues"] != 1 or not key:
            continue
        n_key += 1
        got = Chem.MolToInchiKey(m)
        if got[:14] == key[:14]:
            agree += 1
        else:
            exceptions.append(f"site {i} {lig['comp_id']}: RDKit {got} CCD {key} (flags {lig['flags']})")
    print(f"test_py_bonds: {n_ccd} CCD-defined ligands sanitized; InChIKey first block agrees for {agree} of {n_key}")
    for e in exceptions:
        print("  exception:", e)
    check(n_key > 0 and agree >= 0.99 * n_key, f"InChIKey agreement {agree}/{n_key} below 99 %")
    if failures:
        print(f"test_py_bonds: {len(failures)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print("test_py_bonds: all checks passed")


if __name__ == "__main__":
    main()
