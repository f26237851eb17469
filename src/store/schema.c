/* Column schema of the store tables and HDF5 helpers (see store_internal.h, docs/format.md). */
#include "store_internal.h"

#include "sitepack/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FSZ(type, field) sizeof(((type *)0)->field)
#define COL(type, field, kind) {#field, offsetof(type, field), kind, FSZ(type, field), FSZ(type, field), 0, SP_LINK_NONE, 0, NULL, 0}
#define COLN(name, type, field, kind) {name, offsetof(type, field), kind, FSZ(type, field), FSZ(type, field), 0, SP_LINK_NONE, 0, NULL, 0}
#define STR(type, field) {#field, offsetof(type, field), SP_COL_STR, FSZ(type, field), FSZ(type, field), 0, SP_LINK_NONE, 0, NULL, 0}
#define STRF(type, field, fs) {#field, offsetof(type, field), SP_COL_STR, FSZ(type, field), fs, 0, SP_LINK_NONE, 0, NULL, 0}
/* a string column of the user's text (file names, the file's own text): H5T_CSET_UTF8 (issue 16 item 6) */
#define STRU(type, field) {#field, offsetof(type, field), SP_COL_STR, FSZ(type, field), FSZ(type, field), 0, SP_LINK_NONE, 0, NULL, 1}
/* an index column (sp_link) into table `to`; a count of rows of `to` with its CSR pointer dataset `ptr` */
#define LINK(type, field, kind, link, to) {#field, offsetof(type, field), kind, FSZ(type, field), FSZ(type, field), 0, link, to, NULL, 0}
#define COUNT(type, field, to, ptr) \
  {#field, offsetof(type, field), SP_COL_I32, FSZ(type, field), FSZ(type, field), 0, SP_LINK_COUNT, to, ptr, 0}

/* the ligand descriptors (issue 36; descriptors.h, docs/format.md "Ligand descriptors") of /components and /ligands */
#define DESC_COLS(T)                                                                                                  \
  COLN("mw", T, desc.mw, SP_COL_F32), COLN("formal_charge", T, desc.formal_charge, SP_COL_I32),                     \
      COLN("hbd", T, desc.hbd, SP_COL_I32), COLN("hba", T, desc.hba, SP_COL_I32),                                   \
      COLN("hbd_lipinski", T, desc.hbd_lipinski, SP_COL_I32), COLN("hba_lipinski", T, desc.hba_lipinski, SP_COL_I32), \
      COLN("rotatable_bonds", T, desc.rotatable_bonds, SP_COL_I32), COLN("tpsa", T, desc.tpsa, SP_COL_F32),          \
      COLN("logp", T, desc.logp, SP_COL_F32), COLN("mr", T, desc.mr, SP_COL_F32),                                   \
      COLN("n_rings", T, desc.n_rings, SP_COL_I32), COLN("n_aromatic_rings", T, desc.n_aromatic_rings, SP_COL_I32), \
      COLN("fsp3", T, desc.fsp3, SP_COL_F32), COLN("qed", T, desc.qed, SP_COL_F32),                                 \
      COLN("desc_flags", T, desc.flags, SP_COL_U8)

static const sp_col cols_structures[] = {
    STRU(sp_structure_row, path),
    STRF(sp_structure_row, sha256, 64),
    STR(sp_structure_row, format),
    STR(sp_structure_row, status),
    STRU(sp_structure_row, error),
    COL(sp_structure_row, gzip, SP_COL_U8),
    COL(sp_structure_row, bytes, SP_COL_I64),
    COL(sp_structure_row, text_bytes, SP_COL_I64),
    COL(sp_structure_row, n_atoms, SP_COL_I64),
    COL(sp_structure_row, n_atoms_model1, SP_COL_I64),
    COL(sp_structure_row, n_models, SP_COL_I32),
    COL(sp_structure_row, n_ligands, SP_COL_I32),
    COL(sp_structure_row, n_sites, SP_COL_I32),
    COL(sp_structure_row, n_warnings, SP_COL_I32),
    /* the warning texts (format version 4): UTF-8, messages joined by "\n" (result.h sp_warnings_fit) */
    STRU(sp_structure_row, warnings),
    STRU(sp_structure_row, entry_id),
    STRU(sp_structure_row, method),
    COL(sp_structure_row, entry_first, SP_COL_I64),
    COL(sp_structure_row, resolution, SP_COL_F32),
    /* entry quality and dates (issue 17) */
    STRU(sp_structure_row, method_file),
    COL(sp_structure_row, r_work, SP_COL_F32),
    COL(sp_structure_row, r_free, SP_COL_F32),
    STR(sp_structure_row, deposition_date),
    STR(sp_structure_row, release_date),
    COL(sp_structure_row, n_chains, SP_COL_I32),
    COL(sp_structure_row, t_read, SP_COL_F64),
    COL(sp_structure_row, t_parse, SP_COL_F64),
    COL(sp_structure_row, t_survey, SP_COL_F64),
    COL(sp_structure_row, t_site, SP_COL_F64),
};

static const sp_col cols_ligands[] = {
    LINK(sp_ligand_row, structure_idx, SP_COL_I64, SP_LINK_FILE, SP_T_STRUCTURES),
    COL(sp_ligand_row, model_num, SP_COL_I32),
    STR(sp_ligand_row, comp_id),
    STR(sp_ligand_row, label_asym_id),
    STR(sp_ligand_row, auth_asym_id),
    COL(sp_ligand_row, auth_seq_id, SP_COL_SEQ),
    COL(sp_ligand_row, label_seq_id, SP_COL_SEQ),
    STR(sp_ligand_row, ins_code),
    STR(sp_ligand_row, altloc),
    {"class", offsetof(sp_ligand_row, cls), SP_COL_STR, FSZ(sp_ligand_row, cls), FSZ(sp_ligand_row, cls), 0, SP_LINK_NONE, 0, NULL, 0},
    COL(sp_ligand_row, flags, SP_COL_U32),
    COL(sp_ligand_row, n_residues, SP_COL_I32),
    COL(sp_ligand_row, n_atoms, SP_COL_I32),
    COL(sp_ligand_row, n_heavy_atoms, SP_COL_I32),
    COL(sp_ligand_row, n_ccd_heavy_atoms, SP_COL_I32),
    STR(sp_ligand_row, molecule_key),
    STR(sp_ligand_row, key_source),
    STR(sp_ligand_row, residues),
    LINK(sp_ligand_row, site_idx, SP_COL_I64, SP_LINK_ROW_OR_NONE, SP_T_SITES),
    /* fit indicators and systems (issue 17) */
    COL(sp_ligand_row, b_mean, SP_COL_F32),
    COL(sp_ligand_row, b_max, SP_COL_F32),
    COL(sp_ligand_row, site_b_mean, SP_COL_F32),
    COL(sp_ligand_row, site_b_max, SP_COL_F32),
    COL(sp_ligand_row, occupancy_mean, SP_COL_F32),
    COL(sp_ligand_row, system_id, SP_COL_I32),
    COL(sp_ligand_row, system_size, SP_COL_I32),
    STR(sp_ligand_row, identities),
    STR(sp_ligand_row, instance_key),
    DESC_COLS(sp_ligand_row),
};

static const sp_col cols_components[] = {
    STR(sp_component_row, comp_id),
    COL(sp_component_row, in_ccd, SP_COL_U8),
    STR(sp_component_row, molecule_key),
    STR(sp_component_row, key_source),
    STR(sp_component_row, formula),
    STR(sp_component_row, name),
    STR(sp_component_row, type),
    COL(sp_component_row, n_heavy_atoms, SP_COL_I32),
    STR(sp_component_row, smiles),
    STR(sp_component_row, inchi),
    STRF(sp_component_row, inchikey, 27),
    COL(sp_component_row, descriptor_flags, SP_COL_U8),
    DESC_COLS(sp_component_row),
};

static const sp_col cols_sites[] = {
    LINK(sp_site_row, structure_idx, SP_COL_I64, SP_LINK_FILE, SP_T_STRUCTURES),
    LINK(sp_site_row, ligand_idx, SP_COL_I64, SP_LINK_ROW, SP_T_LIGANDS),
    COL(sp_site_row, n_ligand, SP_COL_I32),
    COUNT(sp_site_row, n_atoms, SP_T_ATOMS, "atom_ptr"),
    COUNT(sp_site_row, n_residues, SP_T_RESIDUES, "residue_ptr"),
    COL(sp_site_row, flags, SP_COL_U32),
    {"center", offsetof(sp_site_row, center), SP_COL_F32X3, 12, 12, 0, SP_LINK_NONE, 0, NULL, 0},
    COL(sp_site_row, cutoff, SP_COL_F32),
    /* site chemistry (docs/sites.md "Site chemistry") */
    COL(sp_site_row, ph, SP_COL_F32),
    COL(sp_site_row, sasa_free, SP_COL_F32),
    COL(sp_site_row, sasa_complex, SP_COL_F32),
    COL(sp_site_row, ligand_charge, SP_COL_I32),
    COL(sp_site_row, site_charge, SP_COL_I32),
    COUNT(sp_site_row, n_interactions, SP_T_INTERACTIONS, "interaction_ptr"),
    COL(sp_site_row, chem_flags, SP_COL_U32),
    COUNT(sp_site_row, n_bonds, SP_T_BONDS, "bond_ptr"),
    /* site quality (issue 36; result.h SP_QUAL_*) */
    COL(sp_site_row, quality, SP_COL_U32),
    COL(sp_site_row, pass_quality, SP_COL_U8),
};

static const sp_col cols_residues[] = {
    LINK(sp_residue_row, site_idx, SP_COL_I64, SP_LINK_ROW, SP_T_SITES),
    STR(sp_residue_row, label_asym_id),
    STR(sp_residue_row, auth_asym_id),
    STR(sp_residue_row, comp_id),
    COL(sp_residue_row, auth_seq_id, SP_COL_SEQ),
    COL(sp_residue_row, label_seq_id, SP_COL_SEQ),
    STR(sp_residue_row, ins_code),
    COL(sp_residue_row, kind, SP_COL_U8),
    COL(sp_residue_row, min_distance, SP_COL_F32),
    COL(sp_residue_row, contact, SP_COL_U8),
    /* symmetry mates (docs/sites.md "Symmetry mates"): written only when some site has one */
    {"symop", offsetof(sp_residue_row, symop), SP_COL_STR, FSZ(sp_residue_row, symop), FSZ(sp_residue_row, symop), 1, SP_LINK_NONE, 0, NULL, 0},
    /* its polymer chain (issue 17): a /chains row of the file's part 0, or -1 */
    LINK(sp_residue_row, chain_idx, SP_COL_I64, SP_LINK_FILE_ROW_OR_NONE, SP_T_CHAINS),
    /* assembly copies (docs/sites.md "Biological assemblies"): written only when some site has one */
    {"assembly_op", offsetof(sp_residue_row, assembly_op), SP_COL_STR, FSZ(sp_residue_row, assembly_op),
     FSZ(sp_residue_row, assembly_op), 2, SP_LINK_NONE, 0, NULL, 0},
};

static const sp_col cols_atoms[] = {
    {"position", offsetof(sp_atom_row, position), SP_COL_F32X3, 12, 12, 0, SP_LINK_NONE, 0, NULL, 0},
    COL(sp_atom_row, element, SP_COL_U8),
    COL(sp_atom_row, flags, SP_COL_U16),
    LINK(sp_atom_row, residue_idx, SP_COL_I64, SP_LINK_ROW, SP_T_RESIDUES),
    COL(sp_atom_row, occupancy, SP_COL_F32),
    COL(sp_atom_row, b_iso, SP_COL_F32),
    COL(sp_atom_row, charge, SP_COL_I8),
    {"altloc", offsetof(sp_atom_row, altloc), SP_COL_CHAR, 1, 1, 0, SP_LINK_NONE, 0, NULL, 0},
    STR(sp_atom_row, atom_name),
    /* site chemistry */
    COL(sp_atom_row, chem, SP_COL_U16),
    COL(sp_atom_row, charge_ph, SP_COL_I8),
    COL(sp_atom_row, pka, SP_COL_F32),
    COL(sp_atom_row, frac_protonated, SP_COL_F32),
    COL(sp_atom_row, sasa_free, SP_COL_F32),
    COL(sp_atom_row, sasa_complex, SP_COL_F32),
    /* the ligand's own chemistry (bonds.h) */
    COL(sp_atom_row, ccd_charge, SP_COL_I8),
    COL(sp_atom_row, ccd_atom, SP_COL_U8),
    /* format version 6: the formal charge the SDF export writes (valence.h sp_ligand_charges) */
    COL(sp_atom_row, formal_charge, SP_COL_I8),
};

static const sp_col cols_interactions[] = {
    LINK(sp_interaction_row, site_idx, SP_COL_I64, SP_LINK_ROW, SP_T_SITES),
    COL(sp_interaction_row, type, SP_COL_U8),
    COL(sp_interaction_row, flags, SP_COL_U8),
    COL(sp_interaction_row, geometry, SP_COL_U8),
    COL(sp_interaction_row, coordination, SP_COL_U8),
    COL(sp_interaction_row, lig_atom, SP_COL_I32),
    COL(sp_interaction_row, site_atom, SP_COL_I32),
    COL(sp_interaction_row, water_atom, SP_COL_I32),
    COL(sp_interaction_row, distance, SP_COL_F32),
    COL(sp_interaction_row, angle, SP_COL_F32),
    COL(sp_interaction_row, angle2, SP_COL_F32),
    COL(sp_interaction_row, offset, SP_COL_F32),
    /* the water bridge's water–site distance (format version 5; angle2 had held it before) */
    COL(sp_interaction_row, distance2, SP_COL_F32),
};

static const sp_col cols_bonds[] = {
    LINK(sp_bond_row, site_idx, SP_COL_I64, SP_LINK_ROW, SP_T_SITES),
    COL(sp_bond_row, atom1, SP_COL_I32),
    COL(sp_bond_row, atom2, SP_COL_I32),
    COL(sp_bond_row, order, SP_COL_U8),
    COL(sp_bond_row, aromatic, SP_COL_U8),
    STR(sp_bond_row, source),
    COL(sp_bond_row, flags, SP_COL_U8),
};

/* the protein context (issue 17; docs/format.md "/chains", "/segments", "/sequences"): per-file rows, written
 * with the file's structure row */
static const sp_col cols_chains[] = {
    LINK(sp_chain_row, structure_idx, SP_COL_I64, SP_LINK_FILE, SP_T_STRUCTURES),
    COL(sp_chain_row, model_num, SP_COL_I32),
    STR(sp_chain_row, label_asym_id),
    STR(sp_chain_row, auth_asym_id),
    STR(sp_chain_row, entity_id),
    STR(sp_chain_row, type),
    COL(sp_chain_row, n_residues, SP_COL_I32),
    COUNT(sp_chain_row, seq_len, SP_T_SEQUENCES, "seq_ptr"),
    STR(sp_chain_row, db_name),
    STR(sp_chain_row, db_accession),
    STR(sp_chain_row, db_code),
    COUNT(sp_chain_row, n_segments, SP_T_SEGMENTS, "segment_ptr"),
};

static const sp_col cols_segments[] = {
    LINK(sp_segment_row, chain_idx, SP_COL_I64, SP_LINK_ROW, SP_T_CHAINS),
    STR(sp_segment_row, db_name),
    STR(sp_segment_row, db_accession),
    STR(sp_segment_row, db_code),
    COL(sp_segment_row, auth_begin, SP_COL_SEQ),
    STR(sp_segment_row, ins_begin),
    COL(sp_segment_row, auth_end, SP_COL_SEQ),
    STR(sp_segment_row, ins_end),
    COL(sp_segment_row, seq_begin, SP_COL_SEQ),
    COL(sp_segment_row, seq_end, SP_COL_SEQ),
    COL(sp_segment_row, db_begin, SP_COL_SEQ),
    COL(sp_segment_row, db_end, SP_COL_SEQ),
};

static const sp_col cols_sequences[] = {
    COL(sp_sequence_row, code, SP_COL_U8),
};

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))
const sp_table sp_tables[SP_T_COUNT] = {
    {"structures", sizeof(sp_structure_row), NCOLS(cols_structures), cols_structures, 0, 2},
    {"ligands", sizeof(sp_ligand_row), NCOLS(cols_ligands), cols_ligands, 0, 2},
    {"components", sizeof(sp_component_row), NCOLS(cols_components), cols_components, 1, 2},
    {"sites", sizeof(sp_site_row), NCOLS(cols_sites), cols_sites, 0, 2},
    {"residues", sizeof(sp_residue_row), NCOLS(cols_residues), cols_residues, 0, 2},
    {"atoms", sizeof(sp_atom_row), NCOLS(cols_atoms), cols_atoms, 0, 2},
    {"interactions", sizeof(sp_interaction_row), NCOLS(cols_interactions), cols_interactions, 0, 2},
    {"bonds", sizeof(sp_bond_row), NCOLS(cols_bonds), cols_bonds, 0, 2},
    {"chains", sizeof(sp_chain_row), NCOLS(cols_chains), cols_chains, 0, 3},
    {"segments", sizeof(sp_segment_row), NCOLS(cols_segments), cols_segments, 0, 3},
    {"sequences", sizeof(sp_sequence_row), NCOLS(cols_sequences), cols_sequences, 0, 3},
};

