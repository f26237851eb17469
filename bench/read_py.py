#!/usr/bin/python3
"""`make bench-read-py`: read speed of the Python package (python/sitepack) with atompack's method.

Data: (1) N synthetic sites of K atoms (default 1,000,000 x 64) in sitepack's full merged layout (every
dataset of docs/format.md; positions and atomic numbers from `sitepack bench read`'s generator, gen_chunk of
src/app/bench_read.c, n_ligand = K/4), written once under --dir and reused; the same data in atompack's
hdf5_soa layout (one chunked dataset per field, 256 molecules a chunk); (2) a real merged file (--real).
Indices: the first C of a seeded Fisher-Yates shuffle of 0..N-1 (make_indices of bench_read.c: the same
indices `sitepack bench read` uses), distinct. Each backend: the median of its timed passes over R
rounds: in each, every backend in turn makes one warm-up and one timed pass (warm page cache; the turns A, B,
C, ..., A, B, C, ...: a busy shared host slows them alike). Backends:
  ds_getitem      ds[i] per site, touching two arrays and one scalar (positions, elements, n_ligand): the
                  default Dataset, i.e. the compiled reader (sitepack._fast) when it is built
  get_sites_flat  one ds.get_sites_flat(idx) call (positions, elements; n_ligand, n_atoms, offsets), the same
  ds_getitem_pure, get_sites_flat_pure, flat_3fields_pure
                  the same calls on Dataset(path, compiled=False): the pure-Python path (before the extension)
  numpy_fancy     numpy fancy-index copy of the same rows from the mapped columns (rows precomputed)
  h5py_slicing    h5py slicing per site (docs/reading.md's recipe; the same three fields)
  hdf5_soa        atompack's atom_hdf5_soa.py get_payloads: indices grouped by chunk, each chunk's fields
                  read once with h5py, molecules taken from it
  flat_3fields    get_sites_flat with positions, elements, flags: the fields of the C reader's batch
  floor_flat_copy no gather: get_sites_flat's arrays filled by one contiguous copy of as many rows. Every
                  reader that returns copies of the sites' rows copies at least these bytes, so no such
                  reader, ds[i] or get_sites_flat, is faster: their ratios to hdf5_soa are at most its
The C reader's rates on the same files and indices come from `sitepack bench read --real` (its
sitepack_mmap batch of position, element, flags). Writes --out (JSON) and the .md next to it.
"""
import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _build_arg(argv):
    """--build's value (default "build") before argparse: its python/ holds the compiled sitepack._fast."""
    for k, v in enumerate(argv):
        if v == "--build" and k + 1 < len(argv):
            return argv[k + 1]
        if v.startswith("--build="):
            return v.split("=", 1)[1]
    return "build"


# the source tree's package, joined by the build's sitepack/_fast (sitepack/__init__.py: pkgutil.extend_path)
sys.path[:0] = [os.path.join(_build_arg(sys.argv), "python"), os.path.join(HERE, "..", "python")]
import sitepack  # noqa: E402
from sitepack import _schema  # noqa: E402

M64 = (1 << 64) - 1
GEN_VERSION = "read_py-4"   # bump when the synthetic file changes (2: format version 2, with /bonds; 3: format version 3;
                            # 4: format version 4, with /structures/warnings)


def mix64_int(z):
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix64_np(z):
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def gen_chunk(m0, nm, na):
    """bench_read.c's gen_chunk: positions (nm*na, 3) float32, atomic numbers (nm*na,) uint8."""
    mol = np.arange(m0, m0 + nm, dtype=np.uint64)[:, None]
    h = mix64_np(mol * np.uint64(1000003) + np.arange(na, dtype=np.uint64)[None, :]).reshape(-1)
    z = (np.uint64(1) + h % np.uint64(17)).astype(np.uint8)
    pos = np.empty((len(h), 3), dtype=np.float32)
    for k in range(3):
        pos[:, k] = (((h >> np.uint64(8 * k)) & np.uint64(0xFFFF)).astype(np.float64) / 4096.0).astype(np.float32)
    return pos, z


