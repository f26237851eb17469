#!/usr/bin/python3
"""Graph-ready samples (issue 34; issue 39 item 6): sitepack.graph.graph_batch, SiteDataset's graph options and
collate_flat, against a per-site read written here from the Site API alone (site.atoms, site.bonds,
site.interactions, site.residues; Python loops, no code of sitepack.graph), on every site of a merged file.

- every site: each atom feature equals the per-site read; its bond and interaction edges name the same atom
  pairs with the same attributes; its radius edges are the pairs within r by numpy.linalg.norm (pairs within
  1e-4 Å of r may differ: another rounding); the same with heavy_only (no hydrogen left, n_atoms the heavy atoms,
  every edge renumbered to the kept atoms);
- random index sets (duplicates, shuffled, one site): sample k of the batch minus its offset equals the
  per-site read, every edge lies inside its sample and its S_batch is its sample, the compiled path
  (sitepack._fast.radius_edges) and the pure-Python one give identical batches, the batch read at once
  (GraphItems) equals the collated list of items, and torch_geometric's collate rule (keys with "index" shifted
  by the number of nodes so far, cat on the last dimension) gives the same edge indices;
- edge cases: an ion (no bond), a site without interactions, a one-atom item, a batch of one, a DataLoader with
  num_workers=2 and shuffle, a wrong-length field and an edge outside its sample refused with an error naming
  the field, bad options refused;
- docs/python.md's message-passing example runs one forward and backward pass (finite loss, every weight has a
  gradient).

usage: test_py_graph.py MERGED.h5 DOCS_PYTHON_MD [--all | --sample N]  (--all: every site, default; --sample N:
N random sites and every site with hydrogens)
"""
import os
import re
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader

import sitepack
from sitepack import graph
from sitepack.torch import GraphItems, SiteDataset, collate_flat

FAILS = []
R = 4.5
FEATURES = tuple(graph.ATOM_FEATURES)


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL:", msg, file=sys.stderr)
    return cond


# ---- the per-site read (Site API, loops) ----

def ref_chains(res, have):
    keys, out = {}, []
    for r in res:
        k = (bytes(r["label_asym_id"]),) + tuple(bytes(r[c]) for c in ("symop", "assembly_op") if c in have)
        out.append(keys.setdefault(k, len(keys)))
    return np.array(out, dtype=np.int64)


def ref_hybridization(site, n, chem, flags):
    hyb = np.where(chem & 8, 2, 0)
    per = [[] for _ in range(n)]
    for bd in site.bonds:
        for a in (int(bd["atom1"]), int(bd["atom2"])):
            per[a].append((int(bd["order"]), int(bd["aromatic"])))
    for a in range(n):
        if not flags[a] & 1:
            continue
        known = [(o, ar) for o, ar in per[a] if 1 <= o <= 4]
        doubles = sum(1 for o, ar in known if o == 2 and not ar)
        if any(o == 3 and not ar for o, ar in known) or doubles >= 2:
            hyb[a] = 1
        elif any(o in (2, 4) or ar for o, ar in known):
            hyb[a] = 2
        else:
            hyb[a] = 3 if known else 0
    return hyb.astype(np.uint8)


