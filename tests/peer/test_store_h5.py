#!/usr/bin/python3
"""Peer check of the merged sitepack files with h5py (Debian's python3-h5py).

Usage: test_store_h5.py DIR [docs/format.md], where DIR holds merged_p1.h5, merged_p2.h5, merged_p3.h5 and
merged_empty.h5 written by tests/unit/test_store.c (the same synthetic tasks merged from 1, 2
and 3 per-rank files). Checks the layout promised by docs/format.md: every dataset contiguous,
unfiltered, allocated (an offset in the file), little-endian, aligned to 4096 bytes when it
is 64 KiB or larger; identical content across P apart from the timing fields; CSR pointers;
global indices; reading a site with plain slicing; and, given docs/format.md, that every
dataset and /run attribute is documented there with the dtype the file has (and vice versa).
"""
import re
import sys

import h5py
import numpy as np

TIMING_DATASETS = {"structures/t_read", "structures/t_parse", "structures/t_survey", "structures/t_site"}
TIMING_ATTRS = {"n_ranks", "created", "wall_seconds"}

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def datasets(f):
    out = {}
    f.visititems(lambda name, obj: out.__setitem__(name, obj) if isinstance(obj, h5py.Dataset) else None)
    return out


def check_layout(path):
    with h5py.File(path, "r") as f:
        check(f.attrs["format"] == b"sitepack", f"{path}: root format {f.attrs.get('format')!r}")
        check(int(f.attrs["format_version"]) == 8, f"{path}: format_version")
        check(f["run"].attrs["format"] == b"sitepack", f"{path}: /run format")
        for name, ds in datasets(f).items():
            check(ds.chunks is None, f"{path}:{name} is chunked {ds.chunks}")
            check(ds.compression is None, f"{path}:{name} is compressed")
            check(ds.id.get_create_plist().get_layout() == h5py.h5d.CONTIGUOUS, f"{path}:{name} not contiguous")
            check(not ds.dtype.isnative or ds.dtype.byteorder in "<=|", f"{path}:{name} byte order")
            if ds.dtype.kind in "iuf":
                check(ds.dtype.byteorder in "<=|" and ds.id.get_type().get_order() == h5py.h5t.ORDER_LE,
                      f"{path}:{name} not little-endian")
            elif ds.dtype.kind == "S":
                st = ds.id.get_type()
                check(st.get_strpad() == h5py.h5t.STR_NULLPAD and not st.is_variable_str(),
                      f"{path}:{name} not a fixed-size NUL-padded string")
            else:
                check(False, f"{path}:{name} unexpected dtype {ds.dtype}")
            nbytes = ds.size * ds.dtype.itemsize
            off = ds.id.get_offset()
            if nbytes > 0:
                check(off is not None, f"{path}:{name} has no file offset (not allocated)")
            if nbytes >= 65536 and off is not None:
                check(off % 4096 == 0, f"{path}:{name} offset {off} not aligned to 4096")
        for g in ("structures", "ligands", "components", "sites", "residues", "atoms", "interactions", "bonds"):
            check(g in f, f"{path}: missing /{g}")


def check_same(a, b):
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        da, db = datasets(fa), datasets(fb)
        check(sorted(da) == sorted(db), f"{a} vs {b}: dataset names differ")
        for name in da:
            if name not in db:
                continue
            x, y = da[name][()], db[name][()]
            if name in TIMING_DATASETS:
                check(not np.array_equal(x, y), f"{name}: timings expected to differ in the fixture")
                continue
            check(x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(),
                  f"{a} vs {b}: {name} differs")
        ra, rb = dict(fa["run"].attrs), dict(fb["run"].attrs)
        check(sorted(ra) == sorted(rb), "run attribute names differ")
        for k in ra:
            if k not in TIMING_ATTRS:
                check(ra[k] == rb.get(k), f"/run attribute {k} differs: {ra[k]!r} vs {rb.get(k)!r}")
        check(ra["n_ranks"] != rb["n_ranks"], "n_ranks should record P")


