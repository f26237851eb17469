#!/usr/bin/python3
"""`make bench-read-py`, graph part (issue 34): graph batches of the Python package against a plain h5py reader
that builds the same fields per site, in the same run.

Data: a real merged file (--real). Each pass reads every site once in a seeded shuffled order, in batches of
--batch (32) sites, through a torch DataLoader (collate_fn sitepack.torch.collate_flat) with 0 and with 2 worker
processes (persistent: started once, before the timed passes). Fields: the atom features of docs/python.md
"Graphs" (positions, elements, formal_charge, aromatic, donor, acceptor, hybridization, is_ligand, backbone,
residue, residue_code, chain, b_iso, occupancy, sasa_complex), bond and interaction edges (undirected).
Backends:
  h5py_graph          a torch Dataset whose item is read with h5py per site (one slice per /atoms column, /bonds,
                      /interactions and /residues columns of the site) and its features computed in numpy: what
                      a user would write without sitepack.graph; the same items, collated by collate_flat
  sitepack_graph      SiteDataset(fields, edges): the compiled reader, a batch read at once (__getitems__)
  sitepack_graph_pure the same on Dataset(path, compiled=False)
  sitepack_points     SiteDataset(("positions", "elements")): the points-only batch, the same sites
  sitepack_graph_radius  sitepack_graph plus radius edges (4.5 Å, ligand - pocket; _fast.radius_edges)
R rounds: in each, every backend in turn makes a warm-up pass and a timed pass; the median of each backend's
timed passes. Every backend's first batches are checked equal to sitepack_graph's (the points-only one on its
two fields). Writes --out (JSON) and the .md next to it.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import read_py  # noqa: E402  (puts the build's and the source tree's package on sys.path)

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.utils.data import DataLoader  # noqa: E402

import sitepack  # noqa: E402
from sitepack import graph  # noqa: E402
from sitepack.torch import SiteDataset, collate_flat  # noqa: E402

FIELDS = ("positions", "elements", "formal_charge", "aromatic", "donor", "acceptor", "hybridization", "is_ligand",
          "backbone", "residue", "residue_code", "chain", "b_iso", "occupancy", "sasa_complex")
EDGES = ("bond", "interaction")
BACKBONE = np.array(sorted(graph.BACKBONE_ATOMS), dtype="S8")
CODES = {c.encode(): k for k, c in enumerate(graph.RESIDUE_CODES) if k}


class H5GraphDataset(torch.utils.data.Dataset):
    """The plain h5py reader: item i read from the file with h5py slices and built in numpy (the file opened once
    per process, on first use)."""

    def __init__(self, path):
        self.path = path
        self.f = None
        with h5py.File(path, "r") as f:
            self.n = len(f["sites/n_ligand"])

    def __len__(self):
        return self.n

    def open(self):
        """Open the file and every dataset the items read, once per process (h5py objects are not shared across
        fork), as a careful user would: a path lookup per read would cost as much again."""
        f = self.f = h5py.File(self.path, "r")
        self.fc = "formal_charge" if "formal_charge" in f["atoms"] else "charge"
        self.sym = [c for c in ("symop", "assembly_op") if c in f["residues"]]
        cols = {"atoms": ("position", "element", self.fc, "chem", "flags", "atom_name", "residue_idx", "b_iso",
                          "occupancy", "sasa_complex"),
                "bonds": ("atom1", "atom2", "order", "aromatic"),
                "interactions": ("lig_atom", "site_atom", "water_atom", "type", "distance"),
                "residues": tuple(["comp_id", "label_asym_id"] + self.sym)}
        self.d = {t: {c: f[f"{t}/{c}"] for c in cs} for t, cs in cols.items()}
        self.ptr = {p: f[f"sites/{p}"] for p in ("atom_ptr", "bond_ptr", "interaction_ptr", "residue_ptr", "n_ligand")}

    def __getitem__(self, i):
        if self.f is None:
            self.open()
        p, d = self.ptr, self.d
        a0, a1 = p["atom_ptr"][i:i + 2]
        nl = int(p["n_ligand"][i])
        at = {c: x[a0:a1] for c, x in d["atoms"].items()}
        at["charge_col"] = at[self.fc]
        b0, b1 = p["bond_ptr"][i:i + 2]
        bd = {c: x[b0:b1] for c, x in d["bonds"].items()}
        x0, x1 = p["interaction_ptr"][i:i + 2]
        ix = {c: x[x0:x1] for c, x in d["interactions"].items()}
        r0, r1 = p["residue_ptr"][i:i + 2]
        res = {c: x[r0:r1] for c, x in d["residues"].items()}
        return self.build(i, nl, at, bd, ix, res, r0)

    def build(self, i, nl, at, bd, ix, res, r0):
        n = len(at["element"])
        chem, flags = at["chem"], at["flags"]
        rel = at["residue_idx"] - r0
        keys = {}
        chains = np.array([keys.setdefault(k, len(keys)) for k in zip(*[res[c] for c in
                          ["label_asym_id"] + self.sym])], dtype=np.int64)
        codes = np.array([CODES.get(bytes(c), 0) for c in res["comp_id"]], dtype=np.uint8)
        it = {"positions": at["position"], "elements": at["element"], "formal_charge": at[self.fc],
              "aromatic": (chem & 8) != 0, "donor": (chem & 2) != 0, "acceptor": (chem & 4) != 0,
              "hybridization": self.hybridization(n, chem, flags, bd), "is_ligand": (flags & 1) != 0,
              "backbone": np.where((flags & 2) != 0, np.where(np.isin(at["atom_name"], BACKBONE), 1, 2), 0)
              .astype(np.uint8),
              "residue": rel, "residue_code": codes[rel], "chain": chains[rel], "b_iso": at["b_iso"],
              "occupancy": at["occupancy"], "sasa_complex": at["sasa_complex"], "n_atoms": n, "n_ligand": nl,
              "site": i}
        s, d = bd["atom1"].astype(np.int64), bd["atom2"].astype(np.int64)
        it["bond_index"] = np.stack([np.stack([s, d], 1).reshape(-1), np.stack([d, s], 1).reshape(-1)])
        it["bond_order"], it["bond_aromatic"] = np.repeat(bd["order"], 2), np.repeat(bd["aromatic"], 2)
        s, d = ix["lig_atom"].astype(np.int64), ix["site_atom"].astype(np.int64)
        it["interaction_index"] = np.stack([np.stack([s, d], 1).reshape(-1), np.stack([d, s], 1).reshape(-1)])
        it["interaction_type"], it["interaction_distance"] = np.repeat(ix["type"], 2), np.repeat(ix["distance"], 2)
        it["interaction_water"] = np.repeat(ix["water_atom"].astype(np.int64), 2)
        return it

    @staticmethod
    def hybridization(n, chem, flags, bd):
        hyb = np.where(chem & 8, 2, 0).astype(np.uint8)
        o, ar = bd["order"], bd["aromatic"] != 0
        known = (o >= 1) & (o <= 4)
        ends = np.concatenate([bd["atom1"][known], bd["atom2"][known]]).astype(np.int64)
        o2, ar2 = np.tile(o[known], 2), np.tile(ar[known], 2)
        tri = np.bincount(ends[(o2 == 3) & ~ar2], minlength=n)
        dbl = np.bincount(ends[(o2 == 2) & ~ar2], minlength=n)
        pi = np.bincount(ends[(o2 == 2) | (o2 == 4) | ar2], minlength=n)
        cnt = np.bincount(ends, minlength=n)
        h = np.where((tri > 0) | (dbl >= 2), 1, np.where(pi > 0, 2, np.where(cnt > 0, 3, 0)))
        lig = (flags & 1) != 0
        hyb[lig] = h[lig]
        return hyb


def loader(data, order, batch, workers):
    kw = dict(persistent_workers=True) if workers else {}
    return DataLoader(data, batch_size=batch, sampler=order, num_workers=workers, collate_fn=collate_flat, **kw)


def one_pass(ld):
    n = 0
    first = None
    for b in ld:
        n += len(b["site"])
        if first is None:
            first = b
    return n, first


def same(a, b, keys):
    for k in keys:
        x, y = a[k], b[k]
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.is_floating_point():
            x, y = torch.nan_to_num(x), torch.nan_to_num(y)
        if not torch.equal(x, y):
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--real", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    prov = read_py.provenance(a.build)
    prov["torch"] = torch.__version__
    ds = sitepack.open(a.real)
    pure = sitepack.Dataset(a.real, compiled=False)
    order = np.random.default_rng(a.seed).permutation(len(ds)).tolist()
    datas = {"h5py_graph": H5GraphDataset(a.real), "sitepack_graph": SiteDataset(ds, FIELDS, edges=EDGES),
             "sitepack_graph_pure": SiteDataset(pure, FIELDS, edges=EDGES),
             "sitepack_points": SiteDataset(ds, ("positions", "elements")),
             "sitepack_graph_radius": SiteDataset(ds, FIELDS, edges=EDGES, radius=4.5)}
    loaders = {(name, w): loader(d, order, a.batch, w) for w in (0, 2) for name, d in datas.items()}
    ts = {key: [] for key in loaders}
    firsts = {}
    for _ in range(a.reps):
        for key, ld in loaders.items():
            n, firsts[key] = one_pass(ld)   # warm-up (and the workers' start on the first round)
            t0 = time.perf_counter()
            n, _ = one_pass(ld)
            ts[key].append(time.perf_counter() - t0)
            print(f"bench-graph-py: {key[0]:22s} workers {key[1]}: {n / ts[key][-1]:10.0f} sites/s", file=sys.stderr)
    ref = firsts[("sitepack_graph", 0)]
    for key, b in firsts.items():
        keys = ("positions", "elements", "batch", "n_atoms", "site") if key[0] == "sitepack_points" else \
            [k for k in ref if k in b]
        if not same(ref, b, keys) or (key[0] != "sitepack_points" and set(ref) - set(b) - {"radius_index"}):
            raise SystemExit(f"bench-graph-py: {key} read a different first batch than sitepack_graph")
    rows = []
    for (name, w), t in ts.items():
        med = float(np.median(t))
        rows.append({"backend": name, "workers": w, "sites": len(order), "batch": a.batch, "median_s": med,
                     "min_s": min(t), "max_s": max(t), "sites_per_s": len(order) / med})
    rate = {(r["backend"], r["workers"]): r["sites_per_s"] for r in rows}
    ratios = {f"workers_{w}": {"graph_vs_h5py": rate[("sitepack_graph", w)] / rate[("h5py_graph", w)],
                               "graph_pure_vs_h5py": rate[("sitepack_graph_pure", w)] / rate[("h5py_graph", w)],
                               "graph_cost_vs_points": rate[("sitepack_points", w)] / rate[("sitepack_graph", w)],
                               "graph_radius_vs_h5py": rate[("sitepack_graph_radius", w)] / rate[("h5py_graph", w)]}
              for w in (0, 2)}
    prov["load_after"] = list(os.getloadavg())
    j = {"benchmark": "bench-graph-py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "provenance": prov,
         "method": {"real": a.real, "n_sites": len(ds), "batch": a.batch, "reps": a.reps, "seed": a.seed,
                    "fields": FIELDS, "edges": EDGES, "description": __doc__.split("\n", 2)[2].strip()},
         "reads": rows, "ratios": ratios}
    with open(a.out, "w") as fh:
        json.dump(j, fh, indent=1)
    write_md(j, os.path.splitext(a.out)[0] + ".md")
    print(f"bench-graph-py: wrote {a.out}", file=sys.stderr)


def write_md(j, path):
    p = j["provenance"]
    L = [f"# bench-read-py, graph batches {j['date']}", "",
         f"`make bench-read-py` (bench/graph_py.py; git {p['git_sha']}, host {p['host']}, {p['cores']} cores, load "
         f"{p['load_before'][0]:.2f} before / {p['load_after'][0]:.2f} after; Python {p['python']}, numpy "
         f"{p['numpy']}, h5py {p['h5py']}, HDF5 {p['hdf5']}, torch {p['torch']}; compiled reader: "
         f"{'yes' if p['compiled_reader'] else 'no'}). {j['method']['n_sites']} sites of {j['method']['real']}, "
         f"batches of {j['method']['batch']}, median of {j['method']['reps']} passes.", "",
         "| backend | DataLoader workers | sites/s | median s | vs h5py_graph |", "|---|---|---|---|---|"]
    rate = {(r["backend"], r["workers"]): r["sites_per_s"] for r in j["reads"]}
    for r in j["reads"]:
        L.append(f"| {r['backend']} | {r['workers']} | {r['sites_per_s']:,.0f} | {r['median_s']:.3f} | "
                 f"{r['sites_per_s'] / rate[('h5py_graph', r['workers'])]:.1f}x |")
    L += ["", "| workers | sitepack_graph / h5py_graph (target >= 20) | pure / h5py_graph | graph cost / points-only "
          "(target <= 2) | with radius / h5py_graph |", "|---|---|---|---|---|"]
    for w, r in j["ratios"].items():
        L.append(f"| {w[-1]} | {r['graph_vs_h5py']:.1f} | {r['graph_pure_vs_h5py']:.1f} | "
                 f"{r['graph_cost_vs_points']:.2f} | {r['graph_radius_vs_h5py']:.1f} |")
    L += ["", "Method: " + j["method"]["description"].replace("\n", " "), ""]
    with open(path, "w") as fh:
        fh.write("\n".join(L))


if __name__ == "__main__":
    main()
