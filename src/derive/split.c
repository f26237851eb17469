/* sitepack split: train / val / test sides that share no protein (or ligand) cluster (split.h sp_split;
 * docs/usage.md "Splits" states the rule; docs/format.md "/splits"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sitepack/base.h"
#include "sitepack/split.h"
#include "sitepack/version.h"
#include "derive/split_internal.h"
#include "sitepack/h5util.h"

const char *sp_side_name(int s) {
  switch (s) {
    case SP_SIDE_TRAIN: return "train";
    case SP_SIDE_VAL: return "val";
    case SP_SIDE_TEST: return "test";
    case SP_SIDE_DROPPED: return "dropped";
    default: return NULL;
  }
}

static const char *by_name(int by) { return by == SP_BY_LIGAND ? "ligand" : by == SP_BY_BOTH ? "both" : "protein"; }

typedef struct sp_in {
  int64_t n_sites, n_struct, n_lig, n1;
  int64_t *pcl, *lcl, *sidx, *lidx, *efirst;
  char *cls, *eid, *spath, *comp;
  size_t cls_w, eid_w, path_w, comp_w;
  char pcol[64];
} sp_in;

static void sp_in_free(sp_in *in) {
  free(in->pcl), free(in->lcl), free(in->sidx), free(in->lidx), free(in->efirst);
  free(in->cls), free(in->eid), free(in->spath), free(in->comp);
}

#define RD(dst, name, cnt) (!((dst) = sp_spl_read(f, path, name, H5T_NATIVE_INT64, 8, cnt, err)))

static int sp_read_in(const char *path, const char *name, int *exists, sp_in *in, sp_err *err) {
  hid_t f = sp_spl_open_read(path, 3, "/chains", err);
  if (f < 0) return err->cls;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  int have = H5Lexists(f, "/clusters", H5P_DEFAULT) > 0;
  hid_t g = have ? H5Gopen2(f, "/clusters", H5P_DEFAULT) : -1;
  char low[48] = "";
  if (g >= 0) {
    sp_h5_read_attr_str(g, "protein_low", low, sizeof low);
    H5Gclose(g);
  }
  char full[160];
  snprintf(full, sizeof full, "/splits/%s", name);
  *exists = H5Lexists(f, "/splits", H5P_DEFAULT) > 0 && H5Lexists(f, full, H5P_DEFAULT) > 0;
  sp_h5_quiet_end(&q);
  if (!have || !low[0]) {
    H5Fclose(f);
    return sp_err_set(err, SP_E_NOT_FOUND, "%s: no /clusters (run sitepack cluster %s first)", path, path);
  }
  snprintf(in->pcol, sizeof in->pcol, "/clusters/%s", low);
  int64_t n[6] = {0, 0, 0, 0, 0, 0};
  int bad = RD(in->pcl, in->pcol, &in->n_sites) || RD(in->lcl, "/clusters/ligand", &n[0]) ||
            RD(in->sidx, "/sites/structure_idx", &n[1]) || RD(in->lidx, "/sites/ligand_idx", &n[2]) ||
            RD(in->efirst, "/structures/entry_first", &in->n_struct) ||
            !(in->cls = sp_spl_read_str(f, path, "/ligands/class", &in->cls_w, &in->n_lig, err)) ||
            !(in->comp = sp_spl_read_str(f, path, "/ligands/comp_id", &in->comp_w, &n[3], err)) ||
            !(in->eid = sp_spl_read_str(f, path, "/structures/entry_id", &in->eid_w, &n[4], err)) ||
            !(in->spath = sp_spl_read_str(f, path, "/structures/path", &in->path_w, &n[5], err));
  H5Fclose(f);
  if (bad) return err->cls;
  int ok = n[0] == in->n_sites && n[1] == in->n_sites && n[2] == in->n_sites && n[3] == in->n_lig &&
           n[4] == in->n_struct && n[5] == in->n_struct;
  for (int64_t s = 0; ok && s < in->n_sites; s++)
    ok = in->sidx[s] >= 0 && in->sidx[s] < in->n_struct && in->lidx[s] >= 0 && in->lidx[s] < in->n_lig &&
         in->pcl[s] >= -1 && in->lcl[s] >= -1 && in->lcl[s] < in->n_sites;
  for (int64_t t = 0; ok && t < in->n_struct; t++) ok = in->efirst[t] < in->n_struct;
  if (!ok) return sp_err_set(err, SP_E_FORMAT, "%s: /sites or /clusters rows or indices do not match the file (run sitepack check)", path);
  return 0;
}
#undef RD

/* Ions and artifact-class ligands (buffers) join no ligand component: they follow their site's protein. */
static int follows_protein(const sp_in *in, int64_t s) {
  const char *c = in->cls + in->lidx[s] * in->cls_w;
  return !strncmp(c, "ion", in->cls_w) || !strncmp(c, "artifact", in->cls_w);
}

