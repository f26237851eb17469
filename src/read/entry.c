/* The entry id of a structure file from its head, before any task (issue 16 item 12): see
 * include/sitepack/read.h sp_read_entry_peek(). */
#include "sitepack/read.h"
#include "cr_lines.h"

#include <ctype.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Bytes read of the file as stored, and of its text at most (a gzip file's head inflated): the
   entry id is on the first line of a PDB file and in the first lines of an mmCIF file. */
enum { PEEK_RAW = 4096, PEEK_TEXT = 16384 };

/* Inflate the gzip head @p raw [n] into @p text [cap]; returns the text bytes (0: none). */
static size_t inflate_head(const unsigned char *raw, size_t n, char *text, size_t cap) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return 0;
  z.next_in = (unsigned char *)raw;
  z.avail_in = (uInt)n;
  z.next_out = (unsigned char *)text;
  z.avail_out = (uInt)cap;
  int rc = inflate(&z, Z_SYNC_FLUSH); /* a cut stream is expected: keep what came out */
  size_t out = rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR ? cap - z.avail_out : 0;
  inflateEnd(&z);
  return out;
}

/* Copy the value @p v [n] (blanks trimmed, quotes of a CIF value removed) upper-cased into @p id [cap]. */
static void put_id(const char *v, size_t n, char *id, size_t cap) {
  while (n && (*v == ' ' || *v == '\t')) v++, n--;
  while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r')) n--;
  if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) v++, n -= 2;
  size_t k = 0;
  for (; k < n && k + 1 < cap; k++) id[k] = (char)toupper((unsigned char)v[k]);
  id[k] = 0;
}

/* The entry id in the text @p t [n]: a PDB HEADER's idCode (columns 63-66) or mmCIF `_entry.id`
   (a pair item), whichever comes first; the search stops at the first atom record. */
static void find_id(const char *t, size_t n, char *id, size_t cap) {
  id[0] = 0;
  for (size_t i = 0; i < n;) {
    const char *l = t + i, *e = memchr(l, '\n', n - i);
    size_t len = e ? (size_t)(e - l) : n - i;
    i += len + 1;
    if (!e) break; /* a line cut by the head's end is not trusted */
    if ((len >= 6 && (!memcmp(l, "ATOM  ", 6) || !memcmp(l, "HETATM", 6))) || (len >= 11 && !memcmp(l, "_atom_site.", 11)))
      break;
    if (len >= 62 && !memcmp(l, "HEADER", 6)) {
      put_id(l + 62, len < 66 ? len - 62 : 4, id, cap);
      return;
    }
    if (len > 9 && !memcmp(l, "_entry.id", 9) && (l[9] == ' ' || l[9] == '\t')) {
      put_id(l + 9, len - 9, id, cap);
      return;
    }
  }
}

int sp_read_entry_peek(const char *path, char *id, size_t cap, int *gzip) {
  if (cap) id[0] = 0;
  if (gzip) *gzip = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  unsigned char raw[PEEK_RAW];
  ssize_t n = read(fd, raw, sizeof raw);
  close(fd);
  if (n < 0) return -1;
  int gz = sp_gzip_magic(raw, n);
  if (gzip) *gzip = gz;
  char text[PEEK_TEXT];
  size_t tn = gz ? inflate_head(raw, (size_t)n, text, sizeof text) : (size_t)n;
  if (!gz) memcpy(text, raw, (size_t)n);
  if (tn && sp_cr_line_ends(text, tn)) sp_cr_to_lf(text, tn); /* CR-only line ends, as the readers take them */
  if (cap) find_id(text, tn, id, cap);
  return 0;
}
