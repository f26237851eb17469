"""The CCD reference of a ligand's InChIKey, for the InChIKey checks of test_export_chem.py and
test_py_bonds.py (issues 14 and 15).

The CCD's InChIKey (_pdbx_chem_comp_descriptor) is that of the free component. A ligand whose CCD
leaving atoms are absent from the structure (the O1 of a sugar whose C1 carries a glycosidic link, the
OXT of a linked residue, a leaving group of a covalent inhibitor) is another molecule: its reference is
derived here from the CCD block itself, the component with exactly its absent leaving atoms removed
(and a hydrogen bonded only to one of them, which leaves with it: MAN flags O1 as leaving, not HO1),
its InChIKey computed by Open Babel (Debian python3-openbabel, the IUPAC InChI library; Debian's
RDKit 2022.09 has no InChI) from a V2000 molfile of the remaining atoms and the CCD's bonds (Kekulé
orders) and formal charges, hydrogens as the CCD lists them, the reader adding none beyond the
standard valences (as it does for the exported SDF). Only the first block (the skeleton: formula and
connectivity) is compared; it does not depend on coordinates, so the molfile has none.
"""
import gemmi
from openbabel import openbabel as ob
from openbabel import pybel

ob.obErrorLog.SetOutputLevel(0)
ORDER = {"SING": 1, "DOUB": 2, "TRIP": 3, "QUAD": 4, "AROM": 4, "DELO": 4, "POLY": 4, "PI": 4,
         "SINGLE": 1, "DOUBLE": 2, "TRIPLE": 3, "AROMATIC": 4, "DELOC": 4}
METALS = set("Li Be Na Mg Al K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Cs "
             "Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po Fr Ra Ac Th "
             "Pa U Np Pu Am Cm".split())


def ccd_graphs(path):
    """comp_id -> {"atoms": [(name, symbol, charge, leaving)], "bonds": [(name1, name2, order)], "inchikey": str}."""
    out = {}
    for b in gemmi.cif.read(path):
        cid = b.find_value("_chem_comp.id")
        atoms = b.find("_chem_comp_atom.", ["atom_id", "type_symbol", "charge", "?pdbx_leaving_atom_flag"])
        if not cid or not len(atoms):
            continue
        am = []
        for r in atoms:
            ch = r.str(2)
            sym = r.str(1).capitalize()
            am.append((r.str(0), "H" if sym in ("D", "T") else sym, int(float(ch)) if ch not in ("?", ".", "") else 0,
                       r.has(3) and r.str(3).upper() == "Y"))
        bm = [(r.str(0), r.str(1), ORDER.get(r.str(2).upper(), 1))
              for r in b.find("_chem_comp_bond.", ["atom_id_1", "atom_id_2", "value_order"])]
        key = ""
        for r in b.find("_pdbx_chem_comp_descriptor.", ["type", "descriptor"]):
            if r.str(0) == "InChIKey":
                key = r.str(1)
        out[gemmi.cif.as_string(cid)] = {"atoms": am, "bonds": bm, "inchikey": key}
    return out


def molfile(graph, drop=()):
    """V2000 molfile text of the component without the atoms named in `drop` (no coordinates)."""
    keep = [a for a in graph["atoms"] if a[0] not in drop]
    idx = {a[0]: i + 1 for i, a in enumerate(keep)}
    bonds = [(idx[x], idx[y], o) for x, y, o in graph["bonds"] if x in idx and y in idx]
    lines = ["", "  ccd_inchi", "", f"{len(keep):3d}{len(bonds):3d}  0  0  0  0  0  0  0  0999 V2000"]
    lines += [f"{0:10.4f}{0:10.4f}{0:10.4f} {a[1]:<3} 0  0  0  0  0  0  0  0  0  0  0  0" for a in keep]
    lines += [f"{x:3d}{y:3d}{o:3d}  0" for x, y, o in bonds]
    chg = [(idx[a[0]], a[2]) for a in keep if a[2]]
    for k in range(0, len(chg), 8):
        part = chg[k:k + 8]
        lines.append(f"M  CHG{len(part):3d}" + "".join(f" {i:3d} {c:3d}" for i, c in part))
    lines.append("M  END")
    return "\n".join(lines) + "\n"


def inchikey_of_molfile(text):
    return pybel.readstring("mol", text).write("inchikey").strip()


def inchikey_of_sdf(path):
    return next(pybel.readfile("sdf", path)).write("inchikey").strip()


def reference(graph, observed_names):
    """(reference InChIKey, which, removed leaving atoms, absent non-leaving heavy atoms) for a ligand
    residue of this component whose atoms have `observed_names`: the CCD's descriptor when every CCD
    heavy atom is observed ("ccd"), else the key derived without the absent leaving atoms ("derived")."""
    absent_leaving = {a[0] for a in graph["atoms"] if a[3] and a[0] not in observed_names}
    # a hydrogen bonded only to an absent leaving atom leaves with it (MAN flags O1 leaving, not HO1)
    elem = {a[0]: a[1] for a in graph["atoms"]}
    partners = {}
    for x, y, _ in graph["bonds"]:
        partners.setdefault(x, set()).add(y)
        partners.setdefault(y, set()).add(x)
    absent_leaving |= {h for h, ps in partners.items() if elem.get(h) == "H" and h not in observed_names
                       and ps and ps <= absent_leaving}
    absent_leaving = sorted(absent_leaving)
    absent_heavy = sorted(a[0] for a in graph["atoms"] if a[1] != "H" and not a[3] and a[0] not in observed_names)
    heavy_leaving = [n for n in absent_leaving if next(a for a in graph["atoms"] if a[0] == n)[1] != "H"]
    if not heavy_leaving:
        return graph["inchikey"], "ccd", absent_leaving, absent_heavy
    return inchikey_of_molfile(molfile(graph, set(absent_leaving))), "derived", absent_leaving, absent_heavy
