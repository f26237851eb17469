/* The sides of sitepack split (split_internal.h sp_spl_assign; the rule step by step: docs/usage.md "Splits";
 * tests/peer/split_rule.py is the same rule written again from the docs). */
#include <stdlib.h>
#include <string.h>

#include "derive/split_internal.h"
#include "sitepack/base.h"
#include "sitepack/split.h"

int64_t sp_spl_entry_of(const sp_spl_in *in, int64_t s) {
  int64_t t = in->sidx[s];
  return in->efirst[t] >= 0 ? in->efirst[t] : t;
}

const char *sp_spl_entry_key(const sp_spl_in *in, int64_t e, size_t *len) {
  const char *k = in->eid + e * in->eid_w;
  size_t w = in->eid_w;
  if (!k[0]) k = in->spath + e * in->path_w, w = in->path_w;
  *len = strnlen(k, w);
  return k;
}

/* The working state of one assignment. */
typedef struct asg {
  const sp_spl_in *in;
  const sp_datasplit_opts *o;
  int64_t N, n_pkey;
  int64_t *lc;       /* ligand component per site (-1 none) */
  int64_t *parent;   /* union-find over sites */
  int64_t *order;    /* component roots in fill order */
  int64_t *size;     /* sites per root */
  double *u;         /* hash per root */
  int64_t n_comp;
  int8_t *fixed;     /* per site: the side set before the fill (copy, undated, time: train), or 99: to fill */
} asg;

/* The coarse clusters of site @p s: its own (pcl) and each contacted polymer chain's; calls @p f(a, s, key). */
static void protein_keys(const asg *a, int64_t s, void (*f)(const asg *, int64_t, int64_t, void *), void *ctx) {
  const sp_spl_in *in = a->in;
  if (in->pcl[s] >= 0) f(a, s, in->pcl[s], ctx);
  for (int64_t r = in->res_ptr[s]; r < in->res_ptr[s + 1]; r++) {
    int64_t c = in->rchain[r];
    if (in->rkind[r] == 1 && in->rcontact[r] && c >= 0 && c < in->n_chain && in->ccl[c] >= 0) f(a, s, in->ccl[c], ctx);
  }
}

static void join_first(const asg *a, int64_t s, int64_t key, void *ctx) {
  int64_t *first = ctx;
  if (first[key] < 0) first[key] = s;
  else sp_spl_union(a->parent, first[key], s);
}

/* Sites to fill joined by entry, protein clusters (not --by ligand) and ligand components (--by ligand). */
static int join_components(asg *a) {
  const sp_spl_in *in = a->in;
  int64_t nk = in->n_struct > a->n_pkey ? in->n_struct : a->n_pkey;
  if (in->n_mol > nk) nk = in->n_mol;
  int64_t *first = malloc(((size_t)nk + 1) * sizeof *first);
  if (!first) return SP_E_NOMEM;
  for (int64_t s = 0; s < a->N; s++) a->parent[s] = s;
  for (int pass = 0; pass < 3; pass++) {
    if ((pass == 1 && a->o->by == SP_BY_LIGAND) || (pass == 2 && a->o->by != SP_BY_LIGAND)) continue;
    for (int64_t k = 0; k < nk; k++) first[k] = -1;
    for (int64_t s = 0; s < a->N; s++) {
      if (a->fixed[s] != 99) continue;
      if (pass == 0) join_first(a, s, sp_spl_entry_of(in, s), first);
      else if (pass == 1) protein_keys(a, s, join_first, first);
      else if (a->lc[s] >= 0) join_first(a, s, a->lc[s], first);
    }
  }
  free(first);
  return 0;
}

static const asg *g_sort; /* qsort has no context argument */
static int cmp_comp(const void *x, const void *y) {
  int64_t p = *(const int64_t *)x, q = *(const int64_t *)y;
  if (g_sort->u[p] != g_sort->u[q]) return g_sort->u[p] < g_sort->u[q] ? -1 : 1;
  return p < q ? -1 : p > q;
}

