"""Graph-ready samples of sites: atom features, ligand bond edges, interaction edges and radius edges, built for a
whole batch of sites at once (numpy, no Python loop per site but the pure path's radius edges; docs/python.md
"Graphs"). ``sitepack.torch.SiteDataset`` and ``collate_flat`` hand them to PyTorch; this module needs numpy only.

Conventions (those of torch_geometric, which is not needed): an edge set S is ``S_index`` (2, E) int64, row 0
the source atom, row 1 the target, atom rows of the sample (of the batch, once collated: shifted by the sample's
atom offset); its attributes ``S_<name>`` have one row per edge; ``directed=False`` gives each edge twice, (i, j)
then (j, i), next to each other, with the same attributes."""

import numpy as np

from .dataset import _fast, _gather_rows, _take_rows

#: edge sets a graph sample can carry, and the attributes of each (``S_index`` (2, E) plus ``S_<attr>`` (E,))
EDGE_SETS = {"bond": ("order", "aromatic"), "interaction": ("type", "distance", "water"), "radius": ("distance",)}
#: edge attributes that hold atom rows (-1: none), shifted like ``S_index`` where >= 0 when samples are batched
INDEX_ATTRIBUTES = ("interaction_water",)
#: radius edge modes: ``"ligand"`` ligand atom -> non-ligand atom of the site, ``"all"`` every pair i < j
RADIUS_MODES = ("ligand", "all")

#: /residues/comp_id codes of the ``residue_code`` feature: the index in this tuple, 0 any other comp_id (ligands,
#: modified residues, other ligands, ions); the 20 standard amino acids, UNK, the RNA and DNA nucleotides, water
RESIDUE_CODES = ("other", "ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU", "LYS", "MET",
                 "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL", "UNK", "A", "C", "G", "U", "DA", "DC", "DG", "DT",
                 "HOH")

#: atom names (``label_atom_id``) of the polymer backbone (``backbone`` feature 1; other polymer atoms 2, side
#: chain): amino acids N CA C O OXT and their H (H H2 H3 HA HA2 HA3, HXT); nucleotides the phosphate and sugar
#: (P OP1 OP2 OP3 O5' C5' C4' O4' C3' O3' C2' O2' C1', their H), PDB's chemical component naming
BACKBONE_ATOMS = frozenset(
    b"N CA C O OXT H H1 H2 H3 HA HA2 HA3 HXT P OP1 OP2 OP3 O5' C5' C4' O4' C3' O3' C2' O2' C1' H5' H5'' H4' H3' "
    b"H2' H2'' H1' HO2' HO3' HOP2 HOP3".split())

#: ``hybridization`` codes: from the ligand atom's bonds in /bonds (the CCD's bond orders, docs/format.md "/bonds"):
#: 1 sp (a triple bond, or two double bonds), 2 sp2 (a double, aromatic or order-4 bond), 3 sp3 (single bonds
#: only); 0 unknown (no bond of known order: an ion, bonds from distances or metal links only). Non-ligand atoms:
#: 2 for aromatic ring atoms (/atoms/chem bit 3), else 0
HYBRIDIZATION = {0: "unknown", 1: "sp", 2: "sp2", 3: "sp3"}

