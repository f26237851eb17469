/* sitepack cluster: protein clusters (MMseqs2) and ligand clusters (Morgan + Butina) of a merged file,
 * written to /clusters (split.h sp_cluster; docs/format.md "/clusters"; docs/usage.md "Splits"). */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sitepack/base.h"
#include "sitepack/split.h"
#include "sitepack/version.h"
#include "derive/split_internal.h"
#include "sitepack/h5util.h"

void sp_cluster_opts_default(sp_cluster_opts *o) {
  memset(o, 0, sizeof *o);
  o->mmseqs = "mmseqs";
  o->id_low = 0.3;
  o->id_high = 0.9;
  o->coverage = 0.8;
  o->tanimoto = 0.5;
  o->threads = 1;
}

/* Everything sp_cluster reads from the file. */
typedef struct cl_in {
  int64_t n_chains, n_sites, n_res, n_atoms, n_bonds, n_lig, n_code;
  char *ctype; size_t ctype_w;            /* /chains/type */
  int64_t *seq_ptr;                       /* /chains/seq_ptr (C+1) */
  uint8_t *code;                          /* /sequences/code */
  int64_t *res_ptr, *atom_ptr, *bond_ptr, *lig_idx;
  int32_t *n_ligand;
  uint8_t *kind, *contact;                /* /residues */
  int64_t *res_chain;
  char *mkey; size_t mkey_w;              /* /ligands/molecule_key */
  uint8_t *elem;                          /* /atoms/element */
  int8_t *charge;                         /* /atoms/formal_charge (version >= 6), else ccd_charge */
  int32_t *b1, *b2; uint8_t *border, *barom;
} cl_in;

static void cl_in_free(cl_in *in) {
  free(in->ctype), free(in->seq_ptr), free(in->code), free(in->res_ptr), free(in->atom_ptr), free(in->bond_ptr);
  free(in->lig_idx), free(in->n_ligand), free(in->kind), free(in->contact), free(in->res_chain), free(in->mkey);
  free(in->elem), free(in->charge), free(in->b1), free(in->b2), free(in->border), free(in->barom);
}

#define RD(dst, name, mt, T, cnt) (!((dst) = (T *)sp_spl_read(f, path, name, mt, sizeof(T), cnt, err)))

static int cl_read(const char *path, cl_in *in, sp_err *err) {
  int64_t ver = 0;
  hid_t f = sp_spl_open_read_version(path, 3, "/chains and /sequences (run a sitepack of format version 3)", &ver, err);
  if (f < 0) return err->cls;
  /* the fingerprint's charges: the file's one formal charge since version 6 (the one the SDF export writes);
     before it, the CCD's charge of the matched atom */
  const char *qcol = ver >= 6 ? "/atoms/formal_charge" : "/atoms/ccd_charge";
  int64_t n1 = 0, n2 = 0, n3 = 0, n4 = 0, n5 = 0, nr[2] = {0, 0}, na = 0, nb[3] = {0, 0, 0};
  int bad = !(in->ctype = sp_spl_read_str(f, path, "/chains/type", &in->ctype_w, &in->n_chains, err)) ||
            RD(in->seq_ptr, "/chains/seq_ptr", H5T_NATIVE_INT64, int64_t, &n1) ||
            RD(in->code, "/sequences/code", H5T_NATIVE_UINT8, uint8_t, &in->n_code) ||
            RD(in->res_ptr, "/sites/residue_ptr", H5T_NATIVE_INT64, int64_t, &n2) ||
            RD(in->atom_ptr, "/sites/atom_ptr", H5T_NATIVE_INT64, int64_t, &n3) ||
            RD(in->bond_ptr, "/sites/bond_ptr", H5T_NATIVE_INT64, int64_t, &n4) ||
            RD(in->lig_idx, "/sites/ligand_idx", H5T_NATIVE_INT64, int64_t, &in->n_sites) ||
            RD(in->n_ligand, "/sites/n_ligand", H5T_NATIVE_INT32, int32_t, &n5) ||
            RD(in->kind, "/residues/kind", H5T_NATIVE_UINT8, uint8_t, &in->n_res) ||
            RD(in->contact, "/residues/contact", H5T_NATIVE_UINT8, uint8_t, &nr[0]) ||
            RD(in->res_chain, "/residues/chain_idx", H5T_NATIVE_INT64, int64_t, &nr[1]) ||
            !(in->mkey = sp_spl_read_str(f, path, "/ligands/molecule_key", &in->mkey_w, &in->n_lig, err)) ||
            RD(in->elem, "/atoms/element", H5T_NATIVE_UINT8, uint8_t, &in->n_atoms) ||
            RD(in->charge, qcol, H5T_NATIVE_INT8, int8_t, &na) ||
            RD(in->b1, "/bonds/atom1", H5T_NATIVE_INT32, int32_t, &in->n_bonds) ||
            RD(in->b2, "/bonds/atom2", H5T_NATIVE_INT32, int32_t, &nb[0]) ||
            RD(in->border, "/bonds/order", H5T_NATIVE_UINT8, uint8_t, &nb[1]) ||
            RD(in->barom, "/bonds/aromatic", H5T_NATIVE_UINT8, uint8_t, &nb[2]);
  H5Fclose(f);
  if (bad) return err->cls;
  /* the index checks the rest relies on (sitepack check does them all; these keep us in bounds) */
  int64_t S = in->n_sites, C = in->n_chains;
  int ok = n1 == C + 1 && n2 == S + 1 && n3 == S + 1 && n4 == S + 1 && n5 == S && nr[0] == in->n_res &&
           nr[1] == in->n_res && na == in->n_atoms && nb[0] == in->n_bonds && nb[1] == in->n_bonds &&
           nb[2] == in->n_bonds;
  ok = ok && in->seq_ptr[0] == 0 && in->seq_ptr[C] <= in->n_code && in->res_ptr[S] <= in->n_res &&
           in->atom_ptr[S] <= in->n_atoms && in->bond_ptr[S] <= in->n_bonds;
  for (int64_t c = 0; ok && c < C; c++) ok = in->seq_ptr[c] <= in->seq_ptr[c + 1];
  for (int64_t s = 0; ok && s < S; s++)
    ok = in->lig_idx[s] >= 0 && in->lig_idx[s] < in->n_lig && in->res_ptr[s] <= in->res_ptr[s + 1] &&
         in->atom_ptr[s] <= in->atom_ptr[s + 1] && in->bond_ptr[s] <= in->bond_ptr[s + 1];
  for (int64_t r = 0; ok && r < in->n_res; r++) ok = in->res_chain[r] < C;
  if (!ok) return sp_err_set(err, SP_E_FORMAT, "%s: inconsistent /sites, /chains, /residues, /atoms or /bonds "
                             "rows or indices (run sitepack check)", path);
  return 0;
}
#undef RD

