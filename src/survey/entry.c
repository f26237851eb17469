/* The protein context of an entry: polymer chains, sequences, reference segments, method (entry.h). */
#include "sitepack/entry.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"

const char *sp_poly_type_name(int poly_type) {
  switch (poly_type) {
    case SP_POLY_PEPTIDE_L: return "polypeptide(L)";
    case SP_POLY_PEPTIDE_D: return "polypeptide(D)";
    case SP_POLY_DNA: return "polydeoxyribonucleotide";
    case SP_POLY_RNA: return "polyribonucleotide";
    case SP_POLY_NA_HYBRID: return "polydeoxyribonucleotide/polyribonucleotide hybrid";
    case SP_POLY_OTHER: return "other";
    default: return "";
  }
}

void sp_entry_chains_free(sp_entry_chains *c) {
  free(c->chains);
  free(c->segments);
  free(c->codes);
  free(c->chain_of);
  memset(c, 0, sizeof *c);
}

/* The entity of chain @p c: its own (mmCIF), else the SEQRES entity of its author chain id (PDB). */
static int32_t chain_entity(const sp_structure *s, const sp_chain *c) {
  if (c->entity >= 0) return c->entity;
  if (s->has_label_ids) return -1;
  for (size_t e = 0; e < s->n_entities; e++)
    if (s->entities[e].type == SP_ENT_POLYMER && !strcmp(s->entities[e].id, c->auth_asym_id)) return (int32_t)e;
  return -1;
}

/* PDB files: a polymer residue, or a residue of a peptide (a short chain the survey made a ligand). */
static int pdb_polymer_residue(const sp_survey *sv, uint32_t r) {
  return sv->res_role[r] == SP_ROLE_POLYMER ||
         (sv->res_role[r] == SP_ROLE_LIGAND && sv->res_ligand[r] >= 0 &&
          sv->ligands[sv->res_ligand[r]].cls == SP_CLASS_PEPTIDE);
}

/* Modelled polymer residues of chain @p ci: every residue of a polymer entity's chain but its glycan sugars
 * (mmCIF); in PDB files, where a chain id also holds its ligands and waters, the polymer residues and those of
 * peptides. */
static int32_t chain_residues(const sp_structure *s, const sp_survey *sv, size_t ci, int32_t ent, int *used) {
  const sp_chain *c = &s->chains[ci];
  int32_t n = 0;
  *used = 0;
  for (uint32_t r = c->first_residue; r < c->first_residue + c->n_residues; r++) {
    uint8_t role = sv->res_role[r];
    if (role != SP_ROLE_OTHER) *used = 1;
    if (c->entity >= 0 && ent >= 0) n += role != SP_ROLE_LIGAND || pdb_polymer_residue(sv, r); /* no glycan */
    else if (pdb_polymer_residue(sv, r))
      n++;
  }
  return n;
}

/* The DBREF segments of author chains @p a and @p b are the same (database, accession, both ranges). */
static int same_dbrefs(const sp_structure *s, const char *a, const char *b) {
  size_t i = 0, j = 0;
  for (;;) {
    while (i < s->n_dbrefs && strcmp(s->dbrefs[i].auth_asym_id, a)) i++;
    while (j < s->n_dbrefs && strcmp(s->dbrefs[j].auth_asym_id, b)) j++;
    if (i == s->n_dbrefs || j == s->n_dbrefs) return i == s->n_dbrefs && j == s->n_dbrefs;
    const sp_dbref *x = &s->dbrefs[i++], *y = &s->dbrefs[j++];
    if (strcmp(x->db_name, y->db_name) || strcmp(x->db_accession, y->db_accession) || x->auth_begin != y->auth_begin ||
        x->auth_end != y->auth_end || x->ins_begin != y->ins_begin || x->ins_end != y->ins_end ||
        x->db_begin != y->db_begin || x->db_end != y->db_end)
      return 0;
  }
}

/* PDB files: the first SEQRES entity with the same polymer type, residue names and DBREF segments (gemmi's
 * entities after setup_entities(): 1BNA's two strands, numbered 1-12 and 13-24, stay two). */
