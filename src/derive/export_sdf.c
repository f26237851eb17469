/* The ligand SDF of `sitepack export` (export_internal.h; layout and SD fields: docs/format.md "Export
 * files", values of bond_orders: docs/usage.md "Export"). One record per site: the site's ligand atoms,
 * its /bonds rows inside the ligand (metal bonds left out), formal charges from the CCD or the file,
 * completed by the metal-bond rule and the valence rule (valence.h sp_ligand_charges, which first leaves out a
 * deposited H on a linked atom: the link-hydrogen rule), then the SD fields. */
#include "export_internal.h"

#include <stdlib.h>

#include "sitepack/bonds.h"
#include "sitepack/survey.h"
#include "sitepack/valence.h"

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
  lb->unknown_order = lb->conect_no_orders = lb->any_ccd = lb->any_file = lb->any_conect = lb->any_perceived = 0;
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
    if (!strcmp(src, "perceived")) lb->any_perceived = 1;
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

/* The written formal charges of site i's ligand atoms (lb->q): sp_ligand_charges (valence.h) over the file's
 * charges, the CCD's and the site's /bonds block: the CCD's charge where the atom matches a CCD atom, else the
 * file's; first the link-hydrogen rule leaves out a deposited H on a linked atom it would put above its valence
 * (lb->q.own), then the metal-bond rule (bonds to metals are left out of the SDF, as InChI disconnects them) and
 * the valence rule (four-valent N+, its N-oxide / nitro / azide anion) see the bonds written; /atoms/formal_charge
 * holds the same values (docs/format.md "/atoms"). Returns 0 or SP_E_NOMEM. */
static int ligand_charges(const xfile *x, int64_t i, lig_bonds *lb) {
  int64_t a0 = I64(x->s_aptr, i), k0 = I64(x->s_bptr, i), nb = I64(x->s_bptr, i + 1) - k0;
  int32_t nl = I32(x->s_nlig, i);
  sp_lig_links ln = {(size_t)(I64(x->s_aptr, i + 1) - a0), &F32(x->a_pos, 3 * a0), nb ? &U8(x->b_flags, k0) : NULL,
                     SP_BOND_INTER_RESIDUE | SP_BOND_TO_POLYMER};
  int rc = sp_ligand_charges((size_t)nl, &U8(x->a_el, a0), &I8(x->a_charge, a0), &I8(x->a_ccdc, a0), &U8(x->a_ccda, a0),
                             (size_t)nb, nb ? &I32(x->b_a1, k0) : NULL, nb ? &I32(x->b_a2, k0) : NULL,
                             nb ? &U8(x->b_order, k0) : NULL, &ln, &lb->q);
  lb->over_valence = 0;
  return rc ? SP_E_NOMEM : 0;
}

/* SD field `warning`: every atom whose written valence (lb->q.val: as RDKit counts it from the record, an
 * aromatic bond counted 1, the least RDKit counts, so that only certain excesses are flagged) exceeds what
 * sp_valence_max() (valence.h) allows at its written charge, "atom N NAME COMP/CHAIN/SEQ: E with valence V (at
 * most M at charge C)", "; "-separated. A reader
 * that checks valences (RDKit's sanitization) rejects such a record. Sets lb->over_valence. */