def ref_site(ds, i, heavy_only=False, radius=R, mode="ligand"):
    """Site i as a graph sample, from the Site API: (features dict, {set: sorted list of edge tuples}, n, n_lig)."""
    s = ds[i]
    n = s.n_atoms
    flags = s.flags
    chem = s.atoms("chem")
    res = s.residues
    have = res.dtype.names
    rel = s.atoms("residue_idx") - s.site_value("residue_ptr")
    codes = {c.encode(): k for k, c in enumerate(graph.RESIDUE_CODES) if k}
    poly = (flags & 2) != 0
    names = s.atoms("atom_name")
    fc = "formal_charge" if "atoms/formal_charge" in ds._cols else "charge"
    f = {"positions": s.positions, "elements": s.elements, "formal_charge": s.atoms(fc),
         "aromatic": (chem & 8) != 0, "donor": (chem & 2) != 0, "acceptor": (chem & 4) != 0,
         "hybridization": ref_hybridization(s, n, chem, flags), "is_ligand": np.arange(n) < s.n_ligand,
         "backbone": np.array([0 if not p else 1 if bytes(x) in graph.BACKBONE_ATOMS else 2
                               for p, x in zip(poly, names)], dtype=np.uint8),
         "residue": rel, "residue_code": np.array([codes.get(bytes(res["comp_id"][r]), 0) for r in rel], np.uint8),
         "chain": ref_chains(res, have)[rel], "b_iso": s.atoms("b_iso"), "occupancy": s.atoms("occupancy"),
         "sasa_free": s.atoms("sasa_free"), "sasa_complex": s.atoms("sasa_complex"), "flags": flags}
    check(np.array_equal(f["is_ligand"], (flags & 1) != 0), f"site {i}: ligand rows are not the flagged ones")
    keep = np.ones(n, bool) if not heavy_only else (flags & 32) == 0
    new = np.cumsum(keep) - 1
    f = {k: v[keep] for k, v in f.items()}
    edges = {"bond": [], "interaction": [], "radius": []}
    for bd in s.bonds:
        a, b = int(bd["atom1"]), int(bd["atom2"])
        if keep[a] and keep[b]:
            for x, y in ((a, b), (b, a)):
                edges["bond"].append((int(new[x]), int(new[y]), int(bd["order"]), int(bd["aromatic"])))
    for ix in s.interactions:
        a, b, w = int(ix["lig_atom"]), int(ix["site_atom"]), int(ix["water_atom"])
        if keep[a] and keep[b] and (w < 0 or keep[w]):
            wn = int(new[w]) if w >= 0 else -1
            for x, y in ((a, b), (b, a)):
                edges["interaction"].append((int(new[x]), int(new[y]), int(ix["type"]), float(ix["distance"]), wn))
    pos = f["positions"].astype(np.float64)
    nl = int(keep[:s.n_ligand].sum())
    d = np.linalg.norm(pos[:, None, :] - pos[None, :, :], axis=2)
    a_, b_ = np.nonzero(np.triu(d <= R + 1e-4, 1))
    near = [(int(a), int(b), float(d[a, b])) for a, b in zip(a_, b_) if mode == "all" or a < nl <= b]
    edges["radius"] = near
    return f, edges, int(keep.sum()), nl


def sample_edges(it, name):
    e = it[f"{name}_index"]
    if name == "bond":
        return [(int(a), int(b), int(o), int(r)) for a, b, o, r in zip(e[0], e[1], it["bond_order"],
                                                                           it["bond_aromatic"])]
    if name == "interaction":
        return [(int(a), int(b), int(t), float(d), int(w)) for a, b, t, d, w in
                zip(e[0], e[1], it["interaction_type"], it["interaction_distance"], it["interaction_water"])]
    return [(int(a), int(b), float(d)) for a, b, d in zip(e[0], e[1], it["radius_distance"])]


def compare_radius(tag, got, ref):
    """got: (i, j, d) both directions; ref: (i, j, d) i < j by norm, with the 1e-4 margin."""
    fwd = {(a, b): d for a, b, d in got if a < b}
    back = {(b, a) for a, b, d in got if a > b}
    ok = check(set(fwd) == back, f"{tag}: radius edges not each in both directions")
    want = {(a, b) for a, b, d in ref if d <= R - 1e-4}
    maybe = {(a, b) for a, b, d in ref}
    ok &= check(want <= set(fwd) <= maybe, f"{tag}: radius pairs {sorted(set(fwd) ^ want)[:4]} differ from norm")
    dref = {(a, b): d for a, b, d in ref}
    bad = [k for k, d in fwd.items() if k in dref and abs(d - dref[k]) > 1e-4]
    return ok & check(not bad, f"{tag}: radius distances differ at {bad[:3]}")


