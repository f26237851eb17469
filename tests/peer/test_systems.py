#!/usr/bin/python3
"""Ligand systems (PLINDER: ligand instances of one model closer than 4 A, heavy atoms, single linkage) and the
ligand fit columns of a merged file, recomputed by brute force from the file's own site blocks (issue 17;
docs/format.md "/ligands").

Usage: test_systems.py MERGED.h5

Every ligand's heavy atoms are the first n_ligand atoms of its site block without hydrogens. For each
structure and model: all pairs of ligands, all pairs of heavy atoms, d < 4 A joins two ligands; the groups
are numbered in ligand order. system_id and system_size must equal that. b_mean / b_max / occupancy_mean
equal those of the ligand atoms of the block; site_b_mean / site_b_max those of the block's polymer heavy
atoms (not symmetry images) within 4 A of a ligand heavy atom. Exit 1 on any difference.
"""
import sys

import h5py
import numpy as np


def main():
    f = h5py.File(sys.argv[1], "r")
    L, S, A = f["ligands"], f["sites"], f["atoms"]
    st, model, site = L["structure_idx"][:], L["model_num"][:], L["site_idx"][:]
    sid, ssz = L["system_id"][:], L["system_size"][:]
    ap, nl = S["atom_ptr"][:], S["n_ligand"][:]
    pos, el, fl = A["position"][:], A["element"][:], A["flags"][:]
    b, occ = A["b_iso"][:], A["occupancy"][:]
    cols = {k: L[k][:] for k in ("b_mean", "b_max", "occupancy_mean", "site_b_mean", "site_b_max")}
    bad = n_sys = n_multi = n_fit = 0

    def heavy(i):
        a0 = ap[site[i]]
        idx = np.arange(a0, a0 + nl[site[i]])
        return idx[el[idx] != 1]

    def close(x, y):
        return (np.isnan(x) and np.isnan(y)) or abs(x - y) <= 1e-4 * max(1.0, abs(y))

    for s in np.unique(st):
        ligs = np.nonzero(st == s)[0]
        group = {int(i): int(i) for i in ligs}

        def find(i):
            while group[i] != i:
                i = group[i]
            return i
        hv = {int(i): heavy(i) for i in ligs if site[i] >= 0}
        for x in range(len(ligs)):
            for y in range(x + 1, len(ligs)):
                i, j = int(ligs[x]), int(ligs[y])
                if model[i] != model[j] or i not in hv or j not in hv or not len(hv[i]) or not len(hv[j]):
                    continue
                d = np.linalg.norm(pos[hv[i]][:, None, :] - pos[hv[j]][None, :, :], axis=2)
                if (d < 4.0).any():
                    a, c = find(i), find(j)
                    group[max(a, c)] = min(a, c)
        roots = [find(int(i)) for i in ligs]
        order = {r: k for k, r in enumerate(dict.fromkeys(roots))}
        n_sys += len(order)
        for k, i in enumerate(ligs):
            want_id, want_size = order[roots[k]], roots.count(roots[k])
            n_multi += want_size > 1
            if sid[i] != want_id or ssz[i] != want_size:
                bad += 1
                if bad <= 20:
                    print(f"FAIL ligand {i} (structure {s}): system {sid[i]} size {ssz[i]}, brute force {want_id} size {want_size}")
        for i in ligs:
            if site[i] < 0:
                continue
            h = hv[int(i)]
            bb = b[h][~np.isnan(b[h])]
            a0, a1 = ap[site[i]], ap[site[i] + 1]
            blk = np.arange(a0 + nl[site[i]], a1)
            poly = blk[((fl[blk] & 2) != 0) & ((fl[blk] & (32 | 512)) == 0)]
            if len(poly) and len(h):
                d = np.linalg.norm(pos[poly][:, None, :] - pos[h][None, :, :], axis=2).min(axis=1)
                poly = poly[d <= 4.0]
            else:
                poly = poly[:0]
            pb = b[poly][~np.isnan(b[poly])]
            want = {"b_mean": bb.mean() if len(bb) else np.nan, "b_max": bb.max() if len(bb) else np.nan,
                    "occupancy_mean": occ[h].mean() if len(h) else np.nan,
                    "site_b_mean": pb.mean() if len(pb) else np.nan, "site_b_max": pb.max() if len(pb) else np.nan}
            n_fit += 1
            for k, v in want.items():
                if not close(float(cols[k][i]), float(v)):
                    bad += 1
                    if bad <= 20:
                        print(f"FAIL ligand {i}: {k} {cols[k][i]} brute force {v}")
    print(f"{len(st)} ligands in {n_sys} systems ({n_multi} ligands in systems of 2 or more); fit columns of "
          f"{n_fit} ligands; {bad} differences from the brute force")
    return 1 if bad or not len(st) else 0


if __name__ == "__main__":
    sys.exit(main())
