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
    case SP_SIDE_COPY: return "copy";
    case SP_SIDE_UNDATED: return "undated";
    case SP_SIDE_REDUNDANT: return "redundant";
    default: return NULL;
  }
}

void sp_datasplit_opts_default(sp_datasplit_opts *o) {
  memset(o, 0, sizeof *o);
  o->test = 0.1, o->val = 0.1, o->max_tanimoto = 0.5, o->time_rules = 1, o->write_listing = 1;
  o->scores = 1, o->threads = 1;
}

#define SP_SPLIT_CODES                                                                                        \
  "{\"-4\":\"redundant\",\"-3\":\"undated\",\"-2\":\"copy\",\"-1\":\"dropped\",\"0\":\"train\",\"1\":\"val\","     \
  "\"2\":\"test\"}"

static const char *by_name(int by) {
  return by == SP_BY_LIGAND ? "ligand" : by == SP_BY_BOTH ? "both" : by == SP_BY_TIME ? "time" : "protein";
}

static void sp_in_free(sp_spl_in *in) {
  free(in->pcl), free(in->lcl), free(in->sidx), free(in->lidx), free(in->efirst), free(in->mol), free(in->ccl);
  free(in->res_ptr), free(in->rchain), free(in->rkind), free(in->rcontact), free(in->fp), free(in->site_chain);
  free(in->seq_ptr), free(in->code), free(in->ctype), free(in->nr);
  free(in->cls), free(in->eid), free(in->spath), free(in->comp), free(in->rdate), free(in->ddate);
}

#define RD(dst, name, cnt) (!((dst) = sp_spl_read(f, path, name, H5T_NATIVE_INT64, 8, cnt, err)))
#define RD8(dst, name, cnt) (!((dst) = sp_spl_read(f, path, name, H5T_NATIVE_UINT8, 1, cnt, err)))
#define RDS(dst, name, w, cnt) (!((dst) = sp_spl_read_str(f, path, name, w, cnt, err)))

/* /clusters present with its protein_low name (in->pcol) and whether /splits/NAME exists; 0 or an error. */
static int sp_probe(hid_t f, const char *path, const char *name, int *exists, sp_spl_in *in, sp_err *err) {
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
  if (!have || !low[0])
    return sp_err_set(err, SP_E_NOT_FOUND, "%s: no /clusters (run sitepack cluster %s first)", path, path);
  snprintf(in->pcol, sizeof in->pcol, "/clusters/%s", low);
  return 0;
}

/* Every index the rule follows is in range (sitepack check does all checks; these keep us in bounds). */
static int sp_in_ok(const sp_spl_in *in, const int64_t *n) {
  int ok = n[0] == in->n_sites && n[1] == in->n_sites && n[2] == in->n_sites && n[3] == in->n_lig &&
           n[4] == in->n_struct && n[5] == in->n_struct && n[6] == in->n_sites && n[7] == in->n_sites + 1 &&
           n[8] == in->n_res && n[9] == in->n_res && n[10] == in->n_struct && n[11] == in->n_struct;
  for (int64_t s = 0; ok && s < in->n_sites; s++)
    ok = in->sidx[s] >= 0 && in->sidx[s] < in->n_struct && in->lidx[s] >= 0 && in->lidx[s] < in->n_lig &&
         in->pcl[s] >= -1 && in->lcl[s] >= -1 && in->lcl[s] < in->n_sites && in->mol[s] >= 0 &&
         in->mol[s] < in->n_mol && in->res_ptr[s] >= 0 && in->res_ptr[s] <= in->res_ptr[s + 1];
  ok = ok && in->res_ptr[in->n_sites] <= in->n_res;
  for (int64_t t = 0; ok && t < in->n_struct; t++) ok = in->efirst[t] < in->n_struct;
  ok = ok && n[12] == in->n_sites && n[13] == in->n_chain + 1 && n[14] == in->n_chain && in->seq_ptr[0] == 0;
  for (int64_t c = 0; ok && c < in->n_chain; c++)
    ok = in->ccl[c] >= -1 && in->seq_ptr[c] <= in->seq_ptr[c + 1] && in->seq_ptr[c + 1] <= in->n_code;
  for (int64_t s = 0; ok && s < in->n_sites; s++) ok = in->site_chain[s] >= -1 && in->site_chain[s] < in->n_chain;
  return ok;
}

