#!/usr/bin/env python3
"""Issue 13's synthetic site-chemistry cases (tests/data/site_chem, cut from real entries by make_cases.py),
run through `sitepack run` and read back with h5py. Expected values are the chemistry of the cut, worked
out from the files' LINK records and coordinates (distances printed by the test):

  glycan_asn.pdb        NAG A 1335 on ASN A 15 (LINK ND2-C1): /bonds holds the link (struct_conn); no
                        interaction between NAG and ASN 15's ND2 / CG (bonded, 1-3) -- before issue 13 NAG O5
                        ... ASN ND2 (2.38 A, 1-3 through C1) was an H-bond
  glycan_asn_nolink.pdb the same without the LINK record: the link is perceived by distance (source
                        "distance", C1-ND2 1.46 A) and the result is the same
  cys_adduct.pdb        PLM A 1333 thioester on CYS A 322 (LINK SG-C1): SG is not titratable and not a donor,
                        no interaction between PLM and SG / CB
  haem.pdb              HEM A 142 of 4HHB with HIS A 87 (LINK NE2-FE): the Fe row counts the four porphyrin N
                        and the His NE2 (coordination 5, PLIP's square.pyramidal); one row per site partner
  amines.pdb            synthetic ethylamine ZZE and 2,2,2-trifluoroethylamine ZZF (no CCD blocks): the amine N
                        pKa 10.0 (PROPKA3 N30-N33) and 10.0 - 3 x 1.7 = 4.9 (three F on the beta carbon,
                        Perrin 1965: 5.7 measured); at pH 7.4 ZZE N is +1, ZZF N neutral, a donor and acceptor
  conect_halves.pdb     synthetic QQA B 1 - QQB B 2, 2.1 A apart (no distance bond), joined only by CONECT: one
                        instance of two residues, the inter-residue bond in /bonds with source conect
  repeated_names.pdb    synthetic (make_repeated_names.py, CCD ideal GOL): GOL B 1 whose 8 H are all "H", GOL B 2
  repeated_names.cif    whose C3 is named "C1": two instances of 14 atoms, 2 warnings on the file's row, the
                        repeated-name atoms flagged (/atoms/flags 2048, no ccd_atom match) and no CCD bond on them:
                        every ligand bond under 1.7 A (before, GOL 1 was 8 instances and GOL 2's "C1"-H11 2.77 A)

usage: test_site_chem_cases.py SITEPACK CASES_DIR CCD OUT_DIR
"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import site_chem_corpus  # noqa: E402

fails = 0


def check(ok, msg):
    global fails
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok:
        fails += 1


def run(sitepack, cases, ccd, out, name):
    d = os.path.join(out, name[:-4] if name.endswith(".pdb") else name.replace(".", "_"))
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, name)
    shutil.copyfile(os.path.join(cases, name), src)
    h5 = d + ".h5"
    subprocess.run([sitepack, "run", "--input", d, "--ccd", ccd, "--out", h5, "--force", "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    return h5


class Site:
    def __init__(self, f, comp, seq):
        lc, ls = f["ligands/comp_id"][:], f["ligands/site_idx"][:]
        lr = f["ligands/residues"][:]
        sel = [i for i in range(len(lc)) if lc[i].decode() == comp and f["ligands/auth_seq_id"][i] == seq]
        assert sel, (comp, seq, lr)
        self.s = s = int(ls[sel[0]])
        a0, a1 = f["sites/atom_ptr"][s], f["sites/atom_ptr"][s + 1]
        self.a0, self.nl = a0, int(f["sites/n_ligand"][s])
        self.name = [x.decode() for x in f["atoms/atom_name"][a0:a1]]
        ri = f["atoms/residue_idx"][a0:a1]
        self.rcomp = [f["residues/comp_id"][r].decode() for r in ri]
        self.rnum = [int(f["residues/auth_seq_id"][r]) for r in ri]
        self.chem = f["atoms/chem"][a0:a1]
        self.pos = f["atoms/position"][a0:a1]
        i0, i1 = f["sites/interaction_ptr"][s], f["sites/interaction_ptr"][s + 1]
        self.ix = [dict(type=int(f["interactions/type"][k]), lig=int(f["interactions/lig_atom"][k]),
                        site=int(f["interactions/site_atom"][k]), water=int(f["interactions/water_atom"][k]),
                        coord=int(f["interactions/coordination"][k]), geom=int(f["interactions/geometry"][k]),
                        dist=float(f["interactions/distance"][k])) for k in range(i0, i1)]
        b0, b1 = f["sites/bond_ptr"][s], f["sites/bond_ptr"][s + 1]
        self.bonds = [(int(f["bonds/atom1"][k]), int(f["bonds/atom2"][k]), f["bonds/source"][k].decode())
                      for k in range(b0, b1)]

    def atom(self, comp, num, name):
        for k in range(len(self.name)):
            if self.rcomp[k] == comp and self.rnum[k] == num and self.name[k] == name:
                return k
        return -1


def glycan(h5, src):
    f = h5py.File(h5, "r")
    S = Site(f, "NAG", 1335)
    nd2, cg, c1 = S.atom("ASN", 15, "ND2"), S.atom("ASN", 15, "CG"), S.atom("NAG", 1335, "C1")
    check(nd2 >= 0 and c1 >= 0, f"{h5}: NAG 1335 C1 and ASN 15 ND2 in the site")
    link = [b for b in S.bonds if {b[0], b[1]} == {c1, nd2}]
    dcn = float(np.linalg.norm(S.pos[c1] - S.pos[nd2]))
    check(len(link) == 1 and link[0][2] == src, f"{h5}: /bonds C1-ND2 ({dcn:.2f} A) source {link[0][2] if link else None}, expected {src}")
    bad = [x for x in S.ix if x["type"] != 9 and (x["site"] in (nd2, cg))]
    check(not bad, f"{h5}: no interaction with ASN 15 ND2 / CG: {len(bad)} rows")


def adduct(h5):
    f = h5py.File(h5, "r")
    S = Site(f, "PLM", 1333)
    sg, cb = S.atom("CYS", 322, "SG"), S.atom("CYS", 322, "CB")
    check(sg >= 0, f"{h5}: CYS 322 SG in the site")
    check(not (S.chem[sg] & (16 | 2)), f"{h5}: SG chem {int(S.chem[sg])}: not titratable (16), not a donor (2)")
    bad = [x for x in S.ix if x["site"] in (sg, cb)]
    check(not bad, f"{h5}: no interaction with CYS 322 SG / CB: {len(bad)} rows")


def haem(h5):
    f = h5py.File(h5, "r")
    S = Site(f, "HEM", 142)
    fe, ne2 = S.atom("HEM", 142, "FE"), S.atom("HIS", 87, "NE2")
    own = [S.atom("HEM", 142, n) for n in ("NA", "NB", "NC", "ND")]
    dn = [float(np.linalg.norm(S.pos[fe] - S.pos[k])) for k in own + [ne2]]
    rows = [x for x in S.ix if x["type"] == 9]
    check(len(rows) >= 1 and all(x["lig"] == fe for x in rows), f"{h5}: metal rows {len(rows)}, all from FE")
    check(any(x["site"] == ne2 for x in rows), f"{h5}: FE-HIS 87 NE2 row ({dn[4]:.2f} A)")
    check(all(x["site"] >= S.nl for x in rows), f"{h5}: rows for ligand-site pairs only")
    coord = {x["coord"] for x in rows}
    geom = {x["geom"] for x in rows}
    n_in = sum(d <= 3.0 for d in dn)
    check(coord == {n_in} and n_in >= 5, f"{h5}: coordination {coord}, expected {n_in} (4 porphyrin N at "
          f"{', '.join(f'{d:.2f}' for d in dn[:4])} A + NE2, and any water within 3 A)")
    check(geom == {7}, f"{h5}: geometry {geom}, expected 7 (square.pyramidal, PLIP)")


def amines(h5):
    f = h5py.File(h5, "r")
    for comp, seq, pka, charge in (("ZZE", 201, 10.0, 1), ("ZZF", 202, 4.9, 0)):
        S = Site(f, comp, seq)
        n = S.atom(comp, seq, "N")
        k = S.a0 + n
        got_pka, got_q, chem = float(f["atoms/pka"][k]), int(f["atoms/charge_ph"][k]), int(f["atoms/chem"][k])
        check(abs(got_pka - pka) < 0.01 and got_q == charge, f"{h5}: {comp} N pKa {got_pka:.2f} (expected {pka}), "
              f"charge at pH 7.4 {got_q} (expected {charge})")
        if charge == 0:
            check((chem & 6) == 6, f"{h5}: {comp} neutral N chem {chem}: donor (2) and acceptor (4)")


def conect_halves(h5):
    f = h5py.File(h5, "r")
    lig = [(f["ligands/comp_id"][i].decode(), int(f["ligands/n_residues"][i])) for i in range(len(f["ligands/comp_id"]))]
    check(lig == [("QQA", 2)], f"{h5}: ligands {lig}, expected one instance QQA of 2 residues")
    if lig and lig[0][1] == 2:
        S = Site(f, "QQA", 1)
        o3, c1 = S.atom("QQA", 1, "O3"), S.atom("QQB", 2, "C1")
        link = [b for b in S.bonds if {b[0], b[1]} == {o3, c1}]
        check(len(link) == 1 and link[0][2] == "conect", f"{h5}: /bonds O3-C1 between the halves: {link}")


def repeated_names(h5):
    f = h5py.File(h5, "r")
    L = f["ligands"]
    lig = [(L["comp_id"][i].decode(), int(L["auth_seq_id"][i]), int(L["n_residues"][i]), int(L["n_atoms"][i]))
           for i in range(len(L["comp_id"]))]
    check(lig == [("GOL", 1, 1, 14), ("GOL", 2, 1, 14)], f"{h5}: ligands {lig}, expected GOL 1 and GOL 2, 14 atoms each")
    nw = [int(x) for x in f["structures/n_warnings"][:]]
    check(nw == [2], f"{h5}: /structures/n_warnings {nw}, expected [2] (one repeated_atom_name per GOL)")
    for seq, rep in ((1, "H"), (2, "C1")):
        if not any(x[1] == seq for x in lig):
            continue
        S = Site(f, "GOL", seq)
        flags = f["atoms/flags"][S.a0:S.a0 + S.nl]
        ccd_atom = f["atoms/ccd_atom"][S.a0:S.a0 + S.nl]
        want = [S.name[k] == rep for k in range(S.nl)]
        got = [bool(flags[k] & 2048) for k in range(S.nl)]
        check(got == want and sum(got) == (8 if rep == "H" else 2),
              f"{h5}: GOL {seq}: flag 2048 on {sum(got)} atoms, expected exactly those named {rep!r}")
        check(all(ccd_atom[k] == 0 for k in range(S.nl) if want[k]), f"{h5}: GOL {seq}: no CCD match for {rep!r}")
        lb = [(b, float(np.linalg.norm(S.pos[b[0]] - S.pos[b[1]]))) for b in S.bonds if b[0] < S.nl and b[1] < S.nl]
        on_rep = [b for b, _ in lb if b[2] in ("ccd", "file") and (want[b[0]] or want[b[1]])]
        long_ = [(S.name[b[0]], S.name[b[1]], round(d, 2)) for b, d in lb if d > 1.7]
        check(not on_rep and not long_, f"{h5}: GOL {seq}: {len(lb)} ligand bonds, none by name on {rep!r} "
              f"({len(on_rep)}), none to a wrong atom (over 1.7 A: {long_})")
    n_bonds = {seq: len([b for b in Site(f, "GOL", seq).bonds]) for seq in (1, 2) if any(x[1] == seq for x in lig)}
    return n_bonds


def main():
    sitepack, cases, ccd, out = sys.argv[1:5]
    os.makedirs(out, exist_ok=True)
    glycan(run(sitepack, cases, ccd, out, "glycan_asn.pdb"), "struct_conn")
    glycan(run(sitepack, cases, ccd, out, "glycan_asn_nolink.pdb"), "distance")
    adduct(run(sitepack, cases, ccd, out, "cys_adduct.pdb"))
    haem(run(sitepack, cases, ccd, out, "haem.pdb"))
    amines(run(sitepack, cases, ccd, out, "amines.pdb"))
    conect_halves(run(sitepack, cases, ccd, out, "conect_halves.pdb"))
    nb = [repeated_names(run(sitepack, cases, ccd, out, "repeated_names." + x)) for x in ("pdb", "cif")]
    check(nb[0] == nb[1], f"repeated_names: the same /bonds from PDB and mmCIF: {nb}")
    for name in ("glycan_asn", "glycan_asn_nolink", "cys_adduct", "haem"):
        rc = site_chem_corpus.main(["", os.path.join(out, name + ".h5"), "--check"])
        check(rc == 0, f"{name}: the corpus checks (no short H-bond, no bonded or 1-3 pair, haem rows)")
    print(f"test_site_chem_cases: {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
