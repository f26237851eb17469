/**
 * @file model.h
 * @brief The in-memory structure: atoms as parallel arrays (structure of arrays),
 *        residues, chains and models as index ranges over them.
 *
 * One sp_structure holds one input file (all models). Readers (mmCIF: cif/mmcif.h,
 * PDB: pdb/pdb.h) fill it through sp_structure_add_atom(), which starts a new
 * model / chain / residue whenever the identity of the incoming atom changes; atoms
 * of one residue are therefore contiguous, residues of one chain are contiguous and
 * chains of one model are contiguous, all in file order.
 *
 * Identifiers follow PDBx/mmCIF: label_asym_id / auth_asym_id (chain), label_seq_id /
 * auth_seq_id (residue number), pdbx_PDB_ins_code (insertion code), label_comp_id
 * (comp_id, up to 5 characters in the CCD), label_atom_id (atom name), label_alt_id
 * (altloc), pdbx_PDB_model_num (model). Where a file has only one of label/auth, the
 * reader copies it into both (cases B13, B14) except the residue numbers, which stay
 * SP_SEQ_NONE where absent.
 *
 * Memory: 40 bytes per atom in the atom arrays, plus residues, chains and spare capacity:
 * 58.7 bytes per atom measured over shared/data/structures, 69 for the largest entry 1FFK
 * (sp_structure_bytes(), `make bench-parse`, results/parse-*.md).
 * Ownership: every array is owned by the sp_structure and freed by sp_structure_free().
 */
#ifndef SITEPACK_MODEL_H
#define SITEPACK_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Residue number absent ('.' or '?' or no column). */
#define SP_SEQ_NONE INT32_MIN
/** Size of identifier fields (comp_id, asym ids, entity id, atom names): 7 chars + NUL.
 *  Longer identifiers are truncated and a warning is recorded. */
#define SP_ID_LEN 8

/** A string view into a text buffer: not NUL-terminated, not owned. */
typedef struct sp_sv {
  const char *p;
  size_t n;
} sp_sv;

/** _entity.type (PDBx/mmCIF). */
typedef enum sp_entity_type {
  SP_ENT_UNKNOWN = 0,  /**< no entity information (PDB files, minimal mmCIF) */
  SP_ENT_POLYMER = 1,
  SP_ENT_NONPOLYMER = 2,
  SP_ENT_BRANCHED = 3,
  SP_ENT_WATER = 4,
  SP_ENT_MACROLIDE = 5,
} sp_entity_type;

/** _entity_poly.type, reduced. */
typedef enum sp_poly_type {
  SP_POLY_NONE = 0,
  SP_POLY_PEPTIDE_L = 1,  /**< polypeptide(L) */
  SP_POLY_PEPTIDE_D = 2,  /**< polypeptide(D) */
  SP_POLY_DNA = 3,        /**< polydeoxyribonucleotide */
  SP_POLY_RNA = 4,        /**< polyribonucleotide */
  SP_POLY_NA_HYBRID = 5,  /**< polydeoxyribonucleotide/polyribonucleotide hybrid */
  SP_POLY_OTHER = 6,      /**< cyclic-pseudo-peptide, peptide nucleic acid, other */
} sp_poly_type;

/** Per-atom flag bits (sp_structure.atom_flags). */
enum {
  SP_ATOM_HETATM = 1u << 0,    /**< group_PDB HETATM / PDB HETATM record */
  SP_ATOM_HYDROGEN = 1u << 1,  /**< element H, D or T */
  SP_ATOM_ELEMENT_FROM_NAME = 1u << 2, /**< element inferred from the atom name (no usable element column) */
  SP_ATOM_REPEATED_NAME = 1u << 3, /**< another atom of its residue has the same (atom name, altloc) (issue 13;
                                        sp_structure_finish): no CCD atom is matched to it by name */
};

