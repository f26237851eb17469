/* What every dataset of the merged file means, written into the file itself (issue 26): its units and, for a
 * coded column, the names of its codes (store_internal.h sp_describe_*; docs/format.md "Units and codes").
 *
 * One row per dataset of docs/format.md. The code names come from the functions that define them
 * (sp_ligand_class_name, sp_ix_type_name, sp_errclass_name, ...) or, where the codes live only in a header's
 * enum, from the lists below, each naming its header. The merge fails on a dataset without a row (a new
 * column cannot reach a file undescribed), and sitepack check refuses a version-3 file whose datasets lack
 * the attributes. */
#include "store_internal.h"

#include "sitepack/bonds.h"
#include "sitepack/elements.h"
#include "sitepack/error.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Units (docs/format.md): UTF-8 text. "1" is a pure number: a count, an index, a code, a fraction. */
#define U_ONE "1"
#define U_ANG "\xc3\x85"            /* Å */
#define U_ANG2 "\xc3\x85\xc2\xb2"   /* Å² */
#define U_E "e"                     /* elementary charge */
#define U_PH "pH"                   /* pH units */
#define U_S "s"
#define U_BYTES "bytes"
#define U_DEG "degree"

/* ---- code names that live only in a header's enum (each list names its source) ---- */

/* /residues/kind: SP_RES_KIND_* (site.h) */
static const char *const res_kind[] = {"ligand", "polymer", "other_ligand", "ion", "water"};
/* /sites/flags: SP_SITE_* bits (site.h) */
static const char *const site_flags[] = {"oversize", "no_heavy", "symmetry", "symmetry_partial", "assembly"};
/* /sites/chem_flags (docs/format.md "/sites"; sitechem.h sp_site_chem) */
static const char *const site_chem_flags[] = {"oversize", "graph_ccd", "graph_file", "graph_distance"};
/* /atoms/flags: SP_SITE_ATOM_* bits (site.h); the names of python/sitepack/_schema.py ATOM_FLAGS */
static const char *const atom_flags[] = {"ligand",   "polymer",        "other_ligand",      "ion",
                                         "water",    "hydrogen",       "altloc",            "hetatm",
                                         "in_cutoff",     "symmetry",   "element_from_name", "repeated_name",
                                         "assembly"};
/* /atoms/chem: SP_CHEM_* bits (sitechem.h) */
static const char *const atom_chem[] = {"hydrophobic", "donor",    "acceptor", "aromatic",       "titratable", "ambiguous",
                                        "positive",    "negative", "halogen_donor", "metal",      "contact"};
/* /atoms/ccd_atom bits (bonds.h sp_ligand_bonds) */
static const char *const ccd_atom_bits[] = {"matched", "aromatic", "leaving", "perceived"};
/* /interactions/flags bits (sitechem.h sp_interaction) */
static const char *const ix_flags[] = {"ligand_donor",    "ligand_acceptor", "ligand_positive", "ligand_negative",
                                       "ligand_ring",     "ligand_metal",    "ambiguous",       "no_h"};
/* /bonds/order (bonds.h sp_bond) */
static const char *const bond_order[] = {"unknown", "single", "double", "triple", "aromatic"};
/* /bonds/flags: SP_BOND_* bits (bonds.h) */
static const char *const bond_flags[] = {"inter_residue", "to_polymer", "to_metal"};
/* /components/descriptor_flags bits (survey.h sp_component_row) */
static const char *const descriptor_flags[] = {"smiles_cut", "inchi_cut", "inchikey_cut"};
/* 0/1 columns */
static const char *const no_yes[] = {"no", "yes"};
/* /structures/format (read.h sp_format_name) and /ligands/key_source (survey.h) */
static const char *const formats[] = {"mmcif", "pdb", ""};
static const char *const key_sources[] = {"ccd", "file", "distance", "none"};
/* /chains/type: _entity_poly.type (entry.h sp_poly_type_name) */
static const char *const poly_types[] = {"polypeptide(L)", "polypeptide(D)", "polydeoxyribonucleotide",
                                         "polyribonucleotide", "polydeoxyribonucleotide/polyribonucleotide hybrid",
                                         "other"};

#define LIST(a) a, (int)(sizeof(a) / sizeof((a)[0]))