/* The components' sizes, keys (smallest entry key), hashes and fill order (u, then root). */
static void order_components(asg *a, sp_datasplit_summary *sum) {
  const sp_spl_in *in = a->in;
  int64_t *keyrep = a->order; /* reused: the entry of the smallest key per root, then the order */
  for (int64_t s = 0; s < a->N; s++) keyrep[s] = -1, a->size[s] = 0;
  for (int64_t s = 0; s < a->N; s++) {
    if (a->fixed[s] != 99) continue;
    int64_t r = sp_spl_find(a->parent, s), e = sp_spl_entry_of(in, s);
    a->size[r]++;
    size_t la, lb;
    if (keyrep[r] >= 0) {
      const char *x = sp_spl_entry_key(in, e, &la), *y = sp_spl_entry_key(in, keyrep[r], &lb);
      int m = memcmp(x, y, la < lb ? la : lb);
      if (!(m < 0 || (m == 0 && la < lb))) continue;
    }
    keyrep[r] = e;
  }
  uint64_t seed_mix = sp_mix64(a->o->seed ^ 0x73706c6974ULL); /* "split" */
  for (int64_t s = 0; s < a->N; s++) {
    if (a->fixed[s] != 99 || sp_spl_find(a->parent, s) != s) continue;
    size_t len;
    const char *k = sp_spl_entry_key(in, keyrep[s], &len);
    a->u[s] = (double)(sp_mix64(sp_spl_fnv(k, len) ^ seed_mix) >> 11) * 0x1.0p-53;
    if (a->size[s] > sum->largest_component) sum->largest_component = a->size[s];
  }
  a->n_comp = 0;
  for (int64_t s = 0; s < a->N; s++)
    if (a->fixed[s] == 99 && sp_spl_find(a->parent, s) == s) a->order[a->n_comp++] = s;
  g_sort = a;
  qsort(a->order, (size_t)a->n_comp, sizeof *a->order, cmp_comp);
  sum->n_components = a->n_comp;
}

/* The fill: components in order go to test while test + size <= tt, else val while <= tv, else train (the
 * side of a component kept at its root, the smallest site index, which the site loop reaches first). */
static void fill(const asg *a, double tt, double tv, int8_t *side) {
  int64_t cur[3] = {0, 0, 0};
  for (int64_t i = 0; i < a->n_comp; i++) {
    int64_t r = a->order[i], n = a->size[r];
    int k = (double)(cur[2] + n) <= tt ? SP_SIDE_TEST : (double)(cur[1] + n) <= tv ? SP_SIDE_VAL : SP_SIDE_TRAIN;
    cur[k] += n;
    side[r] = (int8_t)k;
  }
  for (int64_t s = 0; s < a->N; s++)
    side[s] = a->fixed[s] != 99 ? a->fixed[s] : side[sp_spl_find(a->parent, s)];
}

static void mark_key(const asg *a, int64_t s, int64_t key, void *ctx) {
  (void)a, (void)s;
  ((uint8_t *)ctx)[key] = 1;
}

static void test_key(const asg *a, int64_t s, int64_t key, void *ctx) {
  (void)a;
  uint8_t *m = ctx;
  if (m[key] & 1) m[a->n_pkey] = 1; /* the flag slot: this site touches a train cluster */
  (void)s;
}

