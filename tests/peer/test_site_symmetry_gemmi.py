#!/usr/bin/python3
"""Symmetry mates of sitepack's sites vs gemmi (docs/sites.md "Symmetry mates").

Usage: test_site_symmetry_gemmi.py SITEPACK SP_DUMP_SYMMETRY CCD WORKDIR STRUCTURE_FILE...

Runs `sitepack run --symmetry-mates` over the given files (entries with crystal contacts near a
ligand: 5KC1, 2ZOZ, 1R6A, 4HHB), then for every site:
  * every image atom (flag bit 512) lies at a symmetry image of its own atom in the file: its
    fractional position (gemmi's UnitCell.fractionalize: the file's frame, SCALEn included) is the
    operator named by its residue's tag ("2_655": sitepack's operator 2, sitepack's operator list
    from sp_dump_symmetry) applied to the original, plus the tag's lattice translation (1e-3);
  * completeness: every atom that gemmi's NeighborSearch (model 1, the cell and space group of the
    file) finds within 6 Å of a ligand heavy atom in a symmetry image (an image position, not the atom's
    own; atoms on special positions, whose image lies within 0.8 Å of themselves, excluded) is an image
    atom of the site at that position (0.01 Å), unless it belongs to a conformer sitepack did not choose;
  * conversely every image atom flagged within-cutoff (bit 256) is such a gemmi contact.
Exit 1 on any difference.
"""
import json
import os
import subprocess
import sys

import gemmi
import h5py
import numpy as np

SYM, WITHIN = 512, 256