/* /ligands/desc_flags, /components/desc_flags: SP_DESCF_* bits (descriptors.h) */
static const char *const desc_flags[] = {"computed", "ro5", "ro3", "drug_like", "unknown_orders"};
/* /sites/quality: SP_QUAL_* bits (result.h); the names of python/sitepack/_schema.py SITE_QUALITY */
static const char *const site_quality[] = {"resolution", "r_work", "r_free", "r_gap", "ligand_incomplete",
                                           "ligand_altlocs", "ligand_occupancy", "ligand_b", "pocket_incomplete",
                                           "pocket_gap", "crystal_contact"};

/* code names from the functions that define them */
static const char *geometry(int k) { return sp_geometry_name(k); }
static const char *element(int k) { return k == 0 ? "unknown" : sp_element_symbol((uint8_t)k); }
static const char *errclass(int k) { return sp_errclass_name(k); }
static const char *lig_class(int k) { return sp_ligand_class_name(k); }
static const char *lig_flag(int k) { return sp_ligand_flag_name(k); }
static const char *bond_source(int k) { return sp_bond_source_name(k); }

enum { D_NONE, D_CODES, D_FLAGS, D_VALUES };

typedef struct desc {
  const char *table, *column, *units;
  int kind;                        /* D_*: which attribute holds the names */
  const char *const *names;        /* the names of codes 0..n-1 (or bits 0..n-1, or the values) ... */
  int n;
  const char *(*name_fn)(int);     /* ... or this function of codes lo..n-1 */
  int lo;
  const char *note;                /* an attribute `note` when the units need a word */
  const char *missing;             /* an attribute `missing`: the value a column holds where it has none */
} desc;

#define PLAIN(t, c, u) {t, c, u, D_NONE, NULL, 0, NULL, 0, NULL, NULL}
#define MISS(t, c, u, m) {t, c, u, D_NONE, NULL, 0, NULL, 0, NULL, m}   /* with its `missing` value */
#define CODES(t, c, l) {t, c, U_ONE, D_CODES, LIST(l), NULL, 0, NULL, NULL}
#define CODESF(t, c, f, lo, n) {t, c, U_ONE, D_CODES, NULL, n, f, lo, NULL, NULL}
#define FLAGS(t, c, l) {t, c, U_ONE, D_FLAGS, LIST(l), NULL, 0, NULL, NULL}
#define FLAGSF(t, c, f, n) {t, c, U_ONE, D_FLAGS, NULL, n, f, 0, NULL, NULL}
#define VALUES(t, c, l) {t, c, NULL, D_VALUES, LIST(l), NULL, 0, NULL, NULL}
#define VALUESF(t, c, f, lo, n) {t, c, NULL, D_VALUES, NULL, n, f, lo, NULL, NULL}
#define TEXT(t, c) {t, c, NULL, D_NONE, NULL, 0, NULL, 0, NULL, NULL}
#define TEXTN(t, c, n) {t, c, NULL, D_NONE, NULL, 0, NULL, 0, n, NULL}  /* a text column with its `note` */
#define NO_SEQ "-2147483648 (INT32_MIN): absent"
/* the ligand descriptors of table t (issue 36; descriptors.h): RDKit's, -1 / NaN where not computed */
#define NOT_C_I "-1: not computed (desc_flags bit computed clear)"
#define NOT_C_F "NaN: not computed (desc_flags bit computed clear)"
#define DESC_ROWS(t)                                                                                               \
  MISS(t, "mw", "Da", NOT_C_F), MISS(t, "formal_charge", U_E, NOT_C_I), MISS(t, "hbd", U_ONE, NOT_C_I),             \
      MISS(t, "hba", U_ONE, NOT_C_I), MISS(t, "hbd_lipinski", U_ONE, NOT_C_I), MISS(t, "hba_lipinski", U_ONE, NOT_C_I), \
      MISS(t, "rotatable_bonds", U_ONE, NOT_C_I), MISS(t, "tpsa", U_ANG2, NOT_C_F), MISS(t, "logp", U_ONE, NOT_C_F),  \
      MISS(t, "mr", "cm3/mol", NOT_C_F), MISS(t, "n_rings", U_ONE, NOT_C_I),                                         \
      MISS(t, "n_aromatic_rings", U_ONE, NOT_C_I), MISS(t, "fsp3", U_ONE, NOT_C_F), MISS(t, "qed", U_ONE, NOT_C_F),  \
      FLAGS(t, "desc_flags", desc_flags)