static const sp_entity *same_entity(const sp_structure *s, const sp_entity *e) {
  for (size_t k = 0; k < s->n_entities; k++) {
    const sp_entity *o = &s->entities[k];
    if (o == e) break;
    if (o->type != e->type || o->poly_type != e->poly_type || o->seq_len != e->seq_len) continue;
    if (!memcmp(s->seq_comp[o->seq_first], s->seq_comp[e->seq_first], (size_t)e->seq_len * SP_ID_LEN) &&
        same_dbrefs(s, o->id, e->id))
      return o;
  }
  return e;
}

/* A chain without SEQRES (PDB): its polymer type from the names of its modelled polymer residues. */
static uint8_t modelled_type(const sp_structure *s, const sp_survey *sv, const sp_chain *c) {
  char(*names)[SP_ID_LEN] = malloc((c->n_residues ? c->n_residues : 1) * sizeof *names);
  if (!names) return SP_POLY_OTHER;
  size_t n = 0;
  for (uint32_t r = c->first_residue; r < c->first_residue + c->n_residues; r++)
    if (pdb_polymer_residue(sv, r)) memcpy(names[n++], s->residues[r].comp_id, SP_ID_LEN);
  uint8_t t = sp_poly_type_guess((const char(*)[SP_ID_LEN])names, n);
  free(names);
  return t;
}

static void copy_id(char *dst, size_t cap, const char *src) {
  memset(dst, 0, cap);
  snprintf(dst, cap, "%s", src);
}

/* The segments of chain row @p row (sp_dbref of its author chain id, and of its entity when the file says). */
static int add_segments(const sp_structure *s, const sp_chain *c, const sp_entity *en, sp_entry_chains *out,
                        size_t *cap, sp_chain_row *row) {
  int primary = -1;
  for (size_t k = 0; k < s->n_dbrefs; k++) {
    const sp_dbref *d = &s->dbrefs[k];
    if (strcmp(d->auth_asym_id, c->auth_asym_id)) continue;
    if (d->entity_id[0] && en && strcmp(d->entity_id, en->id)) continue;
    if (SP_GROW(out->segments, *cap, out->n_segments + 1)) return SP_E_NOMEM;
    sp_segment_row *g = &out->segments[out->n_segments++];
    memset(g, 0, sizeof *g);
    g->chain_idx = (int64_t)out->n_chains;
    memcpy(g->db_name, d->db_name, sizeof g->db_name);
    memcpy(g->db_accession, d->db_accession, sizeof g->db_accession);
    memcpy(g->db_code, d->db_code, sizeof g->db_code);
    g->auth_begin = d->auth_begin, g->auth_end = d->auth_end;
    g->ins_begin[0] = d->ins_begin, g->ins_end[0] = d->ins_end;
    g->seq_begin = d->seq_begin, g->seq_end = d->seq_end;
    g->db_begin = d->db_begin, g->db_end = d->db_end;
    row->n_segments++;
    if (primary < 0 || (strcmp(s->dbrefs[primary].db_name, "UNP") && !strcmp(d->db_name, "UNP"))) primary = (int)k;
  }
  if (primary >= 0) {
    const sp_dbref *d = &s->dbrefs[primary];
    memcpy(row->db_name, d->db_name, sizeof row->db_name);
    memcpy(row->db_accession, d->db_accession, sizeof row->db_accession);
    memcpy(row->db_code, d->db_code, sizeof row->db_code);
    if (!strcmp(d->db_name, "UNP")) out->n_unp++;
  }
  return 0;
}

