/**
 * @file result.h
 * @brief The rows that one task produces and the store writes (docs/format.md).
 *
 * A worker fills one sp_result per task (a file, or a range of a file's ligands) and
 * hands it to the per-rank writer (store.h). All indices inside a result are local
 * to it (ligand_idx 0 = first ligand of this result, etc.); the merge turns them into
 * global indices. Fixed-size strings are NUL-padded; they map 1:1 to HDF5 fixed-size
 * string types of the same size.
 */
#ifndef SITEPACK_RESULT_H
#define SITEPACK_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/entry.h"
#include "sitepack/error.h"
#include "sitepack/model.h"
#include "sitepack/molkey.h"
#include "sitepack/site.h"
#include "sitepack/survey.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_PATH_LEN 512
#define SP_CLASS_LEN 16
/** Bytes of /structures/warnings (format version 4; docs/format.md "/structures"): the file's warning texts,
 *  at most SP_WARNINGS_LEN - 1 bytes of them and a NUL (sp_warnings_fit). */
#define SP_WARNINGS_LEN 1024

/** /structures row: one per input file (split files: one per file, from part 0). */
typedef struct sp_structure_row {
  char path[SP_PATH_LEN];    /**< path relative to the job's input directory */
  char sha256[65];           /**< hex SHA-256 of the file's bytes as stored (before gunzip) */
  char format[8];            /**< "mmcif", "pdb", or "" when not detected */
  char status[24];           /**< "ok" or an sp_errclass name */
  char error[SP_ERR_MSG_LEN];/**< message, "" when ok */
  uint8_t gzip;              /**< 1 if the file was gzip-compressed */
  int64_t bytes;             /**< file size as stored */
  int64_t text_bytes;        /**< size after gunzip */
  int64_t n_atoms;           /**< atoms of all models (every record, all altlocs) */
  int64_t n_atoms_model1;    /**< atoms of the first model */
  int32_t n_models;
  int32_t n_ligands;
  int32_t n_sites;
  int32_t n_warnings;        /**< warnings the reader recorded (sp_structure.n_warnings; at most 1000) */
  /** format version 4: the first n_warnings of the file's warning messages in the order recorded, each escaped
   *  (io.h sp_path_escape: valid UTF-8, no control byte), joined by "\n"; when they do not all fit, the whole
   *  messages that do, then a last line "... N more" (N >= 1 not shown); "" when n_warnings is 0
   *  (sp_warnings_fit) */
  char warnings[SP_WARNINGS_LEN];
  char entry_id[32];
  char method[48];           /**< the method in the mmCIF enumeration (entry.h sp_method_normalise) */
  int64_t entry_first;       /**< issue 16 item 12: file_idx (= /structures row) of the first file in path order of
                                  the same entry (read/read.h sp_read_entry_peek; this file's own index when it is
                                  the first), -1 when its head names no entry. Set by the run, not the worker */
  float resolution;          /**< Å, NaN if none */
  /* entry quality and dates (issue 17; docs/format.md "/structures") */
  char method_file[48];      /**< _exptl.method / EXPDTA as the file spells it */
  float r_work;              /**< _refine.ls_R_factor_R_work / REMARK 3; NaN if none */
  float r_free;              /**< _refine.ls_R_factor_R_free / REMARK 3; NaN if none */
  char deposition_date[12];  /**< YYYY-MM-DD, "" if none */
  char release_date[12];     /**< YYYY-MM-DD, "" if none */
  int32_t n_chains;          /**< /chains rows of the file */
  double t_read, t_parse, t_survey, t_site;  /**< seconds (timing fields: excluded from equality) */
} sp_structure_row;

