"""Site.to_rdkit(): the ligand of a site as an RDKit molecule, from /atoms and /bonds, with the chemistry of
the exported SDF (docs/format.md "Export files")."""

import numpy as np

_ORDERS = {1: "SINGLE", 2: "DOUBLE", 3: "TRIPLE", 4: "AROMATIC"}
# metals: sp_element_is_metal of src/chem/elements.c (every element but H, He, B, C-Ne, Si-Ar, Ge-Kr, Sb-Xe,
# At, Rn, Ts, Og)
_METALS = frozenset(range(1, 119)) - {1, 2, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 32, 33, 34, 35, 36, 51, 52, 53,
                                      54, 85, 86, 117, 118}
# version-4 files only (no /atoms/formal_charge): the default valence of a neutral atom for the metal-bond charge
# rule, sp_valence_default of include/sitepack/valence.h (RDKit's default valences of the non-metals; H 1, B 3,
# C 4, N 3, O 2, F 1, Si 4, P 3, S 2, Cl 1, Ge 4, As 3, Se 2, Br 1, Sb 3, Te 2, I 1, At 1); tests/peer/
# test_formal_charge.py checks that this fallback gives the stored column on the corpus
_NEUTRAL_VALENCE = {1: 1, 5: 3, 6: 4, 7: 3, 8: 2, 9: 1, 14: 4, 15: 3, 16: 2, 17: 1, 32: 4, 33: 3, 34: 2, 35: 1,
                    51: 3, 52: 2, 53: 1, 85: 1}
# the largest valence RDKit accepts per element (sp_valence_max of include/sitepack/valence.h: the last entry of
# RDKit's valence list); a charged B..F atom takes that of its isoelectronic neutral element
_MAX_VALENCE = {1: 1, 9: 1, 17: 1, 35: 1, 5: 3, 6: 4, 7: 3, 8: 2, 14: 6, 16: 6, 34: 6, 52: 6, 15: 7, 33: 7, 53: 5,
                32: 4, 51: 7, 85: 5}


def _import_rdkit(path):
    try:
        from rdkit import Chem
        from rdkit.Geometry import Point3D
    except ImportError as e:
        raise ImportError(f"{path}: Site.to_rdkit() needs RDKit (Debian: apt-get install python3-rdkit; "
                          f"pip: rdkit): {e}") from None
    return Chem, Point3D


def ligand_chemistry(site):
    """(elements, formal charges, bonds [(i, j, order)], metal bonds [(i, j)]) of the site's ligand, as the SDF
    export writes them: the /bonds rows among the ligand atoms (order 0 -> 1), bonds to a metal left out (InChI
    disconnects them); first link_hydrogens() leaves out the deposited H of linked atoms (returned last: the
    ligand atom offsets left out; the bonds lose theirs), as the export's sp_ligand_charges does before its charge
    rules. The charges are /atoms/formal_charge (format version 6: computed once by the run with that same rule,
    the values the export writes). A file without that column (version 4 and older) gets them recomputed by the
    export's rules: /atoms/ccd_charge where the atom matches a CCD atom (ccd_atom bit 0), else /atoms/charge;
    for each metal bond the non-metal atom whose default valence it completed (_NEUTRAL_VALENCE) charged -1 and
    the metal +1, so that no hydrogen is added where the metal was; then the valence rule for atoms without a
    CCD charge (_valence_charges: a four-valent N is N+, its terminal O/N partner the anion)."""
    nl = site.n_ligand
    elem = site.elements[:nl].astype(np.int64)
    bonds, metal = _ligand_bonds(site, nl, elem)
    ccd = site.atoms("ccd_atom")[:nl] if "atoms/ccd_atom" in site._ds._cols else np.zeros(nl, np.uint8)
    qc = site.atoms("ccd_charge")[:nl] if "atoms/ccd_charge" in site._ds._cols else np.zeros(nl, np.int8)
    charge = np.where(ccd & 1, qc, site.atoms("charge")[:nl]).astype(np.int64)
    gone = link_hydrogens(site, elem, charge, bonds, metal)
    if "atoms/formal_charge" in site._ds._cols:
        return elem, site.atoms("formal_charge")[:nl].astype(np.int64), bonds, metal, gone
    charge[gone] = site.atoms("charge")[:nl][gone]  # an H left out keeps its file charge, as the stored column
    dq = np.zeros(nl, np.int64)
    _metal_charges(elem, charge, bonds, metal, dq)
    _valence_charges(elem, charge, ccd, bonds, dq)
    return elem, charge + dq, bonds, metal, gone