static int add_chain(const sp_structure *s, const sp_survey *sv, size_t ci, int32_t ent, int32_t n_res,
                     sp_entry_chains *out, size_t *caps) {
  const sp_chain *c = &s->chains[ci];
  const sp_entity *en = ent >= 0 ? &s->entities[ent] : NULL;
  if (SP_GROW(out->chains, caps[0], out->n_chains + 1)) return SP_E_NOMEM;
  sp_chain_row *row = &out->chains[out->n_chains];
  memset(row, 0, sizeof *row);
  row->model_num = s->models[c->model].model_num;
  memcpy(row->label_asym_id, c->label_asym_id, SP_ID_LEN);
  memcpy(row->auth_asym_id, c->auth_asym_id, SP_ID_LEN);
  if (en) copy_id(row->entity_id, sizeof row->entity_id, c->entity >= 0 ? en->id : same_entity(s, en)->id);
  else if (!s->has_label_ids) copy_id(row->entity_id, sizeof row->entity_id, c->auth_asym_id); /* as gemmi */
  copy_id(row->type, sizeof row->type,
          sp_poly_type_name(en ? en->poly_type : !s->has_label_ids ? modelled_type(s, sv, c) : SP_POLY_NONE));
  row->n_residues = n_res;
  if (en && en->can_len) {
    if (SP_GROW(out->codes, caps[2], out->n_codes + en->can_len)) return SP_E_NOMEM;
    memcpy(out->codes + out->n_codes, s->seq_can + en->can_first, en->can_len);
    out->n_codes += en->can_len;
    row->seq_len = (int32_t)en->can_len;
  }
  int rc = add_segments(s, c, en, out, &caps[1], row);
  if (rc) return rc;
  out->chain_of[ci] = (int64_t)out->n_chains++;
  return 0;
}

int sp_entry_chains_build(const sp_structure *s, const sp_survey *sv, sp_entry_chains *out, sp_err *err) {
  memset(out, 0, sizeof *out);
  size_t caps[3] = {0, 0, 0};
  out->chain_of = malloc((s->n_chains ? s->n_chains : 1) * sizeof *out->chain_of);
  int rc = out->chain_of ? 0 : SP_E_NOMEM;
  for (size_t ci = 0; !rc && ci < s->n_chains; ci++) {
    out->chain_of[ci] = -1;
    int32_t ent = chain_entity(s, &s->chains[ci]);
    if (ent >= 0 && s->entities[ent].type != SP_ENT_POLYMER) continue;
    int used;
    int32_t n_res = chain_residues(s, sv, ci, ent, &used);
    if (!used || n_res == 0) continue;
    rc = add_chain(s, sv, ci, ent, n_res, out, caps);
  }
  if (rc) {
    sp_entry_chains_free(out);
    return sp_err_set(err, SP_E_NOMEM, "out of memory (chains)");
  }
  return 0;
}

/* One part of a method, trimmed and upper-cased, in the mmCIF enumeration. */
static void method_part(const char *p, size_t n, char *out, size_t cap) {
  static const char *const k_alias[][2] = {
      {"NMR", "SOLUTION NMR"},        {"X-RAY", "X-RAY DIFFRACTION"},       {"CRYO-EM", "ELECTRON MICROSCOPY"},
      {"EM", "ELECTRON MICROSCOPY"},  {"SOLID STATE NMR", "SOLID-STATE NMR"}, {"ELECTRON DIFFRACTION", "ELECTRON CRYSTALLOGRAPHY"},
      {"FIBRE DIFFRACTION", "FIBER DIFFRACTION"},
  };
  while (n && isspace((unsigned char)*p)) p++, n--;
  while (n && isspace((unsigned char)p[n - 1])) n--;
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < cap; i++) out[k++] = (char)toupper((unsigned char)p[i]);
  out[k] = 0;
  for (size_t a = 0; a < sizeof k_alias / sizeof *k_alias; a++)
    if (!strcmp(out, k_alias[a][0])) snprintf(out, cap, "%s", k_alias[a][1]);
}

void sp_method_normalise(const char *file, char *out, size_t cap) {
  char joined[256] = "";
  size_t used = 0;
  const char *p = file;
  while (*p) {
    size_t n = strcspn(p, ",;");
    char part[96];
    method_part(p, n, part, sizeof part);
    if (part[0]) {
      int w = snprintf(joined + used, sizeof joined - used, "%s%s", used ? ", " : "", part);
      if (w > 0) used = used + (size_t)w < sizeof joined ? used + (size_t)w : sizeof joined - 1;
    }
    p += n;
    if (*p) p++;
  }
  sp_text_fit(out, cap, joined);
}