/** /ligands row. */
typedef struct sp_ligand_row {
  int64_t structure_idx;         /**< local: 0 within a result; global after merge */
  int32_t model_num;
  char comp_id[SP_ID_LEN];       /**< comp_id of the first residue (multi-residue: see n_residues) */
  char label_asym_id[SP_ID_LEN];
  char auth_asym_id[SP_ID_LEN];
  int32_t auth_seq_id;           /**< SP_SEQ_NONE when absent */
  int32_t label_seq_id;          /**< SP_SEQ_NONE when '.' */
  char ins_code[4];
  char altloc[4];                /**< chosen conformer, "" if none */
  char cls[SP_CLASS_LEN];        /**< sp_ligand_class_name(): small_molecule, ion, ..., lipid, detergent */
  uint32_t flags;                /**< SP_LIG_* bits (survey.h) */
  int32_t n_residues;
  int32_t n_atoms;               /**< atoms of the chosen conformer, H included */
  int32_t n_heavy_atoms;         /**< heavy atoms of the chosen conformer */
  int32_t n_ccd_heavy_atoms;     /**< heavy atoms of the definition (sum over residues), -1 unknown */
  char molecule_key[SP_KEY_LEN]; /**< "" when no graph */
  char key_source[16];           /**< ccd, file, distance, none */
  char residues[128];            /**< "COMP/CHAIN/NUM[ICODE]" of every residue, space-separated (truncated) */
  int64_t site_idx;              /**< local/global site index, -1 if none */
  /* fit indicators (issue 17; docs/format.md "/ligands"): heavy atoms of the chosen conformer */
  float b_mean, b_max;           /**< Å², mean / max B of the ligand's heavy atoms; NaN if none is readable */
  float site_b_mean, site_b_max; /**< Å², the same over the site's polymer heavy atoms within 4 Å of them */
  float occupancy_mean;          /**< mean occupancy of the ligand's heavy atoms */
  int32_t system_id;             /**< PLINDER system within the structure and model: 0, 1, ... */
  int32_t system_size;           /**< ligand instances of that system */
  /* format version 6 (issue 37; docs/ligands.md "Instances") */
  char identities[64];           /**< microheterogeneity: "COMP:ALTLOCS:OCC" of each identity, space-separated; "" */
  char instance_key[40];         /**< "COMP:CHAIN:NUM[ICODE]" of the first residue, "#k" when other ligands of the
                                      model share these identifiers (k = 1, 2, ... in file order) */
  /** RDKit's descriptors of the instance as `sitepack export` writes its SDF record (descriptors.h; issue 36;
   *  pipeline rows_desc.c): not computed (flags 0) without a site */
  sp_descriptors desc;
} sp_ligand_row;

/* /components row: sp_component_row of survey.h (the survey fills it). */

/** /sites/quality bits (issue 36; docs/format.md "Site quality"): a set bit is a criterion the site does not meet
 *  (an unknown entry value counts as not met; a criterion that cannot be judged is left clear, as each says).
 *  Entry and ligand thresholds: PLINDER's quality criteria (Durairaj et al., "PLINDER: the protein-ligand
 *  interactions dataset and evaluation resource", bioRxiv 2024), as issue 36 lists them; the B ratio and the
 *  pocket rules are sitepack's, each written below. */