/* Drop val/test sites that share a ligand component (and, with @p protein, a protein cluster) with train. */
static int drop_leaks(const asg *a, int protein, int8_t *side, int64_t *dropped) {
  uint8_t *tl = calloc((size_t)a->in->n_mol + 1, 1), *tp = calloc((size_t)a->n_pkey + 2, 1);
  if (!tl || !tp) {
    free(tl), free(tp);
    return SP_E_NOMEM;
  }
  for (int64_t s = 0; s < a->N; s++) {
    if (side[s] != SP_SIDE_TRAIN) continue;
    if (a->lc[s] >= 0) tl[a->lc[s]] = 1;
    if (protein) protein_keys(a, s, mark_key, tp);
  }
  *dropped = 0;
  for (int64_t s = 0; s < a->N; s++) {
    if (side[s] != SP_SIDE_VAL && side[s] != SP_SIDE_TEST) continue;
    tp[a->n_pkey] = 0;
    if (protein) protein_keys(a, s, test_key, tp);
    if ((a->lc[s] >= 0 && tl[a->lc[s]]) || tp[a->n_pkey]) side[s] = SP_SIDE_DROPPED, (*dropped)++;
  }
  free(tl), free(tp);
  return 0;
}

/* got[] and the deviation from asked[] of @p side. */
static double measure(const asg *a, const int8_t *side, const double asked[3], double got[3], int64_t cnt[3]) {
  cnt[0] = cnt[1] = cnt[2] = 0;
  for (int64_t s = 0; s < a->N; s++)
    if (side[s] >= 0) cnt[side[s]]++;
  double tot = (double)(cnt[0] + cnt[1] + cnt[2]), dev = 0;
  for (int k = 0; k < 3; k++) {
    got[k] = tot > 0 ? (double)cnt[k] / tot : 0;
    double d = got[k] > asked[k] ? got[k] - asked[k] : asked[k] - got[k];
    if (d > dev) dev = d;
  }
  return dev;
}

/* Fill, drop (--by both, --by time with rules), and for --by both redo with raised targets (up to 32 passes,
 * stop within 2 points; the pass with the smallest deviation, the first on ties, is kept in @p side). */
static int fill_and_drop(asg *a, int64_t E, int8_t *side, int8_t *best, sp_datasplit_summary *sum) {
  const sp_datasplit_opts *o = a->o;
  int timed = o->by == SP_BY_TIME, drops = o->by == SP_BY_BOTH || (timed && o->time_rules);
  double tt = timed ? (double)E * (o->test / (o->test + o->val)) : o->test * (double)E;
  double tv = timed ? (double)E : o->val * (double)E, best_dev = 2;
  int passes = o->by == SP_BY_BOTH ? 32 : 1;
  for (int it = 0; it < passes; it++) {
    fill(a, tt, tv, side);
    int64_t dropped = 0, cnt[3];
    if (drops && drop_leaks(a, timed, side, &dropped)) return SP_E_NOMEM;
    double got[3], asked[3] = {1 - o->test - o->val, o->val, o->test};
    if (timed) {
      measure(a, side, asked, got, cnt);
      double vt = got[1] + got[2];
      asked[0] = got[0], asked[1] = vt * (o->val / (o->test + o->val)), asked[2] = vt * (o->test / (o->test + o->val));
    }
    double dev = measure(a, side, asked, got, cnt);
    if (dev < best_dev) {
      best_dev = dev, sum->deviation = dev, sum->dropped = dropped, sum->iterations = it + 1;
      memcpy(sum->asked, asked, sizeof asked), memcpy(sum->got, got, sizeof got);
      memcpy(best, side, (size_t)a->N);
    }
    if (dev <= 0.02) break;
    tt = got[2] > 0 ? tt * (o->test / got[2]) : tt * 2, tv = got[1] > 0 ? tv * (o->val / got[1]) : tv * 2;
    if (tt > (double)E) tt = (double)E;
    if (tv > (double)E) tv = (double)E;
  }
  memcpy(side, best, (size_t)a->N);
  return 0;
}

/* "YYYY-MM-DD" of the site's entry (release, else deposition) compared with the cut: -1 before, 1 on or after,
 * 0 no date. */
static int date_side(const sp_spl_in *in, int64_t s, const char *cut) {
  int64_t e = sp_spl_entry_of(in, s);
  const char *d = in->rdate + e * in->rdate_w;
  size_t w = in->rdate_w;
  if (!d[0]) d = in->ddate + e * in->ddate_w, w = in->ddate_w;
  if (!d[0] || strnlen(d, w) < 10) return 0;
  return memcmp(d, cut, 10) < 0 ? -1 : 1;
}

