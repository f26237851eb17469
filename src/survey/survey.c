/* Ligand survey: see include/sitepack/survey.h; rules and sources in docs/ligands.md. */
#include "sitepack/survey.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"
#include "sitepack/elements.h"
#include "sitepack/io.h"
#include "survey/lists.h"
#include "survey/survey_internal.h"

/* Largest chain that is still a `peptide` ligand, and the smallest chain that counts as
 * a receptor ("main chain") for that rule (docs/ligands.md). */
#define PEPTIDE_MAX_RES 20
/* Peptide (C-N) / phosphodiester (O3'-P) bond between neighbouring residues, Å. */
#define LINK_MAX_DIST 2.0f

const char *sp_ligand_class_name(int cls) {
  static const char *const names[SP_CLASS_COUNT] = {"small_molecule", "ion",     "artifact", "glycan",   "cofactor",
                                                    "peptide",        "unknown", "lipid",    "detergent"};
  if (cls < 0 || cls >= SP_CLASS_COUNT) return "unknown";
  return names[cls];
}

void sp_survey_free(sp_survey *sv) {
  if (!sv) return;
  free(sv->ligands);
  free(sv->res_refs);
  free(sv->atom_refs);
  free(sv->res_role);
  free(sv->res_altloc);
  free(sv->res_ligand);
  free(sv->comps);
  free(sv->split_links);
  memset(sv, 0, sizeof *sv);
}

/* ---------------------------------------------------------------- helpers */

static bool ci_contains(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (const char *p = hay; *p; p++) {
    size_t i = 0;
    while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i])) i++;
    if (i == n) return true;
  }
  return false;
}

/* survey_internal.h */
comp_info *comp_get(comp_table *c, const char *id) {
  for (size_t i = 0; i < c->n_comps; i++)
    if (!strcmp(c->comps[i].id, id)) return &c->comps[i];
  if (SP_GROW(c->comps, c->cap_comps, c->n_comps + 1)) return NULL;
  comp_info *ci = &c->comps[c->n_comps++];
  memset(ci, 0, sizeof *ci);
  snprintf(ci->id, sizeof ci->id, "%s", id);
  ci->n_heavy_nonleaving = -1;
  ci->first_res = -1;
  ci->file_heavy = -1;
  if (c->ccd) ci->def = sp_ccd_get(c->ccd, id, NULL);
  ci->in_ccd = ci->def != NULL;
  ci->usable = sp_survey_definition_usable(ci->def, id);
  if (ci->usable) {
    int32_t n = 0;
    for (size_t i = 0; i < ci->def->n_atoms; i++)
      if (ci->def->atoms[i].element != 1 && !ci->def->atoms[i].leaving) n++;
    ci->n_heavy_nonleaving = n;
  }
  if (ci->def && ci_contains(ci->def->type, "saccharide")) ci->saccharide = true;
  const sp_structure *s = c->s;
  for (size_t i = 0; i < s->n_file_comps; i++)
    if (!strcmp(s->file_comps[i].id, id) && ci_contains(s->file_comps[i].type, "saccharide")) ci->saccharide = true;
  for (size_t i = 0; i < s->n_file_bonds; i++)
    if (!strcmp(s->file_bonds[i].comp_id, id)) {
      ci->has_file_bonds = true;
      break;
    }
  return ci;
}

bool sp_survey_definition_usable(const sp_component *def, const char *comp_id) {
  return def && def->n_atoms > 0 && strcmp(def->release_status, "OBS") != 0 && !sp_list_is_reserved(comp_id);
}

const char *sp_ligand_flag_name(int bit) {
  static const char *const names[] = {"covalent",       "incomplete",    "altloc",      "not_in_ccd",
                                      "zero_occupancy", "multi_residue", "metal_bound", "name_not_in_ccd"};
  return bit >= 0 && bit < (int)(sizeof names / sizeof names[0]) ? names[bit] : NULL;
}

/* Atom of residue r named name, among the chosen conformer if possible; -1 if absent. */
int64_t res_atom(const sp_structure *s, const char *res_altloc, uint32_t r, const char *name) {
  const sp_residue *R = &s->residues[r];
  int64_t any = -1;
  for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
    if (strcmp(s->atom_name[k], name)) continue;
    if (s->altloc[k] == '\0' || s->altloc[k] == res_altloc[r]) return k;
    if (any < 0) any = k;
  }
  return any;
}

/* Polymer link (peptide C-N or phosphodiester O3'-P) from residue r to residue r2. */
static bool polymer_linked(const sp_structure *s, const char *alt, uint32_t r, uint32_t r2, int64_t *aa,
                           int64_t *ab) {
  static const char *const from[] = {"C", "O3'", "O3*"};
  static const char *const to[] = {"N", "P", "P"};
  for (int i = 0; i < 3; i++) {
    int64_t a = res_atom(s, alt, r, from[i]);
    if (a < 0) continue;
    int64_t b = res_atom(s, alt, r2, to[i]);
    if (b < 0) continue;
    if (atom_dist2(s, (size_t)a, (size_t)b) <= LINK_MAX_DIST * LINK_MAX_DIST) {
      if (aa) *aa = a;
      if (ab) *ab = b;
      return true;
    }
  }
  return false;
}