/* The columns format version 3 added to version-2 tables (docs/format.md "File-level rules"; the assembly
 * copies' optional /residues/assembly_op came with it). */
static const char *const v3_columns[][2] = {
    {"structures", "method_file"}, {"structures", "r_work"},   {"structures", "r_free"},
    {"structures", "deposition_date"}, {"structures", "release_date"}, {"structures", "n_chains"},
    {"ligands", "b_mean"},       {"ligands", "b_max"},        {"ligands", "site_b_mean"},
    {"ligands", "site_b_max"},   {"ligands", "occupancy_mean"}, {"ligands", "system_id"},
    {"ligands", "system_size"},  {"residues", "chain_idx"},   {"residues", "assembly_op"},
};

/* The columns format version 4 added (docs/format.md "File-level rules"): the warning texts. */
static const char *const v4_columns[][2] = {
    {"structures", "warnings"},
};

/* The columns format version 5 added (docs/format.md "Versions"): one list for every column of version 5. */
static const char *const v5_columns[][2] = {
    {"interactions", "distance2"},
};

/* Columns added by format version 6 (issues 33, 36, 37; docs/format.md "Versions"): required from version 6,
 * absent from a version-5 file. */
static const char *const v6_columns[][2] = {
    {"atoms", "formal_charge"},
    {"ligands", "identities"},
    {"ligands", "instance_key"},
    /* the ligand descriptors (issue 36) */
    {"ligands", "mw"}, {"ligands", "formal_charge"}, {"ligands", "hbd"}, {"ligands", "hba"},
    {"ligands", "hbd_lipinski"}, {"ligands", "hba_lipinski"}, {"ligands", "rotatable_bonds"}, {"ligands", "tpsa"},
    {"ligands", "logp"}, {"ligands", "mr"}, {"ligands", "n_rings"}, {"ligands", "n_aromatic_rings"},
    {"ligands", "fsp3"}, {"ligands", "qed"}, {"ligands", "desc_flags"},
    {"components", "mw"}, {"components", "formal_charge"}, {"components", "hbd"}, {"components", "hba"},
    {"components", "hbd_lipinski"}, {"components", "hba_lipinski"}, {"components", "rotatable_bonds"},
    {"components", "tpsa"}, {"components", "logp"}, {"components", "mr"}, {"components", "n_rings"},
    {"components", "n_aromatic_rings"}, {"components", "fsp3"}, {"components", "qed"}, {"components", "desc_flags"},
    /* site quality (issue 36) */
    {"sites", "quality"}, {"sites", "pass_quality"},
};

