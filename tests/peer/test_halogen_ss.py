#!/usr/bin/python3
"""A disulfide-bonded Cys SG is no halogen-bond acceptor, as for PLIP (issue 37; docs/sites.md "halogen-bond
acceptor").

Cases tests/data/halogen_ss (make_halogen_ss.py, cut from PDB 2FZZ): 5QC I 1's F2 3.98 Å from Cys191 SG inside
PLIP's halogen windows. PLIP's find_hal (plip/structure/preparation.py) wants an O / N / S with exactly one
C / N / P / S neighbour; Open Babel bonds SG to Cys220 SG from the CONECT records (2.67 Å, beyond its distance
rule), so SG has two.
  with_ss.pdb     the disulfide (SSBOND, CONECT): no halogen bond
  without_ss.pdb  Cys220 and the disulfide records removed: one, F2...Cys191 SG
Asserted: sitepack's halogen rows of 5QC per file are 0 and 1, and equal to Debian PLIP 2.2.2's halogen_bonds
run here on the same files (skipped when plip is missing; the 0 / 1 checks are not).
usage: test_halogen_ss.py SITEPACK CASES_DIR CCD OUT_DIR
"""
import os
import shutil
import subprocess
import sys

import h5py

HALOGEN = 7
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok


def sitepack_halogens(h5):
    f = h5py.File(h5, "r")
    lg, ix, at, rs = f["ligands"], f["interactions"], f["atoms"], f["residues"]
    ip, ap = f["sites/interaction_ptr"][:], f["sites/atom_ptr"][:]
    paths = [os.path.basename(p.decode()) for p in f["structures/path"][:]]
    out = {}
    for li in range(len(lg["comp_id"])):
        si = int(lg["site_idx"][li])
        if si < 0 or lg["comp_id"][li].decode() != "5QC":
            continue
        rows = []
        for q in range(ip[si], ip[si + 1]):
            if int(ix["type"][q]) == HALOGEN:
                r = int(at["residue_idx"][ap[si] + int(ix["site_atom"][q])])
                rows.append((rs["comp_id"][r].decode(), int(rs["auth_seq_id"][r])))
        out[paths[lg["structure_idx"][li]]] = rows
    return out


def plip_halogens(path):
    try:
        from plip.structure.preparation import PDBComplex
    except ImportError:
        return None
    m = PDBComplex()
    m.load_pdb(path)
    lig = [x for x in m.ligands if x.hetid == "5QC"][0]
    m.characterize_complex(lig)
    s = m.interaction_sets[":".join([lig.hetid, lig.chain, str(lig.position)])]
    return [(h.restype, h.resnr) for h in s.halogen_bonds]


def main(argv):
    cli, cases, ccd, out = argv[1:5]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "in"))
    names = ("with_ss.pdb", "without_ss.pdb")
    for n in names:
        os.symlink(os.path.abspath(os.path.join(cases, n)), os.path.join(out, "in", n))
    h5 = os.path.join(out, "halogen_ss.h5")
    subprocess.run([cli, "run", "--input", os.path.join(out, "in"), "--ccd", ccd, "--out", h5, "--force", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    sp = sitepack_halogens(h5)
    check(sp.get("with_ss.pdb") == [], f"with_ss: no halogen bond (SG bonded to CB and SG 220): {sp.get('with_ss.pdb')}")
    check(sp.get("without_ss.pdb") == [("CYS", 191)], f"without_ss: F2...Cys191 SG: {sp.get('without_ss.pdb')}")
    for n in names:
        pl = plip_halogens(os.path.join(cases, n))
        if pl is None:
            print("skip PLIP (no plip module)")
            break
        check(sorted(pl) == sorted(sp.get(n) or []), f"{n}: PLIP 2.2.2's halogen_bonds {pl} are ours")
    print("FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
