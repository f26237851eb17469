/* The ligand SDF of `sitepack export` (export_internal.h; layout and SD fields: docs/format.md "Export
 * files", values of bond_orders: docs/usage.md "Export"). One record per site: the site's ligand atoms,
 * its /bonds rows inside the ligand (metal bonds left out), formal charges from the CCD or the file,
 * completed by the metal-bond rule and the valence rule below, then the SD fields. */
#include "export_internal.h"

#include <stdlib.h>

#include "sitepack/bonds.h"
#include "sitepack/survey.h"

/* The formal charge of atom row a: the CCD's when the atom matches a CCD atom, else the file's. */
static int atom_charge(const xfile *x, int64_t a) {
  return (U8(x->a_ccda, a) & SP_CCD_ATOM_MATCHED) ? I8(x->a_ccdc, a) : I8(x->a_charge, a);
}

/* Valence of a neutral atom of element z for the metal-bond rule below (N 3, O/S/Se 2, C 4, P 3), 0 otherwise. */
static int neutral_valence(uint8_t z) {
  switch (z) {
    case 6: return 4;
    case 7: case 15: return 3;
    case 8: case 16: case 34: return 2;
    default: return 0;
  }
}

/* The largest valence RDKit accepts for element z at formal charge c, -1 where this check does not judge:
 * RDKit's default valence lists (its periodic table, Code/GraphMol/atomic_data.cpp: H 1, B 3, C 4, N 3,
 * O 2, F 1, Si 4/6, P 3/5/7, S 2/4/6, Cl 1, As 3/5/7, Se 2/4/6, Br 1, Te 2/4/6, I 1/3/5: the largest is
 * taken), and for a charged B..F atom the list of its isoelectronic neutral element (N+ as C: 4, O+ as N:
 * 3, O- as F: 1), as RDKit does for these elements. Metals, noble gases and other charged atoms: -1. */
static int max_valence(uint8_t z, int c) {
  if (c) {
    if (z < 5 || z > 9 || z - c < 5 || z - c > 9) return -1;
    z = (uint8_t)(z - c);
  }
  switch (z) {
    case 1: case 9: case 17: case 35: return 1;
    case 5: return 3;
    case 6: return 4;
    case 7: return 3;
    case 8: return 2;
    case 14: case 16: case 34: case 52: return 6;
    case 15: case 33: return 7;
    case 53: return 5;
    default: return -1;
  }
}

static int push_row(int64_t **v, size_t *n, size_t *cap, int64_t k) {
  if (*n == *cap) {
    size_t nc = *cap ? 2 * *cap : 64;
    int64_t *p = realloc(*v, nc * sizeof *p);
    if (!p) return SP_E_NOMEM;
    *v = p;
    *cap = nc;
  }
  (*v)[(*n)++] = k;
  return 0;
}

static int is_metal_bond(const xfile *x, int64_t a0, int64_t k) {
  return sp_element_is_metal(U8(x->a_el, a0 + I32(x->b_a1, k))) || sp_element_is_metal(U8(x->a_el, a0 + I32(x->b_a2, k)));
}

int sp_export_conect_orders(xfile *x) {
  x->st_conect_orders = calloc((size_t)(x->n_st > 0 ? x->n_st : 1), 1);
  if (!x->st_conect_orders) return SP_E_NOMEM;
  for (int64_t i = 0; i < x->n_site; i++)
    for (int64_t k = I64(x->s_bptr, i); k < I64(x->s_bptr, i + 1); k++) {
      char src[16];
      if (U8(x->b_order, k) > 1 && !strcmp(xstr(&x->b_src, k, src, sizeof src), "conect"))
        x->st_conect_orders[I64(x->s_st, i)] = 1;
    }
  return 0;
}

/* The bonds of site i inside its ligand (both atoms < n_ligand) into lb->rows (bonds to metals into
 * lb->metal), and the sources of their orders. A bond inside one residue from CONECT, in an entry whose
 * CONECT bonds all have order 1 (no record repeated: wwPDB's archive files), gives connectivity only. */
