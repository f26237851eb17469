/* sp_check(): validate a merged sitepack file against docs/format.md (store.h). */
#include "sitepack/store.h"
#include "store_internal.h"

#include "sitepack/base.h"
#include "sitepack/bonds.h"
#include "sitepack/site.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Rows read at a time when scanning the atoms table. */
#define CK_CHUNK ((size_t)1 << 20)

typedef struct ck {
  const char *path;
  sp_err *err;
  hid_t file;
  uint64_t file_size;
  sp_check_summary *sum;
  int64_t rows[SP_T_COUNT];
  int has_optional;  /* /residues/symop present (symmetry mates) */
  int has_assembly;  /* /residues/assembly_op present (assembly copies) */
  int64_t ver;       /* the file's format_version (SP_FORMAT_VERSION_MIN .. SP_FORMAT_VERSION) */
} ck;

/* Check one dataset's presence, type, shape, layout and placement. @p rows: expected first
 * dimension, or -1 to learn it (stored in *rows). */
static int ck_dataset(ck *c, const char *group, const char *name, hid_t want_type, int three, int64_t *rows) {
  char full[128];
  snprintf(full, sizeof full, "/%s/%s", group, name);
  char gpath[64];
  snprintf(gpath, sizeof gpath, "/%s", group);
  if (H5Lexists(c->file, gpath, H5P_DEFAULT) <= 0)
    return sp_err_set(c->err, SP_E_FORMAT, "%s: missing group %s", c->path, gpath);
  if (H5Lexists(c->file, full, H5P_DEFAULT) <= 0)
    return sp_err_set(c->err, SP_E_FORMAT, "%s: missing dataset %s", c->path, full);
  hid_t d = H5Dopen2(c->file, full, H5P_DEFAULT);
  if (d < 0) return sp_err_set(c->err, SP_E_FORMAT, "%s: %s is not a dataset", c->path, full);
  hid_t ft = H5Dget_type(d), sp = H5Dget_space(d), dcpl = H5Dget_create_plist(d);
  int rc = 0;
  hsize_t dims[2] = {0, 0};
  int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  if (nd >= 1 && nd <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (ft < 0 || sp < 0 || dcpl < 0) {
    rc = sp_h5_fail(c->err, "cannot inspect dataset", full);
  } else if (H5Tequal(ft, want_type) <= 0) {
    rc = sp_err_set(c->err, SP_E_FORMAT, "%s: %s has the wrong type (class %d, %zu bytes; docs/format.md)", c->path,
                    full, (int)H5Tget_class(ft), H5Tget_size(ft));
  } else if (nd != (three ? 2 : 1) || (three && dims[1] != 3)) {
    rc = sp_err_set(c->err, SP_E_FORMAT, "%s: %s has shape rank %d, expected %s", c->path, full, nd,
                    three ? "(n, 3)" : "(n,)");
  } else if (*rows >= 0 && (int64_t)dims[0] != *rows) {
    rc = sp_err_set(c->err, SP_E_FORMAT, "%s: %s has %llu rows, expected %lld like the rest of /%s", c->path, full,
                    (unsigned long long)dims[0], (long long)*rows, group);
  } else if (H5Pget_layout(dcpl) != H5D_CONTIGUOUS) {
    rc = sp_err_set(c->err, SP_E_FORMAT, "%s: %s is not contiguous", c->path, full);
  } else if (H5Pget_nfilters(dcpl) != 0) {
    rc = sp_err_set(c->err, SP_E_FORMAT, "%s: %s is filtered (compressed)", c->path, full);
  } else {
    uint64_t bytes = (uint64_t)dims[0] * (three ? 3u : 1u) * H5Tget_size(ft);
    haddr_t off = H5Dget_offset(d);
    if (bytes > 0 && off == HADDR_UNDEF)
      rc = sp_err_set(c->err, SP_E_FORMAT, "%s: %s has no file offset (not allocated)", c->path, full);
    else if (bytes > 0 && (off > c->file_size || bytes > c->file_size - off))
      rc = sp_err_set(c->err, SP_E_FORMAT, "%s: %s ends at byte %llu, past the end of the file (%llu bytes): truncated",
                      c->path, full, (unsigned long long)(off + bytes), (unsigned long long)c->file_size);
    else if (bytes >= 65536 && off % 4096 != 0)
      rc = sp_err_set(c->err, SP_E_FORMAT, "%s: %s (%llu bytes) starts at %llu, not a multiple of 4096", c->path, full,
                      (unsigned long long)bytes, (unsigned long long)off);
    if (!rc) {
      *rows = (int64_t)dims[0];
      c->sum->n_datasets++;
      c->sum->data_bytes += bytes;
    }
  }
  if (dcpl >= 0) H5Pclose(dcpl);
  if (sp >= 0) H5Sclose(sp);
  if (ft >= 0) H5Tclose(ft);
  H5Dclose(d);
  H5Eclear2(H5E_DEFAULT);
  return rc;
}

/* Whether /group/name exists. */
static int ck_exists(ck *c, const char *group, const char *name) {
  char full[128];
  snprintf(full, sizeof full, "/%s/%s", group, name);
  int there = H5Lexists(c->file, full, H5P_DEFAULT) > 0; /* <= 0 also when /group is missing */
  H5Eclear2(H5E_DEFAULT);
  return there;
}

/* A CSR pointer dataset of a table added in format version @p since: absent accepted in an older file. */
static int ck_pointer(ck *c, const char *group, const char *name, int since, int64_t rows1) {
  if (since > c->ver && !ck_exists(c, group, name)) return 0;
  return ck_dataset(c, group, name, H5T_STD_I64LE, 0, &rows1);
}

/* Every dataset of the file's version (docs/format.md "Versions"): a dataset a later version added may be
 * absent from an older file; when present it is checked like in a file of its version. */
static int ck_layout(ck *c) {
  for (int t = 0; t < SP_T_COUNT; t++) {
    const sp_table *tb = &sp_tables[t];
    c->rows[t] = -1;
    for (size_t k = 0; k < tb->n_cols; k++) {
      int later = sp_col_since(t, &tb->cols[k]) > c->ver;
      if (tb->cols[k].optional || later) {
        /* optional: written only when some site has symmetry mates / assembly copies */
        if (!ck_exists(c, tb->name, tb->cols[k].name)) continue;
        if (tb->cols[k].optional == 1) c->has_optional = 1;
        else if (tb->cols[k].optional == 2) c->has_assembly = 1;
      }
      hid_t ft = sp_h5_col_filetype(&tb->cols[k]);
      if (ft < 0) return sp_h5_fail(c->err, "cannot build a type", NULL);
      int rc = ck_dataset(c, tb->name, tb->cols[k].name, ft, tb->cols[k].kind == SP_COL_F32X3, &c->rows[t]);
      H5Tclose(ft);
      if (rc) return rc;
    }
    if (c->rows[t] < 0) c->rows[t] = 0; /* a table of a later version, absent */
  }
  int64_t s = c->rows[SP_T_STRUCTURES], s1 = s + 1, n1 = c->rows[SP_T_SITES] + 1;
  int rc = 0;
  if (!rc) rc = ck_dataset(c, "structures", "file_idx", H5T_STD_I64LE, 0, &s);
  if (!rc) rc = ck_dataset(c, "structures", "n_parts", H5T_STD_I32LE, 0, &s);
  if (!rc) rc = ck_dataset(c, "structures", "ligand_ptr", H5T_STD_I64LE, 0, &s1);
  if (!rc) rc = ck_dataset(c, "structures", "site_ptr", H5T_STD_I64LE, 0, &s1);
  if (!rc) rc = ck_dataset(c, "sites", "atom_ptr", H5T_STD_I64LE, 0, &n1);
  if (!rc) rc = ck_dataset(c, "sites", "residue_ptr", H5T_STD_I64LE, 0, &n1);
  if (!rc) rc = ck_dataset(c, "sites", "interaction_ptr", H5T_STD_I64LE, 0, &n1);
  if (!rc) rc = ck_dataset(c, "sites", "bond_ptr", H5T_STD_I64LE, 0, &n1);
  int64_t c1 = c->rows[SP_T_CHAINS] + 1;
  if (!rc) rc = ck_pointer(c, "chains", "seq_ptr", sp_tables[SP_T_CHAINS].since, c1);
  if (!rc) rc = ck_pointer(c, "chains", "segment_ptr", sp_tables[SP_T_CHAINS].since, c1);
  if (!rc && H5Lexists(c->file, "/run", H5P_DEFAULT) <= 0)
    rc = sp_err_set(c->err, SP_E_FORMAT, "%s: missing group /run", c->path);
  return rc;
}

/* Read rows [start, start+n) of a 1-D dataset as native @p mt. */
static int ck_read(ck *c, const char *full, hid_t mt, int64_t start, size_t n, void *buf) {
  if (n == 0) return 0;
  hid_t d = H5Dopen2(c->file, full, H5P_DEFAULT);
  hid_t fs = d >= 0 ? H5Dget_space(d) : -1;
  hsize_t st = (hsize_t)start, cnt = n;
  hid_t ms = H5Screate_simple(1, &cnt, NULL);
  int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &st, NULL, &cnt, NULL) >= 0 &&
           H5Dread(d, mt, ms, fs, H5P_DEFAULT, buf) >= 0;
  int rc = ok ? 0 : sp_h5_fail(c->err, "cannot read", full);
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  if (d >= 0) H5Dclose(d);
  return rc;
}

