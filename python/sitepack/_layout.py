"""Open a merged file: validate its layout (the checks `sitepack check` makes on types, shapes, layout and
CSR pointers, with its messages) and map every column once (one read-only mmap of the file; each column
a numpy view at its dataset's file offset, ``h5py``'s ``id.get_offset()`` = ``H5Dget_offset``)."""

import errno
import mmap
import os

import h5py
import numpy as np

from . import _schema
from .errors import DAMAGED_HINT, FormatError, FormatVersionError

FORMAT_NAME = "sitepack"
#: format_version values this package reads (docs/format.md); any other is refused.
FORMAT_VERSIONS = (1, 2, 3, 4, 5, 6, 7, 8)   # 2: /bonds, /sites/bond_ptr, n_bonds, component descriptors; 3: /chains, /segments, /sequences and the quality columns; 4: /structures/warnings; 5: /interactions/distance2; 6: /atoms/formal_charge, /ligands identities, instance_key and descriptors, /components descriptors, /sites quality; 7: the ligand classes lipid and detergent, /ligands/desc_flags bit unknown_orders; 8: the /bonds/source value perceived (orders perceived from the coordinates) and those ligands' /atoms/formal_charge from the perception (docs/format.md)

_ALIGN_FROM = 65536   # H5Pset_alignment(65536, 4096) in the merge: objects this large start at 4096 multiples
_ALIGN = 4096


def _attr_str(attrs, name):
    v = attrs.get(name)
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.reshape(())[()]
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).rstrip(b"\0").decode("utf-8", "replace")
    return v if isinstance(v, str) else None


def _attr_int(attrs, name):
    v = attrs.get(name)
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.reshape(())[()]
    return int(v) if isinstance(v, (int, np.integer)) else None


class Layout:
    """What open() learned: ``path``, ``version``, ``size`` (bytes), ``cols`` {"table/column": (dtype, shape,
    offset or None)}, ``rows`` {table: rows}, ``has_symop``, ``has_bonds``, ``attrs`` (root + /run, decoded)."""

    def __init__(self, path):
        self.path = path
        self.cols = {}
        self.rows = {}
        self.has_symop = False
        self.has_bonds = False
        self.attrs = {}


def _fail(layout, msg):
    raise FormatError(layout.path, f"{layout.path}: {msg}")


def _check_dataset(lay, f, table, name, want, tail, rows):
    """One dataset: presence, exact type, shape, row count, contiguous, unfiltered, allocated, inside the
    file, aligned (sp_check's ck_dataset). @p want: dtype string, or None to accept any 1-D integer or
    fixed-size string column (the /bonds columns). Returns its row count."""
    full = f"/{table}/{name}"
    if f"/{table}" not in f:
        _fail(lay, f"missing group /{table}")
    if full not in f:
        _fail(lay, f"missing dataset {full}")
    ds = f[full]
    if not isinstance(ds, h5py.Dataset):
        _fail(lay, f"{full} is not a dataset")
    dt = ds.dtype
    if want is not None:
        ok = dt == np.dtype(want)
    else:
        ok = dt.kind in "iu" and dt.byteorder in "<|=" or dt.kind == "S"
    if ok and dt.kind == "S":
        ok = ds.id.get_type().get_strpad() == h5py.h5t.STR_NULLPAD
    if not ok:
        _fail(lay, f"{full} has the wrong type ({dt.str}; docs/format.md: {want or 'integer or string'})")
    if ds.ndim != 1 + len(tail) or tuple(ds.shape[1:]) != tail:
        _fail(lay, f"{full} has shape {ds.shape}, expected {'(n, 3)' if tail else '(n,)'}")
    if rows is not None and ds.shape[0] != rows:
        _fail(lay, f"{full} has {ds.shape[0]} rows, expected {rows} like the rest of /{table}")
    plist = ds.id.get_create_plist()
    if plist.get_layout() != h5py.h5d.CONTIGUOUS:
        _fail(lay, f"{full} is not contiguous")
    if plist.get_nfilters() != 0:
        _fail(lay, f"{full} is filtered (compressed)")
    nbytes = int(np.prod(ds.shape, dtype=np.int64)) * dt.itemsize
    off = ds.id.get_offset()
    if nbytes > 0:
        if off is None:
            _fail(lay, f"{full} has no file offset (not allocated)")
        if off > lay.size or nbytes > lay.size - off:
            _fail(lay, f"{full} ends at byte {off + nbytes}, past the end of the file ({lay.size} bytes): truncated")
        if nbytes >= _ALIGN_FROM and off % _ALIGN:
            _fail(lay, f"{full} ({nbytes} bytes) starts at {off}, not a multiple of {_ALIGN}")
    lay.cols[f"{table}/{name}"] = (dt, tail, off if nbytes > 0 else None, ds.shape[0])
    return ds.shape[0]