/* ---- protein: distinct sequences, MMseqs2, chain clusters ---- */

static const cl_in *g_in;
static int is_protein(const cl_in *in, int64_t c) { return !strncmp(in->ctype + c * in->ctype_w, "polypeptide", 11); }

static int cmp_chain_seq(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  int pa = is_protein(g_in, a), pb = is_protein(g_in, b);
  if (pa != pb) return pb - pa;
  int64_t la = g_in->seq_ptr[a + 1] - g_in->seq_ptr[a], lb = g_in->seq_ptr[b + 1] - g_in->seq_ptr[b];
  if (la != lb) return la < lb ? -1 : 1;
  int m = memcmp(g_in->code + g_in->seq_ptr[a], g_in->code + g_in->seq_ptr[b], (size_t)la);
  return m ? m : (a < b ? -1 : a > b);
}

/* uniq[c]: index of the chain's distinct sequence (proteins 0..n_prot-1 first), -1 without one. */
static int cl_unique(const cl_in *in, int64_t *uniq, int64_t *first_chain, int64_t *n_prot, int64_t *n_uniq) {
  int64_t C = in->n_chains, k = 0, *ord = malloc(((size_t)C + 1) * sizeof *ord);
  if (!ord) return SP_E_NOMEM;
  for (int64_t c = 0; c < C; c++) {
    uniq[c] = -1;
    if (in->seq_ptr[c + 1] > in->seq_ptr[c]) ord[k++] = c;
  }
  g_in = in;
  qsort(ord, (size_t)k, sizeof *ord, cmp_chain_seq);
  int64_t u = -1, np = 0;
  for (int64_t i = 0; i < k; i++) {
    int64_t c = ord[i], p = i ? ord[i - 1] : -1;
    int64_t len = in->seq_ptr[c + 1] - in->seq_ptr[c];
    int same = p >= 0 && is_protein(in, p) == is_protein(in, c) && in->seq_ptr[p + 1] - in->seq_ptr[p] == len &&
               !memcmp(in->code + in->seq_ptr[p], in->code + in->seq_ptr[c], (size_t)len);
    if (!same) {
      first_chain[++u] = c;
      if (is_protein(in, c)) np = u + 1;
    }
    uniq[c] = u;
  }
  free(ord);
  *n_prot = np;
  *n_uniq = u + 1;
  return 0;
}

