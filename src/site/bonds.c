/* The covalent bonds of a ligand instance on its site block: include/sitepack/bonds.h. */
#include "sitepack/bonds.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/perceive.h"
#include "sitepack/valence.h"

/* Distance bonds: covalent radii + 0.4 Å, as the survey's molecule key (docs/ligands.md). */
#define DIST_BOND_TOL 0.4f
/* Peptide link of consecutive residues of a peptide ligand: C-N at most 2.0 Å. */
/* No distance bond between two non-metals is longer: Cordero's largest non-metal radius (I, Te 1.39 / 1.38 Å)
 * twice + DIST_BOND_TOL is 3.18 Å; unknown elements count 1.5 Å (3.4 Å). */
#define LINK_REACH 3.5f
#define PEPTIDE_CN_MAX 2.0f
/* A residue with H atoms is perceived with them (SP_PERCEIVE_EXPLICIT_H) when the heavy-atom reading implies at
 * most 2 more H than it has (an acid or amine the file deprotonates or protonates); with more missing, the file's
 * H are partial (polar H only, riding H on some atoms) and the heavy-atom reading stands. */
#define H_MISSING_MAX 2

const char *sp_bond_source_name(int src) {
  static const char *const names[SP_BOND_SRC_COUNT] = {"ccd", "file", "conect", "struct_conn", "distance", "perceived"};
  return src >= 0 && src < SP_BOND_SRC_COUNT ? names[src] : "?";
}

void sp_bond_list_free(sp_bond_list *b) {
  if (!b) return;
  free(b->bonds);
  free(b->ccd_charge);
  free(b->ccd_atom);
  memset(b, 0, sizeof *b);
}

/* The builder of one list: the ligand's atoms grouped by residue, a sticky out-of-memory flag. */
typedef struct builder {
  const sp_structure *s;
  const sp_site *site;
  sp_bond_list *out;
  size_t n_inter;   /* bonds before this index are intra-residue */
  bool nomem;
  size_t n_pend;     /* residues whose bond orders are to be perceived once the links are known */
  size_t (*pend)[3]; /* [n_res] per such residue: its bonds' first and end index, its residue index */
} builder;

/* Position of site atom k: the site's own copy, or the structure's (a site filled by hand). */
static const float *site_xyz(const builder *B, uint32_t k) {
  return B->site->xyz ? B->site->xyz[k] : B->s->xyz[B->site->atoms[k]];
}

static float dist2(const builder *B, uint32_t a, uint32_t b) {
  const float *pa = site_xyz(B, a), *pb = site_xyz(B, b);
  float d = 0;
  for (int k = 0; k < 3; k++) {
    float x = pa[k] - pb[k];
    d += x * x;
  }
  return d;
}

/* Append bond (a, b) unless the pair is there already (links only: intra bonds are unique by
 * construction). */
static void add_bond(builder *B, uint32_t a, uint32_t b, uint8_t order, uint8_t arom, uint8_t src, uint8_t flags,
                     bool check_dup) {
  if (B->nomem || a == b) return;
  if (a > b) {
    uint32_t t = a;
    a = b;
    b = t;
  }
  sp_bond_list *L = B->out;
  if (check_dup)
    for (size_t k = 0; k < L->n; k++)
      if (L->bonds[k].a == a && L->bonds[k].b == b) return;
  if (L->n == L->cap) {
    size_t nc = L->cap ? 2 * L->cap : 64;
    sp_bond *p = realloc(L->bonds, nc * sizeof *p);
    if (!p) {
      B->nomem = true;
      return;
    }
    L->bonds = p;
    L->cap = nc;
  }
  sp_bond *x = &L->bonds[L->n++];
  x->a = a;
  x->b = b;
  x->order = order;
  x->aromatic = arom;
  x->source = src;
  x->flags = flags;
}