static int64_t entry_of(const sp_in *in, int64_t s) {
  int64_t t = in->sidx[s];
  return in->efirst[t] >= 0 ? in->efirst[t] : t;
}

/* The entry's key: its entry id, else its path; @p len out. */
static const char *entry_key(const sp_in *in, int64_t e, size_t *len) {
  const char *k = in->eid + e * in->eid_w;
  size_t w = in->eid_w;
  if (!k[0]) k = in->spath + e * in->path_w, w = in->path_w;
  *len = strnlen(k, w);
  return k;
}

static int64_t uf_find(int64_t *p, int64_t x) {
  while (p[x] != x) x = p[x] = p[p[x]];
  return x;
}

static void uf_union(int64_t *p, int64_t a, int64_t b) {
  a = uf_find(p, a), b = uf_find(p, b);
  if (a != b) p[a < b ? b : a] = a < b ? a : b;
}

/* Union the sites of @p key values (>= 0, < nk): each with the first site of its value. */
static int uf_by(int64_t *parent, int64_t n, const int64_t *key, int64_t nk, const sp_in *in, int skip_protein) {
  int64_t *first = malloc(((size_t)nk + 1) * sizeof *first);
  if (!first) return -1;
  for (int64_t k = 0; k < nk; k++) first[k] = -1;
  for (int64_t s = 0; s < n; s++) {
    int64_t k = key[s];
    if (k < 0 || k >= nk || (skip_protein && follows_protein(in, s))) continue;
    if (first[k] < 0) first[k] = s;
    else uf_union(parent, first[k], s);
  }
  free(first);
  return 0;
}

