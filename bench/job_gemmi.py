#!/usr/bin/python3
"""The minimal gemmi pipeline of `make bench-job` (bench/job_bench.py runs it in a fresh process).

For every file of DIR (sorted, all of them: the same inputs as `sitepack run --input DIR`):
  gemmi.read_structure(path)            read + parse (mmCIF or PDB, plain or gzip)
  st.setup_entities()                   entity types for PDB files (mmCIF has them)
  model = st[0]                         first model, as sitepack's default
  NeighborSearch(model, st.cell, 6.0)   cell lists of the model
  ligands: residues of a non-polymer entity that are not water
  site of a ligand: the residues (chain_idx, residue_idx of the marks) with an atom within 6.0 A of
  a ligand heavy atom (ns.find_atoms(pos, '\\0', radius=6.0)), counted.
Nothing is written. One process, one core. Prints one JSON object: files, ligands, site residues
(summed over ligands, the ligand's own residue included), failed files, seconds of the loop
(time.perf_counter, after `import gemmi`).
Usage: job_gemmi.py DIR
"""
import json
import os
import sys
import time

import gemmi


def main(d):
    files = []
    for root, _, names in os.walk(d):
        files += [os.path.join(root, n) for n in names]
    files.sort()
    t0 = time.perf_counter()
    n_lig = n_site = n_failed = 0
    for f in files:
        try:
            st = gemmi.read_structure(f)
        except Exception:  # sitepack records such a file as failed and goes on
            n_failed += 1
            continue
        st.setup_entities()
        model = st[0]
        ns = gemmi.NeighborSearch(model, st.cell, 6.0).populate()
        for ch in model:
            for res in ch:
                if res.is_water() or res.entity_type != gemmi.EntityType.NonPolymer:
                    continue
                n_lig += 1
                site = set()
                for a in res:
                    if a.element.is_hydrogen:
                        continue
                    for m in ns.find_atoms(a.pos, '\0', radius=6.0):
                        site.add((m.chain_idx, m.residue_idx))
                n_site += len(site)
    secs = time.perf_counter() - t0
    print(json.dumps({"files": len(files), "failed": n_failed, "ligands": n_lig, "site_residues": n_site,
                      "seconds": secs}))


if __name__ == "__main__":
    main(sys.argv[1])