/** One residue: (chain, seq id, insertion code, comp id) within one model. */
typedef struct sp_residue {
  char comp_id[SP_ID_LEN];  /**< label_comp_id (auth_comp_id if no label) */
  int32_t auth_seq_id;      /**< SP_SEQ_NONE if absent */
  int32_t label_seq_id;     /**< SP_SEQ_NONE if '.', '?' or absent */
  char ins_code;            /**< pdbx_PDB_ins_code, '\0' if none */
  uint8_t all_hetatm;       /**< 1 if every atom of the residue is HETATM */
  uint8_t entity_type;      /**< sp_entity_type of its entity (SP_ENT_UNKNOWN if no entity info): the entity
                                 of its own first row (entity_id), not its chain's (sp_structure_finish) */
  uint8_t pad_;
  uint32_t chain;           /**< index into sp_structure.chains */
  uint32_t first_atom;      /**< atoms [first_atom, first_atom + n_atoms) */
  uint32_t n_atoms;
  char entity_id[SP_ID_LEN]; /**< label_entity_id of its first row, "" if none (PDB): a label_asym_id may be
                                  shared by a polymer and a ligand, or be '.' on every row (non-wwPDB writers) */
} sp_residue;

/** One chain instance in one model: a contiguous run of residues with the same
 *  (label_asym_id, auth_asym_id). */
typedef struct sp_chain {
  char label_asym_id[SP_ID_LEN];  /**< copy of auth_asym_id when the file has no label ids */
  char auth_asym_id[SP_ID_LEN];   /**< copy of label_asym_id when the file has no auth ids */
  char entity_id[SP_ID_LEN];      /**< label_entity_id, "" if none */
  int32_t entity;                 /**< index into sp_structure.entities, -1 if none */
  uint32_t model;                 /**< index into sp_structure.models */
  uint32_t first_residue, n_residues;
} sp_chain;

/** One model (pdbx_PDB_model_num / MODEL). */
typedef struct sp_model {
  int32_t model_num;              /**< the number written in the file (1 when none) */
  uint32_t first_atom, n_atoms;
  uint32_t first_residue, n_residues;
  uint32_t first_chain, n_chains;
} sp_model;

/** One _entity row (mmCIF) or one SEQRES chain (PDB: type polymer, id = chain id). */
typedef struct sp_entity {
  char id[SP_ID_LEN];
  uint8_t type;             /**< sp_entity_type */
  uint8_t poly_type;        /**< sp_poly_type (polymers only) */
  uint32_t seq_first;       /**< its sequence: sp_structure.seq_comp[seq_first .. seq_first+seq_len) */
  uint32_t seq_len;         /**< _entity_poly_seq / SEQRES length, 0 if unknown */
  char strand_ids[64];      /**< _entity_poly.pdbx_strand_id (auth chain ids, comma-separated) or PDB chain */
  uint32_t can_first;       /**< its canonical one-letter sequence: sp_structure.seq_can[can_first .. +can_len) */
  uint32_t can_len;         /**< _entity_poly.pdbx_seq_one_letter_code_can (blanks removed); PDB: from SEQRES
                                 and MODRES (sp_pdb_read); 0 when the file gives neither */
} sp_entity;

/** One reference-database segment of a polymer chain: a _struct_ref_seq row with its _struct_ref
 *  (mmCIF), or a DBREF / DBREF1+DBREF2 record (PDB format v3.3). */
typedef struct sp_dbref {
  char auth_asym_id[SP_ID_LEN];   /**< _struct_ref_seq.pdbx_strand_id / DBREF chain (columns 13) */
  char entity_id[SP_ID_LEN];      /**< _struct_ref.entity_id; "" for PDB files */
  char db_name[16];               /**< _struct_ref.db_name / DBREF database: "UNP", "GB", "PDB", ... */
  char db_accession[24];          /**< _struct_ref_seq.pdbx_db_accession (else _struct_ref.pdbx_db_accession)
                                       / DBREF dbAccession: "P00734"; DBREF2 for long accessions */
  char db_code[24];               /**< _struct_ref.db_code / DBREF dbIdCode: "THRB_HUMAN" */
  int32_t auth_begin, auth_end;   /**< first and last residue (author numbering: pdbx_auth_seq_align_beg/end,
                                       DBREF seqBegin/seqEnd); SP_SEQ_NONE when not given */
  char ins_begin, ins_end;        /**< insertion codes of those ('\0' none): DBREF insertBegin/insertEnd,
                                       _struct_ref_seq.pdbx_seq_align_beg_ins_code / _end_ins_code */
  int32_t seq_begin, seq_end;     /**< the same in the entity's numbering (_struct_ref_seq.seq_align_beg/end =
                                       label_seq_id); SP_SEQ_NONE for PDB files */
  int32_t db_begin, db_end;       /**< the aligned segment in the database sequence (db_align_beg/end,
                                       DBREF dbseqBegin/dbseqEnd); SP_SEQ_NONE when not given */
} sp_dbref;