/* Resolve a connection end to an atom of model m: -1 if not found. */
static int64_t resolve_end(const sp_structure *s, uint32_t m, const sp_conn_end *e) {
  if (m == 0 && e->atom >= 0 && (size_t)e->atom < s->n_atoms) {
    uint32_t r = s->atom_residue[e->atom];
    if (s->chains[s->residues[r].chain].model == 0) return e->atom;
  }
  const sp_model *M = &s->models[m];
  bool by_label = e->label_asym_id[0] && s->has_label_ids;
  for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains; ci++) {
    const sp_chain *C = &s->chains[ci];
    if (by_label ? strcmp(C->label_asym_id, e->label_asym_id) : strcmp(C->auth_asym_id, e->auth_asym_id)) continue;
    for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues; ri++) {
      const sp_residue *R = &s->residues[ri];
      if (strcmp(R->comp_id, e->comp_id)) continue;
      if (by_label && e->label_seq_id != SP_SEQ_NONE && R->label_seq_id != SP_SEQ_NONE) {
        if (R->label_seq_id != e->label_seq_id) continue;
      } else if (R->auth_seq_id != e->auth_seq_id || R->ins_code != e->ins_code) {
        continue;
      }
      int64_t first = -1;
      for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
        if (strcmp(s->atom_name[k], e->atom_name)) continue;
        if (!e->altloc || s->altloc[k] == e->altloc) return k;
        if (first < 0) first = k;
      }
      if (first >= 0) return first;
    }
  }
  return -1;
}

/* union-find over residue indices */
static uint32_t uf_find(uint32_t *p, uint32_t x) {
  while (p[x] != x) {
    p[x] = p[p[x]];
    x = p[x];
  }
  return x;
}
static void uf_union(uint32_t *p, uint32_t a, uint32_t b) {
  a = uf_find(p, a);
  b = uf_find(p, b);
  if (a == b) return;
  if (a < b) p[b] = a;
  else p[a] = b;
}

/* ---------------------------------------------------------------- survey */

typedef struct growbuf {
  void *p;
  size_t n, cap, el;
} growbuf;

static void *gb_push(growbuf *b) {
  if (sp_grow(&b->p, &b->cap, b->n + 1, b->el)) return NULL;
  return (char *)b->p + b->el * b->n++;
}

/* Choose the altloc of each residue: highest mean occupancy, ties to the first in file order. */
static void choose_altlocs(const sp_structure *s, char *res_alt) {
  for (size_t r = 0; r < s->n_residues; r++) {
    const sp_residue *R = &s->residues[r];
    char ids[64];
    double sum[64];
    int cnt[64];
    int n = 0;
    for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
      char a = s->altloc[k];
      if (!a) continue;
      int j = 0;
      while (j < n && ids[j] != a) j++;
      if (j == n) {
        if (n == 64) continue;
        ids[n] = a;
        sum[n] = 0;
        cnt[n] = 0;
        n++;
      }
      sum[j] += s->occupancy[k];
      cnt[j]++;
    }
    res_alt[r] = '\0';
    double best = -1;
    for (int j = 0; j < n; j++) {
      double mean = sum[j] / cnt[j];
      if (mean > best + 1e-6) {
        best = mean;
        res_alt[r] = ids[j];
      }
    }
  }
}

/* Does an entity (by index) hold comp_id in its sequence? true when it has no sequence. */
static bool entity_has_comp(const sp_structure *s, int32_t ent, const char *id) {
  if (ent < 0 || (size_t)ent >= s->n_entities) return true;
  const sp_entity *e = &s->entities[ent];
  if (e->seq_len == 0) return true;
  for (uint32_t i = e->seq_first; i < e->seq_first + e->seq_len && i < s->n_seq; i++)
    if (!strcmp(s->seq_comp[i], id)) return true;
  return false;
}

/* A polymer entity (SEQRES) whose strand list names this auth chain id. A blank chain id (PDB
 * files with column 22 blank, SEQRES column 12 blank as well) is the chain of the SEQRES entity
 * whose id and strand list are both blank: only the PDB reader makes such an entity (mmCIF
 * entity ids are never blank), so a blank mmCIF auth_asym_id matches nothing. */
static bool chain_in_seqres(const sp_structure *s, const char *auth) {
  size_t n = strlen(auth);
  for (size_t e = 0; e < s->n_entities; e++) {
    if (s->entities[e].type != SP_ENT_POLYMER) continue;
    if (!n) {
      if (!s->entities[e].id[0] && !s->entities[e].strand_ids[0]) return true;
      continue;
    }
    const char *p = s->entities[e].strand_ids;
    while (*p) {
      while (*p == ',' || *p == ' ') p++;
      const char *q = p;
      while (*q && *q != ',' && *q != ' ') q++;
      if ((size_t)(q - p) == n && !strncmp(p, auth, n)) return true;
      p = q;
    }
  }
  return false;
}

/* ---------------------------------------------------------------- the steps */

/* One survey being built: the output and every temporary array, freed in build_free(). */
typedef struct build {
  const sp_structure *s;
  sp_survey *out;
  comp_table c;
  size_t nr;                     /* residues */
  const char *alt;               /* out->res_altloc */
  bool any_seqres;               /* some polymer entity (mmCIF entity_poly or PDB SEQRES) */
  /* per residue [nr] */
  uint32_t *uf;                  /* union-find: residues of one instance share a root */
  uint8_t *cand;                 /* ligand candidate of step 1 (not a peptide residue) */
  uint8_t *flag_cov, *flag_metal;
  int64_t *attach;               /* polymer atom of a covalent link, -1 none */
  uint32_t *mh_primary;          /* microheterogeneity: the chosen residue of each run's residues, else UINT32_MAX */
  uint32_t *peptide_chain;       /* [n_chains] 1: a peptide ligand chain (step 2) */
  growbuf links;                 /* link: covalent links inside instances (steps 4) */
  /* step 5 */
  link *inst_links;              /* links of the current instance */
  uint32_t *inst_atoms;          /* chosen atoms of the current instance */
  uint32_t *bucket_ptr, *bucket; /* residues of each instance root: bucket[bucket_ptr[r] ..) */
  growbuf ligs, rrefs, arefs;    /* sp_ligand, uint32_t, uint32_t: become out's arrays */
} build;

