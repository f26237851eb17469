"""PyTorch adapters: SiteDataset (a map-style torch Dataset over a sitepack file) and collate_flat.

torch is imported here only (``import sitepack`` never imports it)."""

import numpy as np
import torch

from .dataset import Dataset

#: fields read through the Site's own array attributes (C getters on the compiled path) rather than
#: Site.atoms(): the same copies of the same rows
_SITE_ARRAYS = {"positions": "positions", "position": "positions", "elements": "elements", "element": "elements",
                "flags": "flags"}


class SiteDataset(torch.utils.data.Dataset):
    """Map-style dataset of the sites of a merged file (or a subset of them).

    ``SiteDataset(ds_or_path, fields=("positions", "elements"), indices=None, transform=None)``: item k is a
    dict ``{field: numpy array}`` for site ``indices[k]`` (all sites when None), plus ``"site"`` (int, its
    /sites row) and ``"n_ligand"`` (int); field names as in Dataset.get_sites_flat. ``transform(item)``, when
    given, is applied to each item. ``split="train"`` (or "val", "test"; ``split_name`` the /splits column, None:
    the file's only one) takes the sites of that side of ``sitepack split`` (Dataset.split) instead of indices;
    ``split_stratum`` (e.g. "novel_both") keeps those of one novelty stratum of the split's leakage scores.
    Picklable: each DataLoader worker re-opens and maps the file itself."""

    def __init__(self, ds, fields=("positions", "elements"), indices=None, transform=None, split=None,
                 split_name=None, split_stratum=None):
        self.ds = ds if isinstance(ds, Dataset) else Dataset(ds)
        self.fields = tuple(fields)
        if split is not None:
            if indices is not None:
                raise ValueError(f"{self.ds.path}: SiteDataset: give indices or split, not both")
            indices = self.ds.split(split, name=split_name, stratum=split_stratum)
        self.indices = None if indices is None else np.asarray(indices, dtype=np.int64)
        self.transform = transform

    def __len__(self):
        return len(self.ds) if self.indices is None else len(self.indices)

    def __getitem__(self, k):
        i = int(k if self.indices is None else self.indices[k])
        site = self.ds[i]
        item = {f: getattr(site, _SITE_ARRAYS[f]) if f in _SITE_ARRAYS else site.atoms(f) for f in self.fields}
        item["site"] = i
        item["n_ligand"] = site.n_ligand
        return self.transform(item) if self.transform is not None else item


def collate_flat(items):
    """Collate SiteDataset items into one flat batch of tensors: each atom field concatenated over the batch
    ((A, 3) float32 positions in Å, (A,) elements as int64 for embedding lookups, other fields in their
    dtype), ``"batch"`` (A,) int64 = the item each atom belongs to (0..B-1), ``"n_atoms"`` (B,) int64,
    ``"n_ligand"`` (B,) int64, ``"site"`` (B,) int64, and ``"ligand_mask"`` (A,) bool (the ligand's atoms)."""
    if not items:
        raise ValueError("collate_flat: empty batch")
    fields = [f for f in items[0] if f not in ("site", "n_ligand")]
    n = np.array([len(it[fields[0]]) if fields else 0 for it in items], dtype=np.int64)
    nl = np.array([it["n_ligand"] for it in items], dtype=np.int64)
    out = {}
    for f in fields:
        a = np.concatenate([it[f] for it in items])
        if f == "elements":
            a = a.astype(np.int64)
        elif a.dtype == np.uint16:
            a = a.astype(np.int32)   # torch has no uint16
        out[f] = torch.from_numpy(a)
    batch = np.repeat(np.arange(len(items), dtype=np.int64), n)
    start = np.repeat(np.concatenate([[0], np.cumsum(n)[:-1]]), n)
    out["batch"] = torch.from_numpy(batch)
    out["n_atoms"] = torch.from_numpy(n)
    out["n_ligand"] = torch.from_numpy(nl)
    out["site"] = torch.tensor([it["site"] for it in items], dtype=torch.int64)
    out["ligand_mask"] = torch.from_numpy(np.arange(int(n.sum())) - start < np.repeat(nl, n))
    return out