/* a /residues/symop tag: K_abc (K >= 1, three digits) or K_a_b_c (signed integers), docs/format.md */
static int symop_tag_ok(const char t[16]) {
  size_t n = strnlen(t, 16), i = 0;
  if (!n || t[0] < '1' || t[0] > '9') return 0;
  while (i < n && t[i] >= '0' && t[i] <= '9') i++;
  if (i >= n || t[i] != '_') return 0;
  size_t j = ++i;
  while (j < n && t[j] >= '0' && t[j] <= '9') j++;
  if (j == n && n - i == 3) return 1; /* K_abc */
  for (int part = 0; part < 3; part++) { /* K_a_b_c */
    if (i < n && t[i] == '-') i++;
    size_t d0 = i;
    while (i < n && t[i] >= '0' && t[i] <= '9') i++;
    if (i == d0) return 0;
    if (part < 2) {
      if (i >= n || t[i] != '_') return 0;
      i++;
    }
  }
  return i == n;
}

/* A whole 1-D dataset of @p n rows of @p esz bytes (native @p mt) into a new array *out (caller frees). */
static int ck_load(ck *c, const char *full, hid_t mt, size_t esz, int64_t n, void **out) {
  *out = malloc((size_t)(n > 0 ? n : 1) * esz);
  if (!*out) return sp_err_set(c->err, SP_E_NOMEM, "out of memory reading %s (%lld rows)", full, (long long)n);
  return ck_read(c, full, mt, 0, (size_t)n, *out);
}

/* CSR pointer: ptr[0] = 0, non-decreasing, ptr[n] = total. */
static int ck_ptr(ck *c, const char *full, const int64_t *p, int64_t n, int64_t total, const char *what) {
  if (p[0] != 0) return sp_err_set(c->err, SP_E_FORMAT, "%s: %s[0] = %lld, expected 0", c->path, full, (long long)p[0]);
  for (int64_t i = 0; i < n; i++)
    if (p[i + 1] < p[i])
      return sp_err_set(c->err, SP_E_FORMAT, "%s: %s decreases at row %lld (%lld then %lld)", c->path, full,
                        (long long)i, (long long)p[i], (long long)p[i + 1]);
  if (p[n] != total)
    return sp_err_set(c->err, SP_E_FORMAT, "%s: %s ends at %lld, but there are %lld %s", c->path, full,
                      (long long)p[n], (long long)total, what);
  return 0;
}

typedef struct ck_arrays {
  int64_t *atom_ptr, *res_ptr, *lig_ptr, *site_ptr, *ix_ptr;
  int32_t *n_ix, *ix_atoms;
  int64_t *site_st, *site_lig, *lig_st, *lig_site, *res_site;
  int32_t *n_lig, *n_at, *n_res, *st_nlig, *st_nsite;
  int64_t *chunk;
  uint16_t *flags;
} ck_arrays;

