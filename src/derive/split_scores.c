/* Leakage scores of the val/test sites of a split (split_internal.h sp_spl_scores; docs/usage.md "Splits",
 * "Leakage scores"): the largest sequence identity of a chain the site contacts to a train chain (MMseqs2
 * easy-search, Steinegger & Soding 2017), the largest Tanimoto of its ligand to a train ligand, and the novelty
 * stratum at documented thresholds. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derive/split_internal.h"
#include "sitepack/fingerprint.h"
#include "sitepack/split.h"

/* Calls @p f for every polypeptide chain with a sequence of site @p s: its chain and every contacted chain. */
static void site_chains(const sp_spl_in *in, int64_t s, void (*f)(const sp_spl_in *, int64_t, void *), void *ctx) {
  int64_t sc = in->site_chain[s];
  for (int64_t r = in->res_ptr[s]; r <= in->res_ptr[s + 1]; r++) {
    int64_t c = r < in->res_ptr[s + 1] ? (in->rkind[r] == 1 && in->rcontact[r] ? in->rchain[r] : -1) : sc;
    if (c < 0 || c >= in->n_chain || in->seq_ptr[c + 1] <= in->seq_ptr[c]) continue;
    if (strncmp(in->ctype + c * in->ctype_w, "polypeptide", in->ctype_w < 11 ? in->ctype_w : 11)) continue;
    f(in, c, ctx);
  }
}

static void mark(const sp_spl_in *in, int64_t c, void *ctx) {
  (void)in;
  ((uint8_t *)ctx)[c] = 1;
}

/* FASTA of the chains with @p want[c] == 1, named c<row>. 0 or -1. */
static int write_fasta(const char *p, const sp_spl_in *in, const uint8_t *want) {
  FILE *f = fopen(p, "w");
  if (!f) return -1;
  for (int64_t c = 0; c < in->n_chain; c++)
    if (want[c])
      fprintf(f, ">c%lld\n%.*s\n", (long long)c, (int)(in->seq_ptr[c + 1] - in->seq_ptr[c]),
              (const char *)in->code + in->seq_ptr[c]);
  return fclose(f) ? -1 : 0;
}

/* mmseqs easy-search of q.fasta against t.fasta in @p tmp; best[c] = the largest fident of query chain c. */
static int search(const char *exe, const char *tmp, const sp_spl_in *in, int threads, double *best, const char *path,
                  sp_err *err) {
  char q[4200], t[4200], out[4200], work[4200], log[4200], thr[16];
  snprintf(q, sizeof q, "%s/q.fasta", tmp), snprintf(t, sizeof t, "%s/t.fasta", tmp);
  snprintf(out, sizeof out, "%s/hits.tsv", tmp), snprintf(work, sizeof work, "%s/work", tmp);
  snprintf(log, sizeof log, "%s/mmseqs.log", tmp), snprintf(thr, sizeof thr, "%d", threads > 0 ? threads : 1);
  char *argv[] = {(char *)exe, "easy-search", q, t, out, work, "--format-output", "query,target,fident", "-c", "0.8",
                  "--cov-mode", "0", "--threads", thr, "-v", "1", NULL};
  int st = sp_spl_spawn(exe, argv, log);
  if (st != 0) {
    char tail[400];
    sp_spl_log_tail(log, tail, sizeof tail);
    return sp_err_set(err, SP_E_IO, "%s: mmseqs easy-search failed (exit status %d): %s", path, st, tail);
  }
  FILE *f = fopen(out, "r");
  if (!f) return sp_err_set(err, SP_E_IO, "%s: mmseqs wrote no %s", path, out);
  long long a, b;
  double x;
  while (fscanf(f, " c%lld c%lld %lf", &a, &b, &x) == 3)
    if (a >= 0 && a < (long long)in->n_chain && x > best[a]) best[a] = x;
  fclose(f);
  return 0;
}

/* A temporary folder .sitepack-split-XXXXXX beside @p path into @p tmp. 0 or SP_E_IO. */
static int make_tmp(const char *path, char *tmp, size_t cap, sp_err *err) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *sl = strrchr(dir, '/');
  if (sl) *sl = '\0';
  else snprintf(dir, sizeof dir, ".");
  snprintf(tmp, cap, "%s/.sitepack-split-XXXXXX", dir);
  if (mkdtemp(tmp)) return 0;
  tmp[0] = '\0';
  return sp_err_set(err, SP_E_IO, "%s: cannot make a temporary folder in %s", path, dir);
}

typedef struct site_best {
  const double *chain_best;
  double v;
} site_best;

static void take_best(const sp_spl_in *in, int64_t c, void *ctx) {
  (void)in;
  site_best *b = ctx;
  if (b->chain_best[c] > b->v) b->v = b->chain_best[c];
}

/* ident[s] of every val/test site: NaN when it touches no polypeptide chain, else the largest identity (0..1) of
 * its chains to a chain of a train site (0 when MMseqs2 finds none at 80 % coverage). */
