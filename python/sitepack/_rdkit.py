"""Site.to_rdkit(): the ligand of a site as an RDKit molecule, from /atoms and /bonds."""

_ORDERS = {1: "SINGLE", 2: "DOUBLE", 3: "TRIPLE"}


def _import_rdkit(path):
    try:
        from rdkit import Chem
        from rdkit.Geometry import Point3D
    except ImportError as e:
        raise ImportError(f"{path}: Site.to_rdkit() needs RDKit (Debian: apt-get install python3-rdkit; "
                          f"pip: rdkit): {e}") from None
    return Chem, Point3D


def site_to_rdkit(site, sanitize=True):
    """RWMol -> Mol of the site's n_ligand atoms and the /bonds rows among them (links to site atoms, whose
    offsets are >= n_ligand, are left out). Bond order 1/2/3 as stored (the CCD's Kekulé orders), any other
    order single; aromaticity is perceived by sanitization (sanitize=True), which raises RDKit's error for a
    molecule it cannot sanitize."""
    bonds = site.bonds   # MissingTableError first: a file without /bonds
    Chem, Point3D = _import_rdkit(site._ds.path)
    nl = site.n_ligand
    elem = site.elements[:nl]
    charge = site.atoms("charge")[:nl]
    pos = site.positions[:nl]
    names = site.atoms("atom_name")[:nl]
    mol = Chem.RWMol()
    for z, q, nm in zip(elem.tolist(), charge.tolist(), names.tolist()):
        a = Chem.Atom(int(z))
        a.SetFormalCharge(int(q))
        a.SetProp("_Name", nm.decode("ascii", "replace"))
        mol.AddAtom(a)
    for b in bonds:
        i, j = int(b["atom1"]), int(b["atom2"])
        if i < nl and j < nl and i != j and mol.GetBondBetweenAtoms(i, j) is None:
            mol.AddBond(i, j, getattr(Chem.BondType, _ORDERS.get(int(b["order"]), "SINGLE")))
    conf = Chem.Conformer(nl)
    for k in range(nl):
        conf.SetAtomPosition(k, Point3D(*map(float, pos[k])))
    mol.AddConformer(conf, assignId=True)
    m = mol.GetMol()
    m.SetProp("_Name", f"{site.structure['entry_id']} {site.ligand['comp_id']} site {site.index}")
    if sanitize:
        Chem.SanitizeMol(m)
    return m