int sp_col_since(int t, const sp_col *c) {
  if (t < 0 || t >= SP_T_COUNT) return SP_FORMAT_VERSION;
  if (sp_tables[t].since > 2) return sp_tables[t].since;
  for (size_t i = 0; i < NCOLS(v6_columns); i++)
    if (!strcmp(v6_columns[i][0], sp_tables[t].name) && !strcmp(v6_columns[i][1], c->name)) return 6;
  for (size_t i = 0; i < NCOLS(v5_columns); i++)
    if (!strcmp(v5_columns[i][0], sp_tables[t].name) && !strcmp(v5_columns[i][1], c->name)) return 5;
  for (size_t i = 0; i < NCOLS(v4_columns); i++)
    if (!strcmp(v4_columns[i][0], sp_tables[t].name) && !strcmp(v4_columns[i][1], c->name)) return 4;
  for (size_t i = 0; i < NCOLS(v3_columns); i++)
    if (!strcmp(v3_columns[i][0], sp_tables[t].name) && !strcmp(v3_columns[i][1], c->name)) return 3;
  return 2;
}

int sp_h5_read_format(hid_t file, const char *path, int64_t *ver, sp_err *err) {
  char fmt[32] = {0};
  *ver = 0;
  if (sp_h5_read_attr_str(file, "format", fmt, sizeof fmt) < 0 || strcmp(fmt, SP_FORMAT_NAME) != 0) {
    if (!strcmp(fmt, "sitepack-rank")) /* a shard (run --shard) or a per-rank file: merge makes the file */
      return sp_err_set(err, SP_E_FORMAT, "%s: a shard or per-rank file (root attribute format \"sitepack-rank\"), "
                        "not a merged file: sitepack merge OUT.h5 SHARD... makes one", path);
    return sp_err_set(err, SP_E_FORMAT, "%s: root attribute format is not \"%s\" (not a complete merged file)", path,
                      SP_FORMAT_NAME);
  }
  if (sp_h5_read_attr_i64(file, "format_version", ver) < 0)
    return sp_err_set(err, SP_E_FORMAT, "%s: no integer root attribute format_version (not a complete merged file)",
                      path);
  if (*ver >= 1 && *ver < SP_FORMAT_VERSION_MIN)
    return sp_err_set(err, SP_E_FORMAT, "%s: format version %lld is read by the Python package only (this sitepack "
                      "reads %d to %d; docs/format.md \"Versions\")", path, (long long)*ver, SP_FORMAT_VERSION_MIN,
                      SP_FORMAT_VERSION);
  if (*ver < SP_FORMAT_VERSION_MIN || *ver > SP_FORMAT_VERSION)
    return sp_err_set(err, SP_E_FORMAT, "%s: unknown format version %lld (this sitepack reads %d to %d; version 1 "
                      "is read by the Python package only)", path, (long long)*ver, SP_FORMAT_VERSION_MIN,
                      SP_FORMAT_VERSION);
  return 0;
}

