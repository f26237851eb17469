/* test_cif_numbers: the word-at-a-time (SWAR) number path of the mmCIF reader gives the float
 * of the scalar path it replaces, bit for bit, wherever it accepts a value.
 *
 *   test_cif_numbers [FILE...]
 *
 * Strings: every string of 1 to 6 characters over "0159.-+e/:" (exhaustive), half a million of 7 to
 * 9, every byte at every position of "-12.345", half a million random [-]d{0,4}[.]d{0,4}; and every
 * whitespace-separated token of the FILEs (the corpus: shared/data/structures/ *.cif), each in its
 * place in the text (so that the bytes read after it are those of the file). Each generated value
 * is also placed after several kinds of bytes, and in exact buffers (the SWAR path must then
 * decline rather than read outside the text). */
#include <stdint.h>

#include "cif/cif_internal.h"
#include "sp_test.h"

static unsigned long long g_values, g_swar;

/* compare at p (n bytes; the text ends at end) */
static int same(const char *p, uint32_t n, const char *end) {
  sp_cif_value v = {p, n, SP_CIF_PLAIN};
  if (n == 1 && (*p == '?' || *p == '.')) v.kind = *p == '?' ? SP_CIF_UNKNOWN : SP_CIF_INAPPLICABLE;
  float a = 0, b = 0;
  bool ra = sp_cif_float_scalar(&v, &a);
  bool rb = sp_cif_float(&v, end, &b);
  ++g_values;
  if (v.kind == SP_CIF_PLAIN && p + 8 <= end && sp_cif_float_swar(p, n, &b))
    ++g_swar;
  if (ra != rb || (ra && memcmp(&a, &b, sizeof a))) {
    FAIL("'%.*s': scalar %d %a, sp_cif_float %d %a", (int)n, p, ra, (double)a, rb, (double)b);
    return 0;
  }
  return 1;
}

/* s (n bytes) inside a padded buffer after several kinds of bytes, then in exact buffers (ASan
 * sees any read outside: the SWAR path must decline there) */
static int check(const char *s, uint32_t n) {
  static const char *const before[] = {"ZZZZZZZZ", "99999999", "--------", "........", "        ", "\n1.0 -7."};
  char buf[48];
  for (size_t b = 0; b < sizeof before / sizeof *before; ++b) {
    memset(buf, 'Z', sizeof buf);
    memcpy(buf, before[b], 8);
    memcpy(buf + 8, s, n);
    if (!same(buf + 8, n, buf + sizeof buf)) return 0;
  }
  for (uint32_t pre = 0; pre <= 5; pre += 5) {
    char *tight = malloc(pre + n + 1);
    if (!tight) return 0;
    memset(tight, '9', pre);
    memcpy(tight + pre, s, n);
    int ok = same(tight + pre, n, tight + pre + n);
    free(tight);
    if (!ok) return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  static const char alpha[] = "0159.-+e/:";
  const uint64_t na = sizeof alpha - 1;
  char s[16];
  int ok = 1;
  for (uint32_t len = 1; len <= 6 && ok; ++len) {
    uint64_t tot = 1;
    for (uint32_t i = 0; i < len; ++i) tot *= na;
    for (uint64_t c = 0; c < tot && ok; ++c) {
      uint64_t x = c;
      for (uint32_t i = 0; i < len; ++i, x /= na) s[i] = alpha[x % na];
      ok = check(s, len);
    }
  }
  uint64_t r = 88172645463325252ull; /* xorshift64 */
#define NEXT() (r ^= r << 13, r ^= r >> 7, r ^= r << 17, r)
  for (int i = 0; i < 500000 && ok; ++i) {
    uint32_t len = 7 + (uint32_t)(NEXT() % 3);
    for (uint32_t k = 0; k < len; ++k) s[k] = alpha[NEXT() % na];
    ok = check(s, len);
  }
  for (int i = 0; i < 500000 && ok; ++i) {
    uint64_t w = NEXT();
    uint32_t k = 0, ip = w % 5, fp = (w >> 3) % 5;
    if ((w >> 6) & 1) s[k++] = '-';
    for (uint32_t j = 0; j < ip; ++j) s[k++] = (char)('0' + NEXT() % 10);
    if ((w >> 7) % 8) s[k++] = '.';
    for (uint32_t j = 0; j < fp; ++j) s[k++] = (char)('0' + NEXT() % 10);
    if (k) ok = check(s, k);
  }
  for (int pos = 0; pos < 7 && ok; ++pos)
    for (int c = 1; c < 256 && ok; ++c) {
      memcpy(s, "-12.345", 7);
      s[pos] = (char)c;
      ok = check(s, 7);
    }
  unsigned long long corpus = 0;
  for (int f = 1; f < argc && ok; ++f) {
    size_t len = 0;
    char *t = slurp(argv[f], &len);
    CHECK(t != NULL, "cannot read %s", argv[f]);
    if (!t) continue;
    for (size_t i = 0; i < len && ok;) {
      while (i < len && (unsigned char)t[i] <= ' ') ++i;
      size_t b = i;
      while (i < len && (unsigned char)t[i] > ' ') ++i;
      if (i > b && i - b < 32) {
        ok = same(t + b, (uint32_t)(i - b), t + len);
        ++corpus;
      }
    }
    free(t);
  }
  CHECK(ok);
  CHECK(argc > 1, "no corpus file given (the CMake glob of shared/data/structures/*.cif found none?)");
  CHECK(corpus > 100000, "only %llu corpus tokens", corpus);
  CHECK(g_swar > 1000000, "the SWAR path took only %llu values", g_swar);
  printf("%llu values (%llu tokens of %d files), %llu through the SWAR path\n", g_values, corpus, argc - 1, g_swar);
  return sp_test_done("test_cif_numbers");
}