/* Run MMseqs2 easy-cluster on the FASTA at @p id; rep[u] = representative sequence of sequence u. */
static int cl_mmseqs_run(const char *exe, const char *tmp, double id, const sp_cluster_opts *o, int64_t n_prot,
                         int64_t *rep, const char *path, sp_err *err) {
  char fasta[4200], prefix[4200], work[4200], log[4200], a_id[32], a_cov[32], a_thr[32], tsv[4300];
  snprintf(fasta, sizeof fasta, "%s/seqs.fasta", tmp);
  snprintf(prefix, sizeof prefix, "%s/id%03d", tmp, (int)(id * 1000 + 0.5));
  snprintf(work, sizeof work, "%s/work", tmp);
  snprintf(log, sizeof log, "%s/mmseqs.log", tmp);
  snprintf(a_id, sizeof a_id, "%.4f", id);
  snprintf(a_cov, sizeof a_cov, "%.4f", o->coverage);
  snprintf(a_thr, sizeof a_thr, "%d", o->threads > 0 ? o->threads : 1);
  /* Linclust for the high identity (MMseqs2 wiki: linear time, as sensitive as cascaded clustering from ~50 %
   * identity; Steinegger & Soding 2018, Nat. Commun. 9:2542), cascaded clustering below */
  const char *mode = id >= 0.5 ? "easy-linclust" : "easy-cluster";
  /* the coarse level, which the split keeps apart, as connected components (--cluster-mode 1, BLASTclust-like):
   * every pair MMseqs2 aligns at the identity and coverage is in one cluster; the fine level greedy set cover */
  char a_s[32];
  snprintf(a_s, sizeof a_s, "%.2f", o->sensitivity);
  int with_s = id < 0.5 && o->sensitivity > 0;
  char *argv[] = {(char *)exe, (char *)mode, fasta, prefix, work, "--min-seq-id", a_id, "-c", a_cov,
                  "--cov-mode", "0", "--cluster-mode", id >= 0.5 ? "0" : "1", "--threads", a_thr, "-v", "1",
                  with_s ? "-s" : NULL, a_s, NULL};
  int st = sp_spl_spawn(exe, argv, log);
  if (st != 0) {
    char tail[400];
    sp_spl_log_tail(log, tail, sizeof tail);
    return sp_err_set(err, SP_E_IO, "%s: mmseqs %s --min-seq-id %s failed (exit status %d): %s", path, mode,
                      a_id, st, tail);
  }
  snprintf(tsv, sizeof tsv, "%s_cluster.tsv", prefix);
  FILE *f = fopen(tsv, "r");
  if (!f) return sp_err_set(err, SP_E_IO, "%s: mmseqs wrote no %s", path, tsv);
  for (int64_t u = 0; u < n_prot; u++) rep[u] = u;
  long long r, m;
  while (fscanf(f, " u%lld u%lld", &r, &m) == 2)
    if (r >= 0 && m >= 0 && r < n_prot && m < n_prot) rep[m] = r;
  fclose(f);
  return 0;
}

static int cl_write_fasta(const char *tmp, const cl_in *in, const int64_t *first_chain, int64_t n_prot) {
  char p[4200];
  snprintf(p, sizeof p, "%s/seqs.fasta", tmp);
  FILE *f = fopen(p, "w");
  if (!f) return -1;
  for (int64_t u = 0; u < n_prot; u++) {
    int64_t c = first_chain[u];
    fprintf(f, ">u%lld\n%.*s\n", (long long)u, (int)(in->seq_ptr[c + 1] - in->seq_ptr[c]),
            (const char *)in->code + in->seq_ptr[c]);
  }
  return fclose(f) ? -1 : 0;
}

