/* The merge's union tables (sp_table.is_union: /components): each rank keeps the first row of each key
 * over its share of the merge order, rank 0 the first over the ranks (merge_internal.h). Memory: the
 * distinct keys (about two shares' worth while a rank reads), never the rows of every task. Also the site
 * flags that decide the optional columns: from the inputs' site_flags_or, or read from the site rows. */
#include "merge_internal.h"
#include "sitepack/base.h"
#include "sitepack/site.h"

#include <stdlib.h>
#include <string.h>

/* An entry: uint64 place in the merge order, then the row (8-byte aligned stride). */
static size_t stride_of(int t) { return (sizeof(uint64_t) + sp_tables[t].row_size + 7u) & ~(size_t)7u; }

/* The key of the comparator: the union table's first column (a string). qsort has no context. */
static size_t key_off, key_len;

static int cmp_entry(const void *a, const void *b) {
  const char *x = a, *y = b;
  int d = strncmp(x + sizeof(uint64_t) + key_off, y + sizeof(uint64_t) + key_off, key_len);
  if (d) return d;
  uint64_t sx, sy;
  memcpy(&sx, x, sizeof sx);
  memcpy(&sy, y, sizeof sy);
  return sx < sy ? -1 : sx > sy;
}

static int same_key(const char *x, const char *y) {
  return strncmp(x + sizeof(uint64_t) + key_off, y + sizeof(uint64_t) + key_off, key_len) == 0;
}

/* Sort entries [0, n) by (key, order) and keep the first of each key. Returns the entries kept. */
static size_t compact(char *e, size_t n, size_t stride) {
  if (n) qsort(e, n, stride, cmp_entry);
  size_t u = 0;
  for (size_t i = 0; i < n; i++)
    if (u == 0 || !same_key(e + (u - 1) * stride, e + i * stride)) {
      if (u != i) memcpy(e + u * stride, e + i * stride, stride);
      u++;
    }
  return u;
}

/* Site rows of one task: 1 in *sym when one has symmetry mates, in *asm_ when one has assembly copies. */
static int task_symmetry(merge_ctx *c, const task_ref *tr, sp_site_row *buf, size_t cap, int64_t *sym, int64_t *asm_) {
  for (int64_t done = 0; done < tr->rec.n[SP_T_SITES] && !(*sym && *asm_);) {
    size_t k = (size_t)(tr->rec.n[SP_T_SITES] - done) < cap ? (size_t)(tr->rec.n[SP_T_SITES] - done) : cap;
    int rc = sp_rankfile_read_rows(&c->in[tr->input], SP_T_SITES, tr->rec.start[SP_T_SITES] + done, k, buf, c->err);
    if (rc) return rc;
    for (size_t j = 0; j < k; j++) {
      if (buf[j].flags & SP_SITE_SYMMETRY) *sym = 1;
      if (buf[j].flags & SP_SITE_ASSEMBLY) *asm_ = 1;
    }
    done += (int64_t)k;
  }
  return 0;
}

/* This rank's share: the union table's first row of each key (c->uni, sorted) and, with @p flags, the site
 * flags (c->any_symmetry) from its site rows. */
static int local_pass(merge_ctx *c, int flags) {
  const int t = c->uni_t;
  const size_t stride = t >= 0 ? stride_of(t) : 0, rs = t >= 0 ? sp_tables[t].row_size : 0;
  size_t cap = 0, keep = 0, scap = 4096;
  sp_site_row *sites = malloc(scap * sizeof *sites);
  int rc = sites ? 0 : sp_err_set(c->err, SP_E_NOMEM, "out of memory reading site rows");
  uint64_t seq = 0;
  char *tmp = NULL;
  size_t tmp_cap = 0;
  for (size_t i = c->lo; i < c->hi && !rc; i++) {
    const task_ref *tr = &c->tasks[i];
    if (flags && (!c->any_symmetry || !c->any_assembly))
      rc = task_symmetry(c, tr, sites, scap, &c->any_symmetry, &c->any_assembly);
    size_t m = t >= 0 ? (size_t)tr->rec.n[t] : 0;
    if (rc || m == 0) continue;
    if (sp_grow((void **)&tmp, &tmp_cap, m, rs) || sp_grow((void **)&c->uni, &cap, c->n_uni + m, stride)) {
      rc = sp_err_set(c->err, SP_E_NOMEM, "out of memory reading %zu /%s rows", m, sp_tables[t].name);
      break;
    }
    memset(tmp, 0, m * rs);
    rc = sp_rankfile_read_rows(&c->in[tr->input], t, tr->rec.start[t], m, tmp, c->err);
    for (size_t j = 0; !rc && j < m; j++, seq++) {
      char *e = c->uni + (c->n_uni++) * stride;
      memset(e, 0, stride);
      memcpy(e, &seq, sizeof seq);
      memcpy(e + sizeof seq, tmp + j * rs, rs);
    }
    if (!rc && c->n_uni >= 2 * keep + 4096) keep = c->n_uni = compact(c->uni, c->n_uni, stride);
  }
  if (!rc && t >= 0) c->n_uni = compact(c->uni, c->n_uni, stride);
  free(tmp);
  free(sites);
  return rc;
}

