#!/usr/bin/env python3
"""Format versions 2 to 8 in the C commands, and the value checks of `sitepack check` (docs/format.md "Versions").

usage: test_check_versions.py SITEPACK READER_DUMP CORPUS.h5 V2_FIXTURE.h5 WORKDIR

CORPUS.h5 is the merged output of shared/data/structures (fixture py_corpus, format version 8); its version-7 copy
(to_v7: version 8 changed values only) is the file the older copies below are made from; V2_FIXTURE.h5
(tests/data/format_v2/small_v2.h5) was written by the last version-2 build (git 453e8fe) from 1cbn.pdb, 1rmd.pdb
and 1tqh.cif.gz of tests/data. A version-2 copy of CORPUS.h5 is made with h5py by deleting what version 3
to 5 added (docs/format.md "File-level rules"); it must hold exactly the datasets (names, dtypes) of the real
version-2 file. A version-3 copy is made the same way by deleting what versions 4 and 5 added
(/structures/warnings), each after to_v4 (distance2 back in angle2 on the water-bridge rows, as a version-4
build wrote them, then distance2 deleted); a version-4 copy is to_v4 alone.
Then:
  - check passes both version-2 files and says "format version 2", the version-3 copy "format version 3";
    version 9 and 0 fail (unknown_format, the version named); a version-3 file without a version-3 column
    fails, a version-2 file with a version-3 column of the wrong type fails (absence is accepted in a version-2
    file only); a version-4 file without /structures/warnings fails, a version-3 file with it of the wrong type
    fails, a version-3 file whose n_warnings has no texts passes (the warnings check is version 4's);
  - dump of every version-2 and version-3 table equals the version-5 dump as version 4 printed it (as_v4_dump)
    without the columns of the later versions; dump chains of a
    version-2 file exits 2 naming the version; survey prints the same without the protein-context lines
    (version 3: the same lines); `bench read --real` reads the same sites (checksums of its sitepack rows) from
    all three; export --all (sdf, pdb) is byte-identical; the C reader (test_reader_dump, mmap and HDF5 paths)
    gives h5py's slices of the version-2 and version-3 files;
  - version 4: check passes it, the C reader reads it, dump prints no distance2 and angle2 as version 4 had it;
    a version-5 file without /interactions/distance2 fails, a version-4 file with it of the wrong type fails;
  - version 7 (versions_78): check passes the version-7 copy, the C reader reads it, dump equals version 8's bar
    the bond source and order and desc_flags; /bonds/source perceived is bad_value in a version-7 file and
    accepted in a version-8 one, a source of no version is bad_value; to_v7 undoes a made-up version-8 change;
  - each damaged copy (element 200, a NaN position, class "nonsense", interaction type 99, residue kind 7,
    cutoff 0 and a NaN cutoff, distance2 -1.5 and inf) fails check with class bad_value, the file, the dataset and the row.
"""
import json
import os
import shutil
import subprocess
import sys

import importlib.util
import h5py
import numpy as np

sp, reader_dump, corpus, fixture, work = sys.argv[1:6]
corpus8 = corpus  # the run's file (format version 8); `corpus` becomes its version-7 copy (versions_78)
HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(work, exist_ok=True)
failures = []

# what format version 3 added (docs/format.md "File-level rules"); /residues/assembly_op (optional) came with it
V3_TABLES = ("chains", "segments", "sequences")
V3_COLUMNS = ("structures/method_file", "structures/r_work", "structures/r_free", "structures/deposition_date",
              "structures/release_date", "structures/n_chains", "ligands/b_mean", "ligands/b_max",
              "ligands/site_b_mean", "ligands/site_b_max", "ligands/occupancy_mean", "ligands/system_id",
              "ligands/system_size", "residues/chain_idx", "residues/assembly_op")
# what format version 4 added
V4_COLUMNS = ("structures/warnings",)
# what format version 5 added: /interactions/distance2, the water bridge's water O - site atom distance that
# angle2 held before (to_v4 puts it back there)
V5_COLUMNS = ("interactions/distance2",)
# what format version 6 added: /atoms/formal_charge (issue 33), issue 37's /ligands columns, issue 36's ligand
# descriptors and site quality (src/store/schema.c v6_columns)
V6_COLUMNS = ("atoms/formal_charge", "ligands/identities", "ligands/instance_key") + tuple(
    f"{t}/{c}" for t in ("ligands", "components") for c in (
        "mw", "formal_charge", "hbd", "hba", "hbd_lipinski", "hba_lipinski", "rotatable_bonds", "tpsa", "logp",
        "mr", "n_rings", "n_aromatic_rings", "fsp3", "qed", "desc_flags")) + (  # the ligand descriptors (issue 36)
    "sites/quality", "sites/pass_quality")  # and the site quality (issue 36)