/* Chain clusters at both identities: ccl[0][c], ccl[1][c] numbered by first chain row; -1 without sequence. */
static int cl_protein(const char *path, const cl_in *in, const sp_cluster_opts *o, int64_t *ccl[2],
                      sp_cluster_summary *sum, sp_err *err) {
  int64_t C = in->n_chains, np = 0, nu = 0;
  int64_t *uniq = malloc(((size_t)C + 1) * sizeof *uniq), *first = malloc(((size_t)C + 1) * sizeof *first);
  int64_t *rep = malloc(((size_t)C + 1) * sizeof *rep), *canon = malloc(((size_t)C + 1) * sizeof *canon);
  int rc = SP_E_NOMEM;
  char exe[4096], dir[4096], tmp[4200];
  tmp[0] = '\0';
  if (!uniq || !first || !rep || !canon || cl_unique(in, uniq, first, &np, &nu)) goto done;
  for (int64_t c = 0; c < C; c++) sum->n_protein_chains += uniq[c] >= 0 && uniq[c] < np;
  sum->n_sequences = np;
  rc = 0;
  if (sp_spl_find_exe(o->mmseqs, exe, sizeof exe)) {
    if (strchr(o->mmseqs, '/'))
      rc = sp_err_set(err, SP_E_NOT_FOUND, "%s: --mmseqs %s is not an executable file", path, o->mmseqs);
    else
      rc = sp_err_set(err, SP_E_NOT_FOUND, "%s: mmseqs2 not found ('%s' in PATH): apt-get install mmseqs2, or "
                      "--mmseqs PATH", path, o->mmseqs);
    goto done;
  }
  snprintf(dir, sizeof dir, "%s", path);
  char *sl = strrchr(dir, '/');
  if (sl) *sl = '\0';
  else snprintf(dir, sizeof dir, ".");
  snprintf(tmp, sizeof tmp, "%s/.sitepack-cluster-XXXXXX", dir);
  if (!mkdtemp(tmp)) {
    rc = sp_err_set(err, SP_E_IO, "%s: cannot make a temporary folder in %s", path, dir);
    tmp[0] = '\0';
    goto done;
  }
  char vlog[4300];
  snprintf(vlog, sizeof vlog, "%s/version.txt", tmp);
  char *vargv[] = {exe, "version", NULL};
  if (sp_spl_spawn(exe, vargv, vlog) == 0) {
    FILE *vf = fopen(vlog, "r");
    if (vf && fgets(sum->mmseqs_version, sizeof sum->mmseqs_version, vf))
      sum->mmseqs_version[strcspn(sum->mmseqs_version, "\r\n")] = '\0';
    if (vf) fclose(vf);
  }
  if (np && cl_write_fasta(tmp, in, first, np)) {
    rc = sp_err_set(err, SP_E_IO, "%s: cannot write %s/seqs.fasta", path, tmp);
    goto done;
  }
  for (int lvl = 0; lvl < 2; lvl++) {
    double id = lvl ? o->id_high : o->id_low;
    if (np && (rc = cl_mmseqs_run(exe, tmp, id, o, np, rep, path, err))) goto done;
    for (int64_t u = np; u < nu; u++) rep[u] = u; /* other polymers: identical sequences */
    for (int64_t u = 0; u < nu; u++) canon[u] = -1;
    int64_t next = 0, n_prot = 0;
    for (int64_t c = 0; c < C; c++) {
      if (uniq[c] < 0) {
        ccl[lvl][c] = -1;
        continue;
      }
      int64_t r = rep[uniq[c]];
      if (canon[r] < 0) canon[r] = next++, n_prot += r < np; /* a protein's representative is a protein */
      ccl[lvl][c] = canon[r];
    }
    if (lvl) sum->n_clusters_high = next, sum->n_protein_clusters_high = n_prot;
    else sum->n_clusters_low = next, sum->n_protein_clusters_low = n_prot;
  }
done:
  if (tmp[0] && !o->keep_tmp) sp_spl_rmtree(tmp);
  free(uniq), free(first), free(rep), free(canon);
  return rc;
}

/* The chain of each site: most contact residues, else most polymer residues, ties to the lower row; -1 none.
 * @p buf: room for the largest site's residues. */
static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

static void cl_site_chain(const cl_in *in, const int64_t *ccl, int64_t *site_chain, int64_t *n_none, int64_t *buf) {
  for (int64_t s = 0; s < in->n_sites; s++) {
    size_t k = 0;
    for (int64_t r = in->res_ptr[s]; r < in->res_ptr[s + 1]; r++) {
      int64_t c = in->res_chain[r];
      if (in->kind[r] == 1 && c >= 0 && ccl[c] >= 0) buf[k++] = 2 * c + (in->contact[r] != 0);
    }
    qsort(buf, k, sizeof *buf, cmp_i64);
    int64_t best = -1, best_c = -1, best_n = -1;
    for (size_t i = 0; i < k;) {
      int64_t c = buf[i] / 2, nc = 0, nn = 0;
      for (; i < k && buf[i] / 2 == c; i++) nc += buf[i] & 1, nn++;
      if (nc > best_c || (nc == best_c && nn > best_n)) best = c, best_c = nc, best_n = nn; /* rows ascend */
    }
    site_chain[s] = best;
    *n_none += best < 0;
  }
}

/* ---- ligands: one fingerprint per distinct molecule, Butina ---- */