/* Step 1: the CSR pointers (each checked as it is read) and the index columns of the small tables. */
static int ck_load_index(ck *c, ck_arrays *a) {
  const int64_t S = c->rows[SP_T_STRUCTURES], L = c->rows[SP_T_LIGANDS], N = c->rows[SP_T_SITES],
                R = c->rows[SP_T_RESIDUES], A = c->rows[SP_T_ATOMS], X = c->rows[SP_T_INTERACTIONS];
  int rc = 0;
  hid_t I64 = H5T_NATIVE_INT64, I32 = H5T_NATIVE_INT32;
  if ((rc = ck_load(c, "/sites/atom_ptr", I64, 8, N + 1, (void **)&a->atom_ptr)) ||
      (rc = ck_ptr(c, "/sites/atom_ptr", a->atom_ptr, N, A, "atoms")))
    return rc;
  if ((rc = ck_load(c, "/sites/residue_ptr", I64, 8, N + 1, (void **)&a->res_ptr)) ||
      (rc = ck_ptr(c, "/sites/residue_ptr", a->res_ptr, N, R, "residues")))
    return rc;
  if ((rc = ck_load(c, "/sites/interaction_ptr", I64, 8, N + 1, (void **)&a->ix_ptr)) ||
      (rc = ck_ptr(c, "/sites/interaction_ptr", a->ix_ptr, N, X, "interactions")) ||
      (rc = ck_load(c, "/sites/n_interactions", H5T_NATIVE_INT32, 4, N, (void **)&a->n_ix)))
    return rc;
  if ((rc = ck_load(c, "/structures/ligand_ptr", I64, 8, S + 1, (void **)&a->lig_ptr)) ||
      (rc = ck_ptr(c, "/structures/ligand_ptr", a->lig_ptr, S, L, "ligands")))
    return rc;
  if ((rc = ck_load(c, "/structures/site_ptr", I64, 8, S + 1, (void **)&a->site_ptr)) ||
      (rc = ck_ptr(c, "/structures/site_ptr", a->site_ptr, S, N, "sites")))
    return rc;
  if ((rc = ck_load(c, "/sites/structure_idx", I64, 8, N, (void **)&a->site_st)) ||
      (rc = ck_load(c, "/sites/ligand_idx", I64, 8, N, (void **)&a->site_lig)) ||
      (rc = ck_load(c, "/sites/n_ligand", I32, 4, N, (void **)&a->n_lig)) ||
      (rc = ck_load(c, "/sites/n_atoms", I32, 4, N, (void **)&a->n_at)) ||
      (rc = ck_load(c, "/sites/n_residues", I32, 4, N, (void **)&a->n_res)) ||
      (rc = ck_load(c, "/ligands/structure_idx", I64, 8, L, (void **)&a->lig_st)) ||
      (rc = ck_load(c, "/ligands/site_idx", I64, 8, L, (void **)&a->lig_site)) ||
      (rc = ck_load(c, "/residues/site_idx", I64, 8, R, (void **)&a->res_site)) ||
      (rc = ck_load(c, "/structures/n_ligands", I32, 4, S, (void **)&a->st_nlig)) ||
      (rc = ck_load(c, "/structures/n_sites", I32, 4, S, (void **)&a->st_nsite)))
    return rc;
  return 0;
}

/* Step 2b (issue 16 item 12): each entry_first is -1 or an earlier-or-same row that is its own first. */
static int ck_entry_first(ck *c) {
  const int64_t S = c->rows[SP_T_STRUCTURES];
  int64_t *ef = NULL;
  int rc = ck_load(c, "/structures/entry_first", H5T_NATIVE_INT64, 8, S, (void **)&ef);
  for (int64_t s = 0; !rc && s < S; s++)
    if (ef[s] < -1 || ef[s] > s || (ef[s] >= 0 && ef[ef[s]] != ef[s]))
      rc = sp_err_set(c->err, SP_E_FORMAT, "%s: /structures/entry_first[%lld] = %lld is not -1 or an earlier row "
                      "that is the first of its entry", c->path, (long long)s, (long long)ef[s]);
  free(ef);
  return rc;
}

/* Step 2: structures' n_ligands / n_sites equal their ligand_ptr / site_ptr blocks; entry_first (2b). */
static int ck_structures(ck *c, const ck_arrays *a) {
  const int64_t S = c->rows[SP_T_STRUCTURES];
  for (int64_t s = 0; s < S; s++)
    if (a->lig_ptr[s + 1] - a->lig_ptr[s] != a->st_nlig[s] || a->site_ptr[s + 1] - a->site_ptr[s] != a->st_nsite[s])
      return sp_err_set(c->err, SP_E_FORMAT,
                        "%s: structure %lld: n_ligands %d / n_sites %d disagree with ligand_ptr / site_ptr (%lld / %lld)",
                        c->path, (long long)s, a->st_nlig[s], a->st_nsite[s],
                        (long long)(a->lig_ptr[s + 1] - a->lig_ptr[s]), (long long)(a->site_ptr[s + 1] - a->site_ptr[s]));
  return ck_entry_first(c);
}

/* Step 3: every ligand's structure_idx is the structure whose block holds it; site_idx in [-1, N). */
static int ck_ligands(ck *c, const ck_arrays *a) {
  const int64_t S = c->rows[SP_T_STRUCTURES], L = c->rows[SP_T_LIGANDS], N = c->rows[SP_T_SITES];
  for (int64_t l = 0; l < L; l++) {
    if (a->lig_st[l] < 0 || a->lig_st[l] >= S || l < a->lig_ptr[a->lig_st[l]] || l >= a->lig_ptr[a->lig_st[l] + 1])
      return sp_err_set(c->err, SP_E_FORMAT, "%s: /ligands/structure_idx[%lld] = %lld is out of range or not the "
                        "structure whose ligand_ptr block holds the row", c->path, (long long)l, (long long)a->lig_st[l]);
    if (a->lig_site[l] < -1 || a->lig_site[l] >= N)
      return sp_err_set(c->err, SP_E_FORMAT, "%s: /ligands/site_idx[%lld] = %lld is out of range [-1, %lld)", c->path,
                        (long long)l, (long long)a->lig_site[l], (long long)N);
  }
  return 0;
}

/* Step 4: per site, the counts equal the pointer differences, its structure and ligand point back,
 * and its residue rows carry its site_idx. */
