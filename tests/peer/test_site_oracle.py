#!/usr/bin/env python3
"""An oracle for sites and altlocs that shares no code and no rule with sitepack: `sitepack run` on the
given files (and on a synthetic one written here), then every site of the merged file against gemmi's
reading of the same file, with this script's own altloc rule and its own neighbour search.

The oracle's rules (DESIGN.md "altloc", docs/sites.md "cutoff"):
  - conformer of a residue: among its non-blank altloc ids, the one with the highest MEAN occupancy,
    a tie to the first in file order; blank-altloc atoms always belong;
  - site of a ligand: every residue of model 1 (any kind: polymer, other ligand, ion, water) other
    than the ligand's own, with some atom of its chosen conformer at d^2 <= 6.0^2 (float32, as written
    in docs/sites.md) of a heavy atom of the ligand's chosen conformer.
Checked two ways (set equality, not inclusion): the site's residues are exactly the oracle's, each at
the oracle's minimum distance (1e-3 Å); the ligand's altloc is the oracle's choice for its first
residue with altlocs; each site residue holds exactly the oracle's chosen atoms (count, altloc ids).

The synthetic file has, around one ligand whose better conformer (B, 0.7) is the second in the file:
a residue near conformer A only (out), near B (in), a SER whose better conformer (B) is the second and
far (out: in if the first were chosen), a THR tie resolved to the first (in), a VAL whose conformer A
has the higher mean (0.6, 2 atoms) but B the higher sum (4 x 0.4) (A chosen: in), residues at
exactly 6.000 Å (in) and 6.001 Å (out), and residues 8 and 8A (insertion code, both in); the ligand
itself is LIG Z 1B, and its row's residue list must read LIG/Z/1B.

usage: test_site_oracle.py SITEPACK CCD WORKDIR FILE...
"""
import os
import shutil
import subprocess
import sys

import gemmi
import h5py
import numpy as np

BIN, CCD, WORK = sys.argv[1:4]
FILES = sys.argv[4:]
CUTOFF = np.float32(6.0)
fails = []


def fail(msg):
    fails.append(msg)
    if len(fails) <= 40:
        print("FAIL:", msg, file=sys.stderr)


def pdb_atom(het, name, alt, comp, chain, seq, x, y, z, occ, el, serial, icode=" "):
    rec = "HETATM" if het else "ATOM"
    return (f"{rec:<6}{serial:5d} {name:<4}{alt or ' '}{comp:>3} {chain}{seq:4d}{icode}   "
            f"{x:8.3f}{y:8.3f}{z:8.3f}{occ:6.2f}{20.0:6.2f}          {el:>2}\n")


def synthetic():
    rows = []
    add = lambda *a: rows.append(a)
    # the ligand: conformer A at z = 0 (0.3), B at z = 10 (0.7, the second in the file: chosen)
    lig = [("C1", "A", 0, 0, 0, 0.3), ("C2", "A", 1.5, 0, 0, 0.3), ("C1", "B", 0, 0, 10, 0.7),
           ("C2", "B", 1.5, 0, 10, 0.7)]
    add(0, "CA", "", "ALA", 1, 0, 5, 10, 1.0)      # 5 Å from B: in
    add(0, "CA", "", "ALA", 2, 0, 5, 0, 1.0)       # 5 Å from A only: out
    add(0, "CA", "", "SER", 3, 20, 20, 20, 1.0)
    add(0, "OG", "A", "SER", 3, 0, -5, 10, 0.35)   # the worse conformer, near
    add(0, "OG", "B", "SER", 3, 0, -8, 10, 0.65)   # the better one, far: out
    add(0, "CA", "", "THR", 4, 30, 30, 30, 1.0)
    add(0, "OG1", "A", "THR", 4, -5.5, 0, 10, 0.5)  # tie: the first (A), near: in
    add(0, "OG1", "B", "THR", 4, -9, 0, 10, 0.5)
    add(0, "CA", "", "GLY", 5, 7.5, 0, 10, 1.0)    # 6.000 Å from C2 B: in
    add(0, "CA", "", "GLY", 6, 7.501, 0, 10, 1.0)  # 6.001 Å: out
    add(0, "CA", "", "VAL", 7, 40, 40, 40, 1.0)
    add(0, "CG1", "A", "VAL", 7, 0, 0, 15.5, 0.6)  # A: mean 0.6 (2 atoms), near: in
    add(0, "CG2", "A", "VAL", 7, 40, 40, 41, 0.6)
    for nm, y in (("CG1", 18), ("CG2", 42), ("CB", 43), ("N", 44)):  # B: mean 0.4, sum 1.6
        add(0, nm, "B", "VAL", 7, 40, y, 40, 0.4)
    add(0, "CA", "", "SER", 8, 0, 0, 5, 1.0)        # 5 Å from C1 B, residue 8 ...
    add(0, "CA", "", "SER", 8.1, 1.5, 0, 5.5, 1.0)  # ... and 8A (insertion code, same name CA): in
    txt, serial = "", 0
    for het, nm, alt, comp, seq, x, y, z, occ in rows:
        serial += 1
        ic = "A" if seq != int(seq) else " "  # 8.1: residue 8, insertion code A
        txt += pdb_atom(False, f" {nm}" if len(nm) < 4 else nm, alt, comp, "A", int(seq), x, y, z, occ, nm[0], serial,
                        ic)
    for nm, alt, x, y, z, occ in lig:  # the ligand is LIG Z 1B (an insertion code of its own)
        serial += 1
        txt += pdb_atom(True, f" {nm}", alt, "LIG", "Z", 1, x, y, z, occ, "C", serial, "B")
    return txt + "END\n"