/** One operator of a biological assembly in Cartesian coordinates: x' = rot x + trn (Å)
 *  (_pdbx_struct_oper_list matrix[i][j] / vector[i]; REMARK 350 BIOMTn). */
typedef struct sp_asm_oper {
  char id[16];                    /**< _pdbx_struct_oper_list.id / BIOMT serial ("1", "2", ...) */
  double rot[3][3];
  double trn[3];
} sp_asm_oper;

/** One generator of the first biological assembly: its operators applied to some chains
 *  (_pdbx_struct_assembly_gen row of assembly 1; REMARK 350 BIOMOLECULE: 1 APPLY ... block). */
typedef struct sp_asm_gen {
  char chains[256];               /**< asym_id_list (label_asym_id, comma-separated) / the auth chain ids of
                                       "APPLY THE FOLLOWING TO CHAINS:" (comma-separated); cut ends "..." */
  uint8_t by_label;               /**< 1: chains are label_asym_id (mmCIF), 0: auth_asym_id (PDB) */
  uint32_t first_op, n_ops;       /**< its operators, in the product order of oper_expression: sp_structure.asm_ops
                                       [first_op .. first_op + n_ops); "(1,2)(3)" is expanded to 1x3, 2x3 */
} sp_asm_gen;

/** Whether generator @p g applies to chain @p ch: its label_asym_id (by_label) or auth_asym_id is one of the
 *  comma-separated ids of g->chains (exact match). Both non-NULL; returns 1 or 0, no error. */
int sp_asm_gen_has_chain(const sp_asm_gen *g, const sp_chain *ch);

/** _struct_conn.conn_type_id / PDB record kind. */
typedef enum sp_conn_type {
  SP_CONN_OTHER = 0,
  SP_CONN_COVALE = 1,   /**< covale, covale_base, covale_phosphate, covale_sugar; PDB LINK (non-metal) */
  SP_CONN_DISULF = 2,   /**< disulf; PDB SSBOND */
  SP_CONN_METALC = 3,   /**< metalc; PDB LINK involving a metal */
  SP_CONN_HYDROG = 4,   /**< hydrog */
} sp_conn_type;

/** One end of a connection, as written in the file. */
typedef struct sp_conn_end {
  char label_asym_id[SP_ID_LEN];  /**< "" if not given (PDB) */
  char auth_asym_id[SP_ID_LEN];
  char comp_id[SP_ID_LEN];
  char atom_name[SP_ID_LEN];
  int32_t label_seq_id;           /**< SP_SEQ_NONE if '.' */
  int32_t auth_seq_id;            /**< SP_SEQ_NONE if absent */
  char ins_code;                  /**< '\0' if none */
  char altloc;                    /**< '\0' if none */
  char symmetry[12];              /**< e.g. "1_555"; "" if not given */
  int64_t atom;                   /**< resolved atom index in model 1, -1 if unresolved */
} sp_conn_end;

/** One inter-residue connection (_struct_conn row, PDB LINK/SSBOND). */
typedef struct sp_conn {
  uint8_t type;                   /**< sp_conn_type */
  char id[16];                    /**< _struct_conn.id, "" for PDB */
  float distance;                 /**< pdbx_dist_value (Å), NAN if not given */
  sp_conn_end a, b;
} sp_conn;

/** A bond of a component as the structure file itself defines it
 *  (_chem_comp_bond embedded in the entry; PDB CONECT bonds are sp_conect). */
typedef struct sp_file_bond {
  char comp_id[SP_ID_LEN];
  char atom1[SP_ID_LEN], atom2[SP_ID_LEN];
  uint8_t order;                  /**< 1, 2, 3; 4 = delocalised/unknown */
  uint8_t aromatic;               /**< pdbx_aromatic_flag Y */
} sp_file_bond;

/** One PDB CONECT bond (wwPDB "Atomic Coordinate Entry Format Version 3.3", section 10,
 *  CONECT: columns 7-11 the atom's serial, 12-16, 17-21, 22-26, 27-31 the serials of atoms
 *  bonded to it; an atom with more than four bonds has further records). Collected by
 *  sp_structure_add_conect() as written (one directed entry per field) and resolved by
 *  sp_structure_finish() into one bond per atom pair, so that every bond the records give in
 *  both directions (as wwPDB writes them) is one sp_conect. */