hid_t sp_h5_str_type(size_t size) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0) return t;
  if (H5Tset_size(t, size ? size : 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0 ||
      H5Tset_cset(t, H5T_CSET_ASCII) < 0) {
    H5Tclose(t);
    return -1;
  }
  return t;
}

hid_t sp_h5_col_str_type(const sp_col *c, size_t size) {
  hid_t t = sp_h5_str_type(size);
  if (t >= 0 && c->utf8 && H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    H5Tclose(t);
    return -1;
  }
  return t;
}

hid_t sp_h5_str_type_of(hid_t ftype, size_t size) {
  hid_t t = sp_h5_str_type(size);
  H5T_cset_t cs = ftype >= 0 ? H5Tget_cset(ftype) : H5T_CSET_ERROR;
  if (t >= 0 && cs == H5T_CSET_UTF8 && H5Tset_cset(t, cs) < 0) {
    H5Tclose(t);
    return -1;
  }
  return t;
}

size_t sp_col_elsize(const sp_col *c) {
  switch (c->kind) {
    case SP_COL_I8: case SP_COL_U8: case SP_COL_CHAR: return 1;
    case SP_COL_U16: return 2;
    case SP_COL_I32: case SP_COL_U32: case SP_COL_F32: case SP_COL_SEQ: return 4;
    case SP_COL_I64: case SP_COL_F64: return 8;
    case SP_COL_F32X3: return 12;
    case SP_COL_STR: return c->fsize;
    default: return 0;
  }
}

