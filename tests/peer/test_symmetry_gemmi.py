#!/usr/bin/python3
"""Crystal symmetry read by sitepack vs gemmi, for every file of a directory (docs/sites.md
"Symmetry mates").

Usage: test_symmetry_gemmi.py SP_DUMP_SYMMETRY STRUCTURES_DIR

For every structure file: sitepack's cell equals gemmi's read_structure(f).cell (1e-3), its space-group
name equals gemmi's spacegroup_hm (blanks normalised), and the crystal/no-crystal decision agrees
(gemmi UnitCell.is_crystal() and a > 2 Å; NMR/EM 1 1 1 cells are no crystal). For every crystal entry
the set of operators sitepack resolved (the file's explicit ones, or CCP4 syminfo.lib by name) equals
gemmi's find_spacegroup_by_name(name).operations(), compared as gemmi.Op (rotation and translation
modulo 1, in 24ths). Exit 1 on any difference.
"""
import json
import os
import subprocess
import sys

import gemmi

EXT = (".cif", ".mmcif", ".pdb", ".ent", ".cif.gz", ".mmcif.gz", ".pdb.gz", ".ent.gz")


def op_key(triplet):
    op = gemmi.Op(triplet)
    return (tuple(map(tuple, op.rot)), tuple(t % gemmi.Op.DEN for t in op.tran))


def main():
    tool, d = sys.argv[1:3]
    files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(EXT))
    out = subprocess.run([tool] + files, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(l) for l in out.splitlines()]
    assert len(rows) == len(files), (len(rows), len(files))
    bad = 0
    n_crystal = n_ops = n_file_ops = n_frame = 0
    for r in rows:
        f = r["file"]
        if "error" in r:
            print(f"FAIL {f}: sitepack could not read it: {r['error']}")
            bad += 1
            continue
        st = gemmi.read_structure(f)
        g_cryst = st.cell.is_crystal() and st.cell.a > 2.0
        if r["cell"] is not None:
            gc = [st.cell.a, st.cell.b, st.cell.c, st.cell.alpha, st.cell.beta, st.cell.gamma]
            if any(abs(x - y) > 1e-3 for x, y in zip(r["cell"], gc)):
                print(f"FAIL {f}: cell {r['cell']} != gemmi {gc}")
                bad += 1
        elif g_cryst:
            print(f"FAIL {f}: no cell read, gemmi has {st.cell}")
            bad += 1
        if " ".join(r["spacegroup"].split()) != " ".join(st.spacegroup_hm.split()):
            print(f"FAIL {f}: space group {r['spacegroup']!r} != gemmi {st.spacegroup_hm!r}")
            bad += 1
        ours_cryst = r["source"] > 0
        sg = gemmi.find_spacegroup_by_name(st.spacegroup_hm, st.cell.alpha, st.cell.gamma) if st.spacegroup_hm else None
        if ours_cryst != (g_cryst and sg is not None):
            print(f"FAIL {f}: crystal {ours_cryst} ({r['why']}) but gemmi: cell crystal {g_cryst}, space group {sg}")
            bad += 1
            continue
        if not ours_cryst:
            continue
        n_crystal += 1
        n_file_ops += r["source"] == 1
        n_frame += r["file_frame"]
        ours = {op_key(t) for t in r["ops"]}
        theirs = {op_key(op.triplet()) for op in sg.operations()}
        if len(ours) != len(r["ops"]) or ours != theirs:
            print(f"FAIL {f}: {st.spacegroup_hm}: {len(r['ops'])} operators {sorted(r['ops'])} != gemmi's "
                  f"{len(theirs)} {sorted(op.triplet() for op in sg.operations())}")
            bad += 1
        n_ops += len(ours)
    print(f"{len(rows)} files: {n_crystal} crystal entries, {n_ops} operators compared with gemmi "
          f"({n_file_ops} from the file's explicit list, the rest by name through CCP4 syminfo.lib); "
          f"{n_frame} in the file's own fractional frame; {len(rows) - n_crystal} without crystal symmetry")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
