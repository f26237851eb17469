/* Internal to src/site: what the pieces of the site chemistry share (sitechem*.c, one job per file;
 * include/sitepack/sitechem.h is the public side, docs/sites.md "Site chemistry" the definitions).
 *
 *   sitechem.c            names and tables, options, workspace, the driver sp_site_chem_compute
 *   sitechem_graph.c      ligand bond graph (CCD, the file's bonds, distances), implicit H, aromatic rings
 *   sitechem_protonation.c titratable and charged groups of the ligand and the residues at the pH
 *   sitechem_typing.c     residue templates, per-atom chemistry bits (SP_CHEM_*)
 *   sitechem_pairs.c      atom-pair interactions: contacts, hydrophobic, H-bond, halogen; water bridges
 *   sitechem_hplace.c     H of donors without H in the file, where Open Babel puts them for PLIP
 *   sitechem_centres.c    interactions between centres: salt bridge, pi-stacking, pi-cation
 *   sitechem_covalent.c   covalent exclusion: pairs bonded or 1-3 through a link, linked residue atoms
 *   sitechem_refine.c     PLIP's refinements: H-bonds, hydrophobic contacts, water bridges
 *   sitechem_metal.c      metal complexes and PLIP's coordination geometry
 *   sitechem_burial.c     burial: the SASA environment of a model and SASA free / in the complex
 */
#ifndef SITEPACK_SITE_SITECHEM_INTERNAL_H
#define SITEPACK_SITE_SITECHEM_INTERNAL_H

#include "sitepack/base.h"
#include "sitepack/bonds.h"
#include "sitepack/sitechem.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXNB 8      /* neighbours kept per ligand atom */
#define RAD2DEG 57.29577951308232

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
  uint8_t planar_only;      /* ligand ring kept by PLIP's planarity alone (not aromatic for the atoms' chemistry) */
  float c[3], nrm[3];
} ring;

/* the burial step's state (sitechem_burial.c): SASA input arrays, the SASA kernel workspace and the
 * SASA environment of one model */
typedef struct chem_burial chem_burial;

/* a candidate water bridge before PLIP's refinement (sitechem_pairs.c, sitechem_refine.c) */
typedef struct sp_wb_cand {
  sp_interaction ix;
  float omega;              /* degrees: PLIP's omega with the donor's H, or with the donor atom (no H) */
  int32_t donor, acceptor;  /* site atom indices */
  int slot;                 /* refinement bookkeeping: 0 / 1 kept for its water, -1 not */
  float value;              /* refinement bookkeeping: PLIP's recorded value */
} sp_wb_cand;
void sp_chem_burial_free(chem_burial *b);

struct sp_chem_ws {
  lnode *ln; size_t cap_ln;
  int32_t *lmap; size_t cap_lmap;      /* ligand site index -> node, -1 for H */
  int32_t *nsite; size_t cap_nsite;    /* node -> site index */
  int32_t *dmap; size_t cap_dmap;      /* definition atom -> node */
  ring *rings; size_t n_rings, cap_rings;
  int32_t *cand; size_t cap_cand;      /* non-ligand heavy site atoms within the cutoff */
  float *cand_x, *cand_y, *cand_z, *cand_r; size_t cap_cand_xyz; /* their coordinates and vdW radii */
  int32_t *cand_hit; size_t cap_cand_hit; /* candidates near one ligand atom */
  int32_t *res_first, *res_n; size_t cap_resr; /* site residue slot -> its first site atom, its atom count */
  int32_t *coord; size_t cap_coord;    /* targets of one metal */
  chem_burial *burial;                 /* NULL until the first burial() */
  sp_bond_list bonds;                  /* the ligand's bonds (sp_ligand_bonds) */
  int32_t *excl; size_t n_excl, cap_excl; /* excluded (ligand atom, site atom) pairs, 2 per pair */
  int32_t *linked; size_t n_linked, cap_linked; /* (site atom, ligand atom) of each covalent link, 2 per link */
  sp_wb_cand *wb; size_t cap_wb;       /* candidate water bridges (ligand acceptor first) */
  sp_wb_cand *wb1; size_t cap_wb1;     /* ... the ligand-donor ones while they are made */
  int32_t *wb_keep; size_t cap_wb_keep; /* scratch of the water bridges */
  /* residue templates as packed names; template rows of each residue (table order), CSR over aa_res */
  uint64_t aa_res[20], aa_key_res[128], aa_key_atom[128];
  uint8_t aa_sub[128], aa_sub_first[21];
  float vdw[256];                       /* sp_element_vdw_radius of every element number */
};


/* ------------------------------------------------------------------ geometry */

