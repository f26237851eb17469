#!/usr/bin/env python3
"""Site-chemistry checks over a merged sitepack output (issue 13), independent of sitepack's own bond code:

  1. no H-bond and no water-bridge leg with a donor-acceptor (polar atom - water O) distance under 2.5 A
     (PLIP's WATER_BRIDGE_MINDIST; a real H-bond is >= 2.5 A: Jeffrey, "An introduction to hydrogen
     bonding", 1997, strong H-bonds 2.2-2.5 only for charged O-H...O, never N...O of Asn/NAG);
  2. no interaction (any type but metal) between two atoms that are bonded or 1-3 related; "bonded" is the
     file's /bonds rows of the site, or two non-metal heavy atoms of the site block closer than the sum of
     their covalent radii (gemmi's table, Cordero et al. 2008) + 0.4 A (the molecule key's rule, docs/ligands.md);
  3. every HEM/HEC/HEA/HEB site whose Fe and four N (NA, NB, NC, ND) are resolved has a metal row with
     coordination >= 4 and a named geometry;
  4. (--formats) every entry present in both formats (mmCIF and PDB files of one entry id) has the same ligand
     instances (comp id, author chain and number of the first residue, residue count) and classes from both
     readers, but for the differences listed in FORMAT_DIFFERENCES (where the PDB format cannot hold the
     information; none today).

usage: site_chem_corpus.py MERGED.h5 [--check]   (--check: exit 1 when a count is not zero)
Prints the counts (and the first few offenders) on standard output.
"""
import sys

import gemmi
import h5py
import numpy as np

HB, WB, METAL = 2, 8, 9
# (entry, ligand) differences between the mmCIF and the PDB file of one entry that come from what the PDB
# format cannot hold; none on shared/data/structures (27 entries in both formats).
FORMAT_DIFFERENCES = set()


def format_check(f):
    import collections
    import os
    paths = [os.path.basename(x.decode()) for x in f["structures/path"][:]]
    fmt = [x.decode() for x in f["structures/format"][:]]
    by = collections.defaultdict(dict)
    for i, p in enumerate(paths):
        by[p.split(".")[0].lower()][fmt[i]] = i
    lig = collections.defaultdict(set)
    for i in range(len(f["ligands/comp_id"])):
        lig[int(f["ligands/structure_idx"][i])].add((f["ligands/comp_id"][i].decode(), f["ligands/auth_asym_id"][i].decode(),
                                                     int(f["ligands/auth_seq_id"][i]), int(f["ligands/n_residues"][i]),
                                                     f["ligands/class"][i].decode()))
    both = sorted(e for e, d in by.items() if "mmcif" in d and "pdb" in d)
    bad = 0
    for e in both:
        a, b = lig[by[e]["mmcif"]], lig[by[e]["pdb"]]
        diff = {(e, x) for x in a ^ b} - FORMAT_DIFFERENCES
        if diff:
            bad += 1
            print(f"   entry {e}: mmCIF only {sorted(a - b)[:4]}, PDB only {sorted(b - a)[:4]}")
    print(f"entries in both formats {len(both)}, with other ligand instances or classes {bad}")
    return bad
HAEMS = {b"HEM", b"HEC", b"HEA", b"HEB"}


def cov_table():
    r = np.zeros(256, dtype=np.float32)
    metal = np.zeros(256, dtype=bool)
    for z in range(1, 119):
        e = gemmi.Element(z)
        r[z] = e.covalent_r
        metal[z] = e.is_metal
    return r, metal