static int sp_read_in(const char *path, const char *name, int *exists, sp_spl_in *in, sp_err *err) {
  hid_t f = sp_spl_open_read(path, 3, "/chains", err);
  if (f < 0) return err->cls;
  if (sp_probe(f, path, name, exists, in, err)) {
    H5Fclose(f);
    return err->cls;
  }
  char ccol[80];
  snprintf(ccol, sizeof ccol, "/clusters/chain_%s", in->pcol + 10);
  int64_t n[15] = {0};
  int bad = RD(in->pcl, in->pcol, &in->n_sites) || RD(in->lcl, "/clusters/ligand", &n[0]) ||
            RD(in->sidx, "/sites/structure_idx", &n[1]) || RD(in->lidx, "/sites/ligand_idx", &n[2]) ||
            RD(in->efirst, "/structures/entry_first", &in->n_struct) ||
            RDS(in->cls, "/ligands/class", &in->cls_w, &in->n_lig) ||
            RDS(in->comp, "/ligands/comp_id", &in->comp_w, &n[3]) ||
            RDS(in->eid, "/structures/entry_id", &in->eid_w, &n[4]) ||
            RDS(in->spath, "/structures/path", &in->path_w, &n[5]) ||
            RD(in->mol, "/clusters/ligand_molecule", &n[6]) || !(in->fp = sp_spl_read_fp(f, path, &in->n_mol, err)) ||
            RD(in->ccl, ccol, &in->n_chain) || RD(in->res_ptr, "/sites/residue_ptr", &n[7]) ||
            RD(in->rchain, "/residues/chain_idx", &in->n_res) || RD8(in->rkind, "/residues/kind", &n[8]) ||
            RD8(in->rcontact, "/residues/contact", &n[9]) ||
            RDS(in->rdate, "/structures/release_date", &in->rdate_w, &n[10]) ||
            RDS(in->ddate, "/structures/deposition_date", &in->ddate_w, &n[11]) ||
            RD(in->site_chain, "/clusters/site_chain", &n[12]) || RD(in->seq_ptr, "/chains/seq_ptr", &n[13]) ||
            RD8(in->code, "/sequences/code", &in->n_code) || RDS(in->ctype, "/chains/type", &in->ctype_w, &n[14]);
  H5Fclose(f);
  if (bad) return err->cls;
  if (!sp_in_ok(in, n))
    return sp_err_set(err, SP_E_FORMAT, "%s: /sites or /clusters rows or indices do not match the file (run sitepack "
                      "check)", path);
  return 0;
}
#undef RD
#undef RD8
#undef RDS

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

static const char *stratum_name(int k) {
  static const char *const nm[4] = {"not_novel", "novel_protein", "novel_ligand", "novel_both"};
  return k >= 0 && k < 4 ? nm[k] : ".";
}

static int write_tsv(const char *tmp, const sp_spl_in *in, const int8_t *side, const sp_spl_score_out *sc) {
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  fprintf(f, "site\tentry\tcomp_id\tclass\tprotein_cluster\tligand_cluster\tside\tmax_identity\tmax_tanimoto\t"
          "stratum\n");
  for (int64_t s = 0; s < in->n_sites; s++) {
    size_t len;
    const char *k = sp_spl_entry_key(in, sp_spl_entry_of(in, s), &len);
    int64_t l = in->lidx[s];
    fprintf(f, "%lld\t%.*s\t%.*s\t%.*s\t%lld\t%lld\t%s", (long long)s, (int)len, k, (int)in->comp_w,
            in->comp + l * in->comp_w, (int)in->cls_w, in->cls + l * in->cls_w, (long long)in->pcl[s],
            (long long)in->lcl[s], sp_side_name(side[s]));
    if (sc->stratum && sc->stratum[s] >= 0)
      fprintf(f, "\t%.4f\t%.4f\t%s\n", sc->identity[s], sc->tanimoto[s], stratum_name(sc->stratum[s]));
    else
      fprintf(f, "\t.\t.\t.\n");
  }
  return fclose(f) ? -1 : 0;
}

/* A double in the fewest significant digits (1 to 17) that read back as the same double (0.1, not
 * 0.10000000000000001; 17 digits always suffice for binary64: IEEE 754-2008, 5.12.2), into buf[32]. */