/* side[s] for every site, and the summary; 0 or SP_E_NOMEM. */
static int sp_assign(const sp_in *in, const sp_datasplit_opts *o, int8_t *side, sp_datasplit_summary *sum) {
  int64_t N = in->n_sites;
  int64_t *parent = malloc(((size_t)N + 1) * sizeof *parent), *ent = malloc(((size_t)N + 1) * sizeof *ent);
  int64_t *keyrep = malloc(((size_t)N + 1) * sizeof *keyrep), *size = calloc((size_t)N + 1, sizeof *size);
  int64_t maxp = 0, maxl = 0;
  for (int64_t s = 0; s < N; s++) {
    if (in->pcl[s] + 1 > maxp) maxp = in->pcl[s] + 1;
    if (in->lcl[s] + 1 > maxl) maxl = in->lcl[s] + 1;
  }
  uint8_t *seen = calloc((size_t)(maxl > in->n_struct ? maxl : in->n_struct) * 3 + 1, 1);
  int rc = SP_E_NOMEM;
  if (!parent || !ent || !keyrep || !size || !seen) goto done;
  for (int64_t s = 0; s < N; s++) parent[s] = s, ent[s] = entry_of(in, s);
  if (uf_by(parent, N, ent, in->n_struct, in, 0) ||
      (o->by != SP_BY_LIGAND && uf_by(parent, N, in->pcl, maxp, in, 0)) ||
      (o->by == SP_BY_LIGAND && uf_by(parent, N, in->lcl, maxl, in, 1)))
    goto done;
  /* the component's key: the smallest entry key of its sites (byte order, then length) */
  for (int64_t s = 0; s < N; s++) keyrep[s] = -1;
  for (int64_t s = 0; s < N; s++) {
    int64_t r = uf_find(parent, s);
    size[r]++;
    if (keyrep[r] < 0) {
      keyrep[r] = ent[s];
      continue;
    }
    size_t la, lb;
    const char *a = entry_key(in, ent[s], &la), *b = entry_key(in, keyrep[r], &lb);
    int m = memcmp(a, b, la < lb ? la : lb);
    if (m < 0 || (m == 0 && la < lb)) keyrep[r] = ent[s];
  }
  uint64_t seed_mix = sp_mix64(o->seed ^ 0x73706c6974ULL); /* "split" */
  for (int64_t s = 0; s < N; s++) {
    int64_t r = uf_find(parent, s);
    if (r == s) {
      sum->n_components++;
      if (size[r] > sum->largest_component) sum->largest_component = size[r];
    }
    size_t len;
    const char *k = entry_key(in, keyrep[r], &len);
    double u = (double)(sp_mix64(sp_spl_fnv(k, len) ^ seed_mix) >> 11) * 0x1.0p-53;
    side[s] = (int8_t)(u < o->test ? SP_SIDE_TEST : u < o->test + o->val ? SP_SIDE_VAL : SP_SIDE_TRAIN);
  }
  if (o->by == SP_BY_BOTH) { /* a ligand cluster with a train site stays out of val and test */
    for (int64_t s = 0; s < N; s++)
      if (side[s] == SP_SIDE_TRAIN && in->lcl[s] >= 0 && !follows_protein(in, s)) seen[in->lcl[s]] = 1;
    for (int64_t s = 0; s < N; s++)
      if (side[s] != SP_SIDE_TRAIN && in->lcl[s] >= 0 && !follows_protein(in, s) && seen[in->lcl[s]])
        side[s] = SP_SIDE_DROPPED, sum->dropped++;
  }
  memset(seen, 0, (size_t)in->n_struct * 3);
  for (int64_t s = 0; s < N; s++) {
    if (side[s] < 0) continue;
    sum->sites[side[s]]++;
    if (!seen[ent[s] * 3 + side[s]]) seen[ent[s] * 3 + side[s]] = 1, sum->entries[side[s]]++;
  }
  rc = 0;
done:
  free(parent), free(ent), free(keyrep), free(size), free(seen);
  return rc;
}

static int name_ok(const char *n) {
  size_t k = strlen(n);
  if (k < 1 || k > 64) return 0;
  for (const char *p = n; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
          *p == '-' || *p == '.'))
      return 0;
  return 1;
}

/* PATH without a trailing ".h5", then ".split-NAME." and @p ext. */
static void listing_path(char *out, size_t cap, const char *path, const char *name, const char *ext) {
  size_t n = strlen(path);
  if (n > 3 && !strcmp(path + n - 3, ".h5")) n -= 3;
  snprintf(out, cap, "%.*s.split-%s.%s", (int)n, path, name, ext);
}

static int write_tsv(const char *tmp, const sp_in *in, const int8_t *side) {
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  fprintf(f, "site\tentry\tcomp_id\tclass\tprotein_cluster\tligand_cluster\tside\n");
  for (int64_t s = 0; s < in->n_sites; s++) {
    size_t len;
    const char *k = entry_key(in, entry_of(in, s), &len);
    int64_t l = in->lidx[s];
    fprintf(f, "%lld\t%.*s\t%.*s\t%.*s\t%lld\t%lld\t%s\n", (long long)s, (int)len, k, (int)in->comp_w,
            in->comp + l * in->comp_w, (int)in->cls_w, in->cls + l * in->cls_w, (long long)in->pcl[s],
            (long long)in->lcl[s], sp_side_name(side[s]));
  }
  return fclose(f) ? -1 : 0;
}

