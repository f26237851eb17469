#!/usr/bin/python3
"""The first biological assembly read by sitepack vs gemmi and the files' own records (issue 17; docs/sites.md
"Biological assemblies").

Usage: test_assembly_gemmi.py SP_DUMP_ASSEMBLY STRUCTURES_DIR

For every structure file, sitepack's first assembly (sp_dump_assembly) is compared with
1. the file's own records, read here: mmCIF with gemmi.cif (the first _pdbx_struct_assembly, its
   _pdbx_struct_assembly_gen rows, oper_expression expanded over _pdbx_struct_oper_list, "(a)(b)" as the
   product with b applied first); PDB REMARK 350 BIOMOLECULE 1 split on blanks: chain lists, operator count
   and matrices (1e-5) must be equal;
2. gemmi 0.5.7's read_structure(...).assemblies[0]: the same chains and operators, and the atom count equal
   to make_assembly(st.assemblies[0], st[0], AddNumber).count_atom_sites(). Where gemmi 0.5.7 reads the
   file differently, the reason is checked and printed (a product expression: gemmi keeps its first group
   only; pair-form assembly categories: gemmi reads none; BIOMT rows gemmi misreads: not a rotation) and the
   atom count is compared with the operators of (1) times the atoms gemmi's first model has on those chains.
Exit 1 on any other difference.
"""
import gzip
import json
import os
import subprocess
import sys

import gemmi
import numpy as np

EXT = (".cif", ".mmcif", ".pdb", ".ent", ".cif.gz", ".mmcif.gz", ".pdb.gz", ".ent.gz")


def expand(expr, opers):
    groups = [g for g in expr.replace(")", " ").split("(") if g.strip()] if "(" in expr else [expr]
    def ids(g):
        out = []
        for item in g.split(","):
            item = item.strip()
            lo, _, hi = item.partition("-")
            if hi and lo.isdigit() and hi.isdigit():
                out += [str(k) for k in range(int(lo), int(hi) + 1)]
            else:
                out.append(item)
        return out
    mats = [[opers[i] for i in ids(g)] for g in groups]
    if len(mats) == 1:
        return mats[0]
    return [(a[0] @ b[0], a[0] @ b[1] + a[1]) for a in mats[0] for b in mats[1]]


def own_mmcif(path):
    b = gemmi.cif.read(path).sole_block()
    gen = b.find("_pdbx_struct_assembly_gen.", ["assembly_id", "oper_expression", "asym_id_list"])
    if not len(gen):
        return None
    first = b.find_values("_pdbx_struct_assembly.id")
    aid = gemmi.cif.as_string(first[0]) if len(first) else gemmi.cif.as_string(gen[0][0])
    opers = {}
    tags = ["id"] + [f"matrix[{i}][{j}]" for i in (1, 2, 3) for j in (1, 2, 3)] + [f"vector[{i}]" for i in (1, 2, 3)]
    for r in b.find("_pdbx_struct_oper_list.", tags):
        v = [float(r[k]) for k in range(1, 13)]
        opers[gemmi.cif.as_string(r[0])] = (np.array(v[:9]).reshape(3, 3), np.array(v[9:]))
    out = []
    for r in gen:
        if gemmi.cif.as_string(r[0]) != aid:
            continue
        out.append((gemmi.cif.as_string(r[2]).split(","), expand(gemmi.cif.as_string(r[1]), opers),
                    "(" in gemmi.cif.as_string(r[1]) and ")(" in gemmi.cif.as_string(r[1])))
    return out


def own_pdb(path):
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    out, rows, in1 = [], {}, False
    with op(path, "rt", errors="replace") as f:
        for l in f:
            if not l.startswith("REMARK 350"):
                continue
            t = l[10:].strip()
            if t.startswith("BIOMOLECULE:"):
                if in1:
                    break
                in1 = t.split(":")[1].strip() == "1"
            elif in1 and (t.startswith("APPLY THE FOLLOWING TO CHAINS:") or t.startswith("AND CHAINS:")):
                chains = [c for c in t.split(":", 1)[1].replace(",", " ").split()]
                if t.startswith("APPLY") or not out or out[-1][1]:
                    out.append(([], [], False))
                out[-1][0].extend(chains)
            elif in1 and t.startswith("BIOMT") and out:
                w = t.split()
                rows[int(w[0][5]) - 1] = [float(x) for x in w[2:6]]
                if len(rows) == 3:
                    m = np.array([rows[i][:3] for i in range(3)])
                    out[-1][1].append((m, np.array([rows[i][3] for i in range(3)])))
                    rows = {}
    return out or None


