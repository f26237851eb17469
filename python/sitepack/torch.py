"""PyTorch adapters: SiteDataset (a map-style torch Dataset over a sitepack file), collate_flat (= collate_graph)
and GraphItems (a batch of graph samples read at once).

torch is imported here only (``import sitepack`` never imports it)."""

from collections.abc import Sequence

import numpy as np
import torch

from . import graph as _graph
from .dataset import Dataset

#: fields read through the Site's own array attributes (C getters on the compiled path) rather than
#: Site.atoms(): the same copies of the same rows
_SITE_ARRAYS = {"positions": "positions", "position": "positions", "elements": "elements", "element": "elements",
                "flags": "flags"}
#: fields that only a graph sample computes (sitepack.graph.ATOM_FEATURES beyond the plain /atoms columns)
_DERIVED = frozenset(("formal_charge", "aromatic", "donor", "acceptor", "hybridization", "is_ligand", "backbone",
                      "residue", "residue_code", "chain"))


class SiteDataset(torch.utils.data.Dataset):
    """Map-style dataset of the sites of a merged file (or a subset of them).

    ``SiteDataset(ds_or_path, fields=("positions", "elements"), indices=None, transform=None, split=None,
    split_name=None, edges=(), directed=False, radius=None, radius_mode="ligand", heavy_only=False)``: item k is a
    dict ``{field: numpy array}`` for site ``indices[k]`` (all sites when None), plus ``"site"`` (int, its
    /sites row) and ``"n_ligand"`` (int); field names as in Dataset.get_sites_flat. ``transform(item)``, when
    given, is applied to each item. ``split="train"`` (or "val", "test"; ``split_name`` the /splits column, None:
    the file's only one) takes the sites of that side of ``sitepack split`` (Dataset.split) instead of indices;
    ``split_stratum`` (e.g. "novel_both") keeps those of one novelty stratum of the split's leakage scores.

    A graph sample (sitepack.graph.graph_batch of one site) when ``edges`` (``"bond"``, ``"interaction"``),
    ``radius`` (Å), ``heavy_only`` or a derived feature of sitepack.graph.ATOM_FEATURES (``"formal_charge"``,
    ``"aromatic"``, ...) is asked: then the item also holds ``"n_atoms"`` and each edge set's ``S_index`` (2, E)
    int64 (atom rows of the sample) and attributes; ``heavy_only=True`` leaves out hydrogen atoms and their
    edges. A DataLoader then reads each batch at once (``__getitems__``: one graph_batch, a GraphItems) when no
    transform is given. Picklable: each DataLoader worker re-opens and maps the file itself."""

    def __init__(self, ds, fields=("positions", "elements"), indices=None, transform=None, split=None,
                 split_name=None, edges=(), directed=False, radius=None, radius_mode="ligand", heavy_only=False,
                 split_stratum=None):
        self.ds = ds if isinstance(ds, Dataset) else Dataset(ds)
        self.fields, self.edges = _graph.check_options(fields, edges, radius, radius_mode)
        self.directed, self.radius, self.radius_mode = bool(directed), radius, radius_mode
        self.heavy_only = bool(heavy_only)
        self.graph = bool(self.edges or radius is not None or heavy_only or _DERIVED & set(self.fields))
        if split is not None:
            if indices is not None:
                raise ValueError(f"{self.ds.path}: SiteDataset: give indices or split, not both")
            indices = self.ds.split(split, name=split_name, stratum=split_stratum)
        self.indices = None if indices is None else np.asarray(indices, dtype=np.int64)
        self.transform = transform

    def __len__(self):
        return len(self.ds) if self.indices is None else len(self.indices)

    def graph_batch(self, ks):
        """The graph batch (sitepack.graph.graph_batch, numpy) of items @p ks of this dataset."""
        ks = np.asarray(ks, dtype=np.int64)
        idx = ks if self.indices is None else self.indices[ks]
        return _graph._graph_batch(self.ds, idx, self.fields, self.edges, self.directed, self.radius,
                                  self.radius_mode, self.heavy_only)

    def __getitem__(self, k):
        if self.graph:
            item = _graph.split_batch(self.graph_batch([k]))[0]
            return self.transform(item) if self.transform is not None else item
        i = int(k if self.indices is None else self.indices[k])
        site = self.ds[i]
        item = {f: getattr(site, _SITE_ARRAYS[f]) if f in _SITE_ARRAYS else site.atoms(f) for f in self.fields}
        item["site"] = i
        item["n_ligand"] = site.n_ligand
        return self.transform(item) if self.transform is not None else item

    def __getitems__(self, ks):
        """The items @p ks of a DataLoader batch: a GraphItems read at once for a graph dataset without a
        transform, else the list of self[k]."""
        if self.graph and self.transform is None:
            return GraphItems(self.graph_batch(ks))
        return [self[k] for k in ks]