static uint8_t pair_flags(const builder *B, uint32_t a, uint32_t b) {
  const sp_structure *s = B->s;
  uint32_t ia = B->site->atoms[a], ib = B->site->atoms[b];
  uint8_t f = 0;
  if (s->atom_residue[ia] != s->atom_residue[ib]) f |= SP_BOND_INTER_RESIDUE;
  if (B->site->atom_flags[b] & SP_SITE_ATOM_POLYMER) f |= SP_BOND_TO_POLYMER;
  if (sp_element_is_metal(s->element[ia]) || sp_element_is_metal(s->element[ib])) f |= SP_BOND_TO_METAL;
  return f;
}

/* Whether the ligand atom at offset k repeats a name of its residue (SP_ATOM_REPEATED_NAME, model.h):
 * no bond of a definition is attached to it, since the name does not say which atom it means. */
static bool repeated_name(const builder *B, size_t k) {
  return (B->s->atom_flags[B->site->atoms[k]] & SP_ATOM_REPEATED_NAME) != 0;
}

/* Offset of the ligand atom named `name` among offs[0..n), -1 if absent or repeated. */
static int64_t find_name(const builder *B, const uint32_t *offs, size_t n, const char *name) {
  for (size_t k = 0; k < n; k++)
    if (!strcmp(B->s->atom_name[B->site->atoms[offs[k]]], name)) return repeated_name(B, offs[k]) ? -1 : (int64_t)offs[k];
  return -1;
}

/* Bonds of one residue from its usable CCD definition d; per-atom CCD data of its atoms. */
static void residue_from_ccd(builder *B, const sp_component *d, const uint32_t *offs, size_t n) {
  int64_t *map = malloc((d->n_atoms ? d->n_atoms : 1) * sizeof *map);
  if (!map) {
    B->nomem = true;
    return;
  }
  for (size_t k = 0; k < d->n_atoms; k++) map[k] = -1;
  for (size_t k = 0; k < n; k++) {
    int di = sp_component_atom_index(d, B->s->atom_name[B->site->atoms[offs[k]]]);
    if (di < 0) {
      B->out->lig_flags |= SP_LIG_NAME_NOT_IN_CCD;
      continue;
    }
    if (repeated_name(B, offs[k])) continue; /* neither matched nor bonded (docs/format.md /atoms flags) */
    map[di] = offs[k];
    const sp_comp_atom *ca = &d->atoms[di];
    B->out->ccd_charge[offs[k]] = ca->charge;
    B->out->ccd_atom[offs[k]] = (uint8_t)(SP_CCD_ATOM_MATCHED | (ca->aromatic ? SP_CCD_ATOM_AROMATIC : 0) |
                                          (ca->leaving ? SP_CCD_ATOM_LEAVING : 0));
  }
  for (size_t bi = 0; bi < d->n_bonds; bi++) {
    const sp_comp_bond *cb = &d->bonds[bi];
    if (cb->a >= d->n_atoms || cb->b >= d->n_atoms || map[cb->a] < 0 || map[cb->b] < 0) continue;
    uint32_t a = (uint32_t)map[cb->a], b = (uint32_t)map[cb->b];
    add_bond(B, a, b, cb->order, cb->aromatic, SP_BOND_SRC_CCD, pair_flags(B, a < b ? a : b, a < b ? b : a), false);
  }
  free(map);
}

/* Bonds of one residue from the entry's _chem_comp_bond of comp_id. */
static void residue_from_file(builder *B, const char *comp_id, const uint32_t *offs, size_t n) {
  const sp_structure *s = B->s;
  for (size_t bi = 0; bi < s->n_file_bonds; bi++) {
    const sp_file_bond *fb = &s->file_bonds[bi];
    if (strcmp(fb->comp_id, comp_id)) continue;
    int64_t a = find_name(B, offs, n, fb->atom1), b = find_name(B, offs, n, fb->atom2);
    if (a < 0 || b < 0) continue;
    uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
    add_bond(B, lo, hi, fb->order, fb->aromatic, SP_BOND_SRC_FILE, pair_flags(B, lo, hi), true);
  }
}

