#!/usr/bin/python3
"""A ligand ring its definition does not flag aromatic but that is planar by PLIP's test is a ring for the ring
interactions, as PLIP's find_rings keeps it (issue 37; docs/sites.md "aromatic rings").

Case tests/data/planar_ring/haem_arg.pdb (make_planar_ring.py, cut from PDB 1U5U): the CCD flags only pyrroles A
and C of HEM aromatic; Arg349's guanidinium lies 3.37 Å above a Kekule-flagged pyrrole. Asserted: sitepack's
pi-cation rows of HEM A 999 are [ARG 349] and its pi-stacking rows [HIS 67], and both equal Debian PLIP 2.2.2's
(pication_laro + pication_paro, pistacking) run here on the file (skipped when plip is missing; the fixed
expectations are not).
usage: test_planar_ring.py SITEPACK CASES_DIR CCD OUT_DIR
"""
import os
import shutil
import subprocess
import sys

import h5py

PICATION, STACK = (6,), (4, 5)
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok


def sitepack_rows(h5, types):
    f = h5py.File(h5, "r")
    lg, ix, at, rs = f["ligands"], f["interactions"], f["atoms"], f["residues"]
    ip, ap = f["sites/interaction_ptr"][:], f["sites/atom_ptr"][:]
    li = [i for i in range(len(lg["comp_id"])) if lg["comp_id"][i].decode() == "HEM"][0]
    si = int(lg["site_idx"][li])
    out = []
    for q in range(ip[si], ip[si + 1]):
        if int(ix["type"][q]) in types:
            r = int(at["residue_idx"][ap[si] + int(ix["site_atom"][q])])
            out.append((rs["comp_id"][r].decode(), int(rs["auth_seq_id"][r])))
    return sorted(out)


def plip_rows(path):
    try:
        from plip.structure.preparation import PDBComplex
    except ImportError:
        return None
    m = PDBComplex()
    m.load_pdb(path)
    lig = [x for x in m.ligands if x.hetid == "HEM"][0]
    m.characterize_complex(lig)
    s = m.interaction_sets[":".join([lig.hetid, lig.chain, str(lig.position)])]
    return (sorted((p.restype, p.resnr) for p in s.pication_laro + s.pication_paro),
            sorted((p.restype, p.resnr) for p in s.pistacking))


def main(argv):
    cli, cases, ccd, out = argv[1:5]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "in"))
    src = os.path.abspath(os.path.join(cases, "haem_arg.pdb"))
    os.symlink(src, os.path.join(out, "in", "haem_arg.pdb"))
    h5 = os.path.join(out, "planar_ring.h5")
    subprocess.run([cli, "run", "--input", os.path.join(out, "in"), "--ccd", ccd, "--out", h5, "--force", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    pc, st = sitepack_rows(h5, PICATION), sitepack_rows(h5, STACK)
    check(pc == [("ARG", 349)], f"pi-cation of HEM: {pc}")
    check(st == [("HIS", 67)], f"pi-stacking of HEM: {st}")
    pl = plip_rows(src)
    if pl is None:
        print("skip PLIP (no plip module)")
    else:
        check(pl == (pc, st), f"PLIP 2.2.2's pi-cation {pl[0]} and pi-stacking {pl[1]} are ours")
    print("FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
