/* Site chemistry, covalent exclusion: the ligand's bonds (sp_ligand_bonds, bonds.h: struct_conn covale /
 * disulf, LINK, the links of branched entities, peptide links, distance-perceived ligand-polymer bonds)
 * give the pairs of a ligand atom and a site atom that are bonded or 1-3 related through a covalent link;
 * no interaction of any type is formed between such a pair, and the polymer atom at the end of a link
 * loses its titratable group and the donor role of the H it lost. Metal bonds (metalc, a metal at either
 * end) are coordination, kept as metal complexes, never a covalent link here. See docs/sites.md
 * ("Covalent exclusion"). */
#include "site/sitechem_internal.h"

#include "sitepack/elements.h"

/* bonded by distance inside the site block: covalent radii + 0.4 Å, as bonds.c's distance bonds */
static int near_bonded(const ctx *c, int32_t a, int32_t b) {
  uint8_t ea = EL(c, a), eb = EL(c, b);
  if (ea == 1 || eb == 1 || sp_element_is_metal(ea) || sp_element_is_metal(eb)) return 0;
  float r = sp_element_covalent_radius(ea) + sp_element_covalent_radius(eb) + 0.4f;
  float d2 = d2f(X(c, a), X(c, b));
  return d2 <= r * r && d2 > 0.16f;
}

static int add_pair(ctx *c, int32_t li, int32_t k) {
  sp_chem_ws *w = c->w;
  for (size_t q = 0; q < w->n_excl; q++)
    if (w->excl[2 * q] == li && w->excl[2 * q + 1] == k) return 0;
  if (SP_GROW(w->excl, w->cap_excl, 2 * w->n_excl + 2)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  w->excl[2 * w->n_excl] = li;
  w->excl[2 * w->n_excl + 1] = k;
  w->n_excl++;
  return 0;
}

/* the excluded pairs of one link L–P (L a ligand atom, P a site atom): L–P, L–(neighbours of P in the site
 * block), (ligand neighbours of L)–P */
static int link_pairs(ctx *c, int32_t l, int32_t p) {
  const sp_bond_list *B = c->bonds;
  int rc = add_pair(c, l, p);
  for (size_t k = c->site->n_ligand; k < c->site->n_atoms && !rc; k++)
    if ((int32_t)k != p && near_bonded(c, p, (int32_t)k)) rc = add_pair(c, l, (int32_t)k);
  for (size_t q = 0; q < B->n && !rc; q++) {
    const sp_bond *b = &B->bonds[q];
    if (b->b >= c->site->n_ligand || (b->flags & SP_BOND_TO_METAL)) continue; /* intra-ligand bonds only */
    if (b->a == (uint32_t)l) rc = add_pair(c, (int32_t)b->b, p);
    else if (b->b == (uint32_t)l) rc = add_pair(c, (int32_t)b->a, p);
  }
  return rc;
}

int sp_chem_covalent(ctx *c, sp_ccd *ccd) {
  sp_chem_ws *w = c->w;
  w->n_excl = w->n_linked = 0;
  int rc = 0;
  if (!c->bonds) { /* not given (sp_chem_opts.bonds): made here */
    rc = sp_ligand_bonds(c->s, c->sv, c->lig, c->site, ccd, &w->bonds, c->err);
    if (rc) return rc;
    c->bonds = &w->bonds;
  }
  for (size_t q = 0; q < c->bonds->n && !rc; q++) {
    const sp_bond *b = &c->bonds->bonds[q];
    if (b->b < c->site->n_ligand || (b->flags & SP_BOND_TO_METAL)) continue;
    if (SP_GROW(w->linked, w->cap_linked, 2 * w->n_linked + 2))
      return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
    w->linked[2 * w->n_linked] = (int32_t)b->b;
    w->linked[2 * w->n_linked + 1] = (int32_t)b->a;
    w->n_linked++;
    rc = link_pairs(c, (int32_t)b->a, (int32_t)b->b);
  }
  return rc;
}

int sp_chem_excluded(const ctx *c, int32_t li, int32_t k) {
  const sp_chem_ws *w = c->w;
  for (size_t q = 0; q < w->n_excl; q++)
    if (w->excl[2 * q] == li && w->excl[2 * q + 1] == k) return 1;
  return 0;
}

int32_t sp_chem_linked(const ctx *c, int32_t k) {
  const sp_chem_ws *w = c->w;
  for (size_t q = 0; q < w->n_linked; q++)
    if (w->linked[2 * q] == k) return w->linked[2 * q + 1];
  return -1;
}

int sp_chem_lys_linked_neutral(const ctx *c, int32_t nz) {
  int32_t p = sp_chem_linked(c, nz);
  if (p < 0) return 0;
  int32_t i = c->w->lmap[p];
  /* an acylated / sulfonylated / phosphorylated NZ (amide, carbamate, sulfonamide) is neutral; an NZ on a
   * carbon without O (Schiff base with PLP, C4A=NZ, or a reduced secondary amine) stays basic: the
   * protonated internal aldimine is cationic at pH 7.4 (pKa > 10, Metzler, JACS 1957, 79, 485; PLIP types
   * that NZ positive too, 1AY8 Lys258) */
  return EL(c, p) != 6 || i < 0 || n_el(c, i, 8) > 0;
}

int sp_chem_groups_excluded(const ctx *c, const int32_t *la, int nla, const int32_t *sa, int nsa) {
  if (!c->w->n_excl) return 0;
  for (int i = 0; i < nla; i++)
    for (int j = 0; j < nsa; j++)
      if (sp_chem_excluded(c, la[i], sa[j])) return 1;
  return 0;
}

void sp_chem_linked_donors(ctx *c) {
  /* Ser OG, Thr OG1, Tyr OH, Cys SG and His ND1 / NE2 bonded to the ligand lost their H (an ether,
   * thioether or N-substituted imidazole): no longer donors. Lys NZ keeps an H and stays a donor. */
  static const char *const lost[][2] = {{"SER", "OG"}, {"THR", "OG1"}, {"TYR", "OH"}, {"CYS", "SG"},
                                        {"HIS", "ND1"}, {"HIS", "NE2"}};
  for (size_t q = 0; q < c->w->n_linked; q++) {
    int32_t k = c->w->linked[2 * q];
    if (!is_polymer_atom(c, k)) continue;
    for (size_t t = 0; t < sizeof lost / sizeof *lost; t++)
      if (!strcmp(RNAME(c, k), lost[t][0]) && !strcmp(ANAME(c, k), lost[t][1]))
        c->out->atom_chem[k] &= (uint16_t)~SP_CHEM_DONOR;
  }
}