def _ligand_bonds(site, nl, elem):
    """The /bonds rows of the site among its ligand atoms: ([(i, j, order 1..4)], metal bonds [(i, j)])."""
    bonds, metal, seen = [], [], set()
    for b in site.bonds:
        i, j = int(b["atom1"]), int(b["atom2"])
        if i >= nl or j >= nl or i == j or (min(i, j), max(i, j)) in seen:
            continue
        seen.add((min(i, j), max(i, j)))
        if elem[i] in _METALS or elem[j] in _METALS:
            metal.append((i, j))
        else:
            o = int(b["order"])
            bonds.append((i, j, o if 1 <= o <= 4 else 1))
    return bonds, metal


def _max_valence(z, c):
    """valence.h sp_valence_max: the largest valence RDKit accepts for element z at charge c, -1 not judged."""
    if c:
        if z < 5 or z > 9 or z - c < 5 or z - c > 9:
            return -1
        z -= c
    return _MAX_VALENCE.get(int(z), -1)


def link_hydrogens(site, elem, charge, bonds, metal):
    """The SDF export's link-hydrogen rule (src/chem/formal_charge.c link_hydrogens, step 0 of sp_ligand_charges; docs/usage.md "Export", SD
    field link_hydrogens): a deposited H on an atom X that a /bonds row to another residue uses (flag inter_residue
    or to_polymer, not a metal bond), which would put X above RDKit's valence at its charge, is left out; X is the
    H's one bond partner, or with no bond the nearest heavy ligand atom within 1.3 A. Returns the sorted ligand
    atom offsets left out. Applied to the charges and bonds before the charge rules, as the export does."""
    nl = len(elem)
    site_el = site.elements
    in_metal = {a for p in metal for a in p}
    linked = set()
    for b in site.bonds:
        i, j = int(b["atom1"]), int(b["atom2"])
        if int(b["flags"]) & 3 and not (site_el[i] in _METALS or site_el[j] in _METALS):
            linked.update((i, j))
    pos = site.positions[:nl]
    deg, val = np.zeros(nl, np.int64), np.zeros(nl, np.int64)
    for i, j, o in bonds:
        for k in (i, j):
            deg[k] += 1
            val[k] += 1 if o == 4 else o
    out = []
    for k in np.flatnonzero(elem == 1).tolist():
        if k in in_metal or deg[k] > 1:
            continue
        if deg[k] == 1:
            owner = next(j if i == k else i for i, j, o in bonds if k in (i, j))
        else:
            d = np.linalg.norm(pos - pos[k], axis=1)
            d[elem <= 1] = np.inf
            owner = int(np.argmin(d)) if nl and d.min() < 1.3 else -1
        if owner < 0 or owner not in linked:
            continue
        m = _max_valence(int(elem[owner]), int(charge[owner]))
        if m < 0 or val[owner] + (0 if deg[k] else 1) <= m:
            continue
        if deg[k]:
            val[owner] -= 1
            deg[owner] -= 1
            deg[k] = 0
            bonds[:] = [b for b in bonds if k not in b[:2]]
        out.append(k)
    return out


def _metal_charges(elem, charge, bonds, metal, dq):
    """The SDF export's metal-bond rule (src/chem/formal_charge.c metal_rule), into dq (version-4 files)."""
    for i, j in metal:
        m, other = (i, j) if elem[i] in _METALS else (j, i)
        nv = _NEUTRAL_VALENCE.get(int(elem[other]), 0)
        if not nv or charge[other] + dq[other] != 0 or elem[other] in _METALS:
            continue
        val = sum(1 if o == 4 else o for a, b, o in bonds if other in (a, b))
        if val + 1 <= nv:
            dq[other] -= 1
            dq[m] += 1


def _valence_charges(elem, charge, ccd, bonds, dq):
    """The SDF export's valence rule (src/chem/formal_charge.c valence_rule; docs/usage.md "Export"), into dq:
    for atoms without a CCD charge (ccd_atom bit 0 clear) and uncharged so far, an N whose bonds add up to
    valence 4 (aromatic bonds counted 1), none aromatic, is N+ (the valence of a neutral N is 3, of N+ 4); its
    terminal partner (one bond) without a charge is then the anion: an O on a single bond (amine N-oxide,
    nitro), an N on a double bond (azide)."""
    n = len(elem)
    deg, val, arom = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, bool)
    for i, j, o in bonds:
        for k in (i, j):
            deg[k] += 1
            val[k] += 1 if o == 4 else o
            arom[k] |= o == 4

    def open_(k):
        return not (ccd[k] & 1) and charge[k] + dq[k] == 0

    for k in range(n):
        if elem[k] != 7 or not open_(k) or val[k] != 4 or arom[k]:
            continue
        dq[k] += 1
        for i, j, o in bonds:
            p = j if i == k else i if j == k else -1
            if p < 0 or deg[p] != 1 or not open_(p):
                continue
            if (elem[p] == 8 and o == 1) or (elem[p] == 7 and o == 2):
                dq[p] -= 1


