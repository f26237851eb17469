#!/usr/bin/python3
"""`sitepack dump OUT.h5 index` (issue 36 item 4; store.h sp_dump_index, docs/format.md): one row per site, equal to
the tables it comes from, read here with h5py: every column of /structures, /ligands and /sites it names at the
site's rows, the interactions of each type (numpy bincount of /interactions/type per site), the pocket's polymer
residues from /residues, and, on a copy with a /clusters and a /splits dataset added here, their columns. The
TSV and the --csv output (read by Python's csv module) hold the same rows; --csv with another table exits 2, a
version-4 file exits 2.
usage: test_dump_index.py SITEPACK CORPUS_H5 WORK_DIR
"""
import csv
import io
import math
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

FAILS = []
IX = ["hydrophobic", "hbond", "salt_bridge", "pi_stack_parallel", "pi_stack_t", "pi_cation", "halogen",
      "water_bridge", "metal"]


def fail(msg):
    FAILS.append(msg)
    if len(FAILS) <= 30:
        print("FAIL:", msg)


def s(b):
    return b.decode() if isinstance(b, bytes) else str(b)


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def same(cell, value, col):
    if isinstance(value, (bytes, np.bytes_)):
        return cell == s(value).replace("\t", " ").replace("\n", " ")
    if col in ("auth_seq_id",) and int(value) == -2**31:
        return cell == "."
    if isinstance(value, (np.floating, float)):
        if math.isnan(value):
            return cell == "nan"
        # the stored float32, in the fewest digits (6 to 9) that give it back: 1.8, not 1.79999995
        return np.float32(float(cell)) == np.float32(value) and sig_digits(cell) <= max(6, shortest(value))
    return int(cell) == int(value)


def sig_digits(cell):
    """Significant digits of a printed number ("1.8e-05" -> 2)."""
    m = cell.lower().lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return len(m.rstrip("0")) if "." in cell.split("e")[0] else len(m)


def shortest(value):
    """Digits of the shortest text that reads back as this float32 (numpy's repr: Steele-White / dragon4)."""
    return sig_digits(np.format_float_scientific(np.float32(value), unique=True, trim="-"))


def expected(f):
    st, lg, si = f["structures"], f["ligands"], f["sites"]
    lig, sti = si["ligand_idx"][:], si["structure_idx"][:]
    n = len(lig)
    cols = {}
    for c in ("entry_id", "path", "method", "resolution", "r_work", "r_free", "release_date"):
        cols[c] = st[c][:][sti]
    cols["ligand_idx"] = lig
    for c, src in (("comp_id", "comp_id"), ("auth_asym_id", "auth_asym_id"), ("auth_seq_id", "auth_seq_id"),
                   ("ins_code", "ins_code"), ("ligand_residues", "residues"), ("class", "class"),
                   ("ligand_flags", "flags"), ("molecule_key", "molecule_key"), ("n_heavy_atoms", "n_heavy_atoms")):
        cols[c] = lg[src][:][lig]
    for c in ("mw", "formal_charge", "hbd", "hba", "hbd_lipinski", "hba_lipinski", "rotatable_bonds", "tpsa", "logp",
              "mr", "n_rings", "n_aromatic_rings", "fsp3", "qed", "desc_flags"):
        cols[c] = lg[c][:][lig]
    cols["site_flags"] = si["flags"][:]
    for c in ("n_residues", "quality", "pass_quality", "ligand_charge", "n_interactions"):
        cols[c] = si[c][:]
    xp, xt = si["interaction_ptr"][:], f["interactions/type"][:]
    site_of = np.repeat(np.arange(n), np.diff(xp))
    for t, name in enumerate(IX, start=1):
        cols[f"ix_{name}"] = np.bincount(site_of[xt == t], minlength=n)
    rp = si["residue_ptr"][:]
    kind, ch, comp = f["residues/kind"][:], f["residues/auth_asym_id"][:], f["residues/comp_id"][:]
    seq, ins = f["residues/auth_seq_id"][:], f["residues/ins_code"][:]
    sym = f["residues/symop"][:] if "symop" in f["residues"] else [b""] * len(kind)
    asm = f["residues/assembly_op"][:] if "assembly_op" in f["residues"] else [b""] * len(kind)
    tag = lambda k: (f"@{s(sym[k])}" if s(sym[k]) else "") + (f"~{s(asm[k])}" if s(asm[k]) else "")  # noqa: E731
    pocket = []
    for i in range(n):
        pocket.append(" ".join(f"{s(ch[k])}:{s(comp[k])}:{int(seq[k])}{s(ins[k])}{tag(k)}"
                               for k in range(rp[i], rp[i + 1]) if kind[k] == 1).encode())
    cols["pocket_residues"] = pocket
    for g, prefix in (("clusters", "cluster"), ("splits", "split")):
        if g in f:
            for name in sorted(f[g]):
                d = f[g][name]
                if d.ndim == 1 and d.shape[0] == n:
                    cols[f"{prefix}_{name}"] = d[:]
    return n, cols