static int cl_keyless(const cl_in *in, int64_t s) { return in->mkey[in->lig_idx[s] * in->mkey_w] == '\0'; }

static int cmp_site_key(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  int ka = cl_keyless(g_in, a), kb = cl_keyless(g_in, b);
  if (ka != kb) return ka - kb; /* sites without a key after every key */
  if (!ka) {
    int m = memcmp(g_in->mkey + g_in->lig_idx[a] * g_in->mkey_w, g_in->mkey + g_in->lig_idx[b] * g_in->mkey_w,
                   g_in->mkey_w);
    if (m) return m;
  }
  return a < b ? -1 : a > b;
}

static int64_t cl_heavy(const cl_in *in, int64_t s) {
  int64_t h = 0;
  for (int64_t a = in->atom_ptr[s]; a < in->atom_ptr[s] + in->n_ligand[s] && a < in->atom_ptr[s + 1]; a++)
    h += in->elem[a] != 1;
  return h;
}

/* Fingerprint of site @p s's ligand (its first n_ligand atoms and the /bonds rows among them). */
static int cl_site_fp(const cl_in *in, int64_t s, uint64_t *fp) {
  int64_t a0 = in->atom_ptr[s], nl = in->n_ligand[s], b0 = in->bond_ptr[s], nb = in->bond_ptr[s + 1] - b0;
  if (nl > in->atom_ptr[s + 1] - a0) nl = in->atom_ptr[s + 1] - a0;
  if (nl < 0) nl = 0;
  int32_t *x = malloc(((size_t)nb + 1) * 2 * sizeof *x);
  uint8_t *ord = malloc((size_t)nb + 1), *ar = malloc((size_t)nb + 1);
  int rc = SP_E_NOMEM;
  if (x && ord && ar) {
    int k = 0;
    for (int64_t b = b0; b < b0 + nb; b++) {
      if (in->b2[b] >= nl || in->b1[b] < 0) continue; /* a link to a site atom */
      x[k] = in->b1[b], x[nb + 1 + k] = in->b2[b], ord[k] = in->border[b], ar[k] = in->barom[b];
      k++;
    }
    rc = sp_morgan_fp((int)nl, in->elem + a0, in->charge + a0, k, x, x + nb + 1, ord, ar, 2, fp);
  }
  free(x), free(ord), free(ar);
  return rc;
}

/* site_mol[s]: the site's molecule (molecule-key order); site_lcl[s]: its ligand cluster by first site; *fps:
 * M * SP_FP_WORDS words (caller frees). */
static int cl_ligand(const cl_in *in, double thr, int64_t *site_mol, int64_t *site_lcl, uint64_t **fps_out,
                     int64_t *n_mol, int64_t *n_cl) {
  int64_t S = in->n_sites, M = 0, nc = 0;
  int64_t *ord = malloc(((size_t)S + 1) * sizeof *ord), *rep = malloc(((size_t)S + 1) * sizeof *rep);
  int64_t *mcl = malloc(((size_t)S + 1) * sizeof *mcl), *canon = malloc(((size_t)S + 1) * sizeof *canon);
  uint64_t *fps = NULL;
  int rc = SP_E_NOMEM;
  if (!ord || !rep || !mcl || !canon) goto done;
  for (int64_t s = 0; s < S; s++) ord[s] = s;
  g_in = in;
  qsort(ord, (size_t)S, sizeof *ord, cmp_site_key);
  int64_t best_h = -1;
  for (int64_t i = 0; i < S; i++) {
    int64_t s = ord[i], p = i ? ord[i - 1] : -1;
    int same = p >= 0 && !cl_keyless(in, s) && !cl_keyless(in, p) &&
               !memcmp(in->mkey + in->lig_idx[s] * in->mkey_w, in->mkey + in->lig_idx[p] * in->mkey_w, in->mkey_w);
    if (!same) rep[M++] = s, best_h = -1;
    int64_t h = cl_heavy(in, s);
    if (h > best_h) rep[M - 1] = s, best_h = h; /* sites of a key ascend: the first of the most heavy atoms */
    site_mol[s] = M - 1;
  }
  fps = calloc((size_t)M * SP_FP_WORDS + 1, sizeof *fps);
  if (!fps) goto done;
  for (int64_t m = 0; m < M; m++)
    if ((rc = cl_site_fp(in, rep[m], fps + m * SP_FP_WORDS))) goto done;
  if ((rc = sp_butina((size_t)M, fps, thr, mcl, &nc))) goto done;
  for (int64_t c = 0; c < nc; c++) canon[c] = -1;
  int64_t next = 0;
  for (int64_t s = 0; s < S; s++) {
    int64_t c = mcl[site_mol[s]];
    if (canon[c] < 0) canon[c] = next++;
    site_lcl[s] = canon[c];
  }
  *fps_out = fps;
  fps = NULL;
  *n_mol = M;
  *n_cl = nc;
  rc = 0;
done:
  free(ord), free(rep), free(mcl), free(canon), free(fps);
  return rc;
}