static void build_free(build *b) {
  free(b->uf);
  free(b->cand);
  free(b->flag_cov);
  free(b->flag_metal);
  free(b->attach);
  free(b->mh_primary);
  free(b->peptide_chain);
  free(b->links.p);
  free(b->inst_links);
  free(b->inst_atoms);
  free(b->bucket_ptr);
  free(b->bucket);
  free(b->ligs.p);
  free(b->rrefs.p);
  free(b->arefs.p);
  free(b->c.comps);
  memset(b, 0, sizeof *b);
}

/* 0. per-residue arrays, chosen altlocs. 0 or SP_E_NOMEM. */
static int step_init(build *b, const sp_structure *s, sp_ccd *ccd, sp_survey *out, sp_err *err) {
  size_t nr = s->n_residues, n1 = nr ? nr : 1;
  *b = (build){.s = s, .out = out, .c = {s, ccd, NULL, 0, 0, err}, .nr = nr};
  b->links.el = sizeof(link);
  b->ligs.el = sizeof(sp_ligand);
  b->rrefs.el = b->arefs.el = sizeof(uint32_t);
  out->res_role = malloc(n1);
  out->res_altloc = malloc(n1);
  out->res_ligand = malloc(n1 * sizeof *out->res_ligand);
  b->uf = malloc(n1 * sizeof *b->uf);
  b->cand = calloc(n1, 1);
  b->flag_cov = calloc(n1, 1);
  b->flag_metal = calloc(n1, 1);
  b->attach = malloc(n1 * sizeof *b->attach);
  b->mh_primary = malloc(n1 * sizeof *b->mh_primary);
  b->peptide_chain = malloc((s->n_chains ? s->n_chains : 1) * sizeof *b->peptide_chain);
  if (!out->res_role || !out->res_altloc || !out->res_ligand || !b->uf || !b->cand || !b->flag_cov ||
      !b->flag_metal || !b->attach || !b->mh_primary || !b->peptide_chain)
    return SP_E_NOMEM;
  memset(out->res_role, SP_ROLE_OTHER, nr);
  for (size_t r = 0; r < nr; r++) {
    out->res_ligand[r] = -1;
    b->uf[r] = (uint32_t)r;
    b->attach[r] = -1;
    b->mh_primary[r] = UINT32_MAX;
  }
  choose_altlocs(s, out->res_altloc);
  b->alt = out->res_altloc;
  for (size_t e = 0; e < s->n_entities; e++)
    if (s->entities[e].type == SP_ENT_POLYMER) b->any_seqres = true;
  return 0;
}

/* mmCIF: residue R of chain C is a sugar of a `polymer` entity without a polypeptide or nucleic-acid type
 * (old-style files: no _entity_poly.type, or 'polysaccharide(D)', 'other'): a glycan ligand, as the
 * entry's PDB-format file has it (HETATM joined by LINK; docs/ligands.md "Roles"). */
static bool polymer_sugar(build *b, const sp_chain *C, const sp_residue *R) {
  const sp_structure *s = b->s;
  if (R->entity_type != SP_ENT_POLYMER || !s->has_label_ids) return false;
  uint8_t pt = C->entity >= 0 && (size_t)C->entity < s->n_entities ? s->entities[C->entity].poly_type : SP_POLY_NONE;
  if (pt != SP_POLY_NONE && pt != SP_POLY_OTHER) return false;
  if (sp_list_is_sugar(R->comp_id)) return true;
  const comp_info *ci = comp_get(&b->c, R->comp_id);
  return ci && ci->saccharide;
}

/* Role of residue ri of chain C: water, polymer or ligand candidate (docs/ligands.md). */
static uint8_t residue_role(build *b, const sp_chain *C, uint32_t ri) {
  const sp_structure *s = b->s;
  const sp_residue *R = &s->residues[ri];
  if (R->entity_type == SP_ENT_WATER || sp_list_is_water(R->comp_id)) return SP_ROLE_WATER;
  if (R->entity_type == SP_ENT_NONPOLYMER || R->entity_type == SP_ENT_BRANCHED || R->entity_type == SP_ENT_MACROLIDE)
    return SP_ROLE_LIGAND;
  bool linked = (ri > C->first_residue && polymer_linked(s, b->alt, ri - 1, ri, NULL, NULL)) ||
                (ri + 1 < C->first_residue + C->n_residues && polymer_linked(s, b->alt, ri, ri + 1, NULL, NULL));
  if (R->entity_type == SP_ENT_POLYMER && s->has_label_ids) /* mmCIF: the entity type decides */
    return polymer_sugar(b, C, R) ? SP_ROLE_LIGAND : SP_ROLE_POLYMER;
  if (R->entity_type == SP_ENT_POLYMER) /* entity from SEQRES: polymer if in its sequence and ATOM or linked */
    return (entity_has_comp(s, C->entity, R->comp_id) && (!R->all_hetatm || linked)) ? SP_ROLE_POLYMER
                                                                                   : SP_ROLE_LIGAND;
  if (linked) return SP_ROLE_POLYMER;
  if (!R->all_hetatm && chain_in_seqres(s, C->auth_asym_id) && entity_has_comp(s, -1, R->comp_id))
    return SP_ROLE_POLYMER;
  if (!R->all_hetatm && !b->any_seqres && sp_list_is_standard_residue(R->comp_id) && C->n_residues > 1)
    return SP_ROLE_POLYMER;
  return SP_ROLE_LIGAND;
}