/* Bonds of one residue from distances: covalent radii + 0.4 Å, order unknown. */
static void residue_from_distance(builder *B, const uint32_t *offs, size_t n) {
  const sp_structure *s = B->s;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      uint32_t a = offs[i], b = offs[j];
      uint8_t ea = s->element[B->site->atoms[a]], eb = s->element[B->site->atoms[b]];
      float r = sp_element_covalent_radius(ea) + sp_element_covalent_radius(eb) + DIST_BOND_TOL;
      float d2 = dist2(B, a, b);
      if (d2 <= r * r && d2 > 0.16f) add_bond(B, a, b, 0, 0, SP_BOND_SRC_DISTANCE, pair_flags(B, a, b), false);
    }
}

/* Local index of site offset o among offs[0..n) (the residue's atoms), -1 if absent. */
static int64_t local_index(const uint32_t *offs, size_t n, uint32_t o) {
  for (size_t k = 0; k < n; k++)
    if (offs[k] == o) return (int64_t)k;
  return -1;
}

/* The residue's perceived orders and charges into its bonds out->bonds[first..) and atoms (bonds.h
 * SP_BOND_SRC_PERCEIVED); nothing changes when sp_perceive fails or is doubtful. */
static void keep_perceived(builder *B, size_t first, size_t end, const uint32_t *offs, size_t n, const uint8_t *ord,
                           const int8_t *q, const uint8_t *arom) {
  sp_bond_list *L = B->out;
  for (size_t e = first; e < end; e++) {
    L->bonds[e].order = ord[e - first];
    L->bonds[e].aromatic = arom[e - first];
    L->bonds[e].source = SP_BOND_SRC_PERCEIVED;
  }
  for (size_t k = 0; k < n; k++) {
    L->ccd_charge[offs[k]] = q[k];
    L->ccd_atom[offs[k]] |= SP_CCD_ATOM_PERCEIVED;
  }
}

/* Links (bonds from index n_inter on, no metal bond) of the residue's atom offs[k] to atoms outside it, into
 * ext[k]. */
static void count_links(const builder *B, const uint32_t *offs, size_t n, uint8_t *ext) {
  const sp_bond_list *L = B->out;
  for (size_t k = 0; k < n; k++) ext[k] = 0;
  for (size_t e = B->n_inter; e < L->n; e++) {
    if (L->bonds[e].flags & SP_BOND_TO_METAL) continue;
    int64_t a = local_index(offs, n, L->bonds[e].a), b = local_index(offs, n, L->bonds[e].b);
    if ((a >= 0) == (b >= 0)) continue;
    int64_t k = a >= 0 ? a : b;
    if (ext[k] < 8) ext[k]++;
  }
}

/* A deposited H on an atom X that a link uses, which would put X above its largest neutral valence (the H the
 * link replaced: sp_ligand_charges' link-hydrogen rule, valence.h), takes no part in the perception: its element is
 * set to 0 in z (no valence; its bond keeps order 1), one H per unit of excess. */
static void drop_link_hydrogens(size_t n, uint8_t *z, size_t nb, const uint32_t (*pr)[2], const uint8_t *ext) {
  for (size_t x = 0; x < n; x++) {
    int m = ext[x] ? sp_valence_max(z[x], 0) : -1, deg = ext[x];
    if (m < 0) continue;
    for (size_t e = 0; e < nb; e++) deg += (pr[e][0] == x || pr[e][1] == x) && z[pr[e][0] == x ? pr[e][1] : pr[e][0]];
    for (size_t e = 0; e < nb && deg > m; e++) {
      uint32_t h = pr[e][0] == x ? pr[e][1] : pr[e][1] == x ? pr[e][0] : UINT32_MAX;
      if (h != UINT32_MAX && z[h] == 1) z[h] = 0, deg--;
    }
  }
}

/* Whether a reading with the file's H (SP_PERCEIVE_EXPLICIT_H) is one the coordinates allow: every double or triple
 * bond at least 0.05 Å shorter than single (the sum of the covalent radii; a C=O made of a C and an O that both
 * lack an H in a partly protonated file is 1.42 Å long), and every charge a protonation state (-1 on an O or S
 * with one bond: carboxylate, phosphate, phenolate; +1 on an N: ammonium, pyridinium, guanidinium) or one of a
 * bonded pair of opposite charges (azide N+=N-, diazo, isocyanide C-#N+), not the O+ or C- that stands for a
 * missing H. */
