/* CCD benchmark (issue 4): index throughput of plain and gzip CCD text, open time, component
 * lookup + parse time (cold: first use, parsed; warm: cached), and the in-process peers that
 * bound it: a plain read of the file and zlib inflate alone (sp_gunzip).
 * Every timing is the median of REPS runs (default 5). Prints one JSON object on stdout.
 * usage: ccd_bench PLAIN.cif GZ.cif.gz [REPS] [N_LOOKUPS] */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sitepack/ccd.h"
#include "sitepack/io.h"

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
static double pct(double *v, int n, double p) { /* v sorted */
  int i = (int)(p * (n - 1) + 0.5);
  return v[i];
}

/* CPU seconds of this process (user + system): less sensitive than wall time to other load */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const sp_err *e) {
  fprintf(stderr, "ccd_bench: %s: %s\n", what, e->msg);
  exit(1);
}

/* whole file into memory, no hashing: the read bound */
static double time_read(const char *path, size_t *bytes) {
  double t0 = sp_now();
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    perror(path);
    exit(1);
  }
  char *b = malloc((size_t)st.st_size + 1);
  size_t n = 0;
  ssize_t r;
  while (b && (r = read(fd, b + n, (size_t)st.st_size - n)) > 0) n += (size_t)r;
  close(fd);
  double t = sp_now() - t0;
  free(b);
  *bytes = n;
  return t;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s PLAIN.cif GZ.cif.gz [REPS] [N_LOOKUPS]\n", argv[0]);
    return 2;
  }
  const char *paths[2] = {argv[1], argv[2]};
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  int nlook = argc > 4 ? atoi(argv[4]) : 2000;
  if (reps < 1 || reps > 100 || nlook < 1 || nlook > 1000000) return 2;
  double *t = calloc((size_t)reps, sizeof *t), *cpu = calloc((size_t)reps, sizeof *cpu);
  double *lc = calloc((size_t)nlook, sizeof *lc), *lw = calloc((size_t)nlook, sizeof *lw);
  sp_err err = {0};
  printf("{\n  \"reps\": %d,\n  \"n_lookups\": %d,\n", reps, nlook);
  for (int k = 0; k < 2; ++k) {
    const char *path = paths[k];
    const char *name = k ? "gz" : "plain";
    size_t stored = 0;
    /* read bound (page cache warm after the first) */
    for (int r = 0; r < reps; ++r) t[r] = time_read(path, &stored);
    double t_read = median(t, reps);
    /* inflate alone (gz): the bound of a gz open */
    double t_inflate = 0, c_inflate = 0;
    if (k) {
      int fd = open(path, O_RDONLY);
      char *raw = malloc(stored);
      size_t n = 0;
      ssize_t rr;
      while (fd >= 0 && raw && (rr = read(fd, raw + n, stored - n)) > 0) n += (size_t)rr;
      if (fd >= 0) close(fd);
      for (int r = 0; r < reps; ++r) {
        sp_buf b = {0};
        double t0 = sp_now(), c0 = cpu_now();
        if (sp_gunzip(raw, n, 0, &b, &err)) die("gunzip", &err);
        t[r] = sp_now() - t0;
        cpu[r] = cpu_now() - c0;
        sp_buf_free(&b);
      }
      t_inflate = median(t, reps);
      c_inflate = median(cpu, reps);
      free(raw);
    }
    /* open = read (+ inflate) + index + hash table */
    size_t text = 0, nblocks = 0;
    for (int r = 0; r < reps; ++r) {
      sp_ccd *c = NULL;
      double t0 = sp_now(), c0 = cpu_now();
      if (sp_ccd_open(path, &c, &err)) die(path, &err);
      t[r] = sp_now() - t0;
      cpu[r] = cpu_now() - c0;
      text = sp_ccd_text_bytes(c);
      nblocks = sp_ccd_get_index(c)->n;
      sp_ccd_close(c);
    }
    double t_open = median(t, reps), c_open = median(cpu, reps);
    /* mapped open (plain; gz is inflated from the mapping) */
    double t_mapped = 0, c_mapped = 0;
    if (!k) {
      for (int r = 0; r < reps; ++r) {
        sp_ccd *c = NULL;
        double t0 = sp_now(), c0 = cpu_now();
        if (sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_MAPPED, .path = path}, &c, &err)) die(path, &err);
        t[r] = sp_now() - t0;
        cpu[r] = cpu_now() - c0;
        sp_ccd_close(c);
      }
      t_mapped = median(t, reps);
      c_mapped = median(cpu, reps);
    }
    /* index alone, on the text in memory */
    sp_ccd *c = NULL;
    if (sp_ccd_open(path, &c, &err)) die(path, &err);
    const char *txt = sp_ccd_text(c);
    for (int r = 0; r < reps; ++r) {
      sp_ccd_index idx;
      double t0 = sp_now(), c0 = cpu_now();
      if (sp_ccd_index_build(txt, text, &idx, NULL, &err)) die("index", &err);
      t[r] = sp_now() - t0;
      cpu[r] = cpu_now() - c0;
      sp_ccd_index_free(&idx);
    }
    double t_index = median(t, reps), c_index = median(cpu, reps);
    /* borrowed open: index + hash table on text already in memory (what a rank of a node does) */
    for (int r = 0; r < reps; ++r) {
      sp_ccd *b = NULL;
      double t0 = sp_now(), c0 = cpu_now();
      if (sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_BORROWED, .text = txt, .len = text},
          &b, &err)) die("borrowed", &err);
      t[r] = sp_now() - t0;
      cpu[r] = cpu_now() - c0;
      sp_ccd_close(b);
    }
    double t_borrowed = median(t, reps), c_borrowed = median(cpu, reps);
    /* lookups: nlook distinct blocks in a fixed pseudo-random order; cold = first sp_ccd_get
     * (hash lookup + parse), warm = second (cache) */
    const sp_ccd_index *ix = sp_ccd_get_index(c);
    uint64_t s = 88172645463325252ull;
    size_t nl = (size_t)nlook < ix->n ? (size_t)nlook : ix->n;
    size_t *pick = malloc(nl * sizeof *pick);
    size_t atoms = 0;
    for (size_t i = 0; i < nl; ++i) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      pick[i] = (size_t)(s % ix->n);
    }
    for (size_t i = 0; i < nl; ++i) {
      double t0 = sp_now();
      const sp_component *cc = sp_ccd_get(c, ix->ids[pick[i]], &err);
      lc[i] = (sp_now() - t0) * 1e6;
      if (!cc) die(ix->ids[pick[i]], &err);
      atoms += cc->n_atoms;
    }
    for (size_t i = 0; i < nl; ++i) {
      double t0 = sp_now();
      const sp_component *cc = sp_ccd_get(c, ix->ids[pick[i]], &err);
      lw[i] = (sp_now() - t0) * 1e6;
      if (!cc) die("warm", &err);
    }
    /* HEM cold in a fresh CCD (a 75-atom real component) */
    double t_hem[16];
    int nh = reps < 16 ? reps : 16;
    for (int r = 0; r < nh; ++r) {
      sp_ccd *b = NULL;
      if (sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_BORROWED, .text = txt, .len = text},
          &b, &err)) die("borrowed", &err);
      double t0 = sp_now();
      if (!sp_ccd_get(b, "HEM", &err)) die("HEM", &err);
      t_hem[r] = (sp_now() - t0) * 1e6;
      sp_ccd_close(b);
    }
    double hem = median(t_hem, nh);
    double cold_mean = 0;
    for (size_t i = 0; i < nl; ++i) cold_mean += lc[i];
    cold_mean /= (double)nl;
    double cold_med = median(lc, (int)nl), cold_p90 = pct(lc, (int)nl, 0.9), cold_max = lc[nl - 1];
    double warm_med = median(lw, (int)nl), warm_p90 = pct(lw, (int)nl, 0.9);
    sp_ccd_close(c);
    free(pick);
    double gb = (double)text / 1e9;
    printf("  \"%s\": {\"path\": \"%s\", \"stored_bytes\": %zu, \"text_bytes\": %zu, \"blocks\": %zu,\n", name, path,
           stored, text, nblocks);
    printf("    \"read_s\": %.4f, \"inflate_s\": %.4f, \"open_s\": %.4f, \"open_mapped_s\": %.4f, \"index_s\": %.4f, "
           "\"open_borrowed_s\": %.4f,\n",
           t_read, t_inflate, t_open, t_mapped, t_index, t_borrowed);
    printf("    \"index_gb_per_s\": %.3f, \"open_gb_per_s\": %.3f, \"open_mapped_gb_per_s\": %.3f, "
           "\"open_borrowed_gb_per_s\": %.3f, \"open_over_inflate\": %.3f, \"open_over_read\": %.3f,\n",
           gb / t_index, gb / t_open, t_mapped > 0 ? gb / t_mapped : 0.0, gb / t_borrowed,
           t_inflate > 0 ? t_open / t_inflate : 0.0, t_open / t_read);
    printf("    \"cpu_s\": {\"inflate\": %.4f, \"open\": %.4f, \"open_mapped\": %.4f, \"index\": %.4f, "
           "\"open_borrowed\": %.4f, \"index_gb_per_s\": %.3f, \"open_over_inflate\": %.3f},\n",
           c_inflate, c_open, c_mapped, c_index, c_borrowed, gb / c_index, c_inflate > 0 ? c_open / c_inflate : 0.0);
    printf("    \"lookup_cold_us\": {\"median\": %.2f, \"mean\": %.2f, \"p90\": %.2f, \"max\": %.1f, \"mean_atoms\": %.1f},\n",
           cold_med, cold_mean, cold_p90, cold_max, (double)atoms / (double)nl);
    printf("    \"lookup_warm_us\": {\"median\": %.3f, \"p90\": %.3f}, \"hem_cold_us\": %.2f}%s\n", warm_med, warm_p90, hem,
           k ? "" : ",");
  }
  printf("}\n");
  free(t);
  free(cpu);
  free(lc);
  free(lw);
  return 0;
}
