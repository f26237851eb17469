/* Private to src/derive/export*.c: the tables of a merged file as the exporter reads them (export.c loads
 * them whole) and the SDF writer (export_sdf.c). Not installed. Layout of the SDF: docs/format.md
 * "Export files". */
#ifndef SITEPACK_EXPORT_INTERNAL_H
#define SITEPACK_EXPORT_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/error.h"
#include "sitepack/export.h"
#include "sitepack/model.h"
#include "sitepack/valence.h"

/* One column read whole: n rows of es bytes (p NULL: an optional column the file does not have). */
typedef struct xcol {
  char *p;
  size_t es;
} xcol;

/* The tables of the merged file that the exporter needs (columns of docs/format.md, one xcol each). */
typedef struct xfile {
  hid_t f;
  const char *path;
  sp_err *err;
  int64_t n_st, n_lig, n_comp, n_site, n_res, n_atom, n_bond;
  xcol st_path, st_entry;
  xcol l_comp, l_chain, l_seq, l_ins, l_cls, l_flags, l_key, l_src, l_heavy, l_st, l_model, l_residues;
  xcol c_comp, c_inchikey;
  xcol s_aptr, s_rptr, s_bptr, s_nlig, s_lig, s_st;
  xcol r_label, r_auth, r_comp, r_seq, r_lseq, r_ins, r_kind, r_symop;
  xcol a_pos, a_el, a_name, a_alt, a_res, a_occ, a_b, a_charge, a_ccdc, a_ccda, a_flags;
  xcol b_a1, b_a2, b_order, b_src, b_flags;
  /* per structure (n_st): 1 when some /bonds row of its sites with source `conect` has order > 1, i.e. the
   * file's writer repeated CONECT records for multiple bonds (docs/format.md "/bonds"); 0: its CONECT bonds
   * carry connectivity only. Built by sp_export_conect_orders(). */
  uint8_t *st_conect_orders;
} xfile;

#define I64(c, i) (((const int64_t *)(c).p)[i])
#define I32(c, i) (((const int32_t *)(c).p)[i])
#define U32(c, i) (((const uint32_t *)(c).p)[i])
#define U16(c, i) (((const uint16_t *)(c).p)[i])
#define U8(c, i) (((const uint8_t *)(c).p)[i])
#define I8(c, i) (((const int8_t *)(c).p)[i])
#define F32(c, i) (((const float *)(c).p)[i])

/* String i of a fixed-size string column into out (NUL-terminated, cut to cap - 1); returns out. */
static inline const char *xstr(const xcol *c, int64_t i, char *out, size_t cap) {
  size_t n = c->p ? strnlen(c->p + (size_t)i * c->es, c->es) : 0;
  if (n >= cap) n = cap - 1;
  if (n) memcpy(out, c->p + (size_t)i * c->es, n);
  out[n] = '\0';
  return out;
}

/* Element symbol of atomic number z for the written files, "*" when it has none. */
static inline const char *xelem(uint8_t z) {
  const char *s = sp_element_symbol(z);
  return s && s[0] ? s : "*";
}

/* "ENTRY COMP CHAIN SEQ[INS]" parts of a site's ligand (export.c site_ident). */
typedef struct site_id {
  char entry[40], comp[SP_ID_LEN], chain[SP_ID_LEN], seq[24];
  int64_t lig, st;
} site_id;

/* The SDF writer's per-site work space (export_sdf.c), reused from site to site; zero-initialise it once and
 * free it with sp_export_sdf_free(). */
typedef struct lig_bonds {
  int64_t *rows;       /* /bonds rows inside the ligand, metal bonds excepted: the bond block */
  size_t n, cap;
  int64_t *metal;      /* bonds to a metal atom: left out of the bond block (as InChI disconnects them) */
  size_t n_metal, cap_metal;
  sp_lig_charges q;    /* per ligand atom: the written formal charge, the valence rule's mark, the bond block's
                          degree and valence (valence.h sp_ligand_charges) */
  int unknown_order;   /* some bond has order 0 (perceived from distances): written as single */
  int conect_no_orders; /* some bond inside a residue comes from CONECT and the entry's CONECT gives no orders */
  int any_ccd, any_file, any_conect, any_perceived;
  int over_valence;      /* 1-based atom number of the first atom above its valence after the rules; 0 none */
  /* issue 39: hydrogens on linked atoms left out (valence.h sp_ligand_charges: lb->q.own), fragments
     (export_sdf.c written_atoms, fragments) */
  int32_t *num;          /* per ligand atom: its 1-based atom number in the record, 0 when left out */
  int32_t *uf;           /* per ligand atom: union-find parent of its fragment, -1 at a root */
  size_t cap_num;        /* elements of num, uf */
  int32_t n_out;         /* atoms written: n_ligand less the hydrogens left out */
  int n_link_h;          /* hydrogens left out (SD field link_hydrogens) */
  int n_frag;            /* connected fragments of the written molecule (bond block and metal bonds) */
} lig_bonds;

/* Set x->st_conect_orders from /bonds (the tables loaded). Returns 0 or SP_E_NOMEM. */
int sp_export_conect_orders(xfile *x);

/* Write site i's ligand as one SDF record (molfile + SD fields + "$$$$") to o; lb is the work space.
 * Returns 0 or SP_E_NOMEM. After the call lb says what the record holds (unknown orders, charges set). */
int sp_export_write_sdf(FILE *o, const xfile *x, int64_t i, const site_id *id, lig_bonds *lb);

/* Free the work space's arrays. */
void sp_export_sdf_free(lig_bonds *lb);

#endif