static bool explicit_plausible(size_t n, const uint8_t *z, const float (*xyz)[3], size_t nb, const uint32_t (*pr)[2],
                               const uint8_t *ord, const int8_t *q) {
  for (size_t e = 0; e < nb; e++) {
    if (ord[e] < 2) continue;
    uint32_t a = pr[e][0], b = pr[e][1];
    float d2 = 0;
    for (int k = 0; k < 3; k++) d2 += (xyz[a][k] - xyz[b][k]) * (xyz[a][k] - xyz[b][k]);
    float r = sp_element_covalent_radius(z[a]) + sp_element_covalent_radius(z[b]) - 0.05f;
    if (d2 > r * r) return false;
  }
  for (size_t i = 0; i < n; i++) {
    if (!q[i]) continue;
    int deg = 0;
    bool paired = false; /* bonded to an atom of the opposite charge: azide, diazo, isocyanide, ylide */
    for (size_t e = 0; e < nb; e++) {
      if (pr[e][0] != i && pr[e][1] != i) continue;
      deg++;
      paired |= q[pr[e][0] == i ? pr[e][1] : pr[e][0]] * q[i] < 0;
    }
    bool anion = q[i] == -1 && (z[i] == 8 || z[i] == 16) && deg == 1, cation = q[i] == 1 && z[i] == 7;
    if (!anion && !cation && !paired) return false;
  }
  return true;
}

/* Bond orders and charges of one residue's bonds out->bonds[first..end) (all within offs[0..n)) perceived from
 * its coordinates (perceive.h), its links to other residues counted as single bonds: with its hydrogens when it
 * has any (SP_PERCEIVE_EXPLICIT_H), else from the heavy atoms' geometry. */
static void perceive_residue(builder *B, size_t first, size_t end, const uint32_t *offs, size_t n) {
  sp_bond_list *L = B->out;
  size_t nb = end - first;
  if (B->nomem || !n || !nb || n > SP_PERCEIVE_MAX_ATOMS) return;
  /* a residue with a metal (haem, cobalamin, Fe-S clusters) is not perceived: its metal bonds are dative or
   * ionic as the CCD draws them, which no valence reading of the coordinates tells (its bonds stay distance,
   * order 0) */
  for (size_t k = 0; k < n; k++)
    if (sp_element_is_metal(B->s->element[B->site->atoms[offs[k]]])) return;
  uint8_t *z = malloc(n), *ord = malloc(nb), *ext = malloc(n);
  int8_t *q = malloc(n);
  float(*xyz)[3] = malloc(n * sizeof *xyz);
  uint32_t(*pr)[2] = malloc(nb * sizeof *pr);
  bool ok = z && ord && ext && q && xyz && pr, any_h = false;
  if (ok) count_links(B, offs, n, ext);
  for (size_t k = 0; ok && k < n; k++) {
    z[k] = B->s->element[B->site->atoms[offs[k]]];
    any_h |= z[k] == 1;
    memcpy(xyz[k], site_xyz(B, offs[k]), sizeof xyz[k]);
  }
  for (size_t e = 0; ok && e < nb; e++) {
    int64_t a = local_index(offs, n, L->bonds[first + e].a), b = local_index(offs, n, L->bonds[first + e].b);
    ok = a >= 0 && b >= 0;
    if (ok) pr[e][0] = (uint32_t)a, pr[e][1] = (uint32_t)b;
  }
  if (ok) drop_link_hydrogens(n, z, nb, (const uint32_t(*)[2])pr, ext);
  sp_perceive_info info;
  /* from the heavy atoms' geometry (the residue's H atoms, if any, counted as bonds); then, where the file's H
   * are (nearly) all there, from its hydrogens, kept when plausible: their protonation states are the file's */
  bool done = ok &&
              !sp_perceive(n, z, (const float(*)[3])xyz, nb, (const uint32_t(*)[2])pr, ext, 0, ord, q, &info, NULL) &&
              !info.n_unpaired && !info.exhausted;
  if (ok && any_h && (!done || info.n_implicit_h <= H_MISSING_MAX)) {
    uint8_t *ord2 = malloc(nb);
    int8_t *q2 = malloc(n);
    if (ord2 && q2 &&
        !sp_perceive(n, z, (const float(*)[3])xyz, nb, (const uint32_t(*)[2])pr, ext, SP_PERCEIVE_EXPLICIT_H, ord2, q2,
                     &info, NULL) &&
        !info.exhausted && explicit_plausible(n, z, (const float(*)[3])xyz, nb, (const uint32_t(*)[2])pr, ord2, q2)) {
      memcpy(ord, ord2, nb), memcpy(q, q2, n);
      done = true;
    }
    if (!ord2 || !q2) B->nomem = true;
    free(ord2), free(q2);
  }
  uint8_t *arom = done ? malloc(nb) : NULL;
  if (done && !arom) B->nomem = true;
  if (arom && !sp_perceive_aromatic(n, z, nb, (const uint32_t(*)[2])pr, ord, q, arom, NULL))
    keep_perceived(B, first, end, offs, n, ord, q, arom);
  free(arom);
  if (!(z && ord && ext && q && xyz && pr)) B->nomem = true;
  free(z), free(ord), free(ext), free(q), free(xyz), free(pr);
}

