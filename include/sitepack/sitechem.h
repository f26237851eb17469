/**
 * @file sitechem.h
 * @brief Site chemistry at the job's pH: contact residues, titratable groups
 *        (Henderson–Hasselbalch on PROPKA3 model pKa values), typed ligand–site
 *        interactions with PLIP's geometric criteria, and burial (Shrake–Rupley SASA).
 *
 * Plain C, no MPI. Definitions, thresholds and their sources: docs/sites.md
 * ("Site chemistry"). Sources of constants:
 *  - van der Waals radii: Bondi, J. Phys. Chem. 1964, 68, 441 (sp_element_vdw_radius).
 *  - model pKa values: PROPKA3, Olsson et al., J. Chem. Theory Comput. 2011, 7, 525,
 *    table `model_pkas` of propka/propka.cfg (jensengroup/propka): C- 3.20, ASP 3.80,
 *    GLU 4.50, HIS 6.50, CYS 9.00, TYR 10.00, LYS 10.50, ARG 12.50, N+ 8.00, and the
 *    ligand groups CG (guanidine) 11.50, C2N (amidine) 11.50, N30-N33 (amines) 10.00,
 *    NAR (aromatic N) 5.00, OCO (carboxylate) 4.50, SH (thiol) 10.00, OP (phosphate) 6.00.
 *  - interaction thresholds: PLIP 2.4 (Salentin et al., Nucleic Acids Res. 2015, 43, W443;
 *    Adasme et al. 2021), pharmai/plip plip/basic/config.py (values as SP_PLIP_* below).
 *  - SASA: Shrake & Rupley, J. Mol. Biol. 1973, 79, 351; probe 1.4 Å; the kernel of sasa.h (sp_sasa).
 *
 * Covalent exclusion: no interaction between a ligand atom and a site atom that are bonded or 1-3
 * related through a covalent link of the ligand (sp_ligand_bonds of bonds.h, metal bonds excepted); the
 * linked Ser/Thr/Tyr O, Cys SG, His N lose their donor H and titratable group (docs/sites.md).
 * Hydrogens (before issue 37; now only for donors whose H cannot be placed, see below): Hydrogen bonds
 * use the heavy-atom criteria
 * PLIP applies to donor and acceptor (distance D···A), plus a heavy-atom angle
 * (neighbour–D···A >= 60°, SP_HBOND_HEAVY_ANGLE_MIN) in place of PLIP's D–H···A angle, except for
 * the sp2 N–H of the polymer: main-chain amide N (H placed from the backbone: opposite C(i-1) and CA,
 * 1.01 Å) and the side-chain N of ARG (NE, NH1, NH2), ASN ND2, GLN NE2, HIS ND1/NE2 and TRP NE1 (H placed
 * in the plane of the group from the residue's atoms), where PLIP's D–H···A > 100°
 * (SP_PLIP_HBOND_DON_ANGLE_MIN) is applied to any of the placed H; each donor atom keeps one H-bond, the
 * shortest, or the best D–H···A where H is placed (PLIP refine_hbonds_ldon/pdon, plip/structure/preparation.py);
 * H-bonds inside a salt bridge of PLIP-charged groups are dropped; hydrophobic contacts and water bridges
 * are refined as PLIP's refine_hydrophobic / refine_water_bridges (docs/sites.md "PLIP agreement").
 * Metal geometry: PLIP's metal_complexation (plip/structure/detection.py), outliers of the chosen
 * geometry excluded. Phosphate/sulfonate charge centre: the P/S atom (PLIP find_charged). Water bridges:
 * both legs 2.5-4.1 Å, PLIP's theta / omega with the donor's H, heavy-atom substitutes without (SP_IXF_NO_H).
 * The donor's H: the H atoms deposited in the file on it (within 1.3 Å; issue 37), else for the sp2 N-H of the
 * polymer the placed H, else (issue 37) the H Open Babel's AddPolarHydrogens gives it when PLIP protonates the
 * complex (OBBuilder::GetNewBondVector of Open Babel 3.1.1, src/builder.cpp: sp3 at 109.47° / sp2 at 120° from
 * the heavy neighbour, anti to that neighbour's last other neighbour in Open Babel's bond order; PLIP 2.2.2
 * plip/structure/preparation.py PDBComplex.load_pdb; src/site/sitechem_hplace.c, docs/sites.md "hydrogens");
 * H-bonds then use PLIP's D-H...A > 100° (config.py HBOND_DON_ANGLE_MIN) with the best H in angle2, water
 * bridges PLIP's theta / omega with it; the heavy-atom rules above only where no H can be placed. The SASA code
 * ignores H atoms (sp_sasa() of sasa.h takes whatever atoms it is given).
 */