static int collect_bonds(const xfile *x, int64_t i, lig_bonds *lb) {
  int32_t nl = I32(x->s_nlig, i);
  int64_t a0 = I64(x->s_aptr, i);
  int conect_orders = x->st_conect_orders[I64(x->s_st, i)];
  lb->n = lb->n_metal = 0;
  lb->unknown_order = lb->conect_no_orders = lb->any_ccd = lb->any_file = lb->any_conect = 0;
  for (int64_t k = I64(x->s_bptr, i); k < I64(x->s_bptr, i + 1); k++) {
    if (I32(x->b_a2, k) >= nl) continue;
    if (is_metal_bond(x, a0, k)) {
      if (push_row(&lb->metal, &lb->n_metal, &lb->cap_metal, k)) return SP_E_NOMEM;
      continue;
    }
    if (push_row(&lb->rows, &lb->n, &lb->cap, k)) return SP_E_NOMEM;
    char src[16];
    xstr(&x->b_src, k, src, sizeof src);
    if (U8(x->b_order, k) == 0) lb->unknown_order = 1;
    if (!strcmp(src, "ccd")) lb->any_ccd = 1;
    if (!strcmp(src, "file")) lb->any_file = 1;
    if (!strcmp(src, "conect")) {
      lb->any_conect = 1;
      if (!conect_orders && !(U8(x->b_flags, k) & SP_BOND_INTER_RESIDUE)) lb->conect_no_orders = 1;
    }
  }
  return 0;
}

/* SD bond type: the Kekulé order; 4 aromatic; unknown -> 1 (single). */
static int sd_bond_type(const xfile *x, int64_t k) {
  int o = U8(x->b_order, k);
  return o >= 1 && o <= 4 ? o : 1;
}

/* lb's per-atom arrays for at least n atoms. Returns 0 or SP_E_NOMEM (the arrays grown so far are kept). */
static int grow_atoms(lig_bonds *lb, size_t n) {
  if (n <= lb->cap_dq) return 0;
  int *dq = realloc(lb->dq, n * sizeof *dq);
  if (!dq) return SP_E_NOMEM;
  lb->dq = dq;
  int *deg = realloc(lb->deg, n * sizeof *deg);
  if (!deg) return SP_E_NOMEM;
  lb->deg = deg;
  int *val = realloc(lb->val, n * sizeof *val);
  if (!val) return SP_E_NOMEM;
  lb->val = val;
  uint8_t *byv = realloc(lb->by_valence, n);
  if (!byv) return SP_E_NOMEM;
  lb->by_valence = byv;
  uint8_t *arom = realloc(lb->arom, n);
  if (!arom) return SP_E_NOMEM;
  lb->arom = arom;
  lb->cap_dq = n;
  return 0;
}

/* The per-atom arrays of lb for nl atoms: charges zeroed, degrees and valences of the bond block counted. */
static int atom_space(const xfile *x, lig_bonds *lb, int32_t nl) {
  size_t n = (size_t)nl + 1;
  if (grow_atoms(lb, n)) return SP_E_NOMEM;
  memset(lb->dq, 0, n * sizeof *lb->dq);
  memset(lb->deg, 0, n * sizeof *lb->deg);
  memset(lb->val, 0, n * sizeof *lb->val);
  memset(lb->by_valence, 0, n);
  memset(lb->arom, 0, n);
  for (size_t b = 0; b < lb->n; b++) {
    int64_t r = lb->rows[b];
    int t = sd_bond_type(x, r);
    for (int e = 0; e < 2; e++) {
      int32_t k = e ? I32(x->b_a2, r) : I32(x->b_a1, r);
      lb->deg[k]++;
      lb->val[k] += t == 4 ? 1 : t;
      if (t == 4) lb->arom[k] = 1;
    }
  }
  lb->n_valence_charged = 0;
  lb->over_valence = 0;
  return 0;
}

/* Bonds to metals are left out of the SDF, as InChI disconnects them; an atom X whose metal bond
 * completed its neutral valence (X's other bonds + 1 <= its neutral valence: a pyrrole N of a haem,
 * a deprotonated O) takes charge -1 and the metal +1, so that no hydrogen is added where the metal was
 * (InChI's own disconnection does the same). A dative bond (X already at its valence: the imine N of a
 * haem) changes no charge. */