/* The residues intra_residue left to perceive (B->pend), now that the links are known. */
static void perceive_pending(builder *B, uint32_t *offs) {
  for (size_t p = 0; p < B->n_pend && !B->nomem; p++) {
    size_t n = 0;
    for (size_t i = 0; i < B->site->n_ligand; i++)
      if (B->s->atom_residue[B->site->atoms[i]] == B->pend[p][2]) offs[n++] = (uint32_t)i;
    perceive_residue(B, B->pend[p][0], B->pend[p][1], offs, n);
  }
}

/* Bonds of one residue from the file's CONECT records (PDB input): each pair of its atoms that
 * CONECT bonds, with the order of the records, aromaticity unknown (0). */
static void residue_from_conect(builder *B, const uint32_t *offs, size_t n) {
  const sp_structure *s = B->s;
  for (size_t i = 0; i < n; i++) {
    int64_t ai = B->site->atoms[offs[i]];
    for (size_t k = sp_structure_conect_first(s, ai); k < s->n_conects && s->conects[k].a == ai; k++)
      for (size_t j = 0; j < n; j++)
        if (B->site->atoms[offs[j]] == (uint32_t)s->conects[k].b) {
          uint32_t a = offs[i], b = offs[j];
          uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
          add_bond(B, lo, hi, s->conects[k].order, 0, SP_BOND_SRC_CONECT, pair_flags(B, lo, hi), false);
        }
  }
}

/* Whether some CONECT bond joins two atoms of the residue among offs[0..n). */
static bool has_conect(const builder *B, const uint32_t *offs, size_t n) {
  const sp_structure *s = B->s;
  for (size_t i = 0; i < n && s->n_conects; i++)
    for (size_t j = i + 1; j < n; j++)
      if (sp_structure_conect_order(s, B->site->atoms[offs[i]], B->site->atoms[offs[j]])) return true;
  return false;
}

/* Whether the bonds out->bonds[first..) say nothing of their orders: distance bonds (order 0), or CONECT
 * bonds each listed once (order 1; a file that states orders lists a double bond twice). */
static bool orders_unknown(const sp_bond_list *L, size_t first) {
  for (size_t e = first; e < L->n; e++)
    if (L->bonds[e].order > 1) return false;
  return L->n > first;
}

static bool has_file_bonds(const sp_structure *s, const char *comp_id) {
  for (size_t i = 0; i < s->n_file_bonds; i++)
    if (!strcmp(s->file_bonds[i].comp_id, comp_id)) return true;
  return false;
}