static const char *f64_shortest(char buf[32], double v) {
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, 32, "%.*g", p, v);
    if (strtod(buf, NULL) == v) break;
  }
  return buf;
}

static int write_json(const char *tmp, const char *path, const sp_spl_in *in, const sp_datasplit_opts *o,
                      const sp_datasplit_summary *s) {
  char b_test[32], b_val[32], b_tan[32];
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  fprintf(f, "{\n  \"name\": \"%s\",\n  \"file\": \"", s->name);
  for (const char *p = path; *p; p++) {
    if (*p == '"' || *p == '\\') fputc('\\', f);
    if ((unsigned char)*p < 0x20) fprintf(f, "\\u%04x", (unsigned char)*p);
    else fputc(*p, f);
  }
  fprintf(f,
          "\",\n  \"by\": \"%s\",\n  \"seed\": %llu,\n  \"test\": %s,\n  \"val\": %s,\n"
          "  \"protein_clusters\": \"%s\",\n  \"ligand_clusters\": \"/clusters/ligand\",\n"
          "  \"tool_version\": \"%s\",\n  \"git_sha\": \"%s\",\n  \"n_sites\": %lld,\n",
          by_name(o->by), (unsigned long long)o->seed, f64_shortest(b_test, o->test), f64_shortest(b_val, o->val),
          in->pcol, SP_VERSION, SP_GIT_SHA, (long long)s->n_sites);
  fprintf(f, "  \"max_tanimoto\": %s,\n  \"keep_copies\": %d,\n  \"non_redundant\": %d,\n",
          f64_shortest(b_tan, o->max_tanimoto), o->keep_copies, o->non_redundant);
  if (o->by == SP_BY_TIME) fprintf(f, "  \"before\": \"%s\",\n  \"time_rules\": %d,\n", o->before, o->time_rules);
  fprintf(f, "  \"sites\": {\"train\": %lld, \"val\": %lld, \"test\": %lld, \"dropped\": %lld, \"copy\": %lld, "
          "\"undated\": %lld, \"redundant\": %lld},\n", (long long)s->sites[0], (long long)s->sites[1],
          (long long)s->sites[2], (long long)s->dropped, (long long)s->copies, (long long)s->undated,
          (long long)s->redundant);
  fprintf(f, "  \"asked\": [%.6f, %.6f, %.6f],\n  \"got\": [%.6f, %.6f, %.6f],\n  \"deviation\": %.6f,\n"
          "  \"passes\": %d,\n  \"max_cross_tanimoto\": %.6f,\n", s->asked[0], s->asked[1], s->asked[2], s->got[0],
          s->got[1], s->got[2], s->deviation, s->iterations, s->max_cross_tanimoto);
  if (s->scored)
    for (int k = 0; k < 2; k++)
      fprintf(f, "  \"strata_%s\": {\"not_novel\": %lld, \"novel_protein\": %lld, \"novel_ligand\": %lld, "
              "\"novel_both\": %lld},\n", k ? "test" : "val", (long long)s->strata[k][0], (long long)s->strata[k][1],
              (long long)s->strata[k][2], (long long)s->strata[k][3]);
  if (s->scored) fprintf(f, "  \"max_cross_identity\": %.4f,\n", s->max_cross_identity);
  fprintf(f, "  \"entries\": {\"train\": %lld, \"val\": %lld, \"test\": %lld},\n", (long long)s->entries[0],
          (long long)s->entries[1], (long long)s->entries[2]);
  fprintf(f, "  \"components\": %lld,\n  \"largest_component\": %lld\n}\n", (long long)s->n_components,
          (long long)s->largest_component);
  return fclose(f) ? -1 : 0;
}