def make_indices(n, count, seed):
    """bench_read.c's make_indices: the first count entries of a seeded Fisher-Yates shuffle of 0..n-1."""
    c = min(count, n)
    perm = np.arange(n, dtype=np.int64)
    s = seed
    for i in range(c):
        s = mix64_int(s)
        j = i + s % (n - i)
        perm[i], perm[j] = perm[j], perm[i]
    return perm[:c].copy()


BOND_DTYPES = {"site_idx": "<i8", "atom1": "<i4", "atom2": "<i4", "order": "u1", "aromatic": "u1",
               "source": "S12", "flags": "u1"}   # docs/format.md "/bonds"


def create_layout(path, rows):
    """Every dataset of docs/format.md (format version 4: the version-2 columns, /bonds with /sites/bond_ptr,
    the version-3 quality columns and the /chains, /segments, /sequences tables with their pointers, the
    version-4 /structures/warnings (all "", as n_warnings is 0: the file is never filled); no
    /residues/symop or /residues/assembly_op, as a run without symmetry mates or assembly copies), contiguous,
    allocated at creation, never filled (a sparse file)."""
    f = h5py.File(path, "w", alignment_threshold=65536, alignment_interval=4096)
    spec = {t: [(c, d, tail) for c, d, tail in _schema.columns(t)] for t in _schema.TABLES}
    for (t, c), (d,) in _schema.OPTIONAL.items():
        if (t, c) not in (("residues", "symop"), ("residues", "assembly_op")):
            spec[t].append((c, d, ()))
    spec["bonds"] = [(c, BOND_DTYPES[c], ()) for c in _schema.BOND_COLUMNS]
    for t, cols in _schema.CONTEXT_TABLES.items():
        spec[t] = [(c, d, ()) for c, d in cols]
    ptrs = dict(_schema.POINTERS)
    ptrs[_schema.BOND_POINTER] = "bonds"
    ptrs.update(_schema.CONTEXT_POINTERS)
    for (t, c) in ptrs:
        spec[t].append((c, "<i8", ()))
    for t, cols in spec.items():
        g = f.create_group(t)
        for c, d, tail in cols:
            n = rows[t] + 1 if (t, c) in ptrs else rows[t]
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_layout(h5py.h5d.CONTIGUOUS)
            dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
            dcpl.set_fill_time(h5py.h5d.FILL_TIME_NEVER)
            dcpl.set_obj_track_times(False)
            h5py.h5d.create(g.id, c.encode(), h5py.h5t.py_create(np.dtype(d)),
                            h5py.h5s.create_simple((n,) + tail), dcpl=dcpl)
    run = f.create_group("run")
    run.attrs["tool_version"] = np.bytes_(sitepack.__version__)
    run.attrs["bench_generator"] = np.bytes_(GEN_VERSION)
    f.attrs["format"] = np.bytes_("sitepack")
    f.attrs["format_version"] = np.int64(4)
    f.close()