int sp_spl_fixed_side(const sp_spl_in *in, const sp_datasplit_opts *o, int64_t s) {
  int64_t t = in->sidx[s];
  if (!o->keep_copies && in->efirst[t] >= 0 && in->efirst[t] != t) return SP_SIDE_COPY;
  if (o->by == SP_BY_TIME) {
    int d = date_side(in, s, o->before);
    return d == 0 ? SP_SIDE_UNDATED : d < 0 ? SP_SIDE_TRAIN : 99;
  }
  return 99;
}

/* Sides fixed before the fill: later copies, --by time train and undated, --non-redundant the sites that are
 * not their group's representative; 99 to fill. */
static int64_t fix_sides(asg *a, sp_datasplit_summary *sum) {
  const sp_spl_in *in = a->in;
  int64_t E = 0;
  for (int64_t s = 0; s < a->N; s++) {
    int f = sp_spl_fixed_side(in, a->o, s);
    if ((f == 99 || f == SP_SIDE_TRAIN) && in->nr && !in->nr[s]) f = SP_SIDE_REDUNDANT;
    sum->copies += f == SP_SIDE_COPY, sum->undated += f == SP_SIDE_UNDATED, sum->redundant += f == SP_SIDE_REDUNDANT;
    a->fixed[s] = (int8_t)f;
    E += f == 99;
  }
  return E;
}

static void count_entries(const sp_spl_in *in, const int8_t *side, uint8_t *seen, sp_datasplit_summary *sum) {
  for (int64_t s = 0; s < in->n_sites; s++) {
    if (side[s] < 0) continue;
    sum->sites[side[s]]++;
    int64_t e = sp_spl_entry_of(in, s);
    if (!(seen[e] & (1 << side[s]))) seen[e] |= (uint8_t)(1 << side[s]), sum->entries[side[s]]++;
  }
}

int sp_spl_assign(const sp_spl_in *in, const sp_datasplit_opts *o, int8_t *side, sp_datasplit_summary *sum) {
  asg a = {.in = in, .o = o, .N = in->n_sites};
  size_t n1 = (size_t)a.N + 1;
  for (int64_t s = 0; s < a.N; s++)
    if (in->pcl[s] + 1 > a.n_pkey) a.n_pkey = in->pcl[s] + 1;
  for (int64_t c = 0; c < in->n_chain; c++)
    if (in->ccl[c] + 1 > a.n_pkey) a.n_pkey = in->ccl[c] + 1;
  a.lc = malloc(n1 * 8), a.parent = malloc(n1 * 8), a.order = malloc(n1 * 8), a.size = malloc(n1 * 8);
  a.u = malloc(n1 * sizeof *a.u), a.fixed = malloc(n1);
  int8_t *best = malloc(n1);
  uint8_t *seen = calloc((size_t)in->n_struct + 1, 1);
  int rc = SP_E_NOMEM;
  if (!a.lc || !a.parent || !a.order || !a.size || !a.u || !a.fixed || !best || !seen) goto done;
  if (o->by == SP_BY_PROTEIN) {
    for (int64_t s = 0; s < a.N; s++) a.lc[s] = -1;
  } else if ((rc = sp_spl_ligand_components(in, o->max_tanimoto, a.lc))) {
    goto done;
  }
  int64_t E = fix_sides(&a, sum);
  if ((rc = join_components(&a))) goto done;
  order_components(&a, sum);
  if ((rc = fill_and_drop(&a, E, side, best, sum))) goto done;
  count_entries(in, side, seen, sum);
  sum->max_cross_tanimoto = sp_spl_max_cross_tanimoto(in, side);
  rc = sum->max_cross_tanimoto < 0 ? SP_E_NOMEM : 0;
done:
  free(a.lc), free(a.parent), free(a.order), free(a.size), free(a.u), free(a.fixed), free(best), free(seen);
  return rc;
}