#: the atom features a sample can carry, by name: (dtype, meaning); any other /atoms column is taken as it is by
#: its dataset name (``"charge_ph"``, ``"pka"``, ``"atom_name"``, ...)
ATOM_FEATURES = {
    "positions": ("(A, 3) float32", "Cartesian coordinates, Å (/atoms/position)"),
    "elements": ("uint8", "atomic number, 0 unknown (/atoms/element)"),
    "formal_charge": ("int8", "formal charge, e: /atoms/formal_charge when the file has it, else /atoms/charge"),
    "aromatic": ("bool", "aromatic ring atom (/atoms/chem bit 3)"),
    "donor": ("bool", "H-bond donor at the site's pH (/atoms/chem bit 1)"),
    "acceptor": ("bool", "H-bond acceptor at the site's pH (/atoms/chem bit 2)"),
    "hybridization": ("uint8", "HYBRIDIZATION code: ligand atoms from /bonds, others 2 aromatic or 0"),
    "is_ligand": ("bool", "atom of the site's ligand (/atoms/flags bit 0; the first n_ligand rows)"),
    "backbone": ("uint8", "0 not a polymer atom, 1 polymer backbone (BACKBONE_ATOMS), 2 side chain"),
    "residue": ("int64", "row of the atom's residue in the site's /residues block (0: the ligand's first)"),
    "residue_code": ("uint8", "RESIDUE_CODES index of the residue's comp_id, 0 other"),
    "chain": ("int64", "chain of the residue in the site, 0.. by first appearance in the site's residues "
                    "(label_asym_id, with symop and assembly_op when the file has them: an image is its own chain)"),
    "b_iso": ("float32", "isotropic B factor, Å² (/atoms/b_iso)"),
    "occupancy": ("float32", "occupancy, 0..1 (/atoms/occupancy)"),
    "sasa_free": ("float32", "Å², ligand heavy atoms: SASA of the ligand alone; NaN for other atoms"),
    "sasa_complex": ("float32", "Å², ligand heavy atoms: SASA in the complex; NaN for other atoms"),
    "flags": ("uint16", "atom flag bits, sitepack.ATOM_FLAGS (/atoms/flags)"),
}



def _backbone_table():
    """BACKBONE_ATOMS as a hash table of their S8 bytes read as one uint64 (NUL-padded, as /atoms/atom_name
    holds them): (multiplier, table of 1024 keys) with slot (key * multiplier) >> 54 free of collisions; the
    first odd multiplier of a fixed sequence that gives none."""
    keys = np.array(sorted(BACKBONE_ATOMS), dtype="S8").view("<u8")
    m = np.uint64(0x9E3779B97F4A7C15)
    for _ in range(1000):
        slot = (keys * m) >> np.uint64(54)
        if len(np.unique(slot)) == len(keys):
            table = np.full(1024, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)   # no S8 name is 8 x 0xff
            table[slot] = keys
            return m, table
        m = m + np.uint64(2)
    raise AssertionError("no collision-free multiplier for BACKBONE_ATOMS")


_BACKBONE_M, _BACKBONE_TABLE = _backbone_table()
_HYDROGEN = 32   # ATOM_FLAGS["hydrogen"]
_CHEM_BITS = {"aromatic": 8, "donor": 2, "acceptor": 4}
#: the /atoms columns each derived feature reads (batch rows gathered once per column); "=name": a column of the
#: whole file derived once per Dataset (_derived_column)
_NEEDS = {"positions": ("position",), "elements": ("element",), "aromatic": ("chem",), "donor": ("chem",),
          "acceptor": ("chem",), "hybridization": ("=hybridization",), "is_ligand": ("flags",), "flags": ("flags",),
          "backbone": ("=backbone",), "residue": ("residue_idx",), "residue_code": ("residue_idx",),
          "chain": ("residue_idx",)}


def _formal_charge_column(ds):
    return "formal_charge" if "atoms/formal_charge" in ds._cols else "charge"


def _columns_of(ds, fields, heavy_only, radius):
    """The /atoms columns the batch reads, each once: those of @p fields, flags for heavy_only, positions for
    radius edges."""
    cols = []
    for f in fields:
        need = _NEEDS.get(f, (_formal_charge_column(ds),) if f == "formal_charge" else (f,))
        cols.extend(c for c in need if c not in cols)
    for c, on in (("flags", heavy_only), ("position", radius is not None)):
        if on and c not in cols:
            cols.append(c)
    return cols