static int write_json(const char *tmp, const char *path, const sp_in *in, const sp_datasplit_opts *o,
                      const sp_datasplit_summary *s) {
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  fprintf(f, "{\n  \"name\": \"%s\",\n  \"file\": \"", s->name);
  for (const char *p = path; *p; p++) {
    if (*p == '"' || *p == '\\') fputc('\\', f);
    if ((unsigned char)*p < 0x20) fprintf(f, "\\u%04x", (unsigned char)*p);
    else fputc(*p, f);
  }
  fprintf(f, "\",\n  \"by\": \"%s\",\n  \"seed\": %llu,\n  \"test\": %.17g,\n  \"val\": %.17g,\n"
          "  \"protein_clusters\": \"%s\",\n  \"ligand_clusters\": \"/clusters/ligand\",\n"
          "  \"tool_version\": \"%s\",\n  \"git_sha\": \"%s\",\n  \"n_sites\": %lld,\n",
          by_name(o->by), (unsigned long long)o->seed, o->test, o->val, in->pcol, SP_VERSION, SP_GIT_SHA,
          (long long)s->n_sites);
  fprintf(f, "  \"sites\": {\"train\": %lld, \"val\": %lld, \"test\": %lld, \"dropped\": %lld},\n",
          (long long)s->sites[0], (long long)s->sites[1], (long long)s->sites[2], (long long)s->dropped);
  fprintf(f, "  \"entries\": {\"train\": %lld, \"val\": %lld, \"test\": %lld},\n", (long long)s->entries[0],
          (long long)s->entries[1], (long long)s->entries[2]);
  fprintf(f, "  \"components\": %lld,\n  \"largest_component\": %lld\n}\n", (long long)s->n_components,
          (long long)s->largest_component);
  return fclose(f) ? -1 : 0;
}

static int write_column(const char *path, const sp_in *in, const sp_datasplit_opts *o, const int8_t *side,
                        const sp_datasplit_summary *s, sp_err *err) {
  hid_t f = -1;
  hid_t g = sp_spl_open_group(path, "/splits", 0, &f, err);
  if (g < 0) return err->cls;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  if (H5Lexists(g, s->name, H5P_DEFAULT) > 0) H5Ldelete(g, s->name, H5P_DEFAULT); /* --force checked before */
  sp_h5_quiet_end(&q);
  hid_t d = sp_spl_write(g, s->name, H5T_STD_I8LE, H5T_NATIVE_INT8, in->n_sites, side, "1",
                         "{\"-1\":\"dropped\",\"0\":\"train\",\"1\":\"val\",\"2\":\"test\"}");
  int bad = d < 0 || sp_h5_attr_vstr(d, "by", by_name(o->by)) < 0 || sp_h5_attr_i64(d, "seed", (int64_t)o->seed) < 0 ||
            sp_h5_attr_f64(d, "test", o->test) < 0 || sp_h5_attr_f64(d, "val", o->val) < 0 ||
            sp_h5_attr_vstr(d, "protein_clusters", in->pcol) < 0 ||
            sp_h5_attr_vstr(d, "ligand_clusters", "/clusters/ligand") < 0 ||
            sp_h5_attr_vstr(d, "rule", "docs/usage.md Splits: components of entry + cluster, side by hash of seed and "
                           "the smallest entry id; by both: val/test sites of a train ligand cluster dropped") < 0 ||
            sp_h5_attr_i64(d, "dropped", s->dropped) < 0 ||
            sp_h5_attr_vstr(d, "description", "side of each /sites row: train, val, test, or dropped (a val/test site "
                            "whose ligand cluster has a train site, --by both)") < 0; /* issue 39 */
  if (d >= 0) H5Dclose(d);
  int rc = bad ? sp_h5_fail(err, "write /splits", path) : 0;
  H5Gclose(g);
  if (H5Fclose(f) < 0 && !rc) rc = sp_h5_fail(err, "close", path);
  return rc;
}

static int check_opts(const char *path, const sp_datasplit_opts *o, sp_err *err) {
  if (!(o->test >= 0 && o->test < 1 && o->val >= 0 && o->val < 1 && o->test + o->val < 1))
    return sp_err_set(err, SP_E_INVALID, "%s: --test and --val must be in [0, 1) with test + val < 1", path);
  if (o->by < SP_BY_PROTEIN || o->by > SP_BY_BOTH) return sp_err_set(err, SP_E_INVALID, "%s: bad --by", path);
  return 0;
}

