#!/usr/bin/python3
"""Which SMILES of a CCD block /components/smiles holds (issue 33 item 9): for every component of the merged
file that the CCD has, the value of the first _pdbx_chem_comp_descriptor row of type SMILES_CANONICAL and
program "OpenEye OEToolkits" (docs/format.md /components/smiles; component.h SP_SMILES_PROGRAM), read here
with gemmi from the same CCD file; "" when the block has no such row. Also: the test can tell the rows apart
(enough components have a CACTVS or non-canonical SMILES that differs from the stored one), so a reader that
took another row of the block would fail it.

Usage: test_ccd_smiles.py MERGED.h5 CCD.cif
"""
import sys

import gemmi
import h5py


def ccd_descriptors(path):
    """{comp_id: [(type, program, descriptor), ...]} of every block of the CCD file, in file order."""
    doc = gemmi.cif.read(path)
    out = {}
    for b in doc:
        t = b.find("_pdbx_chem_comp_descriptor.", ["type", "program", "descriptor"])
        out[b.name] = [(gemmi.cif.as_string(r[0]), gemmi.cif.as_string(r[1]), gemmi.cif.as_string(r[2])) for r in t]
    return out


def expected_smiles(rows):
    for ty, prog, desc in rows:
        if ty.upper() == "SMILES_CANONICAL" and prog.upper() == "OPENEYE OETOOLKITS":
            return desc
    return ""


def main():
    merged, ccd_path = sys.argv[1:3]
    desc = ccd_descriptors(ccd_path)
    with h5py.File(merged, "r") as f:
        comp = f["components/comp_id"][:].astype(str)
        cut = (f["components/descriptor_flags"][:] & 1) != 0  # smiles_cut: the stored text is a prefix
        smiles = f["components/smiles"][:].astype(str)
        in_ccd = f["components/in_ccd"][:] if "in_ccd" in f["components"] else None
    bad, checked, telling = [], 0, 0
    for i, (c, s) in enumerate(zip(comp, smiles)):
        if c not in desc:
            if s:
                bad.append(f"{c}: not in the CCD file but smiles {s!r}")
            continue
        if in_ccd is not None and not in_ccd[i]:
            continue
        want = expected_smiles(desc[c])
        checked += 1
        if s != want and not (cut[i] and s and want.startswith(s)):
            bad.append(f"{c}: stored {s!r}, CCD OpenEye SMILES_CANONICAL {want!r}")
        if any(d != want for ty, _, d in desc[c] if ty.upper().startswith("SMILES")):
            telling += 1
    print(f"{checked} components of the CCD checked, {telling} with another SMILES row that differs; {len(bad)} wrong")
    for b in bad[:20]:
        print("  " + b)
    if checked < 20 or telling < 10:
        print("FAIL: too few components to tell the SMILES rows apart")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