/* ---- writing /clusters ---- */

typedef struct cl_out {
  int64_t *ccl[2], *scl[2], *site_chain, *site_mol, *site_lcl;
  uint64_t *fps;
  int64_t n_mol;
} cl_out;

static int cl_attrs_protein(hid_t d, const sp_cluster_opts *o, double id, const char *mm_version) {
  return d < 0 || sp_h5_attr_vstr(d, "method", id >= 0.5 ? "mmseqs2 easy-linclust (polypeptide chains); identical "
                                 "sequence (other polymers)" : "mmseqs2 easy-cluster (polypeptide chains); identical sequence "
                                 "(other polymers)") < 0 ||
         sp_h5_attr_f64(d, "identity", id) < 0 || sp_h5_attr_f64(d, "coverage", o->coverage) < 0 ||
         sp_h5_attr_vstr(d, "cov_mode", "0") < 0 || sp_h5_attr_vstr(d, "mmseqs_version", mm_version) < 0 ||
         sp_h5_attr_vstr(d, "cluster_mode", id >= 0.5 ? "0 (set cover)" : "1 (connected component)") < 0 ||
         (id < 0.5 && sp_h5_attr_f64(d, "sensitivity", o->sensitivity > 0 ? o->sensitivity : 4.0) < 0)
             ? -1 : 0;
}

static int cl_attrs_ligand(hid_t d, const sp_cluster_opts *o) {
  return d < 0 || sp_h5_attr_vstr(d, "method", "butina") < 0 ||
         sp_h5_attr_vstr(d, "fingerprint", "morgan-style radius 2, 2048 bits (sitepack, split.h sp_morgan_fp)") < 0 ||
         sp_h5_attr_f64(d, "threshold", o->tanimoto) < 0 || sp_h5_attr_i64(d, "radius", 2) < 0 ||
         sp_h5_attr_i64(d, "n_bits", SP_FP_BITS) < 0
             ? -1 : 0;
}

/* The fingerprints as (M, 256) uint8: bit i of a fingerprint is bit i % 8 of byte i / 8. */
static int cl_write_fps(hid_t g, const cl_out *co) {
  size_t nbyte = SP_FP_BITS / 8;
  uint8_t *b = malloc((size_t)co->n_mol * nbyte + 1);
  if (!b) return -1;
  for (int64_t m = 0; m < co->n_mol; m++)
    for (size_t k = 0; k < nbyte; k++) b[(size_t)m * nbyte + k] = (uint8_t)(co->fps[m * SP_FP_WORDS + k / 8] >> (8 * (k % 8)));
  hsize_t dims[2] = {(hsize_t)co->n_mol, nbyte};
  hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), d = -1;
  if (sp >= 0 && dcpl >= 0 && H5Pset_layout(dcpl, H5D_CONTIGUOUS) >= 0 &&
      H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
      H5Pset_obj_track_times(dcpl, 0) >= 0)
    d = H5Dcreate2(g, "fingerprint", H5T_STD_U8LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  int rc = d >= 0 && (!co->n_mol || H5Dwrite(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) >= 0) &&
                   sp_h5_attr_vstr(d, "units", "1") >= 0 &&
                   sp_h5_attr_vstr(d, "bit_order", "bit i is bit i % 8 of byte i / 8") >= 0 &&
                   sp_h5_attr_vstr(d, "description", "Morgan-style radius-2 2048-bit fingerprint of each distinct "
                                   "molecule (rows: /clusters/ligand_molecule), 256 bytes a row") >= 0
               ? 0 : -1;
  if (d >= 0) H5Dclose(d);
  if (sp >= 0) H5Sclose(sp);
  if (dcpl >= 0) H5Pclose(dcpl);
  free(b);
  return rc;
}