static const desc descs[] = {
    /* /structures */
    PLAIN("structures", "file_idx", U_ONE),
    PLAIN("structures", "n_parts", U_ONE),
    TEXT("structures", "path"),
    TEXT("structures", "sha256"),
    VALUES("structures", "format", formats),
    VALUESF("structures", "status", errclass, 0, SP_ERRCLASS_COUNT),
    TEXT("structures", "error"),
    CODES("structures", "gzip", no_yes),
    PLAIN("structures", "bytes", U_BYTES),
    PLAIN("structures", "text_bytes", U_BYTES),
    PLAIN("structures", "n_atoms", U_ONE),
    PLAIN("structures", "n_atoms_model1", U_ONE),
    PLAIN("structures", "n_models", U_ONE),
    PLAIN("structures", "n_ligands", U_ONE),
    PLAIN("structures", "n_sites", U_ONE),
    PLAIN("structures", "n_warnings", U_ONE),
    TEXTN("structures", "warnings",
          "the first n_warnings warning messages, one per line (separator \"\\n\"), each escaped "
          "like error; when they do not all fit, a last line \"... N more\" counts the rest (docs/format.md)"),
    TEXT("structures", "entry_id"),
    TEXT("structures", "method"),
    MISS("structures", "entry_first", U_ONE, "-1: the file's head names no entry"),
    MISS("structures", "resolution", U_ANG, "NaN: none"),
    TEXT("structures", "method_file"),
    MISS("structures", "r_work", U_ONE, "NaN: none"),
    MISS("structures", "r_free", U_ONE, "NaN: none"),
    TEXT("structures", "deposition_date"),
    TEXT("structures", "release_date"),
    PLAIN("structures", "n_chains", U_ONE),
    PLAIN("structures", "t_read", U_S),
    PLAIN("structures", "t_parse", U_S),
    PLAIN("structures", "t_survey", U_S),
    PLAIN("structures", "t_site", U_S),
    PLAIN("structures", "ligand_ptr", U_ONE),
    PLAIN("structures", "site_ptr", U_ONE),
    /* /ligands */
    PLAIN("ligands", "structure_idx", U_ONE),
    PLAIN("ligands", "model_num", U_ONE),
    TEXT("ligands", "comp_id"),
    TEXT("ligands", "label_asym_id"),
    TEXT("ligands", "auth_asym_id"),
    MISS("ligands", "auth_seq_id", U_ONE, NO_SEQ),
    MISS("ligands", "label_seq_id", U_ONE, NO_SEQ),
    TEXT("ligands", "ins_code"),
    TEXT("ligands", "altloc"),
    VALUESF("ligands", "class", lig_class, 0, SP_CLASS_COUNT),
    FLAGSF("ligands", "flags", lig_flag, 8),
    PLAIN("ligands", "n_residues", U_ONE),
    PLAIN("ligands", "n_atoms", U_ONE),
    PLAIN("ligands", "n_heavy_atoms", U_ONE),
    MISS("ligands", "n_ccd_heavy_atoms", U_ONE, "-1: unknown (no CCD definition)"),
    TEXT("ligands", "molecule_key"),
    VALUES("ligands", "key_source", key_sources),
    TEXT("ligands", "residues"),
    MISS("ligands", "site_idx", U_ONE, "-1: no site"),
    MISS("ligands", "b_mean", U_ANG2, "NaN: no readable B"),
    MISS("ligands", "b_max", U_ANG2, "NaN: no readable B"),
    MISS("ligands", "site_b_mean", U_ANG2, "NaN: no polymer heavy atom within 4 \xc3\x85"),
    MISS("ligands", "site_b_max", U_ANG2, "NaN: no polymer heavy atom within 4 \xc3\x85"),
    PLAIN("ligands", "occupancy_mean", U_ONE),
    PLAIN("ligands", "system_id", U_ONE),
    PLAIN("ligands", "system_size", U_ONE),
    TEXTN("ligands", "identities", "microheterogeneity: COMP:ALTLOCS:OCC of each identity; empty otherwise"),
    TEXTN("ligands", "instance_key", "COMP:CHAIN:NUM[ICODE], #k when other ligands of the model share them"),
    DESC_ROWS("ligands"),
    /* /components */
    TEXT("components", "comp_id"),
    CODES("components", "in_ccd", no_yes),
    TEXT("components", "molecule_key"),
    VALUES("components", "key_source", key_sources),
    TEXT("components", "formula"),
    TEXT("components", "name"),
    TEXT("components", "type"),
    MISS("components", "n_heavy_atoms", U_ONE, "-1: unknown"),
    TEXT("components", "smiles"),
    TEXT("components", "inchi"),
    TEXT("components", "inchikey"),
    FLAGS("components", "descriptor_flags", descriptor_flags),
    DESC_ROWS("components"),
    /* /sites */
    PLAIN("sites", "structure_idx", U_ONE),
    PLAIN("sites", "ligand_idx", U_ONE),
    PLAIN("sites", "n_ligand", U_ONE),
    PLAIN("sites", "n_atoms", U_ONE),
    PLAIN("sites", "n_residues", U_ONE),
    FLAGS("sites", "flags", site_flags),
    PLAIN("sites", "center", U_ANG),
    PLAIN("sites", "cutoff", U_ANG),
    PLAIN("sites", "ph", U_PH),
    PLAIN("sites", "sasa_free", U_ANG2),
    PLAIN("sites", "sasa_complex", U_ANG2),
    PLAIN("sites", "ligand_charge", U_E),
    PLAIN("sites", "site_charge", U_E),
    PLAIN("sites", "n_interactions", U_ONE),
    FLAGS("sites", "chem_flags", site_chem_flags),
    PLAIN("sites", "n_bonds", U_ONE),
    FLAGS("sites", "quality", site_quality),
    CODES("sites", "pass_quality", no_yes),
    PLAIN("sites", "atom_ptr", U_ONE),
    PLAIN("sites", "residue_ptr", U_ONE),
    PLAIN("sites", "interaction_ptr", U_ONE),
    PLAIN("sites", "bond_ptr", U_ONE),
    /* /residues */
    PLAIN("residues", "site_idx", U_ONE),
    TEXT("residues", "label_asym_id"),
    TEXT("residues", "auth_asym_id"),
    TEXT("residues", "comp_id"),
    MISS("residues", "auth_seq_id", U_ONE, NO_SEQ),
    MISS("residues", "label_seq_id", U_ONE, NO_SEQ),
    TEXT("residues", "ins_code"),
    CODES("residues", "kind", res_kind),
    PLAIN("residues", "min_distance", U_ANG),
    CODES("residues", "contact", no_yes),
    TEXT("residues", "symop"),
    MISS("residues", "chain_idx", U_ONE, "-1: not a polymer chain (ligand, ion, water)"),
    TEXT("residues", "assembly_op"),
    /* /atoms */
    PLAIN("atoms", "position", U_ANG),
    CODESF("atoms", "element", element, 0, SP_ELEMENT_MAX + 1),
    FLAGS("atoms", "flags", atom_flags),
    PLAIN("atoms", "residue_idx", U_ONE),
    PLAIN("atoms", "occupancy", U_ONE),
    MISS("atoms", "b_iso", U_ANG2, "NaN: unreadable in the file"),
    PLAIN("atoms", "charge", U_E),
    TEXT("atoms", "altloc"),
    TEXT("atoms", "atom_name"),
    FLAGS("atoms", "chem", atom_chem),
    PLAIN("atoms", "charge_ph", U_E),
    MISS("atoms", "pka", U_PH, "NaN: not the head atom of a titratable group"),
    MISS("atoms", "frac_protonated", U_ONE, "NaN: as pka"),
    MISS("atoms", "sasa_free", U_ANG2, "NaN: not a ligand heavy atom"),
    MISS("atoms", "sasa_complex", U_ANG2, "NaN: not a ligand heavy atom"),
    PLAIN("atoms", "ccd_charge", U_E),
    PLAIN("atoms", "formal_charge", U_E),
    FLAGS("atoms", "ccd_atom", ccd_atom_bits),
    /* /interactions */
    PLAIN("interactions", "site_idx", U_ONE),
    CODESF("interactions", "type", sp_ix_type_name, 1, SP_IX_COUNT),
    FLAGS("interactions", "flags", ix_flags),
    CODESF("interactions", "geometry", geometry, 0, SP_GEOM_COUNT),
    PLAIN("interactions", "coordination", U_ONE),
    PLAIN("interactions", "lig_atom", U_ONE),
    PLAIN("interactions", "site_atom", U_ONE),
    MISS("interactions", "water_atom", U_ONE, "-1: not a water bridge"),
    PLAIN("interactions", "distance", U_ANG),
    {"interactions", "angle", U_DEG, D_NONE, NULL, 0, NULL, 0,
     "metal rows: RMS deviation from the ideal geometry's angles, degree", "NaN: not defined for the type"},
    MISS("interactions", "angle2", U_DEG, "NaN: not defined for the type"),
    MISS("interactions", "offset", U_ANG, "NaN: not a pi interaction"),
    MISS("interactions", "distance2", U_ANG, "NaN: not a water bridge"),
    /* /bonds */
    PLAIN("bonds", "site_idx", U_ONE),
    PLAIN("bonds", "atom1", U_ONE),
    PLAIN("bonds", "atom2", U_ONE),
    CODES("bonds", "order", bond_order),
    CODES("bonds", "aromatic", no_yes),
    VALUESF("bonds", "source", bond_source, 0, SP_BOND_SRC_COUNT),
    FLAGS("bonds", "flags", bond_flags),
    /* /chains */
    PLAIN("chains", "structure_idx", U_ONE),
    PLAIN("chains", "model_num", U_ONE),
    TEXT("chains", "label_asym_id"),
    TEXT("chains", "auth_asym_id"),
    TEXT("chains", "entity_id"),
    VALUES("chains", "type", poly_types),
    PLAIN("chains", "n_residues", U_ONE),
    PLAIN("chains", "seq_len", U_ONE),
    TEXT("chains", "db_name"),
    TEXT("chains", "db_accession"),
    TEXT("chains", "db_code"),
    PLAIN("chains", "n_segments", U_ONE),
    PLAIN("chains", "seq_ptr", U_ONE),
    PLAIN("chains", "segment_ptr", U_ONE),
    /* /segments */
    PLAIN("segments", "chain_idx", U_ONE),
    TEXT("segments", "db_name"),
    TEXT("segments", "db_accession"),
    TEXT("segments", "db_code"),
    MISS("segments", "auth_begin", U_ONE, NO_SEQ),
    TEXT("segments", "ins_begin"),
    MISS("segments", "auth_end", U_ONE, NO_SEQ),
    TEXT("segments", "ins_end"),
    MISS("segments", "seq_begin", U_ONE, NO_SEQ),
    MISS("segments", "seq_end", U_ONE, NO_SEQ),
    PLAIN("segments", "db_begin", U_ONE),
    PLAIN("segments", "db_end", U_ONE),
    /* /sequences */
    {"sequences", "code", U_ONE, D_NONE, NULL, 0, NULL, 0, "ASCII code of a one-letter residue code", NULL},
};