def check_content(path):
    with h5py.File(path, "r") as f:
        st = f["structures"]
        n_st = st["path"].shape[0]
        check(n_st == 6, f"{n_st} structures")
        check([p.decode() for p in st["path"][:]] == [f"sub/f{i}.cif" for i in range(6)], "structure paths")
        check(st["status"][1] == b"syntax_error", "failed file status")
        check(st["sha256"].dtype.itemsize == 64, "sha256 is S64")
        check(np.isnan(st["resolution"][3]), "resolution NaN")
        # format version 4: the warning texts, UTF-8, one message per line (test_store.c fills n_warnings of them)
        w = st["warnings"]
        check(w.dtype == np.dtype("S1024") and w.id.get_type().get_cset() == h5py.h5t.CSET_UTF8, "warnings S1024 UTF-8")
        want = ["", "line 7: occupancy 'x' is not readable",
                "line 7: occupancy 'x' is not readable\na warning with a\\x09tab"]
        got = [v.decode("utf-8") for v in w[:]]
        check(got == [want[i % 3] for i in range(6)], f"/structures/warnings {got}")
        check(all((len(t.split("\n")) if t else 0) == n for t, n in zip(got, st["n_warnings"][:])),
              "warnings lines == n_warnings")
        lig = f["ligands"]
        sites = f["sites"]
        ap = sites["atom_ptr"][:]
        rp = sites["residue_ptr"][:]
        n_sites = sites["ligand_idx"].shape[0]
        n_atoms = f["atoms/position"].shape[0]
        n_res = f["residues/site_idx"].shape[0]
        check(ap.dtype == np.dtype("<i8") and ap.shape == (n_sites + 1,), "atom_ptr int64 N+1")
        check(ap[0] == 0 and ap[-1] == n_atoms and np.all(np.diff(ap) >= 0), "atom_ptr monotonic, last = atoms")
        check(rp[0] == 0 and rp[-1] == n_res and np.all(np.diff(rp) >= 0), "residue_ptr monotonic, last = residues")
        check(np.array_equal(np.diff(ap), sites["n_atoms"][:]), "atom_ptr vs n_atoms")
        check(np.array_equal(np.diff(rp), sites["n_residues"][:]), "residue_ptr vs n_residues")
        check(f["atoms/position"].dtype == np.dtype("<f4") and f["atoms/position"].shape[1] == 3, "position (A,3) f4")
        check(f["atoms/element"].dtype == np.dtype("u1") and f["atoms/flags"].dtype == np.dtype("<u2"), "atom dtypes")
        # global indices: every site's ligand points back to it, structure indices agree
        lig_site = lig["site_idx"][:]
        lig_st = lig["structure_idx"][:]
        s_lig = sites["ligand_idx"][:]
        s_st = sites["structure_idx"][:]
        check(np.array_equal(lig_site[s_lig], np.arange(n_sites)), "ligand.site_idx[site.ligand_idx] == site")
        check(np.array_equal(lig_st[s_lig], s_st), "site structure_idx == its ligand's")
        check(int((lig_site >= 0).sum()) == n_sites, "ligands with sites")
        lp = st["ligand_ptr"][:]
        for s in range(n_st):
            check(np.all(lig_st[lp[s]:lp[s + 1]] == s), f"ligand_ptr of structure {s}")
        # read site 5 (the 6,000-atom site) with plain slicing
        i = 5
        pos = f["atoms/position"][ap[i]:ap[i + 1]]
        res_idx = f["atoms/residue_idx"][ap[i]:ap[i + 1]]
        flags = f["atoms/flags"][ap[i]:ap[i + 1]]
        nlig = int(sites["n_ligand"][i])
        check(pos.shape == (31 + 100 * 60, 3), f"site 5 positions {pos.shape}")
        check(np.all(pos[:, 0] == 5.0), "site 5 atoms belong to file 5")
        check(np.all((flags[:nlig] & 1) == 1) and np.all((flags[nlig:] & 1) == 0), "ligand atoms first")
        check(np.all((res_idx >= rp[i]) & (res_idx < rp[i + 1])), "atom residue_idx within the site's residues")
        comps = f["residues/comp_id"][rp[i]:rp[i + 1]]
        check(comps[0] == b"ATP" and comps[1] == b"ALA", f"site 5 residues {comps[:3]}")
        # interactions: CSR over /interactions, global site_idx, atom columns are offsets in the site block
        ip = sites["interaction_ptr"][:]
        ix = f["interactions"]
        n_ix = ix["site_idx"].shape[0]
        check(ip.dtype == np.dtype("<i8") and ip.shape == (n_sites + 1,), "interaction_ptr int64 N+1")
        check(ip[0] == 0 and ip[-1] == n_ix == 10 and np.all(np.diff(ip) >= 0), f"interaction_ptr, {n_ix} rows")
        check(np.array_equal(np.diff(ip), sites["n_interactions"][:]), "interaction_ptr vs n_interactions")
        xs = ix["site_idx"][:]
        check(np.array_equal(xs, np.repeat(np.arange(n_sites), np.diff(ip))), "interactions/site_idx")
        la, sa, wa = ix["lig_atom"][:], ix["site_atom"][:], ix["water_atom"][:]
        n_at, n_l = sites["n_atoms"][:], sites["n_ligand"][:]
        check(np.all((la >= 0) & (la < n_l[xs]) & (sa >= n_l[xs]) & (sa < n_at[xs])), "interaction atom offsets")
        check(np.all((wa >= -1) & (wa < n_at[xs])), "water_atom -1 or inside")
        # bonds: CSR over /bonds like /interactions (format version 2)
        bp = sites["bond_ptr"][:]
        check(bp.dtype == np.dtype("<i8") and bp.shape == (n_sites + 1,) and bp[0] == 0, "bond_ptr int64 N+1")
        check(np.array_equal(np.diff(bp), sites["n_bonds"][:]) and bp[-1] == f["bonds/site_idx"].shape[0],
              "bond_ptr vs n_bonds and /bonds rows")
        # the partner atom, found as atom_ptr[site] + offset, belongs to the site's file (x = file index)
        pos_x = f["atoms/position"][:, 0]
        check(np.all(pos_x[ap[xs] + sa] == s_st[xs]), "partner atoms in their site's block")
        check(np.all((ix["distance"][:] // 100).astype(int) == s_st[xs]), "distance encodes the file")
        check(set(ix["type"][:].tolist()) == {1, 2, 3}, "interaction types")
        # residues of every site carry the site's global index
        check(np.array_equal(f["residues/site_idx"][:], np.repeat(np.arange(n_sites), np.diff(rp))),
              "residues/site_idx")
        check([c.decode() for c in f["components/comp_id"][:]] == ["A1BCD", "ATP", "GOL", "MG", "NAG", "SO4"],
              "components sorted and unique")


def check_empty(path):
    with h5py.File(path, "r") as f:
        check(f["atoms/position"].shape == (0, 3), "empty position shape (0,3)")
        check(f["sites/center"].shape == (0, 3), "empty center shape (0,3)")
        check(f["sites/atom_ptr"].shape == (1,) and f["sites/atom_ptr"][0] == 0, "empty atom_ptr [0]")
        check(f["structures/path"].shape == (0,), "empty structures")


def parse_format_doc(path):
    """{group: {dataset: dtype}} from the tables of docs/format.md ("## /group" sections)."""
    spec, group = {}, None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^## /(\w+)", line)
        if m:
            group = m.group(1)
            spec[group] = {}
            continue
        if line.startswith("## "):
            group = None
        if group is None or not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        names = re.findall(r"`([^`]+)`", cells[0])
        dt = re.findall(r"`([^`]+)`", cells[1])
        optional = len(cells) > 2 and "**optional**" in cells[2]
        for n in names:
            spec[group][n] = dt[0] if dt else None
            if optional:
                spec.setdefault("_optional", set()).add(f"{group}/{n}")
    return spec


def check_doc(path, doc):
    spec = parse_format_doc(doc)
    with h5py.File(path, "r") as f:
        for name, ds in datasets(f).items():
            group, base = name.split("/", 1)
            documented = spec.get(group, {}).get(base)
            check(documented is not None, f"{name} is not documented in docs/format.md")
            actual = ds.dtype.str.lstrip("|")
            check(documented is None or documented == actual, f"{name}: docs say {documented}, file has {actual}")
        for attr in f["run"].attrs:
            check(attr in spec.get("run", {}), f"/run attribute {attr} is not documented")
        optional = spec.get("_optional", set())
        for group, cols in spec.items():
            if group in ("run", "_optional"):
                continue
            if group in ("clusters", "splits", "split_scores") and group not in f:
                continue   # written by sitepack cluster / split (test_split_sample checks them against the doc)
            for base in cols:
                check(f"{group}/{base}" in f or f"{group}/{base}" in optional,
                      f"docs/format.md documents {group}/{base}, not in the file")


def main():
    d = sys.argv[1]
    if len(sys.argv) > 2:
        check_doc(f"{d}/merged_p1.h5", sys.argv[2])
    files = [f"{d}/merged_p{p}.h5" for p in (1, 2, 3)]
    for p in files + [f"{d}/merged_empty.h5"]:
        check_layout(p)
    for p in files:
        check_content(p)
    check_same(files[0], files[1])
    check_same(files[0], files[2])
    check_empty(f"{d}/merged_empty.h5")
    if failures:
        print(f"test_store_h5: {len(failures)} failure(s)", file=sys.stderr)
        return 1
    print("test_store_h5: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
