#!/usr/bin/python3
"""Segment-scaling inputs for bench-site: one long protein chain cut into segments of growing length.

The longest protein chain of shared/data/structures (6WLB chain B, 720 residues, 11 428 atoms with
hydrogens) is cut into its first L residues for growing L; each segment is written as a PDB file
together with one ligand of the entry (the non-water, non-polymer residue closest to the chain's first
residue), so that `site_bench --cutoff 1000` makes the whole segment the site of that ligand: the site
then grows with L while the ligand stays the same, and the cost per site atom can be compared across sizes.

usage: site_scaling.py STRUCTURE CHAIN OUT_DIR L1 L2 ...   (prints the files written, one per line)
"""
import os
import sys

import gemmi


def main():
    path, chain_name, out = sys.argv[1], sys.argv[2], sys.argv[3]
    lengths = [int(x) for x in sys.argv[4:]]
    st = gemmi.read_structure(path)
    st.setup_entities()
    st.remove_alternative_conformations()
    model = st[0]
    chain = model[chain_name]
    polymer = chain.get_polymer()
    first = polymer[0]
    anchor = first[0].pos
    best = None
    for ch in model:
        for res in ch.get_ligands():
            d = min(a.pos.dist(anchor) for a in res)
            if best is None or d < best[0]:
                best = (d, ch.name, res.seqid.num, res.name)
    if best is None:
        sys.exit("no ligand in %s" % path)
    os.makedirs(out, exist_ok=True)
    for n in lengths:
        seg = gemmi.Structure()
        seg.cell = st.cell
        seg.spacegroup_hm = st.spacegroup_hm
        m = gemmi.Model("1")
        c = gemmi.Chain(chain_name)
        for res in list(polymer)[:n]:
            c.add_residue(res)
        m.add_chain(c)
        lc = gemmi.Chain("Z")
        for res in model[best[1]]:
            if res.seqid.num == best[2] and res.name == best[3]:
                lc.add_residue(res)
                lc[len(lc) - 1].het_flag = "H"
        m.add_chain(lc)
        seg.add_model(m)
        seg.setup_entities()
        f = os.path.join(out, "seg_%04d.pdb" % n)
        seg.write_pdb(f)
        print(f)


if __name__ == "__main__":
    main()
