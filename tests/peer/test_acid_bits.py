#!/usr/bin/python3
"""Donor/acceptor bits of acids at the job's pH (issue 33 item 9; docs/sites.md "Site chemistry"): on every
charged O of a titratable acid group (/atoms/chem bit 4 titratable with a finite /atoms/pka, the group's
protonated form neutral), the fraction protonated is Henderson-Hasselbalch's 1 / (1 + 10^(pH - pKa)) at its
site's /sites/ph, and the most probable form decides the bits: deprotonated (fraction < 0.5) -> acceptor and
not donor, charge_ph < 0 and bit 7 negative; protonated -> donor. Run on the corpus at pH 7.4, where ligand
carboxylic acids, phosphates' titratable O and Asp/Glu are deprotonated; the CCD defines the neutral acid, so a
rule that forgot to drop the H's donor bit fails here.

Usage: test_acid_bits.py MERGED.h5
"""
import sys

import h5py
import numpy as np

TITR, DONOR, ACCEPTOR, NEGATIVE, POSITIVE = 1 << 4, 1 << 1, 1 << 2, 1 << 7, 1 << 6


def main():
    with h5py.File(sys.argv[1], "r") as f:
        a, r, s = f["atoms"], f["residues"], f["sites"]
        chem = a["chem"][:].astype(np.int64)
        el = a["element"][:]
        pka = a["pka"][:]
        frac = a["frac_protonated"][:]
        qph = a["charge_ph"][:]
        site = r["site_idx"][:][a["residue_idx"][:]]
        ph = s["ph"][:][site]
    acid_o = (el == 8) & ((chem & TITR) != 0) & np.isfinite(pka) & ((chem & POSITIVE) == 0)
    # acids only: a base's charged O does not exist; an acid O deprotonated has charge < 0 or frac < 0.5
    n = int(acid_o.sum())
    want_frac = 1.0 / (1.0 + 10.0 ** (ph[acid_o] - pka[acid_o]))
    bad = []
    if not np.allclose(frac[acid_o], want_frac, rtol=1e-4, atol=1e-5):
        k = int(np.argmax(np.abs(frac[acid_o] - want_frac)))
        bad.append(f"frac_protonated {frac[acid_o][k]} != 1/(1+10^(pH-pKa)) = {want_frac[k]}")
    dep = acid_o & (frac < 0.5)
    prot = acid_o & (frac >= 0.5)
    for name, mask, cond in [
        ("deprotonated acid O with the donor bit", dep, (chem & DONOR) != 0),
        ("deprotonated acid O without the acceptor bit", dep, (chem & ACCEPTOR) == 0),
        ("deprotonated acid O not negative", dep, (chem & NEGATIVE) == 0),
        ("protonated acid O without the donor bit", prot, (chem & DONOR) == 0),
    ]:
        m = mask & cond
        if m.any():
            bad.append(f"{int(m.sum())} {name} (first atom row {int(np.flatnonzero(m)[0])})")
    print(f"{n} charged O of acid groups: {int(dep.sum())} deprotonated, {int(prot.sum())} protonated at their pH")
    for b in bad:
        print("  " + b)
    if dep.sum() < 100:
        print("FAIL: too few deprotonated acid O to test")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