def chosen_altloc(atoms):
    order, occ = [], {}
    for a in atoms:
        if a.altloc != "\0":
            if a.altloc not in occ:
                order.append(a.altloc)
                occ[a.altloc] = []
            occ[a.altloc].append(a.occ)
    best, bm = "", -1.0
    for k in order:
        m = sum(occ[k]) / len(occ[k])
        if m > bm + 1e-6:
            best, bm = k, m
    return best


def oracle_residues(path):
    st = gemmi.read_structure(path)
    st.setup_entities()
    out = []  # (key, chosen altloc, chosen atoms: [(pos float32[3], element, altloc)])
    for ch in st[0]:
        for r in ch:
            alt = chosen_altloc(list(r))
            ats = [(np.array([a.pos.x, a.pos.y, a.pos.z], dtype=np.float32), a.element.atomic_number, a.altloc)
                   for a in r if a.altloc == "\0" or a.altloc == alt]
            key = (ch.name, r.name, r.seqid.num, r.seqid.icode.strip())
            out.append((key, alt, ats))
    return out


def d2_min(p_lig, pts):
    e = pts[:, None, :] - p_lig[None, :, :]  # float32 throughout, (ex*ex + ey*ey) + ez*ez
    d2 = (e[..., 0] * e[..., 0] + e[..., 1] * e[..., 1]) + e[..., 2] * e[..., 2]
    return d2.min()


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    inp = os.path.join(WORK, "in")
    os.makedirs(inp)
    with open(os.path.join(inp, "synthetic_altloc_sites.pdb"), "w") as f:
        f.write(synthetic())
    for p in FILES:
        shutil.copy(p, inp)
    out = os.path.join(WORK, "o.h5")
    subprocess.run([BIN, "run", "--input", inp, "--ccd", CCD, "--out", out, "--force", "--quiet"], check=True)
    h = h5py.File(out, "r")
    S, L, T, R, A = h["structures"], h["ligands"], h["sites"], h["residues"], h["atoms"]
    paths = [s(p) for p in S["path"][:]]
    lptr, status = S["ligand_ptr"][:], [s(x) for x in S["status"][:]]
    l_alt, l_site, l_res = L["altloc"][:], L["site_idx"][:], L["residues"][:]
    rptr, aptr, sflags = T["residue_ptr"][:], T["atom_ptr"][:], T["flags"][:]
    r_chain, r_comp, r_num, r_ins = R["auth_asym_id"][:], R["comp_id"][:], R["auth_seq_id"][:], R["ins_code"][:]
    r_kind, r_dmin = R["kind"][:], R["min_distance"][:]
    a_res, a_alt = A["residue_idx"][:], A["altloc"][:]
    n_sites = n_res = n_synthetic = 0
    for si, path in enumerate(paths):
        if status[si] != "ok":
            fail(f"{path}: status {status[si]}")
            continue
        orc = oracle_residues(os.path.join(inp, path))
        by_key = {}
        for key, alt, ats in orc:
            by_key.setdefault(key, []).append((alt, ats))
        for li in range(lptr[si], lptr[si + 1]):
            t = l_site[li]
            if t < 0:
                continue
            rows = range(rptr[t], rptr[t + 1])
            keyof = lambda k: (s(r_chain[k]), s(r_comp[k]), int(r_num[k]), s(r_ins[k]))
            own = [keyof(k) for k in rows if r_kind[k] == 0]
            if any(k not in by_key for k in own):
                fail(f"{path} ligand {li}: own residues {own} not all in gemmi's model 1")
                continue
            # the ligand's chosen heavy atoms, and its altloc: the first own residue with altlocs
            lig_alt = next((a for k in own for a, _ in by_key[k] if a), "")
            # the ligand row's residue list: COMP/CHAIN/NUM[ICODE] of its own residues (docs/format.md)
            want_res = " ".join(f"{c}/{ch}/{n}{i}" for ch, c, n, i in own)
            if len(want_res) < 127 and s(l_res[li]) != want_res:
                fail(f"{path} ligand {own[0]}: residues '{s(l_res[li])}', expected '{want_res}'")
            if s(l_alt[li]) != lig_alt:
                fail(f"{path} ligand {own[0]}: altloc '{s(l_alt[li])}', oracle '{lig_alt}'")
            heavy = [p for k in own for _, ats in by_key[k] for p, el, _ in ats if el > 1]
            if not heavy:
                continue
            P = np.array(heavy, dtype=np.float32)
            want = {}
            for key, alt, ats in orc:
                if key in own or not ats:
                    continue
                d2 = d2_min(P, np.array([p for p, _, _ in ats], dtype=np.float32))
                if d2 <= CUTOFF * CUTOFF:
                    want[key] = min(want.get(key, 1e9), float(np.sqrt(d2)))
            got = {}
            for k in rows:
                if r_kind[k] != 0:
                    got[keyof(k)] = float(r_dmin[k])
            for k in sorted(set(want) - set(got)):
                fail(f"{path} site of {own[0]}: residue {k} at {want[k]:.3f} Å missing")
            for k in sorted(set(got) - set(want)):
                fail(f"{path} site of {own[0]}: residue {k} (min distance {got[k]:.3f}) not within 6 Å of the "
                     f"oracle's chosen conformers")
            for k in set(got) & set(want):
                if abs(got[k] - want[k]) > 1e-3:
                    fail(f"{path} site of {own[0]}: residue {k} min distance {got[k]:.4f}, oracle {want[k]:.4f}")
            # atoms of each site residue: the oracle's chosen conformer (not for oversize sites)
            if not (sflags[t] & 1):
                cnt = {}
                for ai in range(aptr[t], aptr[t + 1]):
                    k = keyof(a_res[ai])
                    cnt.setdefault(k, []).append(s(a_alt[ai]))
                for k in got:
                    if k not in by_key or len(by_key[k]) != 1:
                        continue  # a key gemmi holds twice (repeated residue ids): counts not comparable
                    alt, ats = by_key[k][0]
                    exp = sorted(a if a != "\0" else "" for _, _, a in ats)
                    if sorted(cnt.get(k, [])) != exp:
                        fail(f"{path} site of {own[0]}: residue {k} atoms' altlocs {sorted(cnt.get(k, []))}, "
                             f"oracle {exp} (conformer '{alt}')")
            if path == "synthetic_altloc_sites.pdb":
                exp = {("A", c, n, "") for c, n in (("ALA", 1), ("THR", 4), ("GLY", 5), ("VAL", 7), ("SER", 8))}
                exp.add(("A", "SER", 8, "A"))
                if own != [("Z", "LIG", 1, "B")]:
                    fail(f"synthetic: the ligand's own residues {own}, expected LIG Z 1B")
                if set(want) != exp or lig_alt != "B":
                    fail(f"synthetic: the oracle's own site {sorted(want)} / altloc '{lig_alt}' is not the one "
                         f"worked out by hand {sorted(exp)} / 'B'")
                n_synthetic += 1
            n_sites += 1
            n_res += len(got)
    if n_synthetic != 1:
        fail(f"the synthetic ligand's site was checked {n_synthetic} times")
    if n_sites < 10:
        fail(f"only {n_sites} sites checked")
    print(f"test_site_oracle: {len(paths)} files, {n_sites} sites, {n_res} site residues, {len(fails)} failure(s)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