def _check_tables(lay, f):
    for table in _schema.TABLES:
        rows = None
        for name, want, tail in _schema.columns(table):
            rows = _check_dataset(lay, f, table, name, want, tail, rows)
        for (t, name), (want,) in _schema.OPTIONAL.items():
            if t != table:
                continue
            since = _schema.REQUIRED_SINCE.get((t, name))
            if f"/{t}/{name}" in f or (since is not None and lay.version >= since):
                _check_dataset(lay, f, t, name, want, (), rows)   # absent: "missing dataset", as check says
                lay.has_symop = lay.has_symop or name == "symop"
        lay.rows[table] = rows
    for table, cols in _schema.CONTEXT_TABLES.items():
        if f"/{table}" in f or lay.version >= 3:
            rows = None
            for name, want in cols:
                rows = _check_dataset(lay, f, table, name, want, (), rows)
            lay.rows[table] = rows
    for (table, name) in _schema.CONTEXT_POINTERS:
        if table in lay.rows:
            _check_dataset(lay, f, table, name, "<i8", (), lay.rows[table] + 1)
    for (table, name) in _schema.POINTERS:
        _check_dataset(lay, f, table, name, "<i8", (), lay.rows[table] + 1)
    if "/run" not in f:
        _fail(lay, "missing group /run")
    bt, bp = _schema.BOND_POINTER
    if "/bonds" in f or f"/{bt}/{bp}" in f or lay.version >= 2:   # /bonds came with version 2
        if "/bonds" not in f:
            _fail(lay, f"/{bt}/{bp} is present but /bonds is missing")
        _check_dataset(lay, f, bt, bp, "<i8", (), lay.rows[bt] + 1)
        rows = None
        for name in _schema.BOND_COLUMNS:
            rows = _check_dataset(lay, f, "bonds", name, None, (), rows)
        lay.rows["bonds"] = rows
        lay.has_bonds = True


def _read_attrs(lay, f):
    fmt = _attr_str(f.attrs, "format")
    if fmt == "sitepack-rank":   # a shard (run --shard) or a per-rank file: merge makes the file
        _fail(lay, 'a shard or per-rank file (root attribute format "sitepack-rank"), not a merged file: '
                   'sitepack merge OUT.h5 SHARD... makes one')
    if fmt != FORMAT_NAME:
        _fail(lay, f'root attribute format is not "{FORMAT_NAME}" (not a complete merged file)')
    ver = _attr_int(f.attrs, "format_version")
    if ver is None:   # absent, or not an integer (a string "3", a float): say what is there
        raw = f.attrs.get("format_version")
        what = "absent" if raw is None else f"{raw!r}, a {type(raw).__name__}, not an integer"
        raise FormatVersionError(lay.path, f"{lay.path}: root attribute format_version is {what} (docs/format.md)")
    if ver not in FORMAT_VERSIONS:
        from . import __version__
        raise FormatVersionError(lay.path, f"{lay.path}: root attribute format_version is {ver}; sitepack "
                                 f"{__version__} reads format version {', '.join(map(str, FORMAT_VERSIONS))} "
                                 "(a newer sitepack wrote this file?)")
    lay.version = ver
    if "/run" in f:
        for k, v in f["/run"].attrs.items():
            s = _attr_str(f["/run"].attrs, k)
            # provenance, kept as found: a one-value array as its value, a longer one as the array
            lay.attrs[k] = s if s is not None else (v.item() if getattr(v, "size", 1) == 1 and hasattr(v, "item") else v)