class _Batch:
    """The rows of one graph batch while it is built: sites idx, their atom rows (offsets), the gathered /atoms
    columns (cols), and, with heavy_only, the map from block rows to kept rows."""

    def __init__(self, ds, idx, columns):
        self.ds, self.idx = ds, idx
        arrays = [_derived_column(ds, c[1:]) if c[0] == "=" else ds._column("atoms", c) for c in columns]
        n, offsets, arrays = ds._atom_rows(idx, arrays)
        self.cols = dict(zip(columns, arrays))
        self.n, self.offsets = n, offsets
        self.n_ligand = ds._nlig_mem[idx].astype(np.int64)
        self.keep = None   # bool (A,) of the block rows kept, None: all
        self.remap = None  # int64 (A,): a kept block row's row in the batch

    def drop_hydrogens(self):
        """heavy_only: leave out the atoms of ATOM_FLAGS hydrogen, recount n, offsets and n_ligand."""
        keep = (self.cols["flags"] & _HYDROGEN) == 0
        site = np.repeat(np.arange(len(self.idx)), self.n)
        in_lig = np.arange(len(keep)) - np.repeat(self.offsets[:-1], self.n) < np.repeat(self.n_ligand, self.n)
        k = len(self.idx)
        self.n_ligand = np.bincount(site[keep & in_lig], minlength=k).astype(np.int64)
        self.n = np.bincount(site[keep], minlength=k).astype(np.int64)
        self.offsets = np.zeros(k + 1, dtype=np.int64)
        np.cumsum(self.n, out=self.offsets[1:])
        self.remap = np.cumsum(keep) - 1
        self.keep = keep
        return keep

    def rows(self, table, ptr, columns):
        """The rows of /@p table of the batch's sites (CSR pointer /sites/@p ptr): (per-site counts (k,),
        {column: values concatenated in request order}). MissingTableError when the file has no such table."""
        p = self.ds._column("sites", ptr)
        r0 = p[self.idx]
        cnt = p[self.idx + 1] - r0
        off = np.zeros(len(cnt) + 1, dtype=np.int64)
        np.cumsum(cnt, out=off[1:])
        take = _gather_rows(r0, cnt, off)
        vals = {c: _take_rows(self.ds._column(table, c), take) for c in columns}
        return cnt, vals


def _cache(ds):
    """The Dataset's cache of per-residue graph columns (residue codes, chain indices), made on first use."""
    c = getattr(ds, "_graph_cache", None)
    if c is None:
        c = ds._graph_cache = {}
    return c


def _residue_codes(ds):
    """(R,) uint8 RESIDUE_CODES code of every /residues row (computed once per Dataset)."""
    codes = _cache(ds).get("residue_code")
    if codes is None:
        names, inv = np.unique(ds._cols["residues/comp_id"], return_inverse=True)
        lut = {c.encode(): k for k, c in enumerate(RESIDUE_CODES) if k}
        codes = np.array([lut.get(bytes(x), 0) for x in names], dtype=np.uint8)[inv]
        ds._graph_cache["residue_code"] = codes
    return codes


def _residue_chains(ds):
    """(R,) int64: each /residues row's chain index in its site (chain), computed once per Dataset: the
    distinct (site_idx, label_asym_id[, symop][, assembly_op]) keys numbered 0.. within each site by the row of
    their first residue."""
    ch = _cache(ds).get("chain")
    if ch is None:
        cols = ["site_idx", "label_asym_id"] + [c for c in ("symop", "assembly_op") if f"residues/{c}" in ds._cols]
        parts = [np.ascontiguousarray(ds._cols[f"residues/{c}"]) for c in cols]
        key = np.empty(len(parts[0]), dtype=[(c, p.dtype) for c, p in zip(cols, parts)])
        for c, p in zip(cols, parts):
            key[c] = p
        _, first, inv = np.unique(key.view(np.dtype((np.void, key.dtype.itemsize))), return_index=True,
                                  return_inverse=True)
        order = np.argsort(first, kind="stable")          # keys by first residue: sites in order
        site = parts[0][first[order]]
        start = np.searchsorted(site, site, side="left")  # the first key of each key's site
        rank = np.empty(len(first), dtype=np.int64)
        rank[order] = np.arange(len(first)) - start
        ch = ds._graph_cache["chain"] = rank[inv.reshape(-1)]
    return ch


def _derived_column(ds, name):
    """A derived column of the whole file, (A_file,) uint8, made once per Dataset on first use (kept in memory,
    one byte per atom): ``"hybridization"`` (_hybridization_column), ``"backbone"`` (_backbone_column)."""
    col = _cache(ds).get(name)
    if col is None:
        col = ds._graph_cache[name] = (_hybridization_column if name == "hybridization" else _backbone_column)(ds)
    return col