/* 1. roles of model M's residues: water / polymer / ligand candidate */
static void step_roles(build *b, const sp_model *M) {
  const sp_structure *s = b->s;
  for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
    const sp_chain *C = &s->chains[ci];
    b->peptide_chain[ci] = 0;
    for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues && ri < b->nr; ri++) {
      uint8_t role = residue_role(b, C, ri);
      b->out->res_role[ri] = role;
      b->cand[ri] = role == SP_ROLE_LIGAND;
    }
  }
}

/* Chain C is a peptide ligand: polymer residues, 1..PEPTIDE_MAX_RES of them, a polypeptide
 * entity (or, without one, mostly amino acids). */
static bool is_peptide_chain(const build *b, const sp_chain *C) {
  const sp_structure *s = b->s;
  size_t np = 0, naa = 0;
  for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues && ri < b->nr; ri++)
    if (b->out->res_role[ri] == SP_ROLE_POLYMER) {
      np++;
      const char *id = s->residues[ri].comp_id;
      naa += sp_list_is_amino_acid(id) || (res_atom(s, b->alt, ri, "CA") >= 0 && res_atom(s, b->alt, ri, "N") >= 0);
    }
  uint8_t pt = C->entity >= 0 && (size_t)C->entity < s->n_entities ? s->entities[C->entity].poly_type : SP_POLY_NONE;
  bool is_pep = pt == SP_POLY_PEPTIDE_L || pt == SP_POLY_PEPTIDE_D || (pt == SP_POLY_NONE && naa * 2 > np);
  return np > 0 && np <= PEPTIDE_MAX_RES && is_pep;
}

/* 2. peptides: short polypeptide chains beside a receptor chain of > PEPTIDE_MAX_RES residues
 * become one ligand instance each */
static void step_peptides(build *b, const sp_model *M) {
  const sp_structure *s = b->s;
  size_t longest = 0;
  for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
    const sp_chain *C = &s->chains[ci];
    size_t np = 0;
    for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues && ri < b->nr; ri++)
      np += b->out->res_role[ri] == SP_ROLE_POLYMER;
    if (np > longest) longest = np;
  }
  if (longest <= PEPTIDE_MAX_RES) return;
  for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
    const sp_chain *C = &s->chains[ci];
    if (!is_peptide_chain(b, C)) continue;
    b->peptide_chain[ci] = 1;
    uint32_t first = UINT32_MAX;
    for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues && ri < b->nr; ri++)
      if (b->out->res_role[ri] == SP_ROLE_POLYMER) {
        b->out->res_role[ri] = SP_ROLE_LIGAND;
        if (first == UINT32_MAX) first = ri;
        else uf_union(b->uf, first, ri);
      }
  }
}

/* 3. branched entities, and the sugars of an old-style polymer entity (polymer_sugar): one instance per chain */
static void step_branched(build *b, const sp_model *M) {
  const sp_structure *s = b->s;
  for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
    const sp_chain *C = &s->chains[ci];
    uint32_t first = UINT32_MAX;
    for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues && ri < b->nr; ri++)
      if (b->cand[ri] && (s->residues[ri].entity_type == SP_ENT_BRANCHED ||
                          (s->residues[ri].entity_type == SP_ENT_POLYMER && s->has_label_ids))) {
        if (first == UINT32_MAX) first = ri;
        else uf_union(b->uf, first, ri);
      }
  }
}

static int push_link(build *b, int64_t a, int64_t at) {
  link *lp = gb_push(&b->links);
  if (!lp) return SP_E_NOMEM;
  lp->a = a;
  lp->b = at;
  return 0;
}

/* 4. connections (struct_conn / LINK) of model m: covalent links join candidates into one
 * instance, or flag a candidate covalent to the polymer; metalc flags metal-bound. 0 or SP_E_NOMEM. */
bool sp_survey_is_ion_or_buffer(const char *comp_id, const sp_component *def) {
  return sp_list_is_polyatomic_ion(comp_id) || sp_list_is_artifact(comp_id) || sp_list_is_detergent(comp_id) ||
         (def && def->n_atoms && sp_component_heavy_atoms(def) == 1);
}

/* A covale link between ligand candidates ra and rb that are both ions or buffers: not a join (issue 36); the
 * pair is recorded for the caller's warning. true when so (false also when out of memory: then joined). */
static bool link_between_ions(build *b, uint32_t ra, uint32_t rb) {
  const sp_structure *s = b->s;
  comp_info *ca = comp_get(&b->c, s->residues[ra].comp_id), *cb = comp_get(&b->c, s->residues[rb].comp_id);
  if (!ca || !cb || !sp_survey_is_ion_or_buffer(ca->id, ca->def) || !sp_survey_is_ion_or_buffer(cb->id, cb->def))
    return false;
  sp_survey *o = b->out;
  uint32_t(*p)[2] = realloc(o->split_links, (o->n_split_links + 1) * sizeof *p);
  if (!p) return false;
  o->split_links = p;
  p[o->n_split_links][0] = ra;
  p[o->n_split_links][1] = rb;
  o->n_split_links++;
  return true;
}

