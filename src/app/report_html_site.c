/* The 3D block of one site for `sitepack report --site` (app/report_html.h): the atoms of its site block
 * (docs/format.md "/atoms", "/residues") without hydrogens, less the waters that bridge nothing, its typed
 * interactions as pairs of those atoms, and the identifiers of its ligand and structure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/report_html.h"
#include "sitepack/elements.h"
#include "sitepack/site.h"
#include "sitepack/sitechem.h"

#define at sp_table_at
#define col sp_table_col

typedef struct site_block {
  int64_t a0, na, r0, nr, x0, nx, lig, st;
  float *pos;
  uint8_t *elem, *kind, *ixtype;
  uint16_t *flags;
  int64_t *res;
  int32_t *seq, *la, *sa, *wa;
  char *name, *comp, *chain;
  size_t wname, wcomp, wchain;
} site_block;

static void block_free(site_block *b) {
  free(b->pos), free(b->elem), free(b->kind), free(b->ixtype), free(b->flags), free(b->res), free(b->seq);
  free(b->la), free(b->sa), free(b->wa), free(b->name), free(b->comp), free(b->chain);
}

/* Two consecutive values of an int64 pointer column at row @p i: its range. 0 or -1. */
static int ptr_range(hid_t f, const char *name, int64_t i, int64_t *start, int64_t *n, sp_err *err) {
  int64_t m = 0;
  int64_t *p = sp_rh_read(f, name, H5T_NATIVE_INT64, 8, i, 2, &m, err);
  if (!p) return -1;
  *start = p[0];
  *n = p[1] - p[0];
  free(p);
  return 0;
}

static int one_i64(hid_t f, const char *name, int64_t i, int64_t *v, sp_err *err) {
  int64_t m = 0, *p = sp_rh_read(f, name, H5T_NATIVE_INT64, 8, i, 1, &m, err);
  if (!p) return -1;
  *v = *p;
  free(p);
  return 0;
}

static int block_read(hid_t f, int64_t i, site_block *b, sp_err *err) {
  int64_t m = 0;
  if (ptr_range(f, "/sites/atom_ptr", i, &b->a0, &b->na, err) ||
      ptr_range(f, "/sites/residue_ptr", i, &b->r0, &b->nr, err) ||
      ptr_range(f, "/sites/interaction_ptr", i, &b->x0, &b->nx, err) || one_i64(f, "/sites/ligand_idx", i, &b->lig, err) ||
      one_i64(f, "/sites/structure_idx", i, &b->st, err))
    return -1;
  if (!(b->pos = sp_rh_read(f, "/atoms/position", H5T_NATIVE_FLOAT, 4, b->a0, b->na, &m, err)) ||
      !(b->elem = sp_rh_read(f, "/atoms/element", H5T_NATIVE_UINT8, 1, b->a0, b->na, &m, err)) ||
      !(b->flags = sp_rh_read(f, "/atoms/flags", H5T_NATIVE_UINT16, 2, b->a0, b->na, &m, err)) ||
      !(b->res = sp_rh_read(f, "/atoms/residue_idx", H5T_NATIVE_INT64, 8, b->a0, b->na, &m, err)) ||
      !(b->name = sp_rh_read_str(f, "/atoms/atom_name", b->a0, b->na, &b->wname, &m, err)) ||
      !(b->kind = sp_rh_read(f, "/residues/kind", H5T_NATIVE_UINT8, 1, b->r0, b->nr, &m, err)) ||
      !(b->seq = sp_rh_read(f, "/residues/auth_seq_id", H5T_NATIVE_INT32, 4, b->r0, b->nr, &m, err)) ||
      !(b->comp = sp_rh_read_str(f, "/residues/comp_id", b->r0, b->nr, &b->wcomp, &m, err)) ||
      !(b->chain = sp_rh_read_str(f, "/residues/auth_asym_id", b->r0, b->nr, &b->wchain, &m, err)) ||
      !(b->ixtype = sp_rh_read(f, "/interactions/type", H5T_NATIVE_UINT8, 1, b->x0, b->nx, &m, err)) ||
      !(b->la = sp_rh_read(f, "/interactions/lig_atom", H5T_NATIVE_INT32, 4, b->x0, b->nx, &m, err)) ||
      !(b->sa = sp_rh_read(f, "/interactions/site_atom", H5T_NATIVE_INT32, 4, b->x0, b->nx, &m, err)) ||
      !(b->wa = sp_rh_read(f, "/interactions/water_atom", H5T_NATIVE_INT32, 4, b->x0, b->nx, &m, err)))
    return -1;
  return 0;
}

/* Which atoms the view shows: heavy atoms, less waters that are no bridge's; any atom an interaction names; the
 * ligand's hydrogens when it has no heavy atom (site flag no_heavy: else nothing of it would show). */