def write_synthetic(path, soa_path, n, na):
    rows = {"structures": 1, "ligands": n, "components": 1, "sites": n, "residues": n, "atoms": n * na,
            "interactions": 0, "bonds": 0, "chains": 0, "segments": 0, "sequences": 0}
    t0 = time.perf_counter()
    create_layout(path, rows)
    with h5py.File(path, "r") as f:
        offs = {k: (f[k].id.get_offset(), f[k].dtype, f[k].shape) for k in
                [f"{t}/{c}" for t in f if t != "run" for c in f[t]]}

    def mm(name):
        off, dt, shape = offs[name]
        return np.memmap(path, dtype=dt, mode="r+", offset=off, shape=shape) if off is not None else None

    nl = na // 4
    small = {"structures/path": b"synthetic", "structures/status": b"ok", "structures/n_ligands": n,
             "structures/n_sites": n, "structures/format": b"mmcif", "components/comp_id": b"SYN",
             "components/in_ccd": 1}
    for k, v in small.items():
        mm(k)[:] = v
    mm("structures/ligand_ptr")[:] = [0, n]
    mm("structures/site_ptr")[:] = [0, n]
    ar = np.arange(n, dtype=np.int64)
    for k, v in (("ligands/site_idx", ar), ("sites/ligand_idx", ar), ("residues/site_idx", ar),
                 ("sites/atom_ptr", np.arange(n + 1, dtype=np.int64) * na),
                 ("sites/residue_ptr", np.arange(n + 1, dtype=np.int64))):
        mm(k)[:] = v
    for k, v in (("ligands/comp_id", b"SYN"), ("ligands/class", b"small_molecule"), ("ligands/n_atoms", nl),
                 ("ligands/n_residues", 1), ("sites/n_ligand", nl), ("sites/n_atoms", na), ("sites/n_residues", 1),
                 ("residues/comp_id", b"SYN"), ("residues/kind", 0)):
        mm(k)[:] = v
    pos_m, el_m, fl_m, ri_m = mm("atoms/position"), mm("atoms/element"), mm("atoms/flags"), mm("atoms/residue_idx")
    flags = np.where(np.arange(na) < nl, 1, 2).astype(np.uint16)
    soa = h5py.File(soa_path, "w")
    d_pos = soa.create_dataset("positions", (n, na, 3), "<f4", chunks=(min(256, n), na, 3))
    d_z = soa.create_dataset("atomic_numbers", (n, na), "u1", chunks=(min(256, n), na))
    d_nl = soa.create_dataset("n_ligand", (n,), "<i4", chunks=(min(256, n),))
    d_nl[:] = nl
    step = 16384
    for m0 in range(0, n, step):
        nm = min(step, n - m0)
        pos, z = gen_chunk(m0, nm, na)
        a0, a1 = m0 * na, (m0 + nm) * na
        pos_m[a0:a1] = pos
        el_m[a0:a1] = z
        fl_m[a0:a1] = np.tile(flags, nm)
        ri_m[a0:a1] = np.repeat(np.arange(m0, m0 + nm, dtype=np.int64), na)
        d_pos[m0:m0 + nm] = pos.reshape(nm, na, 3)
        d_z[m0:m0 + nm] = z.reshape(nm, na)
    for a in (pos_m, el_m, fl_m, ri_m):
        a.flush()
    soa.close()
    return time.perf_counter() - t0