def inspect(path):
    """Validate the layout of the file at @p path; return its Layout. Raises FileNotFoundError (no such
    file), FormatError (not HDF5, not sitepack's, damaged, truncated, a bad dataset), FormatVersionError."""
    path = os.fspath(path)
    lay = Layout(path)
    try:
        lay.size = os.stat(path).st_size
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, f"cannot open {path}: no such file", path) from None
    if not os.path.isfile(path) or not h5py.is_hdf5(path):
        raise FormatError(path, f"{path} is not an HDF5 file (no HDF5 signature)")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise FormatError(path, f"cannot open {path}: {e} {DAMAGED_HINT}") from None
    with f:
        try:
            # every group's and dataset's header, as the C readers' sp_h5_open_merged() walks them (issue 39): a
            # damaged header is told at the open, whichever dataset a later read would have met it in
            f.visititems(lambda name, obj: None)
            _read_attrs(lay, f)
            _check_tables(lay, f)
        except FormatError:   # the package's own (a ValueError too): as raised
            raise
        except (OSError, KeyError, RuntimeError, TypeError, ValueError) as e:
            # HDF5 could not read the metadata, or h5py could not convert it (a type of a damaged size, an
            # attribute stored as an array): a damaged file
            raise FormatError(path, f"{path}: {e} {DAMAGED_HINT}") from None
    return lay


def map_columns(lay):
    """One read-only mmap of the file and a numpy view per column. Returns (mmap or None, {name: array})."""
    mm = None
    if lay.size > 0:
        with open(lay.path, "rb") as fh:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    cols = {}
    for name, (dt, tail, off, rows) in lay.cols.items():
        shape = (rows,) + tail
        if off is None:
            a = np.zeros(shape, dtype=dt)
            a.flags.writeable = False
        else:
            a = np.frombuffer(mm, dtype=dt, count=int(np.prod(shape, dtype=np.int64)), offset=off).reshape(shape)
        cols[name] = a
    _derive_distance2(lay, cols)
    return mm, cols


def _derive_distance2(lay, cols):
    """A file before format version 5 holds a water bridge's water O - site atom distance (Å) in angle2: read it
    as version 5 lays it out, /interactions/distance2 (that distance on water-bridge rows, NaN elsewhere) and
    angle2 NaN on those rows (docs/format.md "Versions"). Both are in-memory arrays; the file is unchanged."""
    if "interactions/distance2" in cols or "interactions/angle2" not in cols:
        return
    angle2, water = cols["interactions/angle2"], cols["interactions/type"] == _schema.WATER_BRIDGE
    dist2 = np.where(water, angle2, np.float32(np.nan)).astype("<f4")
    ang2 = np.where(water, np.float32(np.nan), angle2).astype("<f4")
    for a in (dist2, ang2):
        a.flags.writeable = False
    cols["interactions/distance2"], cols["interactions/angle2"] = dist2, ang2
    lay.cols["interactions/distance2"] = (np.dtype("<f4"), (), None, len(dist2))