static int ck_sites(ck *c, const ck_arrays *a) {
  const int64_t S = c->rows[SP_T_STRUCTURES], L = c->rows[SP_T_LIGANDS], N = c->rows[SP_T_SITES];
  for (int64_t i = 0; i < N; i++) {
    int64_t na = a->atom_ptr[i + 1] - a->atom_ptr[i], nr = a->res_ptr[i + 1] - a->res_ptr[i];
    if (na != a->n_at[i] || nr != a->n_res[i])
      return sp_err_set(c->err, SP_E_FORMAT, "%s: site %lld: n_atoms %d / n_residues %d disagree with atom_ptr / "
                        "residue_ptr (%lld / %lld)", c->path, (long long)i, a->n_at[i], a->n_res[i], (long long)na,
                        (long long)nr);
    if (a->ix_ptr[i + 1] - a->ix_ptr[i] != a->n_ix[i])
      return sp_err_set(c->err, SP_E_FORMAT, "%s: site %lld: n_interactions %d disagrees with interaction_ptr (%lld)",
                        c->path, (long long)i, a->n_ix[i], (long long)(a->ix_ptr[i + 1] - a->ix_ptr[i]));
    if (a->n_lig[i] < 0 || a->n_lig[i] > a->n_at[i])
      return sp_err_set(c->err, SP_E_FORMAT, "%s: site %lld: n_ligand %d outside [0, n_atoms %d]", c->path,
                        (long long)i, a->n_lig[i], a->n_at[i]);
    int64_t s = a->site_st[i], l = a->site_lig[i];
    if (s < 0 || s >= S || i < a->site_ptr[s] || i >= a->site_ptr[s + 1])
      return sp_err_set(c->err, SP_E_FORMAT, "%s: /sites/structure_idx[%lld] = %lld is out of range or not the "
                        "structure whose site_ptr block holds the site", c->path, (long long)i, (long long)s);
    if (l < 0 || l >= L || a->lig_site[l] != i || a->lig_st[l] != s)
      return sp_err_set(c->err, SP_E_FORMAT, "%s: /sites/ligand_idx[%lld] = %lld: out of range, or that ligand's "
                        "site_idx / structure_idx do not point back", c->path, (long long)i, (long long)l);
    for (int64_t j = a->res_ptr[i]; j < a->res_ptr[i + 1]; j++)
      if (a->res_site[j] != i)
        return sp_err_set(c->err, SP_E_FORMAT, "%s: /residues/site_idx[%lld] = %lld, but the row is in site %lld's block",
                          c->path, (long long)j, (long long)a->res_site[j], (long long)i);
  }
  return 0;
}

/* Step 5: every atom's residue_idx lies in its site's residue block, and its ligand flag (bit 0) is set
 * exactly on the first n_ligand atoms of its site (ligand atoms come first); scanned in chunks. */
static int ck_atom_residues(ck *c, ck_arrays *a) {
  const int64_t N = c->rows[SP_T_SITES], A = c->rows[SP_T_ATOMS];
  int rc = 0;
  a->chunk = malloc(CK_CHUNK * sizeof *a->chunk);
  a->flags = malloc(CK_CHUNK * sizeof *a->flags);
  if (!a->chunk || !a->flags) return sp_err_set(c->err, SP_E_NOMEM, "out of memory scanning /atoms");
  int64_t site = 0;
  for (int64_t a0 = 0; a0 < A; a0 += (int64_t)CK_CHUNK) {
    size_t n = (size_t)(A - a0) < CK_CHUNK ? (size_t)(A - a0) : CK_CHUNK;
    if ((rc = ck_read(c, "/atoms/residue_idx", H5T_NATIVE_INT64, a0, n, a->chunk)) ||
        (rc = ck_read(c, "/atoms/flags", H5T_NATIVE_UINT16, a0, n, a->flags)))
      return rc;
    for (size_t k = 0; k < n; k++) {
      int64_t at = a0 + (int64_t)k;
      while (site < N && a->atom_ptr[site + 1] <= at) site++;
      int64_t ri = a->chunk[k];
      if (ri < a->res_ptr[site] || ri >= a->res_ptr[site + 1])
        return sp_err_set(c->err, SP_E_FORMAT, "%s: /atoms/residue_idx[%lld] = %lld is outside site %lld's residues "
                          "[%lld, %lld)", c->path, (long long)at, (long long)ri, (long long)site,
                          (long long)a->res_ptr[site], (long long)a->res_ptr[site + 1]);
      int64_t j = at - a->atom_ptr[site];
      int lig = a->flags[k] & 1u;
      if (lig != (j < a->n_lig[site]))
        return sp_err_set(c->err, SP_E_FORMAT, "%s: site %lld: atom %lld of the block (row %lld) %s the ligand flag, "
                          "but n_ligand = %d (ligand atoms come first)", c->path, (long long)site, (long long)j,
                          (long long)at, lig ? "has" : "lacks", a->n_lig[site]);
    }
  }
  return 0;
}

/* Step 6: every interaction's site_idx is its block's site; its atom offsets lie inside that site's
 * atoms (water_atom may be -1). Reuses a->chunk of step 5. */
static int ck_interaction_rows(ck *c, ck_arrays *a) {
  const int64_t N = c->rows[SP_T_SITES], X = c->rows[SP_T_INTERACTIONS];
  int rc = 0;
  a->ix_atoms = malloc(CK_CHUNK * sizeof *a->ix_atoms);
  if (!a->ix_atoms) return sp_err_set(c->err, SP_E_NOMEM, "out of memory scanning /interactions");
  static const char *const ix_cols[4] = {"/interactions/site_idx", "/interactions/lig_atom", "/interactions/site_atom",
                                         "/interactions/water_atom"};
  for (int col = 0; col < 4; col++) {
    int64_t site = 0;
    for (int64_t x0 = 0; x0 < X; x0 += (int64_t)CK_CHUNK) {
      size_t n = (size_t)(X - x0) < CK_CHUNK ? (size_t)(X - x0) : CK_CHUNK;
      rc = col == 0 ? ck_read(c, ix_cols[0], H5T_NATIVE_INT64, x0, n, a->chunk)
                    : ck_read(c, ix_cols[col], H5T_NATIVE_INT32, x0, n, a->ix_atoms);
      if (rc) return rc;
      for (size_t k = 0; k < n; k++) {
        int64_t x = x0 + (int64_t)k;
        while (site < N && a->ix_ptr[site + 1] <= x) site++;
        if (col == 0) {
          if (a->chunk[k] != site)
            return sp_err_set(c->err, SP_E_FORMAT, "%s: /interactions/site_idx[%lld] = %lld, but the row is in site "
                              "%lld's block", c->path, (long long)x, (long long)a->chunk[k], (long long)site);
        } else {
          int32_t v = a->ix_atoms[k], lo = col == 3 ? -1 : 0;
          if (v < lo || v >= a->n_at[site])
            return sp_err_set(c->err, SP_E_FORMAT, "%s: %s[%lld] = %d is outside site %lld's %d atoms", c->path,
                              ix_cols[col], (long long)x, v, (long long)site, a->n_at[site]);
        }
      }
    }
  }
  return 0;
}

