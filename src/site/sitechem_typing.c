/* Site chemistry, per-atom typing: the templates of the 20 standard residues (hydrophobic carbons,
 * donors, acceptors) and the SP_CHEM_* bits of every site atom, with the protonation-dependent donor /
 * acceptor roles and charges of the groups at the pH. See sitechem.h and docs/sites.md ("Site chemistry"). */
#include "site/sitechem_internal.h"

#include "sitepack/elements.h"

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
/* the workspace's packed copy of the templates (per workspace: no global state) */
void sp_chem_aa_tables(sp_chem_ws *w) {
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

/* ------------------------------------------------------------------ per-atom typing */

/* the bits from the atom alone: ligand atoms from the graph, waters, residue atoms from the templates;
 * aromatic ring members */
static void atom_bits(ctx *c) {
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
        /* an imine =N–H (one heavy neighbour, double bond, not aromatic) has its lone pair in the sp2
         * orbital: an acceptor (an amidine's or guanidine's =NH while neutral; group_bits removes it when
         * the group is protonated) */
        if (n->el == 7 && !n->arom && n->nh == 1 && n->deg == 1 && n->ord[0] == 2 && n->fcharge <= 0)
          f |= SP_CHEM_ACCEPTOR;
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
}

/* the bits of the groups' atoms: protonation-dependent donor / acceptor, charges, pKa on the atoms */
static void group_bits(ctx *c) {
  sp_site_chem *o = c->out;
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
        /* a neutral amine N keeps its lone pair: an acceptor (and a donor through its remaining H) */
        if (!prot && el == 7 && (G->kind == SP_TG_L_AMINE || G->kind == SP_TG_NTERM || G->kind == SP_TG_LYS))
          o->atom_chem[a] |= SP_CHEM_ACCEPTOR;
        if (prot && (el == 7 || el == 8)) {
          o->atom_chem[a] |= SP_CHEM_DONOR;
          if (G->kind == SP_TG_L_AMINE || G->kind == SP_TG_L_AROM_N || G->kind == SP_TG_NTERM || G->kind == SP_TG_LYS ||
              G->kind == SP_TG_L_AMIDINE || G->kind == SP_TG_L_GUANIDINE)
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

void sp_chem_type_atoms(ctx *c) {
  atom_bits(c);
  sp_chem_linked_donors(c);
  group_bits(c);
}
