/* Base module (include/sitepack/base.h, error.h): growth of arrays, the frozen mixing functions, error class names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"
#include "sitepack/error.h"
#include "sp_test.h"

static void test_mix(void) {
  /* splitmix64 of seed 0 (S. Vigna's reference splitmix64.c): the first three outputs */
  uint64_t st = 0;
  CHECK(sp_splitmix64(&st) == 0xE220A8397B1DCDAFull);
  CHECK(sp_splitmix64(&st) == 0x6E789E6AA1B965F4ull);
  CHECK(sp_splitmix64(&st) == 0x06C45D188009454Full);
  CHECK(st == 3 * SP_GOLDEN_GAMMA);
  /* the finaliser alone: a bijection with 0 -> 0; values the molecule key (wl1) is built on */
  CHECK(sp_mix64(0) == 0);
  CHECK(sp_mix64(1) == 0x5692161D100B05E5ull);
  CHECK(sp_mix64(SP_GOLDEN_GAMMA) == 0xE220A8397B1DCDAFull);
}

static void test_grow(void) {
  int *a = NULL;
  size_t cap = 0;
  CHECK(SP_GROW(a, cap, 0) == 0 && a == NULL && cap == 0, "need 0 allocates nothing");
  CHECK(SP_GROW(a, cap, 1) == 0 && a && cap == 16, "cap %zu", cap);
  for (int i = 0; i < 16; i++) a[i] = i;
  CHECK(SP_GROW(a, cap, 17) == 0 && cap == 32, "cap %zu", cap);
  CHECK(SP_GROW(a, cap, 100) == 0 && cap == 128, "cap %zu", cap);
  int ok = 1;
  for (int i = 0; i < 16; i++) ok &= a[i] == i;
  CHECK(ok, "elements kept");
  int *keep = a;
  /* need * elsize overflows size_t: refused, array and capacity untouched */
  CHECK(SP_GROW(a, cap, SIZE_MAX / 2) == SP_E_NOMEM && a == keep && cap == 128);
  CHECK(SP_GROW(a, cap, 128) == 0 && cap == 128, "enough room: no change");
  free(a);

  CHECK(sp_realloc_array(NULL, SIZE_MAX / 8 + 1, 8) == NULL, "overflow refused");
  void *p = sp_realloc_array(NULL, 0, 8);
  CHECK(p != NULL, "n = 0 gives a non-NULL block");
  free(p);
  char *q = sp_realloc_array(NULL, 3, 2);
  CHECK(q != NULL);
  memcpy(q, "abcdef", 6);
  q = sp_realloc_array(q, 10, 2);
  CHECK(q && !memcmp(q, "abcdef", 6));
  free(q);
}

/* sp_errclass_from_name inverts sp_errclass_name for every class; names of no class are -1 */
static void test_errclass_names(void) {
  for (int k = 0; k < SP_ERRCLASS_COUNT; ++k)
    CHECK(sp_errclass_from_name(sp_errclass_name(k)) == k, "class %d (%s) does not read back", k, sp_errclass_name(k));
  CHECK(sp_errclass_from_name("ok") == SP_OK, "ok is SP_OK");
  CHECK(sp_errclass_from_name("truncated_gzip") == SP_E_TRUNCATED_GZIP, "truncated_gzip");
  CHECK(sp_errclass_from_name("repeated_entry") == SP_E_REPEATED_ENTRY, "repeated_entry");
  CHECK(sp_errclass_from_name("multiple_blocks") == SP_E_MULTIPLE_BLOCKS && SP_E_MULTIPLE_BLOCKS == 23, "multiple_blocks");
  CHECK(sp_errclass_from_name("unknown_error") == -1, "unknown_error names no class");
  CHECK(sp_errclass_from_name("") == -1 && sp_errclass_from_name(NULL) == -1, "empty and NULL name no class");
  CHECK(sp_errclass_from_name("OK") == -1 && sp_errclass_from_name("ok ") == -1, "names are exact");
}

int main(void) {
  test_mix();
  test_errclass_names();
  test_grow();
  return sp_test_done("test_base");
}