static int *atoms_kept(const site_block *b, int64_t *n_kept) {
  int *keep = calloc((size_t)b->na + 1, sizeof *keep); /* new index + 1, 0 = dropped */
  if (!keep) return NULL;
  int lig_heavy = 0;
  for (int64_t a = 0; a < b->na; ++a)
    lig_heavy |= (b->flags[a] & SP_SITE_ATOM_LIGAND) && !(b->flags[a] & SP_SITE_ATOM_HYDROGEN);
  for (int64_t a = 0; a < b->na; ++a)
    keep[a] = (!(b->flags[a] & SP_SITE_ATOM_HYDROGEN) || (!lig_heavy && (b->flags[a] & SP_SITE_ATOM_LIGAND))) &&
              !(b->flags[a] & SP_SITE_ATOM_WATER);
  for (int64_t x = 0; x < b->nx; ++x) {
    int32_t e[3] = {b->la[x], b->sa[x], b->wa[x]};
    for (int j = 0; j < 3; ++j)
      if (e[j] >= 0 && e[j] < b->na) keep[e[j]] = 1;
  }
  int64_t n = 0;
  for (int64_t a = 0; a < b->na; ++a) keep[a] = keep[a] ? (int)++n : 0;
  *n_kept = n;
  return keep;
}

static void add_atoms(const site_block *b, const int *keep, cJSON *site) {
  cJSON *atoms = cJSON_AddArrayToObject(site, "atoms");
  for (int64_t a = 0; a < b->na; ++a) {
    if (!keep[a]) continue;
    int64_t r = b->res[a] - b->r0;
    int ok = r >= 0 && r < b->nr;
    cJSON *row = cJSON_CreateArray();
    cJSON_AddItemToArray(row, cJSON_CreateString(sp_element_symbol(b->elem[a])));
    for (int k = 0; k < 3; ++k) cJSON_AddItemToArray(row, cJSON_CreateNumber((double)(int)(b->pos[3 * a + k] * 1000) / 1000));
    cJSON_AddItemToArray(row, cJSON_CreateString(b->name + (size_t)a * b->wname));
    cJSON_AddItemToArray(row, cJSON_CreateString(ok ? b->comp + (size_t)r * b->wcomp : "UNK"));
    cJSON_AddItemToArray(row, cJSON_CreateString(ok ? b->chain + (size_t)r * b->wchain : ""));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(ok && b->seq[r] != INT32_MIN ? b->seq[r] : 0));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(ok ? b->kind[r] : 1));
    cJSON_AddItemToArray(atoms, row);
  }
}

static void add_interactions(const site_block *b, const int *keep, cJSON *site) {
  cJSON *ix = cJSON_AddArrayToObject(site, "interactions");
  for (int64_t x = 0; x < b->nx; ++x) {
    int32_t l = b->la[x], s = b->sa[x], w = b->wa[x];
    if (l < 0 || l >= b->na || s < 0 || s >= b->na) continue;
    cJSON *row = cJSON_CreateArray();
    cJSON_AddItemToArray(row, cJSON_CreateString(sp_ix_type_name(b->ixtype[x])));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(keep[l] - 1));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(keep[s] - 1));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(w >= 0 && w < b->na ? keep[w] - 1 : -1));
    cJSON_AddItemToArray(ix, row);
  }
}

/* The identifiers: site row, structure path and entry id, the ligand's comp id, chain, number, class. */
static void add_ids(const sp_file_survey *s, const site_block *b, int64_t i, cJSON *site) {
  cJSON *id = cJSON_AddObjectToObject(site, "id");
  cJSON_AddNumberToObject(id, "site_idx", (double)i);
  cJSON_AddNumberToObject(id, "ligand_idx", (double)b->lig);
  cJSON_AddNumberToObject(id, "structure_idx", (double)b->st);
  static const char *const st_cols[] = {"entry_id", "path", "method", "resolution"};
  static const char *const lg_cols[] = {"comp_id", "auth_asym_id", "auth_seq_id", "class", "residues"};
  for (size_t k = 0; k < 4; ++k) {
    int c = col(&s->st, st_cols[k]);
    if (c >= 0 && b->st >= 0 && (size_t)b->st < s->st.n_rows) cJSON_AddStringToObject(id, st_cols[k], at(&s->st, (size_t)b->st, c));
  }
  for (size_t k = 0; k < 5; ++k) {
    int c = col(&s->lg, lg_cols[k]);
    if (c >= 0 && b->lig >= 0 && (size_t)b->lig < s->lg.n_rows) cJSON_AddStringToObject(id, lg_cols[k], at(&s->lg, (size_t)b->lig, c));
  }
}

int sp_rh_site(const sp_file_survey *s, hid_t f, int64_t i, cJSON *sites, sp_err *err) {
  site_block b;
  memset(&b, 0, sizeof b);
  int64_t n_kept = 0;
  hsize_t dims[1] = {0};
  hid_t d = H5Dopen2(f, "/sites/ligand_idx", H5P_DEFAULT), sp = d >= 0 ? H5Dget_space(d) : -1;
  if (sp >= 0) H5Sget_simple_extent_dims(sp, dims, NULL), H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  if (i < 0 || (hsize_t)i >= dims[0])
    return sp_err_set(err, SP_E_INVALID, "--site %lld: the file has %llu sites (rows 0 to %lld)", (long long)i,
                      (unsigned long long)dims[0], (long long)dims[0] - 1);
  int rc = block_read(f, i, &b, err) ? (err->cls ? err->cls : SP_E_NOMEM) : 0;
  int *keep = rc ? NULL : atoms_kept(&b, &n_kept);
  if (!rc && !keep) rc = sp_err_set(err, SP_E_NOMEM, "out of memory");
  if (!rc) {
    cJSON *site = cJSON_CreateObject();
    add_ids(s, &b, i, site);
    add_atoms(&b, keep, site);
    add_interactions(&b, keep, site);
    cJSON_AddItemToArray(sites, site);
  }
  free(keep);
  block_free(&b);
  return rc;
}
