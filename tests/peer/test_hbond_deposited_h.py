#!/usr/bin/python3
"""H-bonds use the hydrogens deposited in the file (issue 37 item 1; docs/sites.md "Hydrogens").

Cases tests/data/hbond_h (make_hbond_h.py): an ethanol hydroxyl O between ASP A 10 OD1 (2.90 Å, along the
deposited O-HO: D-H...A 180°) and ASP A 20 OD1 (2.70 Å, D-H...A 63°). Both pass the heavy-atom rule
(neighbour-D...A >= 60°); PLIP keeps one H-bond per donor (refine_hbonds_ldon), by the larger D-H...A.
Asserted, reading the run's /interactions with h5py:
  with_h.pdb     the ethanol donates one H-bond, to ASP 10 OD1, angle2 (D-H...A with the deposited H) 180°
                 within 0.5°, no `no_h` flag; the same acceptor as Debian PLIP 2.2.2's hbonds_ldon on the file
                 (matched by coordinates; skipped when plip is missing);
  without_h.pdb  the same file without HO: the H is placed where Open Babel's AddPolarHydrogens puts it for
                 PLIP (sp3 O, 109.47° from C1, anti to C2; src/site/sitechem_hplace.c), so the H-bond goes to
                 ASP 10 OD1 as PLIP's does (the heavy-atom rule of before chose the shorter D...A, ASP 20 OD1),
                 no `no_h` flag, and angle2 equals PLIP's D-H...A angle for that H-bond within 1° (Debian PLIP
                 2.2.2 run on the file here; skipped when plip is missing).
usage: test_hbond_deposited_h.py SITEPACK CASES_DIR CCD OUT_DIR
"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

HBOND, NO_H, LIG_DONOR = 2, 1 << 7, 1 << 0
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok


def ligand_donor_hbonds(f, name):
    """[(residue 'ASP 10', atom name, angle2, flags, acceptor xyz)] of the ligand-donor H-bonds of file name."""
    paths = [os.path.basename(p.decode()) for p in f["structures/path"][:]]
    s = paths.index(name)
    si = int(f["ligands/site_idx"][list(f["ligands/structure_idx"][:]).index(s)])
    ip, ap = f["sites/interaction_ptr"][:], f["sites/atom_ptr"][:]
    ix, at, rs = f["interactions"], f["atoms"], f["residues"]
    out = []
    for k in range(ip[si], ip[si + 1]):
        if ix["type"][k] != HBOND or not ix["flags"][k] & LIG_DONOR:
            continue
        a = ap[si] + int(ix["site_atom"][k])
        r = int(at["residue_idx"][a])
        out.append((f"{rs['comp_id'][r].decode()} {int(rs['auth_seq_id'][r])}", at["atom_name"][a].decode(),
                    float(ix["angle2"][k]), int(ix["flags"][k]), at["position"][a]))
    return out


def plip_ldon(path):
    try:
        from plip.structure.preparation import PDBComplex
    except ImportError:
        return None
    m = PDBComplex()
    m.load_pdb(path)
    lig = [x for x in m.ligands if x.hetid == "EOH"][0]
    m.characterize_complex(lig)
    s = m.interaction_sets[":".join([lig.hetid, lig.chain, str(lig.position)])]
    return [(h.resnr, np.array(h.a.coords), h.angle) for h in s.hbonds_ldon]


def main(argv):
    cli, cases, ccd, out = argv[1:5]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "in"))
    for n in ("with_h.pdb", "without_h.pdb"):
        os.symlink(os.path.abspath(os.path.join(cases, n)), os.path.join(out, "in", n))
    h5 = os.path.join(out, "hbond_h.h5")
    subprocess.run([cli, "run", "--input", os.path.join(out, "in"), "--ccd", ccd, "--out", h5, "--force", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    f = h5py.File(h5, "r")
    w = ligand_donor_hbonds(f, "with_h.pdb")
    check(len(w) == 1 and w[0][:2] == ("ASP 10", "OD1") and abs(w[0][2] - 180.0) < 0.5 and not w[0][3] & NO_H,
          f"with_h: one ligand-donor H-bond, to ASP 10 OD1, D-H...A 180 with the deposited H: {[x[:4] for x in w]}")
    pl = plip_ldon(os.path.join(cases, "with_h.pdb"))
    if pl is None:
        print("skip PLIP (no plip module)")
    elif w:
        check(len(pl) == 1 and np.linalg.norm(pl[0][1] - w[0][4]) < 0.01,
              f"with_h: PLIP 2.2.2's hbonds_ldon acceptor {[(r, np.round(x, 2).tolist()) for r, x, _ in pl]} is ours")
    wo = ligand_donor_hbonds(f, "without_h.pdb")
    check(len(wo) == 1 and wo[0][:2] == ("ASP 10", "OD1") and not wo[0][3] & NO_H and 100 < wo[0][2] <= 180,
          f"without_h: H placed as Open Babel does, one H-bond, to ASP 10 OD1, D-H...A > 100, no no_h: "
          f"{[x[:4] for x in wo]}")
    pl = plip_ldon(os.path.join(cases, "without_h.pdb"))
    if pl is None:
        print("skip PLIP (no plip module)")
    elif wo:
        check(len(pl) == 1 and np.linalg.norm(pl[0][1] - wo[0][4]) < 0.01 and abs(pl[0][2] - wo[0][2]) < 1.0,
              f"without_h: PLIP 2.2.2's hbonds_ldon (acceptor, D-H...A) "
              f"{[(r, np.round(x, 2).tolist(), round(a, 2)) for r, x, a in pl]} is ours (angle2 {wo[0][2]:.2f})")
    print("FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
