/* parse_bench: timing driver of `make bench-parse` (bench/parse_bench.py runs it and gemmi).
 *
 *   parse_bench read REPS FILE...     read every file REPS times into the in-memory model:
 *                                     sp_read_structure_file (file read, SHA-256, inflate, parse)
 *                                     and, on the text already in memory, parse alone
 *                                     (sp_read_structure_text), and read + inflate + parse without
 *                                     the SHA-256 of a plain file (gemmi's work); one JSON object
 *   parse_bench inflate REPS FILE...  whole-file inflate of gzip files with zlib, libdeflate and
 *                                     ISA-L (when built with -DHAVE_LIBDEFLATE / -DHAVE_ISAL),
 *                                     plus sp_gunzip (what sitepack uses); one JSON object
 *   parse_bench peak FILE             read one file once; prints atoms, sp_structure_bytes and
 *                                     the peak RSS (VmHWM) of the process
 *   parse_bench versions              zlib and libdeflate versions it was built with
 *
 * Times are wall-clock seconds (CLOCK_MONOTONIC), per repetition for the whole file list; the
 * Python driver takes medians. Files are read from the page cache (a warm-up pass first). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "sitepack/io.h"
#include "sitepack/read.h"

#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *d = malloc((size_t)n + 1);
  if (!d || fread(d, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(d);
    return NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return d;
}

static void print_times(const char *key, const double *t, int reps) {
  printf("\"%s\": [", key);
  for (int r = 0; r < reps; ++r) printf("%s%.6f", r ? ", " : "", t[r]);
  printf("]");
}

static int cmd_read(int reps, int nf, char **files) {
  sp_structure s;
  sp_structure_init(&s);
  size_t text_bytes = 0, stored_bytes = 0, atoms = 0, model_bytes = 0;
  char **texts = calloc((size_t)nf, sizeof *texts);
  size_t *lens = calloc((size_t)nf, sizeof *lens);
  double *t_file = calloc((size_t)reps, sizeof *t_file), *t_text = calloc((size_t)reps, sizeof *t_text);
  double *t_nohash = calloc((size_t)reps, sizeof *t_nohash);
  if (!texts || !lens || !t_file || !t_text || !t_nohash) return 1;
  /* warm-up, sizes, atoms, model bytes */
  for (int i = 0; i < nf; ++i) {
    sp_buf b = {0};
    sp_err e = {0};
    sp_structure_clear(&s);
    if (sp_read_structure_file(files[i], 0, &b, &s, NULL, &e)) {
      fprintf(stderr, "%s\n", e.msg);
      return 1;
    }
    text_bytes += b.len;
    stored_bytes += b.stored_bytes;
    atoms += s.n_atoms;
    sp_structure fresh; /* bytes of a structure filled from empty (as one file in a task) */
    sp_structure_init(&fresh);
    sp_read_structure_text(b.data, b.len, &fresh, NULL, &e);
    model_bytes += sp_structure_bytes(&fresh);
    sp_structure_free(&fresh);
    texts[i] = b.data; /* keep the text for the parse-only pass */
    lens[i] = b.len;
  }
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    for (int i = 0; i < nf; ++i) {
      sp_buf b = {0};
      sp_err e = {0};
      sp_structure_clear(&s);
      if (sp_read_structure_file(files[i], 0, &b, &s, NULL, &e)) return 1;
      sp_buf_free(&b);
    }
    t_file[r] = now() - t0;
    t0 = now();
    for (int i = 0; i < nf; ++i) {
      sp_err e = {0};
      sp_structure_clear(&s);
      if (sp_read_structure_text(texts[i], lens[i], &s, NULL, &e)) return 1;
    }
    t_text[r] = now() - t0;
    /* the work gemmi.read_structure does: read the file, inflate, parse (no SHA-256 of a plain
     * file; sp_gunzip still hashes the compressed bytes of a gzip file) */
    t0 = now();
    for (int i = 0; i < nf; ++i) {
      size_t n = 0;
      unsigned char *raw = slurp(files[i], &n);
      if (!raw) return 1;
      sp_err e = {0};
      sp_structure_clear(&s);
      if (n >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
        sp_buf b;
        if (sp_gunzip(raw, n, 0, &b, &e) || sp_read_structure_text(b.data, b.len, &s, NULL, &e)) return 1;
        sp_buf_free(&b);
      } else if (sp_read_structure_text((char *)raw, n, &s, NULL, &e)) {
        return 1;
      }
      free(raw);
    }
    t_nohash[r] = now() - t0;
  }
  printf("{\"files\": %d, \"text_bytes\": %zu, \"stored_bytes\": %zu, \"atoms\": %zu, \"model_bytes\": %zu, ", nf,
         text_bytes, stored_bytes, atoms, model_bytes);
  print_times("t_file", t_file, reps);
  printf(", ");
  print_times("t_parse", t_text, reps);
  printf(", ");
  print_times("t_nohash", t_nohash, reps);
  printf("}\n");
  for (int i = 0; i < nf; ++i) free(texts[i]);
  free(texts);
  free(lens);
  free(t_file);
  free(t_text);
  free(t_nohash);
  sp_structure_free(&s);
  return 0;
}

/* zlib, whole buffer, all members; returns inflated bytes or 0 on error */
static size_t zlib_inflate_all(const unsigned char *in, size_t n, unsigned char *out, size_t cap) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return 0;
  size_t ip = 0, op = 0;
  for (;;) {
    z.next_in = (Bytef *)(in + ip);
    z.avail_in = (uInt)(n - ip);
    z.next_out = out + op;
    z.avail_out = (uInt)(cap - op);
    int rc = inflate(&z, Z_FINISH);
    ip = n - z.avail_in;
    op = cap - z.avail_out;
    if (rc != Z_STREAM_END) {
      inflateEnd(&z);
      return 0;
    }
    if (ip + 2 > n || in[ip] != 0x1f) break;
    inflateReset(&z);
  }
  inflateEnd(&z);
  return op;
}