typedef struct sp_conect {
  int64_t a, b;        /**< atom indices in model 1, a < b */
  uint8_t order;       /**< bond order: the number of times one of the two atoms lists the other
                            in its CONECT records (the larger of the two directions), 1-3. The
                            format guide gives no bond orders (wwPDB lists every bond once per
                            direction, so order 1); repeating a serial for a double or triple bond
                            is the convention of Open Babel's and RDKit's PDB readers and writers.
                            A pair listed more than 3 times is order 1, with a warning. */
} sp_conect;

/** A _chem_comp row of the entry (component list of the file). */
typedef struct sp_file_comp {
  char id[SP_ID_LEN];
  char type[40];                  /**< _chem_comp.type, e.g. "L-peptide linking", "non-polymer" */
} sp_file_comp;

/** A crystallographic symmetry operator in fractional coordinates: x' = rot x + trn. */
typedef struct sp_symop {
  double rot[3][3];
  double trn[3];
} sp_symop;

/** Every per-atom array of sp_structure (the parallel arrays of length n_atoms, capacity cap_atoms), as
 *  X(field) for each: the one list that the code which grows, frees, sizes, permutes or compacts them
 *  expands, so that a new per-atom array is added here and in the struct, nowhere else. */
#define SP_ATOM_ARRAYS(X) \
  X(xyz) X(occupancy) X(b_iso) X(atom_name) X(serial) X(atom_residue) X(element) X(charge) X(altloc) X(atom_flags)