static hid_t scalar_type(const sp_col *c, int file) {
  switch (c->kind) {
    case SP_COL_I8: return H5Tcopy(file ? H5T_STD_I8LE : H5T_NATIVE_INT8);
    case SP_COL_U8: return H5Tcopy(file ? H5T_STD_U8LE : H5T_NATIVE_UINT8);
    case SP_COL_U16: return H5Tcopy(file ? H5T_STD_U16LE : H5T_NATIVE_UINT16);
    case SP_COL_I32: case SP_COL_SEQ: return H5Tcopy(file ? H5T_STD_I32LE : H5T_NATIVE_INT32);
    case SP_COL_U32: return H5Tcopy(file ? H5T_STD_U32LE : H5T_NATIVE_UINT32);
    case SP_COL_I64: return H5Tcopy(file ? H5T_STD_I64LE : H5T_NATIVE_INT64);
    case SP_COL_F32: case SP_COL_F32X3: return H5Tcopy(file ? H5T_IEEE_F32LE : H5T_NATIVE_FLOAT);
    case SP_COL_F64: return H5Tcopy(file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
    case SP_COL_STR: return sp_h5_col_str_type(c, c->fsize);
    case SP_COL_CHAR: return sp_h5_str_type(1);
    default: return -1;
  }
}

/* For F32X3 the element type is the scalar float: the datasets are 2-D (N,3). */
hid_t sp_h5_col_memtype(const sp_col *c) { return scalar_type(c, 0); }
hid_t sp_h5_col_filetype(const sp_col *c) { return scalar_type(c, 1); }

hid_t sp_h5_row_type(int table) {
  if (table < 0 || table >= SP_T_COUNT) return -1;
  const sp_table *t = &sp_tables[table];
  hid_t ct = H5Tcreate(H5T_COMPOUND, t->row_size);
  if (ct < 0) return -1;
  for (size_t i = 0; i < t->n_cols; i++) {
    const sp_col *c = &t->cols[i];
    hid_t mt;
    if (c->kind == SP_COL_F32X3) {
      hsize_t three = 3;
      mt = H5Tarray_create2(H5T_NATIVE_FLOAT, 1, &three);
    } else if (c->kind == SP_COL_STR) {
      mt = sp_h5_col_str_type(c, c->msize);  /* the per-rank file keeps the whole C field */
    } else {
      mt = sp_h5_col_memtype(c);
    }
    if (mt < 0 || H5Tinsert(ct, c->name, c->off, mt) < 0) {
      if (mt >= 0) H5Tclose(mt);
      H5Tclose(ct);
      return -1;
    }
    H5Tclose(mt);
  }
  return ct;
}

hid_t sp_h5_task_type(void) {
  static const char *names[SP_T_COUNT] = {"structures", "ligands", "components", "sites",    "residues",
                                          "atoms",      "interactions", "bonds",   "chains", "segments",
                                          "sequences"};
  hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(sp_task_rec));
  if (ct < 0) return -1;
  int bad = 0;
  bad |= H5Tinsert(ct, "file_idx", offsetof(sp_task_rec, file_idx), H5T_NATIVE_INT64) < 0;
  bad |= H5Tinsert(ct, "part", offsetof(sp_task_rec, part), H5T_NATIVE_INT32) < 0;
  bad |= H5Tinsert(ct, "n_parts", offsetof(sp_task_rec, n_parts), H5T_NATIVE_INT32) < 0;
  for (int i = 0; i < SP_T_COUNT; i++) {
    char nm[48];
    snprintf(nm, sizeof nm, "n_%s", names[i]);
    bad |= H5Tinsert(ct, nm, offsetof(sp_task_rec, n) + (size_t)i * sizeof(int64_t), H5T_NATIVE_INT64) < 0;
    snprintf(nm, sizeof nm, "start_%s", names[i]);
    bad |= H5Tinsert(ct, nm, offsetof(sp_task_rec, start) + (size_t)i * sizeof(int64_t), H5T_NATIVE_INT64) < 0;
  }
  if (bad) {
    H5Tclose(ct);
    return -1;
  }
  return ct;
}