/* The attributes of the column /splits/NAME (docs/format.md "/splits"). 0 or < 0. */
static int column_attrs(hid_t d, const sp_spl_in *in, const sp_datasplit_opts *o, const sp_datasplit_summary *s) {
  char sizes[200];
  snprintf(sizes, sizeof sizes, "{\"asked\": [%.6f, %.6f, %.6f], \"got\": [%.6f, %.6f, %.6f]}", s->asked[0],
           s->asked[1], s->asked[2], s->got[0], s->got[1], s->got[2]);
  int bad = sp_h5_attr_vstr(d, "by", by_name(o->by)) < 0 || sp_h5_attr_i64(d, "seed", (int64_t)o->seed) < 0 ||
            sp_h5_attr_f64(d, "test", o->test) < 0 || sp_h5_attr_f64(d, "val", o->val) < 0 ||
            sp_h5_attr_vstr(d, "protein_clusters", in->pcol) < 0 ||
            sp_h5_attr_vstr(d, "ligand_clusters", "/clusters/ligand") < 0 ||
            sp_h5_attr_vstr(d, "rule", "docs/usage.md Splits: components of entry + protein clusters of every "
                           "contacted chain (or ligand components at max_tanimoto), in order of a hash of seed and "
                           "smallest entry id, fill test then val to their fractions; by both / time: val/test sites "
                           "sharing a ligand component (time: or protein cluster) with train dropped") < 0 ||
            sp_h5_attr_i64(d, "dropped", s->dropped) < 0 || sp_h5_attr_i64(d, "copies", s->copies) < 0 ||
            sp_h5_attr_i64(d, "keep_copies", o->keep_copies) < 0 ||
            sp_h5_attr_i64(d, "non_redundant", o->non_redundant) < 0 ||
            sp_h5_attr_i64(d, "redundant", s->redundant) < 0 ||
            sp_h5_attr_f64(d, "max_tanimoto", o->max_tanimoto) < 0 ||
            sp_h5_attr_f64(d, "max_cross_tanimoto", s->max_cross_tanimoto) < 0 ||
            sp_h5_attr_f64(d, "deviation", s->deviation) < 0 || sp_h5_attr_vstr(d, "sizes", sizes) < 0 ||
            sp_h5_attr_i64(d, "passes", s->iterations) < 0 ||
            (s->scored && sp_h5_attr_f64(d, "max_cross_identity", s->max_cross_identity) < 0) ||
            (o->by == SP_BY_TIME &&
             (sp_h5_attr_vstr(d, "before", o->before) < 0 || sp_h5_attr_i64(d, "time_rules", o->time_rules) < 0 ||
              sp_h5_attr_i64(d, "undated", s->undated) < 0)) ||
            sp_h5_attr_vstr(d, "description", "side of each /sites row: train, val, test, or a code < 0 for a site "
                            "on no side: dropped (shares a component with train), copy (a later file of an entry), "
                            "undated (--by time), redundant (--non-redundant); codes in the attribute codes") < 0;
  return bad ? -1 : 0;
}

/* /split_scores/NAME: max_identity, max_tanimoto, stratum (docs/format.md "/split_scores"); an old group of the
 * name is deleted first (also when no scores are written now). 0 or < 0. */
static int write_scores(hid_t f, const sp_spl_in *in, const sp_datasplit_opts *o, const sp_spl_score_out *sc,
                        const sp_datasplit_summary *s) {
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  int there = H5Lexists(f, "/split_scores", H5P_DEFAULT) > 0;
  hid_t top = there ? H5Gopen2(f, "/split_scores", H5P_DEFAULT) : -1;
  if (top >= 0 && H5Lexists(top, s->name, H5P_DEFAULT) > 0) H5Ldelete(top, s->name, H5P_DEFAULT);
  sp_h5_quiet_end(&q);
  if (!sc->stratum) return top >= 0 ? H5Gclose(top) : 0;
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  if (gcpl >= 0) H5Pset_obj_track_times(gcpl, 0);
  if (top < 0) top = H5Gcreate2(f, "/split_scores", H5P_DEFAULT, gcpl, H5P_DEFAULT);
  hid_t g = top >= 0 ? H5Gcreate2(top, s->name, H5P_DEFAULT, gcpl, H5P_DEFAULT) : -1;
  if (gcpl >= 0) H5Pclose(gcpl);
  hid_t d[3] = {-1, -1, -1};
  if (g >= 0) {
    d[0] = sp_spl_write(g, "max_identity", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, in->n_sites, sc->identity, "1", NULL);
    d[1] = sp_spl_write(g, "max_tanimoto", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, in->n_sites, sc->tanimoto, "1", NULL);
    d[2] = sp_spl_write(g, "stratum", H5T_STD_I8LE, H5T_NATIVE_INT8, in->n_sites, sc->stratum, "1",
                        "{\"-1\":\"not_scored\",\"0\":\"not_novel\",\"1\":\"novel_protein\",\"2\":\"novel_ligand\","
                        "\"3\":\"novel_both\"}");
  }
  int bad = g < 0 || d[0] < 0 || d[1] < 0 || d[2] < 0 ||
            sp_h5_attr_vstr(d[0], "missing", "NaN: not a val/test site, or the site touches no polypeptide "
                            "chain") < 0 ||
            sp_h5_attr_vstr(d[1], "missing", "NaN: not a val/test site") < 0 ||
            sp_h5_attr_vstr(d[0], "description", "per /sites row: the largest sequence identity (fraction) of a "
                            "polypeptide chain the site contacts to a chain a train site contacts (MMseqs2)") < 0 ||
            sp_h5_attr_vstr(d[1], "description", "per /sites row: the largest Tanimoto of the site's ligand "
                            "fingerprint to a train site's ligand fingerprint (/clusters/fingerprint)") < 0 ||
            sp_h5_attr_vstr(d[2], "description", "per /sites row: novelty stratum of a val/test site at "
                            "novel_identity and novel_tanimoto; not_scored for train and sites on no side") < 0 ||
            sp_h5_attr_vstr(g, "method", "max_identity: mmseqs easy-search -c 0.8 --cov-mode 0 (fident) of the "
                           "polypeptide chains a site contacts against those train sites contact; max_tanimoto: "
                           "/clusters/fingerprint against every train site's molecule") < 0 ||
            sp_h5_attr_f64(g, "novel_identity", SP_NOVEL_IDENTITY) < 0 ||
            sp_h5_attr_f64(g, "novel_tanimoto", o->max_tanimoto) < 0;
  for (int k = 0; k < 3; k++)
    if (d[k] >= 0) H5Dclose(d[k]);
  if (g >= 0) H5Gclose(g);
  if (top >= 0) H5Gclose(top);
  return bad ? -1 : 0;
}

