#!/usr/bin/python3
"""The ligand fingerprints of sitepack cluster read /atoms/formal_charge from a file of format version 6 or later
(the one charge of the file, the one the SDF export writes) and /atoms/ccd_charge from an older file
(docs/usage.md "Splits"), checked against RDKit on the exported SDF molecules.

Usage: test_cluster_charges.py SITEPACK CORPUS.h5 WORKDIR

CORPUS.h5 (a version-6 run) is copied twice: as it is, and made a version-5 file (root attribute
format_version 5, /atoms/formal_charge deleted); sitepack cluster runs on both. Each molecule's ligand is that of
its site with most heavy atoms (first on ties, sitepack cluster's rule); its SDF is `sitepack export --format sdf`.
- the export writes the charges the fingerprints read: RDKit's formal charge of every heavy atom of the SDF
  molecule equals /atoms/formal_charge (same atoms, same order, same elements);
- the version-6 fingerprint differs from the version-5 one exactly for the molecules with a heavy atom whose
  formal_charge differs from its ccd_charge (the charge is an atom invariant), and equals it for the others;
- two molecules have the same version-6 fingerprint exactly when RDKit's Morgan(2, 2048) of their SDF molecules
  are the same (bit positions differ by design: the hash is sitepack's);
Prints the molecules and ligand clusters (as sets of sites) that change. Exit 1 on any failure.
"""
import io
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
from rdkit import Chem, RDLogger
from rdkit.Chem import AllChem

RDLogger.DisableLog("rdApp.*")
FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL:", msg)


def clustered(exe, src, dst, version5):
    shutil.copyfile(src, dst)
    if version5:
        with h5py.File(dst, "r+") as f:
            f.attrs["format_version"] = np.int64(5)
            del f["atoms/formal_charge"]
    subprocess.run([exe, "cluster", dst, "--quiet", "--force"], check=True)
    with h5py.File(dst, "r") as f:
        c = f["clusters"]
        return c["ligand_molecule"][()], np.unpackbits(c["fingerprint"][()], axis=1, bitorder="little"), c["ligand"][()]


def partition(lab):
    d = {}
    for i, x in enumerate(lab.tolist()):
        d.setdefault(x, []).append(i)
    return {tuple(v) for v in d.values()}


def main():
    exe, corpus, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    v6, v5 = os.path.join(work, "v6.h5"), os.path.join(work, "v5.h5")
    mol, b6, lab6 = clustered(exe, corpus, v6, False)
    mol5, b5, lab5 = clustered(exe, corpus, v5, True)
    check((mol == mol5).all(), "the molecules of the sites differ between the version-6 and version-5 copies")
    with h5py.File(v6, "r") as f:
        nh = f["ligands/n_heavy_atoms"][()][f["sites/ligand_idx"][()]]
        ap, nl = f["sites/atom_ptr"][()], f["sites/n_ligand"][()]
        fq, cq, el = f["atoms/formal_charge"][()], f["atoms/ccd_charge"][()], f["atoms/element"][()]
    rep = {}
    for s in range(len(mol)):
        if mol[s] not in rep or nh[s] > nh[rep[mol[s]]]:
            rep[mol[s]] = s
    M = b6.shape[0]
    heavy = {m: [a for a in range(ap[rep[m]], ap[rep[m]] + nl[rep[m]]) if el[a] != 1] for m in range(M)}
    # version 6 against version 5: changed exactly where a heavy atom's two charges differ
    differs = np.array([any(fq[a] != cq[a] for a in heavy[m]) for m in range(M)])
    changed = (b6 != b5).any(1)
    check((changed == differs).all(), f"fingerprints changed for molecules {np.flatnonzero(changed & ~differs)[:8]} "
          f"with equal charges, unchanged for {np.flatnonzero(differs & ~changed)[:8]} whose charges differ")
    # the exported SDF molecules (RDKit)
    sites = [rep[m] for m in range(M)]
    sdf = subprocess.run([exe, "export", v6, "--site", ",".join(map(str, sites)), "--format", "sdf", "--out", "-",
                          "--quiet"], check=True, capture_output=True).stdout
    site_mol = {s: m for m, s in enumerate(sites)}
    rfp, n_q = {}, 0
    for x in Chem.ForwardSDMolSupplier(io.BytesIO(sdf), removeHs=False, sanitize=False):
        if x is None:
            continue
        m = site_mol[int(x.GetProp("site_idx"))]
        ha = [at for at in x.GetAtoms() if at.GetAtomicNum() != 1]
        same = len(ha) == len(heavy[m]) and all(at.GetAtomicNum() == el[a] for at, a in zip(ha, heavy[m]))
        check(same, f"molecule {m}: the SDF's heavy atoms are not the site's ligand heavy atoms")
        if same:
            q = [at.GetFormalCharge() for at in ha]
            n_q += sum(1 for v in q if v)
            check(q == [int(fq[a]) for a in heavy[m]], f"molecule {m}: SDF charges {q} != formal_charge")
        try:
            y = Chem.Mol(x)
            Chem.SanitizeMol(y)
            rfp[m] = AllChem.GetMorganFingerprintAsBitVect(Chem.RemoveHs(y), 2, nBits=2048).ToBitString()
        except Exception:
            pass
    check(len(rfp) >= 0.95 * M, f"RDKit read {len(rfp)} of {M} SDF molecules")
    keep = sorted(rfp)
    n_pairs = bad = 0
    for i, m1 in enumerate(keep):
        for m2 in keep[i + 1:]:
            n_pairs += 1
            if (b6[m1] == b6[m2]).all() != (rfp[m1] == rfp[m2]):
                bad += 1
                if bad <= 5:
                    print(f"  molecules {m1}, {m2}: same C fingerprint {bool((b6[m1] == b6[m2]).all())}, "
                          f"same RDKit fingerprint of the SDF {rfp[m1] == rfp[m2]}")
    check(bad == 0, f"{bad} of {n_pairs} molecule pairs: C fingerprints equal where RDKit's differ, or the reverse")
    p6, p5 = partition(lab6), partition(lab5)
    print(f"{M} molecules ({len(rfp)} read by RDKit, {n_q} charged heavy atoms in their SDF); {int(changed.sum())} "
          f"fingerprints change with formal_charge; ligand clusters {len(p5)} -> {len(p6)}, {len(p6 - p5)} new and "
          f"{len(p5 - p6)} gone (as sets of sites); {n_pairs - bad} of {n_pairs} pairs: same C fingerprint exactly when "
          f"RDKit's is")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