static int cmd_inflate(int reps, int nf, char **files) {
  unsigned char **raw = calloc((size_t)nf, sizeof *raw);
  size_t *rl = calloc((size_t)nf, sizeof *rl), *ol = calloc((size_t)nf, sizeof *ol), maxo = 0, tot_in = 0, tot_out = 0;
  if (!raw || !rl || !ol) return 1;
  for (int i = 0; i < nf; ++i) {
    raw[i] = slurp(files[i], &rl[i]);
    sp_buf b;
    sp_err e = {0};
    if (!raw[i] || sp_gunzip(raw[i], rl[i], 0, &b, &e)) {
      fprintf(stderr, "%s: %s\n", files[i], e.msg);
      return 1;
    }
    ol[i] = b.len;
    sp_buf_free(&b);
    if (ol[i] > maxo) maxo = ol[i];
    tot_in += rl[i];
    tot_out += ol[i];
  }
  unsigned char *out = malloc(maxo + 64);
  if (!out) return 1;
  double *t = calloc((size_t)reps * 4, sizeof *t);
  const char *names[4] = {"zlib", "libdeflate", "isal", "sp_gunzip"};
  int have[4] = {1, 0, 0, 1};
#ifdef HAVE_LIBDEFLATE
  have[1] = 1;
  struct libdeflate_decompressor *ld = libdeflate_alloc_decompressor();
#endif
#ifdef HAVE_ISAL
  have[2] = 1;
#endif
  for (int r = 0; r < reps; ++r)
    for (int m = 0; m < 4; ++m) {
      if (!have[m]) continue;
      double t0 = now();
      for (int i = 0; i < nf; ++i) {
        size_t got = 0;
        if (m == 0) got = zlib_inflate_all(raw[i], rl[i], out, maxo + 64);
#ifdef HAVE_LIBDEFLATE
        if (m == 1) {
          size_t in_used = 0, pos = 0, op = 0;
          while (pos < rl[i]) {
            size_t o = 0;
            if (libdeflate_gzip_decompress_ex(ld, raw[i] + pos, rl[i] - pos, out + op, maxo + 64 - op, &in_used, &o) !=
                LIBDEFLATE_SUCCESS)
              break;
            pos += in_used;
            op += o;
          }
          got = op;
        }
#endif
#ifdef HAVE_ISAL
        if (m == 2) {
          struct inflate_state st;
          isal_inflate_init(&st);
          st.crc_flag = ISAL_GZIP;
          st.next_in = raw[i];
          st.avail_in = (uint32_t)rl[i];
          st.next_out = out;
          st.avail_out = (uint32_t)(maxo + 64);
          int rc = isal_inflate_stateless(&st);
          got = rc == ISAL_DECOMP_OK ? st.total_out : 0;
        }
#endif
        if (m == 3) {
          sp_buf b;
          sp_err e = {0};
          if (!sp_gunzip(raw[i], rl[i], 0, &b, &e)) got = b.len;
          sp_buf_free(&b);
        }
        if (got != ol[i]) {
          fprintf(stderr, "%s: %s inflated %zu bytes, expected %zu\n", files[i], names[m], got, ol[i]);
          return 1;
        }
      }
      t[m * reps + r] = now() - t0;
    }
  printf("{\"files\": %d, \"stored_bytes\": %zu, \"text_bytes\": %zu", nf, tot_in, tot_out);
  for (int m = 0; m < 4; ++m) {
    if (!have[m]) continue;
    printf(", ");
    char k[32];
    snprintf(k, sizeof k, "t_%s", names[m]);
    print_times(k, t + m * reps, reps);
  }
  printf("}\n");
  return 0;
}

/* Peak resident set of this process image (VmHWM of /proc/self/status, KiB): unlike
 * getrusage's ru_maxrss it is not inherited from the parent across fork + exec. -1 if absent. */
static long vm_hwm_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long v = -1;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6)) {
      v = strtol(line + 6, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

static int cmd_peak(const char *path) {
  sp_structure s;
  sp_structure_init(&s);
  sp_buf b = {0};
  sp_err e = {0};
  if (sp_read_structure_file(path, 0, &b, &s, NULL, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  printf("{\"file\": \"%s\", \"text_bytes\": %zu, \"atoms\": %zu, \"model_bytes\": %zu, \"peak_rss_kib\": %ld}\n", path,
         b.len, s.n_atoms, sp_structure_bytes(&s), vm_hwm_kib());
  sp_buf_free(&b);
  sp_structure_free(&s);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "peak")) return cmd_peak(argv[2]);
  if (argc >= 2 && !strcmp(argv[1], "versions")) {
    printf("{\"zlib\": \"%s\"", zlibVersion());
#ifdef HAVE_LIBDEFLATE
    printf(", \"libdeflate\": \"%s\"", LIBDEFLATE_VERSION_STRING);
#endif
    printf("}\n");
    return 0;
  }
  if (argc < 4) {
    fprintf(stderr, "usage: %s read|inflate REPS FILE... | peak FILE\n", argv[0]);
    return 2;
  }
  int reps = atoi(argv[2]);
  if (reps < 1) reps = 1;
  if (!strcmp(argv[1], "read")) return cmd_read(reps, argc - 3, argv + 3);
  if (!strcmp(argv[1], "inflate")) return cmd_inflate(reps, argc - 3, argv + 3);
  return 2;
}