static void valence_warning(FILE *o, const xfile *x, int64_t a0, int32_t nl, lig_bonds *lb) {
  int n = 0;
  for (int32_t k = 0; k < nl; k++) {
    int c = lb->q.charge[k], m = sp_valence_max(U8(x->a_el, a0 + k), c), v = lb->q.val[k];
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

/* lb->num and lb->uf for n atoms. 0 or SP_E_NOMEM (the arrays grown so far are kept). */
static int grow_num(lig_bonds *lb, size_t n) {
  if (n <= lb->cap_num) return 0;
  int32_t *num = realloc(lb->num, n * sizeof *num);
  if (!num) return SP_E_NOMEM;
  lb->num = num;
  int32_t *uf = realloc(lb->uf, n * sizeof *uf);
  if (!uf) return SP_E_NOMEM;
  lb->uf = uf;
  lb->cap_num = n;
  return 0;
}

/* The record's atom numbers (lb->num: 1-based, 0 for a hydrogen the link-hydrogen rule of sp_ligand_charges left
   out, lb->q.own), lb->n_out and lb->n_link_h, and the bond block without the bonds of those hydrogens. 0 or
   SP_E_NOMEM. */
static int written_atoms(const xfile *x, int32_t nl, lig_bonds *lb) {
  if (grow_num(lb, (size_t)nl + 1)) return SP_E_NOMEM;
  lb->n_link_h = lb->q.n_link_h;
  lb->n_out = 0;
  for (int32_t k = 0; k < nl; k++) lb->num[k] = lb->q.own[k] < 0 ? ++lb->n_out : 0;
  if (!lb->n_link_h) return 0;
  size_t w = 0;
  for (size_t b = 0; b < lb->n; b++)
    if (lb->num[I32(x->b_a1, lb->rows[b])] && lb->num[I32(x->b_a2, lb->rows[b])]) lb->rows[w++] = lb->rows[b];
  lb->n = w;
  return 0;
}

/* SD field link_hydrogens: "NAME COMP/CHAIN/SEQ on OWNER (linked to another residue: with it OWNER would have
   valence V)", "; "-separated, for every H that the link-hydrogen rule (valence.h sp_ligand_charges) left out. */
static void link_h_field(FILE *o, const xfile *x, int64_t a0, int32_t nl, const lig_bonds *lb) {
  if (!lb->n_link_h) return;
  fputs(">  <link_hydrogens>\nleft out: ", o);
  for (int32_t k = 0, n = 0; k < nl; k++) {
    if (lb->num[k]) continue;
    char h[96], on[SP_ID_LEN];
    int32_t w = lb->q.own[k];
    xstr(&x->a_name, a0 + w, on, sizeof on);
    fprintf(o, "%s%s on %s (linked to another residue: with it %s would have valence %d)", n++ ? "; " : "",
            atom_label(x, a0, k, h, sizeof h), on, on, lb->q.val[w] + 1);
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
  else if (lb->any_ccd || lb->any_file || lb->any_conect || lb->any_perceived) {
    const char *names[4] = {"ccd", "file", "conect", "perceived"};
    int any[4] = {lb->any_ccd, lb->any_file, lb->any_conect, lb->any_perceived}, first = 1;
    for (int k = 0; k < 4; k++)
      if (any[k]) fprintf(o, "%s%s", first ? "" : " ", names[k]), first = 0;
    fputs("\n\n", o);
  } else {
    fputs("none\n\n", o);
  }
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
  if (lb->q.n_valence_charged) { /* "a:+1" / "a:-1": the charges the valence rule set (1-based atom numbers) */
    fputs(">  <valence_charges>\n", o);
    for (int32_t k = 0, n = 0; k < nl; k++)
      if (lb->q.by_valence[k]) fprintf(o, "%s%d:%+d", n++ ? " " : "", lb->num[k], lb->q.charge[k]);
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
    n_chg += lb->q.charge[k] != 0;
  }
  for (size_t b = 0; b < lb->n; b++) {
    int64_t k = lb->rows[b];
    fprintf(o, "%3d%3d%3d  0\n", lb->num[I32(x->b_a1, k)], lb->num[I32(x->b_a2, k)], sd_bond_type(x, k));
  }
  for (int32_t k = 0, w = 0; k < nl; k++) {
    int c = lb->q.charge[k];
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
    int c = lb->q.charge[k];
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
  if (ligand_charges(x, i, lb)) return SP_E_NOMEM; /* the link-hydrogen rule first, then the charge rules */
  if (written_atoms(x, nl, lb)) return SP_E_NOMEM;
  fragments(x, nl, lb);
  sdf_header(o, id);
  if (lb->n_out > 999 || lb->n > 999) sdf_v3000(o, x, a0, nl, lb);
  else sdf_v2000(o, x, a0, nl, lb);
  sd_fields(o, x, id, i, a0, nl, lb);
  return 0;
}

void sp_export_sdf_free(lig_bonds *lb) {
  free(lb->rows);
  free(lb->metal);
  sp_ligand_charges_free(&lb->q);
  free(lb->num);
  free(lb->uf);
}
