"""Dataset.select(): site indices by the site's ligand, its entry and its own columns (docs/python.md)."""

import datetime
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


LIGAND_CLASSES = ("small_molecule", "ion", "artifact", "glycan", "cofactor", "peptide", "unknown", "lipid",
                  "detergent")  # format.md; lipid, detergent: version 7


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
           "min_resolution", "min_atoms", "max_atoms", "min_ligand_atoms", "max_ligand_atoms", "symmetry",
           # issue 36 (curate_mask below)
           "descriptors", "rules", "max_r_free", "released_after", "released_before", "interactions",
           "min_pocket_residues", "max_pocket_residues", "pass_quality", "quality")

DESCRIPTOR_NAMES = tuple(n for n, _ in _schema.DESCRIPTORS if n != "desc_flags")
RULES = {"ro5": 2, "ro3": 4, "drug_like": 8}   # /ligands/desc_flags bits (descriptors.h SP_DESCF_*)


def _need(ds, name, since="format version 6"):
    if name not in ds._cols:
        raise ValueError(f"{ds.path}: select needs /{name}, which this file lacks ({since}; docs/format.md)")
    return ds._cols[name]


def _date(path, name, v):
    """v as bytes after checking it is a calendar date YYYY-MM-DD (a str that is not: ValueError; not a str:
    TypeError)."""
    if not isinstance(v, str):
        raise TypeError(f"{path}: select({name}=...) takes a date 'YYYY-MM-DD', not {v!r}")
    ok = len(v) == 10 and v[4] == "-" and v[7] == "-" and (v[:4] + v[5:7] + v[8:]).isdigit() and v.isascii()
    try:
        ok = ok and datetime.date(int(v[:4]), int(v[5:7]), int(v[8:])) is not None
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{path}: select({name}=...): not a valid date {v!r} (YYYY-MM-DD)")
    return v.encode()


def curate_mask(ds, lig, st, descriptors=None, rules=None, max_r_free=None, released_after=None,
                released_before=None, interactions=None, min_pocket_residues=None, max_pocket_residues=None,
                pass_quality=None, quality=None):
    """The filters of issue 36 (docs/python.md "Selecting sites"): a bool mask over the sites.

    descriptors: {name: (lo, hi)} inclusive, None for an open end, on the site's ligand's /ligands descriptors
    (mw, tpsa, logp, mr, fsp3, qed, formal_charge, hbd, hba, hbd_lipinski, hba_lipinski, rotatable_bonds,
    n_rings, n_aromatic_rings); a ligand without descriptors never passes. rules: "ro5", "ro3", "drug_like"
    (all given must hold). max_r_free: inclusive, entries without one never pass. released_after /
    released_before: 'YYYY-MM-DD', inclusive, on /structures/release_date (none: never passes). interactions:
    {type name: minimum count} (sitepack.INTERACTION_TYPES names; "any": all types together). min/max_pocket_residues:
    the site's polymer residues (/residues kind 1), inclusive. pass_quality: True / False. quality: names of
    /sites/quality criteria (sitepack._schema.SITE_QUALITY) that must all be met."""
    n = len(ds)
    c = ds._cols
    keep = np.ones(n, dtype=bool)
    if descriptors is not None:
        for name, lim in dict(descriptors).items():
            if name not in DESCRIPTOR_NAMES:
                raise ValueError(f"{ds.path}: unknown descriptor '{name}' (valid: {', '.join(DESCRIPTOR_NAMES)})")
            if isinstance(lim, (str, bytes)) or not hasattr(lim, "__len__") or len(lim) != 2:
                raise ValueError(f"{ds.path}: select(descriptors={{{name!r}: {lim!r}}}): pass a range (lo, hi), "
                                 "None for an open end, not a single value")
            lo, hi = lim
            _check_numbers(ds.path, **{f"{name}_min": lo, f"{name}_max": hi})
            v = _need(ds, f"ligands/{name}")[lig]
            ok = (_need(ds, "ligands/desc_flags")[lig] & 1) != 0
            with np.errstate(invalid="ignore"):
                if lo is not None:
                    ok &= v >= lo
                if hi is not None:
                    ok &= v <= hi
            keep &= ok
    if rules is not None:
        bits = 0
        for r in _as_list(rules):
            if r not in RULES:
                raise ValueError(f"{ds.path}: unknown rule '{r}' (valid: {', '.join(RULES)})")
            bits |= RULES[r]
        keep &= (_need(ds, "ligands/desc_flags")[lig] & bits) == bits
    if max_r_free is not None:
        _check_numbers(ds.path, max_r_free=max_r_free)
        with np.errstate(invalid="ignore"):
            keep &= c["structures/r_free"][st] <= max_r_free
    for name, v, after in (("released_after", released_after, True), ("released_before", released_before, False)):
        if v is None:
            continue
        d = c["structures/release_date"][st]
        keep &= (d != b"") & ((d >= _date(ds.path, name, v)) if after else (d <= _date(ds.path, name, v)))
    if interactions is not None:
        names = {v: k for k, v in _schema.INTERACTION_TYPES.items()}
        xp, xt = c["sites/interaction_ptr"], c["interactions/type"]
        owner = _layout.block_owner(xp)
        for name, lo in dict(interactions).items():
            if name != "any" and name not in names:
                raise ValueError(f"{ds.path}: unknown interaction type '{name}' (valid: any, {', '.join(names)})")
            _check_numbers(ds.path, **{name: lo})
            sel = owner if name == "any" else owner[xt == names[name]]
            keep &= np.bincount(sel, minlength=n)[:n] >= lo
    if min_pocket_residues is not None or max_pocket_residues is not None:
        _check_numbers(ds.path, min_pocket_residues=min_pocket_residues, max_pocket_residues=max_pocket_residues)
        owner = _layout.block_owner(c["sites/residue_ptr"])
        cnt = np.bincount(owner[c["residues/kind"] == _schema.RESIDUE_KINDS["polymer"]], minlength=n)[:n]
        if min_pocket_residues is not None:
            keep &= cnt >= min_pocket_residues
        if max_pocket_residues is not None:
            keep &= cnt <= max_pocket_residues
    if pass_quality is not None:
        ok = _need(ds, "sites/pass_quality") != 0
        keep &= ok if pass_quality else ~ok
    if quality is not None:
        bits = 0
        for q in _as_list(quality):
            if q not in _schema.SITE_QUALITY:
                raise ValueError(f"{ds.path}: unknown quality criterion '{q}' (valid: {', '.join(_schema.SITE_QUALITY)})")
            bits |= _schema.SITE_QUALITY[q]
        keep &= (_need(ds, "sites/quality") & bits) == 0
    return keep