def check_pointers(lay, cols):
    """CSR pointers and the per-site indices the reader follows (sp_check's ck_content, vectorised)."""
    what = {"ligands": "ligands", "sites": "sites", "atoms": "atoms", "residues": "residues",
            "interactions": "interactions", "bonds": "bonds", "sequences": "sequence codes",
            "segments": "segments"}   # check's words (ck_ptr's "what")
    ptrs = dict(_schema.POINTERS)
    if lay.has_bonds:
        ptrs[_schema.BOND_POINTER] = "bonds"
    for (table, name), target in _schema.CONTEXT_POINTERS.items():   # /chains' pointers, when the file has them
        if table in lay.rows and target in lay.rows:
            ptrs[(table, name)] = target
    for (table, name), target in ptrs.items():
        p, full, total = cols[f"{table}/{name}"], f"/{table}/{name}", lay.rows[target]
        if p[0] != 0:
            _fail(lay, f"{full}[0] = {p[0]}, expected 0")
        d = np.diff(p)
        if len(d) and d.min() < 0:
            i = int(np.flatnonzero(d < 0)[0])
            _fail(lay, f"{full} decreases at row {i} ({p[i]} then {p[i + 1]})")
        if p[-1] != total:
            _fail(lay, f"{full} ends at {p[-1]}, but there are {total} {what.get(target, target)}")
    ap, rp = cols["sites/atom_ptr"], cols["sites/residue_ptr"]
    na, nr, nl = cols["sites/n_atoms"], cols["sites/n_residues"], cols["sites/n_ligand"]
    bad = np.flatnonzero((np.diff(ap) != na) | (np.diff(rp) != nr))
    if len(bad):
        i = int(bad[0])
        _fail(lay, f"site {i}: n_atoms {na[i]} / n_residues {nr[i]} disagree with atom_ptr / residue_ptr "
                   f"({ap[i + 1] - ap[i]} / {rp[i + 1] - rp[i]})")
    bad = np.flatnonzero((nl < 0) | (nl > na))
    if len(bad):
        i = int(bad[0])
        _fail(lay, f"site {i}: n_ligand {nl[i]} outside [0, n_atoms {na[i]}]")
    n_sites, n_lig = lay.rows["sites"], lay.rows["ligands"]
    s, l = cols["sites/structure_idx"], cols["sites/ligand_idx"]
    sp = cols["structures/site_ptr"]
    site = np.arange(n_sites, dtype=np.int64)
    ok = (s >= 0) & (s < lay.rows["structures"])
    ok[ok] &= (sp[s[ok]] <= site[ok]) & (site[ok] < sp[s[ok] + 1])
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        _fail(lay, f"/sites/structure_idx[{i}] = {s[i]} is out of range or not the structure whose site_ptr block "
                   "holds the site")
    ok = (l >= 0) & (l < n_lig)
    ok[ok] &= (cols["ligands/site_idx"][l[ok]] == site[ok]) & (cols["ligands/structure_idx"][l[ok]] == s[ok])
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        _fail(lay, f"/sites/ligand_idx[{i}] = {l[i]}: out of range, or that ligand's site_idx / structure_idx do not "
                   "point back")
    _check_site_rows(lay, cols, "interactions", "sites/interaction_ptr",
                     (("lig_atom", 0), ("site_atom", 0), ("water_atom", -1)))
    if lay.has_bonds:
        _check_site_rows(lay, cols, "bonds", "sites/bond_ptr", (("atom1", 0), ("atom2", 0)))


def block_owner(ptr):
    """The site of each row of a table whose rows are in CSR blocks per site: site i owns rows
    ptr[i]:ptr[i + 1] (ptr validated as a CSR pointer). (rows,) int64."""
    return np.repeat(np.arange(len(ptr) - 1, dtype=np.int64), np.diff(ptr))


def _check_site_rows(lay, cols, table, ptr, atom_cols):
    """Every row of @p table lies in its site's block of @p ptr (its site_idx is that site) and each of its
    @p atom_cols ((column, lowest allowed value)) is an atom offset inside that site: lo <= value < n_atoms
    (sitepack check's ck_bonds / ck_interaction_rows, with their words). The package hands these offsets to
    the caller as atom indices of the site's arrays (Site.bonds, Site.interactions)."""
    owner = block_owner(cols[ptr])
    si = cols[f"{table}/site_idx"]
    if not np.array_equal(si, owner):
        i = int(np.flatnonzero(si != owner)[0])
        _fail(lay, f"/{table}/site_idx[{i}] = {si[i]}, but the row is in site {owner[i]}'s block")
    n = cols["sites/n_atoms"][owner]
    for c, lo in atom_cols:
        a = cols[f"{table}/{c}"]
        bad = np.flatnonzero((a < lo) | (a >= n))
        if len(bad):
            i = int(bad[0])
            _fail(lay, f"/{table}/{c}[{i}] = {a[i]} is outside site {owner[i]}'s {n[i]} atoms")