/* Step 7a: each /residues/symop tag is well formed, in a flagged site, not on the site's own ligand
 * residues, and a site's image residues (and assembly copies, /residues/assembly_op, which come after the
 * images: docs/sites.md "Biological assembly") come after its asymmetric-unit ones; marks @p tagged [R]. */
static int ck_symop_rows(ck *c, const ck_arrays *a, const uint32_t *sflags, uint8_t *tagged) {
  const int64_t N = c->rows[SP_T_SITES], R = c->rows[SP_T_RESIDUES];
  int rc = 0;
  hid_t t16 = sp_h5_str_type(16);
  char(*sym)[16] = malloc(CK_CHUNK * sizeof *sym);
  uint8_t *kind = malloc(CK_CHUNK);
  char(*asm_op)[16] = calloc(CK_CHUNK, sizeof *asm_op); /* all "" when the file has no assembly copies */
  uint8_t *site_img = calloc((size_t)(N > 0 ? N : 1), 1); /* per site: an image or copy residue seen */
  if (t16 < 0 || !sym || !kind || !asm_op || !site_img)
    rc = sp_err_set(c->err, SP_E_NOMEM, "out of memory checking /residues/symop");
  for (int64_t r0 = 0; !rc && r0 < R; r0 += (int64_t)CK_CHUNK) {
    size_t n = (size_t)(R - r0) < CK_CHUNK ? (size_t)(R - r0) : CK_CHUNK;
    if ((rc = ck_read(c, "/residues/symop", t16, r0, n, sym)) ||
        (rc = ck_read(c, "/residues/kind", H5T_NATIVE_UINT8, r0, n, kind)) ||
        (c->has_assembly && (rc = ck_read(c, "/residues/assembly_op", t16, r0, n, asm_op))))
      break;
    for (size_t k = 0; k < n && !rc; k++) {
      int64_t rs = a->res_site[r0 + (int64_t)k];
      if (!sym[k][0] && asm_op[k][0]) { /* an assembly copy: after the images, and no asymmetric unit after it */
        site_img[rs] = 1;
        continue;
      }
      if (!sym[k][0]) {
        if (site_img[rs])
          rc = sp_err_set(c->err, SP_E_FORMAT,
                          "%s: /residues row %lld of site %lld is as in the file but follows a symmetry-image or "
                          "assembly-copy residue (images and copies come after the asymmetric-unit residues)",
                          c->path, (long long)(r0 + (int64_t)k), (long long)rs);
        continue;
      }
      tagged[r0 + (int64_t)k] = 1;
      site_img[rs] = 1;
      if (!symop_tag_ok(sym[k])) {
        rc = sp_err_set(c->err, SP_E_FORMAT, "%s: /residues/symop[%lld] = '%.16s' is not a tag K_abc or K_a_b_c",
                        c->path, (long long)(r0 + (int64_t)k), sym[k]);
        break;
      }
      if (kind[k] == SP_RES_KIND_LIGAND || !(sflags[rs] & SP_SITE_SYMMETRY))
        rc = sp_err_set(c->err, SP_E_FORMAT, "%s: /residues/symop[%lld] = '%.16s' but the row is %s", c->path,
                        (long long)(r0 + (int64_t)k), sym[k],
                        kind[k] == SP_RES_KIND_LIGAND ? "one of its site's own ligand residues"
                                                      : "in a site without the symmetry flag");
    }
  }
  if (t16 >= 0) H5Tclose(t16);
  free(sym);
  free(kind);
  free(asm_op);
  free(site_img);
  return rc;
}

/* Step 7b: atom flag bit 9 (symmetry image) exactly on the atoms of @p tagged residues. */
static int ck_symop_atom_flags(ck *c, const uint8_t *tagged) {
  const int64_t R = c->rows[SP_T_RESIDUES], A = c->rows[SP_T_ATOMS];
  int rc = 0;
  int64_t *rix = malloc(CK_CHUNK * sizeof *rix);
  uint16_t *af = malloc(CK_CHUNK * sizeof *af);
  if (!rix || !af) rc = sp_err_set(c->err, SP_E_NOMEM, "out of memory checking atom flags");
  for (int64_t a0 = 0; !rc && a0 < A; a0 += (int64_t)CK_CHUNK) {
    size_t n = (size_t)(A - a0) < CK_CHUNK ? (size_t)(A - a0) : CK_CHUNK;
    if ((rc = ck_read(c, "/atoms/residue_idx", H5T_NATIVE_INT64, a0, n, rix)) ||
        (rc = ck_read(c, "/atoms/flags", H5T_NATIVE_UINT16, a0, n, af)))
      break;
    for (size_t k = 0; k < n; k++) {
      if (rix[k] < 0 || rix[k] >= R) continue; /* reported by the index checks above */
      int img = (af[k] & SP_SITE_ATOM_SYMMETRY) != 0;
      if (img != (tagged[rix[k]] != 0)) {
        rc = sp_err_set(c->err, SP_E_FORMAT, "%s: /atoms/flags[%lld] %s bit 9 (symmetry image) but its residue %lld %s",
                        c->path, (long long)(a0 + (int64_t)k), img ? "has" : "lacks", (long long)rix[k],
                        img ? "has no symop" : "has one");
        break;
      }
    }
  }
  free(rix);
  free(af);
  return rc;
}

/* Step 7: symmetry mates: /residues/symop exists exactly when some site has the flag (symmetry_partial
 * only with it); a tagged residue is in a flagged site and is not one of the site's own ligand
 * residues (kind 0); its atoms, and only they, carry the image bit. */
