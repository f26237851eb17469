#!/usr/bin/python3
"""The SASA environment at the edge of its box (issue 33 item 9; src/site/sitechem_burial.c, docs/sites.md
"burial"), against an independent Shrake-Rupley in numpy.

The burial step reads only the environment atoms inside the ligand's box grown by
reach = r_lig,max + r_env,max + 2 probe, which is exactly the largest distance at which an atom can occlude a
ligand atom. Two structures written here put occluders just inside that reach, on every face of the box:
  - edge_s.pdb: a four-atom LIG (C, C, C, O; r_lig,max = 1.70 Å); one MET SD (S, 1.80 Å: r_env,max) beyond each
    of the six faces, at 5.2-6.28 Å from the ligand atom on that face (reach 1.70 + 1.80 + 2.8 = 6.3 Å); two ALA
    residues in ordinary contact;
  - edge_br.pdb: a LIG with a Br (1.85 Å) and C, O; a carbon beyond each face of the Br at 5.6-6.33 Å (the
    occlusion limit 1.85 + 1.70 + 2.8 = 6.35 Å; r_env,max is over the model's candidates, the ligand's own
    atoms included, so the reach is 1.85 + 1.85 + 2.8 = 6.5 Å here: a looser edge, another radius).
`sitepack run` (-np 1), then /atoms/sasa_free and /atoms/sasa_complex of every ligand atom against a plain
Shrake-Rupley of the same structure: the same 960-point golden-section spiral (MDTraj's construction, as
docs/sites.md states), Bondi radii (Bondi 1964, hard-coded here), probe 1.4 Å, every heavy atom of the model
an occluder (no box, no cells), a point buried when inside (r_j + probe) of another atom, in float64. Each
atom's count of exposed points must be the same (within half a point's area: sitepack works in float32, none
of these points lies that close to a sphere), and the face occluders must bury something (the test's own
geometry check). A box margin cut by a probe fails on both files; r_lig,max counted for r_env,max (1.70 for
1.80 in edge_s: its 6.28 and 6.25 Å occluders are lost, 1 and 4 points) fails on edge_s. (r_env,max counted
for r_lig,max is no bug: r_env,max >= r_lig,max, the ligand's atoms being candidates.)

usage: test_sasa_box_edge.py SITEPACK CCD OUTDIR"""
import math
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

SP, CCD, OUT = sys.argv[1:4]
PROBE, N_POINTS = 1.4, 960
BONDI = {"C": 1.70, "N": 1.55, "O": 1.52, "S": 1.80, "BR": 1.85}  # Bondi 1964, J. Phys. Chem. 68, 441
checks, fails = 0, []


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        fails.append(msg)
        print("FAIL:", msg)


def pdb_line(serial, het, name, comp, chain, seq, xyz, el):
    return (f"{'HETATM' if het else 'ATOM':<6}{serial:5d} {name:<4} {comp:>3} {chain}{seq:4d}    "
            f"{xyz[0]:8.3f}{xyz[1]:8.3f}{xyz[2]:8.3f}{1.0:6.2f}{20.0:6.2f}          {el:>2}\n")


def write(path, ligand, env):
    """ligand: [(name, el, xyz)] of LIG A 100; env: [(name, el, comp, seq, xyz)] of chain B."""
    lines = []
    for name, el, comp, seq, xyz in env:
        lines.append(pdb_line(len(lines) + 1, False, name, comp, "B", seq, xyz, el))
    for name, el, xyz in ligand:
        lines.append(pdb_line(len(lines) + 1, True, name, "LIG", "A", 100, xyz, el))
    open(path, "w").write("".join(lines) + "END\n")


def face_occluders(ligand, dists, el, comp, name, seq0):
    """One occluder beyond each face of the ligand's box, in front of the ligand atom that is extreme there."""
    xyz = np.array([a[2] for a in ligand])
    out = []
    for k, (axis, sign) in enumerate([(0, 1), (0, -1), (1, 1), (1, -1), (2, 1), (2, -1)]):
        i = int(np.argmax(sign * xyz[:, axis]))
        p = xyz[i].copy()
        p[axis] += sign * dists[k]
        out.append((name, el, comp, seq0 + k, tuple(p)))
    return out


def spiral(n):
    k = np.arange(n, dtype=float)
    off = 2.0 / n
    y = k * off - 1.0 + off / 2.0
    r = np.sqrt(np.maximum(0.0, 1.0 - y * y))
    phi = k * math.pi * (3.0 - math.sqrt(5.0))
    return np.stack([np.cos(phi) * r, y, np.sin(phi) * r], axis=1)


def shrake_rupley(xyz, radii, targets):
    """SASA (Å²) of atoms `targets` among all atoms (xyz [n,3], radii [n]), every other atom an occluder."""
    u = spiral(N_POINTS)
    out = []
    for i in targets:
        R = radii[i] + PROBE
        pts = xyz[i] + R * u
        others = [j for j in range(len(xyz)) if j != i]
        d2 = ((pts[:, None, :] - xyz[others][None, :, :]) ** 2).sum(axis=2)
        buried = (d2 < (radii[others][None, :] + PROBE) ** 2).any(axis=1)
        out.append(4 * math.pi * R * R * (1 - buried.mean()))
    return np.array(out)