static int write_column(const char *path, const sp_spl_in *in, const sp_datasplit_opts *o, const int8_t *side,
                        const sp_spl_score_out *sc, const sp_datasplit_summary *s, sp_err *err) {
  hid_t f = -1;
  hid_t g = sp_spl_open_group(path, "/splits", 0, &f, err);
  if (g < 0) return err->cls;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  if (H5Lexists(g, s->name, H5P_DEFAULT) > 0) H5Ldelete(g, s->name, H5P_DEFAULT); /* --force checked before */
  sp_h5_quiet_end(&q);
  hid_t d = sp_spl_write(g, s->name, H5T_STD_I8LE, H5T_NATIVE_INT8, in->n_sites, side, "1", SP_SPLIT_CODES);
  int bad = d < 0 || column_attrs(d, in, o, s) < 0;
  if (d >= 0) H5Dclose(d);
  bad = bad || write_scores(f, in, o, sc, s) < 0;
  int rc = bad ? sp_h5_fail(err, "write /splits", path) : 0;
  H5Gclose(g);
  if (H5Fclose(f) < 0 && !rc) rc = sp_h5_fail(err, "close", path);
  return rc;
}

/* 1 if d is YYYY-MM-DD and a day of the proleptic Gregorian calendar (month 1 to 12, the day within its month,
   February 29 in leap years: divisible by 4, not by 100 unless by 400), else 0. */
static int valid_date(const char *d) {
  int ok = strlen(d) == 10 && d[4] == '-' && d[7] == '-';
  for (int i = 0; ok && i < 10; i++) ok = i == 4 || i == 7 || (d[i] >= '0' && d[i] <= '9');
  if (!ok) return 0;
  int y = atoi(d), m = atoi(d + 5), day = atoi(d + 8);
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12) return 0;
  int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return day >= 1 && day <= mdays[m - 1] + (m == 2 && leap);
}

static int check_opts(const char *path, const sp_datasplit_opts *o, sp_err *err) {
  if (!(o->test >= 0 && o->test < 1 && o->val >= 0 && o->val < 1 && o->test + o->val < 1))
    return sp_err_set(err, SP_E_INVALID, "%s: --test and --val must be in [0, 1) with test + val < 1", path);
  if (o->by < SP_BY_PROTEIN || o->by > SP_BY_TIME) return sp_err_set(err, SP_E_INVALID, "%s: bad --by", path);
  if (!(o->max_tanimoto > 0 && o->max_tanimoto <= 1))
    return sp_err_set(err, SP_E_INVALID, "%s: --max-tanimoto must be in (0, 1]", path);
  if (o->by == SP_BY_TIME) {
    if (!o->before) return sp_err_set(err, SP_E_INVALID, "%s: --by time needs --before YYYY-MM-DD", path);
    if (!valid_date(o->before))
      return sp_err_set(err, SP_E_INVALID, "%s: --before: not a valid date '%s' (YYYY-MM-DD)", path, o->before);
    if (!(o->test + o->val > 0))
      return sp_err_set(err, SP_E_INVALID, "%s: --by time needs --test or --val above 0", path);
  } else if (o->before) {
    return sp_err_set(err, SP_E_INVALID, "%s: --before goes with --by time", path);
  }
  return 0;
}