def compare_sample(tag, it, ref, mode="ligand"):
    f, edges, n, nl = ref
    ok = check(it["n_atoms"] == n and it["n_ligand"] == nl, f"{tag}: n_atoms/n_ligand {it['n_atoms']}/"
               f"{it['n_ligand']}, per-site read {n}/{nl}")
    for k, v in f.items():
        got = it[k]
        same = got.dtype == v.dtype and got.shape == v.shape and np.array_equal(got, v, equal_nan=got.dtype.kind == "f")
        ok &= check(same, f"{tag}: feature {k} differs from the per-site read")
    for name in ("bond", "interaction"):
        ok &= check(sample_edges(it, name) == edges[name], f"{tag}: {name} edges differ from the per-site read")
    ok &= compare_radius(tag, sample_edges(it, "radius"), edges["radius"])
    for name in ("bond", "interaction", "radius"):
        e = it[f"{name}_index"]
        ok &= check(e.dtype == np.int64 and e.ndim == 2 and e.shape[0] == 2, f"{tag}: {name}_index {e.dtype} {e.shape}")
    return ok


KW = dict(fields=FEATURES, edges=("bond", "interaction"), radius=R)


# ---- checks ----

def check_every_site(ds, sites, heavy_only):
    tag = "heavy" if heavy_only else "all"
    bad = 0
    for start in range(0, len(sites), 64):
        chunk = sites[start:start + 64]
        batch = graph.graph_batch(ds, chunk, heavy_only=heavy_only, **KW)
        for k, it in enumerate(graph.split_batch(batch)):
            i = int(chunk[k])
            if not compare_sample(f"{tag} site {i}", it, ref_site(ds, i, heavy_only)):
                bad += 1
                if bad > 5:
                    return
            if heavy_only:
                check(not (it["flags"] & 32).any(), f"heavy site {i}: a hydrogen is left")
    print(f"  {len(sites)} sites ({tag} atoms) equal to the per-site read")


def check_inside(tag, b):
    """Every edge of a (collated or numpy) batch lies in its sample, and S_batch is that sample."""
    off, batch = np.asarray(b["offsets"]), np.asarray(b["batch"])
    for s in ("bond", "interaction", "radius"):
        e, eb = np.asarray(b[f"{s}_index"]), np.asarray(b[f"{s}_batch"])
        inside = (e >= off[eb]) & (e < off[eb + 1])
        check(inside.all() and (batch[e[0]] == eb).all() and (batch[e[1]] == eb).all(),
              f"{tag}: a {s} edge outside its sample")
    w = np.asarray(b["interaction_water"])
    wb = np.asarray(b["interaction_batch"])[w >= 0]
    check(((w[w >= 0] >= off[wb]) & (w[w >= 0] < off[wb + 1])).all(), f"{tag}: a water outside its sample")


def pyg_rule(items):
    """torch_geometric's Batch.from_data_list for the keys holding "index": shifted by the nodes before, cat -1."""
    out, n0 = {}, 0
    for it in items:
        for k, v in it.items():
            if "index" in k:
                out.setdefault(k, []).append(torch.as_tensor(v) + n0)
        n0 += it["n_atoms"]
    return {k: torch.cat(v, dim=-1) for k, v in out.items()}


def equal_batches(a, b):
    if set(a) != set(b):
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, torch.Tensor):
            if not (isinstance(y, torch.Tensor) and x.dtype == y.dtype and x.shape == y.shape and
                    torch.equal(torch.nan_to_num(x) if x.is_floating_point() else x,
                                torch.nan_to_num(y) if y.is_floating_point() else y)):
                return False
        elif not (x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind == "f")):
            return False
    return True