static int cl_write(const char *path, const cl_in *in, const sp_cluster_opts *o, const cl_out *co,
                    const sp_cluster_summary *sum, sp_err *err) {
  hid_t f = -1;
  hid_t g = sp_spl_open_group(path, "/clusters", o->force, &f, err);
  if (g < 0) return err->cls;
  /* splits made from the clusters replaced here would no longer hold: they go with them */
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  if ((H5Lexists(f, "/splits", H5P_DEFAULT) > 0 && H5Ldelete(f, "/splits", H5P_DEFAULT) < 0) ||
      (H5Lexists(f, "/split_scores", H5P_DEFAULT) > 0 && H5Ldelete(f, "/split_scores", H5P_DEFAULT) < 0)) {
    sp_h5_quiet_end(&q);
    H5Gclose(g);
    H5Fclose(f);
    return sp_h5_fail(err, "delete /splits", path);
  }
  sp_h5_quiet_end(&q);
  char nm[2][32], chn[2][40];
  for (int l = 0; l < 2; l++) {
    snprintf(nm[l], sizeof nm[l], "protein_%d", (int)((l ? o->id_high : o->id_low) * 100 + 0.5));
    snprintf(chn[l], sizeof chn[l], "chain_%s", nm[l]);
  }
  int bad = sp_h5_attr_vstr(g, "protein_low", nm[0]) < 0 || sp_h5_attr_vstr(g, "protein_high", nm[1]) < 0 ||
            sp_h5_attr_vstr(g, "tool_version", SP_VERSION) < 0 || sp_h5_attr_vstr(g, "git_sha", SP_GIT_SHA) < 0 ||
            sp_h5_attr_vstr(g, "mmseqs_version", sum->mmseqs_version) < 0;
  for (int l = 0; l < 2 && !bad; l++) {
    double id = l ? o->id_high : o->id_low;
    hid_t d = sp_spl_write(g, chn[l], H5T_STD_I64LE, H5T_NATIVE_INT64, in->n_chains, co->ccl[l], "1", NULL);
    bad = cl_attrs_protein(d, o, id, sum->mmseqs_version) < 0 || sp_h5_attr_vstr(d, "missing", "-1: no sequence") < 0 ||
          sp_h5_attr_vstr(d, "description", l ? "fine protein cluster of each /chains row (the high identity)"
                                              : "coarse protein cluster of each /chains row (the low identity)") < 0;
    if (d >= 0) H5Dclose(d);
    d = bad ? -1 : sp_spl_write(g, nm[l], H5T_STD_I64LE, H5T_NATIVE_INT64, in->n_sites, co->scl[l], "1", NULL);
    bad = bad || cl_attrs_protein(d, o, id, sum->mmseqs_version) < 0 ||
          sp_h5_attr_vstr(d, "site_rule", "the cluster of /clusters/site_chain") < 0 ||
          sp_h5_attr_vstr(d, "description", "protein cluster of each /sites row: the cluster of its site_chain") < 0 ||
          sp_h5_attr_vstr(d, "missing", "-1: the site touches no polymer chain with a sequence") < 0;
    if (d >= 0) H5Dclose(d);
  }
  hid_t d = bad ? -1 : sp_spl_write(g, "site_chain", H5T_STD_I64LE, H5T_NATIVE_INT64, in->n_sites, co->site_chain, "1", NULL);
  bad = bad || d < 0 || sp_h5_attr_vstr(d, "rule", "the /chains row with most contact residues of the site, else most "
                                       "polymer residues, ties to the lower row; -1 none") < 0 ||
                sp_h5_attr_vstr(d, "description", "the chain of each /sites row: a global row of /chains") < 0 ||
                sp_h5_attr_vstr(d, "missing", "-1: the site touches no polymer chain with a sequence") < 0;
  if (d >= 0) H5Dclose(d);
  d = bad ? -1 : sp_spl_write(g, "ligand", H5T_STD_I64LE, H5T_NATIVE_INT64, in->n_sites, co->site_lcl, "1", NULL);
  bad = bad || cl_attrs_ligand(d, o) < 0 ||
        sp_h5_attr_vstr(d, "description", "ligand cluster (Butina) of each /sites row, numbered 0.. by first site") < 0;
  if (d >= 0) H5Dclose(d);
  d = bad ? -1 : sp_spl_write(g, "ligand_molecule", H5T_STD_I64LE, H5T_NATIVE_INT64, in->n_sites, co->site_mol, "1", NULL);
  bad = bad || d < 0 || sp_h5_attr_vstr(d, "rule", "row of /clusters/fingerprint: the distinct molecule key, in byte "
                                       "order, sites without a key last, each its own") < 0 ||
                sp_h5_attr_vstr(d, "description", "row of /clusters/fingerprint of each /sites row's ligand") < 0;
  if (d >= 0) H5Dclose(d);
  bad = bad || cl_write_fps(g, co) < 0;
  int rc = bad ? sp_h5_fail(err, "write /clusters", path) : 0;
  H5Gclose(g);
  if (H5Fclose(f) < 0 && !rc) rc = sp_h5_fail(err, "close", path);
  return rc;
}