static int step_connections(build *b, size_t m) {
  const sp_structure *s = b->s;
  const uint8_t *role = b->out->res_role;
  for (size_t k = 0; k < s->n_conns; k++) {
    const sp_conn *cn = &s->conns[k];
    if (cn->type != SP_CONN_COVALE && cn->type != SP_CONN_METALC) continue;
    int64_t a = resolve_end(s, (uint32_t)m, &cn->a), at = resolve_end(s, (uint32_t)m, &cn->b);
    if (a < 0 || at < 0 || (size_t)a >= s->n_atoms || (size_t)at >= s->n_atoms) continue;
    uint32_t ra = s->atom_residue[a], rb = s->atom_residue[at];
    if (ra == rb) continue;
    bool pa = b->peptide_chain[s->residues[ra].chain] != 0, pb = b->peptide_chain[s->residues[rb].chain] != 0;
    if (cn->type == SP_CONN_METALC) {
      if (role[ra] == SP_ROLE_LIGAND) b->flag_metal[ra] = 1;
      if (role[rb] == SP_ROLE_LIGAND) b->flag_metal[rb] = 1;
      continue;
    }
    if (b->cand[ra] && b->cand[rb] && link_between_ions(b, ra, rb)) {
      continue; /* two ions or buffers stay two ligands (issue 36) */
    } else if (b->cand[ra] && b->cand[rb]) {
      uf_union(b->uf, ra, rb);
      if (push_link(b, a, at)) return SP_E_NOMEM;
    } else if (b->cand[ra] && (role[rb] == SP_ROLE_POLYMER || pb)) {
      b->flag_cov[ra] = 1;
      if (b->attach[ra] < 0) b->attach[ra] = at;
    } else if (b->cand[rb] && (role[ra] == SP_ROLE_POLYMER || pa)) {
      b->flag_cov[rb] = 1;
      if (b->attach[rb] < 0) b->attach[rb] = a;
    }
  }
  return 0;
}

/* 4a. PDB CONECT bonds of model 1 (sp_structure.conects) between residues, as a covalent link where no LINK
 * record gives one: two ligand candidates become one instance (the halves of a ligand split over two residue
 * numbers that only CONECT joins), a candidate bonded to a polymer atom is covalent; a bond to a metal is
 * coordination (metal-bound, as metalc), never a join; two residues with more than two CONECT bonds between
 * them are not joined (alternates placed as two residues). 0 or SP_E_NOMEM. */
static bool conect_between(const sp_structure *s, size_t k, uint32_t *ra, uint32_t *rb) {
  int64_t a = s->conects[k].a, at = s->conects[k].b;
  if (a < 0 || at < 0 || (size_t)a >= s->n_atoms || (size_t)at >= s->n_atoms) return false;
  *ra = s->atom_residue[a];
  *rb = s->atom_residue[at];
  return *ra != *rb;
}

/* CONECT bonds between residues ra and rb, counted from conects[k] on (the list is sorted by atom, so
 * one residue pair's bonds need not be adjacent: a scan) */
static size_t conects_between(const sp_structure *s, uint32_t ra, uint32_t rb) {
  size_t n = 0;
  uint32_t x, y;
  for (size_t k = 0; k < s->n_conects; k++)
    if (conect_between(s, k, &x, &y) && ((x == ra && y == rb) || (x == rb && y == ra))) n++;
  return n;
}

static int step_conects(build *b) {
  const sp_structure *s = b->s;
  const uint8_t *role = b->out->res_role;
  for (size_t k = 0; k < s->n_conects; k++) {
    int64_t a = s->conects[k].a, at = s->conects[k].b;
    uint32_t ra, rb;
    if (!conect_between(s, k, &ra, &rb) || ra >= b->nr || rb >= b->nr) continue;
    if (sp_element_is_metal(s->element[a]) || sp_element_is_metal(s->element[at])) {
      if (role[ra] == SP_ROLE_LIGAND) b->flag_metal[ra] = 1;
      if (role[rb] == SP_ROLE_LIGAND) b->flag_metal[rb] = 1;
      continue;
    }
    if (b->cand[ra] && b->cand[rb]) {
      if (uf_find(b->uf, ra) == uf_find(b->uf, rb)) continue; /* already one instance (LINK, branched entity) */
      /* more than two bonds between the same two residues: overlapping alternates whose CONECT records a
       * program wrote by distance (1GZM's LDA B 1343 / B 1348, occupancy 0.5 each, 12 bonds), not a link */
      if (conects_between(s, ra, rb) > 2) continue;
      uf_union(b->uf, ra, rb);
      if (push_link(b, a, at)) return SP_E_NOMEM;
    } else if (b->cand[ra] && role[rb] == SP_ROLE_POLYMER) {
      b->flag_cov[ra] = 1;
      if (b->attach[ra] < 0) b->attach[ra] = at;
    } else if (b->cand[rb] && role[ra] == SP_ROLE_POLYMER) {
      b->flag_cov[rb] = 1;
      if (b->attach[rb] < 0) b->attach[rb] = a;
    }
  }
  return 0;
}

/* 4b. peptide bonds inside peptide chains of model M are links of their instance graph. 0 or SP_E_NOMEM. */
static int step_peptide_links(build *b, const sp_model *M) {
  const sp_structure *s = b->s;
  const uint8_t *role = b->out->res_role;
  for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
    if (!b->peptide_chain[ci]) continue;
    const sp_chain *C = &s->chains[ci];
    for (uint32_t ri = C->first_residue; ri + 1 < C->first_residue + C->n_residues && ri + 1 < b->nr; ri++) {
      int64_t a, at;
      if (!b->cand[ri] && role[ri] == SP_ROLE_LIGAND && !b->cand[ri + 1] && role[ri + 1] == SP_ROLE_LIGAND &&
          polymer_linked(s, b->alt, ri, ri + 1, &a, &at) && push_link(b, a, at))
        return SP_E_NOMEM;
    }
  }
  return 0;
}

/* 5a. residues of each instance, grouped by root (= the instance's smallest residue index),
 * in file order: bucket[bucket_ptr[r] .. bucket_ptr[r + 1]). 0 or SP_E_NOMEM. */