static int ck_symmetry(ck *c, const ck_arrays *a) {
  const int64_t N = c->rows[SP_T_SITES], R = c->rows[SP_T_RESIDUES];
  uint32_t *sflags = NULL;
  int rc = ck_load(c, "/sites/flags", H5T_NATIVE_UINT32, 4, N, (void **)&sflags);
  int any = 0, any_asm = 0;
  for (int64_t i = 0; !rc && i < N; i++) {
    if (sflags[i] & SP_SITE_SYMMETRY) any = 1;
    if (sflags[i] & SP_SITE_ASSEMBLY) any_asm = 1;
    if ((sflags[i] & SP_SITE_SYMMETRY_PARTIAL) && !(sflags[i] & SP_SITE_SYMMETRY))
      rc = sp_err_set(c->err, SP_E_FORMAT, "%s: /sites/flags[%lld] has symmetry_partial (bit 3) without symmetry (bit 2)",
                      c->path, (long long)i);
  }
  if (!rc && any != c->has_optional)
    rc = sp_err_set(c->err, SP_E_FORMAT, "%s: %s", c->path,
                    any ? "a site has the symmetry flag but /residues/symop is missing"
                        : "/residues/symop is present but no site has the symmetry flag");
  if (!rc && any_asm != c->has_assembly)
    rc = sp_err_set(c->err, SP_E_FORMAT, "%s: %s", c->path,
                    any_asm ? "a site has the assembly flag (bit 4) but /residues/assembly_op is missing"
                            : "/residues/assembly_op is present but no site has the assembly flag (bit 4)");
  uint8_t *tagged = NULL; /* per residue row: has a symop */
  if (!rc && any) {
    tagged = calloc((size_t)(R > 0 ? R : 1), 1);
    rc = tagged ? ck_symop_rows(c, a, sflags, tagged)
                : sp_err_set(c->err, SP_E_NOMEM, "out of memory checking /residues/symop");
    if (!rc) rc = ck_symop_atom_flags(c, tagged);
  }
  free(tagged);
  free(sflags);
  return rc;
}

/* Step 7c: every site's structure has status "ok" (a failed file has no sites): /structures/status read whole
 * (24 bytes a structure). Run with or without a spot check: export, merge and survey run check without one. */
static int ck_site_status(ck *c, const ck_arrays *a) {
  const int64_t S = c->rows[SP_T_STRUCTURES], N = c->rows[SP_T_SITES];
  if (N == 0) return 0;
  char *st = malloc((size_t)S * 24 + 1);
  hid_t t24 = sp_h5_str_type(24);
  int rc = !st ? sp_err_set(c->err, SP_E_NOMEM, "out of memory reading /structures/status")
           : t24 < 0 ? SP_E_HDF5
                     : ck_read(c, "/structures/status", t24, 0, (size_t)S, st);
  for (int64_t i = 0; !rc && i < N; i++) {
    const char *s = st + (size_t)a->site_st[i] * 24; /* site_st validated in range by step 4 */
    if (strncmp(s, "ok", 24) != 0)
      rc = sp_err_set(c->err, SP_E_FORMAT, "%s: site %lld belongs to structure %lld whose status is '%.24s' (a failed "
                      "file has no sites)", c->path, (long long)i, (long long)a->site_st[i], s);
  }
  if (t24 >= 0) H5Tclose(t24);
  free(st);
  return rc;
}

/* Step 8: spot check of @p n_spot sites drawn by splitmix64 from @p seed (all when N <= n_spot): each site's
 * structure status read again through a hyperslab of its own, a second read path beside step 7c's whole read
 * (the ligand flags of every site are step 5's). */
static int ck_spot(ck *c, size_t n_spot, uint64_t seed, ck_arrays *a) {
  const int64_t N = c->rows[SP_T_SITES];
  int rc = 0;
  size_t k_max = n_spot < (size_t)N ? n_spot : (size_t)N;
  uint64_t st = seed;
  for (size_t k = 0; k < k_max; k++) {
    int64_t i = k_max == (size_t)N ? (int64_t)k : (int64_t)(sp_splitmix64(&st) % (uint64_t)N);
    char status[25];
    hid_t t24 = sp_h5_str_type(24);
    rc = t24 < 0 ? SP_E_HDF5 : ck_read(c, "/structures/status", t24, a->site_st[i], 1, status);
    if (t24 >= 0) H5Tclose(t24);
    if (rc) return rc;
    status[24] = '\0';
    if (strcmp(status, "ok") != 0)
      return sp_err_set(c->err, SP_E_FORMAT, "%s: site %lld belongs to structure %lld whose status is '%s' (a failed "
                        "file has no sites)", c->path, (long long)i, (long long)a->site_st[i], status);
    c->sum->n_spot_checked++;
  }
  return 0;
}

/* The first format version of each /bonds/source value, by its code (bonds.h sp_bond_source; the names are
 * sp_bond_source_name's): ccd, file, conect, struct_conn and distance came with /bonds (version 2), perceived
 * (SP_BOND_SRC_PERCEIVED 5) with version 8 (docs/format.md "Versions"). A new source needs its entry here. */
static const int64_t bond_source_since[] = {2, 2, 2, 2, 2, 8};
_Static_assert(SP_BOND_SRC_COUNT <= (int)(sizeof bond_source_since / sizeof bond_source_since[0]),
               "every /bonds/source code has its first format version in bond_source_since");

/* Whether /bonds/source value @p s is a name of this build that a file of format version @p ver may hold;
 * 0 with *why the reason otherwise. */
static int ck_bond_source_ok(const char *s, int64_t ver, char *why, size_t cap) {
  for (int k = 0; k < SP_BOND_SRC_COUNT; k++) {
    if (strcmp(s, sp_bond_source_name(k)) != 0) continue;
    if (ver >= bond_source_since[k]) return 1;
    snprintf(why, cap, "a format version %lld value in a version-%lld file (docs/format.md \"Versions\")",
             (long long)bond_source_since[k], (long long)ver);
    return 0;
  }
  size_t len = (size_t)snprintf(why, cap, "not one of");
  for (int k = 0; k < SP_BOND_SRC_COUNT && len < cap; k++) {
    len += (size_t)snprintf(why + len, cap - len, "%s %s", k ? "," : "", sp_bond_source_name(k));
    if (bond_source_since[k] > SP_FORMAT_VERSION_MIN && len < cap)
      len += (size_t)snprintf(why + len, cap - len, " (from version %lld)", (long long)bond_source_since[k]);
  }
  if (len < cap) snprintf(why + len, cap - len, " (docs/format.md \"/bonds\")");
  return 0;
}

