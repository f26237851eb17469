/* Private to src/derive: whole-column reads and the column writes of /clusters and /splits (cluster.c,
 * split.c, split_io.c; include/sitepack/split.h). Not installed. */
#ifndef SITEPACK_SPLIT_INTERNAL_H
#define SITEPACK_SPLIT_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"

/** Open the merged file @p path read-only after sp_h5_input_stat() and check its root attributes
 *  (sp_h5_read_format) and that its version is at least @p min_version (else SP_E_FORMAT naming the file and
 *  @p why). Returns the file id, or < 0 with @p err set. */
hid_t sp_spl_open_read(const char *path, int min_version, const char *why, sp_err *err);
/** sp_spl_open_read(), also giving the file's format version in *@p version (not NULL). */
hid_t sp_spl_open_read_version(const char *path, int min_version, const char *why, int64_t *version, sp_err *err);

/** Read the whole 1-D dataset @p name of @p file as @p mtype (a native numeric type) into a new array of
 *  *@p n elements of @p elsize bytes (caller frees; an empty dataset gives a 1-byte allocation). A dataset of
 *  another rank than 1 is SP_E_FORMAT. @return the array, or NULL with @p err set (SP_E_FORMAT "PATH: missing
 *  dataset NAME", SP_E_NOMEM, SP_E_HDF5). */
void *sp_spl_read(hid_t file, const char *path, const char *name, hid_t mtype, size_t elsize, int64_t *n,
                  sp_err *err);

/** The same for a fixed-size string column: *@p width is the field size, the array is n * width bytes
 *  (not NUL-terminated where the value fills the field). */
char *sp_spl_read_str(hid_t file, const char *path, const char *name, size_t *width, int64_t *n, sp_err *err);

/** Create the 1-D final-layout dataset @p name in @p loc (sp_h5_create_final), write @p n values of
 *  @p buf (native type @p mtype) as file type @p ftype, and set its `units` attribute to @p units (and
 *  `codes` when @p codes is not NULL). Returns the open dataset for more attributes (caller closes), or < 0
 *  (the HDF5 error stack kept for sp_h5_fail). */
hid_t sp_spl_write(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int64_t n, const void *buf,
                   const char *units, const char *codes);

/** Open @p path for writing with the merged file's access list (sp_h5_fapl(1): 4096-byte alignment of
 *  objects from 64 KiB), delete the group @p group when it exists and @p replace is set, and create it again
 *  when absent (an existing group is opened). Returns the group (caller closes it and *@p file), or < 0
 *  with @p err set. */
hid_t sp_spl_open_group(const char *path, const char *group, int replace, hid_t *file, sp_err *err);


/** FNV-1a 64 of @p n bytes: the stable key hash of the split (docs/usage.md "Splits"). */
uint64_t sp_spl_fnv(const void *p, size_t n);

/** Seconds of a monotonic clock. */
double sp_spl_now(void);



/* split.c, split_assign.c, split_ligand.c: the columns sitepack split reads (sp_spl_read_in). Per site (N):
 * pcl (the site's coarse protein cluster), lcl (Butina ligand cluster), sidx, lidx, mol (row of fp); per
 * structure (S): efirst, eid, spath, rdate / ddate (release / deposition date, YYYY-MM-DD or empty); per
 * ligand: cls, comp; per chain (C): ccl (coarse chain cluster); per residue (R): rkind, rcontact, rchain with
 * res_ptr (N + 1); fp: n_mol * SP_FP_WORDS words (bit i of /clusters/fingerprint is bit i % 64 of word i / 64). */
typedef struct sp_spl_in {
  int64_t n_sites, n_struct, n_lig, n_chain, n_res, n_mol;
  int64_t *pcl, *lcl, *sidx, *lidx, *efirst, *mol, *ccl, *res_ptr, *rchain, *site_chain, *seq_ptr;
  uint8_t *code;     /* /sequences/code; chain c's sequence is code[seq_ptr[c] .. seq_ptr[c + 1]) */
  char *ctype;       /* /chains/type, ctype_w bytes each */
  size_t ctype_w;
  int64_t n_code;
  uint8_t *rkind, *rcontact;
  uint8_t *nr;       /* --non-redundant: 1 for the representative of its group (sp_spl_non_redundant); NULL off */
  uint64_t *fp;
  char *cls, *eid, *spath, *comp, *rdate, *ddate;
  size_t cls_w, eid_w, path_w, comp_w, rdate_w, ddate_w;
  char pcol[64];
} sp_spl_in;

/** 1 when site @p s's ligand is an ion, artifact-class (buffers) or detergent: it joins no ligand component. */
int sp_spl_follows_protein(const sp_spl_in *in, int64_t s);

/** Union-find over @p p (each element its own root at start): root of @p x (path halving), and the union of
 *  two elements' sets (the smaller root stays the root: deterministic). */
int64_t sp_spl_find(int64_t *p, int64_t x);
void sp_spl_union(int64_t *p, int64_t a, int64_t b);