void sp_col_gather(const sp_col *c, const void *rows, size_t row_size, size_t n, void *colbuf) {
  size_t es = sp_col_elsize(c);
  size_t cp = c->msize < es ? c->msize : es;
  const char *src = (const char *)rows + c->off;
  char *dst = colbuf;
  for (size_t i = 0; i < n; i++, src += row_size, dst += es) {
    memcpy(dst, src, cp);
    if (cp < es) memset(dst + cp, 0, es - cp);
  }
}

void sp_col_scatter(const sp_col *c, void *rows, size_t row_size, size_t n, const void *colbuf) {
  size_t es = sp_col_elsize(c);
  size_t cp = c->msize < es ? c->msize : es;
  const char *src = colbuf;
  char *dst = (char *)rows + c->off;
  for (size_t i = 0; i < n; i++, src += es, dst += row_size) {
    memcpy(dst, src, cp);
    if (cp < c->msize) memset(dst + cp, 0, c->msize - cp);
    /* strings read from the file may fill their field: keep a terminating NUL in memory */
    if (c->kind == SP_COL_STR && c->msize == cp) dst[c->msize - 1] = '\0';
  }
}

int sp_h5_input_stat(const char *path, struct stat *st, sp_err *err) {
  if (stat(path, st) != 0)
    return sp_err_set(err, errno == ENOENT ? SP_E_NOT_FOUND : SP_E_IO, "cannot open %s: %s", path, strerror(errno));
  if (S_ISREG(st->st_mode)) return 0;
  const char *kind = S_ISDIR(st->st_mode)    ? "a directory"
                     : S_ISFIFO(st->st_mode) ? "a FIFO"
                     : S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a device"
                     : S_ISSOCK(st->st_mode) ? "a socket"
                                             : "not a plain file";
  return sp_err_set(err, SP_E_FORMAT, "%s " SP_H5_NOT_REGULAR " (%s): not a sitepack file", path, kind);
}

