"""sitepack.Dataset: a merged file as a sequence of sites (docs/python.md).

Two paths read the same rows with identical results and exceptions: the compiled one (sitepack._fast, a C
extension: ds[i] and get_sites_flat's gather in C; _CompiledDataset, _CompiledSite) when it was built and
imports, and the pure-Python one (Dataset, _PySite) otherwise, or with SITEPACK_PURE_PYTHON=1 in the
environment, or with Dataset(path, compiled=False)."""

import operator
import os

import numpy as np

from . import _layout, _schema, _select
from .errors import MissingTableError, SiteIndexError

#: the ABI of sitepack._fast this code uses (SP_FAST_ABI of _fast.c); an extension of another ABI is not used
_FAST_ABI = 2


def _load_fast():
    """sitepack._fast, or None: SITEPACK_PURE_PYTHON set (not "" or "0"), not built (no compiler or Python.h
    at install, a source tree whose CMake build did not make it), or of another ABI."""
    if os.environ.get("SITEPACK_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from . import _fast
    except ImportError:
        return None
    return _fast if getattr(_fast, "ABI", None) == _FAST_ABI else None


_fast = _load_fast()

#: get_sites_flat / Site names for the three per-atom arrays most models read (other /atoms columns
#: go by their dataset name: "b_iso", "occupancy", "charge", "atom_name", "chem", ...).
ATOM_ALIASES = {"positions": "position", "elements": "element"}


def _decode(v):
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode("utf-8", "replace")   # the text columns are UTF-8 (docs/format.md), the rest ASCII
    return v.item() if isinstance(v, np.generic) else v


def _gather_rows(a0, n, offsets):
    """The atom rows of sites whose blocks start at a0 (k,) with n (k,) atoms, concatenated: (offsets[-1],)
    int64, without a Python loop: a run of +1 steps through each block, a jump at each block's first row,
    summed (one fill, one scatter, one cumulative sum)."""
    total = int(offsets[-1])
    d = np.ones(total, dtype=np.int64)
    if total == 0:
        return d
    nz = n > 0
    first, start = offsets[:-1][nz], a0[nz]
    last = start + n[nz] - 1
    d[first[1:]] = start[1:] - last[:-1]
    d[0] = start[0]
    return np.cumsum(d, out=d)


#: get_sites_flat copies blocks of rows (_block_plan) from this many atoms in a batch up, and gathers row by
#: row below, where the blocks' fixed cost (a few numpy calls per block width) outweighs the per-row cost:
#: on bench-read-py's real file, positions + elements of 16 shuffled sites (1.6k atoms) took 0.16 ms as
#: blocks vs 0.06 ms row by row, 64 sites (9.5k atoms) 0.20 vs 0.16 ms, 128 sites (19k) 0.21 vs 0.24 ms,
#: all 1,716 sites (248k) 1.95 vs 2.83 ms (CPU-time medians, the shared host at load 3.5-6)
_BLOCK_FROM = 16384
_BLOCK_TOP = 6   # widest block: 2**6 = 64 rows


def _block_plan(a0, n, offsets, top=_BLOCK_TOP):
    """Copies that cover the atom blocks of sites starting at a0 (k,) with n (k,) atoms, each exactly once,
    without a Python loop per site: a list of (w, src, dst) with w = 2**j rows and src, dst (int64) the first
    rows of each copy in the column and in the batch. A site's block splits into n >> top copies of 2**top
    rows, then one copy of 2**j rows for each bit j < top set in n (n = 100: 64 + 32 + 4 rows); the copy for
    bit j starts at n with its bits <= j cleared."""
    plan = []
    m = n >> top
    most = int(m.max()) if len(m) else 0
    if most == 1:
        sel = np.flatnonzero(m)
        plan.append((1 << top, a0[sel], offsets[sel]))
    elif most > 1:
        start = (np.arange(int(m.sum()), dtype=np.int64) - np.repeat(np.cumsum(m) - m, m)) << top
        plan.append((1 << top, np.repeat(a0, m) + start, np.repeat(offsets[:-1], m) + start))
    for j in range(top - 1, -1, -1):
        sel = np.flatnonzero(n & (1 << j))
        if len(sel):
            start = n[sel] & -(2 << j)
            plan.append((1 << j, a0[sel] + start, offsets[sel] + start))
    return plan


def _copy_blocks(col, plan, total):
    """A new (total,) + col.shape[1:] array filled by the copies of @p plan from the C-contiguous column
    @p col (every mapped column is). For a width w, the column and the batch are seen as overlapping items
    of w rows (item k = rows k..k+w-1: an ndarray over the same buffer, item size w rows, stride one row),
    so one fancy index gathers every w-row copy at once and one fancy assignment places them; the copies
    never overlap in the batch, so their order does not matter."""
    out = np.empty((total,) + col.shape[1:], dtype=col.dtype)
    if total == 0:
        return out
    row = out.itemsize * (out.size // total)
    n_rows = len(col)
    for w, src, dst in plan:
        item = np.dtype((np.void, w * row))
        blocks = np.ndarray((n_rows - w + 1,), dtype=item, buffer=col, strides=(row,))
        places = np.ndarray((total - w + 1,), dtype=item, buffer=out, strides=(row,))
        places[dst] = blocks[src]
    return out


def _take_rows(col, rows):
    """col[rows] as a new array: a column with several values per row ((N, 3) positions) is gathered as one
    opaque item per row (a void view of the row's bytes), which numpy copies faster than row by row. The rows
    are in range by construction (site indices checked, atom_ptr validated at open), so take() runs with
    mode="wrap", which skips numpy's per-index range check (the same rows, 20-30 % less time)."""
    if col.ndim > 1 and col.flags.c_contiguous and col.size:
        item = col.dtype.itemsize * int(np.prod(col.shape[1:]))
        flat = col.view(np.dtype((np.void, item))).reshape(col.shape[0])
        return flat.take(rows, mode="wrap").view(col.dtype).reshape((len(rows),) + col.shape[1:])
    return col.take(rows, axis=0, mode="wrap") if len(col) else col.take(rows, axis=0)


class _Closed:
    """Stands in for the mapped columns after Dataset.close(): any read raises ValueError naming the file, so a
    Site taken before the close fails as ds[i] does (no per-access test on the open path)."""

    __slots__ = ("_path",)

    def __init__(self, path):
        self._path = path

    def _fail(self, *_):
        raise ValueError(f"{self._path}: the dataset is closed")

    __getitem__ = get = __contains__ = __iter__ = __len__ = _fail


class Site:
    """One site of a Dataset (``ds[i]``). Each attribute reads its rows of the mapped file when accessed
    and returns a copy (nothing is read before, nothing shared with the file after).

    Atom arrays have one row per atom of the site's block: the ligand's ``n_ligand`` atoms first, then the
    site atoms grouped by residue (docs/format.md "CSR convention").

    ``ds[i]`` is a _PySite (pure Python) or a _CompiledSite (sitepack._fast: positions, elements, flags,
    n_ligand, n_atoms in C), both Sites; the methods below are shared. Each provides ``_ds`` (the Dataset),
    ``index`` (row of /sites), ``_a0``, ``_a1`` (its atom rows), ``n_atoms``, ``positions``, ``elements``,
    ``flags``, ``n_ligand``."""

    __slots__ = ()

    def __repr__(self):
        return (f"<sitepack.Site {self.index} of {self._ds.path}: {self._a1 - self._a0} atoms, "
                f"ligand {self.ligand['comp_id']}>")

    def atoms(self, column):
        """Any /atoms column for this site's atoms, e.g. ``"b_iso"`` (n_atoms,) float32 Å², ``"charge"`` int8,
        ``"atom_name"`` S8 (docs/format.md "/atoms"). Raises MissingTableError for an unknown column."""
        return self._ds._column("atoms", ATOM_ALIASES.get(column, column))[self._a0:self._a1].copy()

    def site_value(self, column):
        """One /sites column's value for this site, e.g. ``"center"`` (3,) float32 Å, ``"sasa_free"`` Å²."""
        v = self._ds._column("sites", column)[self.index]
        return v.copy() if isinstance(v, np.ndarray) else _decode(v)

    @property
    def center(self):
        """(3,) float32, Å: mean of the ligand's heavy-atom positions."""
        return self._ds._cols["sites/center"][self.index].copy()

    @property
    def ligand_index(self):
        """int: row of /ligands."""
        return int(self._ds._cols["sites/ligand_idx"][self.index])

    @property
    def structure_index(self):
        """int: row of /structures."""
        return int(self._ds._cols["sites/structure_idx"][self.index])

    @property
    def ligand(self):
        """dict: the ligand's /ligands row, strings decoded (keys: comp_id, class, flags, molecule_key, ...)."""
        return self._ds._row("ligands", self.ligand_index)

    @property
    def structure(self):
        """dict: the /structures row of the site's entry (path, entry_id, method, resolution Å, ...)."""
        return self._ds._row("structures", self.structure_index)

    @property
    def residues(self):
        """Structured array, one record per residue of the site's block (the ligand's own residues first, kind
        0): fields of /residues (site_idx, chains, comp_id, seq ids, kind, min_distance Å, contact[, symop])."""
        return self._ds._block("residues", "sites/residue_ptr", self.index)

    @property
    def interactions(self):
        """Structured array, one record per typed interaction (fields of /interactions; lig_atom, site_atom,
        water_atom are offsets in this site's atom arrays; distance Å, angle and angle2 degrees; distance2 Å, the
        water bridge's water O - site atom distance, NaN on other rows: a file before format version 5 had it in
        angle2, read here as version 5 lays it out, docs/format.md "Versions")."""
        return self._ds._block("interactions", "sites/interaction_ptr", self.index)

    @property
    def bonds(self):
        """Structured array, one record per covalent bond of the ligand and ligand–site link (/bonds: site_idx,
        atom1, atom2 = offsets in this site's atom arrays, order 1/2/3, aromatic, source, flags). Raises
        MissingTableError when the file predates bonds (no /bonds table)."""
        ds = self._ds
        if not ds.has_bonds:
            raise MissingTableError(ds.path, f"{ds.path}: no /bonds table (the file predates bonds: rerun it "
                                    "with a sitepack that writes them)")
        return ds._block("bonds", "sites/bond_ptr", self.index)

    def to_rdkit(self, sanitize=True):
        """The ligand as an RDKit molecule: its n_ligand atoms (elements, formal charges from /atoms/charge,
        a conformer with the observed positions in Å) and the bonds of /bonds among them (orders 1/2/3; an
        unknown order is single). Raises ImportError without RDKit, MissingTableError without /bonds."""
        from ._rdkit import site_to_rdkit
        return site_to_rdkit(self, sanitize)


class _PySite(Site):
    """The pure-Python Site: each array a copy of a slice of the mapped column."""

    __slots__ = ("_ds", "index", "_a0", "_a1")

    def __init__(self, ds, index, a0, a1):
        self._ds = ds
        self.index = index   #: row of /sites
        self._a0 = a0
        self._a1 = a1

    @property
    def n_atoms(self):
        """int: atoms of the site's block."""
        return self._a1 - self._a0

    @property
    def positions(self):
        """(n_atoms, 3) float32, Å: Cartesian coordinates (symmetry-image atoms already transformed)."""
        return self._ds._pos[self._a0:self._a1].copy()

    @property
    def elements(self):
        """(n_atoms,) uint8: atomic numbers (0 unknown)."""
        return self._ds._elem[self._a0:self._a1].copy()

    @property
    def flags(self):
        """(n_atoms,) uint16: atom flag bits (sitepack.ATOM_FLAGS; bit 0 = ligand atom)."""
        return self._ds._aflags[self._a0:self._a1].copy()

    @property
    def n_ligand(self):
        """int: ligand atoms, the first n_ligand rows of every atom array."""
        return self._ds._nlig_mv[self.index]


class Dataset:
    """A merged sitepack file, opened read-only (``sitepack.open(path)``).

    ``len(ds)`` sites; ``ds[i]`` a Site (negative i counts from the end); ``ds.get_sites_flat(idx)`` a batch;
    ``ds.select(...)`` site indices. The file is validated once and mapped once; a Dataset pickles as its
    path (each DataLoader worker maps the file itself).

    ``Dataset(path, compiled=None)``: the compiled reader (sitepack._fast) when it is available (None) or
    required (True: ImportError without it), the pure-Python one with False; both give identical results
    and raise identical exceptions. ``ds.compiled`` says which one serves ``ds``."""

    #: True when sitepack._fast serves ds[i] and get_sites_flat (a _CompiledDataset)
    compiled = False

    def __new__(cls, path=None, compiled=None):
        if cls is Dataset:
            if compiled is None:
                compiled = _fast is not None
            elif compiled and _fast is None:
                raise ImportError("sitepack._fast, the compiled reader, is not available (not built, or "
                                  "SITEPACK_PURE_PYTHON is set): docs/python.md \"The compiled reader\"")
            if compiled:
                return _CompiledDataset.__new__(_CompiledDataset, path)
        return super().__new__(cls)

    def __init__(self, path, compiled=None):
        lay = _layout.inspect(path)
        mm, cols = _layout.map_columns(lay)
        _layout.check_pointers(lay, cols)
        self._lay, self._mm, self._cols = lay, mm, cols
        self._closed = False
        self.path = lay.path                #: the path as given
        self.format_version = lay.version   #: the file's format_version
        self.has_bonds = lay.has_bonds      #: True when the file has /bonds
        self.run = dict(lay.attrs)          #: /run attributes (tool_version, git_sha, job_json, ...)
        self._n = lay.rows["sites"]
        # per-site scalars that ds[i] reads, in memory (12 bytes per site), read through memoryviews: an
        # index gives a Python int without a numpy scalar
        self._ap = np.array(cols["sites/atom_ptr"], dtype=np.int64)
        self._ap_mv = memoryview(self._ap)
        self._nlig = cols["sites/n_ligand"]
        self._nlig_mem = np.array(self._nlig, dtype=np.int32)
        self._nlig_mv = memoryview(self._nlig_mem)
        self._pos = cols["atoms/position"]
        self._elem = cols["atoms/element"]
        self._aflags = cols["atoms/flags"]
        self._tables = {}
        self._block_dtypes = {}
        self._table_cols = {}
        self._graph_cache = {}   # sitepack.graph's per-residue columns, made on first use

    # -- sequence protocol, pickling, context manager --
    def __len__(self):
        return self._n

    def _check_open(self):
        if self._closed:
            raise ValueError(f"{self.path}: the dataset is closed")

    def __getitem__(self, i):
        # the per-item path: the closed test inline (not a _check_open() call), a plain int in range tested
        # with one chained comparison; other index types and out-of-range ones go through _site_index
        if self._closed:
            self._check_open()
        n = self._n
        if type(i) is not int or not -n <= i < n:
            i = self._site_index(i)
        elif i < 0:
            i += n
        ap = self._ap_mv
        return _PySite(self, i, ap[i], ap[i + 1])

    def _site_index(self, i):
        """@p i (an integer, not a bool, in [-N, N)) as a site row in [0, N); TypeError or SiteIndexError."""
        if type(i) is not int:
            if isinstance(i, (bool, np.bool_)):   # ds[True] is no site index (numpy refuses it too)
                raise TypeError(f"{self.path}: site index must be an integer, not {type(i).__name__}")
            try:
                i = operator.index(i)
            except TypeError:
                raise TypeError(f"{self.path}: site index must be an integer, not {type(i).__name__}") from None
        n = self._n
        if not -n <= i < n:
            raise SiteIndexError(self.path, f"{self.path}: site index {i} out of range [-{n}, {n})")
        return i + n if i < 0 else i

    def __iter__(self):
        for i in range(self._n):
            yield self[i]

    def __reduce__(self):
        return (Dataset, (self.path,)) if self.compiled else (Dataset, (self.path, False))

    def __repr__(self):
        return f"<sitepack.Dataset {self.path}: {self._n} sites, format version {self.format_version}>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Drop the views and unmap the file (copies returned earlier stay valid). Afterwards ds[i],
        get_sites_flat, select, column and table raise ValueError ("... is closed")."""
        self._closed = True
        closed = _Closed(self.path)
        self._cols = self._tables = closed
        self._pos = self._elem = self._aflags = self._nlig = self._nlig_mv = closed
        if self._mm is not None:
            try:
                self._mm.close()
            except BufferError:   # a view obtained through column() is still alive: the GC unmaps later
                pass
            self._mm = None

    # -- tables --
    def column(self, name):
        """The mapped (read-only, zero-copy) array of a dataset, e.g. ``"atoms/b_iso"``, ``"sites/center"``."""
        table, _, col = name.strip("/").partition("/")
        return self._column(table, col)

    def _column(self, table, col):
        self._check_open()
        try:
            return self._cols[f"{table}/{col}"]
        except KeyError:
            raise MissingTableError(self.path, f"{self.path}: no dataset /{table}/{col}") from None

    def table(self, name):
        """A whole table (``"structures"``, ``"ligands"``, ``"components"``, ``"sites"``, ``"residues"``,
        ``"interactions"``, ``"bonds"``) as a numpy record array in memory, one field per column (bytes for
        strings). Cached: later calls return the same array."""
        t = self._tables.get(name)
        if t is None:
            names = self._table_columns(name)
            t = self._records(name, 0, len(self._cols[f"{name}/{names[0]}"])).view(np.recarray)
            self._tables[name] = t
        return t

    @property
    def components(self):
        """Record array of /components: one row per comp_id (comp_id, in_ccd, molecule_key, formula, name, ...)."""
        return self.table("components")

    @property
    def structures(self):
        """Record array of /structures: one row per input file (path, status, method, resolution Å, ...)."""
        return self.table("structures")

    def warnings(self, structure):
        """The warning messages of /structures row ``structure`` (an int in [-S, S); format version 4): a list of
        str, one per message in the order the reader recorded them, escaped as the file holds them (docs/format.md
        "File-level rules"); when they did not all fit the column, the last item is ``"... N more"`` (N messages
        not shown). ``[]`` when ``n_warnings`` is 0. A file of format version 1 to 3 has no texts:
        ``MissingTableError``. The whole text, a str: ``site.structure["warnings"]``."""
        col = self._column("structures", "warnings")
        n = len(col)
        if isinstance(structure, (bool, np.bool_)) or not isinstance(structure, (int, np.integer)):
            raise TypeError(f"{self.path}: structure index {structure!r} is not an integer")
        if not -n <= structure < n:
            raise IndexError(f"{self.path}: structure {structure} out of range [-{n}, {n})")
        text = _decode(col[int(structure)])
        return text.split("\n") if text else []

    @property
    def ligands(self):
        """Record array of /ligands: one row per ligand instance (comp_id, class, flags, molecule_key, site_idx)."""
        return self.table("ligands")

    def _table_columns(self, name):
        """The data columns of table @p name (pointers aside), cached: Site.ligand / .structure / .residues
        look them up once per table, not per item."""
        names = self._table_cols.get(name)
        if names is None:
            names = self._table_cols[name] = self._find_table_columns(name)
        return names

    def _find_table_columns(self, name):
        if name == "bonds" and not self.has_bonds:
            raise MissingTableError(self.path, f"{self.path}: no /bonds table (the file predates bonds)")
        names = [c for c in self._lay.cols if c.startswith(name + "/")]
        if not names:
            raise MissingTableError(self.path, f"{self.path}: no table /{name}")
        ptrs = {p for (t, p) in list(_schema.POINTERS) + [_schema.BOND_POINTER] if t == name}
        return [c.split("/", 1)[1] for c in names if c.split("/", 1)[1] not in ptrs]

    def _row(self, table, i):
        return {c: _decode(self._cols[f"{table}/{c}"][i]) for c in self._table_columns(table)}

    def _records(self, table, r0, r1):
        """Rows r0:r1 of a table as a structured array (one field per column, (3,) fields for (n, 3) ones)."""
        names = self._table_columns(table)
        dt = self._block_dtypes.get(table)
        if dt is None:
            dt = np.dtype([(c, self._cols[f"{table}/{c}"].dtype, self._cols[f"{table}/{c}"].shape[1:]) for c in names])
            self._block_dtypes[table] = dt
        out = np.empty(r1 - r0, dtype=dt)
        for c in names:
            out[c] = self._cols[f"{table}/{c}"][r0:r1]
        return out

    def _block(self, table, ptr, i):
        p = self._cols[ptr]
        return self._records(table, int(p[i]), int(p[i + 1]))

    # -- batches --
    def _check_indices(self, idx):
        """@p idx as int64 site indices; a negative index counts from the end, as ds[i] does."""
        self._check_open()
        idx = np.asarray(idx)
        if idx.ndim != 1:
            idx = idx.reshape(-1)
        if idx.dtype.kind not in "iu" and idx.size:
            raise TypeError(f"{self.path}: site indices must be integers, not {idx.dtype}")
        if idx.dtype.kind == "u" and idx.size and idx.max() >= self._n:   # before the cast: 2**64-1 is not -1
            k = int(np.flatnonzero(idx >= self._n)[0])
            raise SiteIndexError(self.path, f"{self.path}: site index {idx[k]} out of range [-{self._n}, "
                                 f"{self._n}) at position {k}")
        idx = idx.astype(np.int64, copy=False)
        if idx.size:
            bad = (idx < -self._n) | (idx >= self._n)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise SiteIndexError(self.path, f"{self.path}: site index {idx[k]} out of range [-{self._n}, "
                                     f"{self._n}) at position {k}")
            if (idx < 0).any():
                idx = np.where(idx < 0, idx + self._n, idx)
        return idx

    def get_sites_flat(self, idx, fields=("positions", "elements"), site_fields=("n_ligand",)):
        """Read the sites @p idx (any integer sequence, duplicates allowed) into one flat batch, the atoms of
        all sites concatenated in request order. Vectorised, no Python loop per site: from _BLOCK_FROM atoms
        the sites' rows are copied as blocks (_block_plan, _copy_blocks), below that row by row.

        @p fields: per-atom columns: ``"positions"`` (A, 3) float32 Å, ``"elements"`` (A,) uint8, ``"flags"``
        (A,) uint16, or any other /atoms column by name (``"b_iso"``, ``"charge"``, ``"chem"``, ...).
        @p site_fields: per-site /sites columns (``"n_ligand"`` int32, ``"center"`` (k, 3) float32 Å, ...).
        Either may be one name (a str) or a sequence of names; a name may not be asked twice (as an atom and
        a site field), nor be ``"n_atoms"`` or ``"offsets"``, the batch's own keys (ValueError).

        Returns a dict: each field -> array (A = total atoms, k = len(idx)), plus ``"n_atoms"`` (k,) int64 and
        ``"offsets"`` (k+1,) int64: site j's atoms are rows ``offsets[j]:offsets[j+1]``. A negative index counts
        from the end (as ds[i]). Raises SiteIndexError for an index outside [-len(ds), len(ds)),
        MissingTableError for an unknown column, ValueError once the dataset is closed (and for the names
        above), TypeError for indices that are not integers."""
        idx = self._check_indices(idx)
        fields = (fields,) if isinstance(fields, str) else tuple(fields)
        site_fields = (site_fields,) if isinstance(site_fields, str) else tuple(site_fields)
        clash = set(fields) & set(site_fields) | (set(fields) | set(site_fields)) & {"n_atoms", "offsets"}
        if clash:
            raise ValueError(f"{self.path}: {sorted(clash)}: a key of the batch can be asked once, and n_atoms / "
                             "offsets are the batch's own (the block sizes, equal to /sites/n_atoms)")
        cols = [(f, self._column("atoms", ATOM_ALIASES.get(f, f))) for f in fields]
        scols = [(f, self._column("sites", f)) for f in site_fields]
        n, offsets, arrays = self._atom_rows(idx, [c for _, c in cols])
        out = {f: a for (f, _), a in zip(cols, arrays)}
        for f, c in scols:
            out[f] = c.take(idx, axis=0)
        out["n_atoms"] = n
        out["offsets"] = offsets
        return out

    def _atom_rows(self, idx, columns):
        """get_sites_flat's atom rows: sites @p idx (int64, in [0, N)) -> (n (k,) int64 atoms of each site,
        offsets (k + 1,) int64, [each of @p columns' rows of those sites concatenated]). The compiled
        Dataset's is _fast.Reader._gather (one memcpy per site and column)."""
        ap = self._ap
        a0 = ap[idx]
        n = ap[idx + 1] - a0
        offsets = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(n, out=offsets[1:])
        total = int(offsets[-1])
        if total >= _BLOCK_FROM:
            plan = _block_plan(a0, n, offsets)
            return n, offsets, [_copy_blocks(c, plan, total) for c in columns]
        rows = _gather_rows(a0, n, offsets)
        return n, offsets, [_take_rows(c, rows) for c in columns]

    SPLIT_SIDES = {"train": 0, "val": 1, "test": 2, "dropped": -1, "copy": -2, "undated": -3,
                   "redundant": -4}   #: codes of a /splits column

    def split_names(self):
        """Names of the /splits columns (``sitepack split``), sorted; [] when the file has none."""
        self._check_open()
        import h5py
        with h5py.File(self.path, "r") as f:
            return sorted(f["splits"].keys()) if "splits" in f else []

    SPLIT_STRATA = {"not_novel": 0, "novel_protein": 1, "novel_ligand": 2, "novel_both": 3}   #: /split_scores codes

    def _split_name(self, name):
        names = self.split_names()
        if name is None:
            if len(names) != 1:
                if not names:
                    raise MissingTableError(self.path, f"{self.path}: no /splits (run sitepack split)")
                raise ValueError(f"{self.path}: several splits ({', '.join(names)}): give name= "
                                 "(SiteDataset: split_name=)")
            return names[0]
        if name not in names:
            raise MissingTableError(self.path, f"{self.path}: no /splits/{name} (splits: {', '.join(names) or 'none'})")
        return name

    def split(self, side, name=None, stratum=None):
        """Sorted int64 site indices of one side (``"train"``, ``"val"``, ``"test"``, ``"dropped"``, ``"copy"``,
        ``"undated"`` or ``"redundant"``) of the split ``/splits/<name>`` written by ``sitepack split``
        (docs/usage.md "Splits"). ``name=None`` takes the file's only split. ``stratum`` (``"not_novel"``, ``"novel_protein"``,
        ``"novel_ligand"``, ``"novel_both"``) keeps the val/test sites of that novelty stratum
        (/split_scores/<name>/stratum, Dataset.split_scores). MissingTableError without /splits, without that
        name, or (stratum) without its scores; ValueError for another side or stratum, for name=None with several
        splits, and for a column that is not one int8 per site."""
        self._check_open()
        if side not in self.SPLIT_SIDES:
            raise ValueError(f"{self.path}: split side must be one of {', '.join(self.SPLIT_SIDES)}, got {side!r}")
        if stratum is not None and stratum not in self.SPLIT_STRATA:
            raise ValueError(f"{self.path}: stratum must be one of {', '.join(self.SPLIT_STRATA)}, got {stratum!r}")
        if not hasattr(self, "_splits"):
            self._splits = {}
        name = self._split_name(name)
        col = self._splits.get(name)
        if col is None:
            import h5py
            with h5py.File(self.path, "r") as f:
                d = f["splits"][name]
                if d.dtype != np.dtype("int8") or d.shape != (self._n,):
                    raise ValueError(f"{self.path}: /splits/{name} is {d.dtype} {d.shape}, expected int8 ({self._n},)")
                col = d[()]
            self._splits[name] = col
        keep = col == self.SPLIT_SIDES[side]
        if stratum is not None:
            keep &= self.split_scores(name)["stratum"] == self.SPLIT_STRATA[stratum]
        return np.flatnonzero(keep).astype(np.int64)

    def split_scores(self, name=None):
        """The leakage scores of split ``name`` (docs/format.md "/split_scores"): a dict of per-site numpy arrays
        ``max_identity`` (float64, MMseqs2 identity of the site's chains to train chains, NaN when not val/test
        or no polypeptide chain), ``max_tanimoto`` (float64, to train ligands, NaN when not val/test) and
        ``stratum`` (int8, SPLIT_STRATA codes, -1 not scored). MissingTableError when the split has no scores
        (``sitepack split --no-scores``) or there is no such split."""
        self._check_open()
        name = self._split_name(name)
        import h5py
        with h5py.File(self.path, "r") as f:
            if "split_scores" not in f or name not in f["split_scores"]:
                raise MissingTableError(self.path, f"{self.path}: no /split_scores/{name} (sitepack split without "
                                                   "--no-scores)")
            g = f["split_scores"][name]
            return {k: g[k][()] for k in ("max_identity", "max_tanimoto", "stratum")}

    def select(self, **filters):
        """Site indices (sorted int64 array) of the sites that pass every filter given (see sitepack._select
        and docs/python.md): ligand_class, comp_id, molecule_key, flags, not_flags, method, max_resolution,
        min_resolution, min_atoms, max_atoms, min_ligand_atoms, max_ligand_atoms, symmetry."""
        self._check_open()
        return _select.select(self, **filters)


if _fast is not None:
    class _CompiledSite(_fast.SiteBase, Site):
        """A Site whose positions, elements, flags, n_ligand and n_atoms are C getters (sitepack._fast)."""

        __slots__ = ()

    class _CompiledDataset(_fast.Reader, Dataset):
        """A Dataset whose ds[i] (an int in range: one C call making a _CompiledSite; anything else through
        Dataset._site_index, for the same exceptions) and get_sites_flat's atom rows (_fast.Reader._gather)
        are compiled; the rest is Dataset's."""

        compiled = True

        def __init__(self, path, compiled=None):
            Dataset.__init__(self, path)
            self._fast_init(self.path, _CompiledSite, self._ap, self._nlig_mem, self._pos, self._elem,
                            self._aflags)

        _atom_rows = _fast.Reader._gather

        def close(self):
            self._fast_close()
            Dataset.close(self)
