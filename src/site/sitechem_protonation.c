/* Site chemistry, protonation at the pH: the titratable and permanently charged groups of the ligand
 * (from its graph) and of the site's residues (templates of the standard residues, the nucleic-acid
 * phosphodiester), each with its model pKa, fraction protonated (Henderson–Hasselbalch) and most
 * probable charge; the aromatic rings of the residues. See sitechem.h and docs/sites.md ("Ligand groups"). */
#include "site/sitechem_internal.h"
#include "sitepack/elements.h"

static int add_group_pka(ctx *c, int kind, int ligand, int8_t qp, int8_t qd, int32_t head, const int32_t *atoms, int na,
                         double pka) {
  sp_site_chem *o = c->out;
  if (SP_GROW(o->groups, o->cap_groups, o->n_groups + 1))
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

/* The charge centre of the HIS group just added: the mean of ND1 and NE2, as PLIP's find_charged takes the
 * centroid of a charged residue's side-chain N (plip/structure/preparation.py, BindingSite find_charged:
 * ARG, HIS, LYS atoms typed N.. in the side chain); the group's atoms stay ND1, NE2, CE1, CG. Returns 0. */
static int his_centre(ctx *c, int32_t nd1, int32_t ne2) {
  sp_titr_group *g = &c->out->groups[c->out->n_groups - 1];
  for (int d = 0; d < 3; d++) g->center[d] = 0.5f * (X(c, nd1)[d] + X(c, ne2)[d]);
  return 0;
}

/* pKa of a ligand amine N (node @p i): PROPKA3's N30-N33 model value 10.00 lowered by the electron-
 * withdrawing substituents of its alpha carbons, additive per substituent (the additivity of Perrin, Dempsey
 * & Serjeant, "pKa Prediction for Organic Acids and Bases", Chapman & Hall 1981); each shift is the measured
 * pKa of the 2-substituted ethylamine X–CH2–CH2–NH2 (X on the beta carbon, or the beta carbon itself a
 * nitrile, carbonyl, carboxylate or aromatic C) minus ethylamine's 10.7 (D. D. Perrin, "Dissociation Constants of
 * Organic Bases in Aqueous Solution", Butterworths 1965): F -1.7 each (2-fluoro- 9.0, 2,2-difluoro- 7.3,
 * 2,2,2-trifluoroethylamine 5.7), Cl / Br -1.9 each (2-chloroethylamine 8.8), O of an OH or ether -1.2
 * (ethanolamine 9.5, 2-methoxyethylamine 9.4), C of a nitrile -5.4 (aminoacetonitrile 5.3), C of a carbonyl
 * (amide, ester, ketone) -2.7 (glycinamide 8.0), C of a carboxylate -1.1 (glycine 9.6), an aromatic C -1.4
 * (benzylamine 9.3). Anilines, amides, sulfonamides and N-oxides are no amine groups (sp_chem_ligand_groups). */
static double amine_pka(const ctx *c, int32_t i) {
  const lnode *ln = c->w->ln, *n = &ln[i];
  double pka = sp_tg_model_pka(SP_TG_L_AMINE);
  for (int k = 0; k < n->deg; k++) { /* alpha carbons a */
    int32_t a = n->nb[k];
    if (ln[a].el != 6) continue;
    for (int q = 0; q < ln[a].deg; q++) { /* their beta carbons b */
      int32_t b = ln[a].nb[q];
      const lnode *m = &ln[b];
      if (b == i || m->el != 6) continue;
      int nitrile = 0, carbonyl = 0, to = n_terminal(c, b, 8);
      for (int r = 0; r < m->deg; r++) {
        const lnode *x = &ln[m->nb[r]];
        if (x->el == 7 && m->ord[r] == 3) nitrile = 1;
        if (x->el == 8 && (m->ord[r] == 2 || (x->deg == 1 && m->deg <= 3))) carbonyl = 1;
      }
      if (nitrile) pka -= 5.4;
      else if (to == 2 && m->deg == 3) pka -= 1.1; /* carboxylate */
      else if (carbonyl) pka -= 2.7;
      else if (m->arom) pka -= 1.4;
      else
        for (int r = 0; r < m->deg; r++) { /* substituents of the beta carbon */
          const lnode *x = &ln[m->nb[r]];
          if (x->el == 9) pka -= 1.7;
          else if (x->el == 17 || x->el == 35) pka -= 1.9;
          else if (x->el == 8 && m->ord[r] == 1) pka -= 1.2;
        }
    }
  }
  return pka;
}

/* ligand groups from the graph (docs/sites.md "Ligand groups") */
int sp_chem_ligand_groups(ctx *c, uint8_t *used) {
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
    /* an N bonded to a metal (an ammine or amine ligand, a porphyrin N) gives its lone pair to the metal:
       it takes no proton and is no base (IUPAC Gold Book, "ligand"; PLIP 2.2.2 finds no salt bridge of the
       six ammine N of iridium hexammine, IRI in 4GXY). Only the bond graph says it: the CCD's and
       _chem_comp_bond's metal bonds, not the distance rule, which bonds no metal */
    int metal = 0;
    for (int k = 0; k < n->deg; k++) metal |= sp_element_is_metal(ln[n->nb[k]].el);
    if (metal) {
      used[i] = 1;
      continue;
    }
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
        else if (n->deg >= 1) rc = add_group_pka(c, SP_TG_L_AMINE, 1, 1, 0, at[0], at, 1, amine_pka(c, (int32_t)i));
      }
    }
    used[i] = 1;
    if (rc) return rc;
  }
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

/* groups of the site's polymer residues (side chains of the standard residues, termini, the nucleic-acid
 * phosphodiester) and their aromatic rings (centre and normal computed) */
int sp_chem_residue_groups_rings(ctx *c) {
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
      else if (!strcmp(comp, "LYS") && (at[0] = A("NZ")) >= 0 && !sp_chem_lys_linked_neutral(c, at[0]))
        rc = add_group(c, SP_TG_LYS, 0, 1, 0, at[0], at, 1);
      else if (!strcmp(comp, "ARG") && (at[0] = A("NE")) >= 0 && (at[1] = A("NH1")) >= 0 && (at[2] = A("NH2")) >= 0)
        rc = add_group(c, SP_TG_ARG, 0, 1, 0, A("CZ") >= 0 ? A("CZ") : at[0], at, 3);
      else if (!strcmp(comp, "HIS") && (at[0] = A("ND1")) >= 0 && (at[1] = A("NE2")) >= 0 && (at[2] = A("CE1")) >= 0 &&
               (at[3] = A("CG")) >= 0 && sp_chem_linked(c, at[0]) < 0 &&
               sp_chem_linked(c, at[1]) < 0)
        rc = add_group(c, SP_TG_HIS, 0, 1, 0, at[2], at, 4) || his_centre(c, at[0], at[1]);
      else if (!strcmp(comp, "TYR") && (at[0] = A("OH")) >= 0 && sp_chem_linked(c, at[0]) < 0)
        rc = add_group(c, SP_TG_TYR, 0, 0, -1, at[0], at, 1);
      else if (!strcmp(comp, "CYS") && (at[0] = A("SG")) >= 0 && sp_chem_linked(c, at[0]) < 0) {
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
        if (ok && sp_chem_add_ring(c, ra, aa_rings[q].n, 0)) return SP_E_NOMEM;
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
    if (!c->w->rings[r].ligand) sp_chem_ring_plane(s, site, &c->w->rings[r]);
  return 0;
}