static const desc *find(const char *table, const char *column) {
  for (size_t i = 0; i < sizeof descs / sizeof descs[0]; i++)
    if (!strcmp(descs[i].table, table) && !strcmp(descs[i].column, column)) return &descs[i];
  return NULL;
}

static const char *name_of(const desc *d, int k) {
  const char *s = d->names ? d->names[k] : d->name_fn(d->lo + k);
  return s ? s : "";
}

static const char *attr_name(int kind) {
  return kind == D_CODES ? "codes" : kind == D_FLAGS ? "flag_bits" : kind == D_VALUES ? "values" : NULL;
}

/* The names of @p d as JSON: {"code": "name", ...} (codes: the code; flag bits: the bit number) or, for
 * values, ["name", ...]. Names are sitepack's ASCII identifiers (no quote or backslash). Caller frees. */
static char *names_json(const desc *d) {
  int n = d->names ? d->n : d->n - d->lo;
  size_t cap = 16;
  for (int k = 0; k < n; k++) cap += strlen(name_of(d, k)) + 16;
  char *s = malloc(cap);
  if (!s) return NULL;
  size_t len = 0;
  s[len++] = d->kind == D_VALUES ? '[' : '{';
  for (int k = 0; k < n; k++) {
    const char *nm = name_of(d, k);
    if (d->kind == D_VALUES)
      len += (size_t)snprintf(s + len, cap - len, "%s\"%s\"", k ? ", " : "", nm);
    else
      len += (size_t)snprintf(s + len, cap - len, "%s\"%d\": \"%s\"", k ? ", " : "", d->lo + k, nm);
  }
  snprintf(s + len, cap - len, "%c", d->kind == D_VALUES ? ']' : '}');
  return s;
}