/* split_assign.c */
/** The entry of site @p s (its structure's /structures/entry_first, else the structure) and the entry's key
 *  (entry id, else path; *@p len bytes, not NUL-terminated). */
int64_t sp_spl_entry_of(const sp_spl_in *in, int64_t s);
const char *sp_spl_entry_key(const sp_spl_in *in, int64_t e, size_t *len);
struct sp_datasplit_opts;
struct sp_datasplit_summary;
/** The side of site @p s fixed before the fill (SP_SIDE_COPY, SP_SIDE_UNDATED, SP_SIDE_TRAIN before a time
 *  cut), or 99 when the fill places it. */
int sp_spl_fixed_side(const sp_spl_in *in, const struct sp_datasplit_opts *o, int64_t s);
/** The side of every site (@p side[N], out) by the rule of sp_split (split.h), with the summary's counts,
 *  fractions, deviation and max_cross_tanimoto. 0 or SP_E_NOMEM. */
int sp_spl_assign(const sp_spl_in *in, const struct sp_datasplit_opts *o, int8_t *side,
                  struct sp_datasplit_summary *sum);

/* split_ligand.c */
/** The ligand component of every site at Tanimoto >= @p t (docs/usage.md "Splits"): the molecules (rows of
 *  in->fp) joined by every pair at or above @p t (single linkage: connected components); @p lc[N] (out) the
 *  smallest molecule row of the site's component, -1 for ions and artifact-class ligands. O(M^2). 0 or
 *  SP_E_NOMEM. */
int sp_spl_ligand_components(const sp_spl_in *in, double t, int64_t *lc);
/** The largest Tanimoto between the molecule of a train site and that of a val or test site (ions and
 *  artifacts apart on both sides; sides from @p side[N]); 0 when either side has none. */
double sp_spl_max_cross_tanimoto(const sp_spl_in *in, const int8_t *side);

/** Read /clusters/fingerprint (M, 256) bytes into words (sp_spl_in.fp layout); NULL with @p err set. */
uint64_t *sp_spl_read_fp(hid_t file, const char *path, int64_t *m, sp_err *err);

/* split_nr.c */
/** The non-redundant subset (docs/usage.md "Splits", --non-redundant): among the sites with @p eligible[s], one
 *  per (fine protein cluster /clusters protein_high, molecule /clusters/ligand_molecule), the first by
 *  resolution (ascending; none or <= 0 last), ligand completeness (n_heavy_atoms / n_ccd_heavy_atoms,
 *  descending), occupancy_mean (descending), entry key (byte order), site index. @p rep[N] (out): 1 for the
 *  chosen. 0; SP_E_FORMAT, SP_E_NOT_FOUND (columns), SP_E_NOMEM. */
int sp_spl_non_redundant(const char *path, const sp_spl_in *in, const int8_t *eligible, uint8_t *rep, sp_err *err);

/* split_scores.c */
/** Per-site leakage scores of sp_spl_scores (N each, caller frees): identity, tanimoto (NaN: not a val/test site;
 *  identity NaN also: the site touches no polypeptide chain), stratum (SP_NOT_NOVEL.., -1 not val/test). */
typedef struct sp_spl_score_out {
  double *identity, *tanimoto;
  int8_t *stratum;
} sp_spl_score_out;
/** The scores of the val/test sites of @p side (split.h sp_split; docs/usage.md "Leakage scores"): MMseqs2
 *  easy-search (-c 0.8 --cov-mode 0, @p o->threads) of the polypeptide chains val/test sites contact (and their
 *  site chains) against those of train sites, in a temporary folder beside @p path; Tanimoto to every train
 *  site's molecule; strata at identity SP_NOVEL_IDENTITY and Tanimoto o->max_tanimoto. Fills sum->strata,
 *  max_cross_identity, seconds_scores, scored. 0; SP_E_NOT_FOUND (no mmseqs), SP_E_IO, SP_E_NOMEM. */
int sp_spl_scores(const char *path, const sp_spl_in *in, const struct sp_datasplit_opts *o, const int8_t *side,
                  sp_spl_score_out *out, struct sp_datasplit_summary *sum, sp_err *err);

/* mmseqs.c */
/** Resolve @p name (a path with '/', else looked up in PATH) to an executable regular file into @p out.
 *  0, or -1 when there is none. */
int sp_spl_find_exe(const char *name, char *out, size_t cap);
/** Run @p exe with @p argv (NULL-terminated; standard input /dev/null, output and errors appended to
 *  @p log_path) and wait. Returns its exit status, 128 + signal when killed, -1 when fork failed. */
int sp_spl_spawn(const char *exe, char *const argv[], const char *log_path);
/** Remove the folder @p dir and everything in it (no symbolic link followed). */
void sp_spl_rmtree(const char *dir);
/** The last 300 bytes or so of @p log_path on one line (newlines as blanks) into @p out. */
void sp_spl_log_tail(const char *log_path, char *out, size_t cap);
#endif
