"""The merged file's tables and columns, as docs/format.md specifies them (and src/store/schema.c writes).

Each table is a group holding one dataset per column; every column of a table has the table's row
count as its first dimension. dtypes are numpy spellings of the file types (explicit little-endian;
``S<n>`` = fixed-size NUL-padded ASCII). tests/peer/test_py_dataset.py checks that this list and a
file written by `sitepack run` hold exactly the same datasets with the same dtypes.
"""

#: (table, column) -> (numpy dtype string, trailing shape). Order: the order of docs/format.md.
TABLES = {
    "structures": [
        ("file_idx", "<i8"), ("n_parts", "<i4"), ("path", "S512"), ("sha256", "S64"), ("format", "S8"),
        ("status", "S24"), ("error", "S256"), ("gzip", "u1"), ("bytes", "<i8"), ("text_bytes", "<i8"),
        ("n_atoms", "<i8"), ("n_atoms_model1", "<i8"), ("n_models", "<i4"), ("n_ligands", "<i4"),
        ("n_sites", "<i4"), ("n_warnings", "<i4"), ("entry_id", "S32"), ("method", "S48"),
        ("resolution", "<f4"), ("t_read", "<f8"), ("t_parse", "<f8"), ("t_survey", "<f8"), ("t_site", "<f8"),
    ],
    "ligands": [
        ("structure_idx", "<i8"), ("model_num", "<i4"), ("comp_id", "S8"), ("label_asym_id", "S8"),
        ("auth_asym_id", "S8"), ("auth_seq_id", "<i4"), ("label_seq_id", "<i4"), ("ins_code", "S4"),
        ("altloc", "S4"), ("class", "S16"), ("flags", "<u4"), ("n_residues", "<i4"), ("n_atoms", "<i4"),
        ("n_heavy_atoms", "<i4"), ("n_ccd_heavy_atoms", "<i4"), ("molecule_key", "S40"), ("key_source", "S16"),
        ("residues", "S128"), ("site_idx", "<i8"),
    ],
    "components": [
        ("comp_id", "S8"), ("in_ccd", "u1"), ("molecule_key", "S40"), ("key_source", "S16"), ("formula", "S64"),
        ("name", "S80"), ("type", "S40"), ("n_heavy_atoms", "<i4"),
    ],
    "sites": [
        ("structure_idx", "<i8"), ("ligand_idx", "<i8"), ("n_ligand", "<i4"), ("n_atoms", "<i4"),
        ("n_residues", "<i4"), ("flags", "<u4"), ("center", "<f4", 3), ("cutoff", "<f4"), ("ph", "<f4"),
        ("sasa_free", "<f4"), ("sasa_complex", "<f4"), ("ligand_charge", "<i4"), ("site_charge", "<i4"),
        ("n_interactions", "<i4"), ("chem_flags", "<u4"),
    ],
    "residues": [
        ("site_idx", "<i8"), ("label_asym_id", "S8"), ("auth_asym_id", "S8"), ("comp_id", "S8"),
        ("auth_seq_id", "<i4"), ("label_seq_id", "<i4"), ("ins_code", "S4"), ("kind", "u1"),
        ("min_distance", "<f4"), ("contact", "u1"),
    ],
    "atoms": [
        ("position", "<f4", 3), ("element", "u1"), ("flags", "<u2"), ("residue_idx", "<i8"), ("occupancy", "<f4"),
        ("b_iso", "<f4"), ("charge", "i1"), ("altloc", "S1"), ("atom_name", "S8"), ("chem", "<u2"),
        ("charge_ph", "i1"), ("pka", "<f4"), ("frac_protonated", "<f4"), ("sasa_free", "<f4"),
        ("sasa_complex", "<f4"),
    ],
    "interactions": [
        ("site_idx", "<i8"), ("type", "u1"), ("flags", "u1"), ("geometry", "u1"), ("coordination", "u1"),
        ("lig_atom", "<i4"), ("site_atom", "<i4"), ("water_atom", "<i4"), ("distance", "<f4"), ("angle", "<f4"),
        ("angle2", "<f4"), ("offset", "<f4"),
    ],
}

#: The ligand descriptors of /ligands and /components (format version 6; docs/format.md "Ligand descriptors"):
#: RDKit's values (include/sitepack/descriptors.h); counts -1 and values NaN where desc_flags bit 0 is clear.
DESCRIPTORS = [("mw", "<f4"), ("formal_charge", "<i4"), ("hbd", "<i4"), ("hba", "<i4"), ("hbd_lipinski", "<i4"),
               ("hba_lipinski", "<i4"), ("rotatable_bonds", "<i4"), ("tpsa", "<f4"), ("logp", "<f4"), ("mr", "<f4"),
               ("n_rings", "<i4"), ("n_aromatic_rings", "<i4"), ("fsp3", "<f4"), ("qed", "<f4"), ("desc_flags", "u1")]