shutil.rmtree(OUT, ignore_errors=True)
inp = os.path.join(OUT, "in")
os.makedirs(inp)
lig_s = [("C1", "C", (0.0, 0.0, 0.0)), ("C2", "C", (1.52, 0.0, 0.0)), ("C3", "C", (2.05, 1.42, 0.10)),
         ("O4", "O", (1.20, 2.45, 0.55))]
# +x (C3), -x, -y (C1, C2), -z (C1): a carbon is extreme there, so the reach 6.3 Å is the occlusion limit:
# 6.28 and 6.25 Å bury 1 and 4 points; +y, +z face O4 (limit 1.52 + 1.80 + 2.8 = 6.12 Å)
env_s = face_occluders(lig_s, [6.28, 5.2, 6.25, 5.8, 6.1, 6.25], "S", "MET", "SD", 1)
env_s += [("N", "N", "ALA", 20, (-1.5, 3.9, 0.4)), ("CA", "C", "ALA", 20, (-0.9, 4.2, 1.7)),
          ("C", "C", "ALA", 20, (0.5, 4.6, 1.5)), ("O", "O", "ALA", 20, (1.1, 5.1, 2.4)),
          ("CB", "C", "ALA", 20, (-1.6, 3.3, 2.8)), ("CA", "C", "ALA", 21, (3.9, -2.4, 1.9)),
          ("CB", "C", "ALA", 21, (4.4, -1.2, 2.9))]
write(os.path.join(inp, "edge_s.pdb"), lig_s, env_s)
lig_br = [("BR1", "BR", (0.0, 0.0, 0.0)), ("C2", "C", (1.94, 0.0, 0.0)), ("O3", "O", (2.6, 1.1, 0.0))]
env_br = face_occluders(lig_br[:1], [6.33, 6.3, 5.6, 6.2, 6.0, 6.31], "C", "ALA", "CA", 1)
write(os.path.join(inp, "edge_br.pdb"), lig_br, env_br)

out = os.path.join(OUT, "edge.h5")
p = subprocess.run([SP, "run", "--input", inp, "--ccd", CCD, "--out", out, "--quiet", "--force"],
                   capture_output=True, text=True)
if p.returncode != 0:
    print(f"FAIL: sitepack run exited {p.returncode}: {p.stderr[-1500:]}")
    sys.exit(1)

with h5py.File(out, "r") as h:
    paths = [x.decode() for x in h["structures/path"][:]]
    sites = h["sites"]
    atoms = h["atoms"]
    seen = set()
    for s in range(sites["structure_idx"].shape[0]):
        name = paths[int(sites["structure_idx"][s])]
        a0, nl = int(sites["atom_ptr"][s]), int(sites["n_ligand"][s])
        seen.add(name)
        ligand, env = (lig_s, env_s) if name == "edge_s.pdb" else (lig_br, env_br)
        lig_xyz = np.array([a[2] for a in ligand])
        els = [a[1] for a in ligand] + [e[1] for e in env]
        xyz = np.vstack([lig_xyz, np.array([e[4] for e in env])])
        radii = np.array([BONDI[e] for e in els])
        nlig = len(ligand)
        free = shrake_rupley(lig_xyz, radii[:nlig], range(nlig))
        cplx = shrake_rupley(xyz, radii, range(nlig))
        pos = atoms["position"][a0:a0 + nl]
        sf, sc = atoms["sasa_free"][a0:a0 + nl], atoms["sasa_complex"][a0:a0 + nl]
        check(nl == nlig, f"{name}: {nl} ligand atoms on the site block ({nlig})")
        # the face occluders alone (no ALA contacts): what the box edge decides
        faces = shrake_rupley(np.vstack([lig_xyz, np.array([e[4] for e in env[:6]])]),
                              np.concatenate([radii[:nlig], radii[nlig:nlig + 6]]), range(nlig))
        check((free - faces).sum() > 2.0, f"{name}: the face occluders bury {(free - faces).sum():.3f} A2 (test geometry)")
        for k in range(min(nl, nlig)):
            i = int(np.argmin(((lig_xyz - pos[k]) ** 2).sum(axis=1)))
            R = radii[i] + PROBE
            point = 4 * math.pi * R * R / N_POINTS
            check(abs(sf[k] - free[i]) <= 0.5 * point,
                  f"{name} {ligand[i][0]}: sasa_free {sf[k]:.3f}, numpy Shrake-Rupley {free[i]:.3f} A2")
            check(abs(sc[k] - cplx[i]) <= 0.5 * point,
                  f"{name} {ligand[i][0]}: sasa_complex {sc[k]:.3f}, numpy Shrake-Rupley {cplx[i]:.3f} A2 "
                  f"(free {free[i]:.3f}; the face occluders alone leave {faces[i]:.3f}; one point {point:.3f})")
        print(f"{name}: ligand SASA free {sf.sum():.2f} (numpy {free.sum():.2f}), complex {sc.sum():.2f} "
              f"(numpy {cplx.sum():.2f}) A2; face occluders bury {(free - faces).sum():.2f} A2")
    check(seen == {"edge_s.pdb", "edge_br.pdb"}, f"sites of {sorted(seen)} (edge_s.pdb, edge_br.pdb)")
if fails:
    print(f"test_sasa_box_edge: {len(fails)} of {checks} checks failed")
    sys.exit(1)
print(f"test_sasa_box_edge: all {checks} checks passed")
