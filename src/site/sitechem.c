/* Site chemistry: contacts, titratable groups at pH, PLIP-style interactions, burial.
 * See include/sitepack/sitechem.h and docs/sites.md ("Site chemistry"). */
#include "sitepack/sitechem.h"
#include "sasa_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/result.h"

#define MAXNB 8      /* neighbours kept per ligand atom */
#define RAD2DEG 57.29577951308232

/* ------------------------------------------------------------------ names, tables */

const char *sp_ix_type_name(int t) {
  static const char *n[SP_IX_COUNT] = {"unknown", "hydrophobic", "hbond", "salt_bridge", "pi_stack_parallel",
                                       "pi_stack_t", "pi_cation", "halogen", "water_bridge", "metal"};
  return t > 0 && t < SP_IX_COUNT ? n[t] : "unknown";
}

const char *sp_geometry_name(int g) {
  static const char *n[SP_GEOM_COUNT] = {"none", "linear", "trigonal.planar", "trigonal.pyramidal", "tetrahedral",
                                         "square.planar", "trigonal.bipyramidal", "square.pyramidal", "octahedral"};
  return g >= 0 && g < SP_GEOM_COUNT ? n[g] : "none";
}

const char *sp_tg_name(int k) {
  static const char *n[SP_TG_COUNT] = {"none", "asp", "glu", "his", "cys", "tyr", "lys", "arg", "n_term", "c_term",
                                       "carboxyl", "amine", "quaternary_ammonium", "phosphate", "sulfonate",
                                       "guanidine", "amidine", "aromatic_n", "thiol"};
  return k > 0 && k < SP_TG_COUNT ? n[k] : "none";
}

/* PROPKA3 propka.cfg model_pkas (Olsson et al. 2011). */
double sp_tg_model_pka(int k) {
  switch (k) {
    case SP_TG_ASP: return 3.80;
    case SP_TG_GLU: return 4.50;
    case SP_TG_HIS: return 6.50;
    case SP_TG_CYS: return 9.00;
    case SP_TG_TYR: return 10.00;
    case SP_TG_LYS: return 10.50;
    case SP_TG_ARG: return 12.50;
    case SP_TG_NTERM: return 8.00;
    case SP_TG_CTERM: return 3.20;
    case SP_TG_L_CARBOXYL: return 4.50;   /* OCO */
    case SP_TG_L_AMINE: return 10.00;     /* N30-N33 */
    case SP_TG_L_PHOSPHATE: return 6.00;  /* OP */
    case SP_TG_L_GUANIDINE: return 11.50; /* CG */
    case SP_TG_L_AMIDINE: return 11.50;   /* C2N */
    case SP_TG_L_AROM_N: return 5.00;     /* NAR */
    case SP_TG_L_THIOL: return 10.00;     /* SH */
    default: return NAN;
  }
}

void sp_chem_opts_default(sp_chem_opts *o) {
  o->ph = 7.4;
  o->sasa_points = 960;
  o->probe = 1.4f;
}

/* ------------------------------------------------------------------ workspace */

typedef struct lnode {      /* one ligand heavy atom */
  uint8_t el, deg, nh, arom;
  int8_t fcharge;
  uint8_t has_def;          /* bonds known from a definition: 1 CCD, 2 the file's _chem_comp_bond */
  uint8_t explicit_h;       /* H counted from H atoms present in the file */
  int32_t nb[MAXNB];        /* ligand-local indices */
  uint8_t ord[MAXNB];       /* 1, 2, 3; 4 aromatic / delocalised */
} lnode;

typedef struct ring {
  int32_t atoms[6];         /* site atom indices */
  uint8_t n, ligand;
  float c[3], nrm[3];
} ring;

struct sp_chem_ws {
  lnode *ln; size_t cap_ln;
  int32_t *lmap; size_t cap_lmap;      /* ligand site index -> node, -1 for H */
  int32_t *nsite; size_t cap_nsite;    /* node -> site index */
  int32_t *dmap; size_t cap_dmap;      /* definition atom -> node */
  ring *rings; size_t n_rings, cap_rings;
  int32_t *cand; size_t cap_cand;      /* non-ligand heavy site atoms within the cutoff */
  float *cand_x, *cand_y, *cand_z, *cand_r; size_t cap_cand_xyz; /* their coordinates and vdW radii */
  int32_t *cand_hit; size_t cap_cand_hit; /* candidates near one ligand atom */
  int32_t *res_first, *res_n; size_t cap_resr;
  float (*sx)[3]; size_t cap_sx;       /* SASA input: ligand heavy atoms, then the environment */
  float *sr; size_t cap_sr;
  uint8_t *sq; size_t cap_sq;
  float *so; size_t cap_so;
  int32_t *coord; size_t cap_coord;
  /* SASA kernel workspace: sphere blocks (once per point count), neighbour and mask scratch */
  sp_sasa_ws *sasa;
  /* SASA environment of one model, built once per (structure, survey, model): chosen-conformer heavy
   * non-water atoms with finite coordinates, sorted by packed cell key (cell ENV_CELL Å) */
  const sp_structure *env_s; const sp_survey *env_sv; size_t env_model, env_first, env_natoms;
  float env_fp[16][3];
  size_t env_n, cap_env;
  int64_t *env_key; float (*env_xyz)[3]; float *env_rad; uint32_t *env_res;
  float env_rmax;
  struct env_pair { int64_t key; uint32_t atom; uint32_t pad; } *env_tmp; size_t cap_env_tmp;
  struct env_pair *env_tmp2; size_t cap_env_tmp2; uint32_t *env_count; size_t cap_env_count;
  /* the environment holds only the atoms of the cells that the model's ligands' SASA queries read
   * (mask over cells env_mlo .. env_mlo + env_mdim - 1), or, with env_full, every candidate atom */
  int env_full;
  uint8_t *env_mask; size_t cap_env_mask;
  int64_t env_mlo[3], env_mdim[3];
  /* residue templates as packed names */
  uint64_t aa_res[20], aa_key_res[128], aa_key_atom[128];
  uint8_t aa_sub[128], aa_sub_first[21];
  float vdw[256];                       /* sp_element_vdw_radius of every element number */  /* template rows of each residue (table order), CSR over aa_res */
};

sp_chem_ws *sp_chem_ws_new(void) { return calloc(1, sizeof(sp_chem_ws)); }

void sp_chem_ws_free(sp_chem_ws *w) {
  if (!w) return;
  free(w->ln); free(w->lmap); free(w->nsite); free(w->dmap); free(w->rings); free(w->cand);
  free(w->cand_x); free(w->cand_y); free(w->cand_z); free(w->cand_r); free(w->cand_hit);
  free(w->res_first); free(w->res_n); free(w->sx); free(w->sr); free(w->sq); free(w->so); free(w->coord);
  sp_sasa_ws_free(w->sasa); free(w->env_key); free(w->env_xyz); free(w->env_rad); free(w->env_res); free(w->env_tmp);
  free(w->env_tmp2); free(w->env_count); free(w->env_mask);
  free(w);
}

void sp_site_chem_free(sp_site_chem *c) {
  if (!c) return;
  free(c->atom_chem); free(c->pka); free(c->frac_protonated); free(c->charge_ph);
  free(c->sasa_free); free(c->sasa_complex); free(c->res_contact); free(c->groups); free(c->ix);
  memset(c, 0, sizeof *c);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 16;
  while (n < need) n = n > SIZE_MAX / 4 ? need : n * 2;
  if (n > SIZE_MAX / elem) return -1;
  void *q = realloc(*p, n * elem);
  if (!q) return -1;
  *p = q;
  *cap = n;
  return 0;
}
#define GROW(p, cap, need) grow((void **)&(p), &(cap), (need), sizeof *(p))

/* ------------------------------------------------------------------ geometry */

static inline float d2f(const float *a, const float *b) {
  float x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
  return x * x + y * y + z * z;
}
static inline float df(const float *a, const float *b) { return sqrtf(d2f(a, b)); }
/* angle a-b-c at b, degrees; NaN when degenerate */
static float angle3(const float *a, const float *b, const float *c) {
  double u[3], v[3], nu = 0, nv = 0, dot = 0;
  for (int k = 0; k < 3; k++) {
    u[k] = a[k] - b[k];
    v[k] = c[k] - b[k];
    nu += u[k] * u[k];
    nv += v[k] * v[k];
    dot += u[k] * v[k];
  }
  if (nu <= 0 || nv <= 0) return NAN;
  double x = dot / sqrt(nu * nv);
  if (x > 1) x = 1;
  if (x < -1) x = -1;
  return (float)(acos(x) * RAD2DEG);
}
static float vangle(const float *u, const float *v) { /* 0..180 */
  double dot = 0, nu = 0, nv = 0;
  for (int k = 0; k < 3; k++) {
    dot += u[k] * v[k];
    nu += u[k] * u[k];
    nv += v[k] * v[k];
  }
  if (nu <= 0 || nv <= 0) return NAN;
  double x = dot / sqrt(nu * nv);
  if (x > 1) x = 1;
  if (x < -1) x = -1;
  return (float)(acos(x) * RAD2DEG);
}
/* distance from ring centre c to the projection of point p onto the ring plane */
static float plane_offset(const float *c, const float *nrm, const float *p) {
  float v[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  float h = v[0] * nrm[0] + v[1] * nrm[1] + v[2] * nrm[2];
  float o2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - h * h;
  return o2 > 0 ? sqrtf(o2) : 0.0f;
}
/* Position of site atom k: the site's own copy (transformed for a symmetry-image atom), or the
   structure's when the site has none (a site filled by hand). */
static const float *site_xyz(const sp_structure *s, const sp_site *site, size_t k) {
  return site->xyz ? site->xyz[k] : s->xyz[site->atoms[k]];
}

/* centre and unit normal (Newell's method) of a ring; max deviation from the plane (Å) */
static float ring_plane(const sp_structure *s, const sp_site *site, ring *r) {
  float c[3] = {0, 0, 0}, n[3] = {0, 0, 0};
  for (int k = 0; k < r->n; k++)
    for (int d = 0; d < 3; d++) c[d] += site_xyz(s, site, (size_t)r->atoms[k])[d];
  for (int d = 0; d < 3; d++) c[d] /= r->n;
  for (int k = 0; k < r->n; k++) {
    const float *a = site_xyz(s, site, (size_t)r->atoms[k]), *b = site_xyz(s, site, (size_t)r->atoms[(k + 1) % r->n]);
    n[0] += (a[1] - b[1]) * (a[2] + b[2]);
    n[1] += (a[2] - b[2]) * (a[0] + b[0]);
    n[2] += (a[0] - b[0]) * (a[1] + b[1]);
  }
  float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(l > 0)) l = 1, n[2] = 1;
  float dev = 0;
  for (int d = 0; d < 3; d++) {
    r->c[d] = c[d];
    r->nrm[d] = n[d] / l;
  }
  for (int k = 0; k < r->n; k++) {
    const float *a = site_xyz(s, site, (size_t)r->atoms[k]);
    float h = fabsf((a[0] - c[0]) * r->nrm[0] + (a[1] - c[1]) * r->nrm[1] + (a[2] - c[2]) * r->nrm[2]);
    if (h > dev) dev = h;
  }
  return dev;
}

/* ------------------------------------------------------------------ protein templates */

typedef struct aa_atom {
  const char *res, *atom;
  uint16_t chem;     /* SP_CHEM_HYDROPHOBIC / DONOR / ACCEPTOR */
} aa_atom;
#define HY SP_CHEM_HYDROPHOBIC
#define DO SP_CHEM_DONOR
#define AC SP_CHEM_ACCEPTOR
/* Carbon bonded only to C/H (PLIP's hydrophobic rule applied to the residue graphs);
 * donors/acceptors of the side chains (backbone: N donor except PRO, O/OXT acceptor). */
static const aa_atom aa_atoms[] = {
    {"ALA", "CB", HY}, {"VAL", "CB", HY}, {"VAL", "CG1", HY}, {"VAL", "CG2", HY}, {"LEU", "CB", HY},
    {"LEU", "CG", HY}, {"LEU", "CD1", HY}, {"LEU", "CD2", HY}, {"ILE", "CB", HY}, {"ILE", "CG1", HY},
    {"ILE", "CG2", HY}, {"ILE", "CD1", HY}, {"MET", "CB", HY}, {"PHE", "CB", HY}, {"PHE", "CG", HY},
    {"PHE", "CD1", HY}, {"PHE", "CD2", HY}, {"PHE", "CE1", HY}, {"PHE", "CE2", HY}, {"PHE", "CZ", HY},
    {"TRP", "CB", HY}, {"TRP", "CG", HY}, {"TRP", "CD2", HY}, {"TRP", "CE3", HY}, {"TRP", "CZ2", HY},
    {"TRP", "CZ3", HY}, {"TRP", "CH2", HY}, {"TYR", "CB", HY}, {"TYR", "CG", HY}, {"TYR", "CD1", HY},
    {"TYR", "CD2", HY}, {"TYR", "CE1", HY}, {"TYR", "CE2", HY}, {"PRO", "CB", HY}, {"PRO", "CG", HY},
    {"LYS", "CB", HY}, {"LYS", "CG", HY}, {"LYS", "CD", HY}, {"ARG", "CB", HY}, {"ARG", "CG", HY},
    {"GLU", "CB", HY}, {"GLU", "CG", HY}, {"GLN", "CB", HY}, {"GLN", "CG", HY}, {"ASP", "CB", HY},
    {"ASN", "CB", HY}, {"HIS", "CB", HY}, {"THR", "CG2", HY},
    {"ARG", "NE", DO}, {"ARG", "NH1", DO}, {"ARG", "NH2", DO}, {"ASN", "ND2", DO}, {"ASN", "OD1", AC},
    {"GLN", "NE2", DO}, {"GLN", "OE1", AC}, {"HIS", "ND1", DO | AC}, {"HIS", "NE2", DO | AC}, {"LYS", "NZ", DO},
    {"SER", "OG", DO | AC}, {"THR", "OG1", DO | AC}, {"TYR", "OH", DO | AC}, {"TRP", "NE1", DO},
    {"ASP", "OD1", AC}, {"ASP", "OD2", AC}, {"GLU", "OE1", AC}, {"GLU", "OE2", AC}, {"CYS", "SG", 0},
    {"MET", "SD", 0},
};
#undef HY
#undef DO
#undef AC