/* Rank 0, once per rank in rank order: merge that rank's sorted entries into the union (c->uni); on an
 * equal key the union's entry (an earlier rank's: earlier in the merge order) stays. */
static int take(void *arg, int from, const void *buf, size_t bytes) {
  merge_ctx *c = arg;
  const size_t stride = stride_of(c->uni_t), nb = bytes / stride;
  const char *b = buf;
  (void)from;
  char *out = malloc((c->n_uni + nb ? c->n_uni + nb : 1) * stride);
  if (!out) return sp_err_set(c->err, SP_E_NOMEM, "out of memory merging the /%s union", sp_tables[c->uni_t].name);
  size_t i = 0, j = 0, n = 0;
  while (i < c->n_uni || j < nb) {
    const char *x = i < c->n_uni ? c->uni + i * stride : NULL, *y = j < nb ? b + j * stride : NULL;
    int d = !x ? 1 : !y ? -1 : strncmp(x + sizeof(uint64_t) + key_off, y + sizeof(uint64_t) + key_off, key_len);
    memcpy(out + (n++) * stride, d <= 0 ? x : y, stride);
    if (d <= 0) i++;
    if (d >= 0) j++;
  }
  free(c->uni);
  c->uni = out;
  c->n_uni = n;
  return 0;
}

/* The site flags of every input when each says them (site_flags_or): c->any_symmetry and c->any_assembly
 * without reading a site row, the same on every rank. Returns 1 when known. */
static int flags_known(merge_ctx *c) {
  int64_t all = 0;
  for (size_t i = 0; i < c->n_in; i++) {
    if (!c->in[i].has_site_flags) return 0;
    all |= c->in[i].site_flags_or;
  }
  c->any_symmetry = (all & SP_SITE_SYMMETRY) != 0;
  c->any_assembly = (all & SP_SITE_ASSEMBLY) != 0;
  return 1;
}

int mg_union(merge_ctx *c) {
  c->uni_t = -1;
  for (int t = 0; t < SP_T_COUNT; t++)
    if (sp_tables[t].is_union && c->uni_t < 0) c->uni_t = t;
  if (c->uni_t >= 0) {
    key_off = sp_tables[c->uni_t].cols[0].off;
    key_len = sp_tables[c->uni_t].cols[0].msize;
  }
  int known = flags_known(c); /* the same on every rank: every rank opened every input */
  int rc = mg_agree(c, local_pass(c, !known));
  if (!rc && !known) rc = mg_agree(c, c->comm ? c->comm->max_i64(c->comm->ctx, &c->any_symmetry, 1) : 0);
  if (!rc && !known) rc = mg_agree(c, c->comm ? c->comm->max_i64(c->comm->ctx, &c->any_assembly, 1) : 0);
  if (rc || c->uni_t < 0) return rc;
  if (c->comm) {
    char *mine = c->uni;
    size_t bytes = c->n_uni * stride_of(c->uni_t);
    c->uni = NULL;
    c->n_uni = 0;
    rc = c->comm->gather(c->comm->ctx, mine, bytes, take, c);
    if (rc && c->err && !c->err->msg[0]) sp_err_set(c->err, rc, "merge: cannot gather the /%s rows", sp_tables[c->uni_t].name);
    free(mine);
    rc = mg_agree(c, rc);
  }
  c->total[c->uni_t] = (int64_t)c->n_uni;
  return rc;
}

int mg_write_union(merge_ctx *c) {
  if (c->uni_t < 0 || c->n_uni == 0) return 0;
  const sp_table *tb = &sp_tables[c->uni_t];
  const size_t stride = stride_of(c->uni_t);
  size_t maxel = 1;
  for (size_t k = 0; k < tb->n_cols; k++)
    if (sp_col_elsize(&tb->cols[k]) > maxel) maxel = sp_col_elsize(&tb->cols[k]);
  char *rows = malloc(c->n_uni * tb->row_size), *colbuf = malloc(c->n_uni * maxel);
  int rc = rows && colbuf ? 0 : sp_err_set(c->err, SP_E_NOMEM, "out of memory writing /%s", tb->name);
  for (size_t i = 0; !rc && i < c->n_uni; i++)
    memcpy(rows + i * tb->row_size, c->uni + i * stride + sizeof(uint64_t), tb->row_size);
  for (size_t k = 0; k < tb->n_cols && !rc; k++) {
    sp_col_gather(&tb->cols[k], rows, tb->row_size, c->n_uni, colbuf);
    rc = mg_put(c, c->uni_t, k, 0, c->n_uni, colbuf);
  }
  free(rows);
  free(colbuf);
  return rc;
}

void mg_union_free(merge_ctx *c) {
  free(c->uni);
  c->uni = NULL;
  c->n_uni = 0;
}
