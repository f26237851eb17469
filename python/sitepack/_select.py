"""Dataset.select(): site indices by the site's ligand, its entry and its own columns (docs/python.md)."""

import numbers

import numpy as np

from . import _layout, _schema


def _as_list(v):
    return [v] if isinstance(v, (str, bytes)) else list(v)


def _in(values, wanted):
    """values: a bytes column; wanted: str or an iterable of str (exact match)."""
    w = [x.encode() if isinstance(x, str) else bytes(x) for x in _as_list(wanted)]
    # a name longer than the column's width matches nothing (a cast to the column's dtype would cut it)
    w = [x for x in w if len(x) <= values.dtype.itemsize]
    return np.isin(values, np.array(w, dtype=values.dtype)) if w else np.zeros(values.shape, dtype=bool)


def _flag_masks(path, names):
    lig = site = 0
    for n in _as_list(names):
        if n in _schema.LIGAND_FLAGS:
            lig |= _schema.LIGAND_FLAGS[n]
        elif n in _schema.SITE_FLAGS:
            site |= _schema.SITE_FLAGS[n]
        else:
            raise ValueError(f"{path}: unknown flag '{n}' (ligand flags: {', '.join(_schema.LIGAND_FLAGS)}; site "
                             f"flags: {', '.join(_schema.SITE_FLAGS)})")
    return lig, site


LIGAND_CLASSES = ("small_molecule", "ion", "artifact", "glycan", "cofactor", "peptide", "unknown")  # format.md


def _check_classes(path, wanted):
    for x in _as_list(wanted):
        name = x.decode() if isinstance(x, bytes) else x
        if name not in LIGAND_CLASSES:
            raise ValueError(f"{path}: unknown ligand class '{name}' (valid: {', '.join(LIGAND_CLASSES)})")


def _check_numbers(path, **limits):
    """Each given limit is a real number (an int or float, numpy's too; not a str, not a bool)."""
    for name, v in limits.items():
        if v is not None and (isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.number))):
            raise TypeError(f"{path}: select({name}=...) takes a number, not {type(v).__name__} ({v!r})")


FILTERS = ("ligand_class", "comp_id", "molecule_key", "flags", "not_flags", "method", "max_resolution",
           "min_resolution", "min_atoms", "max_atoms", "min_ligand_atoms", "max_ligand_atoms", "symmetry")


def select(ds, ligand_class=None, comp_id=None, molecule_key=None, flags=None, not_flags=None, method=None,
           max_resolution=None, min_resolution=None, min_atoms=None, max_atoms=None, min_ligand_atoms=None,
           max_ligand_atoms=None, symmetry=None):
    """Sorted int64 indices of the sites passing every filter given (None = no filter).

    ligand_class: str or list (/ligands/class: small_molecule, ion, artifact, glycan, cofactor, peptide,
    unknown); comp_id: str or list, a comp_id of any of the ligand's own residues (its /residues rows of
    kind 0: NAG selects a NAG-NAG-BMA glycan too; the rule of ``sitepack export --comp``); molecule_key: str or
    list (/ligands/molecule_key of the site's ligand); flags: names that must all be set,
    not_flags: names none of which may be set (ligand flags sitepack.LIGAND_FLAGS, site flags
    sitepack.SITE_FLAGS); method: str or list, exact /structures/method, case-insensitive (e.g. "X-RAY
    DIFFRACTION"); max_resolution / min_resolution: Å, inclusive (entries without a resolution never pass);
    min_atoms / max_atoms: site block atoms, inclusive; min_ligand_atoms / max_ligand_atoms: n_ligand;
    symmetry: True = sites holding symmetry-image residues (site flag symmetry), False = none.
    An unknown class or flag name is a ValueError that lists the valid ones; a limit that is not a number
    (``max_resolution="2"``) a TypeError."""
    _check_numbers(ds.path, max_resolution=max_resolution, min_resolution=min_resolution, min_atoms=min_atoms,
                   max_atoms=max_atoms, min_ligand_atoms=min_ligand_atoms, max_ligand_atoms=max_ligand_atoms)
    c = ds._cols
    n = len(ds)
    keep = np.ones(n, dtype=bool)
    lig = c["sites/ligand_idx"]
    st = c["sites/structure_idx"]
    if ligand_class is not None:
        _check_classes(ds.path, ligand_class)
        keep &= _in(c["ligands/class"], ligand_class)[lig]
    if comp_id is not None:
        own = (c["residues/kind"] == _schema.RESIDUE_KINDS["ligand"]) & _in(c["residues/comp_id"], comp_id)
        owner = _layout.block_owner(c["sites/residue_ptr"])   # residue_ptr validated at open
        has = np.zeros(n, dtype=bool)
        has[owner[own]] = True
        keep &= has
    if molecule_key is not None:
        keep &= _in(c["ligands/molecule_key"], molecule_key)[lig]
    for names, want_set in ((flags, True), (not_flags, False)):
        if names is None:
            continue
        lm, sm = _flag_masks(ds.path, names)
        lf, sf = c["ligands/flags"][lig], c["sites/flags"]
        if want_set:
            keep &= ((lf & lm) == lm) & ((sf & sm) == sm)
        else:
            keep &= ((lf & lm) == 0) & ((sf & sm) == 0)
    if method is not None:
        wanted = {m.upper() for m in _as_list(method)}
        methods = np.char.upper(np.char.decode(c["structures/method"], "utf-8", "replace"))   # UTF-8 (docs/format.md)
        keep &= np.isin(methods, list(wanted))[st]
    if max_resolution is not None or min_resolution is not None:
        res = c["structures/resolution"][st]
        with np.errstate(invalid="ignore"):
            if max_resolution is not None:
                keep &= res <= max_resolution
            if min_resolution is not None:
                keep &= res >= min_resolution
    na, nl = c["sites/n_atoms"], c["sites/n_ligand"]
    for arr, lo, hi in ((na, min_atoms, max_atoms), (nl, min_ligand_atoms, max_ligand_atoms)):
        if lo is not None:
            keep &= arr >= lo
        if hi is not None:
            keep &= arr <= hi
    if symmetry is not None:
        has = (c["sites/flags"] & _schema.SITE_FLAGS["symmetry"]) != 0
        keep &= has if symmetry else ~has
    return np.flatnonzero(keep).astype(np.int64)