int sp_describe_dataset(hid_t dset, const char *table, const char *column, sp_err *err) {
  const desc *d = find(table, column);
  if (!d)
    return sp_err_set(err, SP_E_INTERNAL, "/%s/%s has no description (src/store/describe.c: every dataset of the "
                      "merged file carries its units and codes)", table, column);
  int bad = d->units && sp_h5_attr_vstr(dset, "units", d->units) < 0;
  if (!bad && d->note) bad = sp_h5_attr_vstr(dset, "note", d->note) < 0;
  if (!bad && d->missing) bad = sp_h5_attr_vstr(dset, "missing", d->missing) < 0;
  const char *text = sp_describe_text(table, column); /* issue 39: what the value is (describe_text.c) */
  if (!bad && text) bad = sp_h5_attr_vstr(dset, "description", text) < 0;
  if (!bad && d->kind != D_NONE) {
    char *js = names_json(d);
    bad = !js || sp_h5_attr_vstr(dset, attr_name(d->kind), js) < 0;
    free(js);
  }
  if (bad) {
    char what[96];
    snprintf(what, sizeof what, "cannot write the attributes of /%s/%s", table, column);
    return sp_h5_fail(err, what, NULL);
  }
  return 0;
}

int sp_describe_root(hid_t file, const char *tool_version, const char *created, const char *job_json, sp_err *err) {
  if (sp_h5_attr_vstr(file, "sitepack_version", tool_version) < 0 || sp_h5_attr_vstr(file, "created", created) < 0 ||
      sp_h5_attr_vstr(file, "job_json", job_json) < 0)
    return sp_h5_fail(err, "cannot write the root attributes sitepack_version, created, job_json", NULL);
  return 0;
}