def check_index_sets(path, ds, rng):
    pure = sitepack.Dataset(path, compiled=False)
    sd = SiteDataset(ds, **KW)
    sdp = SiteDataset(pure, **KW)
    n = len(ds)
    sets = [rng.integers(0, n, 32), rng.permutation(n)[:7], np.array([int(rng.integers(0, n))] * 3),
            np.array([int(rng.integers(0, n))]), rng.integers(-n, n, 16)]
    for j, idx in enumerate(sets):
        tag = f"index set {j} {idx[:4].tolist()}..."
        b = collate_flat(sd.__getitems__(idx))
        check(equal_batches(b, collate_flat(sdp.__getitems__(idx))), f"{tag}: compiled and pure-Python batches differ")
        items = [sd[int(k)] for k in idx]
        check(equal_batches(b, collate_flat(items)), f"{tag}: the batch read at once differs from the items collated")
        check(equal_batches(b, collate_flat([sdp[int(k)] for k in idx])), f"{tag}: pure-Python items differ")
        rule = pyg_rule(items)
        check(all(torch.equal(rule[k], b[k]) for k in rule) and set(rule) >= {"bond_index", "interaction_index",
              "radius_index"}, f"{tag}: edge indices differ from torch_geometric's collate rule")
        check_inside(tag, b)
        check(all(b[f"{s}_index"].dtype == torch.int64 and b[f"{s}_index"].shape[0] == 2 and
                  b[f"{s}_batch"].dtype == torch.int64 for s in ("bond", "interaction", "radius")) and
              b["batch"].dtype == torch.int64 and b["elements"].dtype == torch.int64, f"{tag}: dtypes")
        gi = sd.__getitems__(idx)
        off = b["offsets"].numpy()
        for k, i in enumerate(idx):
            it = gi[k]
            site = int(i) % n
            check(it["site"] == site, f"{tag}: item {k} is site {it['site']}, expected {site}")
            if k < 4:
                compare_sample(f"{tag} sample {k}", it, ref_site(ds, site))
            # sample k of the collated batch, minus its offset, is the item
            e = b["bond_index"].numpy()[:, b["bond_batch"].numpy() == k] - off[k]
            check(np.array_equal(e, it["bond_index"]), f"{tag}: sample {k}'s bonds minus its offset")
    for mode in ("ligand", "all"):
        idx = rng.permutation(n)[:24]
        a = graph.graph_batch(ds, idx, fields=("positions",), edges=(), radius=R, radius_mode=mode, heavy_only=True)
        p = graph.graph_batch(pure, idx, fields=("positions",), edges=(), radius=R, radius_mode=mode, heavy_only=True)
        check(all(np.array_equal(a[k], p[k]) for k in a), f"radius {mode}: compiled and pure-Python differ")
    idx = rng.permutation(n)[:5]
    allb = graph.split_batch(graph.graph_batch(ds, idx, fields=("positions",), edges=(), radius=R, radius_mode="all"))
    for k, i in enumerate(idx):
        compare_radius(f"radius all site {i}", sample_edges(allb[k], "radius"),
                       ref_site(ds, int(i), mode="all")[1]["radius"])
    print(f"  {len(sets)} index sets: compiled = pure = items collated = per-site read; torch_geometric's rule")


