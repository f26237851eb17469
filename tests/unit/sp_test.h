/* sp_test.h: the helpers shared by the C unit tests (tests/unit/test_*.c), header-only.
 *
 * Include it once, from the test's main source file (each file gets its own counters):
 *
 *   #include "sp_test.h"
 *   ...
 *   CHECK(rc == 0, "%s: read failed: %s", path, err.msg);  // condition + printf-style message
 *   CHECK(n > 0);                                          // condition only
 *   if (bad) FAIL("%s: unexpected %d", name, v);           // unconditional failure
 *   ...
 *   return sp_test_done("test_name");                      // summary line, exit status 0 / 1
 *
 * Counters: g_checks counts every CHECK / FAIL run, g_fail those that failed. A test may read
 * them (e.g. to stop early, or to sum them over MPI ranks).
 *
 * Failure output (stderr), one line per failed check:
 *   FAIL file.c:123: <condition as written>: <message>
 * A test can put context in front of that line by defining SP_TEST_PREFIX() before including
 * this header, as a statement that prints to stderr, e.g. the MPI rank:
 *   #define SP_TEST_PREFIX() fprintf(stderr, "[rank %d] ", g_rank)
 *
 * File helpers: slurp() reads a whole file; write_file() writes one or exits(2).
 * If <zlib.h> is included before this header, gzip_bytes() compresses a buffer.
 * If "sitepack/read.h" is included before this header, read_structure() reads one structure file.
 * If <cjson/cJSON.h> is included before this header, the expected.json helpers of the case
 * drivers are there too: case_str(), case_key() (per_file overrides), case_error() (expect_error).
 * With "sitepack/model.h" and "sitepack/elements.h" as well, case_atom_has() (an atoms_check entry's
 * values) and CHECK_ATOM_FOUND() (its failure message) for the reader drivers.
 * ci_contains() is a case-insensitive substring test.
 *
 * CHECK's message is optional: it uses __VA_OPT__ (C23; an extension in earlier modes that
 * GCC >= 8 and current Clang accept without a warning unless -pedantic). */
#ifndef SP_TEST_H
#define SP_TEST_H

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_fail = 0;   /* checks that failed */
static int g_checks = 0; /* checks run */

#ifndef SP_TEST_PREFIX
#define SP_TEST_PREFIX() ((void)0)
#endif

/* CHECK(cond) or CHECK(cond, fmt, ...): count a check; when cond is false count a failure and
 * print "FAIL file:line: cond[: message]" to stderr. Evaluates cond once; does not return. */
#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    ++g_checks;                                                           \
    if (!(cond)) {                                                        \
      ++g_fail;                                                           \
      SP_TEST_PREFIX();                                                   \
      fprintf(stderr, "FAIL %s:%d: %s", __FILE__, __LINE__, #cond);       \
      __VA_OPT__(fputs(": ", stderr); fprintf(stderr, __VA_ARGS__);)      \
      fputc('\n', stderr);                                                \
    }                                                                     \
  } while (0)

/* FAIL(fmt, ...): a check that failed (counted like a false CHECK): "FAIL file:line: message". */
#define FAIL(...)                                                         \
  do {                                                                    \
    ++g_checks;                                                           \
    ++g_fail;                                                             \
    SP_TEST_PREFIX();                                                     \
    fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                  \
    fprintf(stderr, __VA_ARGS__);                                         \
    fputc('\n', stderr);                                                  \
  } while (0)

/* End of a test: with failures print "NAME: F of N check(s) failed" to stderr and return 1; with no
 * check at all print "NAME: no check ran" to stderr and return 1 (a test that checked nothing has not
 * passed); else print "NAME: all N checks passed" to stdout and return 0. Use as `return sp_test_done(..)`. */
static inline int sp_test_done(const char *name) {
  if (!g_checks) {
    fprintf(stderr, "%s: no check ran\n", name);
    return 1;
  }
  if (g_fail) {
    fprintf(stderr, "%s: %d of %d check(s) failed\n", name, g_fail, g_checks);
    return 1;
  }
  printf("%s: all %d checks passed\n", name, g_checks);
  return 0;
}

/* Read the whole file at path into a malloc'd buffer with a NUL after the last byte (the
 * caller frees it). *len (when len is not NULL) gets the byte count, NUL not included.
 * Returns NULL, *len untouched, when the file cannot be opened, sized or fully read. */
static inline char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
  char *b = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (!b) return NULL;
  b[n] = 0;
  if (len) *len = (size_t)n;
  return b;
}

/* Write len bytes of data to path (created or truncated); on any error print
 * "cannot write PATH: reason" to stderr and exit(2). */
static inline void write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f)) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    exit(2);
  }
}

/* Does hay contain needle, ignoring ASCII case? (An empty needle is in every string.) */
static inline int ci_contains(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (const char *p = hay; *p; ++p) {
    size_t k = 0;
    while (k < n && p[k] && tolower((unsigned char)p[k]) == tolower((unsigned char)needle[k])) ++k;
    if (k == n) return 1;
  }
  return n == 0;
}