hid_t sp_h5_fapl(int aligned) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return -1;
  if (H5Pset_file_locking(fapl, 1, 1) < 0 || (aligned && H5Pset_alignment(fapl, 65536, 4096) < 0)) {
    H5Pclose(fapl);
    return -1;
  }
  return fapl;
}

void sp_h5_quiet_begin(sp_h5_quiet *q) {
  q->func = NULL;
  q->data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void sp_h5_quiet_end(const sp_h5_quiet *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

/* the deepest description; room for a driver's text naming a path of 4096 bytes (condense_driver_text) */
typedef struct walk_ctx { char desc[8192]; } walk_ctx;

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *data) {
  walk_ctx *w = data;
  (void)n;
  if (e && e->desc && e->desc[0]) {
    if (snprintf(w->desc, sizeof w->desc, "%s", e->desc) >= (int)sizeof w->desc) /* a cut says so */
      memcpy(w->desc + sizeof w->desc - 4, "...", 4);
    return 1; /* stop at the first (deepest, walking upward) entry */
  }
  return 0;
}

/* HDF5's file drivers describe a failed system call as "file write failed: time = ..., filename = '...',
   file descriptor = N, errno = E, error message = 'TEXT', buf = ..., total write size = ..." (H5FDsec2.c,
   HDF5 1.10): @p desc [cap] becomes "file write failed: TEXT (errno E)", the system's words up front (the
   caller names the file; the time, descriptor and buffer address say nothing to a user). Another text
   is kept as it is. */
static void condense_driver_text(char *desc, size_t cap) {
  const char *colon = strchr(desc, ':'), *no = strstr(desc, "errno = "), *m = strstr(desc, "error message = '");
  const char *end = m ? strchr(m + 17, '\'') : NULL;
  if (!colon || !no || !end) return;
  char out[SP_ERR_MSG_LEN];
  if (snprintf(out, sizeof out, "%.*s: %.*s (errno %d)", (int)(colon - desc), desc, (int)(end - m - 17), m + 17,
               atoi(no + 8)) >= (int)sizeof out)
    memcpy(out + sizeof out - 4, "...", 4);
  snprintf(desc, cap, "%s", out);
}

int sp_h5_fail(sp_err *err, const char *what, const char *path) {
  walk_ctx w;
  w.desc[0] = '\0';
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &w);
  H5Eclear2(H5E_DEFAULT);
  condense_driver_text(w.desc, sizeof w.desc);
  if (path) /* sp_err_set ends a message cut at SP_ERR_MSG_LEN with "..." */
    return sp_err_set(err, SP_E_HDF5, "%s (%s)%s%s", what, path, w.desc[0] ? ": " : "", w.desc);
  return sp_err_set(err, SP_E_HDF5, "%s%s%s", what, w.desc[0] ? ": " : "", w.desc);
}

int sp_h5_attr_str(hid_t obj, const char *name, const char *value) {
  if (!value) value = "";
  size_t n = strlen(value);
  hid_t t = sp_h5_str_type(n ? n : 1);
  if (t >= 0 && H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    H5Tclose(t);
    t = -1;
  }
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = (t >= 0 && sp >= 0) ? H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int rc = -1;
  if (a >= 0) {
    if (n) {
      rc = H5Awrite(a, t, value) < 0 ? -1 : 0;
    } else {
      char z = '\0';
      rc = H5Awrite(a, t, &z) < 0 ? -1 : 0;
    }
    H5Aclose(a);
  }
  if (sp >= 0) H5Sclose(sp);
  if (t >= 0) H5Tclose(t);
  return rc;
}

int sp_h5_attr_vstr(hid_t obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  int ok = t >= 0 && H5Tset_size(t, H5T_VARIABLE) >= 0 && H5Tset_cset(t, H5T_CSET_UTF8) >= 0;
  hid_t sp = ok ? H5Screate(H5S_SCALAR) : -1;
  hid_t a = sp >= 0 ? H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
  const char *v = value ? value : "";
  int rc = a >= 0 && H5Awrite(a, t, &v) >= 0 ? 0 : -1;
  if (a >= 0) H5Aclose(a);
  if (sp >= 0) H5Sclose(sp);
  if (t >= 0) H5Tclose(t);
  return rc;
}