def main():
    sitepack, dump_sym, ccd, work = sys.argv[1:5]
    files = sys.argv[5:]
    inp = os.path.join(work, "symmetry_input")
    os.makedirs(inp, exist_ok=True)
    for f in files:
        link = os.path.join(inp, os.path.basename(f))
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(f), link)
    out = os.path.join(work, "symmetry_mates.h5")
    subprocess.run([sitepack, "run", "--input", inp, "--ccd", ccd, "--out", out, "--force", "--quiet",
                    "--symmetry-mates"], check=True, stdout=subprocess.DEVNULL)
    ops = {}
    for line in subprocess.run([dump_sym] + files, check=True, capture_output=True, text=True).stdout.splitlines():
        r = json.loads(line)
        ops[os.path.basename(r["file"])] = [gemmi.Op(t) for t in r["ops"]]
    f = h5py.File(out, "r")
    paths = [p.decode() for p in f["structures/path"][:]]
    ap, rp = f["sites/atom_ptr"][:], f["sites/residue_ptr"][:]
    sst, sflags = f["sites/structure_idx"][:], f["sites/flags"][:]
    pos, aflags, ares = f["atoms/position"][:], f["atoms/flags"][:], f["atoms/residue_idx"][:]
    aname, aalt, ael = f["atoms/atom_name"][:], f["atoms/altloc"][:], f["atoms/element"][:]
    rch, rnum, rins = f["residues/auth_asym_id"][:], f["residues/auth_seq_id"][:], f["residues/ins_code"][:]
    rkind, rsym = f["residues/kind"][:], f["residues/symop"][:]
    bad = 0
    n_img_atoms = n_contacts = n_alt_skip = n_sites = 0
    cache = {}
    for i in range(len(sst)):
        path = paths[sst[i]]
        if path not in cache:
            st = gemmi.read_structure(os.path.join(inp, path))
            ns = gemmi.NeighborSearch(st[0], st.cell, 7).populate()
            cache[path] = (st, ns)
        st, ns = cache[path]
        a0, a1 = ap[i], ap[i + 1]
        img = {}  # (chain, num, ins, atom name) -> list of positions of image atoms
        for a in range(a0, a1):
            if not aflags[a] & SYM:
                continue
            n_img_atoms += 1
            r = ares[a]
            key = (rch[r].decode(), int(rnum[r]), rins[r].decode(), aname[a].decode())
            img.setdefault(key, []).append(pos[a])
            tag = rsym[r].decode()
            k, t = tag.split("_", 1)
            tr = [int(c) - 5 for c in t] if len(t) == 3 else [int(x) for x in t.split("_")]
            op = ops[path][int(k) - 1]
            # the original atom in the file
            orig = None
            for ch in st[0]:
                if ch.name != key[0]:
                    continue
                for res in ch:
                    if res.seqid.num == key[1] and res.seqid.icode.strip() == key[2]:
                        for at in res:
                            alt = aalt[a].decode()
                            if at.name == key[3] and (at.altloc == "\0" and not alt or at.altloc == alt):
                                orig = at.pos
            if orig is None:
                print(f"FAIL {path} site {i}: image atom {key} not found in the file")
                bad += 1
                continue
            fo = st.cell.fractionalize(orig)
            fi = gemmi.Fractional(*op.apply_to_xyz([fo.x, fo.y, fo.z]))
            want = st.cell.orthogonalize(gemmi.Fractional(fi.x + tr[0], fi.y + tr[1], fi.z + tr[2]))
            d = want.dist(gemmi.Position(*map(float, pos[a])))
            if d > 1e-3 * 10:
                print(f"FAIL {path} site {i}: image atom {key} tag {tag} at {pos[a]}, operator gives {want} ({d:.4f} Å)")
                bad += 1
        if not img and not sflags[i] & 4:
            continue
        n_sites += 1
        # gemmi's symmetry contacts of the ligand's heavy atoms
        lig = [a for a in range(a0, a1) if aflags[a] & 1 and ael[a] != 1]
        found = set()
        for a in lig:
            p = gemmi.Position(*map(float, pos[a]))
            for m in ns.find_atoms(p, "\0", radius=6.0):
                cra = m.to_cra(st[0])
                if m.pos().dist(p) > 6.0:
                    continue
                if m.pos().dist(cra.atom.pos) < 0.01:
                    continue  # the atom itself, not an image
                if m.pos().dist(cra.atom.pos) < 0.8:
                    continue  # special position
                key = (cra.chain.name, cra.residue.seqid.num, cra.residue.seqid.icode.strip(), cra.atom.name)
                cands = img.get(key, [])
                if any(np.linalg.norm(np.array([m.pos().x, m.pos().y, m.pos().z]) - c) < 0.01 for c in cands):
                    n_contacts += 1
                    found.add((key, round(m.pos().x, 1), round(m.pos().y, 1), round(m.pos().z, 1)))
                elif cra.atom.altloc != "\0":
                    n_alt_skip += 1  # a conformer sitepack did not choose
                else:
                    print(f"FAIL {path} site {i}: gemmi symmetry contact {key} at {m.pos()} (image {m.image_idx}) "
                          f"is not an image atom of the site")
                    bad += 1
        for a in range(a0, a1):
            if aflags[a] & SYM and aflags[a] & WITHIN:
                r = ares[a]
                key = (rch[r].decode(), int(rnum[r]), rins[r].decode(), aname[a].decode())
                q = pos[a]
                if not any(k == key and abs(x - q[0]) < 0.11 and abs(y - q[1]) < 0.11 and abs(z - q[2]) < 0.11
                           for (k, x, y, z) in found):
                    # gemmi's find_atoms may report a contact once per ligand atom; check the distance directly
                    d = min(np.linalg.norm(pos[b] - q) for b in lig)
                    if d > 6.0 + 1e-3:
                        print(f"FAIL {path} site {i}: image atom {key} flagged within the cutoff at {d:.3f} Å")
                        bad += 1
    print(f"{len(sst)} sites, {n_sites} with symmetry mates: {n_img_atoms} image atoms at the positions of their "
          f"tagged operators; {n_contacts} gemmi symmetry contacts found among them ({n_alt_skip} in other conformers)")
    if n_sites == 0:
        print("FAIL: no site with symmetry mates")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