#: /ligands/desc_flags and /components/desc_flags bits (SP_DESCF_* of descriptors.h)
DESC_FLAGS = {"computed": 1, "ro5": 2, "ro3": 4, "drug_like": 8, "unknown_orders": 16}  # unknown_orders: version 7

#: /sites/quality bits (SP_QUAL_* of result.h; docs/format.md "Site quality"): a set bit is a criterion not met
SITE_QUALITY = {"resolution": 1, "r_work": 2, "r_free": 4, "r_gap": 8, "ligand_incomplete": 16, "ligand_altlocs": 32,
                "ligand_occupancy": 64, "ligand_b": 128, "pocket_incomplete": 256, "pocket_gap": 512,
                "crystal_contact": 1024}

#: Columns present only in some files: /residues/symop exactly when some site has symmetry mates; the
#: columns added by format version 2 (docs/format.md: component descriptors, the atoms' CCD charge and
#: flags, the sites' bond count) in every version-2 file.
OPTIONAL = {("residues", "symop"): ("S16",),
            ("components", "smiles"): ("S512",), ("components", "inchi"): ("S1024",),
            ("components", "inchikey"): ("S27",), ("components", "descriptor_flags"): ("u1",),
            ("sites", "n_bonds"): ("<i4",), ("atoms", "ccd_charge"): ("i1",), ("atoms", "ccd_atom"): ("u1",),
            # issue 16 item 12, added within version 2: files written before it lack it
            ("structures", "entry_first"): ("<i8",),
            # format version 3 (docs/format.md "/structures", "/ligands", "/residues"): entry quality, ligand fit
            ("structures", "method_file"): ("S48",), ("structures", "r_work"): ("<f4",),
            ("structures", "r_free"): ("<f4",), ("structures", "deposition_date"): ("S12",),
            ("structures", "release_date"): ("S12",), ("structures", "n_chains"): ("<i4",),
            ("ligands", "b_mean"): ("<f4",), ("ligands", "b_max"): ("<f4",), ("ligands", "site_b_mean"): ("<f4",),
            ("ligands", "site_b_max"): ("<f4",), ("ligands", "occupancy_mean"): ("<f4",),
            ("ligands", "system_id"): ("<i4",), ("ligands", "system_size"): ("<i4",),
            ("residues", "chain_idx"): ("<i8",), ("residues", "assembly_op"): ("S16",),
            # format version 4 (docs/format.md "/structures"): the warning texts, UTF-8, one message per line
            ("structures", "warnings"): ("S1024",),
            # format version 5 (docs/format.md "/interactions"): the water bridge's water O - site atom distance
            ("interactions", "distance2"): ("<f4",),
            # format version 6 (docs/format.md "/atoms"): the formal charge the SDF export writes
            ("atoms", "formal_charge"): ("i1",),
            # format version 6 (issue 37; docs/format.md "/ligands"): microheterogeneity, identical identifiers
            ("ligands", "identities"): ("S64",), ("ligands", "instance_key"): ("S40",),
            # format version 6 (docs/format.md "Ligand descriptors"): RDKit's descriptors, issue 36
            **{(t, c): (d,) for t in ("ligands", "components") for c, d in DESCRIPTORS},
            # format version 6 (docs/format.md "Site quality"): issue 36
            ("sites", "quality"): ("<u4",), ("sites", "pass_quality"): ("u1",)}

#: The format_version from which an OPTIONAL column is required (docs/format.md "Versions"; the C schema's
#: sp_col_since): a file of that version or later without it is refused, as `sitepack check` refuses it. The
#: columns not named here (residues/symop, residues/assembly_op) are optional in every version.
REQUIRED_SINCE = {("components", "smiles"): 2, ("components", "inchi"): 2, ("components", "inchikey"): 2,
                  ("components", "descriptor_flags"): 2, ("sites", "n_bonds"): 2, ("atoms", "ccd_charge"): 2,
                  ("atoms", "ccd_atom"): 2,
                  # added within version 2 (files of early version 2 lack it), required from version 3
                  ("structures", "entry_first"): 3,
                  **{k: 3 for k in OPTIONAL if k[0] in ("structures", "ligands") and k != ("structures", "entry_first")},
                  ("residues", "chain_idx"): 3,
                  ("structures", "warnings"): 4,   # after the version-3 entries: it replaces their 3
                  ("interactions", "distance2"): 5,
                  # format version 6 (issues 33, 36, 37): v6_columns of src/store/schema.c
                  ("atoms", "formal_charge"): 6, ("ligands", "identities"): 6, ("ligands", "instance_key"): 6,
                  **{(t, c): 6 for t in ("ligands", "components") for c, _ in DESCRIPTORS},
                  ("sites", "quality"): 6, ("sites", "pass_quality"): 6}