#ifndef SITEPACK_SITECHEM_H
#define SITEPACK_SITECHEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/bonds.h"
#include "sitepack/ccd.h"
#include "sitepack/error.h"
#include "sitepack/model.h"
#include "sitepack/site.h"
#include "sitepack/survey.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PLIP 2.4 thresholds (plip/basic/config.py), Å and degrees. */
#define SP_PLIP_MIN_DIST 0.5f
#define SP_PLIP_HYDROPH_DIST_MAX 4.0f
#define SP_PLIP_HBOND_DIST_MAX 4.1f
#define SP_PLIP_HBOND_DON_ANGLE_MIN 100.0f /**< D–H···A, degrees; used with deposited or placed H */
#define SP_PLIP_PISTACK_DIST_MAX 5.5f
#define SP_PLIP_PISTACK_ANG_DEV 30.0f
#define SP_PLIP_PISTACK_OFFSET_MAX 2.0f
#define SP_PLIP_PICATION_DIST_MAX 6.0f
#define SP_PLIP_SALTBRIDGE_DIST_MAX 5.5f
#define SP_PLIP_HALOGEN_DIST_MAX 4.0f
#define SP_PLIP_HALOGEN_ACC_ANGLE 120.0f
#define SP_PLIP_HALOGEN_DON_ANGLE 165.0f
#define SP_PLIP_HALOGEN_ANGLE_DEV 30.0f
#define SP_PLIP_WATER_BRIDGE_MINDIST 2.5f
#define SP_PLIP_WATER_BRIDGE_MAXDIST 4.1f
#define SP_PLIP_WATER_BRIDGE_OMEGA_MIN 71.0f  /**< acceptor→water vs water→donor H, degrees (needs the H) */
#define SP_PLIP_WATER_BRIDGE_OMEGA_MAX 140.0f
#define SP_PLIP_WATER_BRIDGE_THETA_MIN 100.0f /**< water···H–donor, degrees (needs the H) */
#define SP_PLIP_METAL_DIST_MAX 3.0f
#define SP_PLIP_AROMATIC_PLANARITY 5.0f
/** Heavy-atom substitute for PLIP's D–H···A angle (>= 100°): the neighbour–D···A angle, degrees.
 *  With H at 109.5–120° from the neighbour, D–H 1.0 Å and D···A ~3 Å, D–H···A >= 100° is reachable
 *  only when the angle between D→H and D→A is below ~53°, i.e. neighbour–D···A above ~60°. */
#define SP_HBOND_HEAVY_ANGLE_MIN 60.0f
/** Shortest donor–acceptor distance of an H-bond (Å): PLIP's WATER_BRIDGE_MINDIST (Jiang et al. 2005,
 *  2.6 − 0.1) applied to direct H-bonds too; N/O···N/O closer than this is a clash, an alternate
 *  conformer or a covalent contact, not a hydrogen bond (PLIP itself uses MIN_DIST 0.5 for H-bonds). */
#define SP_HBOND_DIST_MIN 2.5f
/** Contact: any atom pair closer than r_vdw(a) + r_vdw(b) + this (Å). */
#define SP_CONTACT_TOLERANCE 0.5f

/** Interaction types (sp_interaction.type, /interactions/type). */
enum {
  SP_IX_HYDROPHOBIC = 1,   /**< C(ligand)–C(site), both bonded to C/H only; d <= 4.0 */
  SP_IX_HBOND = 2,         /**< donor–acceptor 2.5 <= d <= 4.1, D–H···A > 100° with a deposited or placed H (angle2:
                                the best; issue 37), else neighbour–D···A >= 60° (angle, no_h); one row per donor
                                atom, the best D–H···A (the shortest where no H) */
  SP_IX_SALT_BRIDGE = 3,   /**< charge centres of opposite charge, d <= 5.5 */
  SP_IX_PI_STACK_P = 4,    /**< ring centres d <= 5.5, normals < 30°, offset <= 2.0 */
  SP_IX_PI_STACK_T = 5,    /**< ring centres d <= 5.5, normals 60–90°, offset <= 2.0 */
  SP_IX_PI_CATION = 6,     /**< cation centre – ring centre d <= 6.0, offset <= 2.0; ligand tertiary amine: its
                                N-substituent plane normal within 30° of the ring normal; none for a HIS whose
                                ring stacks with the same ligand ring */
  SP_IX_HALOGEN = 7,       /**< C–X···Y d <= 4.0, C–X···Y 165±30°, X···Y–C 120±30°; Y = O/N/S with one C/N/P/S
                                neighbour, bonds to other residues included (not the main-chain N, not a disulfide S) */
  SP_IX_WATER_BRIDGE = 8,  /**< ligand polar atom – water O – site polar atom, each 2.5–4.1, PLIP's angle windows
                                and refine_water_bridges (docs/sites.md) */
  SP_IX_METAL = 9,         /**< metal – O/N/S d <= 3.0, with coordination geometry chosen by PLIP's rule over every
                                target, the metal's own ligand's included (rows only for ligand–site pairs);
                                targets that are outliers of that geometry get no row; none when all targets
                                are water */
  SP_IX_COUNT
};
/** "hydrophobic", "hbond", "salt_bridge", "pi_stack_parallel", "pi_stack_t", "pi_cation",
 *  "halogen", "water_bridge", "metal"; "unknown" otherwise. Static string. */