def _hybridization_column(ds):
    """HYBRIDIZATION of every atom row: ligand atoms (ATOM_FLAGS ligand) from their bonds in /bonds, other
    aromatic ring atoms (/atoms/chem bit 3) 2, else 0. One bincount of (atom row, kind) over both ends of every
    bond of known order (1..4): kind 0 single, 1 double, 2 triple, 3 aromatic (order 4 or the aromatic flag)."""
    chem, flags = ds._cols["atoms/chem"], ds._cols["atoms/flags"]
    a = len(chem)
    hyb = np.where((chem & 8) != 0, 2, 0).astype(np.uint8)
    if not ds.has_bonds or not len(ds._cols["bonds/site_idx"]):
        hyb[(flags & 1) != 0] = 0
        return hyb
    order, arom = ds._cols["bonds/order"], ds._cols["bonds/aromatic"]
    base = ds._ap[ds._cols["bonds/site_idx"]]
    kind = np.where((arom != 0) | (order == 4), 3, order.astype(np.int64) - 1)
    known = (order >= 1) & (order <= 4)
    ends = np.concatenate([(base + ds._cols["bonds/atom1"])[known], (base + ds._cols["bonds/atom2"])[known]])
    c = np.bincount(ends * 4 + np.tile(kind[known], 2), minlength=4 * a).reshape(a, 4)
    h = np.where((c[:, 2] > 0) | (c[:, 1] >= 2), 1, np.where(c[:, 1] + c[:, 3] > 0, 2, np.where(c[:, 0] > 0, 3, 0)))
    lig = (flags & 1) != 0
    hyb[lig] = h[lig]
    return hyb


def _backbone_column(ds):
    """The ``backbone`` code of every atom row: 0 not a polymer atom (ATOM_FLAGS polymer), 1 its name is one of
    BACKBONE_ATOMS, 2 side chain."""
    poly = (ds._cols["atoms/flags"] & 2) != 0
    return np.where(poly, np.where(_is_backbone_name(ds._cols["atoms/atom_name"]), 1, 2), 0).astype(np.uint8)


def _ligand_rows(n, nl):
    """bool (A,): the block rows that are the ligand's (the first n_ligand of each site's rows)."""
    off = np.repeat(np.concatenate([[0], np.cumsum(n)[:-1]]), n)
    return np.arange(int(n.sum())) - off < np.repeat(nl, n)


def _is_backbone_name(names):
    """bool (A,): the S8 atom names that are BACKBONE_ATOMS (their 8 bytes as one uint64, in _BACKBONE_TABLE)."""
    key = np.ascontiguousarray(names, dtype="S8").view("<u8")
    with np.errstate(over="ignore"):
        return _BACKBONE_TABLE[(key * _BACKBONE_M) >> np.uint64(54)] == key


def _atom_feature(b, f):
    """The batch's block rows of feature @p f (ATOM_FEATURES, or an /atoms column by name)."""
    c = b.cols
    if f == "positions":
        return c["position"]
    if f == "elements":
        return c["element"]
    if f == "formal_charge":
        return c[_formal_charge_column(b.ds)]
    if f in _CHEM_BITS:
        return (c["chem"] & _CHEM_BITS[f]) != 0
    if f == "is_ligand":
        return (c["flags"] & 1) != 0
    if f in ("hybridization", "backbone"):
        return c["=" + f]
    if f == "residue":
        rp = b.ds._cols["sites/residue_ptr"][b.idx]
        return c["residue_idx"] - np.repeat(rp, b.n_block)
    if f == "residue_code":
        return _residue_codes(b.ds)[c["residue_idx"]]
    if f == "chain":
        return _residue_chains(b.ds)[c["residue_idx"]]
    return c[f]


def _edges(b, kind):
    """Edge set @p kind ("bond" or "interaction") of the batch: (counts (k,), src, dst block rows, {attr: values})
    before heavy_only's filter."""
    if kind == "bond":
        cnt, v = b.rows("bonds", "bond_ptr", ("atom1", "atom2", "order", "aromatic"))
        attrs = {"order": v["order"], "aromatic": v["aromatic"]}
        s, d = v["atom1"], v["atom2"]
    else:
        cnt, v = b.rows("interactions", "interaction_ptr", ("lig_atom", "site_atom", "water_atom", "type", "distance"))
        s, d = v["lig_atom"], v["site_atom"]
        attrs = {"type": v["type"], "distance": v["distance"], "water": v["water_atom"].astype(np.int64)}
    base = np.repeat(b.block_off[:-1], cnt)
    if kind == "interaction":
        w = attrs["water"]
        attrs["water"] = np.where(w >= 0, w + base, -1)
    return cnt, s.astype(np.int64) + base, d.astype(np.int64) + base, attrs