static void metal_charges(const xfile *x, int64_t a0, lig_bonds *lb) {
  for (size_t m = 0; m < lb->n_metal; m++) {
    int32_t a = I32(x->b_a1, lb->metal[m]), b = I32(x->b_a2, lb->metal[m]);
    int32_t metal = sp_element_is_metal(U8(x->a_el, a0 + a)) ? a : b, other = metal == a ? b : a;
    int nv = neutral_valence(U8(x->a_el, a0 + other));
    if (!nv || atom_charge(x, a0 + other) + lb->dq[other] != 0 || sp_element_is_metal(U8(x->a_el, a0 + other))) continue;
    if (lb->val[other] + 1 <= nv) {
      lb->dq[other] -= 1;
      lb->dq[metal] += 1;
    }
  }
}

/* An uncharged atom that no CCD atom gives a charge (ccd_atom bit 0 clear: no CCD block, or a name the
 * block does not have): the valence rule may set its charge. */
static int charge_open(const xfile *x, int64_t a0, const lig_bonds *lb, int32_t k) {
  return !(U8(x->a_ccda, a0 + k) & SP_CCD_ATOM_MATCHED) && atom_charge(x, a0 + k) + lb->dq[k] == 0;
}

/* The valence rule, for atoms without a CCD charge (charge_open). An N whose bonds in the bond block
 * add up to valence 4 (four single bonds, hydrogens included where the file has them; or a double bond
 * among them: the central N of an azide, a nitro N), none aromatic, has four bonding pairs and no lone
 * pair: it can only be N+ (the standard valence of a neutral N is 3, of N+ 4: RDKit's and Open Babel's
 * valence tables). Its terminal partner without hydrogen is then the anion of the zwitterion: a singly
 * bonded O of an amine N-oxide R3N+-O- or a nitro group R-N+(=O)-O-, a doubly bonded N of an azide
 * R-N=N+=N- (IUPAC Gold Book, "amine oxides", "nitro compounds", "azides"). The site chemistry applies
 * the N+ / N-oxide rule too (docs/sites.md "ligand bond graph"). A three-connected O is not made an
 * oxonium: trialkyl oxonium ions do not persist in water, and the corpus's one such O was a deposited
 * hydrogen left on a glycosidic O, which link_hydrogens() leaves out (docs/usage.md "Export"). */
static void valence_charges(const xfile *x, int64_t a0, int32_t nl, lig_bonds *lb) {
  for (int32_t k = 0; k < nl; k++) {
    if (U8(x->a_el, a0 + k) != 7 || !charge_open(x, a0, lb, k) || lb->val[k] != 4 || lb->arom[k]) continue;
    lb->dq[k] += 1;
    lb->by_valence[k] = 1;
    lb->n_valence_charged++;
    for (size_t b = 0; b < lb->n; b++) {
      int64_t r = lb->rows[b];
      int32_t a = I32(x->b_a1, r), c = I32(x->b_a2, r), o = a == k ? c : c == k ? a : -1;
      if (o < 0 || lb->deg[o] != 1 || !charge_open(x, a0, lb, o)) continue;
      uint8_t el = U8(x->a_el, a0 + o);
      int t = sd_bond_type(x, r);
      if (!((el == 8 && t == 1) || (el == 7 && t == 2))) continue;
      lb->dq[o] -= 1;
      lb->by_valence[o] = 1;
      lb->n_valence_charged++;
    }
  }
}

/* SD field `warning`: every atom whose written valence (lb->val: as RDKit counts it from the record, an
 * aromatic bond counted 1, the least RDKit counts, so that only certain excesses are flagged) exceeds what max_valence() allows at its written
 * charge, "atom N NAME COMP/CHAIN/SEQ: E with valence V (at most M at charge C)", "; "-separated. A reader
 * that checks valences (RDKit's sanitization) rejects such a record. Sets lb->over_valence. */
