#!/usr/bin/python3
"""The Python package (python/sitepack) on the merged output of shared/data/structures: for every site,
ds[i] and get_sites_flat give exactly the C reader's arrays (test_reader_dump, mapped path) and h5py's
slices of every column; the package's schema equals the file's datasets; select() equals plain numpy/Python
filters over the tables; the version is the C tool's; bad input (not sitepack's file, damaged copies, an
unknown format version, a chunked dataset, indices out of range, a missing file) raises a clear exception
naming the file, with `sitepack check`'s message where check reports the same problem; a file with a
/bonds table (written here with h5py, in the layout of docs/format.md) gives its rows per site and an RDKit
molecule.

Usage: test_py_dataset.py MERGED.h5 TEST_READER_DUMP SITEPACK WORK_DIR
"""
import os
import pickle
import shutil
import subprocess
import sys

import h5py
import numpy as np

import sitepack
from sitepack import _schema
from sitepack._rdkit import _METALS as METALS
from sitepack.dataset import _BLOCK_FROM

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def c_reader(dump, path, idx):
    """Sites idx read by the C reader (sp_reader_read_sites, mapped path): [(i, pos, elem, flags, n_ligand)]."""
    out = subprocess.run([dump, path, "auto"] + [str(i) for i in idx], capture_output=True, text=True,
                         check=True).stdout
    lines = out.splitlines()
    sites, k = [], 1
    while k < len(lines):
        _, i, n, nl = lines[k].split()
        rows = np.array([l.split() for l in lines[k + 1:k + 1 + int(n)]], dtype=np.float64).reshape(-1, 5)
        sites.append((int(i), rows[:, :3].astype(np.float32), rows[:, 3].astype(np.uint8),
                      rows[:, 4].astype(np.uint16), int(nl)))
        k += 1 + int(n)
    return sites


def eq(a, b):
    """Arrays equal, NaN equal to NaN in float arrays."""
    a, b = np.asarray(a), np.asarray(b)
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f" and b.dtype.kind == "f")


def h5_value(v):
    return bytes(v).decode() if isinstance(v, (bytes, np.bytes_)) else v.item()


def check_schema(f, ds):
    """The file's datasets are exactly the package's schema (+ the optional columns it has)."""
    in_file = {}
    f.visititems(lambda n, o: in_file.__setitem__(n, o.dtype) if isinstance(o, h5py.Dataset) else None)
    want = {f"{t}/{c}": np.dtype(d) for t in _schema.TABLES for (c, d, _tail) in _schema.columns(t)}
    want.update({f"{t}/{c}": np.dtype("<i8") for (t, c) in _schema.POINTERS})
    for (t, c), (d,) in _schema.OPTIONAL.items():
        if f"{t}/{c}" in in_file:
            want[f"{t}/{c}"] = np.dtype(d)
    for t, cols in _schema.CONTEXT_TABLES.items():
        if t in f:
            want.update({f"{t}/{c}": np.dtype(d) for c, d in cols})
            want.update({f"{t}/{c}": np.dtype("<i8") for (tt, c) in _schema.CONTEXT_POINTERS if tt == t})
    if "bonds" in f:   # the column names are the package's; their dtypes the file's
        want["/".join(_schema.BOND_POINTER)] = np.dtype("<i8")
        want.update({f"bonds/{c}": in_file.get(f"bonds/{c}") for c in _schema.BOND_COLUMNS})
    check(set(in_file) == set(want), f"schema: file-only {sorted(set(in_file) - set(want))}, "
          f"schema-only {sorted(set(want) - set(in_file))}")
    for k in set(in_file) & set(want):
        check(in_file[k] == want[k], f"schema: {k} is {in_file[k]} in the file, {want[k]} in the package")