/* Is attribute @p name of @p obj a string? (exists, class H5T_STRING) */
static int has_str_attr(hid_t obj, const char *name) {
  if (H5Aexists(obj, name) <= 0) return 0;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  hid_t t = a >= 0 ? H5Aget_type(a) : -1;
  int ok = t >= 0 && H5Tget_class(t) == H5T_STRING;
  if (t >= 0) H5Tclose(t);
  if (a >= 0) H5Aclose(a);
  return ok;
}

int sp_check_describe(hid_t file, const char *path, sp_err *err) {
  static const char *const root[] = {"sitepack_version", "created", "job_json"};
  for (size_t i = 0; i < sizeof root / sizeof root[0]; i++)
    if (!has_str_attr(file, root[i]))
      return sp_err_set(err, SP_E_FORMAT, "%s: no string root attribute %s (written before sitepack described its "
                        "datasets in the file: rerun or merge again with this build)", path, root[i]);
  for (size_t i = 0; i < sizeof descs / sizeof descs[0]; i++) {
    const desc *d = &descs[i];
    char name[96];
    snprintf(name, sizeof name, "/%s/%s", d->table, d->column);
    if (H5Lexists(file, d->table, H5P_DEFAULT) <= 0 || H5Lexists(file, name, H5P_DEFAULT) <= 0) continue;
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0) continue; /* the layout check names a dataset that cannot be opened */
    const char *absent = d->units && !has_str_attr(ds, "units")                        ? "units"
                         : d->note && !has_str_attr(ds, "note")                         ? "note"
                         : d->kind != D_NONE && !has_str_attr(ds, attr_name(d->kind)) ? attr_name(d->kind)
                         : d->missing && !has_str_attr(ds, "missing") ? "missing"
                                                                                          : NULL;
    H5Dclose(ds);
    if (absent)
      return sp_err_set(err, SP_E_FORMAT, "%s: %s has no string attribute %s (docs/format.md \"Units and codes\")",
                        path, name, absent);
  }
  return 0;
}