class GraphItems(Sequence):
    """The items of a batch read at once (SiteDataset.__getitems__): ``flat`` is their graph batch (numpy, as
    sitepack.graph.graph_batch makes it), which collate_flat turns into tensors without splitting it; item j
    (``items[j]``, split on first use) equals ``SiteDataset[k]`` of its site."""

    def __init__(self, flat):
        self.flat = flat
        self._items = None

    def __len__(self):
        return len(self.flat["site"])

    def __getitem__(self, j):
        if self._items is None:
            self._items = _graph.split_batch(self.flat)
        return self._items[j]


def _tensor(key, a):
    """A batch array as a tensor: elements int64 (for embedding lookups), uint16 as int32 and uint32 as int64
    (torch has neither), strings left as numpy arrays, the rest in its dtype."""
    if a.dtype.kind in "SUO":
        return a
    if key == "elements":
        a = a.astype(np.int64)
    elif a.dtype == np.uint16:
        a = a.astype(np.int32)
    elif a.dtype == np.uint32:
        a = a.astype(np.int64)
    return torch.from_numpy(a)


def collate_flat(items):
    """Collate SiteDataset items (a list of dicts, or a GraphItems) into one flat batch of tensors: each atom
    field concatenated over the batch ((A, 3) float32 positions in Å, (A,) elements as int64 for embedding
    lookups, uint16 columns as int32, other fields in their dtype), ``"batch"`` (A,) int64 = the item each atom
    belongs to (0..B-1), ``"n_atoms"`` (B,) int64, ``"n_ligand"`` (B,) int64, ``"site"`` (B,) int64,
    ``"offsets"`` (B+1,) int64 (item j's atoms are rows offsets[j]:offsets[j+1]) and ``"ligand_mask"`` (A,) bool
    (the ligand's atoms). Each edge set S (``S_index`` (2, E) in the items) becomes ``S_index`` (2, E) int64
    shifted by the atom offset of its item (torch_geometric's ``__inc__`` rule; ``interaction_water`` where >= 0),
    its attributes concatenated and ``S_batch`` (E,) int64. A field whose first dimension is neither its item's
    atoms nor one of its edge sets' edges is refused: ValueError naming it (sitepack.graph.concat_items)."""
    flat = items.flat if isinstance(items, GraphItems) else _graph.concat_items(items)
    out = {k: _tensor(k, v) for k, v in flat.items()}
    return _WorkerBatch(out) if torch.utils.data.get_worker_info() is not None else out


class _WorkerBatch(dict):
    """A batch collated in a DataLoader worker: pickled to the main process as numpy arrays (their bytes through
    the worker's pipe) and rebuilt there as the same tensors (torch.from_numpy: same values, dtypes, shapes), a
    plain dict again. torch would move each tensor's storage into shared memory and pass one file descriptor per
    tensor: at about 30 tensors a graph batch of a few hundred kB, that cost several times the batch's build."""

    def __reduce__(self):
        return (_from_worker, ({k: v.numpy() if isinstance(v, torch.Tensor) else v for k, v in self.items()},))


def _from_worker(arrays):
    return {k: torch.from_numpy(v) if isinstance(v, np.ndarray) and v.dtype.kind not in "SUO" else v
            for k, v in arrays.items()}


#: the graph collate: collate_flat, which shifts every edge set of the items
collate_graph = collate_flat


__all__ = ["SiteDataset", "GraphItems", "collate_flat", "collate_graph"]