/* Intra-residue bonds of every residue of the instance (in the ligand's residue order). */
static void intra_residue(builder *B, const sp_survey *sv, const sp_ligand *L, sp_ccd *ccd, uint32_t *offs) {
  const sp_structure *s = B->s;
  for (uint32_t k = 0; k < L->n_res && !B->nomem; k++) {
    uint32_t r = sv->res_refs[L->res_first + k];
    size_t n = 0;
    for (size_t i = 0; i < B->site->n_ligand; i++)
      if (s->atom_residue[B->site->atoms[i]] == r) offs[n++] = (uint32_t)i;
    const char *id = s->residues[r].comp_id;
    const sp_component *d = ccd ? sp_ccd_get(ccd, id, NULL) : NULL;
    if (sp_survey_definition_usable(d, id)) residue_from_ccd(B, d, offs, n);
    else if (has_file_bonds(s, id)) residue_from_file(B, id, offs, n);
    else {
      size_t first = B->out->n;
      if (has_conect(B, offs, n)) residue_from_conect(B, offs, n);
      else residue_from_distance(B, offs, n);
      if (orders_unknown(B->out, first) && B->pend)
        B->pend[B->n_pend][0] = first, B->pend[B->n_pend][1] = B->out->n, B->pend[B->n_pend++][2] = r;
    }
  }
}

/* Offset of structure atom `at` in the site block (not a symmetry image), -1 if absent; ligand
 * atoms only when lig_only. */
static int64_t site_offset(const builder *B, int64_t at, bool lig_only) {
  size_t n = lig_only ? B->site->n_ligand : B->site->n_atoms;
  for (size_t k = 0; k < n; k++)
    if (B->site->atoms[k] == (uint32_t)at && !(B->site->atom_flags[k] & (SP_SITE_ATOM_SYMMETRY | SP_SITE_ATOM_ASSEMBLY))) return (int64_t)k;
  return -1;
}

/* Peptide links C(i)-N(i+1) of consecutive residues of one chain inside the instance. */
static void peptide_links(builder *B, const sp_survey *sv, const sp_ligand *L, uint32_t *offs) {
  const sp_structure *s = B->s;
  for (uint32_t k = 0; k + 1 < L->n_res && !B->nomem; k++) {
    uint32_t r = sv->res_refs[L->res_first + k], q = sv->res_refs[L->res_first + k + 1];
    if (q != r + 1 || s->residues[r].chain != s->residues[q].chain) continue;
    size_t nr = 0, nq = 0;
    for (size_t i = 0; i < B->site->n_ligand; i++)
      if (s->atom_residue[B->site->atoms[i]] == r) offs[nr++] = (uint32_t)i;
    int64_t c = find_name(B, offs, nr, "C");
    for (size_t i = 0; i < B->site->n_ligand; i++)
      if (s->atom_residue[B->site->atoms[i]] == q) offs[nq++] = (uint32_t)i;
    int64_t n = find_name(B, offs, nq, "N");
    if (c < 0 || n < 0 || dist2(B, (uint32_t)c, (uint32_t)n) > PEPTIDE_CN_MAX * PEPTIDE_CN_MAX) continue;
    add_bond(B, (uint32_t)c, (uint32_t)n, 1, 0, SP_BOND_SRC_DISTANCE, pair_flags(B, (uint32_t)c, (uint32_t)n), true);
  }
}

/* The link between structure atoms ea and eb when one is an atom of ligand lig and the other is in
 * the site block (not a symmetry image); `extra` flag bits are added to the pair's. */
static void add_link(builder *B, const sp_survey *sv, size_t lig, int64_t ea, int64_t eb, uint8_t order, uint8_t src,
                     uint8_t extra) {
  const sp_structure *s = B->s;
  bool la = sv->res_ligand[s->atom_residue[ea]] == (int32_t)lig, lb = sv->res_ligand[s->atom_residue[eb]] == (int32_t)lig;
  if (!la && !lb) return;
  int64_t oa = site_offset(B, la ? ea : eb, true);
  int64_t ob = site_offset(B, la ? eb : ea, false);
  if (oa < 0 || ob < 0) return;
  uint32_t lo = (uint32_t)(oa < ob ? oa : ob), hi = (uint32_t)(oa < ob ? ob : oa);
  add_bond(B, lo, hi, order, 0, src, (uint8_t)(pair_flags(B, lo, hi) | extra), true);
}