static const char *const std_aa[] = {"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE",
                                     "LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL"};
/* names packed into one word (up to 8 characters), so that template look-ups compare integers */
static inline uint64_t pk8(const char *a) {
  uint64_t k = 0;
  for (int i = 0; i < 8 && a[i]; i++) k |= (uint64_t)(unsigned char)a[i] << (8 * i);
  return k;
}

/* the workspace's packed copy of the templates (per workspace: no global state) */
static void aa_tables(sp_chem_ws *w) {
  if (w->aa_res[0]) return;
  for (int z = 0; z < 256; z++) w->vdw[z] = sp_element_vdw_radius((uint8_t)z);
  for (size_t i = 0; i < 20; i++) w->aa_res[i] = pk8(std_aa[i]);
  for (size_t i = 0; i < sizeof aa_atoms / sizeof *aa_atoms && i < 128; i++) {
    w->aa_key_res[i] = pk8(aa_atoms[i].res);
    w->aa_key_atom[i] = pk8(aa_atoms[i].atom);
  }
  int q = 0;
  for (int a = 0; a < 20; a++) {
    w->aa_sub_first[a] = (uint8_t)q;
    for (size_t i = 0; i < sizeof aa_atoms / sizeof *aa_atoms && i < 128; i++)
      if (w->aa_key_res[i] == w->aa_res[a]) w->aa_sub[q++] = (uint8_t)i;
  }
  w->aa_sub_first[20] = (uint8_t)q;
}

/* index of a standard residue name in std_aa, -1 if not one */
static int std_aa_index(const sp_chem_ws *w, const char *c) {
  uint64_t k = pk8(c);
  for (int i = 0; i < 20; i++)
    if (w->aa_res[i] == k) return i;
  return -1;
}

/* typing of atom @p atom of residue std_aa[aa] (backbone N donor except PRO, O/OXT acceptor, side chains
 * from aa_atoms) */
static uint16_t aa_chem_of(const sp_chem_ws *w, int aa, const char *atom) {
  uint64_t ka = pk8(atom);
  if (ka == 'N') return w->aa_res[aa] != pk8("PRO") ? SP_CHEM_DONOR : 0;
  if (ka == 'O' || ka == pk8("OXT")) return SP_CHEM_ACCEPTOR;
  for (int q = w->aa_sub_first[aa]; q < w->aa_sub_first[aa + 1]; q++)
    if (w->aa_key_atom[w->aa_sub[q]] == ka) return aa_atoms[w->aa_sub[q]].chem;
  return 0;
}

static int is_std_aa(const sp_chem_ws *w, const char *c) {
  uint64_t k = pk8(c);
  for (size_t i = 0; i < 20; i++)
    if (w->aa_res[i] == k) return 1;
  return 0;
}

/* aromatic rings of the standard residues */
typedef struct aa_ring {
  const char *res;
  int n;
  const char *atoms[6];
} aa_ring;
static const aa_ring aa_rings[] = {
    {"PHE", 6, {"CG", "CD1", "CE1", "CZ", "CE2", "CD2"}},
    {"TYR", 6, {"CG", "CD1", "CE1", "CZ", "CE2", "CD2"}},
    {"TRP", 5, {"CG", "CD1", "NE1", "CE2", "CD2", NULL}},
    {"TRP", 6, {"CD2", "CE2", "CZ2", "CH2", "CZ3", "CE3"}},
    {"HIS", 5, {"CG", "ND1", "CE1", "NE2", "CD2", NULL}},
};

/* ------------------------------------------------------------------ context */

typedef struct ctx {
  const sp_structure *s;
  const sp_survey *sv;
  const sp_site *site;
  sp_chem_ws *w;
  sp_site_chem *out;
  sp_err *err;
  double ph;
  size_t nl;          /* ligand heavy nodes */
} ctx;

static const float *X(const ctx *c, int32_t k) { return site_xyz(c->s, c->site, (size_t)k); }
static uint8_t EL(const ctx *c, int32_t k) { return c->s->element[c->site->atoms[k]]; }
static const char *ANAME(const ctx *c, int32_t k) { return c->s->atom_name[c->site->atoms[k]]; }
static const char *RNAME(const ctx *c, int32_t k) {
  return c->s->residues[c->s->atom_residue[c->site->atoms[k]]].comp_id;
}
static int is_polymer_atom(const ctx *c, int32_t k) { return (c->site->atom_flags[k] & SP_SITE_ATOM_POLYMER) != 0; }

/* site atom index of atom @p name in site residue slot @p rs, -1 if absent */
static int32_t res_atom(const ctx *c, size_t rs, const char *name) {
  int32_t f = c->w->res_first[rs], n = c->w->res_n[rs];
  uint64_t key = pk8(name);
  for (int32_t k = f; k < f + n; k++)
    if (pk8(ANAME(c, k)) == key) return k;
  return -1;
}