def check_sites(path, dump, f, ds):
    n = len(f["sites/n_ligand"])
    check(len(ds) == n and n > 1000, f"len(ds) {len(ds)}, file {n}")
    ap, rp, ip = f["sites/atom_ptr"][:], f["sites/residue_ptr"][:], f["sites/interaction_ptr"][:]
    atoms = {c: f[f"atoms/{c}"][:] for c in f["atoms"]}
    sites = {c: f[f"sites/{c}"][:] for c in f["sites"]}
    res = {c: f[f"residues/{c}"][:] for c in f["residues"]}
    ix = {c: f[f"interactions/{c}"][:] for c in f["interactions"]}
    lig = {c: f[f"ligands/{c}"][:] for c in f["ligands"]}
    st = {c: f[f"structures/{c}"][:] for c in f["structures"]}
    c_sites = c_reader(dump, path, range(n))
    bad = 0
    for (i, cpos, celem, cflags, cnl) in c_sites:
        s = ds[i]
        a0, a1 = ap[i], ap[i + 1]
        ok = (np.array_equal(s.positions, cpos) and np.array_equal(s.elements, celem) and
              np.array_equal(s.flags, cflags) and s.n_ligand == cnl == sites["n_ligand"][i])
        ok = ok and np.array_equal(s.positions, atoms["position"][a0:a1]) and s.n_atoms == a1 - a0
        ok = ok and all(eq(s.atoms(c), atoms[c][a0:a1])
                        for c in atoms)
        ok = ok and all(eq(s.site_value(c), sites[c][i]) or
                        (sites[c].dtype.kind == "S" and s.site_value(c) == h5_value(sites[c][i]))
                        for c in sites if c not in ("atom_ptr", "residue_ptr", "interaction_ptr"))
        li, si = sites["ligand_idx"][i], sites["structure_idx"][i]
        want_lig = {c: h5_value(lig[c][li]) for c in lig}   # NaN-aware: fit columns may be NaN (version 3)
        ok = ok and s.ligand.keys() == want_lig.keys() and all(
            s.ligand[k] == want_lig[k] or (s.ligand[k] != s.ligand[k] and want_lig[k] != want_lig[k]) for k in want_lig)
        want_st = {c: h5_value(st[c][si]) for c in st if c not in ("ligand_ptr", "site_ptr")}
        got_st = s.structure
        ok = ok and got_st.keys() == want_st.keys() and all(
            got_st[k] == want_st[k] or (got_st[k] != got_st[k] and want_st[k] != want_st[k]) for k in want_st)
        r = s.residues
        ok = ok and set(r.dtype.names) == set(res) and all(
            eq(r[c], res[c][rp[i]:rp[i + 1]]) for c in res)
        x = s.interactions
        ok = ok and set(x.dtype.names) == set(ix) and all(
            eq(x[c], ix[c][ip[i]:ip[i + 1]]) for c in ix)
        if not ok:
            bad += 1
            if bad < 5:
                check(False, f"site {i}: ds[i] differs from the C reader / h5py slicing")
    check(bad == 0, f"{bad} of {n} sites differ")
    check(len(c_sites) == n, f"C reader gave {len(c_sites)} sites")
    # get_sites_flat: shuffled, with repeats, every /atoms column; against the C reader's batch and h5py
    rng = np.random.default_rng(7)
    idx = np.concatenate([rng.permutation(n), rng.integers(0, n, 300)])
    b = ds.get_sites_flat(idx, fields=["positions", "elements", "flags"] + [c for c in atoms if c not in
                          ("position", "element", "flags")], site_fields=("n_ligand", "center", "ligand_idx"))
    rows = np.concatenate([np.arange(ap[i], ap[i + 1]) for i in idx])
    check(np.array_equal(b["offsets"], np.concatenate([[0], np.cumsum(ap[idx + 1] - ap[idx])])) and
          np.array_equal(b["n_atoms"], ap[idx + 1] - ap[idx]), "flat: offsets / n_atoms")
    for c in atoms:
        key = {"position": "positions", "element": "elements"}.get(c, c)
        check(eq(b[key], atoms[c][rows]), f"flat: {c} differs")
    for c in ("n_ligand", "center", "ligand_idx"):
        check(np.array_equal(b[c], sites[c][idx]), f"flat: site field {c} differs")
    cb = c_reader(dump, path, idx[:400])
    check(np.array_equal(b["positions"][:b["offsets"][400]], np.concatenate([s[1] for s in cb])) and
          np.array_equal(b["elements"][:b["offsets"][400]], np.concatenate([s[2] for s in cb])) and
          np.array_equal(b["flags"][:b["offsets"][400]], np.concatenate([s[3] for s in cb])),
          "flat: differs from the C reader's batch in request order")
    # the same request in batches of 16 sites: below _BLOCK_FROM atoms each, so gathered row by row, while the
    # whole request above is copied as blocks of rows; both against h5py's rows
    check(b["offsets"][-1] >= _BLOCK_FROM, "flat: the corpus request did not take the block path")
    parts = [ds.get_sites_flat(idx[k:k + 16], fields=("positions", "elements", "flags", "b_iso"))
             for k in range(0, len(idx), 16)]
    check(max(int(p["offsets"][-1]) for p in parts) < _BLOCK_FROM, "flat: a batch of 16 sites took the block path")
    for key, c in (("positions", "position"), ("elements", "element"), ("flags", "flags"), ("b_iso", "b_iso")):
        check(eq(np.concatenate([p[key] for p in parts]), atoms[c][rows]), f"flat in batches of 16: {c} differs")
    e = ds.get_sites_flat([])
    check(e["positions"].shape == (0, 3) and list(e["offsets"]) == [0], "flat: empty request")
    return lig, st, sites


def own_comps(path, n):
    """{site: set of comp_ids of its ligand's own residues (/residues kind 0)}, by a loop over h5py rows."""
    with h5py.File(path, "r") as f:
        rp, kind, comp = f["sites/residue_ptr"][:], f["residues/kind"][:], f["residues/comp_id"][:]
    return [{h5_value(comp[r]) for r in range(rp[i], rp[i + 1]) if kind[r] == 0} for i in range(n)]


def export_count(cli, path, comp):
    """Sites that `sitepack export --comp COMP` writes (SDF records on stdout)."""
    p = subprocess.run([cli, "export", path, "--comp", comp, "--format", "sdf", "--out", "-", "--quiet"],
                       capture_output=True, text=True)
    return p.stdout.count("$$$$") if p.returncode == 0 else -p.returncode