#: tables of format version 3 (docs/format.md "/chains", "/segments", "/sequences"): required from version 3,
#: checked like the others
CONTEXT_TABLES = {
    "chains": [("structure_idx", "<i8"), ("model_num", "<i4"), ("label_asym_id", "S8"), ("auth_asym_id", "S8"),
               ("entity_id", "S8"), ("type", "S56"), ("n_residues", "<i4"), ("seq_len", "<i4"),
               ("db_name", "S16"), ("db_accession", "S24"), ("db_code", "S24"), ("n_segments", "<i4")],
    "segments": [("chain_idx", "<i8"), ("db_name", "S16"), ("db_accession", "S24"), ("db_code", "S24"),
                 ("auth_begin", "<i4"), ("ins_begin", "S4"), ("auth_end", "<i4"), ("ins_end", "S4"),
                 ("seq_begin", "<i4"), ("seq_end", "<i4"), ("db_begin", "<i4"), ("db_end", "<i4")],
    "sequences": [("code", "u1")],
}
#: their CSR pointers (chains + 1 rows): (table, column) -> indexed table
CONTEXT_POINTERS = {("chains", "seq_ptr"): "sequences", ("chains", "segment_ptr"): "segments"}

#: CSR pointers (length = rows + 1 of the table they belong to): (table, column) -> indexed table.
POINTERS = {
    ("structures", "ligand_ptr"): "ligands",
    ("structures", "site_ptr"): "sites",
    ("sites", "atom_ptr"): "atoms",
    ("sites", "residue_ptr"): "residues",
    ("sites", "interaction_ptr"): "interactions",
}

#: /bonds (the ligand-chemistry issue): grouped by site through /sites/bond_ptr (N+1); atom1, atom2 are
#: offsets in the site's atom block, as in /interactions. Optional: a file that predates bonds has none.
#: Only the column names are fixed here; their integer or string dtypes are read from the file.
BOND_COLUMNS = ("site_idx", "atom1", "atom2", "order", "aromatic", "source", "flags")
BOND_POINTER = ("sites", "bond_ptr")

#: Ligand flag bits (/ligands/flags, SP_LIG_* of survey.h).
LIGAND_FLAGS = {"covalent": 1, "incomplete": 2, "altloc": 4, "not_in_ccd": 8, "zero_occupancy": 16,
                "multi_residue": 32, "metal_bound": 64, "name_not_in_ccd": 128}
#: Site flag bits (/sites/flags, SP_SITE_* of site.h).
SITE_FLAGS = {"oversize": 1, "no_heavy": 2, "symmetry": 4, "symmetry_partial": 8, "assembly": 16}
#: Atom flag bits (/atoms/flags, SP_SITE_ATOM_* of site.h).
ATOM_FLAGS = {"ligand": 1, "polymer": 2, "other_ligand": 4, "ion": 8, "water": 16, "hydrogen": 32,
              "altloc": 64, "hetatm": 128, "in_cutoff": 256, "symmetry": 512, "element_from_name": 1024,
              "repeated_name": 2048, "assembly": 4096}
#: /residues/kind values.
RESIDUE_KINDS = {"ligand": 0, "polymer": 1, "other_ligand": 2, "ion": 3, "water": 4}
#: /interactions/type values (SP_IX_* of sitechem.h).
INTERACTION_TYPES = {1: "hydrophobic", 2: "hbond", 3: "salt_bridge", 4: "pi_stack_parallel", 5: "pi_stack_t",
                     6: "pi_cation", 7: "halogen", 8: "water_bridge", 9: "metal"}
#: /interactions/type of a water bridge (INTERACTION_TYPES; sitechem.h SP_IX_WATER_BRIDGE)
WATER_BRIDGE = 8


def columns(table):
    """[(name, dtype string, trailing shape tuple)] of a table's required columns."""
    return [(c[0], c[1], tuple(c[2:])) for c in TABLES[table]]