static void valence_warning(FILE *o, const xfile *x, int64_t a0, int32_t nl, lig_bonds *lb) {
  int n = 0;
  for (int32_t k = 0; k < nl; k++) {
    int c = atom_charge(x, a0 + k) + lb->dq[k], m = max_valence(U8(x->a_el, a0 + k), c), v = lb->val[k];
    if (m < 0 || v <= m || !lb->num[k]) continue;
    if (!lb->over_valence) lb->over_valence = lb->num[k];
    int64_t r = I64(x->a_res, a0 + k);
    char name[SP_ID_LEN], comp[SP_ID_LEN], chain[SP_ID_LEN], ins[8];
    int32_t seq = I32(x->r_seq, r);
    xstr(&x->a_name, a0 + k, name, sizeof name);
    xstr(&x->r_comp, r, comp, sizeof comp);
    xstr(&x->r_auth, r, chain, sizeof chain);
    xstr(&x->r_ins, r, ins, sizeof ins);
    fprintf(o, "%s", n++ ? "; " : ">  <warning>\n");
    if (seq == SP_SEQ_NONE) fprintf(o, "atom %d %s %s/%s/.%s", lb->num[k], name, comp, chain, ins);
    else fprintf(o, "atom %d %s %s/%s/%d%s", lb->num[k], name, comp, chain, (int)seq, ins);
    fprintf(o, ": %s with valence %d (at most %d at charge %d)", xelem(U8(x->a_el, a0 + k)), v, m, c);
  }
  if (n) fputs(", not sanitizable\n\n", o);
}

/* ---- issue 39: deposited hydrogens on linked atoms left out; fragments of the written molecule ---- */

/* "NAME COMP/CHAIN/SEQ[INS]" of ligand atom k (SEQ "." when absent) into out. */
static const char *atom_label(const xfile *x, int64_t a0, int32_t k, char *out, size_t cap) {
  int64_t r = I64(x->a_res, a0 + k);
  char name[SP_ID_LEN], comp[SP_ID_LEN], chain[SP_ID_LEN], ins[8], seq[16] = ".";
  int32_t s = I32(x->r_seq, r);
  if (s != SP_SEQ_NONE) snprintf(seq, sizeof seq, "%d", (int)s);
  snprintf(out, cap, "%s %s/%s/%s%s", xstr(&x->a_name, a0 + k, name, sizeof name),
           xstr(&x->r_comp, r, comp, sizeof comp), xstr(&x->r_auth, r, chain, sizeof chain), seq,
           xstr(&x->r_ins, r, ins, sizeof ins));
  return out;
}

/* 1 when ligand atom k of site i is linked to another residue: a /bonds row of the site, not to a metal, between
   two residues (a glycosidic link inside the ligand, or a covalent link to a polymer atom of the site). */
static int is_linked(const xfile *x, int64_t i, int64_t a0, int32_t k) {
  for (int64_t r = I64(x->s_bptr, i); r < I64(x->s_bptr, i + 1); r++)
    if ((I32(x->b_a1, r) == k || I32(x->b_a2, r) == k) && !is_metal_bond(x, a0, r) &&
        (U8(x->b_flags, r) & (SP_BOND_INTER_RESIDUE | SP_BOND_TO_POLYMER)))
      return 1;
  return 0;
}

/* The heavy atom that hydrogen k is deposited on: its one bond partner in the bond block; without a bond there,
   the nearest heavy ligand atom within 1.3 A (X-H bonds are 0.96-1.10 A: Allen et al., J. Chem. Soc. Perkin
   Trans. 2, 1987, S1; a CCD leaving hydrogen whose bond went with its link, HO4 of a linked NAG). -1: none, or
   an H with more than one bond or a bond to a metal (left alone). */
static int32_t h_owner(const xfile *x, int64_t a0, int32_t nl, const lig_bonds *lb, int32_t k) {
  for (size_t m = 0; m < lb->n_metal; m++)
    if (I32(x->b_a1, lb->metal[m]) == k || I32(x->b_a2, lb->metal[m]) == k) return -1;
  if (lb->deg[k] == 1)
    for (size_t b = 0; b < lb->n; b++) {
      int32_t a = I32(x->b_a1, lb->rows[b]), c = I32(x->b_a2, lb->rows[b]);
      if (a == k || c == k) return a == k ? c : a;
    }
  if (lb->deg[k]) return -1;
  const float *p = &F32(x->a_pos, 3 * (a0 + k));
  int32_t best = -1;
  float best_d2 = 1.3f * 1.3f;
  for (int32_t j = 0; j < nl; j++) {
    if (U8(x->a_el, a0 + j) <= 1) continue;
    const float *q = &F32(x->a_pos, 3 * (a0 + j));
    float d2 = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]);
    if (d2 < best_d2) best_d2 = d2, best = j;
  }
  return best;
}

