#!/usr/bin/python3
"""One copy per atom position in a site with symmetry mates and assembly copies (docs/sites.md "Symmetry mates
and assembly copies together").

Usage: test_site_copies.py SITEPACK CCD WORKDIR BOTH.h5 ASSEMBLY.h5 STRUCTURES_DIR

BOTH.h5 and ASSEMBLY.h5 are corpus runs with --symmetry-mates --assembly first and with --assembly first only.
1. A small case written here (P 1 2 1 and a BIOMT 2-fold that is the crystal's 2-fold; a sulfate on the axis):
   every run (none, --symmetry-mates, --assembly first, both) holds each (atom, position) once; the sulfate's
   image lacks its S (on the axis, the image of S is S) and its O atoms are at gemmi's image (-x, y, -z) of
   theirs; with both options the copies are those of --assembly first, labelled assembly, none symmetry.
2. The corpus: no site of BOTH.h5 holds two atoms of the same identity (chain, residue, name, altloc) within
   0.03 A; its assembly copies equal those of ASSEMBLY.h5 (residues, atoms, positions; ASSEMBLY.h5 is checked
   against gemmi by peer_site_assembly); and gemmi (UnitCell.find_nearest_image, Asu.Different) finds assembly
   copy atoms that are also crystal symmetry images of their atom (1a69's site 36 among them): those are the
   ones a site held twice before, and BOTH.h5 has each once, as an assembly copy.
Exit 1 on any failure.
"""
import os
import subprocess
import sys

import gemmi
import h5py
import numpy as np

TOL = 0.03


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def atom(serial, name, res, seq, xyz, el, het):
    rec = "HETATM" if het else "ATOM  "
    x, y, z = xyz
    return f"{rec}{serial:5d} {name:<4s} {res:>3s} A{seq:4d}    {x:8.3f}{y:8.3f}{z:8.3f}  1.00 20.00          {el:>2s}"


def write_case(path):
    lines = ["CRYST1   30.000   30.000   30.000  90.00  90.00  90.00 P 1 2 1       2",
             "REMARK 350 BIOMOLECULE: 1", "REMARK 350 APPLY THE FOLLOWING TO CHAINS: A"]
    for k, m in ((1, (1, 1, 1)), (2, (-1, 1, -1))):
        for row in range(3):
            v = ["0.000000"] * 3
            v[row] = f"{m[row]:.6f}"
            lines.append(f"REMARK 350   BIOMT{row + 1}   {k}  {v[0]:>9s} {v[1]:>9s} {v[2]:>9s}        0.00000")
    n = 1
    groups = [("ALA", 1, False, [("N", "N", (4.5, 3.0, 3.0)), ("CA", "C", (5.0, 4.0, 3.5)), ("C", "C", (6.3, 4.5, 3.0)),
                                 ("O", "O", (6.8, 5.5, 3.4)), ("CB", "C", (4.0, 5.0, 3.8))]),
              ("STL", 101, True, [("C1", "C", (2.0, 3.0, 1.5)), ("C2", "C", (3.0, 2.0, 1.2)), ("C3", "C", (2.5, 1.0, 0.5)),
                                  ("C4", "C", (1.5, 1.5, 2.5)), ("O1", "O", (2.8, 4.0, 2.0))]),
              ("SO4", 102, True, [("S", "S", (0.0, 6.0, 0.0)), ("O1", "O", (0.9, 6.9, 0.8)), ("O2", "O", (-0.9, 6.9, -0.8)),
                                  ("O3", "O", (0.8, 5.1, -0.9)), ("O4", "O", (-0.8, 5.1, 0.9))])]
    for res, seq, het, atoms in groups:
        for name, el, xyz in atoms:
            lines.append(atom(n, name, res, seq, xyz, el, het))
            n += 1
    lines.append("END")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class Run:
    """The sites of one output: per site, [(identity, tag kind, tag, position)] in site order."""

    def __init__(self, path):
        f = h5py.File(path, "r")
        S, A, R = f["sites"], f["atoms"], f["residues"]
        self.ap, self.sidx = S["atom_ptr"][:], S["structure_idx"][:]
        self.paths = [s(p) for p in f["structures/path"][:]]
        self.pos, self.rid = A["position"][:], A["residue_idx"][:]
        self.name, self.alt = [s(x) for x in A["atom_name"][:]], [s(x) for x in A["altloc"][:]]
        n = len(R["comp_id"])
        cols = [[s(x) for x in R[c][:]] for c in ("auth_asym_id", "auth_seq_id", "ins_code", "comp_id")]
        self.res = list(zip(*cols))
        self.sym = [s(x) for x in R["symop"][:]] if "symop" in R else [""] * n
        self.asm = [s(x) for x in R["assembly_op"][:]] if "assembly_op" in R else [""] * n

    def site(self, i):
        out = []
        for j in range(self.ap[i], self.ap[i + 1]):
            r = self.rid[j]
            kind = "assembly" if self.asm[r] else "symmetry" if self.sym[r] else ""
            out.append(((self.res[r], self.name[j], self.alt[j]), kind, self.asm[r] or self.sym[r], self.pos[j]))
        return out

    def n_sites(self):
        return len(self.sidx)


def duplicates(site):
    """pairs of rows with the same identity within TOL"""
    seen, bad = {}, []
    for j, (key, kind, tag, p) in enumerate(site):
        for k in seen.get(key, []):
            if np.linalg.norm(p - site[k][3]) < TOL:
                bad.append((key, site[k][1] + " " + site[k][2], kind + " " + tag))
        seen.setdefault(key, []).append(j)
    return bad