enum {
  SP_QUAL_RESOLUTION = 1u << 0,        /**< resolution > SP_QUAL_MAX_RESOLUTION Å, or none */
  SP_QUAL_R_WORK = 1u << 1,            /**< R > SP_QUAL_MAX_R, or none */
  SP_QUAL_R_FREE = 1u << 2,            /**< R-free > SP_QUAL_MAX_R_FREE, or none */
  SP_QUAL_R_GAP = 1u << 3,             /**< R-free - R > SP_QUAL_MAX_R_GAP, or either none */
  SP_QUAL_LIG_INCOMPLETE = 1u << 4,    /**< the ligand lacks heavy atoms of its CCD definition (flag incomplete) */
  SP_QUAL_LIG_ALTLOCS = 1u << 5,       /**< more than one altloc id among the ligand's atoms (all conformers) */
  SP_QUAL_LIG_OCCUPANCY = 1u << 6,     /**< mean occupancy of its heavy atoms < SP_QUAL_MIN_OCCUPANCY */
  SP_QUAL_LIG_B = 1u << 7,             /**< mean B of its heavy atoms > SP_QUAL_MAX_B_RATIO x the pocket's (site_b_mean);
                                            not judged (clear) where either is NaN */
  SP_QUAL_POCKET_INCOMPLETE = 1u << 8, /**< a polymer residue of the site lacks a heavy atom of its CCD definition
                                            (leaving atoms aside); not judged without a CCD block */
  SP_QUAL_POCKET_GAP = 1u << 9,        /**< a residue of the sequence is missing inside the pocket's span: between the
                                            smallest and largest label_seq_id of a chain's site residues, a number no
                                            residue of that chain has (residues without label_seq_id not judged) */
  SP_QUAL_CRYSTAL_CONTACT = 1u << 10,  /**< the site holds residues of a crystal symmetry image (site flag symmetry):
                                            judged only with site.symmetry_mates */
};
#define SP_QUAL_COUNT 11
#define SP_QUAL_MAX_RESOLUTION 3.5f  /**< Å (PLINDER) */
#define SP_QUAL_MAX_R 0.4f           /**< PLINDER */
#define SP_QUAL_MAX_R_FREE 0.45f     /**< PLINDER */
#define SP_QUAL_MAX_R_GAP 0.05f      /**< PLINDER */
#define SP_QUAL_MIN_OCCUPANCY 0.8f   /**< PLINDER */
#define SP_QUAL_MAX_B_RATIO 2.0f     /**< sitepack's: a ligand twice as mobile as its pocket is poorly placed */

/** /sites row (one per ligand instance that has a site). */
typedef struct sp_site_row {
  int64_t structure_idx;
  int64_t ligand_idx;
  int32_t n_ligand;              /**< ligand atoms: the first n_ligand atoms of the site block */
  int32_t n_atoms;               /**< all atoms of the site block */
  int32_t n_residues;            /**< residues of the site block (ligand residues first) */
  uint32_t flags;                /**< SP_SITE_* bits (site.h) */
  float center[3];               /**< mean of ligand heavy-atom positions, Å */
  float cutoff;                  /**< Å */
  /* site chemistry (sitechem.h, docs/sites.md "Site chemistry") */
  float ph;                      /**< pH of the protonation states */
  float sasa_free;               /**< Å², SASA of the ligand's heavy atoms, ligand alone (NaN: not computed) */
  float sasa_complex;            /**< Å², the same in the complex */
  int32_t ligand_charge;         /**< most probable net charge of the ligand's groups at ph */
  int32_t site_charge;           /**< ... of every titratable/charged group of the site, ligand included */
  int32_t n_interactions;        /**< typed interactions found (sp_site_chem.n_ix) */
  uint32_t chem_flags;           /**< SP_CHEMF_* (sitechem.h) */
  int32_t n_bonds;               /**< /bonds rows of the site (bonds.h sp_bond_list.n) */
  uint32_t quality;              /**< SP_QUAL_* bits: the criteria not met (issue 36) */
  uint8_t pass_quality;          /**< 1 when quality is 0 */
} sp_site_row;

/** /residues row: residues of site blocks, in site order. */
typedef struct sp_residue_row {
  int64_t site_idx;
  char label_asym_id[SP_ID_LEN];
  char auth_asym_id[SP_ID_LEN];
  char comp_id[SP_ID_LEN];
  int32_t auth_seq_id;
  int32_t label_seq_id;
  char ins_code[4];
  uint8_t kind;                  /**< SP_RES_KIND_* */
  float min_distance;            /**< Å, closest atom to any ligand heavy atom; 0 for the ligand itself */
  uint8_t contact;               /**< 1: a heavy atom within r_vdw + r_vdw + 0.5 Å of a ligand heavy atom */
  char symop[16];                /**< symmetry image ("2_655", docs/sites.md "Symmetry mates"); "" as in the file */
  int64_t chain_idx;             /**< its /chains row (local, global after the merge); -1 when not a polymer chain */
  char assembly_op[16];          /**< copy of the first biological assembly: its operator id ("2"); "" as in the file */
} sp_residue_row;

/* kind: SP_RES_KIND_* of site.h (the site search sets it). */