static int add_ix(ctx *c, const sp_interaction *ix) {
  sp_site_chem *o = c->out;
  if (GROW(o->ix, o->cap_ix, o->n_ix + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  o->ix[o->n_ix++] = *ix;
  return 0;
}

static int add_group_pka(ctx *c, int kind, int ligand, int8_t qp, int8_t qd, int32_t head, const int32_t *atoms, int na,
                         double pka) {
  sp_site_chem *o = c->out;
  if (GROW(o->groups, o->cap_groups, o->n_groups + 1))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  sp_titr_group *g = &o->groups[o->n_groups++];
  memset(g, 0, sizeof *g);
  g->kind = (uint8_t)kind;
  g->ligand = (uint8_t)ligand;
  g->charge_prot = qp;
  g->charge_deprot = qd;
  g->head = head;
  if (na > 4) na = 4;
  g->n_atoms = (uint8_t)na;
  float cc[3] = {0, 0, 0};
  for (int i = 0; i < na; i++) {
    g->atoms[i] = atoms[i];
    for (int d = 0; d < 3; d++) cc[d] += X(c, atoms[i])[d];
  }
  for (int d = 0; d < 3; d++) g->center[d] = na ? cc[d] / na : X(c, head)[d];
  /* phosphate / sulfonate / sulfate: the charge centre is the P or S atom, as PLIP's find_charged
   * (plip/structure/preparation.py: center=a.coords for these groups) */
  if (kind == SP_TG_L_PHOSPHATE || kind == SP_TG_L_SULFONATE)
    for (int d = 0; d < 3; d++) g->center[d] = X(c, head)[d];
  g->pka = (float)pka;
  if (isnan(pka)) {
    g->frac_protonated = NAN;
    g->charge = qp; /* permanent: qp == qd */
    g->ambiguous = 0;
  } else {
    double f = 1.0 / (1.0 + pow(10.0, c->ph - pka));
    g->frac_protonated = (float)f;
    g->charge = f >= 0.5 ? qp : qd;
    g->ambiguous = fabs(c->ph - pka) < 1.0;
  }
  return 0;
}

static int add_group(ctx *c, int kind, int ligand, int8_t qp, int8_t qd, int32_t head, const int32_t *atoms, int na) {
  return add_group_pka(c, kind, ligand, qp, qd, head, atoms, na, sp_tg_model_pka(kind));
}

/* can the group carry a charge of sign @p sign (+1/-1) at this pH: its most probable charge,
 * or, when ambiguous, the other state. */
static int group_sign(const sp_titr_group *g, int sign) {
  if (sign > 0) return g->charge > 0 || (g->ambiguous && (g->charge_prot > 0 || g->charge_deprot > 0));
  return g->charge < 0 || (g->ambiguous && (g->charge_prot < 0 || g->charge_deprot < 0));
}

/* ------------------------------------------------------------------ ligand graph */

static int lig_add_bond(lnode *ln, int32_t a, int32_t b, uint8_t ord) {
  if (a == b) return 0;
  for (int k = 0; k < ln[a].deg; k++)
    if (ln[a].nb[k] == b) return 0;
  if (ln[a].deg >= MAXNB || ln[b].deg >= MAXNB) return 0;
  ln[a].nb[ln[a].deg] = b;
  ln[a].ord[ln[a].deg++] = ord;
  ln[b].nb[ln[b].deg] = a;
  ln[b].ord[ln[b].deg++] = ord;
  return 0;
}

static int valence(uint8_t el) {
  switch (el) {
    case 6: return 4;
    case 7: return 3;
    case 8: return 2;
    case 16: return 2;
    case 15: return 3;
    case 5: return 3;
    default: return 0;
  }
}

static int build_ligand_graph(ctx *c, sp_ccd *ccd) {
  const sp_structure *s = c->s;
  const sp_site *site = c->site;
  sp_chem_ws *w = c->w;
  size_t nlig = site->n_ligand;
  if (GROW(w->lmap, w->cap_lmap, nlig + 1) || GROW(w->ln, w->cap_ln, nlig + 1) ||
      GROW(w->nsite, w->cap_nsite, nlig + 1))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  size_t nl = 0;
  for (size_t k = 0; k < nlig; k++) {
    uint8_t el = s->element[site->atoms[k]];
    if (el == 1) {
      w->lmap[k] = -1;
      continue;
    }
    w->lmap[k] = (int32_t)nl;
    w->nsite[nl] = (int32_t)k;
    lnode *n = &w->ln[nl];
    memset(n, 0, sizeof *n);
    n->el = el;
    n->fcharge = s->charge[site->atoms[k]];
    nl++;
  }
  c->nl = nl;
  /* per ligand residue: CCD definition, else the file's bonds */
  size_t k0 = 0;
  while (k0 < nlig) {
    uint32_t r = s->atom_residue[site->atoms[k0]];
    size_t k1 = k0;
    while (k1 < nlig && s->atom_residue[site->atoms[k1]] == r) k1++;
    const char *comp = s->residues[r].comp_id;
    const sp_component *def = ccd ? sp_ccd_get(ccd, comp, NULL) : NULL;
    if (def && def->n_atoms) {
      if (GROW(w->dmap, w->cap_dmap, def->n_atoms)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
      for (size_t i = 0; i < def->n_atoms; i++) w->dmap[i] = -1;
      for (size_t k = k0; k < k1; k++) {
        if (w->lmap[k] < 0) continue;
        int di = sp_component_atom_index(def, s->atom_name[site->atoms[k]]);
        if (di >= 0) {
          w->dmap[di] = w->lmap[k];
          lnode *n = &w->ln[w->lmap[k]];
          n->has_def = 1;
          if (def->atoms[di].charge_known) n->fcharge = def->atoms[di].charge;
          if (def->atoms[di].aromatic) n->arom = 1;
        }
      }
      for (size_t b = 0; b < def->n_bonds; b++) {
        const sp_comp_bond *cb = &def->bonds[b];
        if (cb->a >= def->n_atoms || cb->b >= def->n_atoms) continue;
        int32_t ia = w->dmap[cb->a], ib = w->dmap[cb->b];
        uint8_t ea = def->atoms[cb->a].element, eb = def->atoms[cb->b].element;
        if (ia >= 0 && eb == 1) w->ln[ia].nh++;
        else if (ib >= 0 && ea == 1) w->ln[ib].nh++;
        else if (ia >= 0 && ib >= 0) lig_add_bond(w->ln, ia, ib, cb->aromatic ? 4 : cb->order);
      }
      c->out->flags |= SP_CHEMF_GRAPH_CCD;
    } else {
      int any = 0;
      for (size_t b = 0; b < s->n_file_bonds; b++) {
        const sp_file_bond *fb = &s->file_bonds[b];
        if (strcmp(fb->comp_id, comp)) continue;
        int32_t ia = -1, ib = -1, ha = 0, hb = 0;
        for (size_t k = k0; k < k1; k++) {
          const char *nm = s->atom_name[site->atoms[k]];
          if (!strcmp(nm, fb->atom1)) ia = (int32_t)k;
          if (!strcmp(nm, fb->atom2)) ib = (int32_t)k;
        }
        ha = fb->atom1[0] == 'H';
        hb = fb->atom2[0] == 'H';
        any = 1;
        if (ia >= 0 && w->lmap[ia] >= 0 && (ib >= 0 ? w->lmap[ib] < 0 : hb)) w->ln[w->lmap[ia]].nh++;
        else if (ib >= 0 && w->lmap[ib] >= 0 && (ia >= 0 ? w->lmap[ia] < 0 : ha)) w->ln[w->lmap[ib]].nh++;
        else if (ia >= 0 && ib >= 0 && w->lmap[ia] >= 0 && w->lmap[ib] >= 0) {
          lig_add_bond(w->ln, w->lmap[ia], w->lmap[ib], fb->aromatic ? 4 : fb->order);
        }
        if (ia >= 0 && w->lmap[ia] >= 0) w->ln[w->lmap[ia]].has_def = 2;
        if (ib >= 0 && w->lmap[ib] >= 0) w->ln[w->lmap[ib]].has_def = 2;
      }
      if (any) c->out->flags |= SP_CHEMF_GRAPH_FILE;
    }
    k0 = k1;
  }
  /* distance bonds: pairs where an atom has no definition, and pairs of different residues
   * (covalent radii + 0.4 Å, DESIGN.md's distance rule as in the survey) */
  int used_dist = 0;
  for (size_t i = 0; i < nl; i++) {
    const float *a = X(c, w->nsite[i]);
    uint32_t ra = s->atom_residue[site->atoms[w->nsite[i]]];
    float rca = sp_element_covalent_radius(w->ln[i].el);
    for (size_t j = i + 1; j < nl; j++) {
      uint32_t rb = s->atom_residue[site->atoms[w->nsite[j]]];
      if (ra == rb && w->ln[i].has_def && w->ln[j].has_def) continue;
      if (sp_element_is_metal(w->ln[i].el) || sp_element_is_metal(w->ln[j].el)) continue;
      float lim = rca + sp_element_covalent_radius(w->ln[j].el) + 0.4f;
      float d2 = d2f(a, X(c, w->nsite[j]));
      if (d2 <= lim * lim && d2 > 0.16f) {
        /* bond order from the length where it is unambiguous: C=O < 1.30 Å (C-O 1.43), C=N < 1.30 Å
         * (amide 1.33, amine 1.47), C=S < 1.70 Å (C-S 1.82) */
        uint8_t ei = w->ln[i].el, ej = w->ln[j].el, ord = 1;
        uint8_t other = ei == 6 ? ej : ej == 6 ? ei : 0;
        if ((other == 8 || other == 7) && d2 < 1.30f * 1.30f) ord = 2;
        if (other == 16 && d2 < 1.70f * 1.70f) ord = 2;
        lig_add_bond(w->ln, (int32_t)i, (int32_t)j, ord);
        used_dist = 1;
      }
    }
  }
  if (used_dist) c->out->flags |= SP_CHEMF_GRAPH_DISTANCE;
  /* charges the file does not state, for atoms without a definition: an N with four single bonds to
   * heavy atoms is a quaternary N+ (four sigma bonds, no lone pair), and a terminal O singly bonded to
   * it is the O- of an amine N-oxide R3N+-O- (IUPAC Gold Book, "amine oxides"), which carries no H */
  for (size_t i = 0; i < nl; i++) {
    lnode *n = &w->ln[i];
    if (n->has_def == 1 || n->el != 7 || n->deg != 4 || n->fcharge != 0) continue;
    int single = 1;
    for (int k = 0; k < n->deg; k++) single &= n->ord[k] == 1;
    if (!single) continue;
    n->fcharge = 1;
    for (int k = 0; k < n->deg; k++) {
      lnode *o = &w->ln[n->nb[k]];
      if (o->el == 8 && o->deg == 1 && o->has_def != 1 && o->fcharge == 0) o->fcharge = -1;
    }
  }
  /* hydrogens: explicit H atoms of the file bonded by distance where no definition counted them;
   * else implicit from valence for atoms without a definition */
  for (size_t i = 0; i < nl; i++) {
    lnode *n = &w->ln[i];
    if (n->has_def == 1) continue;
    int explicit_h = 0;
    for (size_t k = 0; k < nlig; k++)
      if (w->lmap[k] < 0 && d2f(X(c, (int32_t)k), X(c, w->nsite[i])) < 1.3f * 1.3f) explicit_h++;
    if (explicit_h) {
      n->nh = (uint8_t)explicit_h;
      n->explicit_h = 1;
      continue;
    }
    if (n->has_def == 2 && n->nh) continue;
    double sum = 0;
    for (int k = 0; k < n->deg; k++) sum += n->ord[k] == 4 ? 1.5 : n->ord[k];
    int v = valence(n->el) + (n->el == 7 && n->fcharge > 0 ? 1 : 0) - (n->el == 8 && n->fcharge < 0 ? 1 : 0);
    int h = v - (int)(sum + 0.5);
    n->nh = (uint8_t)(h > 0 ? h : 0);
  }
  return 0;
}

/* rings of 5 and 6 ligand heavy atoms (simple cycles through the smallest atom index) */
static int add_ring(ctx *c, const int32_t *path, int n, int ligand) {
  sp_chem_ws *w = c->w;
  /* duplicate? compare atom sets */
  for (size_t r = 0; r < w->n_rings; r++) {
    if (w->rings[r].n != n || w->rings[r].ligand != ligand) continue;
    int same = 1;
    for (int i = 0; i < n && same; i++) {
      int f = 0;
      for (int j = 0; j < n; j++) f |= w->rings[r].atoms[j] == path[i];
      same = f;
    }
    if (same) return 0;
  }
  if (GROW(w->rings, w->cap_rings, w->n_rings + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  ring *rg = &w->rings[w->n_rings];
  memset(rg, 0, sizeof *rg);
  rg->n = (uint8_t)n;
  rg->ligand = (uint8_t)ligand;
  for (int i = 0; i < n; i++) rg->atoms[i] = path[i];
  w->n_rings++;
  return 0;
}

static int ligand_rings(ctx *c) {
  sp_chem_ws *w = c->w;
  lnode *ln = w->ln;
  size_t nl = c->nl;
  /* iterative DFS of depth <= 6 from each start atom s over atoms > s */
  for (size_t s0 = 0; s0 < nl; s0++) {
    int32_t path[6];
    int it[6];
    int depth = 0;
    path[0] = (int32_t)s0;
    it[0] = 0;
    while (depth >= 0) {
      lnode *cur = &ln[path[depth]];
      if (it[depth] >= cur->deg) {
        depth--;
        continue;
      }
      int32_t nx = cur->nb[it[depth]++];
      if (nx == (int32_t)s0 && depth >= 4) {
        int32_t sp[6];
        for (int i = 0; i <= depth; i++) sp[i] = w->nsite[path[i]];
        if (add_ring(c, sp, depth + 1, 1)) return SP_E_NOMEM;
        continue;
      }
      if (nx <= (int32_t)s0 || depth >= 5) continue;
      int seen = 0;
      for (int i = 1; i <= depth; i++) seen |= path[i] == nx;
      if (seen) continue;
      path[++depth] = nx;
      it[depth] = 0;
    }
  }
  /* keep aromatic rings: every atom flagged aromatic by its definition, or (no flags) every
   * atom C/N/O/S with at most 3 heavy neighbours and the ring planar within 0.15 Å */
  size_t keep = 0;
  for (size_t r = 0; r < w->n_rings; r++) {
    ring *rg = &w->rings[r];
    int all_flag = 1, sp2 = 1, any_def = 0;
    for (int i = 0; i < rg->n; i++) {
      lnode *n = &ln[w->lmap[rg->atoms[i]]];
      all_flag &= n->arom;
      any_def |= n->has_def == 1;
      sp2 &= (n->el == 6 || n->el == 7 || n->el == 8 || n->el == 16) && n->deg <= 3;
      if (n->has_def && n->el == 6 && n->deg + n->nh > 3) sp2 = 0; /* sp3 carbon by its definition */
    }
    float dev = ring_plane(c->s, c->site, rg);
    int arom = any_def ? all_flag : (sp2 && dev <= 0.15f);
    if (arom) w->rings[keep++] = *rg;
  }
  w->n_rings = keep;
  for (size_t r = 0; r < keep; r++)
    for (int i = 0; i < w->rings[r].n; i++) ln[w->lmap[w->rings[r].atoms[i]]].arom = 2; /* 2: in an aromatic ring */
  for (size_t i = 0; i < nl; i++) {
    if (ln[i].arom == 1) ln[i].arom = 0; /* flagged but in no 5/6 ring: not used as aromatic */
    /* implicit H of aromatic atoms without a definition: one ring bond counted double */
    if (ln[i].arom == 2 && ln[i].has_def != 1 && !ln[i].explicit_h) {
      int h = valence(ln[i].el) - 1 - ln[i].deg;
      ln[i].nh = (uint8_t)(h > 0 ? h : 0);
    }
  }
  return 0;
}

static int n_terminal(const ctx *c, int32_t i, uint8_t el) { /* neighbours of element el with one heavy neighbour */
  const lnode *n = &c->w->ln[i];
  int t = 0;
  for (int k = 0; k < n->deg; k++) {
    const lnode *m = &c->w->ln[n->nb[k]];
    if (m->el == el && m->deg == 1) t++;
  }
  return t;
}
static int n_el(const ctx *c, int32_t i, uint8_t el) {
  const lnode *n = &c->w->ln[i];
  int t = 0;
  for (int k = 0; k < n->deg; k++) t += c->w->ln[n->nb[k]].el == el;
  return t;
}

/* ligand groups from the graph (docs/sites.md "Ligand groups") */
static int ligand_groups(ctx *c, uint8_t *used) {
  sp_chem_ws *w = c->w;
  lnode *ln = w->ln;
  size_t nl = c->nl;
  for (size_t i = 0; i < nl; i++) {
    lnode *n = &ln[i];
    int32_t at[4];
    int na = 0;
    int rc = 0;
    if (n->el == 6 && !used[i]) {
      int to = n_terminal(c, (int32_t)i, 8), nn = n_el(c, (int32_t)i, 7), no = n_el(c, (int32_t)i, 8);
      if (to == 2 && n->deg == 3 && nn == 0) { /* carboxylic acid / carboxylate */
        for (int k = 0; k < n->deg; k++)
          if (ln[n->nb[k]].el == 8) at[na++] = w->nsite[n->nb[k]], used[n->nb[k]] = 1;
        used[i] = 1;
        rc = add_group(c, SP_TG_L_CARBOXYL, 1, 0, -1, w->nsite[i], at, na);
      } else if (nn == 3 && no == 0 && !n->arom) { /* guanidine */
        for (int k = 0; k < n->deg && na < 4; k++) {
          at[na++] = w->nsite[n->nb[k]];
          used[n->nb[k]] = 1;
        }
        used[i] = 1;
        rc = add_group(c, SP_TG_L_GUANIDINE, 1, 1, 0, w->nsite[i], at, na);
      } else if (nn == 2 && no == 0 && n->deg == 3 && !n->arom) { /* amidine: C(=N)N, both N not aromatic */
        int ok = 1;
        for (int k = 0; k < n->deg; k++) {
          lnode *m = &ln[n->nb[k]];
          if (m->el == 7 && (m->arom || m->deg > 2)) ok = 0;
        }
        if (ok) {
          for (int k = 0; k < n->deg; k++)
            if (ln[n->nb[k]].el == 7) at[na++] = w->nsite[n->nb[k]], used[n->nb[k]] = 1;
          used[i] = 1;
          rc = add_group(c, SP_TG_L_AMIDINE, 1, 1, 0, w->nsite[i], at, na);
        }
      }
    } else if (n->el == 15) { /* phosphate: P with >= 2 terminal O */
      int to = n_terminal(c, (int32_t)i, 8);
      if (to >= 2) {
        for (int k = 0; k < n->deg && na < 4; k++)
          if (ln[n->nb[k]].el == 8 && ln[n->nb[k]].deg == 1) at[na++] = w->nsite[n->nb[k]], used[n->nb[k]] = 1;
        used[i] = 1;
        if (to >= 3) rc = add_group(c, SP_TG_L_PHOSPHATE, 1, -1, -2, w->nsite[i], at, na);
        else rc = add_group_pka(c, SP_TG_L_PHOSPHATE, 1, -1, -1, w->nsite[i], at, na, NAN); /* diester: -1 */
      }
    } else if (n->el == 16) {
      int to = n_terminal(c, (int32_t)i, 8);
      if (to >= 3) { /* sulfonate / sulfate */
        for (int k = 0; k < n->deg && na < 4; k++)
          if (ln[n->nb[k]].el == 8 && ln[n->nb[k]].deg == 1) at[na++] = w->nsite[n->nb[k]], used[n->nb[k]] = 1;
        used[i] = 1;
        rc = add_group(c, SP_TG_L_SULFONATE, 1, -1, -1, w->nsite[i], at, na);
      } else if (n->deg == 1 && ln[n->nb[0]].el == 6 && n->ord[0] == 1) { /* thiol */
        at[na++] = w->nsite[i];
        used[i] = 1;
        rc = add_group(c, SP_TG_L_THIOL, 1, 0, -1, w->nsite[i], at, na);
      }
    }
    if (rc) return rc;
  }
  /* nitrogens not in a group yet */
  for (size_t i = 0; i < nl; i++) {
    lnode *n = &ln[i];
    if (n->el != 7 || used[i]) continue;
    int32_t at[1] = {w->nsite[i]};
    int rc = 0;
    if (n->arom) {
      /* pyridine-like: two ring neighbours, no H, no third substituent */
      if (n->deg == 2 && n->nh == 0 && n->fcharge <= 0) rc = add_group(c, SP_TG_L_AROM_N, 1, 1, 0, at[0], at, 1);
      else if (n->deg == 3 && n->fcharge > 0 && n->nh == 0) rc = add_group(c, SP_TG_L_QUAT, 1, 1, 1, at[0], at, 1);
    } else {
      int single = 1, conj = 0;
      for (int k = 0; k < n->deg; k++) {
        lnode *m = &ln[n->nb[k]];
        if (n->ord[k] != 1) single = 0;
        if (m->arom || m->el == 16 || m->el == 15) conj = 1;
        if (m->el == 6) /* carbonyl / imine / thiocarbonyl carbon, sp2 by topology */
          for (int q = 0; q < m->deg; q++) {
            lnode *o = &ln[m->nb[q]];
            if (m->nb[q] != (int32_t)i && (o->el == 8 || o->el == 16 || o->el == 7) && (m->ord[q] == 2 || (o->deg == 1 && o->el != 7 && m->deg <= 3)))
              conj = 1;
          }
      }
      if (single && !conj) {
        if (n->deg == 4) rc = add_group(c, SP_TG_L_QUAT, 1, 1, 1, at[0], at, 1);
        else if (n->deg >= 1) rc = add_group(c, SP_TG_L_AMINE, 1, 1, 0, at[0], at, 1);
      }
    }
    used[i] = 1;
    if (rc) return rc;
  }
  return 0;
}

/* ------------------------------------------------------------------ protein groups & rings */

static int protein_groups_rings(ctx *c) {
  const sp_site *site = c->site;
  const sp_structure *s = c->s;
  for (size_t rs = 0; rs < site->n_res; rs++) {
    if (site->res[rs].kind != SP_RES_KIND_POLYMER || c->w->res_n[rs] == 0) continue;
    uint32_t r = site->res[rs].residue;
    const char *comp = s->residues[r].comp_id;
    int32_t at[4];
    int rc = 0;
#define A(nm) res_atom(c, rs, nm)
    if (is_std_aa(c->w, comp)) {
      if (!strcmp(comp, "ASP") && (at[0] = A("OD1")) >= 0 && (at[1] = A("OD2")) >= 0)
        rc = add_group(c, SP_TG_ASP, 0, 0, -1, A("CG") >= 0 ? A("CG") : at[0], at, 2);
      else if (!strcmp(comp, "GLU") && (at[0] = A("OE1")) >= 0 && (at[1] = A("OE2")) >= 0)
        rc = add_group(c, SP_TG_GLU, 0, 0, -1, A("CD") >= 0 ? A("CD") : at[0], at, 2);
      else if (!strcmp(comp, "LYS") && (at[0] = A("NZ")) >= 0)
        rc = add_group(c, SP_TG_LYS, 0, 1, 0, at[0], at, 1);
      else if (!strcmp(comp, "ARG") && (at[0] = A("NE")) >= 0 && (at[1] = A("NH1")) >= 0 && (at[2] = A("NH2")) >= 0)
        rc = add_group(c, SP_TG_ARG, 0, 1, 0, A("CZ") >= 0 ? A("CZ") : at[0], at, 3);
      else if (!strcmp(comp, "HIS") && (at[0] = A("ND1")) >= 0 && (at[1] = A("NE2")) >= 0 && (at[2] = A("CE1")) >= 0 &&
               (at[3] = A("CG")) >= 0)
        rc = add_group(c, SP_TG_HIS, 0, 1, 0, at[2], at, 4);
      else if (!strcmp(comp, "TYR") && (at[0] = A("OH")) >= 0)
        rc = add_group(c, SP_TG_TYR, 0, 0, -1, at[0], at, 1);
      else if (!strcmp(comp, "CYS") && (at[0] = A("SG")) >= 0) {
        /* a disulfide-bonded cysteine is not titratable: another SG within 2.5 Å */
        int ss = 0;
        for (size_t k = site->n_ligand; k < site->n_atoms; k++)
          if ((int32_t)k != at[0] && EL(c, (int32_t)k) == 16 && !strcmp(ANAME(c, (int32_t)k), "SG") &&
              d2f(X(c, (int32_t)k), X(c, at[0])) < 2.5f * 2.5f)
            ss = 1;
        if (!ss) rc = add_group(c, SP_TG_CYS, 0, 0, -1, at[0], at, 1);
      }
      if (rc) return rc;
      /* termini: N of the first residue of its chain; C-terminus where OXT is present */
      const sp_chain *ch = &s->chains[s->residues[r].chain];
      if (r == ch->first_residue && (at[0] = A("N")) >= 0 && (rc = add_group(c, SP_TG_NTERM, 0, 1, 0, at[0], at, 1)))
        return rc;
      if ((at[1] = A("OXT")) >= 0 && (at[0] = A("O")) >= 0 &&
          (rc = add_group(c, SP_TG_CTERM, 0, 0, -1, A("C") >= 0 ? A("C") : at[0], at, 2)))
        return rc;
      for (size_t q = 0; q < sizeof aa_rings / sizeof *aa_rings; q++) {
        if (strcmp(aa_rings[q].res, comp)) continue;
        int32_t ra[6];
        int ok = 1;
        for (int i = 0; i < aa_rings[q].n && ok; i++) ok = (ra[i] = A(aa_rings[q].atoms[i])) >= 0;
        if (ok && add_ring(c, ra, aa_rings[q].n, 0)) return SP_E_NOMEM;
      }
    } else if ((at[2] = A("P")) >= 0) {
      /* nucleic-acid backbone phosphodiester: -1 at any pH (pKa about 1; PLIP's DNA/RNA receptor
       * mode types it negative too); kind "phosphate", not titratable */
      if (((at[0] = A("OP1")) >= 0 || (at[0] = A("O1P")) >= 0) && ((at[1] = A("OP2")) >= 0 || (at[1] = A("O2P")) >= 0) &&
          (rc = add_group_pka(c, SP_TG_L_PHOSPHATE, 0, -1, -1, at[2], at, 2, NAN)))
        return rc;
    }
#undef A
  }
  for (size_t r = 0; r < c->w->n_rings; r++)
    if (!c->w->rings[r].ligand) ring_plane(s, site, &c->w->rings[r]);
  return 0;
}

/* ------------------------------------------------------------------ per-atom typing */

static void type_atoms(ctx *c) {
  const sp_site *site = c->site;
  sp_site_chem *o = c->out;
  sp_chem_ws *w = c->w;
  uint32_t last_res = UINT32_MAX; /* site atoms come grouped by residue: its template looked up once */
  int aa = -1;
  for (size_t k = 0; k < site->n_atoms; k++) {
    uint16_t f = 0;
    uint8_t el = EL(c, (int32_t)k);
    if (sp_element_is_metal(el)) f |= SP_CHEM_METAL;
    if (k < site->n_ligand) {
      int32_t i = w->lmap[k];
      if (i >= 0) {
        lnode *n = &w->ln[i];
        if (n->el == 6) {
          int hyd = 1;
          for (int q = 0; q < n->deg; q++) hyd &= w->ln[n->nb[q]].el == 6;
          if (hyd) f |= SP_CHEM_HYDROPHOBIC;
        }
        if ((n->el == 7 || n->el == 8) && n->nh > 0) f |= SP_CHEM_DONOR;
        if (n->el == 8) f |= SP_CHEM_ACCEPTOR;
        if (n->el == 7 && n->nh == 0 && n->fcharge <= 0 && n->deg <= 3) {
          /* amide N (bonded to a carbonyl carbon) or sulfonamide N has no lone pair to give;
           * aromatic amines stay acceptors, as in OpenBabel's typing that PLIP uses */
          int conj = 0;
          for (int q = 0; q < n->deg; q++) {
            lnode *m = &w->ln[n->nb[q]];
            if (!n->arom && (m->el == 6 || m->el == 16) && n_terminal(c, n->nb[q], 8) > 0) conj = 1;
          }
          if (!conj) f |= SP_CHEM_ACCEPTOR;
        }
        if ((n->el == 9 || n->el == 17 || n->el == 35 || n->el == 53) && n->deg == 1 && w->ln[n->nb[0]].el == 6)
          f |= SP_CHEM_HALOGEN_DONOR;
        if (n->arom == 2) f |= SP_CHEM_AROMATIC;
      }
    } else if (site->atom_flags[k] & SP_SITE_ATOM_WATER) {
      if (el == 8) f |= SP_CHEM_DONOR | SP_CHEM_ACCEPTOR;
    } else if (is_polymer_atom(c, (int32_t)k)) {
      const char *rn = RNAME(c, (int32_t)k), *an = ANAME(c, (int32_t)k);
      if (site->atom_res[k] != last_res) last_res = site->atom_res[k], aa = std_aa_index(w, rn);
      if (aa >= 0) f |= aa_chem_of(w, aa, an);
      else if (!strcmp(an, "N")) f |= SP_CHEM_DONOR;
      else if (!strcmp(an, "O") || !strcmp(an, "OXT")) f |= SP_CHEM_ACCEPTOR;
    }
    o->atom_chem[k] = f;
  }
  for (size_t r = 0; r < w->n_rings; r++)
    for (int i = 0; i < w->rings[r].n; i++) o->atom_chem[w->rings[r].atoms[i]] |= SP_CHEM_AROMATIC;
  /* groups: protonation-dependent donor/acceptor, charges */
  for (size_t g = 0; g < o->n_groups; g++) {
    sp_titr_group *G = &o->groups[g];
    uint16_t q = SP_CHEM_TITRATABLE;
    if (G->ambiguous) q |= SP_CHEM_AMBIGUOUS;
    if (G->charge > 0) q |= SP_CHEM_POSITIVE;
    if (G->charge < 0) q |= SP_CHEM_NEGATIVE;
    int prot = G->charge == G->charge_prot;
    for (int i = 0; i < G->n_atoms; i++) {
      int32_t a = G->atoms[i];
      o->atom_chem[a] |= q;
      o->pka[a] = G->pka;
      o->frac_protonated[a] = G->frac_protonated;
      uint8_t el = EL(c, a);
      if (isnan(G->pka)) {
        /* fixed negative charge (phosphodiester, sulfonate / sulfate): the charged O carry no H,
         * whatever H atoms the CCD definition (the neutral acid) lists */
        if (G->charge < 0 && (el == 8 || el == 16)) o->atom_chem[a] &= (uint16_t)~SP_CHEM_DONOR;
        continue;
      }
      /* acids: the protonated form donates; bases: the protonated form donates, the neutral accepts */
      if (G->charge_prot > G->charge_deprot && G->charge_prot > 0) { /* base */
        if (prot && (el == 7 || el == 8)) {
          o->atom_chem[a] |= SP_CHEM_DONOR;
          if (G->kind == SP_TG_L_AMINE || G->kind == SP_TG_L_AROM_N || G->kind == SP_TG_NTERM || G->kind == SP_TG_LYS)
            o->atom_chem[a] &= (uint16_t)~SP_CHEM_ACCEPTOR;
        }
      } else if (el == 8 || el == 16) { /* acid: only the protonated form donates */
        if (prot) o->atom_chem[a] |= SP_CHEM_DONOR;
        else o->atom_chem[a] &= (uint16_t)~SP_CHEM_DONOR;
      }
    }
    o->pka[G->head] = G->pka;
    o->frac_protonated[G->head] = G->frac_protonated;
    o->charge_ph[G->head] = G->charge;
  }
}

/* ------------------------------------------------------------------ metal geometry */

/* Coordination geometry as PLIP's metal_complexation (pharmai/plip, plip/structure/detection.py):
 * for every coordination number 6..2 and each of its geometries, each "sub-signature" (the ideal
 * angles seen from one coordinating atom) is matched to the not yet used target whose observed angles
 * (to every other target) fit best (greedy per ideal angle, score = sqrt(sum of squared differences));
 * the geometry's score is the mean over its sub-signatures; targets left unused are the geometry's
 * outliers. The candidates are ordered by |targets - coordination number| and PLIP's rule picks one:
 * the first whose next candidate is worse by more than 0.5, else the next when its score is below 3.5.
 * The ideal signatures are PLIP's (including its square-planar set of four 90° angles). */
#define SP_METAL_MAX_TARGETS 32
static const struct metal_sig {
  int geom, coo, len;
  float sub[6][5];
} metal_sigs[] = {
    {SP_GEOM_OCTAHEDRAL, 6, 5, {{90, 90, 90, 90, 180}, {90, 90, 90, 90, 180}, {90, 90, 90, 90, 180},
                                {90, 90, 90, 90, 180}, {90, 90, 90, 90, 180}, {90, 90, 90, 90, 180}}},
    {SP_GEOM_TRIGONAL_BIPYRAMIDAL, 5, 4, {{120, 120, 90, 90}, {120, 120, 90, 90}, {120, 120, 90, 90},
                                          {90, 90, 90, 180}, {90, 90, 90, 180}}},
    {SP_GEOM_SQUARE_PYRAMIDAL, 5, 4, {{90, 90, 90, 180}, {90, 90, 90, 180}, {90, 90, 90, 180},
                                      {90, 90, 90, 180}, {90, 90, 90, 90}}},
    {SP_GEOM_TETRAHEDRAL, 4, 4, {{109.5f, 109.5f, 109.5f, 109.5f}, {109.5f, 109.5f, 109.5f, 109.5f},
                                 {109.5f, 109.5f, 109.5f, 109.5f}, {109.5f, 109.5f, 109.5f, 109.5f}}},
    {SP_GEOM_SQUARE_PLANAR, 4, 4, {{90, 90, 90, 90}, {90, 90, 90, 90}, {90, 90, 90, 90}, {90, 90, 90, 90}}},
    {SP_GEOM_TRIGONAL_PLANAR, 3, 2, {{120, 120}, {120, 120}, {120, 120}}},
    {SP_GEOM_TRIGONAL_PYRAMIDAL, 3, 2, {{109.5f, 109.5f}, {109.5f, 109.5f}, {109.5f, 109.5f}}},
    {SP_GEOM_LINEAR, 2, 1, {{180}, {180}}},
};
#define N_METAL_SIGS ((int)(sizeof metal_sigs / sizeof *metal_sigs))

/* n target vectors v (metal -> target), 2 <= n <= SP_METAL_MAX_TARGETS. Returns the geometry (SP_GEOM_NONE
 * when PLIP's rule decides for none), its coordination number (n when none), its score (degrees, NaN when
 * none) and the excluded targets (excl[t] = 1). */
static int metal_geometry(const float (*v)[3], int n, float *rms_out, int *coo_out, uint8_t *excl) {
  float ang[SP_METAL_MAX_TARGETS][SP_METAL_MAX_TARGETS];
  for (int i = 0; i < n; i++)
    for (int j = 0, q = 0; j < n; j++)
      if (j != i) ang[i][q++] = vangle(v[i], v[j]);
  double score[N_METAL_SIGS];
  uint8_t unused[N_METAL_SIGS][SP_METAL_MAX_TARGETS];
  for (int g = 0; g < N_METAL_SIGS; g++) {
    const struct metal_sig *S = &metal_sigs[g];
    uint8_t used[SP_METAL_MAX_TARGETS] = {0};
    double sum = 0;
    for (int s = 0; s < S->coo; s++) {
      int best_t = -1;
      double best = 999;
      for (int t = 0; t < n; t++) {
        if (used[t]) continue;
        uint8_t taken[SP_METAL_MAX_TARGETS] = {0};
        double ss = 0;
        for (int a = 0; a < S->len; a++) {
          int bj = -1;
          double bd = 999;
          for (int j = 0; j < n - 1; j++) {
            if (taken[j]) continue;
            double d = fabs((double)S->sub[s][a] - ang[t][j]);
            if (d < bd) bd = d, bj = j;
          }
          if (bj >= 0) taken[bj] = 1, ss += bd * bd;
        }
        double tot = sqrt(ss);
        if (tot < best) best = tot, best_t = t;
      }
      if (best_t >= 0) used[best_t] = 1;
      sum += best;
    }
    score[g] = sum / S->coo;
    for (int t = 0; t < n; t++) unused[g][t] = !used[t];
  }
  /* stable order by |n - coordination number| */
  int ord[N_METAL_SIGS], no = 0;
  for (int diff = 0; no < N_METAL_SIGS; diff++)
    for (int g = 0; g < N_METAL_SIGS; g++)
      if (abs(n - metal_sigs[g].coo) == diff) ord[no++] = g;
  int pick = -1;
  for (int i = 0; i + 1 < N_METAL_SIGS; i++) {
    int a = ord[i], b = ord[i + 1];
    if (score[b] - score[a] > 0.5) { pick = a; break; }
    if (score[b] < 3.5) { pick = b; break; }
  }
  if (pick < 0) {
    memset(excl, 0, (size_t)n);
    *rms_out = NAN;
    *coo_out = n;
    return SP_GEOM_NONE;
  }
  memcpy(excl, unused[pick], (size_t)n);
  *rms_out = (float)score[pick];
  *coo_out = metal_sigs[pick].coo;
  return metal_sigs[pick].geom;
}

/* may this atom coordinate a metal (PLIP's choice: side-chain O of ASP GLU SER THR TYR, HIS ring N,
 * CYS S, main-chain O; water O; any O/N/S of ligands) */
static int metal_partner(const ctx *c, int32_t k) {
  uint8_t el = EL(c, k);
  if (el != 7 && el != 8 && el != 16) return 0;
  uint16_t f = c->site->atom_flags[k];
  if (f & SP_SITE_ATOM_WATER) return el == 8;
  if (f & (SP_SITE_ATOM_LIGAND | SP_SITE_ATOM_OTHER_LIGAND)) return 1;
  if (!(f & SP_SITE_ATOM_POLYMER)) return 0;
  const char *rn = RNAME(c, k), *an = ANAME(c, k);
  if (!strcmp(an, "O") || !strcmp(an, "OXT")) return 1;
  if (el == 8 && (!strcmp(rn, "ASP") || !strcmp(rn, "GLU") || !strcmp(rn, "SER") || !strcmp(rn, "THR") || !strcmp(rn, "TYR")))
    return 1;
  if (el == 7 && !strcmp(rn, "HIS") && (!strcmp(an, "ND1") || !strcmp(an, "NE2"))) return 1;
  if (el == 16 && !strcmp(rn, "CYS")) return 1;
  if (!is_std_aa(c->w, rn) && (el == 8 || el == 16)) return 1;
  return 0;
}

static int metals(ctx *c) {
  const sp_site *site = c->site;
  sp_chem_ws *w = c->w;
  if (GROW(w->coord, w->cap_coord, site->n_atoms + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  for (size_t m = 0; m < site->n_atoms; m++) {
    if (!sp_element_is_metal(EL(c, (int32_t)m))) continue;
    int lig_metal = m < site->n_ligand;
    if (!lig_metal && !(site->atom_flags[m] & (SP_SITE_ATOM_ION | SP_SITE_ATOM_OTHER_LIGAND | SP_SITE_ATOM_POLYMER)))
      continue;
    /* a site metal matters only when it is within reach of the ligand */
    size_t nc = 0;
    int touches_ligand = 0;
    for (size_t k = 0; k < site->n_atoms; k++) {
      if (k == m || !metal_partner(c, (int32_t)k)) continue;
      if (lig_metal && k < site->n_ligand) continue;
      float d2 = d2f(X(c, (int32_t)m), X(c, (int32_t)k));
      if (d2 > SP_PLIP_METAL_DIST_MAX * SP_PLIP_METAL_DIST_MAX || d2 < SP_PLIP_MIN_DIST * SP_PLIP_MIN_DIST) continue;
      w->coord[nc++] = (int32_t)k;
      if (k < site->n_ligand) touches_ligand = 1;
    }
    if (!lig_metal && !touches_ligand) continue;
    /* PLIP forms no complex when every target is a water oxygen */
    int only_water = 1;
    for (size_t q = 0; q < nc; q++) only_water &= (site->atom_flags[w->coord[q]] & SP_SITE_ATOM_WATER) != 0;
    if (only_water) continue;
    float v[SP_METAL_MAX_TARGETS][3], rms = NAN;
    uint8_t excl[SP_METAL_MAX_TARGETS] = {0};
    int geom = SP_GEOM_NONE, coo = (int)(nc > 255 ? 255 : nc);
    if (nc == 1) {
      rms = 0;
    } else if (nc >= 2 && nc <= SP_METAL_MAX_TARGETS) {
      for (size_t q = 0; q < nc; q++)
        for (int d = 0; d < 3; d++) v[q][d] = X(c, w->coord[q])[d] - X(c, (int32_t)m)[d];
      geom = metal_geometry((const float(*)[3])v, (int)nc, &rms, &coo, excl);
    }
    for (size_t q = 0; q < nc; q++) {
      int32_t k = w->coord[q];
      if (q < SP_METAL_MAX_TARGETS && excl[q]) continue; /* outlier of the chosen geometry (PLIP) */
      if (!lig_metal && k >= (int32_t)site->n_ligand) continue; /* site metal: rows for ligand atoms only */
      sp_interaction ix = {0};
      ix.type = SP_IX_METAL;
      ix.flags = lig_metal ? SP_IXF_LIG_METAL : 0;
      ix.geometry = (uint8_t)geom;
      ix.coordination = (uint8_t)coo;
      ix.lig_atom = lig_metal ? (int32_t)m : k;
      ix.site_atom = lig_metal ? k : (int32_t)m;
      ix.water_atom = -1;
      ix.distance = df(X(c, (int32_t)m), X(c, k));
      ix.angle = rms;
      ix.angle2 = NAN;
      ix.offset = NAN;
      if (add_ix(c, &ix)) return SP_E_NOMEM;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------ interactions */

/* smallest angle neighbour–D···A over the heavy neighbours of donor d; NaN when none known */
static float donor_angle(const ctx *c, int32_t d, int32_t a) {
  float best = NAN;
  if (d < (int32_t)c->site->n_ligand) {
    int32_t i = c->w->lmap[d];
    if (i < 0) return NAN;
    const lnode *n = &c->w->ln[i];
    for (int k = 0; k < n->deg; k++) {
      float ang = angle3(X(c, c->w->nsite[n->nb[k]]), X(c, d), X(c, a));
      if (isnan(best) || ang < best) best = ang;
    }
    return best;
  }
  size_t rs = c->site->atom_res[d];
  int32_t f = c->w->res_first[rs], nn = c->w->res_n[rs];
  for (int32_t k = f; k < f + nn; k++) {
    if (k == d || EL(c, k) == 1) continue;
    if (d2f(X(c, k), X(c, d)) > 1.9f * 1.9f) continue;
    float ang = angle3(X(c, k), X(c, d), X(c, a));
    if (isnan(best) || ang < best) best = ang;
  }
  return best;
}

/* Main-chain amide N of a polymer residue: its H lies in the peptide plane on the bisector opposite
 * C(i-1) and CA (sp2 N, N–H 1.01 Å). Returns 1 and the H position when both neighbours are found
 * (previous residue of the same chain, its C within 2.0 Å of N); 0 otherwise (proline, N-terminus). */
static int amide_h(const ctx *c, int32_t d, float h[3]) {
  const sp_structure *s = c->s;
  uint32_t ai = c->site->atoms[d];
  if (!(c->site->atom_flags[d] & SP_SITE_ATOM_POLYMER) || strcmp(s->atom_name[ai], "N")) return 0;
  uint32_t r = c->site->res[c->site->atom_res[d]].residue;
  const sp_residue *R = &s->residues[r];
  if (!strcmp(R->comp_id, "PRO") || r == 0 || s->residues[r - 1].chain != R->chain) return 0;
  const sp_residue *P = &s->residues[r - 1];
  const float *n = s->xyz[ai], *ca = NULL, *cp = NULL;
  for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++)
    if (!strcmp(s->atom_name[k], "CA") && d2f(s->xyz[k], n) < 2.0f * 2.0f) ca = s->xyz[k];
  for (uint32_t k = P->first_atom; k < P->first_atom + P->n_atoms; k++)
    if (!strcmp(s->atom_name[k], "C") && d2f(s->xyz[k], n) < 2.0f * 2.0f) cp = s->xyz[k];
  if (!ca || !cp) return 0;
  float u[3], len = 0;
  float l1 = df(ca, n), l2 = df(cp, n);
  for (int q = 0; q < 3; q++) u[q] = (n[q] - ca[q]) / l1 + (n[q] - cp[q]) / l2;
  for (int q = 0; q < 3; q++) len += u[q] * u[q];
  len = sqrtf(len);
  if (!(len > 1e-3f)) return 0;
  for (int q = 0; q < 3; q++) h[q] = n[q] + 1.01f * u[q] / len;
  /* a residue of a symmetry image: H was placed in the file's frame; move it with the residue */
  uint16_t img = c->site->res[c->site->atom_res[d]].image;
  if (img && c->site->images && img <= c->site->n_images) {
    const sp_site_image *im = &c->site->images[img - 1];
    float g[3];
    for (int q = 0; q < 3; q++)
      g[q] = (float)(im->rot[q][0] * h[0] + im->rot[q][1] * h[1] + im->rot[q][2] * h[2] + im->trn[q]);
    memcpy(h, g, sizeof g);
  }
  return 1;
}

/* The H of an sp2 side-chain donor of a standard residue, from the residue's own heavy atoms (the
 * construction amide_h uses for the main chain; N–H 1.01 Å):
 *  - ring / chain N with two heavy neighbours (ARG NE, HIS ND1 and NE2, TRP NE1): one H in the plane of
 *    the three atoms, on the bisector opposite both neighbours;
 *  - terminal NH2 of a planar amide or guanidinium (ARG NH1 and NH2, ASN ND2, GLN NE2): two H in the
 *    plane of the group (N, its carbon X, and X's other heavy neighbour Y), at 120° from N→X.
 * These N are sp2 (amide and guanidinium resonance, aromatic rings), so both H lie in the plane of the
 * group: Engh & Huber, Acta Cryst. 1991, A47, 392 (planar groups of the standard residue geometry), as
 * the H-placement tools build them (Reduce, Word et al., J. Mol. Biol. 1999, 285, 1735). The side chains
 * of HIS hold the H on the N asked for (tautomer not decided here). Returns the number of H written to
 * @p h (0: not such a donor, or an atom is missing / degenerate). */
static int sidechain_h(const ctx *c, int32_t d, float h[2][3]) {
  static const struct {
    const char *res, *atom, *x, *y; /* one H: bisector opposite x and y; two H: X = x, Y = y */
    int nh;
  } T[] = {
      {"ARG", "NE", "CD", "CZ", 1},    {"HIS", "ND1", "CG", "CE1", 1}, {"HIS", "NE2", "CD2", "CE1", 1},
      {"TRP", "NE1", "CD1", "CE2", 1}, {"ARG", "NH1", "CZ", "NE", 2},  {"ARG", "NH2", "CZ", "NE", 2},
      {"ASN", "ND2", "CG", "OD1", 2},  {"GLN", "NE2", "CD", "OE1", 2},
  };
  if (!is_polymer_atom(c, d) || EL(c, d) != 7) return 0;
  const char *rn = RNAME(c, d), *an = ANAME(c, d);
  size_t rs = c->site->atom_res[d];
  for (size_t t = 0; t < sizeof T / sizeof *T; t++) {
    if (strcmp(T[t].res, rn) || strcmp(T[t].atom, an)) continue;
    int32_t ix = res_atom(c, rs, T[t].x), iy = res_atom(c, rs, T[t].y);
    if (ix < 0 || iy < 0) return 0;
    const float *n = X(c, d), *x = X(c, ix), *y = X(c, iy);
    if (T[t].nh == 1) {
      if (d2f(n, x) > 2.0f * 2.0f || d2f(n, y) > 2.0f * 2.0f) return 0;
      float u[3], len = 0, l1 = df(x, n), l2 = df(y, n);
      for (int q = 0; q < 3; q++) u[q] = (n[q] - x[q]) / l1 + (n[q] - y[q]) / l2;
      for (int q = 0; q < 3; q++) len += u[q] * u[q];
      len = sqrtf(len);
      if (!(len > 1e-3f)) return 0;
      for (int q = 0; q < 3; q++) h[0][q] = n[q] + 1.01f * u[q] / len;
      return 1;
    }
    if (d2f(n, x) > 2.0f * 2.0f || d2f(x, y) > 2.0f * 2.0f) return 0;
    /* u: unit N→X; v: unit vector in the plane, perpendicular to u, on the side of Y */
    float u[3], v[3], lu = df(x, n), dot = 0, lv = 0;
    for (int q = 0; q < 3; q++) u[q] = (x[q] - n[q]) / lu;
    for (int q = 0; q < 3; q++) dot += (y[q] - x[q]) * u[q];
    for (int q = 0; q < 3; q++) v[q] = (y[q] - x[q]) - dot * u[q];
    for (int q = 0; q < 3; q++) lv += v[q] * v[q];
    lv = sqrtf(lv);
    if (!(lv > 1e-3f)) return 0;
    /* H at 120° from N→X: -cos60 along u, ±sin60 across (cis and trans to Y) */
    for (int q = 0; q < 3; q++) {
      h[0][q] = n[q] + 1.01f * (-0.5f * u[q] + 0.8660254f * v[q] / lv);
      h[1][q] = n[q] + 1.01f * (-0.5f * u[q] - 0.8660254f * v[q] / lv);
    }
    return 2;
  }
  return 0;
}

/* Halogen-bond acceptor Y–O / Y–N / Y–S of a polymer residue, PLIP's find_hal (pharmai/plip,
 * plip/structure/preparation.py): an O, N or S with exactly one heavy neighbour (its Y, returned),
 * so that a lone pair is free (carbonyl and carboxylate O, hydroxyl O, Cys S, terminal N); -1 for
 * any other atom. The main-chain N, bonded also to C of the previous residue (outside this residue's
 * atoms), is an amide N with no lone pair to give: excluded by name; ring N (HIS, TRP) and MET SD
 * have two neighbours in the residue. */
static int32_t halogen_acceptor(const ctx *c, int32_t a) {
  uint8_t el = EL(c, a);
  if (el != 7 && el != 8 && el != 16) return -1;
  if (el == 7 && !strcmp(ANAME(c, a), "N")) return -1;
  size_t rs = c->site->atom_res[a];
  int32_t f = c->w->res_first[rs], nn = c->w->res_n[rs], y = -1, n = 0;
  for (int32_t k = f; k < f + nn; k++)
    if (k != a && EL(c, k) != 1 && d2f(X(c, k), X(c, a)) < 1.9f * 1.9f) y = k, n++;
  return n == 1 ? y : -1;
}

/* PLIP's refine_hbonds_ldon / refine_hbonds_pdon (pharmai/plip, plip/structure/preparation.py): each
 * donor atom keeps one H-bond. PLIP keeps the one with the larger D–H···A angle; without hydrogen
 * positions sitepack keeps the shortest D···A (ties: the larger heavy-atom angle), the criterion of
 * PLIP's RDKit port for the same step. PLIP's other refinement, dropping an H-bond whose donor and
 * acceptor belong to the two groups of a salt bridge, is not applied: a charge-assisted H-bond is
 * reported as both (docs/sites.md, "PLIP agreement"). */
static void refine_hbonds(ctx *c) {
  sp_site_chem *o = c->out;
  for (size_t i = 0; i < o->n_ix; i++) {
    sp_interaction *h = &o->ix[i];
    if (h->type != SP_IX_HBOND) continue;
    int32_t don = (h->flags & SP_IXF_LIG_DONOR) ? h->lig_atom : h->site_atom;
    for (size_t j = i + 1; j < o->n_ix; j++) {
      sp_interaction *g = &o->ix[j];
      if (g->type != SP_IX_HBOND || ((g->flags & SP_IXF_LIG_DONOR) ? g->lig_atom : g->site_atom) != don) continue;
      float ah = isnan(h->angle) ? -1 : h->angle, ag = isnan(g->angle) ? -1 : g->angle;
      int g_better = g->distance < h->distance || (g->distance == h->distance && ag > ah);
      if (g_better) {
        *h = *g; /* keep the better one in the earlier slot */
      }
      g->type = 0;
    }
  }
  size_t n = 0;
  for (size_t i = 0; i < o->n_ix; i++)
    if (o->ix[i].type) o->ix[n++] = o->ix[i];
  o->n_ix = n;
}

/* PLIP's pi-stacking test of a ligand ring and a site ring: SP_IX_PI_STACK_P / _T, 0 when neither;
 * centre distance, angle between the normals (0..90) and offset through the pointers */
static int stack_type(const ring *L, const ring *P, float *d_out, float *ang_out, float *off_out) {
  float d = df(L->c, P->c);
  if (d <= SP_PLIP_MIN_DIST || d > SP_PLIP_PISTACK_DIST_MAX) return 0;
  float ang = vangle(L->nrm, P->nrm);
  if (ang > 90) ang = 180 - ang;
  float off = fminf(plane_offset(L->c, L->nrm, P->c), plane_offset(P->c, P->nrm, L->c));
  *d_out = d;
  *ang_out = ang;
  *off_out = off;
  if (ang <= SP_PLIP_PISTACK_ANG_DEV && off <= SP_PLIP_PISTACK_OFFSET_MAX) return SP_IX_PI_STACK_P;
  if (fabsf(90 - ang) <= SP_PLIP_PISTACK_ANG_DEV && off <= SP_PLIP_PISTACK_OFFSET_MAX) return SP_IX_PI_STACK_T;
  return 0;
}

/* PLIP's extra test for a ligand tertiary amine cation (detection.py pication, fgroup 'tertamine'): the
 * normal of the plane through the N's three heavy neighbours (the axis of its N–H+) must lie within 30°
 * of the ring normal, so that the cation faces the ring rather than reaching it "through" the ligand.
 * Returns 1 when @p G is not such an amine or the angle is within 30°. (PLIP then leaves the loop over
 * the charged groups of that ring, skipping the others: not reproduced.) */
static int amine_faces_ring(const ctx *c, const sp_titr_group *G, const ring *R) {
  if (!G->ligand || G->kind != SP_TG_L_AMINE) return 1;
  int32_t i = c->w->lmap[G->head];
  if (i < 0 || c->w->ln[i].deg != 3) return 1;
  const lnode *n = &c->w->ln[i];
  const float *p0 = X(c, c->w->nsite[n->nb[0]]), *p1 = X(c, c->w->nsite[n->nb[1]]), *p2 = X(c, c->w->nsite[n->nb[2]]);
  float u[3], v[3], m[3];
  for (int q = 0; q < 3; q++) u[q] = p1[q] - p0[q], v[q] = p0[q] - p2[q];
  m[0] = u[1] * v[2] - u[2] * v[1];
  m[1] = u[2] * v[0] - u[0] * v[2];
  m[2] = u[0] * v[1] - u[1] * v[0];
  float ang = vangle(R->nrm, m);
  if (isnan(ang)) return 1;
  if (ang > 90) ang = 180 - ang;
  return ang <= 30.0f;
}

/* does ligand ring @p R stack with a ring of the site residue that holds atom @p k */
static int stacks_with_residue(const ctx *c, const ring *R, int32_t k) {
  size_t rs = c->site->atom_res[k];
  for (size_t q = 0; q < c->w->n_rings; q++) {
    const ring *P = &c->w->rings[q];
    float d, ang, off;
    if (!P->ligand && c->site->atom_res[P->atoms[0]] == rs && stack_type(R, P, &d, &ang, &off)) return 1;
  }
  return 0;
}

static int interactions(ctx *c) {
  const sp_site *site = c->site;
  sp_site_chem *o = c->out;
  sp_chem_ws *w = c->w;
  size_t ncand = 0;
  if (GROW(w->cand, w->cap_cand, site->n_atoms + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  for (size_t k = site->n_ligand; k < site->n_atoms; k++)
    if ((site->atom_flags[k] & SP_SITE_ATOM_WITHIN_CUTOFF) && EL(c, (int32_t)k) != 1) w->cand[ncand++] = (int32_t)k;
  {
    int bad = 0;
    size_t c0 = w->cap_cand_xyz;
    bad |= grow((void **)&w->cand_x, &c0, ncand + 1, sizeof(float));
    c0 = w->cap_cand_xyz;
    bad |= grow((void **)&w->cand_y, &c0, ncand + 1, sizeof(float));
    c0 = w->cap_cand_xyz;
    bad |= grow((void **)&w->cand_z, &c0, ncand + 1, sizeof(float));
    c0 = w->cap_cand_xyz;
    bad |= grow((void **)&w->cand_r, &c0, ncand + 1, sizeof(float));
    bad |= GROW(w->cand_hit, w->cap_cand_hit, ncand + 1);
    if (bad) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
    w->cap_cand_xyz = c0;
  }
  for (size_t q = 0; q < ncand; q++) {
    const float *p = X(c, w->cand[q]);
    w->cand_x[q] = p[0], w->cand_y[q] = p[1], w->cand_z[q] = p[2];
    w->cand_r[q] = sp_element_vdw_radius(EL(c, w->cand[q]));
  }
  /* contacts + atom-pair interactions */
  for (size_t li = 0; li < site->n_ligand; li++) {
    if (w->lmap[li] < 0) continue;
    const float *a = X(c, (int32_t)li);
    uint8_t ela = EL(c, (int32_t)li);
    float ra = sp_element_vdw_radius(ela);
    uint16_t fa = o->atom_chem[li];
    /* the candidates in contact or within the H-bond distance (the only ones the loop below acts on);
     * the same float expressions as there */
    size_t nhit = 0;
    for (size_t q = 0; q < ncand; q++) {
      float x = a[0] - w->cand_x[q], y = a[1] - w->cand_y[q], z = a[2] - w->cand_z[q];
      float d2 = x * x + y * y + z * z;
      float lim = ra + w->cand_r[q] + SP_CONTACT_TOLERANCE;
      w->cand_hit[nhit] = (int32_t)q;
      nhit += (d2 <= lim * lim) | (d2 <= SP_PLIP_HBOND_DIST_MAX * SP_PLIP_HBOND_DIST_MAX);
    }
    for (size_t h = 0; h < nhit; h++) {
      const size_t q = (size_t)w->cand_hit[h];
      int32_t k = w->cand[q];
      float d2 = d2f(a, X(c, k));
      float lim = ra + w->cand_r[q] + SP_CONTACT_TOLERANCE;
      if (d2 <= lim * lim) {
        o->atom_chem[k] |= SP_CHEM_CONTACT;
        o->res_contact[site->atom_res[k]] = 1;
      }
      if (d2 > SP_PLIP_HBOND_DIST_MAX * SP_PLIP_HBOND_DIST_MAX || d2 <= SP_PLIP_MIN_DIST * SP_PLIP_MIN_DIST) continue;
      if (!is_polymer_atom(c, k)) continue;
      float d = sqrtf(d2);
      uint16_t fk = o->atom_chem[k];
      sp_interaction ix = {0};
      ix.lig_atom = (int32_t)li;
      ix.site_atom = k;
      ix.water_atom = -1;
      ix.distance = d;
      ix.angle = ix.angle2 = ix.offset = NAN;
      if ((fa & SP_CHEM_HYDROPHOBIC) && (fk & SP_CHEM_HYDROPHOBIC) && d <= SP_PLIP_HYDROPH_DIST_MAX) {
        ix.type = SP_IX_HYDROPHOBIC;
        if (add_ix(c, &ix)) return SP_E_NOMEM;
      }
      if ((fa & SP_CHEM_DONOR) && (fk & SP_CHEM_ACCEPTOR)) {
        float ang = donor_angle(c, (int32_t)li, k);
        if (isnan(ang) || ang >= SP_HBOND_HEAVY_ANGLE_MIN) {
          ix.type = SP_IX_HBOND;
          ix.flags = SP_IXF_LIG_DONOR;
          ix.angle = ang;
          if (add_ix(c, &ix)) return SP_E_NOMEM;
        }
      }
      if ((fa & SP_CHEM_ACCEPTOR) && (fk & SP_CHEM_DONOR)) {
        float ang = donor_angle(c, k, (int32_t)li), hpos[2][3];
        /* main-chain amide N and sp2 side-chain N: H placed from the residue's atoms, PLIP's
         * D–H···A > 100° with any of them; other donors: the heavy-atom angle */
        int nhp = amide_h(c, k, hpos[0]) ? 1 : sidechain_h(c, k, hpos), ok = 0;
        for (int hq = 0; hq < nhp; hq++) ok |= angle3(X(c, k), hpos[hq], a) > SP_PLIP_HBOND_DON_ANGLE_MIN;
        if (!nhp) ok = isnan(ang) || ang >= SP_HBOND_HEAVY_ANGLE_MIN;
        if (ok) {
          ix.type = SP_IX_HBOND;
          ix.flags = SP_IXF_LIG_ACCEPTOR;
          ix.angle = ang;
          if (add_ix(c, &ix)) return SP_E_NOMEM;
        }
      }
      int32_t y;
      if ((fa & SP_CHEM_HALOGEN_DONOR) && d <= SP_PLIP_HALOGEN_DIST_MAX && (y = halogen_acceptor(c, k)) >= 0) {
        int32_t cx = w->nsite[w->ln[w->lmap[li]].nb[0]];
        float a1 = angle3(X(c, cx), a, X(c, k));
        float a2 = angle3(a, X(c, k), X(c, y));
        if (fabsf(a1 - SP_PLIP_HALOGEN_DON_ANGLE) <= SP_PLIP_HALOGEN_ANGLE_DEV &&
            fabsf(a2 - SP_PLIP_HALOGEN_ACC_ANGLE) <= SP_PLIP_HALOGEN_ANGLE_DEV) {
          ix.type = SP_IX_HALOGEN;
          ix.flags = 0;
          ix.angle = a1;
          ix.angle2 = a2;
          if (add_ix(c, &ix)) return SP_E_NOMEM;
        }
      }
    }
  }
  /* salt bridges and pi-cation: groups */
  for (size_t gi = 0; gi < o->n_groups; gi++) {
    const sp_titr_group *L = &o->groups[gi];
    if (!L->ligand) continue;
    for (size_t gj = 0; gj < o->n_groups; gj++) {
      const sp_titr_group *P = &o->groups[gj];
      if (P->ligand) continue;
      int lp = group_sign(L, +1) && group_sign(P, -1), ln_ = group_sign(L, -1) && group_sign(P, +1);
      if (!lp && !ln_) continue;
      float d = df(L->center, P->center);
      if (d <= SP_PLIP_MIN_DIST || d > SP_PLIP_SALTBRIDGE_DIST_MAX) continue;
      sp_interaction ix = {0};
      ix.type = SP_IX_SALT_BRIDGE;
      ix.flags = (uint8_t)((lp ? SP_IXF_LIG_POSITIVE : SP_IXF_LIG_NEGATIVE) |
                           (L->ambiguous || P->ambiguous ? SP_IXF_AMBIGUOUS : 0));
      ix.lig_atom = L->head;
      ix.site_atom = P->head;
      ix.water_atom = -1;
      ix.distance = d;
      ix.angle = ix.angle2 = ix.offset = NAN;
      if (add_ix(c, &ix)) return SP_E_NOMEM;
    }
  }
  for (size_t r = 0; r < w->n_rings; r++) {
    const ring *R = &w->rings[r];
    for (size_t g = 0; g < o->n_groups; g++) {
      const sp_titr_group *G = &o->groups[g];
      if (G->ligand == R->ligand || !group_sign(G, +1)) continue;
      float d = df(R->c, G->center);
      if (d <= SP_PLIP_MIN_DIST || d > SP_PLIP_PICATION_DIST_MAX) continue;
      float off = plane_offset(R->c, R->nrm, G->center);
      if (off > SP_PLIP_PISTACK_OFFSET_MAX) continue;
      /* a histidine whose ring stacks with this ligand ring: the stacking only, not also a pi-cation
       * of its charged ring (PLIP refine_pi_cation_laro; the residue test as in PLIP's later
       * refine_pication, pharmai/plip plip/structure/preparation.py) */
      if (R->ligand && G->kind == SP_TG_HIS && stacks_with_residue(c, R, G->head)) continue;
      if (!R->ligand && !amine_faces_ring(c, G, R)) continue;
      sp_interaction ix = {0};
      ix.type = SP_IX_PI_CATION;
      ix.flags = (uint8_t)((R->ligand ? SP_IXF_LIG_RING : SP_IXF_LIG_POSITIVE) | (G->ambiguous ? SP_IXF_AMBIGUOUS : 0));
      ix.lig_atom = R->ligand ? R->atoms[0] : G->head;
      ix.site_atom = R->ligand ? G->head : R->atoms[0];
      ix.water_atom = -1;
      ix.distance = d;
      ix.angle = ix.angle2 = NAN;
      ix.offset = off;
      if (add_ix(c, &ix)) return SP_E_NOMEM;
    }
  }
  /* pi-stacking */
  for (size_t r = 0; r < w->n_rings; r++) {
    const ring *L = &w->rings[r];
    if (!L->ligand) continue;
    for (size_t q = 0; q < w->n_rings; q++) {
      const ring *P = &w->rings[q];
      if (P->ligand) continue;
      float d, ang, off;
      int type = stack_type(L, P, &d, &ang, &off);
      if (!type) continue;
      sp_interaction ix = {0};
      ix.type = (uint8_t)type;
      ix.lig_atom = L->atoms[0];
      ix.site_atom = P->atoms[0];
      ix.water_atom = -1;
      ix.distance = d;
      ix.angle = ang;
      ix.angle2 = NAN;
      ix.offset = off;
      if (add_ix(c, &ix)) return SP_E_NOMEM;
    }
  }
  /* water bridges: ligand acceptor – water – site donor, ligand donor – water – site acceptor */
  for (size_t k = site->n_ligand; k < site->n_atoms; k++) {
    if (!(site->atom_flags[k] & SP_SITE_ATOM_WATER) || EL(c, (int32_t)k) != 8) continue;
    const float *wo = X(c, (int32_t)k);
    for (size_t li = 0; li < site->n_ligand; li++) {
      uint16_t fa = o->atom_chem[li];
      if (!(fa & (SP_CHEM_DONOR | SP_CHEM_ACCEPTOR)) || w->lmap[li] < 0) continue;
      float d1 = df(X(c, (int32_t)li), wo);
      if (d1 < SP_PLIP_WATER_BRIDGE_MINDIST || d1 > SP_PLIP_WATER_BRIDGE_MAXDIST) continue;
      for (size_t q = 0; q < site->n_atoms; q++) {
        if (q < site->n_ligand || !is_polymer_atom(c, (int32_t)q)) continue;
        uint16_t fk = o->atom_chem[q];
        int lacc = (fa & SP_CHEM_ACCEPTOR) && (fk & SP_CHEM_DONOR);
        int ldon = (fa & SP_CHEM_DONOR) && (fk & SP_CHEM_ACCEPTOR);
        if (!lacc && !ldon) continue;
        float d2 = df(X(c, (int32_t)q), wo);
        if (d2 < SP_PLIP_WATER_BRIDGE_MINDIST || d2 > SP_PLIP_WATER_BRIDGE_MAXDIST) continue;
        sp_interaction ix = {0};
        ix.type = SP_IX_WATER_BRIDGE;
        ix.flags = (uint8_t)(lacc ? SP_IXF_LIG_ACCEPTOR : SP_IXF_LIG_DONOR);
        ix.lig_atom = (int32_t)li;
        ix.site_atom = (int32_t)q;
        ix.water_atom = (int32_t)k;
        ix.distance = d1;
        ix.angle = angle3(X(c, (int32_t)li), wo, X(c, (int32_t)q));
        ix.angle2 = d2;
        ix.offset = NAN;
        if (add_ix(c, &ix)) return SP_E_NOMEM;
      }
    }
  }
  refine_hbonds(c);
  return metals(c);
}

/* ------------------------------------------------------------------ SASA */

#define ENV_CELL 4.0f
#define ENV_BIAS (1 << 20)

static inline int64_t env_cell(float v) {
  const double t = (double)v * (1.0 / ENV_CELL); /* = v / ENV_CELL exactly: a power of two */
  if (!(t >= -ENV_BIAS)) return 0;                      /* floor(t) < -ENV_BIAS: clamped (v is finite) */
  if (t >= ENV_BIAS - 2) return 2 * (int64_t)ENV_BIAS - 2; /* floor(t) >= ENV_BIAS - 2 */
  int64_t q = (int64_t)t; /* floor(t) without a libm call */
  q -= t < (double)q;
  return q + ENV_BIAS;
}
static int64_t env_pack(int64_t x, int64_t y, int64_t z) { return (x << 42) | (y << 21) | z; }

static int cmp_env_pair(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* sort w->env_tmp[0..n) by key: a stable counting sort over the dense cell range of the model's box
 * (same order as sorting the packed keys: x, then y, then z), a comparison sort when the box is
 * huge or sparse (an outlier far away) */
static int env_sort(sp_chem_ws *w, size_t n) {
  if (n < 2) return 0;
  const int64_t M = ((int64_t)1 << 21) - 1;
  int64_t lo[3] = {M, M, M}, hi[3] = {0, 0, 0};
  for (size_t k = 0; k < n; k++)
    for (int d = 0; d < 3; d++) {
      int64_t v = (w->env_tmp[k].key >> (42 - 21 * d)) & M;
      if (v < lo[d]) lo[d] = v;
      if (v > hi[d]) hi[d] = v;
    }
  const uint64_t nx = (uint64_t)(hi[0] - lo[0] + 1), ny = (uint64_t)(hi[1] - lo[1] + 1),
                 nz = (uint64_t)(hi[2] - lo[2] + 1);
  const uint64_t lim = 4 * (uint64_t)n + 4096;
  if (nx > lim || ny > lim || nz > lim || nx * ny > lim || nx * ny * nz > lim) {
    qsort(w->env_tmp, n, sizeof *w->env_tmp, cmp_env_pair);
    return 0;
  }
  const size_t R = (size_t)(nx * ny * nz);
  if (GROW(w->env_count, w->cap_env_count, R + 1) || GROW(w->env_tmp2, w->cap_env_tmp2, n + 1)) return -1;
  memset(w->env_count, 0, (R + 1) * sizeof *w->env_count);
  for (size_t k = 0; k < n; k++) {
    const int64_t key = w->env_tmp[k].key;
    const size_t cell = (size_t)((((key >> 42) & M) - lo[0]) * (int64_t)ny * (int64_t)nz +
                                 (((key >> 21) & M) - lo[1]) * (int64_t)nz + ((key & M) - lo[2]));
    w->env_tmp[k].pad = (uint32_t)cell;
    w->env_count[cell + 1]++;
  }
  for (size_t r = 0; r < R; r++) w->env_count[r + 1] += w->env_count[r];
  for (size_t k = 0; k < n; k++) w->env_tmp2[w->env_count[w->env_tmp[k].pad]++] = w->env_tmp[k];
  struct env_pair *t = w->env_tmp;
  size_t ct = w->cap_env_tmp;
  w->env_tmp = w->env_tmp2, w->cap_env_tmp = w->cap_env_tmp2;
  w->env_tmp2 = t, w->cap_env_tmp2 = ct;
  return 0;
}

/* fingerprint of the model's atoms (16 samples): a structure object re-filled is not served a stale list */
static void env_fingerprint(const sp_structure *s, const sp_model *m, float fp[16][3]) {
  for (size_t q = 0; q < 16; q++) {
    size_t a = m->n_atoms ? m->first_atom + (size_t)m->n_atoms * q / 16 : 0;
    for (int d = 0; d < 3; d++) fp[q][d] = m->n_atoms ? s->xyz[a][d] : 0.0f;
  }
}

/* Cell box [c0, c1] of what burial() reads for a ligand of bounding box [lo, hi] and largest radius rlig
 * (the same float expressions) */
static void env_query_box(const float lo[3], const float hi[3], float rlig, float rmax, float probe, int64_t c0[3],
                          int64_t c1[3]) {
  const float reach = rlig + rmax + 2.0f * probe;
  for (int d = 0; d < 3; d++) c0[d] = env_cell(lo[d] - reach), c1[d] = env_cell(hi[d] + reach);
}

/* Mark the cells the SASA queries of the ligands of model mi read: for each ligand, the box of all its
 * atoms (H included: a superset of its heavy atoms') with its largest radius (H included: not smaller),
 * rmax not below the model's largest candidate radius. Every step is monotone, so each query box of
 * burial() lies inside the marked box of its ligand (burial() checks it all the same).
 * 0: marked; 1: no mask (too large a box: keep every atom); -1: out of memory. */
static int env_mark(sp_chem_ws *w, const sp_structure *s, const sp_survey *sv, size_t mi, float rmax, float probe,
                    size_t n_env) {
  const sp_model *m = &s->models[mi];
  const size_t m_lo = m->first_atom, m_hi = (size_t)m->first_atom + m->n_atoms;
  int64_t blo[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, bhi[3] = {INT64_MIN, INT64_MIN, INT64_MIN};
  for (int pass = 0; pass < 2; pass++) {
    const int64_t ny = w->env_mdim[1], nz = w->env_mdim[2];
    for (size_t l = 0; l < sv->n_ligands; l++) {
      const sp_ligand *L = &sv->ligands[l];
      if (L->model != mi) continue;
      float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, rlig = 0;
      for (size_t k = 0; k < L->n_atoms; k++) {
        uint32_t a = sv->atom_refs[(size_t)L->atom_first + k];
        if (a < m_lo || a >= m_hi) continue;
        const float *p = s->xyz[a];
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
        if (w->vdw[s->element[a]] > rlig) rlig = w->vdw[s->element[a]];
        for (int d = 0; d < 3; d++) {
          if (p[d] < lo[d]) lo[d] = p[d];
          if (p[d] > hi[d]) hi[d] = p[d];
        }
      }
      if (!(lo[0] <= hi[0])) continue;
      int64_t c0[3], c1[3];
      env_query_box(lo, hi, rlig, rmax, probe, c0, c1);
      if (pass == 0) {
        for (int d = 0; d < 3; d++) {
          if (c0[d] < blo[d]) blo[d] = c0[d];
          if (c1[d] > bhi[d]) bhi[d] = c1[d];
        }
        continue;
      }
      for (int64_t x = c0[0]; x <= c1[0]; x++)
        for (int64_t y = c0[1]; y <= c1[1]; y++)
          memset(w->env_mask + (size_t)((c0[2] - w->env_mlo[2]) + nz * ((y - w->env_mlo[1]) + ny * (x - w->env_mlo[0]))),
                 1, (size_t)(c1[2] - c0[2] + 1));
    }
    if (pass == 0) {
      if (blo[0] > bhi[0]) { /* no ligand with a finite atom: nothing is read */
        for (int d = 0; d < 3; d++) w->env_mlo[d] = 0, w->env_mdim[d] = 1;
        if (GROW(w->env_mask, w->cap_env_mask, 1)) return -1;
        w->env_mask[0] = 0;
        return 0;
      }
      const uint64_t lim = 4 * (uint64_t)n_env + 4096;
      uint64_t cells = 1;
      for (int d = 0; d < 3; d++) {
        uint64_t nd = (uint64_t)(bhi[d] - blo[d] + 1);
        if (nd > lim || blo[d] <= 0 || bhi[d] >= 2 * (int64_t)ENV_BIAS - 2) return 1; /* clamped cells: no mask */
        cells *= nd;
        if (cells > lim) return 1;
        w->env_mlo[d] = blo[d];
        w->env_mdim[d] = (int64_t)nd;
      }
      if (GROW(w->env_mask, w->cap_env_mask, (size_t)cells)) return -1;
      memset(w->env_mask, 0, (size_t)cells);
    }
  }
  return 0;
}

/* index of cell (x, y, z) in the mask (x-major: the order of the packed keys), or -1 outside it */
static inline int64_t env_mask_index(const sp_chem_ws *w, int64_t x, int64_t y, int64_t z) {
  x -= w->env_mlo[0], y -= w->env_mlo[1], z -= w->env_mlo[2];
  if (x < 0 || y < 0 || z < 0 || x >= w->env_mdim[0] || y >= w->env_mdim[1] || z >= w->env_mdim[2]) return -1;
  return z + w->env_mdim[2] * (y + w->env_mdim[1] * x);
}

/* the SASA environment of model @p mi, cached in the workspace: the candidate atoms (chosen-conformer heavy
 * non-water atoms with finite coordinates) in the cells the model's ligands read, or with @p full all of them */
static int env_build(ctx *c, size_t mi, float probe, int full) {
  const sp_structure *s = c->s;
  const sp_survey *sv = c->sv;
  sp_chem_ws *w = c->w;
  const sp_model *m = &s->models[mi];
  float fp[16][3];
  env_fingerprint(s, m, fp);
  if (w->env_s == s && w->env_sv == sv && w->env_model == mi && w->env_first == m->first_atom &&
      w->env_natoms == m->n_atoms && !memcmp(fp, w->env_fp, sizeof fp) && (w->env_full || !full))
    return 0;
  w->env_s = NULL;
  size_t n = 0;
  const size_t a0 = m->first_atom, a1 = (size_t)m->first_atom + m->n_atoms;
  if (GROW(w->env_tmp, w->cap_env_tmp, (size_t)m->n_atoms + 1))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  /* the mask is marked with the largest heavy-atom radius of the model (not smaller than the candidates'
     largest, rmax below, which the queries use) */
  float rbound = 0;
  int mk = 1;
  if (!full) {
    uint8_t seen[256] = {0};
    for (size_t a = a0; a < a1; a++) seen[s->element[a]] = 1;
    for (int el = 0; el < 256; el++)
      if (seen[el] && el != 1 && w->vdw[el] > rbound) rbound = w->vdw[el];
    mk = env_mark(w, s, sv, mi, rbound, probe, m->n_atoms);
    if (mk < 0) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  }
  float rmax = 0;
  const int64_t lx = w->env_mlo[0], ly = w->env_mlo[1], lz = w->env_mlo[2];
  const uint64_t nx = (uint64_t)w->env_mdim[0], ny = (uint64_t)w->env_mdim[1], nz = (uint64_t)w->env_mdim[2];
  const double ox = (double)(lx - ENV_BIAS), oy = (double)(ly - ENV_BIAS), oz = (double)(lz - ENV_BIAS);
  const double fx = (double)nx, fy = (double)ny, fz = (double)nz;
  if (mk == 0) { /* counting sort over the mask's cells (x-major: the packed keys' order), counted in the pass */
    if (GROW(w->env_count, w->cap_env_count, (size_t)(nx * ny * nz) + 1))
      return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
    memset(w->env_count, 0, ((size_t)(nx * ny * nz) + 1) * sizeof *w->env_count);
  }
  for (size_t a = a0; a < a1; a++) {
    uint8_t el = s->element[a];
    if (el == 1) continue;
    const float *p = s->xyz[a];
    const float r = w->vdw[el];
    if (r > rmax && isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) &&
        sv->res_role[s->atom_residue[a]] != SP_ROLE_WATER && sp_survey_atom_chosen(s, sv, a))
      rmax = r; /* the whole model's largest candidate radius, whatever the mask keeps */
    int64_t cx, cy, cz;
    uint64_t idx = 0;
    if (mk == 0) {
      /* v / ENV_CELL - (mask corner - ENV_BIAS): exact (a power of two, then integers far below 2^53); at or
         above 0 inside the mask, where truncation is floor, so x + lx = env_cell(v) (the mask avoids the
         clamped cells); NaN and infinities fail the range test */
      const double tx = (double)p[0] * (1.0 / ENV_CELL) - ox, ty = (double)p[1] * (1.0 / ENV_CELL) - oy,
                   tz = (double)p[2] * (1.0 / ENV_CELL) - oz;
      if (!(tx >= 0 && tx < fx && ty >= 0 && ty < fy && tz >= 0 && tz < fz)) continue;
      const uint64_t x = (uint64_t)tx, y = (uint64_t)ty, z = (uint64_t)tz;
      idx = z + nz * (y + ny * x);
      if (!w->env_mask[idx]) continue;
      cx = (int64_t)x + lx, cy = (int64_t)y + ly, cz = (int64_t)z + lz;
    } else {
      if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
      cx = env_cell(p[0]), cy = env_cell(p[1]), cz = env_cell(p[2]);
    }
    if (sv->res_role[s->atom_residue[a]] == SP_ROLE_WATER || !sp_survey_atom_chosen(s, sv, a)) continue;
    w->env_tmp[n].key = env_pack(cx, cy, cz);
    w->env_tmp[n].atom = (uint32_t)a;
    w->env_tmp[n].pad = (uint32_t)idx;
    if (mk == 0) w->env_count[idx + 1]++;
    n++;
  }
  w->env_full = mk != 0;
  if (GROW(w->env_key, w->cap_env, n + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  size_t cap = w->cap_env;
  float(*x)[3] = realloc(w->env_xyz, cap * sizeof *x);
  if (x) w->env_xyz = x;
  float *r = realloc(w->env_rad, cap * sizeof *r);
  if (r) w->env_rad = r;
  uint32_t *re = realloc(w->env_res, cap * sizeof *re);
  if (re) w->env_res = re;
  if (!x || !r || !re) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  if (mk == 0) { /* stable scatter in key order; env_count[q] then ends cell q (burial() reads it) */
    for (size_t q = 0; q < (size_t)(nx * ny * nz); q++) w->env_count[q + 1] += w->env_count[q];
    for (size_t k = 0; k < n; k++) {
      const uint32_t a = w->env_tmp[k].atom, j = w->env_count[w->env_tmp[k].pad]++;
      w->env_key[j] = w->env_tmp[k].key;
      memcpy(w->env_xyz[j], s->xyz[a], sizeof w->env_xyz[j]);
      w->env_rad[j] = w->vdw[s->element[a]];
      w->env_res[j] = s->atom_residue[a];
    }
  } else {
    if (env_sort(w, n)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
    for (size_t k = 0; k < n; k++) {
      uint32_t a = w->env_tmp[k].atom;
      w->env_key[k] = w->env_tmp[k].key;
      memcpy(w->env_xyz[k], s->xyz[a], sizeof w->env_xyz[k]);
      w->env_rad[k] = w->vdw[s->element[a]];
      w->env_res[k] = s->atom_residue[a];
    }
  }
  w->env_n = n;
  w->env_rmax = rmax;
  w->env_s = s;
  w->env_sv = sv;
  w->env_model = mi;
  w->env_first = m->first_atom;
  w->env_natoms = m->n_atoms;
  memcpy(w->env_fp, fp, sizeof fp);
  return 0;
}

static int burial(ctx *c, const sp_chem_opts *opt, size_t lig) {
  const sp_survey *sv = c->sv;
  sp_site_chem *o = c->out;
  sp_chem_ws *w = c->w;
  size_t nl = c->nl;
  o->sasa_free_total = o->sasa_complex_total = 0;
  if (nl == 0) return 0;
  const float probe = opt->probe;
  int rc = env_build(c, sv->ligands[lig].model, probe, 0);
  if (rc) return rc;
  if (!w->sasa && !(w->sasa = sp_sasa_ws_new())) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  if (GROW(w->sx, w->cap_sx, nl + 1) || GROW(w->sr, w->cap_sr, nl + 1))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  float rlig = 0;
  for (size_t i = 0; i < nl; i++) {
    const float *p = X(c, w->nsite[i]);
    memcpy(w->sx[i], p, sizeof w->sx[i]);
    w->sr[i] = sp_element_vdw_radius(w->ln[i].el);
    if (w->sr[i] > rlig) rlig = w->sr[i];
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
    for (int d = 0; d < 3; d++) {
      if (p[d] < lo[d]) lo[d] = p[d];
      if (p[d] > hi[d]) hi[d] = p[d];
    }
  }
  size_t n = nl;
  if (lo[0] <= hi[0]) {
    /* every atom that can occlude a ligand atom's probe sphere: d < r_lig + r_env + 2 probe */
    const float reach = rlig + w->env_rmax + 2.0f * probe;
    int64_t c0[3], c1[3];
    for (int d = 0; d < 3; d++) c0[d] = env_cell(lo[d] - reach), c1[d] = env_cell(hi[d] + reach);
    /* the environment holds the cells read by the ligands the survey had at build time; a box outside
       them (another site or survey passed) gets every atom of the model */
    int cov = 1;
    for (int64_t cx = c0[0]; cx <= c1[0] && cov && !w->env_full; cx++)
      for (int64_t cy = c0[1]; cy <= c1[1] && cov; cy++) {
        const int64_t i0 = env_mask_index(w, cx, cy, c0[2]);
        cov = i0 >= 0 && env_mask_index(w, cx, cy, c1[2]) >= 0 &&
              !memchr(w->env_mask + i0, 0, (size_t)(c1[2] - c0[2] + 1));
      }
    if (!cov && (rc = env_build(c, sv->ligands[lig].model, probe, 1))) return rc;
    if (GROW(w->sx, w->cap_sx, nl + w->env_n + 1) || GROW(w->sr, w->cap_sr, nl + w->env_n + 1))
      return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
    for (int64_t cx = c0[0]; cx <= c1[0]; cx++)
      for (int64_t cy = c0[1]; cy <= c1[1]; cy++) {
        int64_t k0 = env_pack(cx, cy, c0[2]), k1 = env_pack(cx, cy, c1[2]);
        size_t a = 0, b = w->env_n, end = w->env_n;
        if (!w->env_full) {
          /* masked: the column's cells are consecutive in the mask (covered, above); env_count[q] is the end
             of cell q's atoms, so [a, b) is the atoms of cells c0[2] .. c1[2] */
          const int64_t i0 = env_mask_index(w, cx, cy, c0[2]), i1 = i0 + (c1[2] - c0[2]);
          a = i0 ? w->env_count[i0 - 1] : 0;
          end = w->env_count[i1];
        } else {
          while (a < b) {
            size_t mid = (a + b) / 2;
            if (w->env_key[mid] < k0) a = mid + 1;
            else b = mid;
          }
        }
        for (size_t k = a; k < end && w->env_key[k] <= k1; k++) {
          const float *p = w->env_xyz[k];
          if (!(p[0] >= lo[0] - reach && p[0] <= hi[0] + reach && p[1] >= lo[1] - reach && p[1] <= hi[1] + reach &&
                p[2] >= lo[2] - reach && p[2] <= hi[2] + reach))
            continue;
          if (sv->res_ligand[w->env_res[k]] == (int32_t)lig) continue;
          memcpy(w->sx[n], p, sizeof w->sx[n]);
          w->sr[n] = w->env_rad[k];
          n++;
        }
      }
  }
  if (GROW(w->so, w->cap_so, 2 * nl + 2))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  for (size_t i = 0; i < n; i++)
    if (!(w->sr[i] > 0.0f) || !isfinite(w->sr[i]))
      return sp_err_set(c->err, SP_E_INVALID, "site chemistry: atom with radius %g", (double)w->sr[i]);
  float *f = w->so, *cx = w->so + nl;
  if (sp_sasa_two(w->sasa, SP_SASA_ISA_AUTO, nl, n, (const float(*)[3])w->sx, w->sr, probe, opt->sasa_points, f, cx))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory (SASA, %zu atoms)", n);
  for (size_t i = 0; i < nl; i++) {
    o->sasa_free[w->nsite[i]] = f[i];
    o->sasa_complex[w->nsite[i]] = cx[i];
    if (isfinite(f[i])) o->sasa_free_total += f[i];
    if (isfinite(cx[i])) o->sasa_complex_total += cx[i];
  }
  return 0;
}

/* ------------------------------------------------------------------ driver */

int sp_site_chem_compute(const sp_structure *s, const sp_survey *sv, size_t lig, const sp_site *site, sp_ccd *ccd,
                         const sp_chem_opts *opts, sp_chem_ws *w, sp_site_chem *out, sp_err *err) {
  if (!s || !sv || !site || !w || !out) return sp_err_set(err, SP_E_INVALID, "site chemistry: NULL argument");
  if (lig >= sv->n_ligands) return sp_err_set(err, SP_E_INVALID, "site chemistry: ligand %zu out of range", lig);
  if (site->n_ligand > site->n_atoms) return sp_err_set(err, SP_E_INVALID, "site chemistry: bad site");
  for (size_t k = 0; k < site->n_atoms; k++)
    if (site->atoms[k] >= s->n_atoms || site->atom_res[k] >= site->n_res)
      return sp_err_set(err, SP_E_INVALID, "site chemistry: site atom %zu out of range", k);
  for (size_t r = 0; r < site->n_res; r++)
    if (site->res[r].residue >= s->n_residues)
      return sp_err_set(err, SP_E_INVALID, "site chemistry: site residue %zu out of range", r);
  aa_tables(w);
  sp_chem_opts o;
  sp_chem_opts_default(&o);
  if (opts) {
    if (isfinite(opts->ph)) o.ph = opts->ph;
    if (opts->sasa_points > 0 && opts->sasa_points <= 100000) o.sasa_points = opts->sasa_points;
    if (opts->probe > 0 && isfinite(opts->probe)) o.probe = opts->probe;
  }
  size_t na = site->n_atoms, nr = site->n_res;
  if (GROW(out->atom_chem, out->cap_atoms, na + 1)) goto nomem;
  {
    size_t cap = out->cap_atoms;
    size_t c0;
    c0 = 0; if (grow((void **)&out->pka, &c0, cap, sizeof *out->pka)) goto nomem;
    c0 = 0; if (grow((void **)&out->frac_protonated, &c0, cap, sizeof *out->frac_protonated)) goto nomem;
    c0 = 0; if (grow((void **)&out->charge_ph, &c0, cap, sizeof *out->charge_ph)) goto nomem;
    c0 = 0; if (grow((void **)&out->sasa_free, &c0, cap, sizeof *out->sasa_free)) goto nomem;
    c0 = 0; if (grow((void **)&out->sasa_complex, &c0, cap, sizeof *out->sasa_complex)) goto nomem;
  }
  if (GROW(out->res_contact, out->cap_res, nr + 1)) goto nomem;
  if (GROW(w->res_first, w->cap_resr, nr + 1)) goto nomem;
  {
    size_t c0 = 0;
    if (grow((void **)&w->res_n, &c0, w->cap_resr, sizeof *w->res_n)) goto nomem;
  }
  out->n_atoms = na;
  out->n_res = nr;
  out->n_groups = out->n_ix = 0;
  out->flags = 0;
  out->ligand_charge = out->site_charge = 0;
  for (size_t k = 0; k < na; k++) {
    out->atom_chem[k] = 0;
    out->pka[k] = out->frac_protonated[k] = out->sasa_free[k] = out->sasa_complex[k] = NAN;
    out->charge_ph[k] = 0;
  }
  for (size_t r = 0; r < nr; r++) {
    out->res_contact[r] = 0;
    w->res_first[r] = 0;
    w->res_n[r] = 0;
  }
  for (size_t k = na; k-- > 0;) {
    w->res_first[site->atom_res[k]] = (int32_t)k;
    w->res_n[site->atom_res[k]]++;
  }
  w->n_rings = 0;
  ctx c = {s, sv, site, w, out, err, o.ph, 0};
  int rc = build_ligand_graph(&c, ccd);
  if (!rc) rc = ligand_rings(&c);
  uint8_t *used = NULL;
  if (!rc) {
    used = calloc(c.nl + 1, 1);
    if (!used) goto nomem;
    rc = ligand_groups(&c, used);
    free(used);
  }
  if (site->flags & SP_SITE_OVERSIZE) out->flags |= SP_CHEMF_OVERSIZE;
  if (!rc && !(site->flags & SP_SITE_OVERSIZE)) rc = protein_groups_rings(&c);
  if (!rc) type_atoms(&c);
  if (!rc && !(site->flags & SP_SITE_OVERSIZE)) rc = interactions(&c);
  if (!rc) rc = burial(&c, &o, lig);
  if (rc) return rc;
  for (size_t g = 0; g < out->n_groups; g++) {
    out->site_charge += out->groups[g].charge;
    if (out->groups[g].ligand) out->ligand_charge += out->groups[g].charge;
  }
  return 0;
nomem:
  return sp_err_set(err, SP_E_NOMEM, "site chemistry: out of memory (%zu atoms)", site->n_atoms);
}