/* _struct_conn covale / disulf / metalc links with one end on the ligand (model 1, identity). */
static void conn_links(builder *B, const sp_survey *sv, size_t lig) {
  const sp_structure *s = B->s;
  for (size_t k = 0; k < s->n_conns && !B->nomem; k++) {
    const sp_conn *cn = &s->conns[k];
    if (cn->type != SP_CONN_COVALE && cn->type != SP_CONN_DISULF && cn->type != SP_CONN_METALC) continue;
    int64_t ea = cn->a.atom, eb = cn->b.atom;
    if (ea < 0 || eb < 0 || (size_t)ea >= s->n_atoms || (size_t)eb >= s->n_atoms) continue;
    if ((cn->a.symmetry[0] && strcmp(cn->a.symmetry, "1_555")) || (cn->b.symmetry[0] && strcmp(cn->b.symmetry, "1_555")))
      continue;
    bool metalc = cn->type == SP_CONN_METALC;
    add_link(B, sv, lig, ea, eb, metalc ? 0 : 1, SP_BOND_SRC_STRUCT_CONN, metalc ? SP_BOND_TO_METAL : 0);
  }
}

/* CONECT bonds (PDB input) with one end on the ligand and the other in the site block (not a
 * symmetry image) that no link before gives: the links of files without LINK records. */
static void conect_links(builder *B, const sp_survey *sv, size_t lig) {
  const sp_structure *s = B->s;
  for (size_t k = 0; k < s->n_conects && !B->nomem; k++) {
    int64_t ea = s->conects[k].a, eb = s->conects[k].b;
    if (s->atom_residue[ea] == s->atom_residue[eb]) continue; /* intra-residue: intra_residue's */
    add_link(B, sv, lig, ea, eb, s->conects[k].order, SP_BOND_SRC_CONECT, 0);
  }
}

/* Ligand-polymer bonds by distance (covalent radii + 0.4 Å, the rule of the ligand's own distance bonds)
 * where the file states none: a heavy, non-metal ligand atom and a heavy, non-metal polymer atom of the
 * site block (not a symmetry image) that no _struct_conn row links already. Covalent adducts and glycans
 * of files without LINK / struct_conn rows (and PDB files whose LINK records are missing) get their link
 * this way; metal coordination is never a distance bond (metalc rows only). */
static void polymer_distance_links(builder *B) {
  const sp_structure *s = B->s;
  const sp_site *site = B->site;
  /* candidates: heavy non-metal polymer atoms of residues whose closest atom is within LINK_REACH of the
   * ligand (no covalent radii sum of two non-metals + 0.4 Å exceeds it), so most residues are skipped */
  size_t nc = 0;
  uint32_t *cand = malloc((site->n_atoms - site->n_ligand + 1) * sizeof *cand);
  if (!cand) {
    B->nomem = true;
    return;
  }
  for (size_t b = site->n_ligand; b < site->n_atoms; b++) {
    uint16_t fb = site->atom_flags[b];
    if (!(fb & SP_SITE_ATOM_POLYMER) || (fb & (SP_SITE_ATOM_SYMMETRY | SP_SITE_ATOM_ASSEMBLY)) || !(fb & SP_SITE_ATOM_WITHIN_CUTOFF)) continue;
    if (site->res && site->res[site->atom_res[b]].min_distance > LINK_REACH) continue;
    uint8_t eb = s->element[site->atoms[b]];
    if (eb != 1 && !sp_element_is_metal(eb)) cand[nc++] = (uint32_t)b;
  }
  for (size_t a = 0; a < site->n_ligand && nc && !B->nomem; a++) {
    uint8_t ea = s->element[site->atoms[a]];
    if (ea == 1 || sp_element_is_metal(ea)) continue;
    float ra = sp_element_covalent_radius(ea);
    for (size_t q = 0; q < nc && !B->nomem; q++) {
      uint32_t b = cand[q];
      float d2 = dist2(B, (uint32_t)a, b);
      if (d2 > LINK_REACH * LINK_REACH || d2 <= 0.16f) continue;
      float r = ra + sp_element_covalent_radius(s->element[site->atoms[b]]) + DIST_BOND_TOL;
      if (d2 > r * r) continue;
      add_bond(B, (uint32_t)a, b, 0, 0, SP_BOND_SRC_DISTANCE, pair_flags(B, (uint32_t)a, b), true);
    }
  }
  free(cand);
}

