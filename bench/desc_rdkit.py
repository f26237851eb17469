#!/usr/bin/python3
"""The peer of make bench-desc: RDKit's Python computing sitepack's ligand descriptors (descriptors.h) on the same
molecules, the SDF records `sitepack export --format sdf` writes of every ligand of the run (docs/format.md "Export
files"; the molecule sitepack's descriptors are computed from, tests/peer/test_descriptors_rdkit.py).

Per record: Chem.MolFromMolBlock (sanitize, remove hydrogens, as descriptors.h reads a molecule), then MolWt,
GetNumHeavyAtoms, GetFormalCharge, CalcNumHBD / CalcNumHBA, CalcNumLipinskiHBD / HBA, CalcNumRotatableBonds, CalcTPSA,
CalcCrippenDescriptors (logP, MR), CalcNumRings, CalcNumAromaticRings, CalcFractionCSP3, QED.qed.
Two loops, timed apart in this one process (after `import rdkit`, the records read into memory first):
  plain:  every record, as a user would write it;
  cached: every record read, its descriptors computed once per canonical SMILES (MolToSmiles), sitepack's cache.
Prints one JSON line: records, distinct molecules, failed records, wall and CPU seconds of each loop.
Usage: desc_rdkit.py DIR_OF_SDF
"""
import json
import os
import sys
import time

from rdkit import Chem, RDLogger
from rdkit.Chem import QED, Descriptors, rdMolDescriptors as R

RDLogger.DisableLog("rdApp.*")


def descriptors(m):
    logp, mr = R.CalcCrippenDescriptors(m)
    return (Descriptors.MolWt(m), m.GetNumHeavyAtoms(), Chem.GetFormalCharge(m), R.CalcNumHBD(m), R.CalcNumHBA(m),
            R.CalcNumLipinskiHBD(m), R.CalcNumLipinskiHBA(m), R.CalcNumRotatableBonds(m), R.CalcTPSA(m), logp, mr,
            R.CalcNumRings(m), R.CalcNumAromaticRings(m), R.CalcFractionCSP3(m), QED.qed(m))


def main():
    d = sys.argv[1]
    blocks = []
    for name in sorted(os.listdir(d)):
        if name.endswith("_ligand.sdf"):
            with open(os.path.join(d, name)) as f:
                blocks.append(f.read().split("$$$$")[0])
    t0, c0 = time.perf_counter(), time.process_time()
    failed = 0
    for b in blocks:
        m = Chem.MolFromMolBlock(b)
        if m is None:
            failed += 1
            continue
        descriptors(m)
    t_plain, c_plain = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    cache = {}
    for b in blocks:
        m = Chem.MolFromMolBlock(b)
        if m is None:
            continue
        key = Chem.MolToSmiles(m)
        if key not in cache:
            cache[key] = descriptors(m)
    t_cached, c_cached = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({"records": len(blocks), "distinct": len(cache), "failed": failed, "plain_s": t_plain,
                      "plain_cpu_s": c_plain, "cached_s": t_cached, "cached_cpu_s": c_cached}))


if __name__ == "__main__":
    main()
