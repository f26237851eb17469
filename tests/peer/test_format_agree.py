#!/usr/bin/env python3
"""The same ligand instance read from an entry's mmCIF file and from its PDB file gets the same protonation.

The corpus holds 27 entries in both formats (213 ligand instances with a site in both). The mmCIF path can
take a ligand's bonds from the file's _chem_comp_bond (metal bonds included) where the PDB path perceives
them by distance (no bond to a metal), so a rule that reads the bond graph must not make the two differ.
Asserted, for every such pair (entry, comp_id, auth_asym_id, auth_seq_id): the ligand's charge at the run's
pH (sum of /atoms/charge_ph over its atoms) is the same. Before the metal rule of sitechem_protonation.c
(an N bonded to a metal takes no proton) 20 pairs differed: the six ammine N of iridium hexammine (IRI in
4GXY, 4P5J) were +1 each from the .cif, 0 from the .pdb. And for IRI of 4GXY: no salt bridge, as PLIP 2.2.2
finds on 4gxy.pdb (plipcmd -x: 0 salt bridges for each of its 7 IRI sites).

usage: test_format_agree.py MERGED.h5
"""
import collections
import sys

import numpy as np

import sitepack

SALT_BRIDGE = 3   # /interactions/type code (docs/format.md "Units and codes")


def main(path):
    ds = sitepack.open(path)
    lig, st, sites = ds.ligands, ds.structures, ds.table("sites")
    groups = collections.defaultdict(list)
    for i in range(len(ds)):
        s_row, li = st[sites["structure_idx"][i]], sites["ligand_idx"][i]
        p = s_row["path"]
        p = p.decode() if isinstance(p, bytes) else p
        fmt = "cif" if ".cif" in p else "pdb"
        groups[(s_row["entry_id"], lig["comp_id"][li], lig["auth_asym_id"][li], lig["auth_seq_id"][li])].append((fmt, i))
    pairs, bad, iri = 0, [], {}
    for key, members in groups.items():
        if {f for f, _ in members} != {"cif", "pdb"}:
            continue
        pairs += 1
        charge = collections.defaultdict(set)
        for fmt, i in members:
            s = ds[i]
            charge[fmt].add(int(np.asarray(s.atoms("charge_ph")[:s.n_ligand]).sum()))
            if key[0] == b"4GXY" and key[1] == b"IRI":
                iri[(fmt, key[3])] = int((s.interactions["type"] == SALT_BRIDGE).sum())
        if charge["cif"] != charge["pdb"]:
            bad.append((key, dict(charge)))
    print(f"{pairs} ligand instances with a site in both the .cif and the .pdb of their entry; "
          f"{len(bad)} with a different ligand charge at the run's pH")
    for b in bad[:20]:
        print("  differ:", b)
    fails = 0
    if pairs < 100:
        print(f"FAIL: only {pairs} pairs (the corpus has 213)")
        fails += 1
    if bad:
        print("FAIL: the same instance is charged differently from its two files")
        fails += 1
    if len(iri) != 14 or any(iri.values()):
        print(f"FAIL: 4GXY IRI salt bridges (PLIP 2.2.2: none; 7 sites x 2 files): {iri}")
        fails += 1
    else:
        print("4GXY IRI: no salt bridge in any of its 7 sites from either file (PLIP 2.2.2: none)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