def select(ds, ligand_class=None, comp_id=None, molecule_key=None, flags=None, not_flags=None, method=None,
           max_resolution=None, min_resolution=None, min_atoms=None, max_atoms=None, min_ligand_atoms=None,
           max_ligand_atoms=None, symmetry=None, **curate):
    """Sorted int64 indices of the sites passing every filter given (None = no filter).

    ligand_class: str or list (/ligands/class: small_molecule, ion, artifact, glycan, cofactor, peptide,
    unknown, lipid, detergent; lipid and detergent from format version 7); comp_id: str or list, a comp_id of any of the ligand's own residues (its /residues rows of
    kind 0: NAG selects a NAG-NAG-BMA glycan too; the rule of ``sitepack export --comp``); molecule_key: str or
    list (/ligands/molecule_key of the site's ligand); flags: names that must all be set,
    not_flags: names none of which may be set (ligand flags sitepack.LIGAND_FLAGS, site flags
    sitepack.SITE_FLAGS); method: str or list, exact /structures/method, case-insensitive (e.g. "X-RAY
    DIFFRACTION"); max_resolution / min_resolution: Å, inclusive (entries without a resolution never pass);
    min_atoms / max_atoms: site block atoms, inclusive; min_ligand_atoms / max_ligand_atoms: n_ligand;
    symmetry: True = sites holding symmetry-image residues (site flag symmetry), False = none.
    An unknown class or flag name is a ValueError that lists the valid ones; a limit that is not a number
    (``max_resolution="2"``) a TypeError. The filters of issue 36 (descriptors, rules, max_r_free,
    released_after, released_before, interactions, min/max_pocket_residues, pass_quality, quality): curate_mask;
    another keyword is a TypeError."""
    unknown = [k for k in curate if k not in FILTERS]
    if unknown:
        raise TypeError(f"{ds.path}: select() got an unknown filter {unknown[0]!r} (filters: {', '.join(FILTERS)})")
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
    if curate:
        keep &= curate_mask(ds, lig, st, **curate)
    return np.flatnonzero(keep).astype(np.int64)
