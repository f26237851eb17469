#!/usr/bin/python3
"""A histidine's charge centre is PLIP's: the centroid of its side-chain N, ND1 and NE2 (issue 37).

PLIP 2.2.2 (plip/structure/preparation.py, BindingSite find_charged) charges every ARG, HIS and LYS and puts
the charge at the centroid of the residue's side-chain N atoms; salt bridges (detection.py saltbridge) and
pi-cation (detection.py pication) measure from that centre. sitepack's HIS group (ND1, NE2, CE1, CG) has its
centre there too (src/site/sitechem_protonation.c his_centre; before, the centroid of the four atoms, 0.1 to
0.2 Å away). Asserted on corpus files (1K6P, 1R6A): Debian PLIP 2.2.2 run here on each file; every salt
bridge and pi-cation PLIP reports between a ligand and a HIS has a sitepack row of that type between the same
ligand and HIS whose distance equals PLIP's within 0.005 Å, at least 3 such rows.
usage: test_his_charge_centre.py SITEPACK STRUCTURES_DIR CCD OUT_DIR FILE...
Exit 77 when plip or h5py is missing.
"""
import os
import shutil
import subprocess
import sys

try:
    import h5py
    from plip.structure.preparation import PDBComplex
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: {e}")
    sys.exit(77)

SALT, PICATION = 3, 6


def plip_his_rows(path):
    """{(ligand key, type, HIS number, chain): distance} of PLIP's ligand-HIS salt bridges and pi-cation."""
    m = PDBComplex()
    m.load_pdb(path)
    out = {}
    for lig in m.ligands:
        key = ":".join([lig.hetid, lig.chain, str(lig.position)])
        m.characterize_complex(lig)
        s = m.interaction_sets[key]
        for b in s.saltbridge_lneg:
            if b.restype == "HIS":
                out[(key, SALT, b.resnr, b.reschain)] = b.distance
        for p in s.pication_laro:
            if p.restype == "HIS":
                out[(key, PICATION, p.resnr, p.reschain)] = p.distance
    return out


def sitepack_his_rows(h5, name):
    f = h5py.File(h5, "r")
    lg, ix, at, rs = f["ligands"], f["interactions"], f["atoms"], f["residues"]
    ip, ap = f["sites/interaction_ptr"][:], f["sites/atom_ptr"][:]
    paths = [os.path.basename(p.decode()) for p in f["structures/path"][:]]
    out = {}
    for li in range(len(lg["comp_id"])):
        si = int(lg["site_idx"][li])
        if si < 0 or paths[lg["structure_idx"][li]] != name:
            continue
        key = "%s:%s:%d" % (lg["comp_id"][li].decode(), lg["auth_asym_id"][li].decode(), lg["auth_seq_id"][li])
        for q in range(ip[si], ip[si + 1]):
            t = int(ix["type"][q])
            if t not in (SALT, PICATION):
                continue
            r = int(at["residue_idx"][ap[si] + int(ix["site_atom"][q])])
            if rs["comp_id"][r].decode() == "HIS":
                out[(key, t, int(rs["auth_seq_id"][r]), rs["auth_asym_id"][r].decode())] = float(ix["distance"][q])
    return out


def main(argv):
    cli, sdir, ccd, out = argv[1:5]
    files = argv[5:]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "in"))
    for n in files:
        os.symlink(os.path.abspath(os.path.join(sdir, n)), os.path.join(out, "in", n))
    h5 = os.path.join(out, "his.h5")
    subprocess.run([cli, "run", "--input", os.path.join(out, "in"), "--ccd", ccd, "--out", h5, "--force", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    fails, n = 0, 0
    for name in files:
        sp = sitepack_his_rows(h5, name)
        for k, d in sorted(plip_his_rows(os.path.join(sdir, name)).items()):
            s = sp.get(k)
            ok = s is not None and abs(s - d) < 0.005
            n += 1
            fails += not ok
            print(("ok   " if ok else "FAIL ") + f"{name} {k}: PLIP {d:.3f} A, sitepack {s if s is None else round(s, 3)}")
    if n < 3:
        print(f"FAIL: {n} PLIP rows with a HIS (< 3)")
        fails += 1
    print("FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