static inline float d2f(const float *a, const float *b) {
  float x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
  return x * x + y * y + z * z;
}
static inline float df(const float *a, const float *b) { return sqrtf(d2f(a, b)); }
/* angle a-b-c at b, degrees; NaN when degenerate */
static inline float angle3(const float *a, const float *b, const float *c) {
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
static inline float vangle(const float *u, const float *v) { /* 0..180 */
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
static inline float plane_offset(const float *c, const float *nrm, const float *p) {
  float v[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  float h = v[0] * nrm[0] + v[1] * nrm[1] + v[2] * nrm[2];
  float o2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - h * h;
  return o2 > 0 ? sqrtf(o2) : 0.0f;
}
/* Position of site atom k: the site's own copy (transformed for a symmetry-image atom), or the
   structure's when the site has none (a site filled by hand). */
static inline const float *site_xyz(const sp_structure *s, const sp_site *site, size_t k) {
  return site->xyz ? site->xyz[k] : s->xyz[site->atoms[k]];
}

/* centre and unit normal (Newell's method) of a ring; max deviation from the plane (Å) (sitechem_graph.c) */
float sp_chem_ring_plane(const sp_structure *s, const sp_site *site, ring *r);

/* ------------------------------------------------------------------ residue names */

/* names packed into one word (up to 8 characters), so that template look-ups compare integers */
static inline uint64_t pk8(const char *a) {
  uint64_t k = 0;
  for (int i = 0; i < 8 && a[i]; i++) k |= (uint64_t)(unsigned char)a[i] << (8 * i);
  return k;
}
/* one of the 20 standard amino acids (the workspace's templates, sp_chem_aa_tables) */
static inline int is_std_aa(const sp_chem_ws *w, const char *c) {
  uint64_t k = pk8(c);
  for (size_t i = 0; i < 20; i++)
    if (w->aa_res[i] == k) return 1;
  return 0;
}

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
  size_t lig;         /* index of the ligand in sv->ligands */
  const sp_bond_list *bonds; /* the ligand's bonds: sp_chem_opts.bonds, else w->bonds once sp_chem_covalent made them */
} ctx;

static inline const float *X(const ctx *c, int32_t k) { return site_xyz(c->s, c->site, (size_t)k); }
static inline uint8_t EL(const ctx *c, int32_t k) { return c->s->element[c->site->atoms[k]]; }
static inline const char *ANAME(const ctx *c, int32_t k) { return c->s->atom_name[c->site->atoms[k]]; }
static inline const char *RNAME(const ctx *c, int32_t k) {
  return c->s->residues[c->s->atom_residue[c->site->atoms[k]]].comp_id;
}
static inline int is_polymer_atom(const ctx *c, int32_t k) { return (c->site->atom_flags[k] & SP_SITE_ATOM_POLYMER) != 0; }

/* site atom index of atom @p name in site residue slot @p rs, -1 if absent */
static inline int32_t res_atom(const ctx *c, size_t rs, const char *name) {
  int32_t f = c->w->res_first[rs], n = c->w->res_n[rs];
  uint64_t key = pk8(name);
  for (int32_t k = f; k < f + n; k++)
    if (pk8(ANAME(c, k)) == key) return k;
  return -1;
}

static inline int add_ix(ctx *c, const sp_interaction *ix) {
  sp_site_chem *o = c->out;
  if (SP_GROW(o->ix, o->cap_ix, o->n_ix + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  o->ix[o->n_ix++] = *ix;
  return 0;
}

/* can the group carry a charge of sign @p sign (+1/-1) at this pH: its most probable charge,
 * or, when ambiguous, the other state. */
static inline int group_sign(const sp_titr_group *g, int sign) {
  if (sign > 0) return g->charge > 0 || (g->ambiguous && (g->charge_prot > 0 || g->charge_deprot > 0));
  return g->charge < 0 || (g->ambiguous && (g->charge_prot < 0 || g->charge_deprot < 0));
}

/* neighbours of ligand node @p i of element @p el with one heavy neighbour */
static inline int n_terminal(const ctx *c, int32_t i, uint8_t el) {
  const lnode *n = &c->w->ln[i];
  int t = 0;
  for (int k = 0; k < n->deg; k++) {
    const lnode *m = &c->w->ln[n->nb[k]];
    if (m->el == el && m->deg == 1) t++;
  }
  return t;
}
/* neighbours of ligand node @p i of element @p el */
static inline int n_el(const ctx *c, int32_t i, uint8_t el) {
  const lnode *n = &c->w->ln[i];
  int t = 0;
  for (int k = 0; k < n->deg; k++) t += c->w->ln[n->nb[k]].el == el;
  return t;
}

/* ------------------------------------------------------------------ the steps (in the order the driver runs them) */


/* sitechem_typing.c: the workspace's packed copy of the residue templates and the vdW radii (once) */
void sp_chem_aa_tables(sp_chem_ws *w);

/* sitechem_graph.c: the ligand's heavy-atom graph (bonds, orders, formal charges, H counts) in w->ln */
int sp_chem_ligand_graph(ctx *c, sp_ccd *ccd);
/* sitechem_graph.c: a 5- or 6-ring of site atoms @p path into w->rings unless already there */
int sp_chem_add_ring(ctx *c, const int32_t *path, int n, int ligand);
/* sitechem_graph.c: the ligand's aromatic 5- and 6-rings (w->rings), aromatic flags and H of their atoms */
int sp_chem_ligand_rings(ctx *c);

/* sitechem_protonation.c: titratable / charged groups of the ligand (@p used: [c->nl] scratch, zeroed) */
int sp_chem_ligand_groups(ctx *c, uint8_t *used);
/* sitechem_protonation.c: groups and aromatic rings of the site's residues */
int sp_chem_residue_groups_rings(ctx *c);

/* sitechem_typing.c: SP_CHEM_* bits, pKa, fraction protonated and charge of every site atom */
void sp_chem_type_atoms(ctx *c);

/* sitechem_pairs.c: contacts and the atom-pair interactions (hydrophobic, H-bond, halogen) */
int sp_chem_pairs(ctx *c);
/* sitechem_pairs.c: water bridges (candidates, then PLIP's refinement) */
int sp_chem_water_bridges(ctx *c);
/* sitechem_refine.c: no H-bond inside a salt bridge, one per donor atom (PLIP refine_hbonds_ldon / _pdon) */
void sp_chem_refine_hbonds(ctx *c);
/* sitechem_refine.c: PLIP's refine_hydrophobic (after pi-stacking) */
int sp_chem_refine_hydrophobic(ctx *c);
/* sitechem_refine.c: PLIP's refine_water_bridges on candidates @p b[n] (after the H-bond refinement); adds the
 * kept ones as rows. @p keep: scratch of n entries */
int sp_chem_refine_water_bridges(ctx *c, sp_wb_cand *b, size_t n, int32_t *keep);
/* The hydrogens Open Babel's AddPolarHydrogens gives donor N / O @p d when the file has none on it
 * (OBBuilder::GetNewBondVector, as PLIP protonates; sitechem_hplace.c): at most @p max positions in @p h,
 * their count; 0 when its bonds, hybridization or H count are not known (the heavy-atom rules apply). */
int sp_chem_place_h(const ctx *c, int32_t d, float h[][3], int max);

/* sitechem_centres.c: salt bridges (charge centres) */
int sp_chem_salt_bridges(ctx *c);
/* sitechem_centres.c: pi-cation (ring centre - cation centre) */
int sp_chem_pi_cation(ctx *c);
/* sitechem_centres.c: pi-stacking (ring centres) */
int sp_chem_pi_stacking(ctx *c);

/* sitechem_covalent.c: the ligand's bonds (w->bonds) and from them the excluded pairs and linked atoms */
int sp_chem_covalent(ctx *c, sp_ccd *ccd);
/* sitechem_covalent.c: 1 when ligand atom @p li and site atom @p k are bonded or 1-3 through a covalent link */
int sp_chem_excluded(const ctx *c, int32_t li, int32_t k);
/* sitechem_covalent.c: the ligand atom linked covalently (not a metal bond) to site atom @p k, -1 if none */
int32_t sp_chem_linked(const ctx *c, int32_t k);
/* sitechem_covalent.c: 1 when Lys NZ @p nz is linked to the ligand through an acyl (or S, P) atom: no base */
int sp_chem_lys_linked_neutral(const ctx *c, int32_t nz);
/* sitechem_covalent.c: 1 when some ligand atom of @p la and some site atom of @p sa are an excluded pair */
int sp_chem_groups_excluded(const ctx *c, const int32_t *la, int nla, const int32_t *sa, int nsa);
/* sitechem_covalent.c: the linked Ser/Thr/Tyr O, Cys SG, His N are no longer donors (after typing) */
void sp_chem_linked_donors(ctx *c);

/* sitechem_metal.c: metal complexes */
int sp_chem_metals(ctx *c);

/* sitechem_burial.c: SASA of the ligand's heavy atoms alone and in the complex (sasa_free, sasa_complex) */
int sp_chem_burial(ctx *c, const sp_chem_opts *opt, size_t lig);

#endif