static int attr_num(hid_t obj, const char *name, hid_t ftype, hid_t mtype, const void *v) {
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = sp >= 0 ? H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int rc = -1;
  if (a >= 0) {
    rc = H5Awrite(a, mtype, v) < 0 ? -1 : 0;
    H5Aclose(a);
  }
  if (sp >= 0) H5Sclose(sp);
  return rc;
}

int sp_h5_attr_i64(hid_t obj, const char *name, int64_t value) {
  return attr_num(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

int sp_h5_attr_f64(hid_t obj, const char *name, double value) {
  return attr_num(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

int sp_h5_read_attr_str(hid_t obj, const char *name, char *buf, size_t cap) {
  if (!buf || cap == 0) return -1;
  buf[0] = '\0';
  if (H5Aexists(obj, name) <= 0) return -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return -1;
  int rc = -1;
  hid_t ft = H5Aget_type(a);
  hid_t sp = H5Aget_space(a);
  if (ft >= 0 && sp >= 0 && H5Tget_class(ft) == H5T_STRING && H5Sget_simple_extent_npoints(sp) == 1) {
    if (H5Tis_variable_str(ft) > 0) {
      hid_t mt = H5Tcopy(H5T_C_S1);
      char *s = NULL;
      if (mt >= 0 && H5Tset_size(mt, H5T_VARIABLE) >= 0 && H5Tset_cset(mt, H5Tget_cset(ft)) >= 0 &&
          H5Aread(a, mt, &s) >= 0) {
        snprintf(buf, cap, "%s", s ? s : "");
        H5free_memory(s);
        rc = 0;
      }
      if (mt >= 0) H5Tclose(mt);
    } else {
      size_t n = H5Tget_size(ft);
      char *tmp = malloc(n + 1);
      hid_t mt = sp_h5_str_type(n);
      if (mt >= 0 && H5Tset_cset(mt, H5Tget_cset(ft)) < 0) {
        H5Tclose(mt);
        mt = -1;
      }
      if (tmp && mt >= 0 && H5Aread(a, mt, tmp) >= 0) {
        tmp[n] = '\0';
        snprintf(buf, cap, "%s", tmp);
        rc = 0;
      }
      if (mt >= 0) H5Tclose(mt);
      free(tmp);
    }
  }
  if (sp >= 0) H5Sclose(sp);
  if (ft >= 0) H5Tclose(ft);
  H5Aclose(a);
  return rc;
}

/* One number of class @p cls read as @p mt into @p value: a scalar or one-element attribute only (an array
   attribute would be read whole into the caller's one value: a stack overflow, found by a damaged-file hunt). */
static int read_attr_one(hid_t obj, const char *name, H5T_class_t cls, hid_t mt, void *value) {
  if (H5Aexists(obj, name) <= 0) return -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return -1;
  hid_t ft = H5Aget_type(a), sp = H5Aget_space(a);
  int rc = -1;
  if (ft >= 0 && sp >= 0 && H5Tget_class(ft) == cls && H5Sget_simple_extent_npoints(sp) == 1 &&
      H5Aread(a, mt, value) >= 0)
    rc = 0;
  if (sp >= 0) H5Sclose(sp);
  if (ft >= 0) H5Tclose(ft);
  H5Aclose(a);
  return rc;
}

int sp_h5_read_attr_i64(hid_t obj, const char *name, int64_t *value) {
  return read_attr_one(obj, name, H5T_INTEGER, H5T_NATIVE_INT64, value);
}

int sp_h5_read_attr_f64(hid_t obj, const char *name, double *value) {
  return read_attr_one(obj, name, H5T_FLOAT, H5T_NATIVE_DOUBLE, value);
}

/* ---- datasets of the final (merged) layout, shared by sp_merge and the read benchmark ---- */

hid_t sp_h5_create_final(hid_t loc, const char *name, hid_t ftype, int64_t n, int three) {
  hsize_t dims[2] = {(hsize_t)n, 3};
  hid_t sp = H5Screate_simple(three ? 2 : 1, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t d = -1;
  if (sp >= 0 && dcpl >= 0 && H5Pset_layout(dcpl, H5D_CONTIGUOUS) >= 0 &&
      H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
      H5Pset_obj_track_times(dcpl, 0) >= 0)
    d = H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (sp >= 0) H5Sclose(sp);
  return d;
}

int sp_h5_write_slab(hid_t d, hid_t mtype, int64_t start, size_t n, int three, const void *buf) {
  if (n == 0) return 0;
  hsize_t st[2] = {(hsize_t)start, 0}, cnt[2] = {n, 3};
  int rank = three ? 2 : 1;
  hid_t fs = H5Dget_space(d);
  hid_t ms = H5Screate_simple(rank, cnt, NULL);
  int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL) >= 0 &&
           H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, buf) >= 0;
  /* keep the HDF5 error stack for the caller's sp_h5_fail: H5Sclose would reset it */
  hid_t saved = ok ? -1 : H5Eget_current_stack();
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  if (saved >= 0) H5Eset_current_stack(saved);
  return ok ? 0 : -1;
}