/** /atoms row (columns stored as separate datasets). */
typedef struct sp_atom_row {
  float position[3];             /**< Å */
  float occupancy;
  float b_iso;
  int64_t residue_idx;           /**< local residue row within the result; global after merge */
  char atom_name[SP_ID_LEN];
  uint8_t element;               /**< atomic number */
  int8_t charge;
  char altloc;
  uint16_t flags;                /**< SP_SITE_ATOM_* bits (site.h) */
  /* site chemistry (sitechem.h) */
  uint16_t chem;                 /**< SP_CHEM_* bits */
  int8_t charge_ph;              /**< most probable charge of the atom's group at pH, on its head atom */
  float pka;                     /**< model pKa of the atom's titratable group, NaN if none */
  float frac_protonated;         /**< Henderson–Hasselbalch fraction of that group, NaN if none */
  float sasa_free;               /**< Å², ligand heavy atoms: ligand alone; NaN otherwise */
  float sasa_complex;            /**< Å², ligand heavy atoms: in the complex; NaN otherwise */
  /* the ligand's own chemistry (bonds.h): ligand atoms only, 0 for site atoms */
  int8_t ccd_charge;             /**< formal charge of the matching CCD atom (_chem_comp_atom.charge) */
  uint8_t ccd_atom;              /**< SP_CCD_ATOM_* bits (bonds.h): matched, aromatic, leaving */
  /** formal charge (e, format version 6): ligand atoms the charge the SDF export writes (valence.h
   *  sp_ligand_charges: ccd_charge where ccd_atom is matched, else charge, then the metal-bond and valence
   *  rules over the site's bonds); site atoms = charge (the file's) */
  int8_t formal_charge;
} sp_atom_row;

/** /interactions row: one typed ligand–site interaction (sitechem.h sp_interaction, docs/sites.md).
 *  Atom fields are offsets inside the site's atom block (0 = the block's first atom, i.e. global
 *  atom row = /sites/atom_ptr[site_idx] + offset), so only site_idx changes in the merge. */
typedef struct sp_interaction_row {
  int64_t site_idx;              /**< local site row within the result; global after merge */
  uint8_t type;                  /**< SP_IX_* (sitechem.h): 1 hydrophobic .. 9 metal */
  uint8_t flags;                 /**< SP_IXF_* bits */
  uint8_t geometry;              /**< metal: SP_GEOM_*; 0 otherwise */
  uint8_t coordination;          /**< metal: coordinating atoms of that metal; 0 otherwise */
  int32_t lig_atom;              /**< ligand-side atom, offset in the site block */
  int32_t site_atom;             /**< partner atom, offset in the site block */
  int32_t water_atom;            /**< water bridge: the water oxygen's offset; -1 otherwise */
  float distance;                /**< Å */
  float angle;                   /**< degrees, NaN where not defined (sitechem.h sp_interaction.angle) */
  float angle2;                  /**< degrees (sitechem.h sp_interaction.angle2); NaN where not defined */
  float offset;                  /**< Å, pi-stack / pi-cation offset; NaN otherwise */
  float distance2;               /**< Å: water bridge, the water–site atom distance (format version 5); NaN
                                      otherwise */
} sp_interaction_row;

/** /bonds row: one covalent bond of a site's ligand, or a link of the ligand to a site atom
 *  (bonds.h sp_bond). atom1 < atom2 are offsets in the site's atom block, as /interactions. */
typedef struct sp_bond_row {
  int64_t site_idx;              /**< local site row within the result; global after merge */
  int32_t atom1;                 /**< a ligand atom: offset < the site's n_ligand */
  int32_t atom2;                 /**< offset in the site block */
  uint8_t order;                 /**< 1, 2, 3; 4 aromatic without Kekulé order; 0 unknown */
  uint8_t aromatic;              /**< 1: aromatic bond (CCD pdbx_aromatic_flag) */
  uint8_t flags;                 /**< SP_BOND_* (bonds.h) */
  char source[12];               /**< ccd, file, conect, struct_conn, distance (sp_bond_source_name) */
} sp_bond_row;