/** The whole structure of one input file. Zero-initialise then sp_structure_init(). */
typedef struct sp_structure {
  /* atoms: parallel arrays of length n_atoms (all of them listed in SP_ATOM_ARRAYS) */
  size_t n_atoms, cap_atoms;
  float (*xyz)[3];          /**< Cartn_x/y/z, Å */
  float *occupancy;         /**< 1.0 when absent */
  float *b_iso;             /**< B_iso_or_equiv, Å^2, 0 when absent */
  char (*atom_name)[SP_ID_LEN];  /**< label_atom_id (auth_atom_id if no label) */
  int32_t *serial;          /**< _atom_site.id / PDB serial (hybrid-36 decoded); 0 if none */
  uint32_t *atom_residue;   /**< index into residues */
  uint8_t *element;         /**< atomic number (chem/elements.h), 0 = unknown; D and T give 1 */
  int8_t *charge;           /**< pdbx_formal_charge / PDB cols 79-80; 0 when absent */
  char *altloc;             /**< label_alt_id, '\0' when blank ('.' or ' ') */
  uint8_t *atom_flags;      /**< SP_ATOM_* bits */

  size_t n_residues, cap_residues;
  sp_residue *residues;
  size_t n_chains, cap_chains;
  sp_chain *chains;
  size_t n_models, cap_models;
  sp_model *models;
  size_t n_entities, cap_entities;
  sp_entity *entities;
  size_t n_seq, cap_seq;
  char (*seq_comp)[SP_ID_LEN];  /**< concatenated entity sequences (see sp_entity.seq_first) */
  size_t n_conns, cap_conns;
  sp_conn *conns;
  size_t n_file_bonds, cap_file_bonds;
  sp_file_bond *file_bonds;
  size_t n_file_comps, cap_file_comps;
  sp_file_comp *file_comps;
  size_t n_conects, cap_conects;
  sp_conect *conects;       /**< PDB CONECT bonds (sp_conect), sorted by (a, b), no pair twice;
                                 none for mmCIF. Before sp_structure_finish: the directed entries
                                 as written (private layout, see sp_structure_add_conect) */
  size_t n_conect_raw_;     /**< private: directed entries not yet resolved */

  /* entry metadata */
  char entry_id[32];        /**< _entry.id / HEADER idCode, "" if none */
  char method[48];          /**< _exptl.method / EXPDTA as written (rows joined), "" if none */
  float resolution;         /**< Å, NAN if none */
  float r_work;             /**< _refine.ls_R_factor_R_work (else ls_R_factor_obs) / REMARK 3 "R VALUE (WORKING
                                 SET)"; NAN if none */
  float r_free;             /**< _refine.ls_R_factor_R_free / REMARK 3 "FREE R VALUE"; NAN if none */
  char deposition_date[12]; /**< YYYY-MM-DD: _pdbx_database_status.recvd_initial_deposition_date, else
                                 _database_PDB_rev.date_original / HEADER columns 51-59; "" if none */
  char release_date[12];    /**< YYYY-MM-DD: first _pdbx_audit_revision_history.revision_date, else
                                 _database_PDB_rev.date of num 1 / REVDAT modNum 1 columns 14-22; "" if none */
  size_t n_can, cap_can;
  char *seq_can;            /**< canonical one-letter codes of the entities (sp_entity.can_first), not NUL-terminated */
  size_t n_dbrefs, cap_dbrefs;
  sp_dbref *dbrefs;         /**< in file order */
  size_t n_asm_gens, cap_asm_gens;
  sp_asm_gen *asm_gens;     /**< generators of the first assembly (none when the file has none) */
  size_t n_asm_ops, cap_asm_ops;
  sp_asm_oper *asm_ops;     /**< operators of asm_gens, expanded */
  uint8_t has_label_ids;    /**< file had label_asym_id/label_seq_id columns */
  uint8_t has_auth_ids;     /**< file had auth_asym_id/auth_seq_id columns */

  /* crystal symmetry as written in the file (docs/sites.md "Symmetry mates"; symmetry.h) */
  double cell[6];           /**< a, b, c (Å), alpha, beta, gamma (degrees); NAN when absent or unreadable */
  char spacegroup[32];      /**< Hermann-Mauguin name as written ("P 1 21 1", "H 3"), "" if none */
  int32_t cell_z;           /**< Z (CRYST1 columns 67-70 / _cell.Z_PDB), 0 if none */
  uint8_t has_scale;        /**< the file gives its fractionalisation (SCALEn / _atom_sites.fract_transf_*) */
  double scale[3][4];       /**< fractional u = scale[:, :3] x + scale[:, 3] (valid when has_scale) */
  size_t n_symops, cap_symops;
  sp_symop *symops;         /**< explicit operators of the file (_space_group_symop.operation_xyz or
                                 _symmetry_equiv.pos_as_xyz), in file order; none when absent or when
                                 one of them could not be parsed (a warning says so) */

  /* warnings: NUL-separated messages, n_warnings of them */
  char *warnings;
  size_t warnings_len, warnings_cap, n_warnings;
  size_t n_cut_ids; /* identifiers cut to SP_ID_LEN-1 (copy_id): the first is a warning, sp_structure_finish
                       adds one with the count of the others */

  /* private to sp_structure_add_atom: a 64-bit Bloom filter of the (atom name, altloc) pairs of
   * the last residue, valid while rb_residue_ == n_residues and rb_atoms_ == its n_atoms */
  uint64_t rb_bits_;
  size_t rb_residue_;
  uint32_t rb_atoms_;
} sp_structure;

/** Incoming atom for sp_structure_add_atom(). String views need not be NUL-terminated. */
typedef struct sp_atom_in {
  int32_t model_num;
  sp_sv label_asym_id, auth_asym_id, entity_id;
  sp_sv comp_id;
  int32_t label_seq_id, auth_seq_id;   /**< SP_SEQ_NONE when absent */
  char ins_code;                       /**< '\0' when none */
  sp_sv atom_name;
  char altloc;                         /**< '\0' when blank */
  uint8_t element;                     /**< atomic number, 0 unknown */
  int8_t charge;
  bool hetatm;
  bool element_from_name;              /**< element inferred from the name: SP_ATOM_ELEMENT_FROM_NAME */
  int32_t serial;
  float x, y, z, occupancy, b_iso;
} sp_atom_in;

/** Initialise an empty structure. @return 0 (cannot fail). */
int sp_structure_init(sp_structure *s);
/** Free everything owned by @p s and leave it empty (re-usable after sp_structure_init). */
void sp_structure_free(sp_structure *s);
/** Drop all atoms/residues/... but keep the allocations (for re-use across files). */
void sp_structure_clear(sp_structure *s);