def write_real_soa(ds, soa_path):
    """The real file's atoms in atompack's layout: chunked position / element datasets (256 sites' mean
    atoms a chunk, as bench_read.c's write_real_soa), n_ligand (256 a chunk), atom_ptr."""
    ap = ds.column("sites/atom_ptr")
    n = len(ds)
    ch = max(1, 256 * int(ap[-1] // max(n, 1)))
    with h5py.File(soa_path, "w") as f:
        f.create_dataset("position", data=ds.column("atoms/position"), chunks=(min(ch, max(int(ap[-1]), 1)), 3))
        f.create_dataset("element", data=ds.column("atoms/element"), chunks=(min(ch, max(int(ap[-1]), 1)),))
        f.create_dataset("n_ligand", data=ds.column("sites/n_ligand"), chunks=(min(256, n),))
        f.create_dataset("atom_ptr", data=ap)


class Hdf5Soa:
    """atompack's AtomHdf5Soa reader (benchmarks/atom_hdf5_soa.py): rdcc 128 MiB, get_payloads grouping the
    indices by chunk, loading each chunk's fields once and taking molecules out of it. @p ragged: the real
    file (per-site atom ranges from atom_ptr) instead of fixed (N, K) arrays."""

    def __init__(self, path, ragged):
        self.f = h5py.File(path, "r", rdcc_nbytes=128 * 1024 * 1024, rdcc_nslots=1_000_003)
        self.ragged = ragged
        if ragged:
            self.pos, self.z, self.nl = self.f["position"], self.f["element"], self.f["n_ligand"]
            self.ap = self.f["atom_ptr"][:]
        else:
            self.pos, self.z, self.nl = self.f["positions"], self.f["atomic_numbers"], self.f["n_ligand"]
        self.n = self.nl.shape[0]
        self.chunk = 256

    def get_payloads(self, idxs):
        grouped = {}
        for out_pos, raw in enumerate(idxs):
            i = int(raw)
            if i < 0 or i >= self.n:
                raise IndexError(i)
            c, local = divmod(i, self.chunk)
            grouped.setdefault(c, []).append((out_pos, local))
        payloads = [None] * len(idxs)
        for c, group in grouped.items():
            s0, s1 = c * self.chunk, min(self.n, (c + 1) * self.chunk)
            if self.ragged:
                a0, a1 = int(self.ap[s0]), int(self.ap[s1])
                pos, z, nl = self.pos[a0:a1], self.z[a0:a1], self.nl[s0:s1]
                for out_pos, local in group:
                    b0, b1 = int(self.ap[s0 + local]) - a0, int(self.ap[s0 + local + 1]) - a0
                    payloads[out_pos] = {"positions": pos[b0:b1], "atomic_numbers": z[b0:b1],
                                         "n_ligand": int(nl[local])}
            else:
                pos, z, nl = self.pos[s0:s1], self.z[s0:s1], self.nl[s0:s1]
                for out_pos, local in group:
                    payloads[out_pos] = {"positions": pos[local], "atomic_numbers": z[local],
                                         "n_ligand": int(nl[local])}
        return payloads


def timed(fns, reps):
    """{name: (first output, median s, min s, max s)}: @p reps rounds; in each round every backend in turn
    makes one warm-up pass and one timed pass. The turns spread a shared host's noise over every backend; the
    warm-up right before each timed pass gives each its warm caches (the TLB, the page-table entries of a
    4.4 GB mapping), which the backend before it flushed: hdf5_soa's pass, timed right after, left
    get_sites_flat 10x slower on this VM)."""
    out = {}
    ts = {name: [] for name in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            out.setdefault(name, fn())   # warm-up
            t0 = time.perf_counter()
            fn()
            ts[name].append(time.perf_counter() - t0)
    res = {}
    for name, t in ts.items():
        t.sort()
        res[name] = (out[name], t[len(t) // 2], t[0], t[-1])
    return res


def backends(ds, soa, idx, pure):
    """{name: (function returning (positions, elements, n_ligand) concatenated in request order)}."""
    f = h5py.File(ds.path, "r")
    hp, he, hn = f["atoms/position"], f["atoms/element"], f["sites/n_ligand"]
    ap_list = ds.column("sites/atom_ptr").tolist()
    ap = np.asarray(ds.column("sites/atom_ptr"))
    rows = np.concatenate([np.arange(ap[i], ap[i + 1]) for i in idx])
    mpos, mel, mnl = ds.column("atoms/position"), ds.column("atoms/element"), ds.column("sites/n_ligand")
    idx_list = idx.tolist()

    def getitem_of(d):
        def getitem():
            p, e, n = [], [], []
            for i in idx_list:
                s = d[i]
                p.append(s.positions)
                e.append(s.elements)
                n.append(s.n_ligand)
            return p, e, n
        return getitem

    def flat_of(d):
        def flat():
            b = d.get_sites_flat(idx)
            return b["positions"], b["elements"], b["n_ligand"]
        return flat

    def flat3_of(d):
        def flat3():
            b = d.get_sites_flat(idx, fields=("positions", "elements", "flags"))
            return b["positions"], b["elements"], b["n_ligand"]
        return flat3

    def fancy():
        return mpos[rows], mel[rows], mnl[idx]

    def h5slice():
        p, e, n = [], [], []
        for i in idx_list:
            a0, a1 = ap_list[i], ap_list[i + 1]
            p.append(hp[a0:a1])
            e.append(he[a0:a1])
            n.append(int(hn[i]))
        return p, e, n

    def hdf5_soa():
        pl = soa.get_payloads(idx)
        return [x["positions"] for x in pl], [x["atomic_numbers"] for x in pl], [x["n_ligand"] for x in pl]

    # the floor (not data-checked): the least any reader returning copies of the same rows does
    nl_list = [int(x) for x in np.asarray(mnl)[idx]]
    n_rows = int(len(rows))

    def floor_flat_copy():   # get_sites_flat's arrays, filled by one contiguous copy of as many rows (no gather)
        return np.array(mpos[:n_rows]), np.array(mel[:n_rows]), np.array(nl_list)

    fns = {"ds_getitem": getitem_of(ds), "get_sites_flat": flat_of(ds), "numpy_fancy": fancy,
           "h5py_slicing": h5slice, "hdf5_soa": hdf5_soa, "flat_3fields": flat3_of(ds)}
    if ds.compiled:   # the pure-Python path of the same calls, same run
        fns.update({"ds_getitem_pure": getitem_of(pure), "get_sites_flat_pure": flat_of(pure),
                    "flat_3fields_pure": flat3_of(pure)})
    if n_rows <= len(mel):
        fns.update({"floor_flat_copy": floor_flat_copy})
    return fns, f


def canon(out):
    p, e, n = out
    p = np.concatenate([np.asarray(x).reshape(-1, 3) for x in p]) if isinstance(p, list) else p
    e = np.concatenate([np.asarray(x).reshape(-1) for x in e]) if isinstance(e, list) else e
    return p, e, np.asarray(n, dtype=np.int64)


def measure(label, ds, pure, soa, idx, reps):
    fns, f = backends(ds, soa, idx, pure)
    res, ref = [], None
    for name, (out, med, lo, hi) in timed(fns, reps).items():
        p, e, n = canon(out)
        if ref is None:
            ref = (p, e, n)
        same = np.array_equal(p, ref[0]) and np.array_equal(e, ref[1]) and np.array_equal(n, ref[2])
        if name.startswith("floor_"):   # no gather: only the shapes are the backends'
            same = p.shape == ref[0].shape and e.shape == ref[1].shape and np.array_equal(n, ref[2])
        if not same:
            raise SystemExit(f"bench-read-py: {label} {name} read different data than ds_getitem")
        res.append({"data": label, "backend": name, "sites": len(idx), "atoms": int(len(e)), "median_s": med,
                    "min_s": lo, "max_s": hi, "sites_per_s": len(idx) / med})
        print(f"bench-read-py: {label:9s} {name:15s} {len(idx) / med:12.0f} sites/s (median of {reps}, "
              f"{med * 1e3:.2f} ms)", file=sys.stderr)
    f.close()
    return res


def c_reader(build, path, work, count, reps, seed):
    """`sitepack bench read --real path`: the C reader's shuffled batch (position, element, flags)."""
    os.makedirs(os.path.join(work, "c"), exist_ok=True)   # `sitepack bench read` creates only the last level
    out = os.path.join(work, "c_bench.json")
    cmd = [os.path.join(build, "bin", "sitepack"), "bench", "read", "--n", "1024", "--count", str(count),
           "--reps", str(reps), "--seed", str(seed), "--dir", os.path.join(work, "c"), "--real", path, "--out", out]
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
    with open(out) as fh:
        j = json.load(fh)
    r = {x["backend"]: x for x in j["reads"] if x["data"] == "real" and x["pattern"] == "shuffled"}
    return {"sitepack_mmap_sites_per_s": r["sitepack_mmap"]["molecules_per_s"],
            "hdf5_soa_sites_per_s": r["hdf5_soa"]["molecules_per_s"], "sites": r["sitepack_mmap"]["molecules"]}


def ratios(rows, c):
    r = {x["backend"]: x["sites_per_s"] for x in rows}
    pure = {f"{k}_pure_vs_hdf5_soa": r[f"{k}_pure"] / r["hdf5_soa"] if f"{k}_pure" in r else None
            for k in ("ds_getitem", "get_sites_flat")}
    return {**pure, "ds_getitem_vs_hdf5_soa": r["ds_getitem"] / r["hdf5_soa"],
            "get_sites_flat_vs_hdf5_soa": r["get_sites_flat"] / r["hdf5_soa"],
            "numpy_fancy_over_get_sites_flat": r["numpy_fancy"] / r["get_sites_flat"],
            "ds_getitem_vs_h5py_slicing": r["ds_getitem"] / r["h5py_slicing"],
            "floor_flat_copy_vs_hdf5_soa": r["floor_flat_copy"] / r["hdf5_soa"] if "floor_flat_copy" in r else None,
            "c_batch_over_flat_3fields": c["sitepack_mmap_sites_per_s"] / r["flat_3fields"] if c else None,
            "c_batch_over_ds_getitem": c["sitepack_mmap_sites_per_s"] / r["ds_getitem"] if c else None}


def provenance(build):
    src = os.path.join(HERE, "..")
    sha = subprocess.run(["git", "-C", src, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip() != ""
    ver = subprocess.run([os.path.join(build, "bin", "sitepack"), "--version"], capture_output=True,
                         text=True).stdout.strip()
    return {"git_sha": sha + ("-dirty" if dirty else ""), "host": socket.gethostname(),
            "kernel": " ".join(platform.uname()[0:3:2]), "cores": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__, "h5py": h5py.__version__, "hdf5": h5py.version.hdf5_version,
            "sitepack_python": sitepack.__version__, "sitepack_cli": ver, "load_before": list(os.getloadavg()),
            "compiled_reader": sitepack.COMPILED}


def write_md(j, path):
    L = [f"# bench-read-py {j['date']}", "",
         f"`make bench-read-py` (bench/read_py.py; git {j['provenance']['git_sha']}, host {j['provenance']['host']}, "
         f"{j['provenance']['cores']} cores, load {j['provenance']['load_before'][0]:.2f} before / "
         f"{j['provenance']['load_after'][0]:.2f} after; Python {j['provenance']['python']}, numpy "
         f"{j['provenance']['numpy']}, h5py {j['provenance']['h5py']}, HDF5 {j['provenance']['hdf5']}; compiled "
         f"reader sitepack._fast: {'yes' if j['provenance']['compiled_reader'] else 'no, pure Python only'}).", "",
         f"Method: {j['method']['description']}", "",
         "| data | backend | sites | atoms | sites/s | median ms | vs hdf5_soa |", "|---|---|---|---|---|---|---|"]
    for d in j["datasets"]:
        soa = {x["backend"]: x["sites_per_s"] for x in d["reads"]}["hdf5_soa"]
        for x in d["reads"]:
            L.append(f"| {x['data']} | {x['backend']} | {x['sites']} | {x['atoms']} | {x['sites_per_s']:,.0f} | "
                     f"{x['median_s'] * 1e3:.2f} | {x['sites_per_s'] / soa:.1f}x |")
        c = d.get("c_reader")
        if c:
            L.append(f"| {d['label']} | C reader batch (sitepack bench read, 3 fields) | {c['sites']} | | "
                     f"{c['sitepack_mmap_sites_per_s']:,.0f} | | {c['sitepack_mmap_sites_per_s'] / soa:.1f}x |")
    L += ["", "| data | ds[i] / hdf5_soa (target >= 40) | flat / hdf5_soa (>= 150) | pure-Python ds[i] / hdf5_soa | "
          "pure-Python flat / hdf5_soa | numpy fancy / flat (<= 3) | C batch / flat (3 fields) | C batch / ds[i] | "
          "floor_flat_copy / hdf5_soa (ceiling of ds[i] and flat) |",
          "|---|---|---|---|---|---|---|---|---|"]
    for d in j["datasets"]:
        r = d["ratios"]
        fmt = (lambda v: f"{v:.2f}" if v is not None else "n/a")
        fmt1 = (lambda v: f"{v:.1f}" if v is not None else "n/a")
        L.append(f"| {d['label']} | {r['ds_getitem_vs_hdf5_soa']:.1f} | {r['get_sites_flat_vs_hdf5_soa']:.1f} | "
                 f"{fmt1(r['ds_getitem_pure_vs_hdf5_soa'])} | {fmt1(r['get_sites_flat_pure_vs_hdf5_soa'])} | "
                 f"{r['numpy_fancy_over_get_sites_flat']:.2f} | {fmt(r['c_batch_over_flat_3fields'])} | "
                 f"{fmt(r['c_batch_over_ds_getitem'])} | {fmt1(r.get('floor_flat_copy_vs_hdf5_soa'))} |")
    for d in j["datasets"]:
        if d.get("hdf5_soa_bytes", 0) < 128 * 1024 * 1024:
            L.append(f"Note: the {d['label']} hdf5_soa copy ({d['hdf5_soa_bytes'] / 1e6:.0f} MB) fits in HDF5's chunk "
                     "cache (128 MiB, atompack's setting): after the warm-up its reads come from memory, so its "
                     "ratios there compare in-memory copies, not reads of the file.")
    L.append("")
    with open(path, "w") as fh:
        fh.write("\n".join(L))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--dir", default="/tmp/sitepack-bench")
    ap.add_argument("--real", help="a merged sitepack file")
    ap.add_argument("--out", required=True, help="results/read-py-DATE.json (the .md goes next to it)")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--atoms", type=int, default=64)
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--no-c", action="store_true", help="skip the C reader's figures")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    prov = provenance(a.build)
    syn = os.path.join(a.dir, f"py_synthetic_{a.n}x{a.atoms}.h5")
    syn_soa = os.path.join(a.dir, f"py_synthetic_{a.n}x{a.atoms}_hdf5_soa.h5")
    gen_s = None
    try:
        ok = sitepack.open(syn).run.get("bench_generator") == GEN_VERSION and os.path.exists(syn_soa)
    except (OSError, sitepack.SitepackError):
        ok = False
    if not ok:
        print(f"bench-read-py: writing {syn} and {syn_soa} (once)", file=sys.stderr)
        gen_s = write_synthetic(syn, syn_soa, a.n, a.atoms)
    datasets = []
    inputs = [("synthetic", syn, syn_soa, False)]
    if a.real:
        inputs.append(("real", a.real, os.path.join(a.dir, "py_real_hdf5_soa.h5"), True))
    for label, path, soa_path, ragged in inputs:
        t0 = time.perf_counter()
        ds = sitepack.open(path)
        open_s = time.perf_counter() - t0
        if ragged:
            write_real_soa(ds, soa_path)
        soa = Hdf5Soa(soa_path, ragged)
        pure = sitepack.Dataset(path, compiled=False)
        idx = make_indices(len(ds), a.count, a.seed)
        rows = measure(label, ds, pure, soa, idx, a.reps)
        c = None if a.no_c else c_reader(a.build, path, os.path.join(a.dir, f"py_c_{label}"), a.count, a.reps,
                                         a.seed)
        datasets.append({"label": label, "path": path, "n_sites": len(ds), "open_s": open_s,
                         "hdf5_soa_bytes": os.path.getsize(soa_path), "reads": rows,
                         "c_reader": c, "ratios": ratios(rows, c)})
        soa.f.close()
        ds.close()
        pure.close()
    prov["load_after"] = list(os.getloadavg())
    j = {"benchmark": "bench-read-py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
         "provenance": prov,
         "method": {"n_synthetic": a.n, "atoms_per_site": a.atoms, "count": a.count, "reps": a.reps, "seed": a.seed,
                    "synthetic_write_s": gen_s,
                    "description": (f"{a.n:,} synthetic sites of {a.atoms} atoms in sitepack's full layout "
                                    f"(positions and elements from bench_read.c's generator) and the real merged "
                                    f"file; {a.count:,} distinct indices of a seeded shuffle (seed {a.seed}, the "
                                    f"indices of `sitepack bench read`; all sites when fewer); {a.reps} rounds, "
                                    "in each every backend in turn a warm-up and a timed pass (warm page "
                                    "cache); the median of each backend's timed passes; every backend's data "
                                    "checked equal. "
                                    "ds[i] touches positions, elements, n_ligand (a list of each, as a loader "
                                    "would keep them); get_sites_flat returns "
                                    "positions, elements, n_ligand, n_atoms, offsets; hdf5_soa is atompack's "
                                    "reader (chunks of 256 molecules, reads grouped by chunk, rdcc 128 MiB). The C "
                                    "reader: `sitepack bench read --real` on the same file, its shuffled "
                                    "sitepack_mmap batch (position, element, flags). ds_getitem, "
                                    "get_sites_flat, flat_3fields: the default Dataset (the compiled reader "
                                    "sitepack._fast when built); *_pure: Dataset(path, compiled=False), the "
                                    "pure-Python path, same indices, same run. floor_flat_copy (shapes checked, "
                                    "not data): get_sites_flat's arrays made by one contiguous copy of as many "
                                    "rows, no gather; every reader returning copies of the sites' rows copies at "
                                    "least these bytes, so its ratio to hdf5_soa bounds ds[i]'s and "
                                    "get_sites_flat's.")},
         "datasets": datasets}
    with open(a.out, "w") as fh:
        json.dump(j, fh, indent=1)
    write_md(j, os.path.splitext(a.out)[0] + ".md")
    print(f"bench-read-py: wrote {a.out} and {os.path.splitext(a.out)[0]}.md", file=sys.stderr)


if __name__ == "__main__":
    main()