/* Take bond block row b (an H's one bond) out of the block: both its atoms lose it. */
static void drop_bond(const xfile *x, lig_bonds *lb, size_t b) {
  int64_t r = lb->rows[b];
  int t = sd_bond_type(x, r);
  for (int e = 0; e < 2; e++) {
    int32_t a = e ? I32(x->b_a2, r) : I32(x->b_a1, r);
    lb->deg[a]--;
    lb->val[a] -= t == 4 ? 1 : t;
  }
  memmove(lb->rows + b, lb->rows + b + 1, (lb->n - b - 1) * sizeof *lb->rows);
  lb->n--;
}

/* lb->num, lb->own and lb->uf for n atoms. 0 or SP_E_NOMEM (the arrays grown so far are kept). */
static int grow_num(lig_bonds *lb, size_t n) {
  if (n <= lb->cap_num) return 0;
  int32_t *num = realloc(lb->num, n * sizeof *num);
  if (!num) return SP_E_NOMEM;
  lb->num = num;
  int32_t *own = realloc(lb->own, n * sizeof *own);
  if (!own) return SP_E_NOMEM;
  lb->own = own;
  int32_t *uf = realloc(lb->uf, n * sizeof *uf);
  if (!uf) return SP_E_NOMEM;
  lb->uf = uf;
  lb->cap_num = n;
  return 0;
}

/* A deposited hydrogen on an atom X that a link uses (is_linked), where the H would put X above the valence
   RDKit allows at X's charge (max_valence: the glycosidic O6 of a BMA that keeps its HO6, valence 3), is left out
   of the written molecule: the link took the H's place, as the CCD's leaving-atom flags say of the free
   component (HO6, HO4 of the sugars). One H per unit of excess. Sets lb->num (the written 1-based atom number
   of each ligand atom, 0 for one left out), lb->n_out, lb->n_link_h and lb->own (per H left out: its X, for the
   SD field link_hydrogens; -1 for every other atom). 0 or SP_E_NOMEM. */
static int link_hydrogens(const xfile *x, int64_t i, int64_t a0, int32_t nl, lig_bonds *lb) {
  if (grow_num(lb, (size_t)nl + 1)) return SP_E_NOMEM;
  lb->n_link_h = 0;
  for (int32_t k = 0; k < nl; k++) lb->num[k] = 1, lb->own[k] = -1;
  for (int32_t k = 0; k < nl; k++) {
    if (U8(x->a_el, a0 + k) != 1) continue;
    int32_t o = h_owner(x, a0, nl, lb, k);
    if (o < 0 || !is_linked(x, i, a0, o)) continue;
    int m = max_valence(U8(x->a_el, a0 + o), atom_charge(x, a0 + o));
    if (m < 0 || lb->val[o] + (lb->deg[k] ? 0 : 1) <= m) continue;
    for (size_t b = 0; lb->deg[k] && b < lb->n; b++)
      if (I32(x->b_a1, lb->rows[b]) == k || I32(x->b_a2, lb->rows[b]) == k) drop_bond(x, lb, b);
    lb->num[k] = 0;
    lb->own[k] = o;
    lb->n_link_h++;
  }
  lb->n_out = 0;
  for (int32_t k = 0; k < nl; k++)
    if (lb->num[k]) lb->num[k] = ++lb->n_out;
  return 0;
}

/* SD field link_hydrogens: "NAME COMP/CHAIN/SEQ on OWNER (linked to another residue: with it OWNER would have
   valence V)", "; "-separated, for every H that link_hydrogens() left out. */