def compare(rows, n, cols, what):
    if not rows:
        fail(f"{what}: no output")
        return
    head = rows[0]
    if head[0] != "site_idx" or set(head[1:]) != set(cols):
        fail(f"{what}: columns {sorted(set(head[1:]) ^ set(cols))} differ")
        return
    if len(rows) - 1 != n:
        fail(f"{what}: {len(rows) - 1} rows, {n} sites")
    bad = 0
    for i, r in enumerate(rows[1:]):
        if int(r[0]) != i:
            fail(f"{what}: row {i} has site_idx {r[0]}")
        for c, cell in zip(head[1:], r[1:]):
            if not same(cell, cols[c][i], c):
                bad += 1
                if bad <= 10:
                    fail(f"{what}: site {i} {c}: {cell!r} != {cols[c][i]!r}")
    print(f"{what}: {len(rows) - 1} rows x {len(head)} columns, {bad} cells differ")


def dump(exe, h5, csv_mode):
    args = [exe, "dump", h5, "index"] + (["--csv"] if csv_mode else [])
    r = run(*args)
    if r.returncode != 0:
        fail(f"{' '.join(args)}: exit {r.returncode} {r.stderr[-300:]}")
        return []
    if csv_mode:
        return list(csv.reader(io.StringIO(r.stdout)))
    return [ln.split("\t") for ln in r.stdout.splitlines()]


def main():
    exe, h5, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    with h5py.File(h5, "r") as f:
        n, cols = expected(f)
    compare(dump(exe, h5, False), n, cols, "index TSV")
    compare(dump(exe, h5, True), n, cols, "index CSV")
    # a copy with a cluster and a split column (as sitepack cluster / split write them: one value per site)
    copy = os.path.join(work, "with_clusters.h5")
    shutil.copyfile(h5, copy)
    with h5py.File(copy, "r+") as f:
        f.create_dataset("clusters/ligand", data=np.arange(n, dtype="<i8") % 7)
        f.create_dataset("clusters/fingerprint", data=np.zeros((3, 256), "u1"))  # not one value per site: left out
        f.create_dataset("splits/by_test", data=(np.arange(n) % 3 - 1).astype("i1"))
    with h5py.File(copy, "r") as f:
        n2, cols2 = expected(f)
    if "cluster_ligand" not in cols2 or "split_by_test" not in cols2 or "cluster_fingerprint" in cols2:
        fail(f"expected columns of the copy: {sorted(c for c in cols2 if '_' in c and c.split('_')[0] in ('cluster', 'split'))}")
    compare(dump(exe, copy, False), n2, cols2, "index TSV with clusters and splits")
    r = run(exe, "dump", h5, "sites", "--csv")
    if r.returncode != 2:
        fail(f"dump sites --csv: exit {r.returncode}, expected 2")
    v4 = os.path.join(work, "v4.h5")
    shutil.copyfile(h5, v4)
    with h5py.File(v4, "r+") as f:
        f.attrs["format_version"] = np.int64(4)
    r = run(exe, "dump", v4, "index")
    if r.returncode != 2 or "format version 4" not in r.stderr:
        fail(f"dump index of a version-4 file: exit {r.returncode} {r.stderr[-200:]}")
    print(f"{len(FAILS)} failures")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