def check_edge_cases(ds, path):
    sd = SiteDataset(ds, **KW)
    nb = np.diff(ds.column("sites/bond_ptr"))
    ni = np.diff(ds.column("sites/interaction_ptr"))
    ion = ds.select(ligand_class="ion")
    ion = [int(i) for i in ion if nb[i] == 0]
    if check(ion, "no ion site without bonds"):
        it = sd.__getitems__([ion[0]])[0]
        check(it["bond_index"].shape == (2, 0) and it["bond_order"].shape == (0,) and it["n_ligand"] == 1,
              f"ion site {ion[0]}: bond_index {it['bond_index'].shape}")
    quiet = np.flatnonzero(ni == 0)
    if check(len(quiet), "no site without interactions"):
        b = collate_flat([sd[int(quiet[0])], sd[int(quiet[-1])]])
        check(b["interaction_index"].shape == (2, 0) and b["interaction_batch"].shape == (0,),
              "sites without interactions: an interaction edge")
    one = {"positions": np.zeros((1, 3), np.float32), "elements": np.array([30], np.uint8), "n_atoms": 1,
           "n_ligand": 1, "site": 0, "bond_index": np.zeros((2, 0), np.int64), "bond_order": np.zeros(0, np.uint8)}
    b = collate_flat([one, dict(one, site=1)])
    check(b["batch"].tolist() == [0, 1] and b["bond_index"].shape == (2, 0) and b["offsets"].tolist() == [0, 1, 2],
          "two one-atom items")
    # a wrong-length field, an edge attribute of the wrong length, an edge outside its sample: refused by name
    it = sd[int(np.flatnonzero(nb)[0])]
    for bad, name in ((dict(it, extra=np.zeros(it["n_atoms"] + 1)), "extra"),
                      (dict(it, bond_order=it["bond_order"][:-1]), "bond_order"),
                      (dict(it, bond_index=it["bond_index"] + it["n_atoms"]), "bond_index"),
                      (dict(it, radius_index=it["radius_index"][0]), "radius_index")):
        try:
            collate_flat([it, bad])
            check(False, f"a wrong {name} was not refused")
        except ValueError as e:
            check(repr(name) in str(e) or name in str(e), f"the error for {name} does not name it: {e}")
    sdt = SiteDataset(ds, transform=lambda x: dict(x, oops=np.zeros(3)), **KW)
    try:
        collate_flat(sdt.__getitems__([0, 1]))
        check(False, "a transform's wrong-length field was not refused")
    except ValueError as e:
        check("'oops'" in str(e), f"transform field: {e}")
    for kw, what in ((dict(edges=("bonds",)), "edge set"), (dict(radius=-1), "radius"),
                     (dict(radius=4, radius_mode="pocket"), "mode"), (dict(fields=("residue_index",)), "field")):
        try:
            SiteDataset(ds, **kw)
            check(False, f"bad {what} {kw} accepted")
        except ValueError:
            pass
    # DataLoader: 2 workers, shuffled: every site once, each batch equal to graph_batch of its sites
    g = torch.Generator()
    g.manual_seed(5)
    sub = SiteDataset(path, indices=np.arange(min(len(ds), 200)), heavy_only=True, **KW)
    seen = []
    for b in DataLoader(sub, batch_size=32, shuffle=True, num_workers=2, collate_fn=collate_flat, generator=g):
        sites = b["site"].numpy()
        seen += sites.tolist()
        ref = {k: collate_flat(GraphItems(graph.graph_batch(ds, sites, heavy_only=True, **KW)))[k] for k in b}
        check(equal_batches(b, ref), f"DataLoader batch {sites[:3].tolist()}...: differs from graph_batch")
        check(not (b["flags"] & 32).any(), "DataLoader heavy_only: a hydrogen")
        check_inside("DataLoader batch", b)
    check(sorted(seen) == list(range(len(sub))), "DataLoader: not every site once")
    # formal_charge: /atoms/formal_charge when the file has it (here put in place of a file that has it), else charge
    fds = sitepack.open(path)
    fake = (fds._cols["atoms/charge"].astype(np.int16) + 3).astype(np.int8)
    fds._cols = dict(fds._cols, **{"atoms/formal_charge": fake})
    got = graph.graph_batch(fds, [0, 1], fields=("formal_charge",), edges=())["formal_charge"]
    rows = np.r_[fds._ap[0]:fds._ap[1], fds._ap[1]:fds._ap[2]]
    check(np.array_equal(got, fake[rows]), "formal_charge does not read /atoms/formal_charge when the file has it")
    # heavy_only on points: the plain fields without hydrogens
    hs = [i for i in range(len(ds)) if (ds[i].flags & 32).any()]
    if hs:
        it = SiteDataset(ds, fields=("positions",), heavy_only=True)[hs[0]]
        s = ds[hs[0]]
        check(np.array_equal(it["positions"], s.positions[(s.flags & 32) == 0]), "heavy_only points")
    print(f"  edge cases: ion site {ion[:1]}, {len(quiet)} sites without interactions, one-atom items, refusals, "
          f"DataLoader (2 workers, shuffled, heavy_only), {len(hs)} sites with hydrogens")
    return hs


