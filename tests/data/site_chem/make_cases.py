#!/usr/bin/env python3
"""Writes the small PDB cases of tests/peer/test_site_chem_cases.py (issue 13) from entries of
shared/data/structures: the ligand, every residue with an atom within 8 A of it and the waters among them,
model 1, with the LINK records between the kept residues (gemmi 0.5 write_pdb writes them from st.connections).
Run once; the files are committed (their HEADER line says where they come from).

usage: make_cases.py STRUCTURES_DIR
"""
import sys

import gemmi

CASES = [
    # file, entry, ligand (chain, comp, seq), keep LINK records
    ("glycan_asn.pdb", "1gzm.pdb", ("A", "NAG", 1335), True),
    ("glycan_asn_nolink.pdb", "1gzm.pdb", ("A", "NAG", 1335), False),
    ("cys_adduct.pdb", "1gzm.pdb", ("A", "PLM", 1333), True),
    ("haem.pdb", "4hhb.pdb.gz", ("A", "HEM", 142), True),
]


def cut(src, lig, keep_links):
    st = gemmi.read_structure(src)
    st.setup_entities()
    model = st[0]
    chain, comp, seq = lig
    lig_atoms = [a.pos for ch in model if ch.name == chain for r in ch
                 if r.name == comp and r.seqid.num == seq for a in r]
    assert lig_atoms, (src, lig)
    keep = set()
    for ch in model:
        for r in ch:
            if any(a.pos.dist(p) <= 8.0 for a in r for p in lig_atoms):
                keep.add((ch.name, r.seqid.num, r.seqid.icode))
    out = gemmi.Structure()
    out.cell = st.cell
    out.spacegroup_hm = st.spacegroup_hm
    m = gemmi.Model("1")
    for ch in model:
        nc = gemmi.Chain(ch.name)
        for r in ch:
            if (ch.name, r.seqid.num, r.seqid.icode) in keep:
                nc.add_residue(r)
        if len(nc):
            m.add_chain(nc)
    out.add_model(m)
    if keep_links:
        for c in st.connections:
            ends = [(p.chain_name, p.res_id.seqid.num, p.res_id.seqid.icode) for p in (c.partner1, c.partner2)]
            if all(e in keep for e in ends):
                out.connections.append(c)
    out.setup_entities()
    return out


def main():
    root = sys.argv[1]
    for name, entry, lig, links in CASES:
        st = cut(f"{root}/{entry}", lig, links)
        st.write_pdb(name, seqres_records=False, link_records=links, cispep_records=False)
        text = open(name).read()
        head = f"REMARK   1 CUT FROM {entry.upper()}: {lig[1]} {lig[0]} {lig[2]} AND RESIDUES WITHIN 8 A ({'LINK KEPT' if links else 'NO LINK'})\n"
        open(name, "w").write(head + text)


if __name__ == "__main__":
    main()