/** Everything a task produced. Arrays are owned; sp_result_free() releases them. */
typedef struct sp_result {
  int64_t file_idx;              /**< index of the file in the sorted input list */
  int32_t part, n_parts;         /**< task range of a split file (0, 1 when not split) */
  int has_structure_row;         /**< 1 for the part that reports the file (part 0) */
  sp_structure_row st;
  size_t n_ligands, cap_ligands;   sp_ligand_row *ligands;
  size_t n_components, cap_components; sp_component_row *components;
  size_t n_sites, cap_sites;       sp_site_row *sites;
  size_t n_residues, cap_residues; sp_residue_row *residues;
  size_t n_atoms, cap_atoms;       sp_atom_row *atoms;
  /* added with the /interactions table (site chemistry): rows of all sites, in site order */
  size_t n_interactions, cap_interactions; sp_interaction_row *interactions;
  /* added with the /bonds table (bonds.h): rows of all sites, in site order */
  size_t n_bonds, cap_bonds;       sp_bond_row *bonds;
  /* added with the protein context (entry.h): the file's chains, their segments and sequences, written with
     its structure row (part 0); residues' chain_idx are rows of these */
  size_t n_chains, cap_chains;     sp_chain_row *chains;
  size_t n_segments, cap_segments; sp_segment_row *segments;
  size_t n_sequences, cap_sequences; sp_sequence_row *sequences;
  /* the task's wall seconds in two parts of the structure row's timings that the run report names apart
     (never written to the file): the SHA-256 inside t_read, the site chemistry (bonds, protonation,
     interactions, SASA: sp_ligand_bonds + sp_site_chem_compute) inside t_site; 0 after sp_result_clear */
  double t_sha256, t_chem;
  /* issue 36: RDKit's descriptors, of the component rows (inside t_survey) and of the instances (inside t_chem) */
  double t_desc_comp, t_desc_lig;
} sp_result;

void sp_result_init(sp_result *r);
void sp_result_free(sp_result *r);
/** Empty all tables, keep allocations. */
void sp_result_clear(sp_result *r);
/** Append a zeroed row and return it (NULL when out of memory); a residue row's chain_idx is -1.
 *  Pointers to earlier rows of the same table are invalidated. */
sp_ligand_row *sp_result_add_ligand(sp_result *r);
sp_component_row *sp_result_add_component(sp_result *r);
sp_site_row *sp_result_add_site(sp_result *r);
sp_residue_row *sp_result_add_residue(sp_result *r);
sp_atom_row *sp_result_add_atom(sp_result *r);
sp_interaction_row *sp_result_add_interaction(sp_result *r);
sp_bond_row *sp_result_add_bond(sp_result *r);
sp_chain_row *sp_result_add_chain(sp_result *r);
sp_segment_row *sp_result_add_segment(sp_result *r);
sp_sequence_row *sp_result_add_sequence(sp_result *r);

/**
 * /structures/warnings (format version 4): the first @p n messages of @p msgs (n NUL-terminated messages one
 * after the other, as sp_structure.warnings holds them; read only) into the fixed-size text column @p dst
 * [cap >= 64 bytes], zero-padded to @p cap. Each message is escaped as io.h sp_path_escape() does (valid
 * UTF-8; a control byte or backslash becomes `\xNN`, so a raw newline in the result is always a separator;
 * an empty message is written "(empty)"); the messages are joined by "\n". When the whole does not fit in
 * cap - 1 bytes: the first k messages (the most that fit, each followed by "\n"), then "... N more" with
 * N = n - k; when not even the first fits beside that line, the first is cut after a whole unit and ends
 * with "..." (sp_text_escape_fit) and counts as shown. @p n = 0: "". Deterministic: the bytes depend on
 * the messages alone.
 * @return N, the messages not shown (0 when all are).
 */
size_t sp_warnings_fit(char *dst, size_t cap, const char *msgs, size_t n);

#ifdef __cplusplus
}
#endif
#endif
