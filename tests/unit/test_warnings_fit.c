/* sp_warnings_fit (result.h): the /structures/warnings text of format version 4 from a reader's NUL-separated
 * messages. Exact bytes for short lists, the escape of each message, the "... N more" tail when they do not fit
 * (the largest k, k + N = n, at most cap - 1 bytes), the cut of a first message too long for the column, and
 * the same bytes on a second call (no state). Usage: test_warnings_fit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/result.h"

#include "sp_test.h"

/* @p n messages, NUL-separated, of @p msg with its index appended ("MSG 0", "MSG 1", ...) into a new buffer. */
static char *messages(const char *msg, size_t n) {
  size_t cap = n * (strlen(msg) + 16) + 1, len = 0;
  char *b = malloc(cap);
  if (!b) abort();
  for (size_t i = 0; i < n; i++) len += (size_t)snprintf(b + len, cap - len, "%s %zu", msg, i) + 1;
  return b;
}

/* The lines of @p t (split at "\n"); *nl their number; the last line into @p last [cap]. */
static void last_line(const char *t, size_t *nl, char *last, size_t cap) {
  const char *l = t;
  *nl = *t ? 1 : 0;
  for (const char *p = t; *p; p++)
    if (*p == '\n') (*nl)++, l = p + 1;
  snprintf(last, cap, "%s", l);
}

int main(void) {
  char dst[SP_WARNINGS_LEN], again[SP_WARNINGS_LEN];
  /* none: "" (and the whole field zeroed) */
  memset(dst, 'x', sizeof dst);
  CHECK(sp_warnings_fit(dst, sizeof dst, "stale\0", 0) == 0 && dst[0] == 0 && dst[sizeof dst - 1] == 0, "n 0");
  /* a few: joined by "\n", in order; each escaped alone (newline, tab, backslash, a byte that is not UTF-8),
     an empty message as "(empty)", UTF-8 kept */
  static const char few[] = "line 3: temperature factor 'nan' is not readable\0two\nlines\tand a \\\0\0bad \xff byte, "
                            "\xc3\x85ngstr\xc3\xb6m\0";
  CHECK(sp_warnings_fit(dst, sizeof dst, few, 4) == 0, "4 fit");
  CHECK(!strcmp(dst, "line 3: temperature factor 'nan' is not readable\ntwo\\x0alines\\x09and a \\x5c\n(empty)\n"
                     "bad \\xff byte, \xc3\x85ngstr\xc3\xb6m"),
        "4 messages: '%s'", dst);
  CHECK(sp_warnings_fit(dst, sizeof dst, few, 1) == 0 && !strcmp(dst, "line 3: temperature factor 'nan' is not readable"),
        "the first only (n 1): '%s'", dst);
  /* 1000 messages (the readers' most) of 40-odd bytes: the first k whole, then "... N more", k + N = 1000 */
  const char *w = "_atom_site row 12 (line 40): occupancy 'full' is not readable, taken as 1.0 #";
  char *many = messages(w, 1000);
  size_t more = sp_warnings_fit(dst, sizeof dst, many, 1000);
  size_t nl = 0, len = strlen(dst);
  char last[64];
  last_line(dst, &nl, last, sizeof last);
  char want[64];
  snprintf(want, sizeof want, "... %zu more", more);
  CHECK(more > 900 && more < 1000 && nl - 1 + more == 1000 && !strcmp(last, want) && len < sizeof dst,
        "1000: %zu lines, '%s', %zu more, %zu bytes", nl, last, more, len);
  /* each shown line is message i, exactly */
  const char *p = dst, *m = many;
  int same = 1;
  for (size_t i = 0; i + 1 < nl; i++, m += strlen(m) + 1) {
    size_t k = strlen(m);
    same &= !strncmp(p, m, k) && p[k] == '\n';
    p += k + 1;
  }
  CHECK(same, "the shown messages are the first ones, in order");
  /* the most that fit: message k (m, the first not shown) and the tail of the rest would not */
  char tail2[64];
  snprintf(tail2, sizeof tail2, "... %zu more", more - 1);
  CHECK(len - strlen(last) + strlen(m) + 1 + strlen(tail2) > sizeof dst - 1, "room left for message %zu: %zu bytes",
        nl - 1, len);
  /* deterministic: the same bytes again (the whole field) */
  sp_warnings_fit(again, sizeof again, many, 1000);
  CHECK(!memcmp(dst, again, sizeof dst), "a second call gives the same bytes");
  /* exactly the room: 1023 bytes of messages and separators fit without a tail */
  char exact[SP_WARNINGS_LEN + 8];
  memset(exact, 'a', 600);
  exact[600] = 0;
  memset(exact + 601, 'b', 422);
  exact[1023] = 0;
  CHECK(sp_warnings_fit(dst, sizeof dst, exact, 2) == 0 && strlen(dst) == 1023 && dst[600] == '\n', "1023 bytes fit");
  memset(exact + 601, 'b', 423); /* one byte more: 1024 would not fit, the second message goes */
  exact[1024] = 0;
  CHECK(sp_warnings_fit(dst, sizeof dst, exact, 2) == 1 && !strcmp(dst + 600, "\n... 1 more"), "1024 bytes: '%s'",
        dst + 590);
  /* a first message longer than the column (its escaped form: 300 bytes 0x01 -> 1200): cut after a whole \xNN,
     ending "...", then "... 2 more" */
  char lng[400];
  memset(lng, 1, 300);
  lng[300] = 0;
  memcpy(lng + 301, "b\0c", 4);
  CHECK(sp_warnings_fit(dst, sizeof dst, lng, 3) == 2, "long first: 2 more");
  last_line(dst, &nl, last, sizeof last);
  len = strlen(dst);
  const char *nlpos = strchr(dst, '\n');
  size_t first = nlpos ? (size_t)(nlpos - dst) : 0;
  CHECK(nl == 2 && !strcmp(last, "... 2 more") && len < sizeof dst && first >= 3 &&
            !strncmp(dst + first - 3, "...", 3) && (first - 3) % 4 == 0 && !strncmp(dst, "\\x01\\x01", 8),
        "long first: %zu lines, first %zu bytes, '%s'", nl, first, last);
  /* the only message, too long: cut, "...", no tail (it is shown) */
  CHECK(sp_warnings_fit(dst, sizeof dst, lng, 1) == 0 && strlen(dst) <= sizeof dst - 1 && !strchr(dst, '\n') &&
            !strcmp(dst + strlen(dst) - 3, "..."),
        "long only: %zu bytes", strlen(dst));
  /* a field too small for the rule: nothing written, all counted as not shown */
  char tiny[16];
  CHECK(sp_warnings_fit(tiny, sizeof tiny, few, 2) == 2 && tiny[0] == 0, "cap 16");
  free(many);
  return sp_test_done("test_warnings_fit");
}