const char *sp_ix_type_name(int type);

/** Interaction flag bits (sp_interaction.flags). */
enum {
  SP_IXF_LIG_DONOR = 1u << 0,     /**< hbond / water bridge: the ligand atom is the donor */
  SP_IXF_LIG_ACCEPTOR = 1u << 1,  /**< hbond / water bridge: the ligand atom is the acceptor */
  SP_IXF_LIG_POSITIVE = 1u << 2,  /**< salt bridge / pi-cation: the ligand carries the positive charge */
  SP_IXF_LIG_NEGATIVE = 1u << 3,  /**< salt bridge: the ligand carries the negative charge */
  SP_IXF_LIG_RING = 1u << 4,      /**< pi-cation: the ring is the ligand's */
  SP_IXF_LIG_METAL = 1u << 5,     /**< metal complex: the metal is (part of) the ligand */
  SP_IXF_AMBIGUOUS = 1u << 6,     /**< a charged group involved has |pH - pKa| < 1 */
  SP_IXF_NO_H = 1u << 7,          /**< hbond / water bridge: the donor has no H position (none deposited, none placed
                                       by Open Babel's rule: sitechem_hplace.c), so PLIP's criteria on
                                       the H were not applied (hbond: D–H···A > 100° replaced by neighbour–D···A
                                       >= 60°; water bridge: theta and omega not tested) */
};

/** Metal coordination geometries (PLIP's names), sp_interaction.geometry. */
enum {
  SP_GEOM_NONE = 0, SP_GEOM_LINEAR, SP_GEOM_TRIGONAL_PLANAR, SP_GEOM_TRIGONAL_PYRAMIDAL, SP_GEOM_TETRAHEDRAL,
  SP_GEOM_SQUARE_PLANAR, SP_GEOM_TRIGONAL_BIPYRAMIDAL, SP_GEOM_SQUARE_PYRAMIDAL, SP_GEOM_OCTAHEDRAL,
  SP_GEOM_COUNT
};
/** "none", "linear", "trigonal.planar", "trigonal.pyramidal", "tetrahedral", "square.planar",
 *  "trigonal.bipyramidal", "square.pyramidal", "octahedral". Static string. */
const char *sp_geometry_name(int geom);

/** One interaction. Atom fields are indices into the site's atoms (sp_site.atoms), so
 *  they are also row offsets inside the site's block of /atoms. Ring and charge-group
 *  partners are represented by their first atom (the group's head atom for charges). */
typedef struct sp_interaction {
  uint8_t type;            /**< SP_IX_* */
  uint8_t flags;           /**< SP_IXF_* */
  uint8_t geometry;        /**< metal: SP_GEOM_*; otherwise 0 */
  uint8_t coordination;    /**< metal: coordination number of the chosen geometry (the number of targets
                                when no geometry is chosen); otherwise 0 */
  int32_t lig_atom;        /**< ligand-side atom (site atom index) */
  int32_t site_atom;       /**< partner atom (site atom index) */
  int32_t water_atom;      /**< water bridge: the water oxygen; -1 otherwise */
  float distance;          /**< Å: atoms, or centres for rings / charge groups; water bridge: ligand–water */
  float angle;             /**< degrees: hbond neighbour–D···A; pi-stack angle between normals; halogen
                                C–X···Y; water bridge ligand–O–site; metal: PLIP's geometry score (mean over the
                                geometry's sub-signatures of sqrt(sum of squared angle differences); 0 for one
                                target; NaN when no geometry is chosen); NaN where not defined */
  float angle2;            /**< degrees: halogen X···Y–C; hbond: D–H···A with the deposited or placed H (the best;
                                issue 37: Open Babel's placement for N / O donors); NaN otherwise (water bridges included: format version 5 moved their
                                water–site distance to distance2) */
  float offset;            /**< Å: pi-stack / pi-cation offset in the ring plane; NaN otherwise */
  float distance2;         /**< Å: water bridge, the water O – site atom distance (PLIP's distance_aw or
                                distance_dw, the site side); NaN otherwise */
} sp_interaction;

