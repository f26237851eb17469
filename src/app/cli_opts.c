/* One option convention for every subcommand: see cli_opts.h. */
#include "app/cli_opts.h"
#include "sitepack/error.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sp_opt_reset(void) { optind = 0; }

/* The long options of @p longopts that start with the @p n bytes of @p name, as "--a, --b" into @p out [cap]
   (cut with "..." when it does not fit). Returns how many match; 0 when one matches exactly (glibc takes it). */
static int prefix_matches(const struct option *longopts, const char *name, size_t n, char *out, size_t cap) {
  int k = 0;
  size_t len = 0;
  out[0] = 0;
  for (const struct option *o = longopts; o && o->name; ++o) {
    if (strncmp(o->name, name, n)) continue;
    if (strlen(o->name) == n) return 0;
    int w = snprintf(out + len, cap - len, "%s--%s", k ? ", " : "", o->name);
    if (w < 0 || (size_t)w >= cap - len) {
      if (cap > 4) memcpy(out + cap - 4, "...", 4);
      len = cap - 1;
    } else {
      len += (size_t)w;
    }
    k++;
  }
  return k;
}

int sp_opt_next(const char *cmd, int argc, char **argv, const char *shortopts, const struct option *longopts) {
  char spec[128], cands[512];
  snprintf(spec, sizeof spec, ":%s", shortopts); /* ':' first: a missing value returns ':', silently */
  opterr = 0;
  int c = getopt_long(argc, argv, spec, longopts, NULL);
  if (c != '?' && c != ':') return c;
  const char *a = optind > 0 && optind - 1 < argc ? argv[optind - 1] : "";
  int is_long = a[0] == '-' && a[1] == '-';
  const char *eq = strchr(a, '=');
  int name_len = is_long && eq ? (int)(eq - a) : (int)strlen(a);
  if (c == ':') {
    if (is_long) fprintf(stderr, "sitepack %s: missing value for %.*s\n", cmd, name_len, a);
    else fprintf(stderr, "sitepack %s: missing value for -%c\n", cmd, optopt);
  } else if (is_long && eq && optopt) {
    fprintf(stderr, "sitepack %s: option %.*s takes no value\n", cmd, name_len, a);
  } else if (is_long && prefix_matches(longopts, a + 2, (size_t)name_len - 2, cands, sizeof cands) > 1) {
    /* issue 16: a prefix of several long options (getopt_long's "ambiguous") is not "unknown" */
    fprintf(stderr, "sitepack %s: ambiguous option '%.*s' (could be %s)\n", cmd, name_len, a, cands);
  } else if (is_long) {
    fprintf(stderr, "sitepack %s: unknown option: %.*s (try: sitepack %s --help)\n", cmd, name_len, a, cmd);
  } else {
    fprintf(stderr, "sitepack %s: unknown option: -%c (try: sitepack %s --help)\n", cmd, optopt, cmd);
  }
  return '?';
}

int sp_opt_int(const char *cmd, const char *opt, const char *text, int64_t lo, int64_t hi, int64_t *out) {
  const char *p = text;
  int neg = *p == '-';
  if (neg || *p == '+') ++p;
  int ok = *p >= '0' && *p <= '9' && !(neg && lo >= 0);
  int64_t v = 0;
  for (; ok && *p; ++p) {
    if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10) ok = 0;
    else v = v * 10 + (*p - '0');
  }
  if (neg) v = -v;
  if (!ok || v < lo || v > hi) {
    fprintf(stderr, "sitepack %s: %s must be an integer in [%lld, %lld], got '%s'\n", cmd, opt, (long long)lo,
            (long long)hi, text);
    return -1;
  }
  *out = v;
  return 0;
}

int sp_opt_double(const char *cmd, const char *opt, const char *text, double lo, int lo_open, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  /* decimal only: strtod also takes hexadecimal ("0x5": pH 5), "inf" and "nan" */
  int decimal = strspn(text, "+-0123456789.eE") == strlen(text);
  if (errno || end == text || *end || !decimal || !isfinite(v) || v < lo || (lo_open && v == lo) || v > hi) {
    fprintf(stderr, "sitepack %s: %s must be a number in %c%g, %g], got '%s'\n", cmd, opt, lo_open ? '(' : '[', lo,
            hi, text);
    return -1;
  }
  *out = v;
  return 0;
}

void sp_opt_input_error(const char *cmd, const char *path, int cls, const char *msg) {
  int named = path && *path && strstr(msg, path) != NULL;
  fprintf(stderr, "sitepack %s: %s: %s%s%s\n", cmd, sp_errclass_name(cls), named ? "" : path, named ? "" : ": ", msg);
}

void sp_opt_file_error(const char *cmd, const char *what, const char *path, const char *msg, const char *tail) {
  size_t n = strlen(path);
  if (!strncmp(msg, path, n) && msg[n] == ':' && msg[n + 1] == ' ') msg += n + 2;
  fprintf(stderr, "sitepack %s: %s %s: %s%s%s\n", cmd, what, path, msg, tail ? " " : "", tail ? tail : "");
}