/* The content checks of sp_check() (store.h), in the order they are documented; stops at the first problem. */
/* /bonds (docs/format.md "/bonds"): bond_ptr is a CSR pointer that agrees with n_bonds; every row's
 * site_idx is its block's site; 0 <= atom1 < n_ligand, atom1 < atom2 < n_atoms of that site; order
 * 0..4, aromatic 0/1, flags within the three bits; source a name of sp_bond_source_name that the file's
 * version may hold (bond_source_since: perceived from version 8), else bad_value. */
static int ck_bonds(ck *c) {
  const int64_t N = c->rows[SP_T_SITES], B = c->rows[SP_T_BONDS];
  int64_t *ptr = NULL, *site = NULL;
  int32_t *n_b = NULL, *n_lig = NULL, *n_at = NULL, *a1 = NULL, *a2 = NULL;
  uint8_t *order = NULL, *arom = NULL, *flags = NULL;
  char (*src)[12] = NULL;
  hid_t I64 = H5T_NATIVE_INT64, I32 = H5T_NATIVE_INT32, U8 = H5T_NATIVE_UINT8;
  hid_t st = sp_h5_str_type(sizeof *src);
  int rc = st < 0 ? sp_h5_fail(c->err, "cannot build a type", NULL) : 0;
  if (!rc && ((rc = ck_load(c, "/sites/bond_ptr", I64, 8, N + 1, (void **)&ptr)) ||
              (rc = ck_ptr(c, "/sites/bond_ptr", ptr, N, B, "bonds")) ||
              (rc = ck_load(c, "/sites/n_bonds", I32, 4, N, (void **)&n_b)) ||
              (rc = ck_load(c, "/sites/n_ligand", I32, 4, N, (void **)&n_lig)) ||
              (rc = ck_load(c, "/sites/n_atoms", I32, 4, N, (void **)&n_at)) ||
              (rc = ck_load(c, "/bonds/site_idx", I64, 8, B, (void **)&site)) ||
              (rc = ck_load(c, "/bonds/atom1", I32, 4, B, (void **)&a1)) ||
              (rc = ck_load(c, "/bonds/atom2", I32, 4, B, (void **)&a2)) ||
              (rc = ck_load(c, "/bonds/order", U8, 1, B, (void **)&order)) ||
              (rc = ck_load(c, "/bonds/aromatic", U8, 1, B, (void **)&arom)) ||
              (rc = ck_load(c, "/bonds/flags", U8, 1, B, (void **)&flags)) ||
              (rc = ck_load(c, "/bonds/source", st, sizeof *src, B, (void **)&src))))
    goto out;
  for (int64_t i = 0; !rc && i < N; i++) {
    if (ptr[i + 1] - ptr[i] != n_b[i]) {
      rc = sp_err_set(c->err, SP_E_FORMAT, "%s: site %lld: n_bonds %d disagrees with bond_ptr (%lld)", c->path,
                      (long long)i, n_b[i], (long long)(ptr[i + 1] - ptr[i]));
      break;
    }
    for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
      char s[13];
      memcpy(s, src[k], 12);
      s[12] = '\0';
      char why[160];
      if (site[k] != i || a1[k] < 0 || a1[k] >= n_lig[i] || a2[k] <= a1[k] || a2[k] >= n_at[i] || order[k] > 4 ||
          arom[k] > 1 || flags[k] > 7) {
        rc = sp_err_set(c->err, SP_E_FORMAT, "%s: /bonds row %lld (site %lld's block): site_idx %lld, atom1 %d, atom2 "
                        "%d (n_ligand %d, n_atoms %d), order %u, aromatic %u, flags %u, source '%s': out of range",
                        c->path, (long long)k, (long long)i, (long long)site[k], a1[k], a2[k], n_lig[i], n_at[i],
                        order[k], arom[k], flags[k], s);
        break;
      }
      if (!ck_bond_source_ok(s, c->ver, why, sizeof why)) {
        rc = sp_err_set(c->err, SP_E_BAD_VALUE, "%s: /bonds/source[%lld] = '%s': %s", c->path, (long long)k, s, why);
        break;
      }
    }
  }
out:
  if (st >= 0) H5Tclose(st);
  free(ptr); free(site); free(n_b); free(n_lig); free(n_at); free(a1); free(a2);
  free(order); free(arom); free(flags); free(src);
  return rc;
}

/* Step 10: the protein context (format version 3): chains in structure order, n_chains of each structure;
 * seq_ptr and segment_ptr CSR pointers over /sequences and /segments that agree with seq_len and n_segments;
 * every segment's chain_idx the chain whose range holds it; every /residues/chain_idx -1 or a chain of the
 * residue's own structure. */
