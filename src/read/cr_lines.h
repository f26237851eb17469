/* Private to src/read: classic Mac OS line ends (read.c, entry.c). */
#ifndef SITEPACK_READ_CR_LINES_H
#define SITEPACK_READ_CR_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Classic Mac OS line ends (a lone CR, no LF): the first line of the text holds a CR that is followed
 * by a byte other than CR or LF, or ends the text. Only the first line is looked at (normal files: the
 * first 80 bytes, twice), so a file with LF or CR LF line ends pays nothing more; a CR CR LF line end
 * (a file converted twice) does not count. */
static inline bool sp_cr_line_ends(const char *t, size_t n) {
  const char *nl = memchr(t, '\n', n);
  size_t m = nl ? (size_t)(nl - t) : n;
  for (const char *cr = memchr(t, '\r', m); cr; cr = memchr(cr + 1, '\r', m - (size_t)(cr + 1 - t))) {
    size_t k = (size_t)(cr - t) + 1;
    if (k == n || (t[k] != '\r' && t[k] != '\n')) return true;
    if (k >= m) break;
  }
  return false;
}

/* Every lone CR (not followed by LF) of @p t [n] becomes a LF, in place; CR LF pairs stay. */
static inline void sp_cr_to_lf(char *t, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (t[i] == '\r' && (i + 1 == n || t[i + 1] != '\n')) t[i] = '\n';
}

#endif