#ifdef cJSON__h
/* o[k] when it is a string, else NULL. */
static inline const char *case_str(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The key of a case's expected.json for one input: per_file[file][key] when present (null there
 * = absent), else the top-level key. */
static inline const cJSON *case_key(const cJSON *exp, const char *file, const char *key) {
  const cJSON *pf = cJSON_GetObjectItemCaseSensitive(exp, "per_file");
  const cJSON *f = pf ? cJSON_GetObjectItemCaseSensitive(pf, file) : NULL;
  if (f && cJSON_HasObjectItem(f, key)) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, key);
    return cJSON_IsNull(v) ? NULL : v;
  }
  return cJSON_GetObjectItemCaseSensitive(exp, key);
}

/* The expect_error entry ({"file", "class", "message_contains"}, alone or in a list) of one input. */
static inline const cJSON *case_error(const cJSON *exp, const char *file) {
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(exp, "expect_error");
  if (!e || cJSON_IsNull(e)) return NULL;
  if (cJSON_IsObject(e)) return case_str(e, "file") && !strcmp(case_str(e, "file"), file) ? e : NULL;
  const cJSON *it;
  cJSON_ArrayForEach(it, e) if (case_str(it, "file") && !strcmp(case_str(it, "file"), file)) return it;
  return NULL;
}
#endif

#if defined(cJSON__h) && defined(SITEPACK_MODEL_H) && defined(SITEPACK_ELEMENTS_H)
#include <math.h>
/* Does atom @p i of @p s have every value an atoms_check entry @p a gives: element, b_iso (a number, or
   "nan"), occupancy, charge, xyz (within 5e-4), element_from_name, is_hydrogen? */
static inline bool case_atom_has(const sp_structure *s, size_t i, const cJSON *a) {
  const char *el = case_str(a, "element");
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(a, "b_iso"), *occ = cJSON_GetObjectItemCaseSensitive(a, "occupancy");
  const cJSON *chg = cJSON_GetObjectItemCaseSensitive(a, "charge"), *xyz = cJSON_GetObjectItemCaseSensitive(a, "xyz");
  const cJSON *efn = cJSON_GetObjectItemCaseSensitive(a, "element_from_name");
  const cJSON *ish = cJSON_GetObjectItemCaseSensitive(a, "is_hydrogen");
  if (el && strcmp(sp_element_symbol(s->element[i]), el)) return false;
  if (cJSON_IsString(b) && !strcmp(b->valuestring, "nan") && !isnan(s->b_iso[i])) return false;
  if (cJSON_IsNumber(b) && !(fabs(s->b_iso[i] - b->valuedouble) < 5e-4)) return false;
  if (occ && !(fabs(s->occupancy[i] - occ->valuedouble) < 5e-4)) return false;
  if (chg && s->charge[i] != chg->valueint) return false;
  if (xyz && cJSON_GetArraySize(xyz) == 3)
    for (int k = 0; k < 3; ++k)
      if (!(fabs(s->xyz[i][k] - cJSON_GetArrayItem(xyz, k)->valuedouble) < 5e-4)) return false;
  if (efn && !!(s->atom_flags[i] & SP_ATOM_ELEMENT_FROM_NAME) != cJSON_IsTrue(efn)) return false;
  if (ish && (s->element[i] == 1) != cJSON_IsTrue(ish)) return false;
  return true;
}

/* CHECK that the atoms_check entry @p atom was found among @p candidates atoms of its name and residue. */
#define CHECK_ATOM_FOUND(tag, found, atom, candidates)                                                          \
  do {                                                                                                        \
    char *js_ = cJSON_PrintUnformatted(atom);                                                                 \
    CHECK(found, "%s: atom %s not found (%zu candidates by name/residue)", tag, js_ ? js_ : "?", (size_t)(candidates)); \
    cJSON_free(js_);                                                                                          \
  } while (0)
#endif

#ifdef SITEPACK_READ_H
/* s initialised and filled from the structure file at path (any format, gzip or not, no size limit):
 * sp_read_structure_file's return code and *err; the read buffer is freed here. */
static inline int read_structure(const char *path, sp_structure *s, sp_err *err) {
  sp_structure_init(s);
  sp_buf buf;
  memset(&buf, 0, sizeof buf);
  int fmt = 0;
  int rc = sp_read_structure_file(path, 0, &buf, s, &fmt, err);
  sp_buf_free(&buf);
  return rc;
}
#endif

#ifdef ZLIB_H
/* gzip one member of data (zlib deflate at level 0-9, gzip wrapper). Returns malloc'd bytes
 * and their count in *out_len, or NULL on a zlib error. */
static inline unsigned char *gzip_bytes(const void *data, size_t len, int level, size_t *out_len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
  size_t cap = deflateBound(&z, (uLong)len) + 64;
  unsigned char *out = malloc(cap);
  if (!out) {
    deflateEnd(&z);
    return NULL;
  }
  z.next_in = (Bytef *)data;
  z.avail_in = (uInt)len;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  int rc = deflate(&z, Z_FINISH);
  *out_len = cap - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    free(out);
    return NULL;
  }
  return out;
}
#endif

#endif /* SP_TEST_H */