static void link_h_field(FILE *o, const xfile *x, int64_t a0, int32_t nl, const lig_bonds *lb) {
  if (!lb->n_link_h) return;
  fputs(">  <link_hydrogens>\nleft out: ", o);
  for (int32_t k = 0, n = 0; k < nl; k++) {
    if (lb->num[k]) continue;
    char h[96], on[SP_ID_LEN];
    int32_t w = lb->own[k];
    xstr(&x->a_name, a0 + w, on, sizeof on);
    fprintf(o, "%s%s on %s (linked to another residue: with it %s would have valence %d)", n++ ? "; " : "",
            atom_label(x, a0, k, h, sizeof h), on, on, lb->val[w] + 1);
  }
  fputs("\n\n", o);
}

static int32_t uf_find(int32_t *uf, int32_t a) {
  while (uf[a] >= 0) a = uf[a];
  return a;
}

static void uf_join(int32_t *uf, int32_t a, int32_t b) {
  a = uf_find(uf, a);
  b = uf_find(uf, b);
  if (a != b) uf[a > b ? a : b] = a > b ? b : a; /* the lower atom is the root */
}

/* The connected fragments of the written molecule: its bond block and its bonds to metals (left out of the
   block, listed in metal_bonds) join atoms. Sets lb->n_frag and the union-find lb->uf. */
static void fragments(const xfile *x, int32_t nl, lig_bonds *lb) {
  for (int32_t k = 0; k < nl; k++) lb->uf[k] = -1;
  for (size_t b = 0; b < lb->n + lb->n_metal; b++) {
    int64_t r = b < lb->n ? lb->rows[b] : lb->metal[b - lb->n];
    uf_join(lb->uf, I32(x->b_a1, r), I32(x->b_a2, r));
  }
  lb->n_frag = 0;
  for (int32_t k = 0; k < nl; k++) lb->n_frag += lb->num[k] && lb->uf[k] < 0;
}

/* SD field fragments, when the written molecule is more than one fragment: "warning: N disconnected fragments
   of S1, S2, ... atoms; not in the largest: atoms A B ... (...)" (sizes in order of each fragment's first atom,
   written atom numbers, at most 32 listed). A ligand instance is one molecule (the survey joins residues by
   their bonds), so more fragments say that the bond block misses bonds: bonds from distances on a disordered
   ligand, or atoms the file's bond table leaves out. */
static void fragments_field(FILE *o, int32_t nl, const lig_bonds *lb) {
  if (lb->n_frag < 2) return;
  int32_t big = -1, big_n = 0, f = 0;
  fprintf(o, ">  <fragments>\nwarning: %d disconnected fragments of ", lb->n_frag);
  for (int32_t k = 0; k < nl; k++) {
    if (!lb->num[k] || lb->uf[k] >= 0) continue;
    int32_t n = 0;
    for (int32_t j = 0; j < nl; j++) n += lb->num[j] && uf_find(lb->uf, j) == k;
    if (n > big_n) big_n = n, big = k;
    if (f < 10) fprintf(o, "%s%d", f ? ", " : "", n);
    else if (f == 10) fputs(", ...", o);
    f++;
  }
  fputs(" atoms; not in the largest: atoms", o);
  int listed = 0, more = 0;
  for (int32_t j = 0; j < nl; j++) {
    if (!lb->num[j] || uf_find(lb->uf, j) == big) continue;
    if (listed < 32) fprintf(o, " %d", lb->num[j]), listed++;
    else more++;
  }
  if (more) fprintf(o, " ... %d more", more);
  fputs(" (the bond block does not join them: bonds from distances on a disordered ligand, or atoms the file's "
        "bond table leaves out)\n\n", o);
}

static void flag_names(uint32_t flags, char *out, size_t cap) {
  size_t u = 0;
  out[0] = '\0';
  for (int b = 0; b < 32; b++) {
    if (!(flags & (1u << b))) continue;
    const char *nm = sp_ligand_flag_name(b);
    int n = snprintf(out + u, cap - u, "%s%s", u ? " " : "", nm ? nm : "?");
    if (n < 0 || (size_t)n >= cap - u) break;
    u += (size_t)n;
  }
}

static const char *comp_inchikey(const xfile *x, const char *comp, char *out, size_t cap) {
  out[0] = '\0';
  char c[SP_ID_LEN];
  for (int64_t k = 0; k < x->n_comp; k++)
    if (!strcmp(xstr(&x->c_comp, k, c, sizeof c), comp)) return xstr(&x->c_inchikey, k, out, cap);
  return out;
}