def is_rotation(m):
    return np.abs(m @ m.T - np.eye(3)).max() < 1e-3


def atoms_on(model, chains, by_label):
    names = set(chains)
    return sum(len(res) for ch in model for res in ch if (res.subchain if by_label else ch.name) in names)


def main():
    tool, d = sys.argv[1:3]
    files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(EXT))
    out = subprocess.run([tool] + files, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(l) for l in out.splitlines()]
    assert len(rows) == len(files), (len(rows), len(files))
    bad, known = [], []
    n_asm = n_ops = n_gemmi_equal = 0
    for r in rows:
        f, name = r["file"], os.path.basename(r["file"])
        if "error" in r:
            bad.append(f"{name}: sitepack could not read it: {r['error']}")
            continue
        is_pdb = ".pdb" in name or name.endswith((".ent", ".ent.gz"))
        own = own_pdb(f) if is_pdb else own_mmcif(f)
        if not own:
            if r["n_gens"]:
                bad.append(f"{name}: the file has no assembly, sitepack {r['n_gens']} generators")
            continue
        n_asm += 1
        if len(own) != r["n_gens"]:
            bad.append(f"{name}: {len(own)} generators in the file, {r['n_gens']} in sitepack")
            continue
        for (chains, ops, _), mine in zip(own, r["gens"]):
            if chains != mine["chains"].split(","):
                bad.append(f"{name}: chains {chains} vs {mine['chains']}")
            if len(ops) != len(mine["ops"]):
                bad.append(f"{name}: {len(ops)} operators in the file, {len(mine['ops'])} in sitepack")
                continue
            n_ops += len(ops)
            for (m, v), o in zip(ops, mine["ops"]):
                if np.abs(m - np.array(o["rot"])).max() > 1e-5 or np.abs(v - np.array(o["trn"])).max() > 1e-4:
                    bad.append(f"{name}: operator {o['id']} differs from the file's")
        # gemmi
        st = gemmi.read_structure(f)
        by_label = not is_pdb
        own_atoms = sum(len(ops) * atoms_on(st[0], chains, by_label) for chains, ops, _ in own)
        if own_atoms != r["atoms"]:
            bad.append(f"{name}: assembly atoms {r['atoms']}, the file's operators x gemmi's atoms {own_atoms}")
        if not len(st.assemblies):
            known.append(f"{name}: gemmi 0.5.7 reads no assembly (pair-form _pdbx_struct_assembly_gen); the file's "
                         f"{sum(len(o) for _, o, _ in own)} operator(s) agree")
            continue
        gg = list(st.assemblies[0].generators)
        gops = [list(g.operators) for g in gg]
        product = any(p for _, _, p in own)
        misread = any(not is_rotation(np.array(o.transform.mat.tolist())) for ops in gops for o in ops)
        if product or misread:
            known.append(f"{name}: gemmi 0.5.7 " + ("keeps the first group of a product expression (" +
                         f"{sum(len(o) for o in gops)} operators, the file {sum(len(o) for _, o, _ in own)})"
                         if product else "misreads BIOMT rows (a matrix that is not a rotation)") +
                         "; sitepack equals the file's records")
            continue
        same = len(gg) == len(own) and all(len(a) == len(b[1]) for a, b in zip(gops, own)) and all(
            np.abs(np.array(o.transform.mat.tolist()) - np.array(m["rot"])).max() <= 1e-5 and
            np.abs(np.array(o.transform.vec.tolist()) - np.array(m["trn"])).max() <= 1e-4
            for a, mine in zip(gops, r["gens"]) for o, m in zip(a, mine["ops"]))
        want = gemmi.make_assembly(st.assemblies[0], st[0], gemmi.HowToNameCopiedChain.AddNumber).count_atom_sites()
        if not same or want != r["atoms"]:
            bad.append(f"{name}: gemmi operators equal: {same}; make_assembly atoms {want}, sitepack {r['atoms']}")
        else:
            n_gemmi_equal += 1
    print(f"{len(rows)} files, {n_asm} with an assembly, {n_ops} operators: all equal to the files' records; "
          f"{n_gemmi_equal} equal to gemmi's assembly and make_assembly atom count, {len(known)} read differently "
          f"by gemmi 0.5.7 (below); {len(bad)} differences")
    for k in known:
        print("known:", k)
    for b in bad[:40]:
        print("FAIL", b)
    return 1 if bad or not n_asm else 0


if __name__ == "__main__":
    sys.exit(main())