def check_case(exe, ccd, work, fails):
    case = os.path.join(work, "copies_axis.pdb")
    write_case(case)
    runs = {}
    for label, opts in (("none", []), ("sym", ["--symmetry-mates"]), ("asm", ["--assembly", "first"]),
                        ("both", ["--symmetry-mates", "--assembly", "first"])):
        out = os.path.join(work, f"copies_{label}.h5")
        subprocess.run([exe, "run", "--input", case, "--ccd", ccd, "--out", out, "--force", "--quiet"] + opts,
                       check=True, stdout=subprocess.DEVNULL)
        runs[label] = Run(out)
    st = gemmi.read_structure(case)
    op = gemmi.find_spacegroup_by_name(st.spacegroup_hm).operations().sym_ops[1]  # -x, y, -z
    orig = {(s(ch.name), str(r.seqid.num), r.name, a.name): a.pos for ch in st[0] for r in ch for a in r}
    n_img_o = n_img_s = 0
    for label, run in runs.items():
        for i in range(run.n_sites()):
            site = run.site(i)
            for d in duplicates(site):
                fails.append(f"case {label} site {i}: {d} twice")
            for key, kind, tag, p in site:
                if key[0][3] != "SO4" or not kind:
                    continue
                if key[1] == "S":
                    n_img_s += 1
                    continue
                o = orig[(key[0][0], key[0][1], key[0][3], key[1])]
                fr = st.cell.fractionalize(o)
                want = st.cell.orthogonalize(gemmi.Fractional(*op.apply_to_xyz([fr.x, fr.y, fr.z])))
                n_img_o += 1
                if want.dist(gemmi.Position(*map(float, p))) > 1e-3:
                    fails.append(f"case {label} site {i}: {key} at {p}, gemmi's -x,y,-z gives {want}")
    if n_img_s or n_img_o != 4 * 2 * 3:  # 2 sites x (sym, asm, both) x 4 O atoms
        fails.append(f"case: SO4 copies hold {n_img_s} S atoms (want 0) and {n_img_o} O atoms (want 24)")
    both, asm = runs["both"], runs["asm"]
    for i in range(both.n_sites()):
        b = [(k, kind, tag, tuple(p)) for k, kind, tag, p in both.site(i)]
        a = [(k, kind, tag, tuple(p)) for k, kind, tag, p in asm.site(i)]
        if b != a:
            fails.append(f"case site {i}: with both options the site is not the --assembly first site")
    print(f"case: 4 runs, no atom twice; SO4 images without S, {n_img_o} O atoms at gemmi's image")


def corpus_atoms(d, path, cache):
    if path not in cache:
        cache.clear()
        st = gemmi.read_structure(os.path.join(d, path))
        at = {}
        for ch in st[0]:
            for r in ch:
                for a in r:
                    key = (ch.name, str(r.seqid.num), r.seqid.icode.strip(), r.name)
                    at[(key, a.name, a.altloc.strip("\0").strip())] = a.pos
        cache[path] = (st, at)
    return cache[path]


def check_corpus(both_h5, asm_h5, d, fails):
    B, A = Run(both_h5), Run(asm_h5)
    if B.n_sites() != A.n_sites():
        fails.append(f"corpus: {B.n_sites()} sites with both options, {A.n_sites()} with --assembly first")
        return
    cache, n_dup, n_asm, n_also_sym, sites_also = {}, 0, 0, 0, set()
    for i in range(B.n_sites()):
        site = B.site(i)
        dup = duplicates(site)
        n_dup += len(dup)
        if dup and len(fails) < 20:
            fails.append(f"corpus site {i} ({B.paths[B.sidx[i]]}): {dup[0]} ({len(dup)} atoms twice)")
        b_asm = [(k, tag, tuple(p)) for k, kind, tag, p in site if kind == "assembly"]
        a_asm = [(k, tag, tuple(p)) for k, kind, tag, p in A.site(i) if kind == "assembly"]
        if b_asm != a_asm:
            fails.append(f"corpus site {i}: assembly copies differ from the --assembly first run")
        if not b_asm:
            continue
        st, at = corpus_atoms(d, B.paths[B.sidx[i]], cache)
        for key, tag, p in b_asm:
            o = at.get((key[0][:3] + (key[0][3],), key[1], key[2]))
            n_asm += 1
            if o is None:
                continue
            im = st.cell.find_nearest_image(gemmi.Position(*map(float, p)), o, gemmi.Asu.Different)
            if im.dist() < TOL:
                n_also_sym += 1
                sites_also.add(i)
    print(f"corpus: {B.n_sites()} sites, {n_dup} atoms twice; {n_asm} assembly copy atoms equal the --assembly run's,"
          f" {n_also_sym} of them (in {len(sites_also)} sites) also a crystal symmetry image (gemmi), held once")
    if n_also_sym == 0 or 36 not in sites_also:
        fails.append("corpus: gemmi finds no assembly copy that is also a symmetry image (site 36 of 1a69 was one)")


def main():
    exe, ccd, work, both_h5, asm_h5, d = sys.argv[1:7]
    os.makedirs(work, exist_ok=True)
    fails = []
    check_case(exe, ccd, work, fails)
    check_corpus(both_h5, asm_h5, d, fails)
    for f in fails[:30]:
        print("FAIL", f)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