def _filter_edges(b, cnt, src, dst, attrs, kind):
    """heavy_only: drop the edges naming a left-out atom, and renumber the rest to kept rows."""
    ok = b.keep[src] & b.keep[dst]
    if kind == "interaction":
        w = attrs["water"]
        ok &= (w < 0) | b.keep[np.maximum(w, 0)]
    site = np.repeat(np.arange(len(cnt)), cnt)
    cnt = np.bincount(site[ok], minlength=len(cnt)).astype(np.int64)
    attrs = {a: v[ok] for a, v in attrs.items()}
    if kind == "interaction":
        w = attrs["water"]
        attrs["water"] = np.where(w >= 0, b.remap[np.maximum(w, 0)], -1)
    return cnt, b.remap[src[ok]], b.remap[dst[ok]], attrs


def _radius(ds, pos, offsets, n_ligand, r, mode):
    """Radius edges of the batch: (counts (k,), src, dst batch rows, {"distance": (E,) float32 Å}), the compiled
    _fast.radius_edges when @p ds is compiled, else the same pairs in numpy."""
    if getattr(ds, "compiled", False):
        src, dst, dist, cnt = _fast.radius_edges(pos, offsets, n_ligand, float(r), mode == "all")
    else:
        src, dst, dist, cnt = _radius_py(pos, offsets, n_ligand, float(r), mode == "all")
    return cnt, src, dst, {"distance": dist}


def _radius_py(pos, offsets, n_ligand, r, all_pairs):
    """The pure-Python radius_edges: per sample, the squared distances in float64 as ((dx*dx + dy*dy) + dz*dz),
    kept where <= r*r, in row-major order (i ligand and j not, or i < j)."""
    src, dst, dist, cnt = [], [], [], np.zeros(len(n_ligand), dtype=np.int64)
    r2 = r * r
    for j in range(len(n_ligand)):
        a0, a1, nl = int(offsets[j]), int(offsets[j + 1]), int(n_ligand[j])
        p = pos[a0:a1].astype(np.float64)
        i_rows = p if all_pairs else p[:nl]
        j0 = 0 if all_pairs else nl
        q = p[j0:]
        dx = i_rows[:, None, 0] - q[None, :, 0]
        dy = i_rows[:, None, 1] - q[None, :, 1]
        dz = i_rows[:, None, 2] - q[None, :, 2]
        d2 = (dx * dx + dy * dy) + dz * dz
        ok = d2 <= r2
        if all_pairs:
            ok &= np.arange(len(i_rows))[:, None] < np.arange(len(q))[None, :]
        ii, jj = np.nonzero(ok)
        src.append(ii + a0)
        dst.append(jj + j0 + a0)
        dist.append(np.sqrt(d2[ii, jj]).astype(np.float32))
        cnt[j] = len(ii)
    cat = (lambda xs, dt: np.concatenate(xs).astype(dt, copy=False) if xs else np.zeros(0, dtype=dt))
    return cat(src, np.int64), cat(dst, np.int64), cat(dist, np.float32), cnt


def _undirected(cnt, src, dst, attrs):
    """Each edge (i, j) followed by (j, i), the attributes repeated: counts doubled."""
    s = np.stack([src, dst], 1).reshape(-1)
    d = np.stack([dst, src], 1).reshape(-1)
    return cnt * 2, s, d, {a: np.repeat(v, 2) for a, v in attrs.items()}