def site_to_rdkit(site, sanitize=True):
    """Mol of the site's n_ligand atoms (ligand_chemistry: the SDF export's charges and bonds; links to site
    atoms, whose offsets are >= n_ligand, and bonds to metals are left out, the latter listed in the
    molecule's "metal_bonds" property as "i-j" 0-based pairs). Order 1/2/3 as stored (the CCD's Kekulé orders),
    4 aromatic, unknown single; aromaticity is perceived by sanitization (sanitize=True), which raises
    RDKit's error for a molecule it cannot sanitize. With sanitize=True the stereochemistry (atom chiral tags,
    double-bond E/Z) is assigned from the observed 3D positions (Chem.AssignStereochemistryFrom3D), as RDKit
    does when it reads the exported SDF's 3D molfile; with sanitize=False the molecule has none.
    A value RDKit cannot take (an element outside 0..118: FormatError, as `sitepack check`'s value check) or
    an internal RDKit failure (its RuntimeError, e.g. a formal charge of -128) is a ValueError naming the file
    and site."""
    site.bonds   # MissingTableError first: a file without /bonds
    path = site._ds.path
    Chem, Point3D = _import_rdkit(path)
    nl = site.n_ligand
    elem, charge, bonds, metal, gone = ligand_chemistry(site)
    bad = np.flatnonzero(elem > 118)
    if len(bad):
        from .errors import FormatError
        raise FormatError(path, f"{path}: site {site.index}: /atoms/element of ligand atom {int(bad[0])} is "
                          f"{int(elem[bad[0]])}: not an atomic number 0..118 (docs/format.md; sitepack check refuses it)")
    try:
        return _build(Chem, Point3D, site, nl, elem, charge, bonds, metal, gone, sanitize)
    except RuntimeError as e:   # RDKit's own invariant and pre-condition errors
        raise ValueError(f"{path}: site {site.index}: RDKit cannot build the ligand: {e}") from None


def _build(Chem, Point3D, site, nl, elem, charge, bonds, metal, gone, sanitize):
    """The RWMol of site_to_rdkit: atoms (less the hydrogens link_hydrogens left out: then the atom indices
    follow the kept atoms; each atom's int property "ligand_atom" is its ligand offset), bonds, conformer,
    names, then sanitize + stereo when asked."""
    pos = site.positions[:nl]
    names = site.atoms("atom_name")[:nl]
    skip = set(gone)
    keep = [k for k in range(nl) if k not in skip]
    new = {k: n for n, k in enumerate(keep)}
    mol = Chem.RWMol()
    for k in keep:
        a = Chem.Atom(int(elem[k]))
        a.SetFormalCharge(int(charge[k]))
        a.SetProp("_Name", names[k].decode("ascii", "replace"))
        a.SetIntProp("ligand_atom", k)
        mol.AddAtom(a)
    bonds = [(new[i], new[j], o) for i, j, o in bonds]
    metal = [(new[i], new[j]) for i, j in metal]
    for i, j, o in bonds:
        mol.AddBond(i, j, getattr(Chem.BondType, _ORDERS[o]))
        if o == 4:
            mol.GetBondBetweenAtoms(i, j).SetIsAromatic(True)
            mol.GetAtomWithIdx(i).SetIsAromatic(True)
            mol.GetAtomWithIdx(j).SetIsAromatic(True)
    conf = Chem.Conformer(len(keep))
    for n, k in enumerate(keep):
        conf.SetAtomPosition(n, Point3D(*map(float, pos[k])))
    mol.AddConformer(conf, assignId=True)
    m = mol.GetMol()
    m.SetProp("_Name", f"{site.structure['entry_id']} {site.ligand['comp_id']} site {site.index}")
    if metal:
        m.SetProp("metal_bonds", " ".join(f"{i}-{j}" for i, j in metal))
    if gone:  # the SDF's SD field link_hydrogens: deposited H of linked atoms left out (their ligand offsets)
        m.SetProp("link_hydrogens", " ".join(map(str, gone)))
    if sanitize:
        Chem.SanitizeMol(m)
        Chem.AssignStereochemistryFrom3D(m)
    return m