static int cl_check_opts(const char *path, const sp_cluster_opts *o, sp_err *err) {
  if (!(o->id_low > 0 && o->id_low <= 1 && o->id_high > 0 && o->id_high <= 1 && o->coverage >= 0 &&
        o->coverage <= 1 && o->tanimoto > 0 && o->tanimoto <= 1 && o->sensitivity >= 0 && o->sensitivity <= 10))
    return sp_err_set(err, SP_E_INVALID, "%s: identities must be in (0, 1], coverage in [0, 1], tanimoto in (0, 1]",
                      path);
  if ((int)(o->id_low * 100 + 0.5) == (int)(o->id_high * 100 + 0.5))
    return sp_err_set(err, SP_E_INVALID, "%s: the two identities name the same column protein_%d", path,
                      (int)(o->id_low * 100 + 0.5));
  return 0;
}

int sp_cluster(const char *path, const sp_cluster_opts *o, sp_cluster_summary *sum, sp_err *err) {
  memset(sum, 0, sizeof *sum);
  double t0 = sp_spl_now();
  cl_in in;
  memset(&in, 0, sizeof in);
  cl_out co;
  memset(&co, 0, sizeof co);
  int rc = cl_check_opts(path, o, err);
  if (!rc) rc = cl_read(path, &in, err);
  if (!rc && !o->force) {
    hid_t f = sp_spl_open_read(path, 3, "/chains", err);
    int there = f >= 0 && H5Lexists(f, "/clusters", H5P_DEFAULT) > 0;
    if (f >= 0) H5Fclose(f);
    if (there) rc = sp_err_set(err, SP_E_INVALID, "%s: /clusters exists (rerun with --force to replace it)", path);
  }
  if (rc) goto done;
  sum->n_sites = in.n_sites;
  sum->n_chains = in.n_chains;
  double t1 = sp_spl_now();
  sum->seconds_read = t1 - t0;
  size_t S1 = (size_t)in.n_sites + 1, C1 = (size_t)in.n_chains + 1;
  int64_t maxres = 1;
  for (int64_t s = 0; s < in.n_sites; s++)
    if (in.res_ptr[s + 1] - in.res_ptr[s] > maxres) maxres = in.res_ptr[s + 1] - in.res_ptr[s];
  int64_t *buf = malloc((size_t)maxres * sizeof *buf);
  co.ccl[0] = malloc(C1 * 8), co.ccl[1] = malloc(C1 * 8), co.scl[0] = malloc(S1 * 8), co.scl[1] = malloc(S1 * 8);
  co.site_chain = malloc(S1 * 8), co.site_mol = malloc(S1 * 8), co.site_lcl = malloc(S1 * 8);
  if (!buf || !co.ccl[0] || !co.ccl[1] || !co.scl[0] || !co.scl[1] || !co.site_chain || !co.site_mol || !co.site_lcl) {
    free(buf);
    rc = sp_err_set(err, SP_E_NOMEM, "%s: out of memory", path);
    goto done;
  }
  if ((rc = cl_protein(path, &in, o, co.ccl, sum, err))) {
    free(buf);
    goto done;
  }
  double t2 = sp_spl_now();
  sum->seconds_mmseqs = t2 - t1;
  cl_site_chain(&in, co.ccl[0], co.site_chain, &sum->n_sites_no_chain, buf);
  free(buf);
  for (int64_t s = 0; s < in.n_sites; s++)
    for (int l = 0; l < 2; l++) co.scl[l][s] = co.site_chain[s] < 0 ? -1 : co.ccl[l][co.site_chain[s]];
  if ((rc = cl_ligand(&in, o->tanimoto, co.site_mol, co.site_lcl, &co.fps, &co.n_mol, &sum->n_ligand_clusters))) {
    sp_err_set(err, rc, "%s: ligand fingerprints: out of memory", path);
    goto done;
  }
  sum->n_molecules = co.n_mol;
  double t3 = sp_spl_now();
  sum->seconds_ligand = t3 - t2;
  rc = cl_write(path, &in, o, &co, sum, err);
  sum->seconds_write = sp_spl_now() - t3;
done:
  cl_in_free(&in);
  free(co.ccl[0]), free(co.ccl[1]), free(co.scl[0]), free(co.scl[1]), free(co.site_chain), free(co.site_mol);
  free(co.site_lcl), free(co.fps);
  sum->seconds_total = sp_spl_now() - t0;
  return rc;
}