/* An empty side: the error of sp_split (nothing written). */
static int check_sides(const char *path, const sp_datasplit_opts *o, const sp_datasplit_summary *s, sp_err *err) {
  const double frac[3] = {1 - o->test - o->val, o->val, o->test};
  if (s->n_sites == 0)
    return sp_err_set(err, SP_E_INVALID, "%s: the file has no sites: nothing to split; nothing written", path);
  for (int k = 0; k < 3; k++)
    if (frac[k] > 0 && s->sites[k] == 0)
      return sp_err_set(err, SP_E_INVALID, "%s: split '%s' puts no site on the %s side (%lld sites in %lld components, "
                        "%lld dropped; largest component %lld sites): try another --seed or larger fractions; nothing "
                        "written", path, s->name, sp_side_name(k), (long long)s->n_sites, (long long)s->n_components,
                        (long long)s->dropped, (long long)s->largest_component);
  return 0;
}

int sp_split(const char *path, const sp_datasplit_opts *o, sp_datasplit_summary *sum, sp_err *err) {
  memset(sum, 0, sizeof *sum);
  double t0 = sp_spl_now();
  sp_in in;
  memset(&in, 0, sizeof in);
  int8_t *side = NULL;
  int rc = check_opts(path, o, err), exists = 0;
  if (rc) return rc;
  if (o->name) snprintf(sum->name, sizeof sum->name, "%s", o->name);
  else snprintf(sum->name, sizeof sum->name, "by_%s", by_name(o->by));
  if (!name_ok(sum->name))
    return sp_err_set(err, SP_E_INVALID, "%s: split name '%s': 1 to 64 of A-Z a-z 0-9 _ - .", path, sum->name);
  if ((rc = sp_read_in(path, sum->name, &exists, &in, err))) goto done;
  listing_path(sum->tsv_path, sizeof sum->tsv_path, path, sum->name, "tsv");
  listing_path(sum->json_path, sizeof sum->json_path, path, sum->name, "json");
  if (!o->force && (exists || (o->write_listing && (!access(sum->tsv_path, F_OK) || !access(sum->json_path, F_OK))))) {
    rc = sp_err_set(err, SP_E_INVALID, "%s: %s exists (rerun with --force to replace it)", path,
                    exists ? "the column /splits/NAME" : "a listing of this split");
    goto done;
  }
  sum->n_sites = in.n_sites;
  side = malloc((size_t)in.n_sites + 1);
  if (!side || sp_assign(&in, o, side, sum)) {
    rc = sp_err_set(err, SP_E_NOMEM, "%s: out of memory", path);
    goto done;
  }
  if ((rc = check_sides(path, o, sum, err))) goto done;
  char tmp_tsv[4200], tmp_json[4200];
  snprintf(tmp_tsv, sizeof tmp_tsv, "%s.tmp", sum->tsv_path);
  snprintf(tmp_json, sizeof tmp_json, "%s.tmp", sum->json_path);
  if (o->write_listing && (write_tsv(tmp_tsv, &in, side) || write_json(tmp_json, path, &in, o, sum))) {
    unlink(tmp_tsv), unlink(tmp_json);
    rc = sp_err_set(err, SP_E_IO, "%s: cannot write %s", path, tmp_tsv);
    goto done;
  }
  if ((rc = write_column(path, &in, o, side, sum, err))) {
    if (o->write_listing) unlink(tmp_tsv), unlink(tmp_json);
    goto done;
  }
  if (o->write_listing && (rename(tmp_tsv, sum->tsv_path) || rename(tmp_json, sum->json_path)))
    rc = sp_err_set(err, SP_E_IO, "%s: cannot rename the listing to %s", path, sum->tsv_path);
done:
  sp_in_free(&in);
  free(side);
  sum->seconds = sp_spl_now() - t0;
  return rc;
}