/** Titratable / charged group kinds (sp_titr_group.kind). */
enum {
  SP_TG_ASP = 1, SP_TG_GLU, SP_TG_HIS, SP_TG_CYS, SP_TG_TYR, SP_TG_LYS, SP_TG_ARG, SP_TG_NTERM, SP_TG_CTERM,
  SP_TG_L_CARBOXYL,   /**< ligand carboxylic acid (OCO 4.50) */
  SP_TG_L_AMINE,      /**< ligand primary/secondary/tertiary amine (N30-N33 10.00) */
  SP_TG_L_QUAT,       /**< ligand quaternary ammonium: +1, not titratable */
  SP_TG_L_PHOSPHATE,  /**< ligand phosphate: 3 terminal O: -1/-2 around OP 6.00; 2: -1 fixed */
  SP_TG_L_SULFONATE,  /**< ligand sulfonate / sulfate: -1, not titratable (strong acid) */
  SP_TG_L_GUANIDINE,  /**< CG 11.50 */
  SP_TG_L_AMIDINE,    /**< C2N 11.50 */
  SP_TG_L_AROM_N,     /**< pyridine-like aromatic N (NAR 5.00) */
  SP_TG_L_THIOL,      /**< SH 10.00 */
  SP_TG_COUNT
};
/** "asp", "glu", "his", "cys", "tyr", "lys", "arg", "n_term", "c_term", "carboxyl", "amine",
 *  "quaternary_ammonium", "phosphate", "sulfonate", "guanidine", "amidine", "aromatic_n", "thiol". */
const char *sp_tg_name(int kind);
/** PROPKA3 model pKa of a group kind; NaN for the non-titratable kinds (L_QUAT, L_SULFONATE). */
double sp_tg_model_pka(int kind);

/** One titratable or permanently charged group of a site. */
typedef struct sp_titr_group {
  uint8_t kind;            /**< SP_TG_* */
  uint8_t ligand;          /**< 1: a group of the site's ligand */
  uint8_t ambiguous;       /**< |pH - pKa| < 1 */
  int8_t charge_prot;      /**< charge of the protonated form */
  int8_t charge_deprot;    /**< charge of the deprotonated form */
  int8_t charge;           /**< most probable charge at the pH (protonated when frac >= 0.5) */
  uint8_t n_atoms;
  int32_t head;            /**< site atom index carrying the group's charge (charge_ph) */
  int32_t atoms[4];        /**< site atom indices of the charged atoms (centre = their mean) */
  float pka;               /**< model pKa, NaN when not titratable */
  float frac_protonated;   /**< 1 / (1 + 10^(pH - pKa)); NaN when not titratable */
  float center[3];         /**< charge centre, Å */
} sp_titr_group;

/** Per-atom chemistry bits (sp_site_chem.atom_chem, /atoms/chem). */
enum {
  SP_CHEM_HYDROPHOBIC = 1u << 0,  /**< carbon bonded to C/H only (PLIP) */
  SP_CHEM_DONOR = 1u << 1,        /**< N/O carrying H in the most probable state */
  SP_CHEM_ACCEPTOR = 1u << 2,
  SP_CHEM_AROMATIC = 1u << 3,     /**< member of an aromatic ring */
  SP_CHEM_TITRATABLE = 1u << 4,   /**< one of the charged atoms of a titratable group */
  SP_CHEM_AMBIGUOUS = 1u << 5,    /**< ... whose |pH - pKa| < 1 */
  SP_CHEM_POSITIVE = 1u << 6,     /**< charged atom of a group whose most probable charge is > 0 */
  SP_CHEM_NEGATIVE = 1u << 7,     /**< ... < 0 */
  SP_CHEM_HALOGEN_DONOR = 1u << 8,/**< F/Cl/Br/I bonded to C */
  SP_CHEM_METAL = 1u << 9,        /**< metal atom (sp_element_is_metal) */
  SP_CHEM_CONTACT = 1u << 10,     /**< non-ligand atom in vdW contact (+0.5 Å) with a ligand heavy atom */
};