def check_options(fields, edges, radius, radius_mode):
    """The fields and edge options of a graph batch, checked: (fields tuple, edges tuple). ValueError for an
    unknown edge set, radius mode, a radius that is not a positive number, an edge set named twice."""
    fields = (fields,) if isinstance(fields, str) else tuple(fields)
    edges = (edges,) if isinstance(edges, str) else tuple(edges)
    for e in edges:
        if e not in EDGE_SETS or e == "radius":
            raise ValueError(f"unknown edge set {e!r}: edges may be {', '.join(k for k in EDGE_SETS if k != 'radius')}"
                             " (radius edges: radius=R)")
    if len(set(edges)) != len(edges) or len(set(fields)) != len(fields):
        raise ValueError(f"a field or edge set asked twice: fields {fields}, edges {edges}")
    if radius is not None:
        if isinstance(radius, bool) or not isinstance(radius, (int, float, np.floating, np.integer)) or \
                not radius > 0:
            raise ValueError(f"radius must be a positive number of Å, not {radius!r}")
        if radius_mode not in RADIUS_MODES:
            raise ValueError(f"radius_mode must be one of {', '.join(RADIUS_MODES)}, not {radius_mode!r}")
    for f in fields:
        if f in ("n_atoms", "n_ligand", "site", "batch", "offsets", "ligand_mask") or f.endswith("_index") or \
                any(f.startswith(e + "_") for e in EDGE_SETS):
            raise ValueError(f"field {f!r} is a name of the batch itself (counts, batch vectors, edge sets)")
    return fields, edges


def graph_batch(ds, idx, fields=("positions", "elements"), edges=("bond", "interaction"), directed=False,
                radius=None, radius_mode="ligand", heavy_only=False):
    """The graph batch of sites @p idx (any integer sequence, as Dataset.get_sites_flat) of the Dataset @p ds, as
    numpy arrays (A atoms, k sites, E_S edges of set S):

    - each of @p fields (ATOM_FEATURES, or any /atoms column by name): (A,) or (A, 3), atoms of the sites in
      request order, each site's ligand atoms first;
    - ``"n_atoms"``, ``"n_ligand"``, ``"site"`` (k,) int64, ``"offsets"`` (k+1,) int64 (sample j's atoms are rows
      offsets[j]:offsets[j+1]), ``"batch"`` (A,) int64 sample of each atom, ``"ligand_mask"`` (A,) bool;
    - each edge set S of @p edges (``"bond"``, ``"interaction"``) and ``"radius"`` when @p radius (Å) is given:
      ``S_index`` (2, E_S) int64 batch rows, its attributes (EDGE_SETS: bond_order uint8 (1 single, 2 double,
      3 triple, 4 aromatic without Kekulé order, 0 unknown), bond_aromatic uint8; interaction_type uint8
      (sitepack.INTERACTION_TYPES), interaction_distance float32 Å, interaction_water int64 (the water O of a
      water bridge, -1 none); radius_distance float32 Å) and ``S_batch`` (E_S,) int64 sample of each edge.
      Interaction edges go ligand atom -> site atom (lig_atom, site_atom of /interactions), radius edges ligand
      atom -> non-ligand atom (@p radius_mode "ligand") or i -> j for every pair i < j ("all") within @p radius
      Å; @p directed False adds (j, i) after each (i, j).

    @p heavy_only leaves out the hydrogen atoms (ATOM_FLAGS hydrogen) and every edge naming one; rows, counts and
    offsets are those of the kept atoms. Raises as get_sites_flat (SiteIndexError, MissingTableError for an
    unknown column or a file without /bonds, ValueError) and ValueError for bad options (check_options)."""
    fields, edges = check_options(fields, edges, radius, radius_mode)
    return _graph_batch(ds, idx, fields, edges, directed, radius, radius_mode, heavy_only)


def _graph_batch(ds, idx, fields, edges, directed, radius, radius_mode, heavy_only):
    """graph_batch with checked options (tuples from check_options)."""
    idx = ds._check_indices(idx)
    if "bond" in edges and not ds.has_bonds:
        ds.table("bonds")   # MissingTableError naming the file
    b = _Batch(ds, idx, _columns_of(ds, fields, heavy_only, radius))
    b.n_block, b.nlig_block, b.block_off = b.n, b.n_ligand, b.offsets
    sets = {}
    if "bond" in edges:
        sets["bond"] = _edges(b, "bond")
    if "interaction" in edges:
        sets["interaction"] = _edges(b, "interaction")
    feats = {f: _atom_feature(b, f) for f in fields}
    if heavy_only:
        keep = b.drop_hydrogens()
        feats = {f: v[keep] for f, v in feats.items()}
        sets = {k: _filter_edges(b, *v, k) for k, v in sets.items()}
    if radius is not None:
        pos = b.cols["position"] if b.keep is None else b.cols["position"][b.keep]
        sets["radius"] = _radius(ds, pos, b.offsets, b.n_ligand, radius, radius_mode)
    return _assemble(b, idx, feats, sets, directed)


