/* `sitepack run`: the same entry in two files (issue 16 item 12, docs/usage.md "Entries"): which file
 * is the first of each entry, from the entry ids the scan read from the files' heads. Rank 0. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/run_ctx.h"

/* qsort_r order of file indices: by entry key, then by index (path order). */
static int by_key(const void *a, const void *b, void *keys) {
  const char(*k)[32] = keys;
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  int d = strcmp(k[x], k[y]);
  return d ? d : (x > y) - (x < y);
}

/* Declared in app/run_ctx.h. */
int run_entries_first(struct run_files *f) {
  size_t n = f->n, *order = malloc((n ? n : 1) * sizeof *order);
  if (!order) return -1;
  for (size_t i = 0; i < n; i++) order[i] = i;
  qsort_r(order, n, sizeof *order, by_key, f->entry_key);
  f->n_entries_repeated = f->n_files_repeated = 0;
  for (size_t a = 0; a < n;) {
    size_t b = a + 1;
    while (b < n && !strcmp(f->entry_key[order[b]], f->entry_key[order[a]])) b++;
    int known = f->entry_key[order[a]][0] != 0;
    for (size_t k = a; k < b; k++) f->entry_first[order[k]] = known ? (int64_t)order[a] : -1;
    if (known && b - a > 1) {
      f->n_entries_repeated++;
      f->n_files_repeated += b - a - 1;
    }
    a = b;
  }
  free(order);
  return 0;
}