/**
 * Append one atom. Starts a new model when model_num differs from the last atom's,
 * a new chain when (label_asym_id, auth_asym_id) differ, and a new residue when
 * (comp_id, label_seq_id, auth_seq_id, ins_code) differ, or when an atom with the
 * same (atom_name, altloc) already exists in the current residue (two adjacent
 * residues with identical identifiers, case B16; checked in residues of up to 512 atoms,
 * which bounds the work per atom — no CCD component is that large). An atom whose name is
 * longer than SP_ID_LEN-1 never starts a residue (cut names may become equal: case R24).
 * Identifiers longer than SP_ID_LEN-1 are truncated with a warning. sp_structure_finish joins
 * the residues and models that the file gives in pieces (atoms of one residue apart, models
 * interleaved).
 * @return 0, or SP_E_NOMEM, SP_E_TOO_LARGE (more than UINT32_MAX-1 atoms).
 */
int sp_structure_add_atom(sp_structure *s, const sp_atom_in *a, sp_err *err);

/** Append an entity; its index is n_entities-1 afterwards. @return 0 or SP_E_NOMEM. */
int sp_structure_add_entity(sp_structure *s, const sp_entity *e, sp_err *err);
/** Append one comp_id to the sequence pool (call after add_entity, increments its seq_len).
 *  @return 0 or SP_E_NOMEM. */
int sp_structure_add_seq(sp_structure *s, size_t entity, sp_sv comp_id, sp_err *err);
/** Append a connection (its ends' .atom is set by sp_structure_finish). @return 0 or SP_E_NOMEM. */
int sp_structure_add_conn(sp_structure *s, const sp_conn *c, sp_err *err);
/** Append a file-defined bond. @return 0 or SP_E_NOMEM. */
int sp_structure_add_file_bond(sp_structure *s, const sp_file_bond *b, sp_err *err);
/**
 * Append one field of a PDB CONECT record as written: the atom of serial @p serial (columns
 * 7-11) is bonded to the atom of serial @p bonded (one of columns 12-16, 17-21, 22-26, 27-31).
 * sp_structure_finish() resolves the serials to atoms of model 1 (the first atom of model 1
 * with that serial; a serial that is no atom of model 1, or that two atoms of model 1 carry,
 * gives no bond and one warning with the count) and merges the entries into sp_structure.conects.
 * @return 0 or SP_E_NOMEM.
 */
int sp_structure_add_conect(sp_structure *s, int32_t serial, int32_t bonded, sp_err *err);

/**
 * Order of the CONECT bond between atoms @p a and @p b (indices into the atom arrays, either
 * order) of a finished structure: 1-3 (sp_conect.order), 0 when the file's CONECT records give
 * no such bond (always 0 for mmCIF). Binary search over sp_structure.conects: O(log n_conects).
 * For the ligand residues that CONECT records join, iterate sp_structure.conects and compare
 * atom_residue[a] with atom_residue[b].
 */
int sp_structure_conect_order(const sp_structure *s, int64_t a, int64_t b);

/**
 * Index of the first CONECT bond whose lower atom is @p a, in a finished structure: the bonds
 * of @p a to atoms above it are conects[k] for k from the result while conects[k].a == a (the
 * bonds to atoms below it are found with sp_structure_conect_order). n_conects when none.
 */
size_t sp_structure_conect_first(const sp_structure *s, int64_t a);

/** Append a file-defined component row. @return 0 or SP_E_NOMEM. */
int sp_structure_add_file_comp(sp_structure *s, const sp_file_comp *c, sp_err *err);
/** Append @p n canonical one-letter codes to entity @p entity (the last one added: codes of one
 *  entity are contiguous). Blanks and newlines in @p codes are skipped. @return 0, SP_E_NOMEM, SP_E_INTERNAL. */
int sp_structure_add_can(sp_structure *s, size_t entity, const char *codes, size_t n, sp_err *err);
/** Append a reference-database segment. @return 0 or SP_E_NOMEM. */
int sp_structure_add_dbref(sp_structure *s, const sp_dbref *d, sp_err *err);
/** Append an assembly operator (its index is n_asm_ops-1 afterwards). @return 0 or SP_E_NOMEM. */
int sp_structure_add_asm_oper(sp_structure *s, const sp_asm_oper *op, sp_err *err);
/** Append an assembly generator (first_op, n_ops as given). @return 0 or SP_E_NOMEM. */
int sp_structure_add_asm_gen(sp_structure *s, const sp_asm_gen *g, sp_err *err);
/** One-letter code of a standard polymer residue (the 20 amino acids, SEC U, PYL O, ASX B, GLX Z,
 *  UNK X; DNA DA..DT, DI, DU, DN; RNA A, C, G, U, I, N), the letter of
 *  _entity_poly.pdbx_seq_one_letter_code_can; 0 for any other comp_id. (src/model/sequence.c) */