/* An empty side: the error of sp_split (nothing written). */
static int check_sides(const char *path, const sp_datasplit_opts *o, const sp_datasplit_summary *s, sp_err *err) {
  double frac[3] = {1 - o->test - o->val, o->val, o->test};
  if (o->by == SP_BY_TIME) frac[0] = 1; /* the cut must leave sites before it */
  if (s->n_sites == 0)
    return sp_err_set(err, SP_E_INVALID, "%s: the file has no sites: nothing to split; nothing written", path);
  for (int k = 0; k < 3; k++)
    if (frac[k] > 0 && s->sites[k] == 0)
      return sp_err_set(err, SP_E_INVALID, "%s: split '%s' puts no site on the %s side (%lld sites in %lld components, "
                        "%lld dropped, %lld copies, %lld undated; largest component %lld sites): try %s; nothing "
                        "written", path, s->name, sp_side_name(k), (long long)s->n_sites, (long long)s->n_components,
                        (long long)s->dropped, (long long)s->copies, (long long)s->undated,
                        (long long)s->largest_component,
                        o->by == SP_BY_TIME ? "another --before date" : "another --seed or larger fractions");
  return 0;
}

int sp_split(const char *path, const sp_datasplit_opts *o, sp_datasplit_summary *sum, sp_err *err) {
  memset(sum, 0, sizeof *sum);
  double t0 = sp_spl_now();
  sp_spl_in in;
  memset(&in, 0, sizeof in);
  int8_t *side = NULL;
  sp_spl_score_out sc = {NULL, NULL, NULL};
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
  if (o->non_redundant && side) {
    in.nr = malloc((size_t)in.n_sites + 1);
    if (!in.nr) {
      rc = sp_err_set(err, SP_E_NOMEM, "%s: out of memory", path);
      goto done;
    }
    for (int64_t s = 0; s < in.n_sites; s++) {
      int f = sp_spl_fixed_side(&in, o, s);
      side[s] = (int8_t)(f == 99 || f == SP_SIDE_TRAIN);
    }
    if ((rc = sp_spl_non_redundant(path, &in, side, in.nr, err))) goto done;
  }
  if (!side || sp_spl_assign(&in, o, side, sum)) {
    rc = sp_err_set(err, SP_E_NOMEM, "%s: out of memory", path);
    goto done;
  }
  if ((rc = check_sides(path, o, sum, err))) goto done;
  if (o->scores && (rc = sp_spl_scores(path, &in, o, side, &sc, sum, err))) goto done;
  char tmp_tsv[4200], tmp_json[4200];
  snprintf(tmp_tsv, sizeof tmp_tsv, "%s.tmp", sum->tsv_path);
  snprintf(tmp_json, sizeof tmp_json, "%s.tmp", sum->json_path);
  if (o->write_listing && (write_tsv(tmp_tsv, &in, side, &sc) || write_json(tmp_json, path, &in, o, sum))) {
    unlink(tmp_tsv), unlink(tmp_json);
    rc = sp_err_set(err, SP_E_IO, "%s: cannot write %s", path, tmp_tsv);
    goto done;
  }
  if ((rc = write_column(path, &in, o, side, &sc, sum, err))) {
    if (o->write_listing) unlink(tmp_tsv), unlink(tmp_json);
    goto done;
  }
  if (o->write_listing && (rename(tmp_tsv, sum->tsv_path) || rename(tmp_json, sum->json_path)))
    rc = sp_err_set(err, SP_E_IO, "%s: cannot rename the listing to %s", path, sum->tsv_path);
done:
  sp_in_free(&in);
  free(side), free(sc.identity), free(sc.tanimoto), free(sc.stratum);
  sum->seconds = sp_spl_now() - t0;
  return rc;
}