WATER_BRIDGE = 8


def to_v5(f):
    """An open version-6 file (h5py, r+) made version 5 as a version-5 build wrote it: the version-6 columns
    deleted (docs/format.md "Versions")."""
    for c in V6_COLUMNS:
        del f[c]
    f.attrs["format_version"] = np.int64(5)
    f["run"].attrs["format_version"] = np.int64(5)


def to_v4(f):
    """An open version-5 file (h5py, r+) made version 4 as a version-4 build wrote it: distance2's values back in
    angle2 on the water-bridge rows, distance2 and the ligand descriptors deleted (docs/format.md "Versions")."""
    water = f["interactions/type"][...] == WATER_BRIDGE
    a2 = f["interactions/angle2"][...]
    a2[water] = f["interactions/distance2"][...][water]
    f["interactions/angle2"][...] = a2
    for c in V5_COLUMNS + V6_COLUMNS:
        del f[c]
    f.attrs["format_version"] = np.int64(4)
    f["run"].attrs["format_version"] = np.int64(4)


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def run(*args):
    p = subprocess.run([sp, *args], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o.dtype.str) if isinstance(o, h5py.Dataset) else None)
    return out


def make_v2(src, dst):
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        to_v4(f)
        for t in V3_TABLES:
            del f[t]
        for c in V3_COLUMNS + V4_COLUMNS:
            if c in f:
                del f[c]
        f.attrs["format_version"] = np.int64(2)
    return dst


def make_v4(src, dst):
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        to_v4(f)
    return dst


def make_v3(src, dst):
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        to_v4(f)
        for c in V4_COLUMNS:
            del f[c]
        f.attrs["format_version"] = np.int64(3)
    return dst


def copy_edit(name, src, edit):
    p = os.path.join(work, name + ".h5")
    shutil.copy(src, p)
    with h5py.File(p, "r+") as f:
        edit(f)
    return p


def expect_invalid(path, cls, *words):
    rc, _, err = run("check", path)
    check(rc == 1, f"{os.path.basename(path)}: check exit {rc}, expected 1 ({err.strip()})")
    want = f"INVALID: {cls}: {path}"
    check(want in err, f"{os.path.basename(path)}: '{want}' not in: {err.strip()}")
    for w in words:
        check(w in err, f"{os.path.basename(path)}: '{w}' not in: {err.strip()}")
    return err