def check_rdkit_carbons(ds):
    """hybridization of the ligand carbons = RDKit's GetHybridization of site.to_rdkit() (the same /bonds, read by
    RDKit's own perception), where ours is known (not 0: bonds of unknown order, which to_rdkit makes single)."""
    from rdkit import Chem, RDLogger
    RDLogger.DisableLog("rdApp.*")
    code = {Chem.HybridizationType.SP: 1, Chem.HybridizationType.SP2: 2, Chem.HybridizationType.SP3: 3}
    tot, bad, unknown = 0, [], 0
    hyb = graph.graph_batch(ds, np.arange(len(ds)), fields=("hybridization",), edges=())
    for i in range(len(ds)):
        s = ds[i]
        try:
            m = s.to_rdkit()
        except Exception:   # noqa: BLE001 -- a ligand RDKit rejects (test_py_bonds counts them)
            continue
        h = hyb["hybridization"][hyb["offsets"][i]:hyb["offsets"][i] + s.n_ligand]
        for a in m.GetAtoms():
            if a.GetAtomicNum() != 6:
                continue
            # the ligand atom of the Mol's atom: to_rdkit leaves out hydrogens of linked atoms (docs/python.md
            # to_rdkit, property ligand_atom), so Mol indices and ligand offsets differ after the first one
            k = a.GetIntProp("ligand_atom") if a.HasProp("ligand_atom") else a.GetIdx()
            if h[k] == 0:
                unknown += 1
                continue
            tot += 1
            if code.get(a.GetHybridization(), 0) != h[k]:
                bad.append((i, k, str(a.GetHybridization()), int(h[k])))
    check(tot > 0 and not bad, f"hybridization: {len(bad)} of {tot} ligand carbons differ from RDKit: {bad[:5]}")
    print(f"  hybridization of {tot} ligand carbons = RDKit's ({unknown} of unknown bond orders not compared)")


def check_public_names(md):
    """docs/python.md names every public name of the package (issue 39 item 7)."""
    import sitepack.torch as spt
    text = open(md).read()
    names = set(sitepack.__all__) | set(graph.__all__) | set(spt.__all__)
    names |= {n for cls in (sitepack.Dataset, sitepack.Site) for n in dir(cls) if not n.startswith("_")}
    missing = sorted(n for n in names if f"`{n}" not in text and f".{n}`" not in text and f"{n}(" not in text)
    check(not missing, f"docs/python.md does not name {missing}")
    print(f"  docs/python.md names all {len(names)} public names")


def check_docs_example(md, path):
    text = open(md).read()
    sec = text[text.index("### A tiny message-passing model"):]
    code = re.search(r"```python\n(.*?)```", sec, re.S).group(1)
    code = code.replace('"out/demo.h5"', repr(path))
    env = {}
    exec(compile(code, "docs/python.md", "exec"), env)
    model, loss = env["model"], env["loss"]
    check(torch.isfinite(loss).item(), f"docs example: loss {loss}")
    check(all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters()),
          "docs example: a weight without a finite gradient")
    print(f"  docs/python.md's message-passing example: loss {loss.item():.4f}, gradients on every weight")


def main():
    path, md = sys.argv[1], sys.argv[2]
    ds = sitepack.open(path)
    if os.environ.get("SITEPACK_EXPECT_COMPILED", "") in ("ON", "1", "TRUE"):
        check(ds.compiled, "the compiled reader was built but does not serve the dataset")
    rng = np.random.default_rng(34)
    hs = check_edge_cases(ds, path)
    check_index_sets(path, ds, rng)
    if "--sample" in sys.argv:
        k = int(sys.argv[sys.argv.index("--sample") + 1])
        sites = np.union1d(rng.permutation(len(ds))[:k], hs).astype(np.int64)
    else:
        sites = np.arange(len(ds))
    check_every_site(ds, sites, False)
    check_every_site(ds, sites, True)
    check_rdkit_carbons(ds)
    check_public_names(md)
    check_docs_example(md, path)
    if FAILS:
        print(f"test_py_graph: {len(FAILS)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print(f"test_py_graph: all checks passed ({len(ds)} sites in the file)")


if __name__ == "__main__":
    main()