/** Site chemistry flags (sp_site_chem.flags). */
enum {
  SP_CHEMF_OVERSIZE = 1u << 0,    /**< site oversize: only ligand atoms stored; no interactions, no
                                       site groups (ligand SASA and groups still computed) */
  SP_CHEMF_GRAPH_CCD = 1u << 1,   /**< ligand graph from the CCD */
  SP_CHEMF_GRAPH_FILE = 1u << 2,  /**< ... from the file's _chem_comp_bond */
  SP_CHEMF_GRAPH_DISTANCE = 1u << 3, /**< ... from distances (some or all residues) */
};

/** Options. */
typedef struct sp_chem_opts {
  double ph;               /**< default 7.4 */
  int sasa_points;         /**< points per sphere, default 960 (<= 0: default) */
  float probe;             /**< Å, default 1.4 (<= 0 or NaN: default) */
  int plip_all_lists;      /**< 1: the hydrophobic contacts before PLIP's refine_hydrophobic (PLIP's
                                all_hydrophobic_contacts; for comparisons with that list); default 0 */
  const sp_bond_list *bonds; /**< the ligand's bonds on this site, made by sp_ligand_bonds (bonds.h) for the
                                same structure, survey, ligand, site and CCD (the caller has them for /bonds):
                                used as given, not owned; NULL (default): sp_site_chem_compute makes them */
} sp_chem_opts;
void sp_chem_opts_default(sp_chem_opts *o);

/** Chemistry of one site. Arrays owned; zero-initialise before first use, re-use across
 *  calls, free with sp_site_chem_free(). Per-atom arrays have the site's n_atoms entries
 *  (same order as sp_site.atoms), per-residue arrays its n_res. */
typedef struct sp_site_chem {
  size_t n_atoms, cap_atoms;
  uint16_t *atom_chem;     /**< SP_CHEM_* */
  float *pka;              /**< model pKa of the atom's group (charged atoms and head), NaN otherwise */
  float *frac_protonated;  /**< of the atom's group, NaN otherwise */
  int8_t *charge_ph;       /**< most probable group charge on the group's head atom, 0 elsewhere */
  float *sasa_free;        /**< Å², ligand heavy atoms: SASA of the ligand alone; NaN for others */
  float *sasa_complex;     /**< Å², ligand heavy atoms: SASA with every other chosen non-water heavy
                                atom of the model present; NaN for others */
  size_t n_res, cap_res;
  uint8_t *res_contact;    /**< 1: the residue has an atom in vdW contact (+0.5 Å) with a ligand heavy atom */
  size_t n_groups, cap_groups;
  sp_titr_group *groups;
  size_t n_ix, cap_ix;
  sp_interaction *ix;
  float sasa_free_total;   /**< Å², sum over ligand heavy atoms */
  float sasa_complex_total;
  int32_t ligand_charge;   /**< sum of the ligand groups' most probable charges */
  int32_t site_charge;     /**< sum over all groups of the site (ligand included) */
  uint32_t flags;          /**< SP_CHEMF_* */
} sp_site_chem;

void sp_site_chem_free(sp_site_chem *c);

/** Reusable workspace (graphs, rings, grids). One per thread. */
typedef struct sp_chem_ws sp_chem_ws;
/** @return a new workspace or NULL when out of memory. */
sp_chem_ws *sp_chem_ws_new(void);
void sp_chem_ws_free(sp_chem_ws *ws);

/**
 * Chemistry of the site @p site of ligand @p lig (computed by sp_site_compute for the same
 * structure and survey). Ligand bond graph: CCD definition (@p ccd, may be NULL) of each
 * residue, else the file's _chem_comp_bond, else covalent-radius distances (+0.4 Å); bonds
 * between residues of a multi-residue ligand by distance. Protein typing from residue
 * templates of the 20 standard amino acids (backbone rules for modified residues).
 * @return 0; SP_E_INVALID (NULL argument, lig out of range, site/atom indices out of range,
 *         opts->bonds made for a site of another n_ligand); SP_E_NOMEM; the errors of
 *         sp_ligand_bonds when opts->bonds is NULL.
 */
int sp_site_chem_compute(const sp_structure *s, const sp_survey *sv, size_t lig, const sp_site *site,
                         sp_ccd *ccd, const sp_chem_opts *opts, sp_chem_ws *ws, sp_site_chem *out, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
