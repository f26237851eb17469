/* sp_perceive (perceive.h) on molecules read from stdin, for tests/peer/perceive_ccd.py (issue 37 item 2): many
 * molecules per run, one process for all.
 *
 * Input, per molecule (whitespace-separated fields, one record a line; blank lines are skipped):
 *   MOL <label> <n_atoms> <n_bonds> <flags>     label: no whitespace; flags: the SP_PERCEIVE_* bits
 *   n_atoms lines  Z x y z                      atomic number, coordinates in Å
 *   n_bonds lines  i j                          0-based atom indices
 * Output, per molecule:
 *   MOL <label> <rc> <n_charged> <net_charge> <n_unpaired> <exhausted>    rc: sp_perceive's return (0: ok)
 *   n_bonds lines  i j order                    the bonds in input order
 *   one line       the n_atoms formal charges, space-separated (empty for 0 atoms)
 * A nonzero rc is reported, not fatal (the arrays are then all 1 / all 0, as perceive.h says); sp_err's message
 * goes to stderr. Exit 0 at the end of the input; a line that does not parse (a wrong field count, a number out
 * of range, an index that does not fit uint32, the input ending inside a molecule): a message naming the line on
 * stderr and exit 2. Indices are passed as given, so that sp_perceive's own checks (index >= n, i == j) are
 * what reports them. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/error.h"
#include "sitepack/perceive.h"

#define LINE_MAX_LEN 4096
#define MAX_BONDS (8u * SP_PERCEIVE_MAX_ATOMS)

static long g_line = 0;

/* The next non-blank line into buf (NUL-terminated, newline stripped); 0 at end of input. Exits 2 on a line
 * longer than the buffer. */
static int next_line(char *buf) {
  for (;;) {
    if (!fgets(buf, LINE_MAX_LEN, stdin)) return 0;
    g_line++;
    size_t len = strlen(buf);
    if (len == LINE_MAX_LEN - 1 && buf[len - 1] != '\n') {
      fprintf(stderr, "sp_perceive_tool: line %ld: longer than %d characters\n", g_line, LINE_MAX_LEN - 2);
      exit(2);
    }
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = 0;
    if (strspn(buf, " \t") != len) return 1;
  }
}

static void bad(const char *what, const char *line) {
  fprintf(stderr, "sp_perceive_tool: line %ld: %s: '%s'\n", g_line, what, line);
  exit(2);
}

/* A whole field as an integer in [lo, hi]; 0 when it is not one. */
static int parse_long(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

static int parse_float(const char *s, float *out) {
  char *end;
  errno = 0;
  float v = strtof(s, &end);
  if (errno || end == s || *end) return 0;
  *out = v;
  return 1;
}

/* Splits line into at most max whitespace-separated fields (in place); the count, max + 1 when there are more. */
static int split(char *line, char **f, int max) {
  int n = 0;
  for (char *t = strtok(line, " \t"); t; t = strtok(NULL, " \t")) {
    if (n == max) return max + 1;
    f[n++] = t;
  }
  return n;
}

int main(void) {
  static char line[LINE_MAX_LEN], copy[LINE_MAX_LEN], label[LINE_MAX_LEN];
  static uint8_t z[SP_PERCEIVE_MAX_ATOMS + 1];
  static float xyz[SP_PERCEIVE_MAX_ATOMS + 1][3];
  static uint32_t pairs[MAX_BONDS][2];
  static uint8_t order[MAX_BONDS];
  static int8_t charge[SP_PERCEIVE_MAX_ATOMS + 1];
  char *f[8];
  while (next_line(line)) {
    memcpy(copy, line, sizeof line);
    long n, nb, flags;
    if (split(line, f, 5) != 5 || strcmp(f[0], "MOL") != 0)
      bad("expected MOL <label> <n_atoms> <n_bonds> <flags>", copy);
    /* one atom more than sp_perceive takes: so that its SP_E_TOO_LARGE is exercised, not this tool's limit */
    if (!parse_long(f[2], 0, SP_PERCEIVE_MAX_ATOMS + 1, &n)) bad("n_atoms not an integer in 0..1025", copy);
    if (!parse_long(f[3], 0, MAX_BONDS, &nb)) bad("n_bonds not an integer in range", copy);
    if (!parse_long(f[4], 0, 0xffff, &flags)) bad("flags not an integer in 0..65535", copy);
    snprintf(label, sizeof label, "%s", f[1]);
    for (long i = 0; i < n; i++) {
      long zz = 0;
      if (!next_line(line)) bad("input ends inside a molecule's atoms", "");
      memcpy(copy, line, sizeof line);
      if (split(line, f, 4) != 4 || !parse_long(f[0], 0, 255, &zz) || !parse_float(f[1], &xyz[i][0]) ||
          !parse_float(f[2], &xyz[i][1]) || !parse_float(f[3], &xyz[i][2]))
        bad("expected an atom line Z x y z", copy);
      z[i] = (uint8_t)zz;
    }
    for (long k = 0; k < nb; k++) {
      long i = 0, j = 0;
      if (!next_line(line)) bad("input ends inside a molecule's bonds", "");
      memcpy(copy, line, sizeof line);
      if (split(line, f, 2) != 2 || !parse_long(f[0], 0, UINT32_MAX, &i) || !parse_long(f[1], 0, UINT32_MAX, &j))
        bad("expected a bond line i j (0-based)", copy);
      pairs[k][0] = (uint32_t)i;
      pairs[k][1] = (uint32_t)j;
    }
    sp_perceive_info info = {0};
    sp_err err = {0};
    int rc = sp_perceive((size_t)n, z, (const float(*)[3])xyz, (size_t)nb, (const uint32_t(*)[2])pairs, NULL,
                         (unsigned)flags, order, charge, &info, &err);
    if (rc) fprintf(stderr, "sp_perceive_tool: %s: rc %d: %s\n", label, rc, err.msg);
    printf("MOL %s %d %d %d %d %d\n", label, rc, info.n_charged, info.net_charge, info.n_unpaired, info.exhausted);
    for (long k = 0; k < nb; k++) printf("%u %u %d\n", pairs[k][0], pairs[k][1], order[k]);
    for (long i = 0; i < n; i++) printf(i ? " %d" : "%d", charge[i]);
    printf("\n");
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "sp_perceive_tool: write error on stdout\n");
    return 1;
  }
  return 0;
}