/* SD field bond_orders (the values: docs/usage.md "Export"). */
static void bond_orders_field(FILE *o, const lig_bonds *lb) {
  fputs(">  <bond_orders>\n", o);
  if (lb->unknown_order || lb->conect_no_orders)
    fprintf(o, "unknown: bond orders not known (%s%s%s); written as single bonds\n\n",
            lb->unknown_order ? "no CCD block and no bond table in the file: bonds from distances" : "",
            lb->unknown_order && lb->conect_no_orders ? "; " : "",
            lb->conect_no_orders ? "bonds from CONECT records, which give connectivity only in this entry" : "");
  else if (lb->any_ccd || lb->any_file || lb->any_conect)
    fprintf(o, "%s%s%s\n\n", lb->any_ccd ? "ccd" : "", lb->any_file ? (lb->any_ccd ? " file" : "file") : "",
            lb->any_conect ? (lb->any_ccd || lb->any_file ? " conect" : "conect") : "");
  else
    fputs("none\n\n", o);
}

static void sd_fields(FILE *o, const xfile *x, const site_id *id, int64_t i, int64_t a0, int32_t nl, lig_bonds *lb) {
  char buf[256], key[SP_KEY_LEN + 1], src[20], cls[20], ik[32];
  uint32_t fl = U32(x->l_flags, id->lig);
  flag_names(fl, buf, sizeof buf);
  fprintf(o, ">  <comp_id>\n%s\n\n", id->comp);
  fprintf(o, ">  <molecule_key>\n%s\n\n", xstr(&x->l_key, id->lig, key, sizeof key));
  fprintf(o, ">  <inchikey>\n%s\n\n", comp_inchikey(x, id->comp, ik, sizeof ik));
  fprintf(o, ">  <class>\n%s\n\n", xstr(&x->l_cls, id->lig, cls, sizeof cls));
  fprintf(o, ">  <flags>\n%s\n\n", buf);
  fprintf(o, ">  <key_source>\n%s\n\n", xstr(&x->l_src, id->lig, src, sizeof src));
  fprintf(o, ">  <site_idx>\n%lld\n\n", (long long)i);
  fprintf(o, ">  <residues>\n%s\n\n", xstr(&x->l_residues, id->lig, buf, sizeof buf));
  bond_orders_field(o, lb);
  if (lb->n_metal) { /* "a-b" atom numbers (1-based) of the bonds to metals left out of the bond block */
    fputs(">  <metal_bonds>\n", o);
    for (size_t b = 0; b < lb->n_metal; b++)
      fprintf(o, "%s%d-%d", b ? " " : "", lb->num[I32(x->b_a1, lb->metal[b])], lb->num[I32(x->b_a2, lb->metal[b])]);
    fputs("\n\n", o);
  }
  if (lb->n_valence_charged) { /* "a:+1" / "a:-1": the charges the valence rule set (1-based atom numbers) */
    fputs(">  <valence_charges>\n", o);
    for (int32_t k = 0, n = 0; k < nl; k++)
      if (lb->by_valence[k]) fprintf(o, "%s%d:%+d", n++ ? " " : "", lb->num[k], atom_charge(x, a0 + k) + lb->dq[k]);
    fputs("\n\n", o);
  }
  valence_warning(o, x, a0, nl, lb);
  link_h_field(o, x, a0, nl, lb);
  fragments_field(o, nl, lb);
  fputs("$$$$\n", o);
}

static void sdf_header(FILE *o, const site_id *id) {
  fprintf(o, "%s %s %s %s\n", id->entry, id->comp, id->chain[0] ? id->chain : "-", id->seq);
  fputs("  sitepack        3D\n\n", o);
}