char sp_one_letter_code(const char *comp_id);
/** Polymer type of a chain from its residue names (PDB SEQRES, or modelled residues): more than half
 *  standard amino acids (MSE, UNK included) polypeptide(L), D-amino acids polypeptide(D), DNA / RNA
 *  nucleotides (both: hybrid), else other; SP_POLY_NONE for n = 0. */
uint8_t sp_poly_type_guess(const char (*comp)[SP_ID_LEN], size_t n);
/** Give every polymer entity that has a residue sequence (seq_comp) but no one-letter sequence one,
 *  residue by residue: sp_one_letter_code(), else that of its parent in @p mod (pairs {comp_id, parent
 *  comp_id}: PDB MODRES, _pdbx_struct_mod_residue), else 'X'. @return 0 or SP_E_NOMEM. */
int sp_structure_can_from_seq(sp_structure *s, const char (*mod)[2][SP_ID_LEN], size_t n_mod, sp_err *err);
/** Append an explicit symmetry operator of the file. @return 0 or SP_E_NOMEM. */
int sp_structure_add_symop(sp_structure *s, const sp_symop *op, sp_err *err);

/**
 * Finish reading: join model entries of one model number (mmCIF rows of models interleaved) and
 * residue pieces with the identifiers of an earlier, not adjacent residue of the same model (atoms of
 * one residue apart in the file; a piece that names an atom of it again at other coordinates stays
 * apart, with a warning), moving atoms so that each residue is contiguous (src/model/regroup.c);
 * join the residues that sp_structure_add_atom split at a repeated (atom name,
 * altloc) where the second part is no copy of the first (fewer than half of its atoms repeat a
 * name of the first, or they are fewer than half of the first's atoms, or only one atom repeats
 * where the two are not single atoms: a ligand whose H are all "H", a second "C1"; or it holds an
 * exact duplicate of an atom of the first; or it is bonded to the first and has at most two atoms
 * or repeats only element-like names: C, O, C, O as Open Babel names atoms; two whole copies with
 * identical ids stay two, case B16); drop exact duplicate atom records (same residue, name, altloc
 * and coordinates) with a "duplicate atom records" warning; flag the atoms of
 * such a repeated pair SP_ATOM_REPEATED_NAME, with one warning "repeated_atom_name: residue ..."
 * per repeated name of model 1 (later models: one warning with the count); link chains to
 * entities by entity_id (mmCIF) and set each residue's entity_type; resolve every connection end to an atom of model 1 (by label ids when
 * given, else by auth ids; altloc respected when given, else the first matching atom);
 * resolve the CONECT entries into sp_structure.conects (sp_structure_add_conect).
 * Fails with SP_E_NO_ATOMS when the structure has no atoms.
 * @return 0, SP_E_NO_ATOMS or SP_E_NOMEM.
 */
int sp_structure_finish(sp_structure *s, sp_err *err);

/** Record a warning (printf format). Warnings never fail a file. */
void sp_structure_warn(sp_structure *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** The i-th warning (0-based), NULL if i >= n_warnings. */
const char *sp_structure_warning(const sp_structure *s, size_t i);

/** Bytes allocated by @p s (arrays at their capacity): for the memory-per-atom report. */
size_t sp_structure_bytes(const sp_structure *s);

/** Copy a string view into a fixed field of size @p cap (NUL-terminated, truncated).
 *  @return 1 if it was truncated, else 0. */
int sp_sv_copy(char *dst, size_t cap, sp_sv v);
/** Copy the NUL-terminated text @p src into the fixed-size column @p dst of @p cap bytes
 *  (cap >= 4), NUL-padded; a text that does not fit is cut and ends with "..." (never cut
 *  silently: issue 16 item 7). @return 1 when cut, else 0. */
int sp_text_fit(char *dst, size_t cap, const char *src);
/** Compare a string view with a NUL-terminated string: 1 if equal. */
bool sp_sv_eq(sp_sv v, const char *s);

#ifdef __cplusplus
}
#endif
#endif
