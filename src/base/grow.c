/* Growth of arrays: see include/sitepack/base.h. */
#include <stdint.h>
#include <stdlib.h>

#include "sitepack/base.h"

void *sp_realloc_array(void *p, size_t n, size_t elsize) {
  if (elsize && n > SIZE_MAX / elsize) return NULL;
  size_t bytes = n * elsize;
  return realloc(p, bytes ? bytes : 1);
}

int sp_grow_to(void **arr, size_t *cap, size_t need, size_t elsize) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 16;
  while (n < need) n = n > SIZE_MAX / 2 ? need : n * 2;
  void *q = sp_realloc_array(*arr, n, elsize);
  if (!q) return SP_E_NOMEM;
  *arr = q;
  *cap = n;
  return 0;
}