static int step_group(build *b) {
  size_t nr = b->nr;
  const uint8_t *role = b->out->res_role;
  b->inst_links = malloc((b->links.n ? b->links.n : 1) * sizeof *b->inst_links);
  b->inst_atoms = malloc((b->s->n_atoms ? b->s->n_atoms : 1) * sizeof *b->inst_atoms);
  b->bucket_ptr = calloc(nr + 1, sizeof *b->bucket_ptr);
  b->bucket = malloc((nr ? nr : 1) * sizeof *b->bucket);
  uint32_t *fill = malloc((nr ? nr : 1) * sizeof *fill);
  if (!b->inst_links || !b->inst_atoms || !b->bucket_ptr || !b->bucket || !fill) {
    free(fill);
    return SP_E_NOMEM;
  }
  for (size_t q = 0; q < nr; q++)
    if (role[q] == SP_ROLE_LIGAND) b->bucket_ptr[uf_find(b->uf, (uint32_t)q) + 1]++;
  for (size_t q = 0; q < nr; q++) b->bucket_ptr[q + 1] += b->bucket_ptr[q];
  memcpy(fill, b->bucket_ptr, nr * sizeof *fill);
  for (size_t q = 0; q < nr; q++)
    if (role[q] == SP_ROLE_LIGAND) b->bucket[fill[uf_find(b->uf, (uint32_t)q)]++] = (uint32_t)q;
  free(fill);
  return 0;
}

/* What the residues of one instance say about its class (step 5c). */
typedef struct inst_facts {
  bool all_usable, any_not_in_ccd, any_unknown, all_sugar, any_cofactor;
  size_t n_atoms;                /* chosen atoms, in b->inst_atoms */
} inst_facts;

/* 5b. residues and chosen atoms of instance L (residues order[0..n_res)): refs, flags, counts.
 * 0 or SP_E_NOMEM. */
static int instance_atoms(build *b, sp_ligand *L, size_t lig_idx, const uint32_t *order, size_t n_res,
                          inst_facts *f) {
  const sp_structure *s = b->s;
  *f = (inst_facts){.all_usable = true, .all_sugar = true};
  int32_t ccd_heavy = 0;
  for (size_t i = 0; i < n_res; i++) {
    uint32_t q = order[i];
    uint32_t *rp = gb_push(&b->rrefs);
    if (!rp) return SP_E_NOMEM;
    *rp = q;
    b->out->res_ligand[q] = (int32_t)lig_idx;
    const sp_residue *R = &s->residues[q];
    comp_info *ci = comp_get(&b->c, R->comp_id);
    if (!ci) return SP_E_NOMEM;
    if (ci->first_res < 0) ci->first_res = q;
    if (!ci->in_ccd) f->any_not_in_ccd = true;
    if (!ci->usable) f->all_usable = false;
    if (sp_list_is_reserved(R->comp_id) || (ci->in_ccd && !ci->usable)) f->any_unknown = true;
    if (!(ci->saccharide || sp_list_is_sugar(R->comp_id))) f->all_sugar = false;
    if (sp_list_is_cofactor(R->comp_id)) f->any_cofactor = true;
    if (ci->usable && ccd_heavy >= 0) ccd_heavy += ci->n_heavy_nonleaving;
    else ccd_heavy = -1;
    if (b->flag_cov[q]) {
      L->flags |= SP_LIG_COVALENT;
      if (L->attach_atom < 0) L->attach_atom = b->attach[q];
    }
    if (b->flag_metal[q]) L->flags |= SP_LIG_METAL_BOUND;
    for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
      if (s->altloc[k]) L->flags |= SP_LIG_ALTLOC;
      if (s->altloc[k] && s->altloc[k] != b->alt[q]) continue;
      if (s->altloc[k] && !L->altloc) L->altloc = s->altloc[k];
      uint32_t *ap = gb_push(&b->arefs);
      if (!ap) return SP_E_NOMEM;
      *ap = k;
      b->inst_atoms[f->n_atoms++] = k;
      L->n_atoms++;
      if (s->element[k] != 1) L->n_heavy++;
      if (!(s->occupancy[k] > 0.0f)) L->flags |= SP_LIG_ZERO_OCC;
    }
  }
  if (n_res > 1) L->flags |= SP_LIG_MULTI_RESIDUE;
  if (f->any_not_in_ccd) L->flags |= SP_LIG_NOT_IN_CCD;
  L->n_ccd_heavy = ccd_heavy;
  if (ccd_heavy >= 0 && (int32_t)L->n_heavy < ccd_heavy) L->flags |= SP_LIG_INCOMPLETE;
  return 0;
}

/* 5c. class of instance L (order of the rules: docs/ligands.md); c0 is its first residue's comp. A lone residue
 * of the detergent or lipid list takes that class before the saccharide rule (BOG, a glucoside, is a detergent;
 * DGD, a galactolipid, a lipid), covalent or not (a palmitoyl on a cysteine is a lipid, flagged covalent). */
static uint8_t instance_class(const sp_ligand *L, const sp_residue *R0, const comp_info *c0,
                              size_t n_res, bool is_peptide, const inst_facts *f) {
  if (is_peptide) return SP_CLASS_PEPTIDE;
  if (f->any_unknown) return SP_CLASS_UNKNOWN;
  if (n_res == 1 && sp_list_is_detergent(R0->comp_id)) return SP_CLASS_DETERGENT;
  if (n_res == 1 && sp_list_is_lipid(R0->comp_id)) return SP_CLASS_LIPID;
  if (R0->entity_type == SP_ENT_BRANCHED || f->all_sugar) return SP_CLASS_GLYCAN;
  if (n_res == 1 && ((c0->usable && c0->def && sp_component_heavy_atoms(c0->def) == 1) ||
                     (!c0->usable && L->n_heavy == 1) || sp_list_is_polyatomic_ion(R0->comp_id)))
    return SP_CLASS_ION;
  if (f->any_cofactor) return SP_CLASS_COFACTOR;
  if (n_res == 1 && sp_list_is_artifact(R0->comp_id)) return SP_CLASS_ARTIFACT;
  return SP_CLASS_SMALL_MOLECULE;
}

