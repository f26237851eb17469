/**
 * @file entry.h
 * @brief The protein context of an entry: its polymer chains with entity, polymer type, one-letter
 *        sequence and reference-database segments (UniProt), and the experimental method in the
 *        mmCIF enumeration (docs/format.md "/chains", "/segments", "/sequences", "/structures").
 *
 * Plain C, no MPI. Input: a finished sp_structure (its readers fill entities, one-letter sequences
 * and sp_dbref segments: mmcif.h, pdb.h) and its sp_survey (which models are used, residue roles).
 * Output: rows for the store, owned by an sp_entry_chains (sp_entry_chains_free()).
 */
#ifndef SITEPACK_ENTRY_H
#define SITEPACK_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"
#include "sitepack/model.h"
#include "sitepack/survey.h"

#ifdef __cplusplus
extern "C" {
#endif

/** /chains row: one polymer chain of one model of a structure. */
typedef struct sp_chain_row {
  int64_t structure_idx;          /**< local: 0 within a result; global after the merge */
  int32_t model_num;              /**< pdbx_PDB_model_num / MODEL of the chain */
  char label_asym_id[SP_ID_LEN];  /**< PDB files: the author chain id (no label ids in the format) */
  char auth_asym_id[SP_ID_LEN];
  char entity_id[SP_ID_LEN];      /**< _entity.id; PDB files: the chain id of the first chain with the
                                       same SEQRES sequence and polymer type (gemmi's setup_entities) */
  char type[56];                  /**< _entity_poly.type: polypeptide(L), polypeptide(D),
                                       polydeoxyribonucleotide, polyribonucleotide,
                                       polydeoxyribonucleotide/polyribonucleotide hybrid, other;
                                       PDB files: guessed from the SEQRES residue names */
  int32_t n_residues;             /**< modelled residues of the chain (polymer residues of the model, all altlocs
                                       counted once) */
  int32_t seq_len;                /**< residues of its one-letter sequence, the next seq_len /sequences rows of the
                                       file (the merge writes /chains/seq_ptr); 0 when the file gives none */
  char db_name[16];               /**< primary reference: the first UNP segment of the chain, else its first
                                       segment; "" when none */
  char db_accession[24];
  char db_code[24];
  int32_t n_segments;             /**< its /segments rows, the next n_segments of the file (/chains/segment_ptr) */
} sp_chain_row;

/** /segments row: one reference-database segment of a chain (_struct_ref_seq, DBREF). */
typedef struct sp_segment_row {
  int64_t chain_idx;              /**< row of /chains (local within a result, global after the merge) */
  char db_name[16];
  char db_accession[24];
  char db_code[24];
  int32_t auth_begin, auth_end;   /**< first / last residue, author numbering (SP_SEQ_NONE absent) */
  char ins_begin[4], ins_end[4];  /**< their insertion codes, "" none */
  int32_t seq_begin, seq_end;     /**< the same in the entity numbering (label_seq_id); SP_SEQ_NONE for PDB */
  int32_t db_begin, db_end;       /**< the aligned range of the database sequence */
} sp_segment_row;

/** /sequences row: one residue of a chain's one-letter sequence. */
typedef struct sp_sequence_row {
  uint8_t code;                   /**< ASCII one-letter code (pdbx_seq_one_letter_code_can; 'X' unknown) */
} sp_sequence_row;

/** The chains of one structure (the models its survey used). Arrays owned. */
typedef struct sp_entry_chains {
  size_t n_chains;
  sp_chain_row *chains;           /**< in model order, then file order */
  size_t n_segments;
  sp_segment_row *segments;       /**< grouped by chain, in chain order */
  size_t n_codes;
  char *codes;                    /**< every chain's one-letter sequence, concatenated in chain order */
  int64_t *chain_of;              /**< [s->n_chains]: the /chains row of each sp_chain, -1 for a chain that
                                       is no polymer or of a model not used */
  size_t n_unp;                   /**< chains whose primary reference is UniProt (db_name UNP) */
} sp_entry_chains;

/**
 * The polymer chains of the models @p sv surveyed: a chain whose entity is a polymer (mmCIF), or that
 * has SEQRES or polymer residues (PDB). Its sequence is its entity's one-letter sequence; its segments
 * the sp_dbref rows of its author chain id (and entity, when given).
 * @param s finished structure; @param sv its survey; @param out zero-initialised.
 * @return 0 or SP_E_NOMEM (then @p out is freed).
 */
int sp_entry_chains_build(const sp_structure *s, const sp_survey *sv, sp_entry_chains *out, sp_err *err);
void sp_entry_chains_free(sp_entry_chains *c);

/** PLINDER's distance between ligand instances of one system: closer than this (Å, heavy atoms). */
#define SP_SYSTEM_DISTANCE 4.0f

/**
 * Systems (PLINDER's definition): ligand instances of one model with heavy atoms (chosen conformer) closer
 * than SP_SYSTEM_DISTANCE Å to each other are in one system, transitively (single linkage). Systems are
 * numbered 0, 1, ... per structure in the order of their first ligand (sv->ligands order: by model, then
 * file order).
 * @param system_id,system_size [sv->n_ligands] outputs: each ligand's system and its number of ligands.
 * A ligand without heavy atoms is a system of its own. @return 0 or SP_E_NOMEM.
 */
int sp_ligand_systems(const sp_structure *s, const sp_survey *sv, int32_t *system_id, int32_t *system_size,
                      sp_err *err);

/** Name of an sp_poly_type as _entity_poly.type spells it ("polypeptide(L)", ..., "other"; "" for none). */
const char *sp_poly_type_name(int poly_type);

/**
 * The experimental method @p file (as _exptl.method / EXPDTA writes it, several joined by ',' or ';')
 * in the mmCIF enumeration of _exptl.method: each part trimmed and upper-cased, "NMR" -> "SOLUTION NMR",
 * "X-RAY" -> "X-RAY DIFFRACTION", "CRYO-EM" / "EM" -> "ELECTRON MICROSCOPY", "SOLID STATE NMR" ->
 * "SOLID-STATE NMR"; parts joined by ", ". Written into @p out of @p cap bytes (cut ends "...").
 */
void sp_method_normalise(const char *file, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