/* ---- systems (PLINDER) ---- */

static int32_t uf_find(int32_t *parent, int32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/* Bounding box of ligand @p li's heavy atoms (lo > hi when it has none). */
static void ligand_box(const sp_structure *s, const sp_survey *sv, size_t li, float lo[3], float hi[3]) {
  const sp_ligand *L = &sv->ligands[li];
  for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
  for (uint32_t a = 0; a < L->n_atoms; a++) {
    uint32_t ai = sv->atom_refs[L->atom_first + a];
    if (s->element[ai] == 1) continue;
    for (int k = 0; k < 3; k++) {
      if (s->xyz[ai][k] < lo[k]) lo[k] = s->xyz[ai][k];
      if (s->xyz[ai][k] > hi[k]) hi[k] = s->xyz[ai][k];
    }
  }
}

/* Two ligands have heavy atoms closer than SP_SYSTEM_DISTANCE. */
static int ligands_touch(const sp_structure *s, const sp_survey *sv, size_t i, size_t j) {
  const sp_ligand *A = &sv->ligands[i], *B = &sv->ligands[j];
  const float d2 = SP_SYSTEM_DISTANCE * SP_SYSTEM_DISTANCE;
  for (uint32_t a = 0; a < A->n_atoms; a++) {
    uint32_t ai = sv->atom_refs[A->atom_first + a];
    if (s->element[ai] == 1) continue;
    for (uint32_t b = 0; b < B->n_atoms; b++) {
      uint32_t bi = sv->atom_refs[B->atom_first + b];
      if (s->element[bi] == 1) continue;
      float dx = s->xyz[ai][0] - s->xyz[bi][0], dy = s->xyz[ai][1] - s->xyz[bi][1], dz = s->xyz[ai][2] - s->xyz[bi][2];
      if (dx * dx + dy * dy + dz * dz < d2) return 1;
    }
  }
  return 0;
}

int sp_ligand_systems(const sp_structure *s, const sp_survey *sv, int32_t *system_id, int32_t *system_size,
                      sp_err *err) {
  size_t n = sv->n_ligands;
  if (!n) return 0;
  int32_t *parent = malloc(n * sizeof *parent);
  float(*box)[2][3] = malloc(n * sizeof *box);
  if (!parent || !box) {
    free(parent);
    free(box);
    return sp_err_set(err, SP_E_NOMEM, "out of memory (ligand systems)");
  }
  for (size_t i = 0; i < n; i++) {
    parent[i] = (int32_t)i;
    ligand_box(s, sv, i, box[i][0], box[i][1]);
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n && sv->ligands[j].model == sv->ligands[i].model; j++) {
      int apart = 0;
      for (int k = 0; k < 3 && !apart; k++)
        apart = box[j][0][k] - box[i][1][k] >= SP_SYSTEM_DISTANCE || box[i][0][k] - box[j][1][k] >= SP_SYSTEM_DISTANCE ||
                !(box[i][0][k] <= box[i][1][k]) || !(box[j][0][k] <= box[j][1][k]);
      if (apart || uf_find(parent, (int32_t)i) == uf_find(parent, (int32_t)j) || !ligands_touch(s, sv, i, j)) continue;
      int32_t a = uf_find(parent, (int32_t)i), b = uf_find(parent, (int32_t)j);
      parent[a > b ? a : b] = a < b ? a : b; /* the root is the system's first ligand */
    }
  int32_t next = 0;
  for (size_t i = 0; i < n; i++) system_size[i] = 0;
  for (size_t i = 0; i < n; i++) {
    int32_t r = uf_find(parent, (int32_t)i);
    if ((size_t)r == i) system_id[i] = next++;
    else system_id[i] = system_id[r];
    system_size[r]++;
  }
  for (size_t i = 0; i < n; i++) system_size[i] = system_size[uf_find(parent, (int32_t)i)];
  free(parent);
  free(box);
  return 0;
}