/* Links of instance L (root r) into b->inst_links; their count. */
static size_t instance_links(build *b, const sp_ligand *L, uint32_t r) {
  const sp_structure *s = b->s;
  const link *links = b->links.p;
  size_t nl = 0;
  for (size_t k = 0; k < b->links.n; k++) {
    uint32_t ra = s->atom_residue[links[k].a], rb = s->atom_residue[links[k].b];
    if (b->out->res_role[ra] != SP_ROLE_OTHER && uf_find(b->uf, ra) == r && uf_find(b->uf, rb) == r &&
        s->chains[s->residues[ra].chain].model == L->model)
      b->inst_links[nl++] = links[k];
  }
  return nl;
}

/* 5d. molecule key of instance L (root r): from the CCD, the file's bonds, or its observed atoms
 * (docs/ligands.md "Molecule key"). A key that cannot be made leaves "" / "none". 0 or SP_E_NOMEM. */
static int instance_key(build *b, sp_ligand *L, uint32_t r, const uint32_t *order, size_t n_res, comp_info *c0,
                        const inst_facts *f) {
  size_t nl = instance_links(b, L, r);
  sp_err kerr = {0}, *err = b->c.err;
  b->c.err = &kerr;
  int krc = 0;
  if (n_res == 1 && c0->usable) {
    krc = sp_molkey_component(c0->def, false, L->molecule_key, &kerr);
    strcpy(L->key_source, "ccd");
  } else if (n_res > 1 && f->all_usable) {
    krc = key_from_definitions(&b->c, b->alt, order, n_res, b->inst_links, nl, L->molecule_key);
    strcpy(L->key_source, "ccd");
  } else if (n_res == 1 && c0->has_file_bonds) {
    int32_t def_heavy = -1;
    krc = key_from_file_bonds(&b->c, c0->id, r, b->alt, L->molecule_key, &def_heavy);
    strcpy(L->key_source, "file");
    /* the file's own definition gives the heavy-atom count of a lone, unlinked residue
     * (leaving atoms are not marked in _chem_comp_bond, so not for linked ones) */
    if (krc == 0 && def_heavy > 0) c0->file_heavy = def_heavy;
    if (krc == 0 && !(L->flags & SP_LIG_COVALENT) && def_heavy > 0) {
      L->n_ccd_heavy = def_heavy;
      if ((int32_t)L->n_heavy < def_heavy) L->flags |= SP_LIG_INCOMPLETE;
    }
  } else if (f->n_atoms > 0) {
    bool used_distance = false;
    krc = key_from_observed(&b->c, b->inst_atoms, f->n_atoms, order, n_res, b->inst_links, nl, L->molecule_key,
                            &used_distance);
    strcpy(L->key_source, used_distance ? "distance" : "file");
  } else {
    strcpy(L->key_source, "none");
  }
  b->c.err = err;
  if (krc == SP_E_NOMEM) return SP_E_NOMEM;
  if (krc) {
    L->molecule_key[0] = '\0';
    strcpy(L->key_source, "none");
  }
  if (n_res == 1 && !c0->key_done && !c0->usable) {
    /* the component row of a comp without usable definition takes its first instance's key */
    memcpy(c0->key, L->molecule_key, SP_KEY_LEN);
    snprintf(c0->key_source, sizeof c0->key_source, "%s", L->key_source);
    c0->key_done = true;
  }
  return 0;
}

/* 5. the instance whose first residue (smallest index) is r. 0 or SP_E_NOMEM. */
static int step_instance(build *b, uint32_t r) {
  const sp_structure *s = b->s;
  size_t n_res = b->bucket_ptr[r + 1] - b->bucket_ptr[r];
  const uint32_t *order = b->bucket + b->bucket_ptr[r];
  sp_ligand *L = gb_push(&b->ligs);
  if (!L) return SP_E_NOMEM;
  memset(L, 0, sizeof *L);
  size_t lig_idx = b->ligs.n - 1;
  const sp_residue *R0 = &s->residues[r];
  L->model = s->chains[R0->chain].model;
  L->res_first = (uint32_t)b->rrefs.n;
  L->n_res = (uint32_t)n_res;
  L->atom_first = (uint32_t)b->arefs.n;
  L->attach_atom = -1;
  bool is_peptide = b->peptide_chain[R0->chain] && !b->cand[r];
  inst_facts f;
  if (instance_atoms(b, L, lig_idx, order, n_res, &f)) return SP_E_NOMEM;
  comp_info *c0 = comp_get(&b->c, R0->comp_id);
  if (!c0) return SP_E_NOMEM;
  L->cls = instance_class(L, R0, c0, n_res, is_peptide, &f);
  survey_identities(s, b->mh_primary, r, L->identities, sizeof L->identities);
  for (size_t q = 0; q < b->nr && L->identities[0]; q++) /* the other identities point at this ligand */
    if (b->mh_primary[q] == r) b->out->res_ligand[q] = (int32_t)lig_idx;
  if (L->cls == SP_CLASS_ION)
    for (size_t i = 0; i < n_res; i++) b->out->res_role[order[i]] = SP_ROLE_ION;
  return instance_key(b, L, r, order, n_res, c0, &f);
}