def _assemble(b, idx, feats, sets, directed):
    """The batch dict of graph_batch from the built rows."""
    out = dict(feats)
    k = len(idx)
    out["n_atoms"], out["n_ligand"], out["site"], out["offsets"] = b.n, b.n_ligand, idx, b.offsets
    out["batch"] = np.repeat(np.arange(k, dtype=np.int64), b.n)
    out["ligand_mask"] = _ligand_rows(b.n, b.n_ligand)
    for name, (cnt, s, d, attrs) in sets.items():
        if not directed:
            cnt, s, d, attrs = _undirected(cnt, s, d, attrs)
        out[f"{name}_index"] = np.stack([s, d]).astype(np.int64, copy=False).reshape(2, -1)
        for a, v in attrs.items():
            out[f"{name}_{a}"] = v
        out[f"{name}_batch"] = np.repeat(np.arange(k, dtype=np.int64), cnt)
    return out


#: keys of a graph batch that are per sample (one value each), not per atom or per edge
SAMPLE_KEYS = ("site", "n_ligand", "n_atoms")
#: keys of a batch that collating makes (not taken from the items)
BATCH_KEYS = ("offsets", "batch", "ligand_mask")


def split_batch(batch):
    """The samples of a graph batch (graph_batch's dict) as a list of dicts, one per site: each field's rows of
    that sample, edge indices minus the sample's atom offset (INDEX_ATTRIBUTES too, where >= 0), the per-sample
    keys as ints; no batch vectors or offsets. The items that SiteDataset[k] returns."""
    off = batch["offsets"]
    k = len(batch["site"])
    sets = [key[:-6] for key in batch if key.endswith("_index")]
    eoff = {s: np.searchsorted(batch[f"{s}_batch"], np.arange(k + 1)) for s in sets}
    items = []
    for j in range(k):
        a0, a1 = int(off[j]), int(off[j + 1])
        it = {}
        for key, v in batch.items():
            if key in SAMPLE_KEYS:
                it[key] = int(v[j])
            elif key in BATCH_KEYS or key.endswith("_batch"):
                continue
            elif key.endswith("_index"):
                s = key[:-6]
                it[key] = v[:, eoff[s][j]:eoff[s][j + 1]] - a0
            else:
                s = next((s for s in sets if key.startswith(s + "_")), None)
                if s is None:
                    it[key] = v[a0:a1]
                else:
                    x = v[eoff[s][j]:eoff[s][j + 1]]
                    it[key] = np.where(x >= 0, x - a0, x) if key in INDEX_ATTRIBUTES else x
        items.append(it)
    return items


def _classify(item, j):
    """The keys of item @p j: (n atoms, edge sets {S: E}, atom keys, {S: attribute keys}). ValueError naming a
    field whose first dimension is neither the atoms' nor its edge set's, or an index of another shape."""
    site = item.get("site", j)
    sets = {}
    for key, v in item.items():
        if key.endswith("_index") and key not in SAMPLE_KEYS:
            v = np.asarray(v)
            if v.ndim != 2 or v.shape[0] != 2:
                raise ValueError(f"collate_flat: {key!r} of item {j} (site {site}) has shape {v.shape}; an edge "
                                 "index is (2, E)")
            sets[key[:-6]] = v.shape[1]
    rest = [key for key in item if key not in SAMPLE_KEYS and not key.endswith("_index")]
    of_set = {s: [key for key in rest if key.startswith(s + "_")] for s in sets}
    atom_keys = [key for key in rest if not any(key in ks for ks in of_set.values())]
    if "n_atoms" in item:
        n = int(item["n_atoms"])
    else:
        n = len(item[atom_keys[0]]) if atom_keys else 0
    for key in atom_keys:
        if np.ndim(item[key]) == 0 or len(item[key]) != n:
            raise ValueError(f"collate_flat: field {key!r} of item {j} (site {site}) has "
                             f"{np.shape(item[key])[:1] or 'no'} rows, but its sample has {n} atoms"
                             + "".join(f", {E} {s} edges" for s, E in sets.items())
                             + ": an atom field has one row per atom, an edge attribute S_<name> one per edge of "
                             "S_index")
    for s, ks in of_set.items():
        for key in ks:
            if np.ndim(item[key]) == 0 or len(item[key]) != sets[s]:
                raise ValueError(f"collate_flat: edge attribute {key!r} of item {j} (site {site}) has "
                                 f"{np.shape(item[key])[:1] or 'no'} rows, but {s}_index has {sets[s]} edges")
    return n, sets, atom_keys, of_set