def c_reader(path, mode, idx):
    out = subprocess.run([reader_dump, path, mode] + [str(i) for i in idx], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    sites, k = [], 1
    while k < len(out):
        _, i, n, nl = out[k].split()
        rows = [r.split() for r in out[k + 1:k + 1 + int(n)]]
        pos = np.array([[float(x) for x in r[:3]] for r in rows], dtype=np.float32).reshape(-1, 3)
        sites.append((int(i), int(nl), pos, np.array([int(r[3]) for r in rows]), np.array([int(r[4]) for r in rows])))
        k += 1 + int(n)
    return [int(x) for x in out[0].split()[1:]], sites


def reader_equals_h5py(path):
    with h5py.File(path, "r") as f:
        ptr = f["sites/atom_ptr"][:]
        n = len(ptr) - 1
        idx = sorted({0, n // 2, n - 1, min(3, n - 1)})
        pos, el, fl, nlig = f["atoms/position"], f["atoms/element"], f["atoms/flags"], f["sites/n_ligand"][:]
        counts_h5 = [f["structures/path"].shape[0], f["ligands/structure_idx"].shape[0], n,
                     f["residues/site_idx"].shape[0], f["atoms/position"].shape[0]]
        for mode in ("auto", "hdf5"):
            counts, sites = c_reader(path, mode, idx)
            check(counts == counts_h5, f"{path} {mode}: reader counts {counts}, h5py {counts_h5}")
            for i, nl, p, e, g in sites:
                a0, a1 = ptr[i], ptr[i + 1]
                check(nl == nlig[i] and np.array_equal(p, pos[a0:a1]) and np.array_equal(e, el[a0:a1]) and
                      np.array_equal(g, fl[a0:a1]), f"{path} {mode}: site {i} differs from h5py's slices")


def tsv_without(data, drop):
    lines = data.decode().splitlines()
    if not lines:
        return []
    head = lines[0].split("\t")
    keep = [k for k, h in enumerate(head) if h not in drop]
    return ["\t".join(r.split("\t")[k] for k in keep) for r in lines]


def versions():
    rc, out, err = run("check", corpus)
    check(rc == 0 and b"valid sitepack file (format version 7)" in out, f"corpus_v7: check {rc} {out} {err}")
    v2 = make_v2(corpus, os.path.join(work, "corpus_v2.h5"))
    v3 = make_v3(corpus, os.path.join(work, "corpus_v3.h5"))
    rc, out, err = run("check", v3)
    check(rc == 0 and b"valid sitepack file (format version 3)" in out, f"{v3}: check {rc} {out} {err}")
    reader_equals_h5py(v3)
    real = datasets(fixture)
    check(datasets(v2) == real, f"the h5py version-2 copy and the 453e8fe file differ: "
          f"{sorted(set(datasets(v2).items()) ^ set(real.items()))}")
    for p in (fixture, v2):
        rc, out, err = run("check", p)
        check(rc == 0 and b"valid sitepack file (format version 2)" in out, f"{p}: check {rc} {out} {err}")
        reader_equals_h5py(p)
    for ver in (9, 0):
        p = copy_edit(f"version{ver}", corpus8, lambda f: f.attrs.__setitem__("format_version", np.int64(ver)))
        expect_invalid(p, "unknown_format", f"unknown format version {ver} (this sitepack reads 2 to 8")
        for cmd in (["dump", p, "sites"], ["export", p, "--all", "--out", "-"]):
            rc, _, err = run(*cmd)
            check(rc != 0 and f"unknown format version {ver}" in err, f"{cmd[0]} of version {ver}: {rc} {err}")
        os.remove(p)
    p = copy_edit("v3_without_b_mean", corpus, lambda f: f.__delitem__("ligands/b_mean"))
    expect_invalid(p, "unknown_format", "missing dataset /ligands/b_mean")

    def wrong_b_mean(f):
        n = f["ligands/comp_id"].shape[0]
        f.create_dataset("ligands/b_mean", data=np.zeros(n, "<f8"))
    p2 = copy_edit("v2_bad_b_mean", v2, wrong_b_mean)
    expect_invalid(p2, "unknown_format", "/ligands/b_mean has the wrong type")
    for p in (p, p2):
        os.remove(p)
    # version 4: /structures/warnings required, and checked against n_warnings; version 3: neither
    p = copy_edit("v4_without_warnings", corpus, lambda f: f.__delitem__("structures/warnings"))
    expect_invalid(p, "unknown_format", "missing dataset /structures/warnings")

    def wrong_warnings(f):
        n = f["structures/path"].shape[0]
        f.create_dataset("structures/warnings", data=np.zeros(n, "S64"))
    p2 = copy_edit("v3_bad_warnings", v3, wrong_warnings)
    expect_invalid(p2, "unknown_format", "/structures/warnings has the wrong type")

    def more_warnings(f):
        d = f["structures/n_warnings"][...]
        d[0] += 2
        f["structures/n_warnings"][...] = d
    p3 = copy_edit("v4_n_warnings", corpus, more_warnings)
    with h5py.File(corpus, "r") as f:
        n0 = int(f["structures/n_warnings"][0])
    expect_invalid(p3, "unknown_format", "/structures/warnings[0] ", f"n_warnings is {n0 + 2}")
    p4 = copy_edit("v3_n_warnings", v3, more_warnings)
    rc, out, err = run("check", p4)
    check(rc == 0 and b"format version 3" in out, f"version 3 with n_warnings and no texts: check {rc} {err}")
    for p in (p, p2, p3, p4):
        os.remove(p)
    versions_45()
    return v2, v3


def versions_45():
    """Version 4 (angle2 holds the water bridges' distance2): check passes it; a version-5 file without
    /interactions/distance2 fails; dump prints version 4's columns (no distance2), the version-5 dump read as
    version 4 printed it (as_v4_dump); the C reader reads it as version 5."""
    v4 = make_v4(corpus, os.path.join(work, "corpus_v4.h5"))
    rc, out, err = run("check", v4)
    check(rc == 0 and b"valid sitepack file (format version 4)" in out, f"{v4}: check {rc} {out} {err}")
    reader_equals_h5py(v4)
    with h5py.File(corpus, "r") as f, h5py.File(v4, "r") as g:
        water = f["interactions/type"][...] == WATER_BRIDGE
        d2, a2, a2_4 = f["interactions/distance2"][...], f["interactions/angle2"][...], g["interactions/angle2"][...]
    check(water.sum() > 0 and np.array_equal(a2_4[water], d2[water]) and
          np.array_equal(np.isnan(a2_4[~water]), np.isnan(a2[~water])) and
          np.array_equal(a2_4[~water & ~np.isnan(a2)], a2[~water & ~np.isnan(a2)]),
          "the version-4 copy: angle2 = distance2 on water-bridge rows, version 5's angle2 elsewhere")
    for t in ("interactions", "sites", "residues"):
        rc5, d5, e5 = run("dump", corpus, t)
        rc4, d4, e4 = run("dump", v4, t)
        check(rc5 == 0 and rc4 == 0 and d4 == as_v4_dump(d5), f"dump {t}: version 4 differs from version 5 "
              f"({rc4} {rc5} {e4} {e5})")
        if t == "interactions":
            h4, h5 = d4.decode().split("\n", 1)[0].split("\t"), d5.decode().split("\n", 1)[0].split("\t")
            check("distance2" in h5 and "distance2" not in h4 and len(h5) == len(h4) + 1,
                  f"dump interactions: distance2 in version 5 only ({len(h4)} / {len(h5)} columns)")
    p = copy_edit("v5_without_distance2", corpus, lambda f: f.__delitem__("interactions/distance2"))
    expect_invalid(p, "unknown_format", "missing dataset /interactions/distance2")
    versions_67()
    versions_56()

    def wrong_distance2(f):
        f.create_dataset("interactions/distance2", data=np.zeros(f["interactions/type"].shape[0], "<f8"))
    p2 = copy_edit("v4_bad_distance2", v4, wrong_distance2)
    expect_invalid(p2, "unknown_format", "/interactions/distance2 has the wrong type")
    for p in (p, p2, v4):
        os.remove(p)


def _rdkit_rules():
    """python/sitepack/_rdkit.py (numpy only), loaded from the source tree without the package: its fallback for
    files without /atoms/formal_charge is the SDF export's charge rule of format version 7 and older."""
    spec = importlib.util.spec_from_file_location("sp_rdkit_rules", os.path.join(HERE, "..", "..", "python",
                                                                                 "sitepack", "_rdkit.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _SiteRows:
    """Site i of an open file, as much of sitepack.Site as _rdkit.ligand_chemistry reads, without
    /atoms/formal_charge (so it applies the rules)."""

    def __init__(self, f, i):
        a0, a1 = (int(x) for x in f["sites/atom_ptr"][i:i + 2])
        b0, b1 = (int(x) for x in f["sites/bond_ptr"][i:i + 2])
        self.n_ligand = int(f["sites/n_ligand"][i])
        self.elements = f["atoms/element"][a0:a1]
        self.positions = f["atoms/position"][a0:a1]
        cols = {c: f["bonds/" + c][b0:b1] for c in ("atom1", "atom2", "order", "flags")}
        self.bonds = [{c: v[k] for c, v in cols.items()} for k in range(b1 - b0)]
        self._cols = {"atoms/" + c: f["atoms/" + c][a0:a1] for c in ("charge", "ccd_charge", "ccd_atom")}
        self._ds = self

    def atoms(self, name):
        return self._cols["atoms/" + name]


def to_v7(f):
    """An open version-8 file (h5py, r+) made version 7 as a version-7 build wrote it (docs/format.md "Versions":
    version 8 changed values, no dataset): the /bonds rows of source perceived are distance with order 0
    (unknown), the /atoms/ccd_atom bit 3 perceived is cleared with those atoms' ccd_charge set to 0, the ligand
    atoms of their sites get /atoms/formal_charge by the version-7 rule (the SDF export's,
    which python/sitepack/_rdkit.py applies to files without the column), and those sites' ligands the
    desc_flags bit unknown_orders (16) where their descriptors are computed (the descriptor values stay version
    8's: check does not recompute them). Returns the number of perceived rows."""
    src = f["bonds/source"][...]
    per = src == b"perceived"
    if per.any():
        order = f["bonds/order"][...]
        src[per], order[per] = b"distance", 0
        f["bonds/source"][...], f["bonds/order"][...] = src, order
        ca, cc = f["atoms/ccd_atom"][...], f["atoms/ccd_charge"][...]
        pa = (ca & 8) != 0  # ccd_atom bit 3 perceived (version 8): no CCD atom, so charge 0 and the bit clear
        ca[pa], cc[pa] = ca[pa] & np.uint8(0xF7), 0
        f["atoms/ccd_atom"][...], f["atoms/ccd_charge"][...] = ca, cc
        rules, fc, ap = _rdkit_rules(), f["atoms/formal_charge"][...], f["sites/atom_ptr"][...]
        sites = np.unique(f["bonds/site_idx"][...][per])
        for i in sites.tolist():
            nl = int(f["sites/n_ligand"][i])
            fc[ap[i]:ap[i] + nl] = rules.ligand_chemistry(_SiteRows(f, i))[1]
        f["atoms/formal_charge"][...] = fc
        dfl, lig = f["ligands/desc_flags"][...], f["sites/ligand_idx"][...][sites]
        dfl[lig] |= np.where(dfl[lig] & 1, np.uint8(16), np.uint8(0))
        f["ligands/desc_flags"][...] = dfl
    f.attrs["format_version"] = np.int64(7)
    f["run"].attrs["format_version"] = np.int64(7)
    return int(per.sum())


def to_v7_undoes():
    """to_v7 gives back a version-7 file: a version-7 copy (to_v7 of the corpus file) whose distance bonds of order 0 inside one ligand's
    residues (flags 0: the bonds version 8 perceives) are made perceived of order 1, its ligand atoms'
    formal_charge +1 and its desc_flags bit unknown_orders cleared, made version 7, equals the file in /bonds,
    /atoms/formal_charge and /ligands/desc_flags (the file's values of those rows are version 7's: no perception)."""
    cols = ("bonds/source", "bonds/order", "atoms/formal_charge", "ligands/desc_flags")
    base = copy_edit("v7_base", corpus8, to_v7)  # the corpus's own perceived bonds undone first
    with h5py.File(base, "r") as f:
        want = {c: f[c][...] for c in cols}
        site = f["bonds/site_idx"][...]
        cand = (want["bonds/source"] == b"distance") & (want["bonds/order"] == 0) & (f["bonds/flags"][...] == 0)
        i = int(site[cand][0]) if cand.any() else -1
        a0, nl = (int(f["sites/atom_ptr"][i]), int(f["sites/n_ligand"][i])) if i >= 0 else (0, 0)
        lig = int(f["sites/ligand_idx"][i]) if i >= 0 else 0
    if i < 0:
        print("versions_78: no distance bond of order 0 inside a ligand residue: to_v7's charge rule is not tested")
        return

    def fake_v8(f):
        rows = cand & (site == i)
        src, order, fc, dfl = (f[c][...] for c in cols)
        src[rows], order[rows] = b"perceived", 1
        fc[a0:a0 + nl] += 1
        dfl[lig] &= np.uint8(0xEF)
        for c, v in zip(cols, (src, order, fc, dfl)):
            f[c][...] = v
        check(to_v7(f) == int(rows.sum()), "to_v7: the perceived rows counted")
    p = copy_edit("v8_fake_perceived", base, fake_v8)
    with h5py.File(p, "r") as f:
        for c in cols:
            check(np.array_equal(f[c][...], want[c]), f"to_v7 of site {i}'s made-up perceived bonds: {c} differs")
    os.remove(p)
    os.remove(base)


def bond_sources(path):
    """The /bonds/source values the build that wrote @p path knows (its `values` attribute, describe.c)."""
    with h5py.File(path, "r") as f:
        return json.loads(f["bonds/source"].attrs["values"])


def versions_78():
    """Version 7 (before the version-8 values): the run's file is version 8; its version-7 copy (to_v7) passes
    check as version 7, the C reader reads it, and dump gives the version-8 output bar the bond source and order
    and the desc_flags that version 8 changed. /bonds/source perceived: bad_value in a version-7 file, accepted in
    a version-8 one; a name of no version is bad_value. Returns the version-7 copy (the older versions are made
    from it)."""
    rc, out, err = run("check", corpus8)
    check(rc == 0 and b"valid sitepack file (format version 8)" in out, f"corpus: check {rc} {out} {err}")
    v7 = os.path.join(work, "corpus_v7.h5")
    shutil.copyfile(corpus8, v7)
    with h5py.File(v7, "r+") as f:
        n_per = to_v7(f)
    print(f"versions_78: the corpus holds {n_per} /bonds rows of source perceived")
    rc, out, err = run("check", v7)
    check(rc == 0 and b"valid sitepack file (format version 7)" in out, f"{v7}: check {rc} {out} {err}")
    reader_equals_h5py(v7)
    to_v7_undoes()
    changed = {"source", "order", "desc_flags"}
    for t in ("ligands", "sites", "bonds", "interactions", "components"):
        rc8, d8, _ = run("dump", corpus8, t)
        rc7, d7, _ = run("dump", v7, t)
        check(rc7 == 0 and rc8 == 0 and tsv_without(d7, changed) == tsv_without(d8, changed)
              and (d7 != d8) <= (n_per > 0 and t in ("ligands", "bonds")),
              f"dump {t}: version 7 differs from version 8 beyond the bond source and order and desc_flags")
    with h5py.File(corpus8, "r") as f:
        src = f["bonds/source"][...]
        k = int(np.flatnonzero(src != b"perceived")[0])

    def set_source(name):
        def edit(f):
            d = f["bonds/source"][...]
            d[k] = name
            f["bonds/source"][...] = d
        return edit
    p = copy_edit("v7_perceived", v7, set_source(b"perceived"))
    knows = "perceived" in bond_sources(corpus8)  # SP_BOND_SRC_PERCEIVED (bonds.h) in this build
    expect_invalid(p, "bad_value", f"/bonds/source[{k}] = 'perceived': ",
                   *(["a format version 8 value in a version-7 file"] if knows else []))
    os.remove(p)
    if knows:  # a version-8 file may hold it (the row's other checks, the formal charge, are not this test's)
        p = copy_edit("v8_perceived", corpus8, set_source(b"perceived"))
        rc, _, err = run("check", p)
        check("/bonds/source" not in err, f"version 8 with a perceived bond: check {rc} {err}")
        os.remove(p)
    else:
        print("versions_78: this build has no /bonds/source value perceived (bonds.h SP_BOND_SRC_PERCEIVED): "
              "a version-8 file holding one is not tested")
    p = copy_edit("v8_source_nonsense", corpus8, set_source(b"nonsense"))
    expect_invalid(p, "bad_value", f"/bonds/source[{k}] = 'nonsense': not one of ccd, file, conect, struct_conn, "
                   "distance")
    os.remove(p)
    return v7


def to_v6(f):
    """An open version-7 file (h5py, r+) made version 6 as a version-6 build wrote it: no class lipid or detergent
    (a version-6 build called them small_molecule and artifact), no desc_flags bit unknown_orders (16)
    (docs/format.md "Versions": version 7 added values, no dataset)."""
    cls = f["ligands/class"][...]
    cls[cls == b"lipid"] = b"small_molecule"
    cls[cls == b"detergent"] = b"artifact"
    f["ligands/class"][...] = cls
    f["ligands/desc_flags"][...] = f["ligands/desc_flags"][...] & np.uint8(0xEF)
    f.attrs["format_version"] = np.int64(6)
    f["run"].attrs["format_version"] = np.int64(6)


def versions_67():
    """Version 6 (before the version-7 values): check passes it, the C reader reads it, and dump gives the
    version-7 output bar the class and desc_flags values that version 7 added."""
    v6 = os.path.join(work, "corpus_v6.h5")
    shutil.copyfile(corpus, v6)
    with h5py.File(v6, "r+") as f:
        n_new = int(np.isin(f["ligands/class"][...], [b"lipid", b"detergent"]).sum())
        n_bit = int((f["ligands/desc_flags"][...] & 16).astype(bool).sum())
        to_v6(f)
    check(n_new > 0 and n_bit > 0, f"the corpus holds version-7 values: {n_new} lipid/detergent, {n_bit} unknown_orders")
    rc, out, err = run("check", v6)
    check(rc == 0 and b"valid sitepack file (format version 6)" in out, f"{v6}: check {rc} {out} {err}")
    reader_equals_h5py(v6)
    for t in ("ligands", "sites", "interactions", "components"):  # the ligand's class is a column of dump sites too
        rc7, d7, _ = run("dump", corpus, t)
        rc6, d6, _ = run("dump", v6, t)
        check(rc6 == 0 and rc7 == 0 and tsv_without(d6, {"class", "desc_flags"}) == tsv_without(d7, {"class", "desc_flags"})
              and (d6 != d7) == (t in ("ligands", "sites")), f"dump {t}: version 6 differs from version 7 beyond class and "
              "desc_flags")
    os.remove(v6)


def versions_56():
    """Version 5 (before the version-6 columns): check passes it and the C reader reads it; dump and export give
    the version-6 output without those columns; a version-6 file without any one of them fails check."""
    v5 = os.path.join(work, "corpus_v5.h5")
    shutil.copyfile(corpus, v5)
    with h5py.File(v5, "r+") as f:
        to_v5(f)
    rc, out, err = run("check", v5)
    check(rc == 0 and b"valid sitepack file (format version 5)" in out, f"{v5}: check {rc} {out} {err}")
    reader_equals_h5py(v5)
    v6_names = {c.split("/")[1] for c in V6_COLUMNS}
    for t in ("ligands", "components", "sites", "interactions"):
        rc6, d6, e6 = run("dump", corpus, t)
        rc5, d5, e5 = run("dump", v5, t)
        check(rc5 == 0 and rc6 == 0 and tsv_without(d5, ()) == tsv_without(d6, v6_names),
              f"dump {t}: version 5 differs from version 6 bar the version-6 columns ({rc5} {rc6} {e5} {e6})")
    rc5, x5, _ = run("export", v5, "--site", "0,1,2", "--format", "sdf", "--out", "-")
    rc6, x6, _ = run("export", corpus, "--site", "0,1,2", "--format", "sdf", "--out", "-")
    check(rc5 == 0 and rc6 == 0 and x5 == x6, "export of version 5 and 6: the same SDF records")
    for c in V6_COLUMNS:
        p = copy_edit("v6_without_" + c.replace("/", "_"), corpus, lambda f: f.__delitem__(c))
        expect_invalid(p, "unknown_format", "missing dataset /" + c)
        os.remove(p)
    os.remove(v5)


def as_v4_dump(data):
    """A version-5 dump of /interactions as version 4 printed it: no distance2 column, its values in angle2 on the
    water-bridge rows (the other tables: unchanged)."""
    lines = data.decode().splitlines()
    if not lines or "distance2" not in lines[0].split("\t"):
        return data
    head = lines[0].split("\t")
    k2, kd, kt = head.index("angle2"), head.index("distance2"), head.index("type")
    out = []
    for ln in lines:
        r = ln.split("\t")
        if ln is not lines[0] and r[kt] in (str(WATER_BRIDGE), "water_bridge"):
            r[k2] = r[kd]
        out.append("\t".join(r[:kd] + r[kd + 1:]))
    return ("\n".join(out) + "\n").encode()


def dump_export(v2, v3):
    v5_names = {c.split("/")[1] for c in V6_COLUMNS}  # the version-6 columns, absent from older files too
    v3_names = {c.split("/")[1] for c in V3_COLUMNS + V4_COLUMNS} | v5_names
    v4_names = {c.split("/")[1] for c in V4_COLUMNS} | v5_names
    for t in ("structures", "ligands", "components", "sites", "residues", "interactions", "bonds"):
        rc4, d4, e4 = run("dump", corpus, t)
        d4 = as_v4_dump(d4)
        rc3, d3, e3 = run("dump", v3, t)
        rc2, d2, e2 = run("dump", v2, t)
        check(rc4 == 0 and rc3 == 0 and rc2 == 0, f"dump {t}: {rc4} {rc3} {rc2} {e4} {e3} {e2}")
        check(tsv_without(d2, v3_names) == tsv_without(d4, v3_names), f"dump {t}: version 2 differs from version 4")
        check(tsv_without(d3, v4_names) == tsv_without(d4, v4_names), f"dump {t}: version 3 differs from version 4")
        h3, h4 = d3.decode().split("\n", 1)[0].split("\t"), d4.decode().split("\n", 1)[0].split("\t")
        if t == "structures":
            check("warnings" in h4 and "warnings" not in h3 and len(h4) == len(h3) + 1,
                  f"dump structures: the warnings column in version 4 only ({len(h3)} / {len(h4)} columns)")
    rc, _, err = run("dump", fixture, "sites")
    check(rc == 0, f"dump sites of the 453e8fe file: {rc} {err}")
    for t in ("chains", "segments"):
        rc, _, err = run("dump", v2, t)
        check(rc == 2 and f"format version 2 has no table /{t}" in err, f"dump {t} of version 2: {rc} {err}")
    rc3, s3, e3 = run("survey", corpus)
    rc33, s33, e33 = run("survey", v3)
    v5_lines = ("survey of ", "ligand descriptors (RDKit):", "site quality (")  # version 5's lines (issue 36)
    body = lambda out: [ln for ln in out.decode().splitlines() if not ln.startswith(v5_lines)]  # noqa: E731
    check(rc33 == 0 and len(body(s3)) > 10 and body(s33) == body(s3),
          f"survey: version 3 differs from version 4 ({rc33} {e33})")
    rc2, s2, e2 = run("survey", v2)
    context = ("survey of ", "polymer chains:", "chains by type:", "systems (") + v5_lines  # version 3's context
    s3 = [ln for ln in s3.decode().splitlines() if not ln.startswith(context)]
    s2 = [ln for ln in s2.decode().splitlines() if not ln.startswith(context)]
    check(rc3 == 0 and rc2 == 0 and len(s3) > 10 and s2 == s3, f"survey: {rc3} {rc2} {e2} {len(s3)} {len(s2)}")
    rc3, x3, e3 = run("export", corpus, "--all", "--format", "sdf,pdb", "--out", "-", "--quiet")
    rc2, x2, e2 = run("export", v2, "--all", "--format", "sdf,pdb", "--out", "-", "--quiet")
    check(rc3 == 0 and rc2 == 0 and len(x3) > 1000000 and x2 == x3, f"export: {rc3} {rc2} {len(x3)} {len(x2)} {e2}")
    rc33, x33, e33 = run("export", v3, "--all", "--format", "sdf,pdb", "--out", "-", "--quiet")
    check(rc33 == 0 and x33 == x3, f"export: version 3 differs from version 4 ({rc33} {e33})")
    sums = []
    for p in (corpus, v2, v3):  # sitepack bench read --real: the C reader's mmap and HDF5 paths, checksums of the reads
        js = os.path.join(work, "bench.json")
        rc, _, err = run("bench", "read", "--real", p, "--n", "512", "--atoms", "16", "--count", "200", "--reps", "1",
                         "--dir", os.path.join(work, "bench"), "--out", js)
        check(rc == 0, f"bench read --real {p}: {rc} {err[-300:]}")
        reads = json.load(open(js))["reads"] if rc == 0 else []
        sums.append(sorted((r["backend"], r["pattern"], r["checksum"]) for r in reads if r["data"] == "real" and
                           r["backend"].startswith("sitepack")))
    shutil.rmtree(os.path.join(work, "bench"), ignore_errors=True)
    check(len(sums[0]) >= 2 and sums[0] == sums[1] == sums[2],
          f"bench read --real: version 4 {sums[0]}, version 2 {sums[1]}, version 3 {sums[2]}")
    rc, x, err = run("export", fixture, "--all", "--format", "sdf", "--out", "-", "--quiet")
    with h5py.File(fixture, "r") as f:
        n_sites = f["sites/atom_ptr"].shape[0] - 1
    check(rc == 0 and x.count(b"$$$$\n") == n_sites, f"export of the 453e8fe file: {rc} {x.count(b'$$$$')} {err}")


def values():
    corpus = corpus8
    with h5py.File(corpus, "r") as f:
        a = f["atoms/element"].shape[0] * 2 // 3
        lg = f["ligands/class"].shape[0] - 2
        ix = f["interactions/type"].shape[0] // 2
        r = f["residues/kind"].shape[0] - 1
        s = f["sites/cutoff"].shape[0] // 3

    def setv(name, row, value, col=None):
        def edit(f):
            d = f[name][...]
            if col is None:
                d[row] = value
            else:
                d[row, col] = value
            f[name][...] = d
        return edit
    cases = [("element200", setv("atoms/element", a, 200), "/atoms/element", a, "= 200: not an atomic number"),
             ("nan_position", setv("atoms/position", a + 1, np.nan, 1), "/atoms/position", a + 1, "nan"),
             ("class_nonsense", setv("ligands/class", lg, b"nonsense"), "/ligands/class", lg, "= 'nonsense'"),
             ("ix_type99", setv("interactions/type", ix, 99), "/interactions/type", ix, "= 99: not"),
             ("res_kind7", setv("residues/kind", r, 7), "/residues/kind", r, "= 7: not"),
             ("cutoff0", setv("sites/cutoff", s, 0.0), "/sites/cutoff", s, "= 0: not"),
             ("cutoff_nan", setv("sites/cutoff", s + 1, np.nan), "/sites/cutoff", s + 1, "= nan: not"),
             ("distance2_negative", setv("interactions/distance2", ix, -1.5), "/interactions/distance2", ix,
              "= -1.5: not NaN (not a water bridge) or a finite distance"),
             ("distance2_inf", setv("interactions/distance2", ix + 1, np.inf), "/interactions/distance2", ix + 1,
              "= inf: not")]
    for name, edit, ds, row, val in cases:
        p = copy_edit(name, corpus, edit)
        expect_invalid(p, "bad_value", f"{ds}[{row}] = ", val)
        os.remove(p)
    p = copy_edit("v2_element119", fixture, setv("atoms/element", 5, 119))
    expect_invalid(p, "bad_value", "/atoms/element[5] = 119")
    os.remove(p)


corpus = versions_78()
v2, v3 = versions()
dump_export(v2, v3)
values()
os.remove(v2)
os.remove(v3)
os.remove(corpus)
if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("format versions 2 to 8 (check, dump, export, survey, reader) and the value checks: ok")