/* 6. the component row of ci (formula, name, type, key). 0 or SP_E_NOMEM. */
static int component_row(build *b, comp_info *ci, sp_component_row *row) {
  const sp_structure *s = b->s;
  snprintf(row->comp_id, sizeof row->comp_id, "%s", ci->id);
  row->in_ccd = ci->in_ccd;
  row->n_heavy_atoms = -1;
  sp_desc_clear(&row->desc);
  double t0 = sp_now();
  if (ci->usable && sp_sv_component_desc(ci->def, &row->desc)) return SP_E_NOMEM;
  b->out->t_desc += sp_now() - t0;
  if (ci->def) {
    sp_text_fit(row->formula, sizeof row->formula, ci->def->formula); /* cut: ends with "..." (issue 16) */
    sp_text_fit(row->name, sizeof row->name, ci->def->name);
    sp_text_fit(row->type, sizeof row->type, ci->def->type);
    if (ci->def->n_atoms) row->n_heavy_atoms = (int32_t)sp_component_heavy_atoms(ci->def);
    memcpy(row->smiles, ci->def->smiles, sizeof row->smiles);
    memcpy(row->inchi, ci->def->inchi, sizeof row->inchi);
    memcpy(row->inchikey, ci->def->inchikey, sizeof row->inchikey);
    row->descriptor_flags = ci->def->desc_cut;
  } else {
    for (size_t k = 0; k < s->n_file_comps; k++)
      if (!strcmp(s->file_comps[k].id, ci->id)) sp_text_fit(row->type, sizeof row->type, s->file_comps[k].type);
  }
  if (ci->usable) {
    sp_err kerr = {0};
    if (sp_molkey_component(ci->def, false, row->molecule_key, &kerr) == 0) strcpy(row->key_source, "ccd");
    else strcpy(row->key_source, "none");
  } else if (ci->has_file_bonds && !ci->key_done && ci->first_res >= 0) {
    sp_err kerr = {0}, *err = b->c.err;
    b->c.err = &kerr;
    int32_t def_heavy = -1;
    int krc = key_from_file_bonds(&b->c, ci->id, (uint32_t)ci->first_res, b->alt, row->molecule_key, &def_heavy);
    if (krc == 0 && def_heavy > 0) row->n_heavy_atoms = def_heavy;
    b->c.err = err;
    if (krc == SP_E_NOMEM) return SP_E_NOMEM;
    strcpy(row->key_source, krc ? "none" : "file");
  } else if (ci->key_done) {
    memcpy(row->molecule_key, ci->key, SP_KEY_LEN);
    if (!ci->def) row->n_heavy_atoms = ci->file_heavy;
    snprintf(row->key_source, sizeof row->key_source, "%s", ci->key_source);
  } else {
    strcpy(row->key_source, "none");
  }
  return 0;
}

/* 6. component rows, sorted by comp_id. 0 or SP_E_NOMEM. */
static int step_components(build *b) {
  sp_survey *out = b->out;
  out->comps = calloc(b->c.n_comps ? b->c.n_comps : 1, sizeof *out->comps);
  if (!out->comps) return SP_E_NOMEM;
  for (size_t i = 0; i < b->c.n_comps; i++)
    if (component_row(b, &b->c.comps[i], &out->comps[i].row)) return SP_E_NOMEM;
  out->n_comps = b->c.n_comps;
  for (size_t i = 1; i < out->n_comps; i++) /* insertion sort: few rows */
    for (size_t j = i; j > 0 && strcmp(out->comps[j - 1].row.comp_id, out->comps[j].row.comp_id) > 0; j--) {
      sp_survey_comp t = out->comps[j];
      out->comps[j] = out->comps[j - 1];
      out->comps[j - 1] = t;
    }
  return 0;
}

/* 7. the instances and their references become the output's arrays. */
static void step_publish(build *b) {
  b->out->ligands = b->ligs.p;
  b->out->n_ligands = b->ligs.n;
  b->out->res_refs = b->rrefs.p;
  b->out->atom_refs = b->arefs.p;
  b->ligs.p = b->rrefs.p = b->arefs.p = NULL;
}

/* Steps 1-4 for every surveyed model, then 5 (instances in residue (file) order of their
 * first residue), 6 and 7. 0 or SP_E_NOMEM. */
static int survey_steps(build *b, size_t n_models) {
  for (size_t m = 0; m < n_models; m++) {
    const sp_model *M = &b->s->models[m];
    step_roles(b, M);
    step_peptides(b, M);
    step_branched(b, M);
    if (step_connections(b, m) || (m == 0 && step_conects(b)) || step_peptide_links(b, M) ||
        survey_microhet(b->s, M, b->uf, b->out->res_role, b->cand, b->out->res_altloc, b->mh_primary))
      return SP_E_NOMEM;
  }
  if (step_group(b)) return SP_E_NOMEM;
  for (size_t r = 0; r < b->nr; r++)
    if (b->out->res_role[r] == SP_ROLE_LIGAND && uf_find(b->uf, (uint32_t)r) == r && step_instance(b, (uint32_t)r))
      return SP_E_NOMEM;
  b->out->n_shared_ids = survey_copies(b->s, b->rrefs.p, b->ligs.p, b->ligs.n);
  if (step_components(b)) return SP_E_NOMEM;
  step_publish(b);
  return 0;
}

int sp_survey_run(const sp_structure *s, sp_ccd *ccd, const sp_survey_opts *opts, sp_survey *out, sp_err *err) {
  memset(out, 0, sizeof *out);
  bool all_models = opts && opts->all_models;
  size_t n_models = s->n_models == 0 ? 0 : (all_models ? s->n_models : 1);
  build b;
  int rc = step_init(&b, s, ccd, out, err);
  if (!rc) rc = survey_steps(&b, n_models);
  if (rc) {
    rc = sp_err_set(err, SP_E_NOMEM, "survey: out of memory (%zu residues)", s->n_residues);
    sp_survey_free(out);
  }
  build_free(&b);
  return rc;
}