/* A leaving hydrogen (CCD pdbx_leaving_atom_flag Y) still in the file on an atom that is linked to
 * another residue has left chemically (HO4 of a sugar whose O4 carries the glycosidic link, in a model
 * with hydrogens): its bond to that atom is dropped, as the molecule key drops the atom. */
static void drop_leaving_h(builder *B) {
  sp_bond_list *L = B->out;
  size_t w = 0;
  for (size_t k = 0; k < L->n; k++) {
    sp_bond x = L->bonds[k];
    bool drop = false;
    for (int end = 0; k < B->n_inter && end < 2 && !drop; end++) {
      uint32_t h = end ? x.b : x.a, o = end ? x.a : x.b;
      if (h >= L->n_atoms || !(L->ccd_atom[h] & SP_CCD_ATOM_LEAVING) || B->s->element[B->site->atoms[h]] != 1) continue;
      for (size_t j = B->n_inter; j < L->n && !drop; j++)
        drop = (L->bonds[j].flags & SP_BOND_INTER_RESIDUE) && (L->bonds[j].a == o || L->bonds[j].b == o);
    }
    if (!drop) L->bonds[w++] = x;
    else if (k < B->n_inter) continue;
  }
  size_t removed = L->n - w;
  L->n = w;
  B->n_inter -= removed;
}

static int grow_atoms(sp_bond_list *out, size_t n) {
  if (n > out->cap_atoms) {
    size_t nc = n + n / 2 + 16;
    int8_t *c = realloc(out->ccd_charge, nc);
    if (c) out->ccd_charge = c;
    uint8_t *f = c ? realloc(out->ccd_atom, nc) : NULL;
    if (f) out->ccd_atom = f;
    if (!c || !f) return -1;
    out->cap_atoms = nc;
  }
  out->n_atoms = n;
  if (n) {
    memset(out->ccd_charge, 0, n);
    memset(out->ccd_atom, 0, n);
  }
  return 0;
}

int sp_ligand_bonds(const sp_structure *s, const sp_survey *sv, size_t lig, const sp_site *site, sp_ccd *ccd,
                    sp_bond_list *out, sp_err *err) {
  if (!s || !sv || !site || !out) return sp_err_set(err, SP_E_INVALID, "sp_ligand_bonds: NULL argument");
  if (lig >= sv->n_ligands) return sp_err_set(err, SP_E_INVALID, "sp_ligand_bonds: ligand %zu out of range", lig);
  out->n = 0;
  out->lig_flags = 0;
  if (grow_atoms(out, site->n_ligand)) return sp_err_set(err, SP_E_NOMEM, "out of memory (ligand bonds)");
  uint32_t *offs = malloc((site->n_ligand ? site->n_ligand : 1) * sizeof *offs);
  if (!offs) return sp_err_set(err, SP_E_NOMEM, "out of memory (ligand bonds)");
  const sp_ligand *L = &sv->ligands[lig];
  builder B = {s, site, out, 0, false, 0, malloc((L->n_res ? L->n_res : 1) * sizeof *B.pend)};
  if (!B.pend) B.nomem = true;
  intra_residue(&B, sv, L, ccd, offs);
  B.n_inter = out->n;
  if (L->n_res > 1) peptide_links(&B, sv, L, offs);
  if (L->model == 0) conn_links(&B, sv, lig);
  if (L->model == 0) conect_links(&B, sv, lig);
  polymer_distance_links(&B);
  perceive_pending(&B, offs);
  if (!B.nomem && B.n_inter < out->n) drop_leaving_h(&B);
  free(offs), free(B.pend);
  if (B.nomem) return sp_err_set(err, SP_E_NOMEM, "out of memory (ligand bonds)");
  return 0;
}