def check_select(ds, lig, st, sites, cli):
    """select() against a per-site Python loop over the h5py tables."""
    n = len(sites["n_ligand"])
    own = own_comps(ds.path, n)
    cls = [h5_value(lig["class"][sites["ligand_idx"][i]]) for i in range(n)]
    comp = [h5_value(lig["comp_id"][sites["ligand_idx"][i]]) for i in range(n)]
    key = [h5_value(lig["molecule_key"][sites["ligand_idx"][i]]) for i in range(n)]
    lflags = [int(lig["flags"][sites["ligand_idx"][i]]) for i in range(n)]
    meth = [h5_value(st["method"][sites["structure_idx"][i]]) for i in range(n)]
    resol = [float(st["resolution"][sites["structure_idx"][i]]) for i in range(n)]
    common_comp = max(set(comp), key=comp.count)
    some_key = key[len(key) // 2]
    cases = [
        (dict(ligand_class="small_molecule"), lambda i: cls[i] == "small_molecule"),
        (dict(ligand_class=["ion", "cofactor"]), lambda i: cls[i] in ("ion", "cofactor")),
        (dict(ligand_class=["lipid", "detergent"]), lambda i: cls[i] in ("lipid", "detergent")),  # version 7
        (dict(comp_id=common_comp), lambda i: common_comp in own[i]),
        # a comp_id inside multi-residue ligands (glycans): any of the ligand's own residues, as export --comp
        (dict(comp_id="MAN"), lambda i: "MAN" in own[i]),
        (dict(comp_id=["BMA", "FUC"]), lambda i: own[i] & {"BMA", "FUC"}),
        (dict(comp_id="NAGXX"), lambda i: False),   # longer than the column: matches nothing (was cut to NAG)
        (dict(molecule_key=some_key), lambda i: key[i] == some_key),
        (dict(flags="covalent"), lambda i: lflags[i] & 1),
        (dict(not_flags=["incomplete", "altloc"]), lambda i: not lflags[i] & 6),
        (dict(flags=["oversize"]), lambda i: sites["flags"][i] & 1),
        (dict(method="x-ray diffraction", max_resolution=2.0),
         lambda i: meth[i].upper() == "X-RAY DIFFRACTION" and resol[i] <= 2.0),
        (dict(min_resolution=2.5), lambda i: resol[i] >= 2.5),
        (dict(min_atoms=100, max_atoms=400), lambda i: 100 <= sites["n_atoms"][i] <= 400),
        (dict(min_ligand_atoms=20, ligand_class="small_molecule"),
         lambda i: sites["n_ligand"][i] >= 20 and cls[i] == "small_molecule"),
        (dict(symmetry=False), lambda i: not sites["flags"][i] & 4),
        (dict(symmetry=True), lambda i: sites["flags"][i] & 4),
    ]
    for kw, pred in cases:
        got = ds.select(**kw)
        want = [i for i in range(n) if pred(i)]
        check(got.dtype == np.int64 and list(got) == want, f"select({kw}): {len(got)} sites, expected {len(want)}")
    check(0 < len(ds.select(ligand_class="small_molecule")) < n, "select: small_molecule is a proper subset")
    n_lip, n_det = len(ds.select(ligand_class="lipid")), len(ds.select(ligand_class="detergent"))
    check(n_lip == 6 and n_det == 16, f"select: {n_lip} lipid sites (1GZM's 4 PLM, 2 PEF), {n_det} detergent sites "
          "(1GZM's 12 C8E, 3 LDA; 1TCC's BOG)")
    n_man_first = sum(comp[i] == "MAN" for i in range(n))
    for c in ("MAN", "BMA", "NAG", common_comp):
        got, want = len(ds.select(comp_id=c)), export_count(cli, ds.path, c)
        check(got == want, f"select(comp_id={c}) {got} sites, sitepack export --comp {c} {want}")
    check(len(ds.select(comp_id="MAN")) > n_man_first > 0,
          f"MAN inside glycans: {len(ds.select(comp_id='MAN'))} sites vs {n_man_first} whose first residue is MAN")
    try:
        ds.select(flags="no_such_flag")
        check(False, "select(flags=unknown) raised nothing")
    except ValueError as e:
        check("no_such_flag" in str(e) and ds.path in str(e), f"select unknown flag: {e}")


def expect_error(what, fn, exc, *words):
    try:
        fn()
    except exc as e:
        msg = str(e)
        for w in words:
            check(w in msg, f"{what}: message lacks '{w}': {msg}")
        return msg
    except Exception as e:   # noqa: BLE001 - the wrong class is a failure, reported
        check(False, f"{what}: raised {type(e).__name__} ({e}), expected {exc.__name__}")
        return ""
    check(False, f"{what}: no exception")
    return ""


def run_check(sitepack_cli, path):
    p = subprocess.run([sitepack_cli, "check", path], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def damaged(path, work, name, edit):
    bad = os.path.join(work, name)
    shutil.copy(path, bad)
    edit(bad)
    return bad


def check_bad_input(path, cli, work):
    FE, FVE = sitepack.FormatError, sitepack.FormatVersionError
    expect_error("missing file", lambda: sitepack.open(os.path.join(work, "nope.h5")), FileNotFoundError, "nope.h5")
    txt = os.path.join(work, "not_hdf5.h5")
    with open(txt, "w") as fh:
        fh.write("data_1ABC\nloop_\n")
    expect_error("text file", lambda: sitepack.open(txt), FE, txt, "not an HDF5 file")
    other = os.path.join(work, "other.h5")
    with h5py.File(other, "w") as f:
        f["x"] = np.arange(10)
    expect_error("other HDF5 file", lambda: sitepack.open(other), FE, other, 'format is not "sitepack"')
    shard = os.path.join(work, "shard.h5")   # a shard / per-rank file: the message says what makes a merged one
    with h5py.File(shard, "w") as f:
        f.attrs["format"] = np.bytes_(b"sitepack-rank")
    expect_error("shard file", lambda: sitepack.open(shard), FE, shard, "sitepack merge")

    def set_version(p):
        with h5py.File(p, "r+") as f:
            f.attrs["format_version"] = np.int64(99)
    bad = damaged(path, work, "v99.h5", set_version)
    msg = expect_error("format_version 99", lambda: sitepack.open(bad), FVE, bad, "format_version is 99")
    check(isinstance(sitepack.FormatVersionError(bad, msg), sitepack.FormatError), "FormatVersionError is a FormatError")

    # /structures/method is UTF-8 (docs/format.md): select(method=) and Site.structure decode it as such
    with h5py.File(path, "r") as f:
        sp0 = f["structures/site_ptr"][:]
    k = int(np.flatnonzero(np.diff(sp0) > 0)[0])   # the first structure with sites

    def utf8_method(p):
        with h5py.File(p, "r+") as f:
            f["structures/method"][k] = "X-RAY DIFFRACTIÖN".encode()
    um = sitepack.open(damaged(path, work, "utf8_method.h5", utf8_method))
    got = um.select(method="x-ray diffractiön")
    check(list(got) == list(range(sp0[k], sp0[k + 1])) and len(got) > 0, f"select(method=UTF-8): {list(got)[:5]}")
    check(um[int(got[0])].structure["method"] == "X-RAY DIFFRACTIÖN", "Site.structure decodes UTF-8")
    um.close()

    # a column that the file's format version requires is required (it was optional in every version: a v3
    # file without /atoms/ccd_charge opened, and to_rdkit fell back to charge 0; damaged-file hunt)
    def drop_ccd_charge(p):
        with h5py.File(p, "r+") as f:
            del f["atoms/ccd_charge"]
    bad = damaged(path, work, "no_ccd_charge.h5", drop_ccd_charge)
    msg = expect_error("v3 without ccd_charge", lambda: sitepack.open(bad), FE, bad, "missing dataset /atoms/ccd_charge")
    rc, out = run_check(cli, bad)
    check(rc == 1 and msg in out, f"check of no_ccd_charge.h5: {rc} {out}")

    def drop_chains(p):
        with h5py.File(p, "r+") as f:
            del f["chains"]
    bad = damaged(path, work, "no_chains.h5", drop_chains)
    expect_error("v3 without /chains", lambda: sitepack.open(bad), FE, bad, "/chains")

    # metadata h5py cannot convert is a FormatError naming the file, not h5py's TypeError / ValueError
    def run_attr_array(p):
        with h5py.File(p, "r+") as f:
            f["run"].attrs["n_ranks"] = np.arange(3)
    ra = sitepack.open(damaged(path, work, "run_attr_array.h5", run_attr_array))
    check(list(ra.run["n_ranks"]) == [0, 1, 2], f"/run attribute array kept: {ra.run['n_ranks']!r}")
    ra.close()

    # values RDKit cannot take: a clear error naming the file and site, not RDKit's RuntimeError
    def set_col(col, val):
        def edit(p):
            with h5py.File(p, "r+") as f:
                f[col][...] = val
        return edit
    e119 = sitepack.open(damaged(path, work, "element119.h5", set_col("atoms/element", 119)))
    expect_error("to_rdkit of element 119", lambda: e119[1].to_rdkit(), FE, "site 1", "not an atomic number")
    q128 = sitepack.open(damaged(path, work, "charge128.h5", set_col("atoms/formal_charge", -128)))
    with h5py.File(path, "r") as f:   # a site whose ligand atoms match CCD atoms (to_rdkit takes formal_charge)
        ap, nlg, ca = f["sites/atom_ptr"][:], f["sites/n_ligand"][:], f["atoms/ccd_atom"][:]
    s = next(i for i in range(len(nlg)) if nlg[i] > 1 and (ca[ap[i]:ap[i] + nlg[i]] & 1).all())
    try:
        q128[s].to_rdkit()
        check(False, "to_rdkit with formal_charge -128: no error")
    except ValueError as e:   # ours (names the file) or RDKit's sanitize error (a ValueError: docs/python.md)
        check((f"site {s}" in str(e) and "charge128.h5" in str(e)) or type(e).__module__.startswith("rdkit"),
              f"to_rdkit with formal_charge -128: {type(e).__module__}.{type(e).__name__} {e}")
    except Exception as e:   # noqa: BLE001
        check(False, f"to_rdkit with formal_charge -128: {type(e).__name__} {e}")

    def version_as_text(p):
        with h5py.File(p, "r+") as f:
            f.attrs["format_version"] = "3"
    bad = damaged(path, work, "vtext.h5", version_as_text)
    expect_error("format_version '3'", lambda: sitepack.open(bad), FVE, bad, "format_version is '3', a str, not an integer")

    # damaged copies: the package's message is the one `sitepack check` prints
    def drop_element(p):
        with h5py.File(p, "r+") as f:
            del f["atoms/element"]

    def truncate(p):
        with open(p, "r+b") as fh:
            fh.truncate(os.path.getsize(p) // 2)

    def flip_ptr(p):
        with h5py.File(p, "r") as f:
            off = f["sites/atom_ptr"].id.get_offset()
        with open(p, "r+b") as fh:
            fh.seek(off + 3 * 8)
            fh.write(b"\xff" * 8)

    def chunk_flags(p):
        with h5py.File(p, "r+") as f:
            a = f["atoms/flags"][:]
            del f["atoms/flags"]
            f.create_dataset("atoms/flags", data=a, chunks=(4096,))

    def compress_center(p):
        with h5py.File(p, "r+") as f:
            a = f["sites/center"][:]
            del f["sites/center"]
            f.create_dataset("sites/center", data=a, compression="gzip")

    def set_at(col, row, value):
        def edit(p):
            with h5py.File(p, "r+") as f:
                f[col][row] = value
        return edit

    def short_column(p):
        with h5py.File(p, "r+") as f:
            a = f["ligands/n_atoms"][:-1]
            del f["ligands/n_atoms"]
            f.create_dataset("ligands/n_atoms", data=a)
    cases = [("deleted.h5", drop_element, "missing dataset /atoms/element"),
             ("truncated.h5", truncate, "truncated"),
             ("flipped.h5", flip_ptr, "/sites/atom_ptr decreases at row 2"),
             ("chunked.h5", chunk_flags, "/atoms/flags is not contiguous"),
             ("compressed.h5", compress_center, "/sites/center is "),
             ("short.h5", short_column, "/ligands/n_atoms has "),
             # the interaction offsets Site.interactions hands out, and /chains' pointers (damaged-file hunt)
             ("ix_atom.h5", set_at("interactions/lig_atom", 3, 100000), "/interactions/lig_atom[3] = 100000 is outside"),
             ("seq_ptr.h5", set_at("chains/seq_ptr", 1, -5), "/chains/seq_ptr decreases at row 0"),
             ("seq_end.h5", set_at("chains/seq_ptr", -1, 10 ** 9), "/chains/seq_ptr ends at 1000000000, but there are"),
             ("seg_end.h5", set_at("chains/segment_ptr", -1, 10 ** 9), "/chains/segment_ptr ends at 1000000000")]
    for name, edit, words in cases:
        bad = damaged(path, work, name, edit)
        msg = expect_error(name, lambda: sitepack.open(bad), FE, bad, words)
        rc, out = run_check(cli, bad)
        check(rc == 1 and words in out, f"sitepack check {name}: rc {rc}: {out}")
        if name not in ("truncated.h5", "compressed.h5"):   # HDF5's own text / check's "filtered" differ in detail
            check(msg and msg in out, f"{name}: Python message '{msg}' is not sitepack check's: {out}")

    ds = sitepack.open(path)
    n = len(ds)
    expect_error("ds[n]", lambda: ds[n], sitepack.SiteIndexError, path, f"site index {n} out of range [-{n}, {n})")
    expect_error("ds[-n-1]", lambda: ds[-n - 1], IndexError, path, f"site index {-n - 1} out of range [-{n}, {n})")
    # an unsigned index is not cast to a negative one (2**64 - 1 was read as -1, the last site)
    for big in ([2 ** 64 - 1], np.array([2 ** 64 - 1], dtype=np.uint64), np.array([0, n], dtype=np.uint32)):
        expect_error(f"flat {big!r}", lambda: ds.get_sites_flat(big), sitepack.SiteIndexError, path, "out of range")
    check(np.array_equal(ds.get_sites_flat(np.array([n - 1], dtype=np.uint64))["positions"], ds[n - 1].positions),
          "get_sites_flat of a uint64 index")
    one = ds.get_sites_flat([0, 1], fields="positions", site_fields="center")
    check(sorted(one) == ["center", "n_atoms", "offsets", "positions"], f"fields as one name: {sorted(one)}")
    for kw in (dict(site_fields=("n_atoms",)), dict(fields=("offsets",)), dict(fields=("flags",), site_fields=("flags",))):
        expect_error(f"flat {kw}", lambda: ds.get_sites_flat([0], **kw), ValueError, path, "asked once")
    expect_error("flat out of range", lambda: ds.get_sites_flat([0, n]), IndexError, path, f"{n} out of range",
                 "position 1")
    # one rule for ds[i] and get_sites_flat: a negative index counts from the end (fresh-user trial)
    check(np.array_equal(ds.get_sites_flat([-1, 0])["positions"], ds.get_sites_flat([n - 1, 0])["positions"]),
          "get_sites_flat([-1]) is the last site")
    expect_error("flat below -n", lambda: ds.get_sites_flat([-n - 1]), IndexError, path, f"{-n - 1} out of range")
    expect_error("ds[True]", lambda: ds[True], TypeError, path, "bool")
    expect_error("select unknown class", lambda: ds.select(ligand_class="smallmolecule"), ValueError, path,
                 "unknown ligand class 'smallmolecule'", "small_molecule, ion, artifact")
    expect_error("select max_resolution str", lambda: ds.select(max_resolution="2"), TypeError, path,
                 "max_resolution", "str")
    check(list(ds.select(max_resolution=np.float32(2.0))) == list(ds.select(max_resolution=2.0)), "numpy limit")
    closed = sitepack.open(path)
    site = closed[1]   # taken before the close: its reads fail as ds[i] does
    closed.close()
    for what, fn in (("ds[0]", lambda: closed[0]), ("flat", lambda: closed.get_sites_flat([0])),
                     ("select", lambda: closed.select()), ("column", lambda: closed.column("atoms/element")),
                     ("table", lambda: closed.table("sites")), ("structures", lambda: closed.structures),
                     ("components", lambda: closed.components), ("site.positions", lambda: site.positions),
                     ("site.n_ligand", lambda: site.n_ligand), ("site.ligand", lambda: site.ligand),
                     ("site.residues", lambda: site.residues), ("site.center", lambda: site.center),
                     ("site.atoms", lambda: site.atoms("b_iso")), ("site.to_rdkit", lambda: site.to_rdkit())):
        expect_error(f"{what} after close", fn, ValueError, path, "is closed")
    expect_error("float index", lambda: ds[1.5], TypeError, path)
    expect_error("unknown column", lambda: ds[0].atoms("no_such"), sitepack.MissingTableError, path, "/atoms/no_such")
    check(ds[-1].index == n - 1, "ds[-1] is the last site")
    nb = damaged(path, work, "no_bonds.h5", drop_bonds)   # the file as an older sitepack wrote it
    old = sitepack.open(nb)
    check(not old.has_bonds, "no_bonds.h5: has_bonds")
    expect_error("bonds of a file without /bonds", lambda: old[0].bonds, sitepack.MissingTableError, nb,
                 "predates bonds")
    expect_error("to_rdkit without /bonds", lambda: old[0].to_rdkit(), sitepack.MissingTableError, nb,
                 "predates bonds")


def drop_bonds(p):
    """Remove /bonds and /sites/bond_ptr when the file has them, and call it format version 1 (a file of a
    sitepack before bonds: /bonds is required from version 2)."""
    with h5py.File(p, "r+") as f:
        f.attrs["format_version"] = np.int64(1)
        if "bonds" in f:
            del f["bonds"]
        if "sites/bond_ptr" in f:
            del f["sites/bond_ptr"]


def add_bonds(path, work):
    """A copy of the file with a /bonds table in docs/format.md's layout: per site, a chain 0-1-2-... over the
    ligand's atoms (orders cycling 1, 2, 1, 3) and one link from ligand atom 0 to the first site atom."""
    p = os.path.join(work, "with_bonds.h5")
    shutil.copy(path, p)
    drop_bonds(p)   # this test's own bonds replace the file's (when it has /bonds)
    with h5py.File(p, "r+", alignment_threshold=65536, alignment_interval=4096) as f:
        nl, na = f["sites/n_ligand"][:], f["sites/n_atoms"][:]
        cols = {k: [] for k in _schema.BOND_COLUMNS}
        ptr = [0]
        for i in range(len(nl)):
            pairs = [(k, k + 1, 1 + (k % 4 == 1) + 2 * (k % 4 == 3)) for k in range(max(nl[i] - 1, 0))]
            if 0 < nl[i] < na[i]:
                pairs.append((0, int(nl[i]), 1))
            for a, b_, o in pairs:
                cols["site_idx"].append(i)
                cols["atom1"].append(a)
                cols["atom2"].append(b_)
                cols["order"].append(o)
                cols["aromatic"].append(0)
                cols["source"].append(b"ccd" if b_ < nl[i] else b"struct_conn")
                cols["flags"].append(0 if b_ < nl[i] else 2)
            ptr.append(ptr[-1] + len(pairs))
        dt = {"site_idx": "<i8", "atom1": "<i4", "atom2": "<i4", "order": "u1", "aromatic": "u1", "source": "S12",
              "flags": "u1"}
        for k, v in cols.items():
            f.create_dataset(f"bonds/{k}", data=np.array(v, dtype=dt[k]))
        f.create_dataset("sites/bond_ptr", data=np.array(ptr, dtype="<i8"))
    return p


def check_bonds(path, work):
    p = add_bonds(path, work)
    ds = sitepack.open(p)
    check(ds.has_bonds, "with_bonds.h5: has_bonds")
    with h5py.File(p, "r") as f:
        bp = f["sites/bond_ptr"][:]
        b = {k: f[f"bonds/{k}"][:] for k in _schema.BOND_COLUMNS}
    try:
        import rdkit  # noqa: F401
        have_rdkit = True
    except ImportError:
        have_rdkit = False
    check(have_rdkit, "RDKit (python3-rdkit) is importable")
    n_metal_sites = 0
    for i in range(0, len(ds), 37):
        s = ds[i]
        got = s.bonds
        check(all(np.array_equal(got[k], b[k][bp[i]:bp[i + 1]]) for k in _schema.BOND_COLUMNS), f"site {i}: bonds")
        if have_rdkit and s.n_ligand:
            m = s.to_rdkit(sanitize=False)
            conf = m.GetConformer()
            el = s.elements[:s.n_ligand].tolist()
            # bonds to a metal are left out of the molecule (as the SDF export does), listed in "metal_bonds"
            to_metal = [(k, k + 1) for k in range(s.n_ligand - 1) if el[k] in METALS or el[k + 1] in METALS]
            check((m.GetProp("metal_bonds") if to_metal else "") == " ".join(f"{a}-{b}" for a, b in to_metal),
                  f"site {i}: metal_bonds {m.GetPropsAsDict().get('metal_bonds')}, want {to_metal}")
            check(m.GetNumAtoms() == s.n_ligand and m.GetNumBonds() == max(s.n_ligand - 1, 0) - len(to_metal) and
                  [a.GetAtomicNum() for a in m.GetAtoms()] == s.elements[:s.n_ligand].tolist() and
                  np.allclose([list(conf.GetAtomPosition(k)) for k in range(s.n_ligand)], s.positions[:s.n_ligand]),
                  f"site {i}: to_rdkit atoms/bonds/conformer")
            if s.n_ligand > 2 and (1, 2) not in to_metal:
                check(str(m.GetBondBetweenAtoms(1, 2).GetBondType()) == "DOUBLE", f"site {i}: bond order 2")
            n_metal_sites += bool(to_metal)
    check(n_metal_sites > 0, "no site with a bond to a metal: the metal-bond rule of to_rdkit is not exercised")
    # a /bonds row pointing outside its site's atoms is refused at open
    bad = os.path.join(work, "bad_bonds.h5")
    shutil.copy(p, bad)
    with h5py.File(bad, "r") as f:
        off = f["bonds/atom2"].id.get_offset()
    with open(bad, "r+b") as fh:
        fh.seek(off)
        fh.write(np.int32(10 ** 6).tobytes())
    expect_error("bonds atom out of range", lambda: sitepack.open(bad), sitepack.FormatError, bad,
                 "/bonds/atom2[0] = 1000000 is outside site 0's")


def check_doc_flags():
    """docs/python.md names every flag the package knows (its lists had fallen behind: fresh-user trial)."""
    doc = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "python.md")).read()
    for table in (sitepack.LIGAND_FLAGS, sitepack.SITE_FLAGS, sitepack.ATOM_FLAGS):
        for name, bit in table.items():
            check(f"`{name}`" in doc, f"docs/python.md does not name flag {name} ({bit})")


def check_interaction_residues(ds):
    """docs/python.md's recipe for the residue of each interaction: every site atom of an interaction row has its
    residue in the site's /residues block, and the recipe gives the same record as the global /residues row."""
    res_all, n = ds.table("residues"), 0
    for i in range(len(ds)):
        s = ds[i]
        ix = s.interactions
        if not len(ix):
            continue
        g = s.atoms("residue_idx")[ix["site_atom"]]
        loc = g - s.site_value("residue_ptr")
        if (loc < 0).any() or (loc >= len(s.residues)).any():
            check(False, f"site {i}: an interaction's residue outside the site's block")
            continue
        check(np.array_equal(s.residues[loc], res_all[g]), f"site {i}: recipe record != /residues row")
        n += len(ix)
    check(n > 1000, f"interaction residues mapped: {n}")


def check_warnings(ds, path, work):
    """Format version 4: ds.warnings(s) is /structures/warnings split into messages, as many as n_warnings (or k and
    "... N more" with k + N = n_warnings), [] for none; the structure row of a Site has it as a str; the corpus's
    one file with a warning (1osm.pdb.gz: no END record) says so. A version-3 copy opens and has no texts
    (MissingTableError); a version-4 copy without the column is refused, as `sitepack check` refuses it."""
    st = ds.structures
    seen = 0
    for s in range(len(st)):
        got, n = ds.warnings(s), int(st.n_warnings[s])
        text = st.warnings[s].decode("utf-8")
        tail = got and got[-1].startswith("... ") and got[-1].endswith(" more")
        ok = len(got) == n or (tail and len(got) - 1 + int(got[-1][4:-5]) == n)
        check(ok and got == (text.split("\n") if text else []), f"structure {s}: warnings {got} for n_warnings {n}")
        seen += n > 0
    paths = [p.decode() for p in st.path]
    i = paths.index("1osm.pdb.gz")
    check(ds.warnings(i) == ["no END record (the last record of a PDB file, PDB format 3.3): the file may be cut short"]
          and ds.warnings(i - len(st)) == ds.warnings(i), f"1osm.pdb.gz: {ds.warnings(i)}")
    check(seen >= 1, f"{seen} structures with warnings")
    site = ds[0]
    check(isinstance(site.structure["warnings"], str) and
          site.structure["warnings"] == st.warnings[site.structure_index].decode(), "site.structure['warnings']")
    expect_error("warnings of a row out of range", lambda: ds.warnings(len(st)), IndexError, path, "out of range")
    expect_error("warnings of a float", lambda: ds.warnings(1.0), TypeError, path)

    def to_v3(p, version=3):
        with h5py.File(p, "r+") as f:
            del f["structures/warnings"]
            f.attrs["format_version"] = np.int64(version)
    v3 = damaged(path, work, "v3_no_warnings.h5", to_v3)
    old = sitepack.open(v3)
    check(old.format_version == 3 and "warnings" not in old.structures.dtype.names and
          "warnings" not in old[0].structure, "version-3 copy: no warnings column")
    expect_error("warnings of version 3", lambda: old.warnings(0), sitepack.MissingTableError, v3,
                 "/structures/warnings")
    old.close()
    v4 = damaged(path, work, "v4_no_warnings.h5", lambda p: to_v3(p, 4))
    expect_error("version 4 without warnings", lambda: sitepack.open(v4), sitepack.FormatError, v4,
                 "missing dataset /structures/warnings")
    for p in (v3, v4):
        os.remove(p)


def nan_equal(a, b):
    return a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(a[~np.isnan(a)],
                                                                                           b[~np.isnan(b)])


def check_distance2(ds, path, work):
    """Format version 5: /interactions/distance2 is the water bridge's water O - site atom distance, recomputed
    here from /atoms/position (the atom offsets are in the site's block); NaN on every other row; angle2 NaN on
    the water-bridge rows. A version-4 copy (h5py: distance2 back in angle2 on those rows, the way a version-4
    build wrote it; docs/format.md "Versions") reads the same: distance2 derived, angle2 as in version 5."""
    ix = ds.table("interactions")
    water = ix.type == _schema.WATER_BRIDGE
    check(water.sum() >= 20, f"{water.sum()} water bridges in the corpus: distance2 is not exercised")
    base = np.asarray(ds.column("sites/atom_ptr"))[ix.site_idx]
    pos = np.asarray(ds.column("atoms/position"), dtype=np.float64)
    d = np.linalg.norm(pos[base[water] + ix.water_atom[water]] - pos[base[water] + ix.site_atom[water]], axis=1)
    check(np.allclose(ix.distance2[water], d, atol=1e-4), f"distance2 vs positions: max |diff| "
          f"{np.abs(ix.distance2[water] - d).max() if water.any() else 0}")
    dl = np.linalg.norm(pos[base[water] + ix.water_atom[water]] - pos[base[water] + ix.lig_atom[water]], axis=1)
    check(np.allclose(ix.distance[water], dl, atol=1e-4), "water bridge distance (ligand - water O) vs positions")
    check(np.isnan(ix.distance2[~water]).all(), "distance2 not NaN on a row that is no water bridge")
    check(np.isnan(ix.angle2[water]).all(), "angle2 not NaN on a water-bridge row")
    check(np.array_equal(ds[0].interactions.dtype.names, ix.dtype.names), "site.interactions fields")

    def to_v4(p):
        with h5py.File(p, "r+") as f:
            a2 = f["interactions/angle2"][...]
            w = f["interactions/type"][...] == _schema.WATER_BRIDGE
            a2[w] = f["interactions/distance2"][...][w]
            f["interactions/angle2"][...] = a2
            del f["interactions/distance2"]
            del f["atoms/formal_charge"]   # a version-6 column
            f.attrs["format_version"] = np.int64(4)
            f["run"].attrs["format_version"] = np.int64(4)
    v4 = damaged(path, work, "v4_angle2_distance.h5", to_v4)
    with sitepack.open(v4) as old:
        o = old.table("interactions")
        check(old.format_version == 4 and o.dtype.names == ix.dtype.names, f"version-4 copy: fields {o.dtype.names}")
        check(nan_equal(o.distance2, ix.distance2) and nan_equal(o.angle2, ix.angle2),
              "version-4 copy: distance2 / angle2 read differently from version 5")
        check(nan_equal(np.asarray(old.column("interactions/distance2")), ix.distance2), "version 4: column()")
        k = int(ix.site_idx[np.flatnonzero(water)[0]])
        check(nan_equal(old[k].interactions["distance2"], ds[k].interactions["distance2"]) and
              nan_equal(old[k].interactions["angle2"], ds[k].interactions["angle2"]), f"version 4: site {k}")

    def no_distance2(p):
        with h5py.File(p, "r+") as f:
            del f["interactions/distance2"]
    v5 = damaged(path, work, "v5_no_distance2.h5", no_distance2)
    expect_error("version 5 without distance2", lambda: sitepack.open(v5), sitepack.FormatError, v5,
                 "missing dataset /interactions/distance2")
    # version 5: the version-6 columns (REQUIRED_SINCE 6: formal_charge, the ligand descriptors, ...) absent
    v6_cols = sorted("/".join(k) for k, v in _schema.REQUIRED_SINCE.items() if v == 6)

    def to_v5(p):
        with h5py.File(p, "r+") as f:
            for c in v6_cols:
                del f[c]
            f.attrs["format_version"] = np.int64(5)
            f["run"].attrs["format_version"] = np.int64(5)
    v5b = damaged(path, work, "v5_copy.h5", to_v5)
    with sitepack.open(v5b) as old:
        check(old.format_version == 5 and len(old) == len(ds) and
              np.array_equal(old[0].positions, ds[0].positions), "version-5 copy: opened and read")
    def no_formal_charge(p):
        with h5py.File(p, "r+") as f:
            del f["atoms/formal_charge"]
    v6 = damaged(path, work, "v6_no_formal_charge.h5", no_formal_charge)
    expect_error("version 6 without formal_charge", lambda: sitepack.open(v6), sitepack.FormatError, v6,
                 "missing dataset /atoms/formal_charge")
    check(len(v6_cols) >= 30, f"version-6 columns in _schema.REQUIRED_SINCE: {v6_cols}")
    for p in (v4, v5, v5b, v6):
        os.remove(p)


def main():
    path, dump, cli, work = sys.argv[1:5]
    check_doc_flags()
    os.makedirs(work, exist_ok=True)
    check("torch" not in sys.modules, "import sitepack imported torch")
    ver = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout.split()[1]
    check(sitepack.__version__ == ver, f"package version {sitepack.__version__}, sitepack --version {ver}")
    check(sitepack.FORMAT_VERSIONS == (1, 2, 3, 4, 5, 6, 7, 8), f"FORMAT_VERSIONS {sitepack.FORMAT_VERSIONS}")
    ds = sitepack.open(path)
    check(ds.run["tool_version"] == ver and ds.format_version == 8, f"run attrs {ds.run.get('tool_version')}")
    d2 = pickle.loads(pickle.dumps(ds))
    check(d2.path == path and len(d2) == len(ds) and np.array_equal(d2[5].positions, ds[5].positions),
          "pickle round trip")
    with h5py.File(path, "r") as f:
        check_schema(f, ds)
        lig, st, sites = check_sites(path, dump, f, ds)
        comps = {c: f[f"components/{c}"][:] for c in f["components"]}
        structs = {c: f[f"structures/{c}"][:] for c in f["structures"]}
    check(all(np.array_equal(ds.components[c], comps[c], equal_nan=comps[c].dtype.kind == "f") for c in comps),
          "components record array")
    check(all(eq(ds.structures[c], structs[c])
              for c in structs if not c.endswith("_ptr")), "structures record array")
    check(isinstance(ds.components, np.recarray) and ds.components.comp_id[0] == comps["comp_id"][0], "recarray access")
    check_select(ds, lig, st, sites, cli)
    check_bad_input(path, cli, work)
    check_bonds(path, work)
    check_interaction_residues(ds)
    check_warnings(ds, path, work)
    check_distance2(ds, path, work)
    if failures:
        print(f"test_py_dataset: {len(failures)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print(f"test_py_dataset: all checks passed ({len(ds)} sites)")


main()