static int identity_scores(const char *path, const sp_spl_in *in, const sp_datasplit_opts *o, const int8_t *side,
                           double *ident, sp_err *err) {
  uint8_t *tm = calloc((size_t)in->n_chain + 1, 1), *qm = calloc((size_t)in->n_chain + 1, 1);
  double *best = calloc((size_t)in->n_chain + 1, sizeof *best);
  char exe[4096], tmp[4200] = "", p[4300];
  int rc = SP_E_NOMEM, nq = 0, nt = 0;
  if (!tm || !qm || !best) goto done;
  for (int64_t s = 0; s < in->n_sites; s++)
    if (side[s] >= 0) site_chains(in, s, mark, side[s] == SP_SIDE_TRAIN ? tm : qm);
  for (int64_t c = 0; c < in->n_chain; c++) nq += qm[c], nt += tm[c];
  rc = 0;
  if (nq && nt) {
    if (sp_spl_find_exe(o->mmseqs ? o->mmseqs : "mmseqs", exe, sizeof exe)) {
      rc = sp_err_set(err, SP_E_NOT_FOUND, "%s: mmseqs2 not found ('%s'): apt-get install mmseqs2, --mmseqs PATH, "
                      "or --no-scores", path, o->mmseqs ? o->mmseqs : "mmseqs");
      goto done;
    }
    if ((rc = make_tmp(path, tmp, sizeof tmp, err))) goto done;
    snprintf(p, sizeof p, "%s/q.fasta", tmp);
    int bad = write_fasta(p, in, qm);
    snprintf(p, sizeof p, "%s/t.fasta", tmp);
    if (bad || write_fasta(p, in, tm)) {
      rc = sp_err_set(err, SP_E_IO, "%s: cannot write %s", path, p);
      goto done;
    }
    if ((rc = search(exe, tmp, in, o->threads, best, path, err))) goto done;
  }
  for (int64_t s = 0; s < in->n_sites; s++) {
    if (side[s] != SP_SIDE_VAL && side[s] != SP_SIDE_TEST) continue;
    site_best b = {best, -1};
    site_chains(in, s, take_best, &b);
    ident[s] = b.v < 0 ? NAN : b.v;
  }
done:
  if (tmp[0]) sp_spl_rmtree(tmp);
  free(tm), free(qm), free(best);
  return rc;
}

/* tan[s] of every val/test site: the largest Tanimoto of its molecule to the molecule of any train site (every
 * class: an ion beside the same ion in train is not novel). */
static int ligand_scores(const sp_spl_in *in, const int8_t *side, double *tan) {
  uint8_t *on = calloc((size_t)in->n_mol + 1, 1);
  double *best = malloc(((size_t)in->n_mol + 1) * sizeof *best);
  if (!on || !best) {
    free(on), free(best);
    return SP_E_NOMEM;
  }
  for (int64_t s = 0; s < in->n_sites; s++)
    if (side[s] == SP_SIDE_TRAIN) on[in->mol[s]] = 1;
  for (int64_t m = 0; m < in->n_mol; m++) best[m] = -1;
  for (int64_t s = 0; s < in->n_sites; s++) {
    if (side[s] != SP_SIDE_VAL && side[s] != SP_SIDE_TEST) continue;
    int64_t a = in->mol[s];
    if (best[a] < 0) {
      best[a] = 0;
      for (int64_t b = 0; b < in->n_mol; b++)
        if (on[b]) {
          double x = sp_tanimoto(in->fp + a * SP_FP_WORDS, in->fp + b * SP_FP_WORDS);
          if (x > best[a]) best[a] = x;
        }
    }
    tan[s] = best[a];
  }
  free(on), free(best);
  return 0;
}

int sp_spl_scores(const char *path, const sp_spl_in *in, const sp_datasplit_opts *o, const int8_t *side,
                  sp_spl_score_out *out, sp_datasplit_summary *sum, sp_err *err) {
  size_t n1 = (size_t)in->n_sites + 1;
  out->identity = malloc(n1 * sizeof(double)), out->tanimoto = malloc(n1 * sizeof(double));
  out->stratum = malloc(n1);
  if (!out->identity || !out->tanimoto || !out->stratum) return sp_err_set(err, SP_E_NOMEM, "%s: out of memory", path);
  for (int64_t s = 0; s < in->n_sites; s++) out->identity[s] = out->tanimoto[s] = NAN, out->stratum[s] = -1;
  double t0 = sp_spl_now();
  sum->max_cross_identity = -1;
  int rc = identity_scores(path, in, o, side, out->identity, err);
  if (rc) return rc;
  if (ligand_scores(in, side, out->tanimoto)) return sp_err_set(err, SP_E_NOMEM, "%s: out of memory", path);
  for (int64_t s = 0; s < in->n_sites; s++) {
    if (side[s] != SP_SIDE_VAL && side[s] != SP_SIDE_TEST) continue;
    int np = isnan(out->identity[s]) || out->identity[s] < SP_NOVEL_IDENTITY, nl = out->tanimoto[s] < o->max_tanimoto;
    int k = np && nl ? SP_NOVEL_BOTH : np ? SP_NOVEL_PROTEIN : nl ? SP_NOVEL_LIGAND : SP_NOT_NOVEL;
    out->stratum[s] = (int8_t)k;
    sum->strata[side[s] - 1][k]++;
    if (!isnan(out->identity[s]) && out->identity[s] > sum->max_cross_identity)
      sum->max_cross_identity = out->identity[s];
  }
  sum->seconds_scores = sp_spl_now() - t0;
  sum->scored = 1;
  return 0;
}