def _check_inside(item, j, n, sets):
    """ValueError naming an edge index (or INDEX_ATTRIBUTES value) of item @p j outside its sample's n atoms."""
    for s in sets:
        e = np.asarray(item[f"{s}_index"])
        if e.size and (e.min() < 0 or e.max() >= n):
            raise ValueError(f"collate_flat: {s}_index of item {j} (site {item.get('site', j)}) names atom "
                             f"{int(e.min()) if e.min() < 0 else int(e.max())}, outside its {n} atoms")
    for key in INDEX_ATTRIBUTES:
        if key in item and len(item[key]) and (np.max(item[key]) >= n or np.min(item[key]) < -1):
            raise ValueError(f"collate_flat: {key} of item {j} names an atom outside its {n} atoms")


def concat_items(items):
    """The items of a batch (dicts as split_batch or SiteDataset[k] make them, or any with the same keys)
    concatenated into one batch dict, as graph_batch makes it: atom fields concatenated; each edge set's index
    and INDEX_ATTRIBUTES (where >= 0) shifted by the atom offset of its sample (torch_geometric's ``__inc__``
    rule); ``batch``, ``S_batch``, ``offsets``, ``ligand_mask`` (from n_ligand, when the items have it). Raises
    ValueError for an empty list, items with other keys, a field whose first dimension matches neither the atoms
    nor a known edge set (its message names it), an edge index outside its sample."""
    if not len(items):
        raise ValueError("collate_flat: empty batch")
    keys = list(items[0])
    parts = []
    for j, it in enumerate(items):
        if list(it) != keys:
            raise ValueError(f"collate_flat: item {j} has the keys {sorted(it)}, item 0 {sorted(keys)}")
        n, sets, atom_keys, of_set = _classify(it, j)
        _check_inside(it, j, n, sets)
        parts.append((n, sets))
    n = np.array([p[0] for p in parts], dtype=np.int64)
    off = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(n, out=off[1:])
    out = {f: np.concatenate([it[f] for it in items]) for f in atom_keys}
    for s in of_set:
        cnt = np.array([p[1][s] for p in parts], dtype=np.int64)
        shift = np.repeat(off[:-1], cnt)
        out[f"{s}_index"] = np.concatenate([np.asarray(it[f"{s}_index"], dtype=np.int64) for it in items],
                                           axis=1).reshape(2, -1) + shift
        for key in of_set[s]:
            v = np.concatenate([it[key] for it in items])
            out[key] = np.where(v >= 0, v + shift, v) if key in INDEX_ATTRIBUTES else v
        out[f"{s}_batch"] = np.repeat(np.arange(len(items), dtype=np.int64), cnt)
    for key in SAMPLE_KEYS:
        if key in items[0]:
            out[key] = np.array([int(it[key]) for it in items], dtype=np.int64)
    out["n_atoms"], out["offsets"] = n, off
    out["batch"] = np.repeat(np.arange(len(items), dtype=np.int64), n)
    if "n_ligand" in out:
        out["ligand_mask"] = np.arange(int(off[-1])) - np.repeat(off[:-1], n) < np.repeat(out["n_ligand"], n)
    return out


__all__ = ["graph_batch", "split_batch", "concat_items", "check_options", "ATOM_FEATURES", "EDGE_SETS",
           "INDEX_ATTRIBUTES", "RADIUS_MODES", "RESIDUE_CODES", "BACKBONE_ATOMS", "HYBRIDIZATION", "SAMPLE_KEYS",
           "BATCH_KEYS"]