/* V2000 block: up to 999 atoms and bonds, no metal bond. */
static void sdf_v2000(FILE *o, const xfile *x, int64_t a0, int32_t nl, const lig_bonds *lb) {
  fprintf(o, "%3d%3zu  0  0  0  0  0  0  0  0999 V2000\n", lb->n_out, lb->n);
  int n_chg = 0;
  for (int32_t k = 0; k < nl; k++) {
    if (!lb->num[k]) continue; /* a hydrogen left out (link_hydrogens) */
    const float *p = &F32(x->a_pos, 3 * (a0 + k));
    fprintf(o, "%10.4f%10.4f%10.4f %-3s 0  0  0  0  0  0  0  0  0  0  0  0\n", p[0], p[1], p[2], xelem(U8(x->a_el, a0 + k)));
    n_chg += atom_charge(x, a0 + k) + lb->dq[k] != 0;
  }
  for (size_t b = 0; b < lb->n; b++) {
    int64_t k = lb->rows[b];
    fprintf(o, "%3d%3d%3d  0\n", lb->num[I32(x->b_a1, k)], lb->num[I32(x->b_a2, k)], sd_bond_type(x, k));
  }
  for (int32_t k = 0, w = 0; k < nl; k++) {
    int c = atom_charge(x, a0 + k) + lb->dq[k];
    if (!c || !lb->num[k]) continue;
    if (w % 8 == 0) fprintf(o, "M  CHG%3d", n_chg - w < 8 ? n_chg - w : 8);
    fprintf(o, " %3d %3d", lb->num[k], c);
    if (++w % 8 == 0 || w == n_chg) fputc('\n', o);
  }
  fputs("M  END\n", o);
}

/* V3000 block: more than 999 atoms or bonds. */
static void sdf_v3000(FILE *o, const xfile *x, int64_t a0, int32_t nl, const lig_bonds *lb) {
  fputs("  0  0  0     0  0            999 V3000\n", o);
  fputs("M  V30 BEGIN CTAB\n", o);
  fprintf(o, "M  V30 COUNTS %d %zu 0 0 0\n", lb->n_out, lb->n);
  fputs("M  V30 BEGIN ATOM\n", o);
  for (int32_t k = 0; k < nl; k++) {
    if (!lb->num[k]) continue; /* a hydrogen left out (link_hydrogens) */
    const float *p = &F32(x->a_pos, 3 * (a0 + k));
    int c = atom_charge(x, a0 + k) + lb->dq[k];
    fprintf(o, "M  V30 %d %s %.4f %.4f %.4f 0", lb->num[k], xelem(U8(x->a_el, a0 + k)), p[0], p[1], p[2]);
    if (c) fprintf(o, " CHG=%d", c);
    fputc('\n', o);
  }
  fputs("M  V30 END ATOM\n", o);
  if (lb->n) fputs("M  V30 BEGIN BOND\n", o);
  for (size_t b = 0; b < lb->n; b++) {
    int64_t k = lb->rows[b];
    fprintf(o, "M  V30 %zu %d %d %d\n", b + 1, sd_bond_type(x, k), lb->num[I32(x->b_a1, k)],
            lb->num[I32(x->b_a2, k)]);
  }
  if (lb->n) fputs("M  V30 END BOND\n", o);
  fputs("M  V30 END CTAB\nM  END\n", o);
}

int sp_export_write_sdf(FILE *o, const xfile *x, int64_t i, const site_id *id, lig_bonds *lb) {
  if (collect_bonds(x, i, lb)) return SP_E_NOMEM;
  int64_t a0 = I64(x->s_aptr, i);
  int32_t nl = I32(x->s_nlig, i);
  if (atom_space(x, lb, nl)) return SP_E_NOMEM;
  if (link_hydrogens(x, i, a0, nl, lb)) return SP_E_NOMEM; /* before the charge rules: they see the bonds written */
  fragments(x, nl, lb);
  metal_charges(x, a0, lb);
  valence_charges(x, a0, nl, lb);
  sdf_header(o, id);
  if (lb->n_out > 999 || lb->n > 999) sdf_v3000(o, x, a0, nl, lb);
  else sdf_v2000(o, x, a0, nl, lb);
  sd_fields(o, x, id, i, a0, nl, lb);
  return 0;
}

void sp_export_sdf_free(lig_bonds *lb) {
  free(lb->rows);
  free(lb->metal);
  free(lb->dq);
  free(lb->by_valence);
  free(lb->deg);
  free(lb->val);
  free(lb->arom);
  free(lb->num);
  free(lb->own);
  free(lb->uf);
}
