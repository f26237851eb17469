#!/usr/bin/python3
"""sitepack.torch on the merged output of shared/data/structures: a torch DataLoader with 2 worker
processes (fork, two shuffled epochs; spawn, one epoch: each worker unpickles the dataset by path and maps
the file itself) yields every site exactly once per epoch, and each batch equals the serial read
(Dataset.get_sites_flat of the same sites); collate_flat's batch vector, counts and ligand mask agree.

Usage: test_py_torch.py MERGED.h5
"""
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader

import sitepack
from sitepack.torch import SiteDataset, collate_flat

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def epoch(loader, ds, tag):
    seen = []
    for b in loader:
        sites = b["site"].numpy()
        seen.extend(sites.tolist())
        ref = ds.get_sites_flat(sites, fields=("positions", "elements", "flags"))
        n = ref["n_atoms"]
        ok = (torch.equal(b["positions"], torch.from_numpy(ref["positions"])) and
              torch.equal(b["elements"], torch.from_numpy(ref["elements"].astype(np.int64))) and
              torch.equal(b["flags"], torch.from_numpy(ref["flags"].astype(np.int32))) and
              torch.equal(b["n_atoms"], torch.from_numpy(n)) and
              torch.equal(b["n_ligand"], torch.from_numpy(ref["n_ligand"].astype(np.int64))) and
              torch.equal(b["batch"], torch.from_numpy(np.repeat(np.arange(len(sites)), n))))
        lm = np.concatenate([np.arange(k) < nl for k, nl in zip(n, ref["n_ligand"])])
        ok = ok and np.array_equal(b["ligand_mask"].numpy(), lm)
        ok = ok and np.array_equal(b["ligand_mask"].numpy(), (ref["flags"] & 1) == 1)
        check(ok, f"{tag}: batch of sites {sites[:5].tolist()}... differs from the serial read")
    check(sorted(seen) == list(range(len(ds))), f"{tag}: {len(seen)} sites, {len(set(seen))} distinct, "
          f"expected each of {len(ds)} once")
    return seen


def main():
    path = sys.argv[1]
    ds = sitepack.open(path)
    sd = SiteDataset(path, fields=("positions", "elements", "flags"))
    check(len(sd) == len(ds) > 1000, f"SiteDataset length {len(sd)}")
    g = torch.Generator()
    g.manual_seed(11)
    loader = DataLoader(sd, batch_size=16, shuffle=True, num_workers=2, collate_fn=collate_flat, generator=g)
    e1 = epoch(loader, ds, "fork epoch 1")
    e2 = epoch(loader, ds, "fork epoch 2")
    check(e1 != e2, "two shuffled epochs in the same order")
    spawn = DataLoader(sd, batch_size=64, shuffle=False, num_workers=2, collate_fn=collate_flat,
                       multiprocessing_context="spawn")
    e3 = epoch(spawn, ds, "spawn epoch")
    check(e3 == list(range(len(ds))), "spawn epoch without shuffle is in site order")
    # a subset and a transform
    sub = SiteDataset(ds, fields=("positions",), indices=ds.select(ligand_class="small_molecule"),
                      transform=lambda it: {**it, "positions": it["positions"] - it["positions"].mean(0)})
    b = collate_flat([sub[k] for k in range(len(sub))])
    ref = ds.get_sites_flat(sub.indices, fields=("positions",))
    centred = np.concatenate([ref["positions"][a:e] - ref["positions"][a:e].mean(0)
                              for a, e in zip(ref["offsets"][:-1], ref["offsets"][1:])])
    check(torch.allclose(b["positions"], torch.from_numpy(centred)) and
          torch.equal(b["site"], torch.from_numpy(sub.indices)), "subset + transform")
    if failures:
        print(f"test_py_torch: {len(failures)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print(f"test_py_torch: all checks passed ({len(ds)} sites, 3 epochs with 2 workers)")


if __name__ == "__main__":
    main()
