#!/usr/bin/python3
"""/atoms/formal_charge (format version 6; docs/format.md "/atoms") against the exported SDF as RDKit reads it, on the
corpus and on the synthetic cases, and the Python package's fallback for version-4 files.

usage: test_formal_charge.py SITEPACK CORPUS.h5 CASES_DIR CCD WORK_DIR

  - corpus: `sitepack export --all --format sdf`; for every record RDKit's formal charges (SDMolSupplier, not
    sanitized, hydrogens kept: the `M  CHG` block) equal /atoms/formal_charge of the site's ligand atoms, atom by
    atom (every ligand atom of every site); every site atom's formal_charge equals its /atoms/charge; the metal and
    valence rules are exercised (some formal_charge differs from the CCD's / file's charge);
  - cases (../shared/cases, every structure file of every case, run with the corpus CCD): the same, on the
    export of that run;
  - version 4: a copy without /atoms/formal_charge (and distance2 back in angle2, as a version-4 build wrote
    it) reads in Python, and Site.to_rdkit's charges (recomputed there by _rdkit.py's fallback rules) equal the
    column of the version-5 file for every corpus site but those whose ligand has perceived bonds (version 8:
    /atoms/ccd_atom bit 3; a version-4 file has distance bonds of unknown order there).
"""
import glob
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
from rdkit import Chem, RDLogger

import sitepack
from sitepack import _rdkit

RDLogger.DisableLog("rdApp.*")
SP, CORPUS, CASES, CCD, WORK = sys.argv[1:6]
fails = []


def check(ok, msg):
    if not ok:
        fails.append(msg)
        print("FAIL:", msg)


def compare_export(h5, name):
    """The SDF records of h5 against its /atoms/formal_charge: (records, ligand atoms, charged atoms, atoms whose
    formal_charge differs from the CCD's / file's charge)."""
    sdf = os.path.join(WORK, f"{name}.sdf")
    with open(sdf, "wb") as out:
        p = subprocess.run([SP, "export", h5, "--all", "--format", "sdf", "--out", "-", "--quiet"], stdout=out)
    check(p.returncode == 0, f"{name}: export exit {p.returncode}")
    with h5py.File(h5, "r") as f:
        ap, nlig = f["sites/atom_ptr"][()], f["sites/n_ligand"][()]
        fc, q = f["atoms/formal_charge"][()], f["atoms/charge"][()]
        pos, el = f["atoms/position"][()], f["atoms/element"][()]
        qc, ca = f["atoms/ccd_charge"][()], f["atoms/ccd_atom"][()]
        check(f["atoms/formal_charge"].dtype == np.int8 and f["atoms/formal_charge"].attrs.get("units") in
              ("e", b"e"), f"{name}: formal_charge dtype {f['atoms/formal_charge'].dtype} / units")
    lig = np.zeros(len(fc), bool)
    for i in range(len(nlig)):
        lig[ap[i]:ap[i] + nlig[i]] = True
    check(np.array_equal(fc[~lig], q[~lig]), f"{name}: site atoms whose formal_charge is not /atoms/charge: "
          f"{int((fc[~lig] != q[~lig]).sum())}")
    seen, n_atoms, n_charged, n_link_h = set(), 0, 0, 0
    for m in Chem.SDMolSupplier(sdf, removeHs=False, sanitize=False):
        check(m is not None, f"{name}: a record RDKit cannot read")
        if m is None:
            continue
        i = int(m.GetProp("site_idx"))
        seen.add(i)
        got = [a.GetFormalCharge() for a in m.GetAtoms()]
        # the record's atoms are the ligand atoms less the hydrogens of linked atoms the export leaves out (SD field
        # link_hydrogens): each record atom is the ligand atom at its position (%.4f in the record)
        lp = pos[ap[i]:ap[i] + nlig[i]].astype(np.float64)
        xyz = m.GetConformer().GetPositions() if m.GetNumConformers() else np.zeros((0, 3))
        idx = [int(np.argmin(np.abs(lp - x).max(axis=1))) for x in xyz]
        check(len(set(idx)) == len(idx) and all(np.abs(lp[k] - x).max() < 1e-3 for k, x in zip(idx, xyz)),
              f"{name}: site {i}: record atoms not at ligand atom positions")
        want = fc[ap[i]:ap[i] + nlig[i]][idx].tolist()
        check(got == want, f"{name}: site {i} {m.GetProp('comp_id')}: SDF charges {got}, formal_charge {want}")
        out = sorted(set(range(int(nlig[i]))) - set(idx))
        check(len(out) == (len(m.GetProp("link_hydrogens").split(";")) if m.HasProp("link_hydrogens") else 0) and
              all(el[ap[i] + k] == 1 and fc[ap[i] + k] == q[ap[i] + k] for k in out),
              f"{name}: site {i}: atoms left out {out}: not the link_hydrogens H with their file charge")
        n_link_h += len(out)
        n_atoms += len(got)
        n_charged += sum(c != 0 for c in got)
    check(seen == set(range(len(nlig))), f"{name}: {len(nlig) - len(seen)} sites without an SDF record")
    base = np.where(ca & 1, qc, q)
    print(f"{name}: {n_link_h} hydrogens of linked atoms left out of the SDF (their formal_charge the file's)")
    return len(seen), n_atoms, n_charged, int((fc[lig] != base[lig]).sum())