def main(argv):
    path = argv[1]
    check = "--check" in argv
    cov, is_metal = cov_table()
    f = h5py.File(path, "r")
    aptr = f["sites/atom_ptr"][:]
    iptr = f["sites/interaction_ptr"][:]
    bptr = f["sites/bond_ptr"][:]
    nlig = f["sites/n_ligand"][:]
    pos = f["atoms/position"][:]
    el = f["atoms/element"][:]
    aname = f["atoms/atom_name"][:]
    itype = f["interactions/type"][:]
    ilig = f["interactions/lig_atom"][:]
    isite = f["interactions/site_atom"][:]
    iwat = f["interactions/water_atom"][:]
    idist = f["interactions/distance"][:]
    icoord = f["interactions/coordination"][:]
    igeom = f["interactions/geometry"][:]
    b1 = f["bonds/atom1"][:]
    b2 = f["bonds/atom2"][:]
    bflags = f["bonds/flags"][:]
    lig_site = f["ligands/site_idx"][:]
    lig_comp = f["ligands/comp_id"][:]
    comp_of_site = {int(s): lig_comp[i] for i, s in enumerate(lig_site) if s >= 0}
    n_hb = n_hb_short = n_wb = n_wb_short = n_bonded = n_13 = n_pairs = 0
    n_haem = n_haem_ok = 0
    by_type = {}
    bad = []
    for s in range(len(aptr) - 1):
        a0, a1 = int(aptr[s]), int(aptr[s + 1])
        i0, i1 = int(iptr[s]), int(iptr[s + 1])
        if a1 == a0:
            continue
        P = pos[a0:a1]
        E = el[a0:a1]
        heavy = E != 1
        t = itype[i0:i1]
        # 1: short H-bonds and water-bridge legs
        for k in range(i0, i1):
            if itype[k] == HB:
                n_hb += 1
                if idist[k] < 2.5:
                    n_hb_short += 1
                    bad.append(("short hbond", s, k, float(idist[k])))
            elif itype[k] == WB:
                n_wb += 1
                w = int(iwat[k])
                d1 = np.linalg.norm(P[int(ilig[k])] - P[w])
                d2 = np.linalg.norm(P[int(isite[k])] - P[w])
                if min(d1, d2) < 2.5:
                    n_wb_short += 1
                    bad.append(("short water-bridge leg", s, k, float(min(d1, d2))))
        # 2: bonded / 1-3 pairs. Endpoints: both atoms of every pair (water bridges: both legs)
        pairs = []
        for k in range(i0, i1):
            if itype[k] == METAL or itype[k] == 0:
                continue
            if itype[k] == WB:
                pairs.append((int(ilig[k]), int(iwat[k]), k))
                pairs.append((int(iwat[k]), int(isite[k]), k))
            else:
                pairs.append((int(ilig[k]), int(isite[k]), k))
        if pairs:
            ends = sorted({p for q in pairs for p in q[:2]})
            bonded = {}
            fb = set()
            for j in range(int(bptr[s]), int(bptr[s + 1])):
                if bflags[j] & 4:  # SP_BOND_TO_METAL: coordination, not a covalent link
                    continue
                x, y = int(b1[j]), int(b2[j])
                fb.add((x, y))
                fb.add((y, x))
            for e in ends:
                d = np.linalg.norm(P - P[e], axis=1)
                lim = cov[E] + cov[E[e]] + 0.4
                nb = (d <= lim) & (d > 0.4) & heavy & (not is_metal[E[e]]) & ~is_metal[E]
                nb[e] = False
                s_nb = set(np.nonzero(nb)[0].tolist())
                s_nb |= {y for (x, y) in fb if x == e}
                bonded[e] = s_nb
            for (x, y, k) in pairs:
                if E[x] == 1 or E[y] == 1:
                    continue
                n_pairs += 1
                if y in bonded[x]:
                    n_bonded += 1
                    by_type[int(itype[k])] = by_type.get(int(itype[k]), 0) + 1
                    bad.append(("bonded pair", s, k, (aname[a0 + x].decode(), aname[a0 + y].decode())))
                elif bonded[x] & bonded[y]:
                    n_13 += 1
                    by_type[int(itype[k])] = by_type.get(int(itype[k]), 0) + 1
                    bad.append(("1-3 pair", s, k, (aname[a0 + x].decode(), aname[a0 + y].decode())))
        # 3: haem iron
        if comp_of_site.get(s) in HAEMS:
            names = [aname[a0 + q] for q in range(int(nlig[s]))]
            if b"FE" in names and all(n in names for n in (b"NA", b"NB", b"NC", b"ND")):
                n_haem += 1
                ok = any(itype[k] == METAL and icoord[k] >= 4 and igeom[k] != 0 for k in range(i0, i1))
                n_haem_ok += ok
                if not ok:
                    rows = [(int(icoord[k]), int(igeom[k])) for k in range(i0, i1) if itype[k] == METAL]
                    bad.append(("haem without coordination >= 4", s, -1, rows[:3]))
    print(f"hbonds {n_hb}, under 2.5 A {n_hb_short}")
    print(f"water bridges {n_wb}, a leg under 2.5 A {n_wb_short}")
    print(f"atom pairs checked {n_pairs}, bonded {n_bonded}, 1-3 {n_13}")
    print("  bonded or 1-3 by interaction type:", dict(sorted(by_type.items())))
    print(f"haem sites with Fe + 4 N {n_haem}, with a metal row coordination >= 4 and a geometry {n_haem_ok}")
    kinds = {}
    for b in bad:
        kinds.setdefault(b[0], []).append(b)
    for kname, rows in kinds.items():
        for b in rows[:5]:
            print("  ", kname, "site", b[1], "row", b[2], b[3])
    fails = n_hb_short + n_wb_short + n_bonded + n_13 + (n_haem - n_haem_ok)
    if "--formats" in argv:
        fails += format_check(f)
    if check and fails:
        print(f"FAIL: {fails} offenders")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