static int ck_chains(ck *c, const ck_arrays *a) {
  const int64_t S = c->rows[SP_T_STRUCTURES], C = c->rows[SP_T_CHAINS], G = c->rows[SP_T_SEGMENTS];
  const int64_t Q = c->rows[SP_T_SEQUENCES], R = c->rows[SP_T_RESIDUES], N = c->rows[SP_T_SITES];
  int64_t *cst = NULL, *qptr = NULL, *gptr = NULL, *gch = NULL, *rch = NULL, *rsite = NULL, *sst = NULL;
  int32_t *clen = NULL, *cnseg = NULL, *snch = NULL;
  hid_t I64 = H5T_NATIVE_INT64, I32 = H5T_NATIVE_INT32;
  int rc;
  (void)a;
  if ((rc = ck_load(c, "/chains/structure_idx", I64, 8, C, (void **)&cst)) ||
      (rc = ck_load(c, "/chains/seq_ptr", I64, 8, C + 1, (void **)&qptr)) ||
      (rc = ck_ptr(c, "/chains/seq_ptr", qptr, C, Q, "sequence codes")) ||
      (rc = ck_load(c, "/chains/segment_ptr", I64, 8, C + 1, (void **)&gptr)) ||
      (rc = ck_ptr(c, "/chains/segment_ptr", gptr, C, G, "segments")) ||
      (rc = ck_load(c, "/chains/seq_len", I32, 4, C, (void **)&clen)) ||
      (rc = ck_load(c, "/chains/n_segments", I32, 4, C, (void **)&cnseg)) ||
      (rc = ck_load(c, "/segments/chain_idx", I64, 8, G, (void **)&gch)) ||
      (rc = ck_load(c, "/structures/n_chains", I32, 4, S, (void **)&snch)) ||
      (rc = ck_load(c, "/residues/chain_idx", I64, 8, R, (void **)&rch)) ||
      (rc = ck_load(c, "/residues/site_idx", I64, 8, R, (void **)&rsite)) ||
      (rc = ck_load(c, "/sites/structure_idx", I64, 8, N, (void **)&sst)))
    goto out;
  int64_t ci = 0;
  for (int64_t st = 0; st < S && !rc; st++)
    for (int32_t k = 0; k < snch[st] && !rc; k++, ci++) {
      if (ci >= C || cst[ci] != st || qptr[ci + 1] - qptr[ci] != clen[ci] || gptr[ci + 1] - gptr[ci] != cnseg[ci]) {
        rc = sp_err_set(c->err, SP_E_FORMAT, "%s: /chains row %lld (structure %lld, n_chains %d): structure_idx, "
                        "seq_len or n_segments disagree with the structure or the pointers", c->path, (long long)ci,
                        (long long)st, snch[st]);
        break;
      }
      for (int64_t g = gptr[ci]; g < gptr[ci + 1] && !rc; g++)
        if (gch[g] != ci)
          rc = sp_err_set(c->err, SP_E_FORMAT, "%s: /segments row %lld: chain_idx %lld, expected %lld", c->path,
                          (long long)g, (long long)gch[g], (long long)ci);
    }
  if (!rc && ci != C)
    rc = sp_err_set(c->err, SP_E_FORMAT, "%s: the structures' n_chains sum to %lld, /chains has %lld rows", c->path,
                    (long long)ci, (long long)C);
  for (int64_t r = 0; !rc && r < R; r++)
    if (rch[r] < -1 || rch[r] >= C || (rch[r] >= 0 && (rsite[r] < 0 || rsite[r] >= N || cst[rch[r]] != sst[rsite[r]])))
      rc = sp_err_set(c->err, SP_E_FORMAT, "%s: /residues row %lld: chain_idx %lld is not a chain of its structure",
                      c->path, (long long)r, (long long)rch[r]);
out:
  free(cst); free(qptr); free(gptr); free(gch); free(rch); free(rsite); free(sst); free(clen); free(cnseg); free(snch);
  return rc;
}

static int ck_content(ck *c, size_t n_spot, uint64_t seed, ck_arrays *a) {
  int rc = ck_load_index(c, a);
  if (!rc) rc = ck_structures(c, a);
  if (!rc) rc = ck_ligands(c, a);
  if (!rc) rc = ck_sites(c, a);
  if (!rc) rc = ck_atom_residues(c, a);
  if (!rc) rc = ck_interaction_rows(c, a);
  if (!rc) rc = ck_bonds(c);
  if (!rc && c->ver >= 3) rc = ck_chains(c, a); /* the protein context: version 3 */
  if (!rc) rc = ck_symmetry(c, a);
  if (!rc) rc = ck_site_status(c, a);
  if (!rc) rc = ck_spot(c, n_spot, seed, a);
  if (!rc) rc = sp_check_components(c->file, c->path, c->rows, c->err);
  if (!rc) rc = sp_check_values(c->file, c->path, c->rows, &c->sum->n_values, c->err);
  if (!rc) rc = sp_check_formal_charges(c->file, c->path, c->rows, &c->sum->n_values, c->err); /* version 6 */
  if (!rc && c->ver >= 3) rc = sp_check_describe(c->file, c->path, c->err); /* units and codes (issue 26) */
  if (!rc && c->ver >= 4) rc = sp_check_warnings(c->file, c->path, c->rows[SP_T_STRUCTURES], c->err); /* version 4 */
  return rc;
}

static int check_body(ck *c, size_t n_spot, uint64_t seed) {
  struct stat stb;
  int rc = sp_h5_open_merged(c->path, &c->file, &c->ver, &stb, c->err); /* one diagnosis for all readers */
  if (rc) return rc;
  c->file_size = (uint64_t)stb.st_size;
  c->sum->file_bytes = c->file_size;
  c->sum->format_version = c->ver;
  if ((rc = ck_layout(c))) return rc;
  c->sum->n_structures = c->rows[SP_T_STRUCTURES];
  c->sum->n_ligands = c->rows[SP_T_LIGANDS];
  c->sum->n_components = c->rows[SP_T_COMPONENTS];
  c->sum->n_sites = c->rows[SP_T_SITES];
  c->sum->n_residues = c->rows[SP_T_RESIDUES];
  c->sum->n_atoms = c->rows[SP_T_ATOMS];
  c->sum->n_interactions = c->rows[SP_T_INTERACTIONS];
  ck_arrays a;
  memset(&a, 0, sizeof a);
  rc = ck_content(c, n_spot, seed, &a);
  free(a.atom_ptr); free(a.res_ptr); free(a.lig_ptr); free(a.site_ptr);
  free(a.site_st); free(a.site_lig); free(a.lig_st); free(a.lig_site); free(a.res_site);
  free(a.n_lig); free(a.n_at); free(a.n_res); free(a.st_nlig); free(a.st_nsite);
  free(a.chunk); free(a.flags);
  free(a.ix_ptr); free(a.n_ix); free(a.ix_atoms);
  return rc;
}

int sp_check(const char *path, size_t n_spot, uint64_t seed, sp_check_summary *sum, sp_err *err) {
  sp_check_summary dummy;
  if (!sum) sum = &dummy;
  memset(sum, 0, sizeof *sum);
  if (!path) return sp_err_set(err, SP_E_INVALID, "sp_check: NULL path");
  ck c;
  memset(&c, 0, sizeof c);
  c.path = path;
  c.err = err;
  c.file = -1;
  c.sum = sum;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  int rc = check_body(&c, n_spot, seed);
  if (c.file >= 0) H5Fclose(c.file);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  return rc;
}