def to_v4(path):
    with h5py.File(path, "r+") as f:
        water = f["interactions/type"][...] == 8
        a2 = f["interactions/angle2"][...]
        a2[water] = f["interactions/distance2"][...][water]
        f["interactions/angle2"][...] = a2
        del f["interactions/distance2"]
        del f["atoms/formal_charge"]
        f.attrs["format_version"] = np.int64(4)
        f["run"].attrs["format_version"] = np.int64(4)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(f"{WORK}/cases_in")
r = compare_export(CORPUS, "corpus")
print("corpus: %d records, %d ligand atoms equal, %d charged, %d set by the metal/valence rules" % r)
check(r[0] >= 1000 and r[2] >= 100 and r[3] >= 10, f"corpus: too little exercised {r}")

for p in sorted(glob.glob(f"{CASES}/*/*")):
    if p.endswith((".cif", ".pdb", ".gz", ".ent")):
        os.symlink(os.path.abspath(p), f"{WORK}/cases_in/{os.path.basename(os.path.dirname(p))}_{os.path.basename(p)}")
cases_h5 = f"{WORK}/cases.h5"
p = subprocess.run([SP, "run", "--input", f"{WORK}/cases_in", "--ccd", CCD, "--out", cases_h5, "--quiet"],
                   capture_output=True, text=True)
check(os.path.exists(cases_h5), f"cases: run exit {p.returncode}, no output: {p.stderr[-400:]}")
if os.path.exists(cases_h5):
    rc = compare_export(cases_h5, "cases")
    print("cases: %d records, %d ligand atoms equal, %d charged, %d set by the metal/valence rules" % rc)
    check(rc[0] >= 20 and rc[2] >= 1, f"cases: too little exercised {rc}")

v4 = f"{WORK}/corpus_v4.h5"
shutil.copy(CORPUS, v4)
to_v4(v4)
n_sites = n_diff = 0
with sitepack.open(CORPUS) as d5, sitepack.open(v4) as d4:
    check(d4.format_version == 4 and "atoms/formal_charge" not in d4._cols, "the version-4 copy")
    perceived = 0
    for i in range(len(d5)):
        s5, s4 = d5[i], d4[i]
        if (s5.atoms("ccd_atom")[:s5.n_ligand] & 8).any():
            perceived += 1  # format version 8's perceived charges: a version-4 file holds distance bonds there
            continue
        q5 = _rdkit.ligand_chemistry(s5)[1]
        q4 = _rdkit.ligand_chemistry(s4)[1]
        n_sites += 1
        if not np.array_equal(q4, q5):
            n_diff += 1
            check(False, f"version 4: site {i}: fallback charges {q4.tolist()}, formal_charge {q5.tolist()}")
    m = d4[0].to_rdkit(sanitize=False)
    check(m.GetNumAtoms() == d4[0].n_ligand, "version 4: to_rdkit")
print(f"version 4: {n_sites} sites, fallback charges equal the column on {n_sites - n_diff} ({perceived} sites with "
      f"perceived bonds, format version 8, left out)")
check(n_sites >= 1000, f"version 4: {n_sites} sites compared")
os.remove(v4)
if fails:
    print(f"{len(fails)} failures")
    sys.exit(1)
print("ok")
