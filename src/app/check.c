/* `sitepack check FILE`: validate a merged file (sp_check, store.h) and print a summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cmd_store.h"
#include "sitepack/store.h"

static void check_usage(FILE *f) {
  fprintf(f, "usage: sitepack check FILE.h5 [--spot N] [--seed S] [--quiet]\n"
             "Validates a merged sitepack file against docs/format.md: format attributes, every dataset's\n"
             "type, shape and layout (contiguous, unfiltered, allocated, aligned), the CSR pointers, every\n"
             "index, and N random sites (default 100, seed 1) against /atoms/flags and /structures.\n"
             "exit status: 0 valid, 1 invalid or damaged (the message says what), 2 bad command line or no such file\n");
}

int sp_cmd_check(int argc, char **argv) {
  const char *path = NULL;
  size_t spot = 100;
  unsigned long long seed = 1;
  int quiet = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      check_usage(stdout);
      return 0;
    } else if ((!strcmp(a, "--spot") || !strcmp(a, "--seed")) && i + 1 < argc) {
      char *end = NULL;
      unsigned long long v = strtoull(argv[++i], &end, 10);
      if (!end || *end || argv[i][0] == '-' || !argv[i][0]) {
        fprintf(stderr, "sitepack check: %s needs a non-negative integer, got '%s'\n", a, argv[i]);
        return 2;
      }
      if (a[3] == 'p') spot = (size_t)v;
      else seed = v;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else if (a[0] == '-' || path) {
      check_usage(stderr);
      return 2;
    } else {
      path = a;
    }
  }
  if (!path) {
    check_usage(stderr);
    return 2;
  }
  sp_err err = {0};
  sp_check_summary s;
  int rc = sp_check(path, spot, (uint64_t)seed, &s, &err);
  if (rc) {
    fprintf(stderr, "sitepack check: INVALID: %s: %s\n", sp_errclass_name(rc), err.msg);
    return rc == SP_E_NOT_FOUND || rc == SP_E_INVALID ? 2 : 1;
  }
  if (!quiet) {
    printf("%s: valid sitepack file (format version %d)\n", path, SP_FORMAT_VERSION);
    printf("  structures %lld, ligands %lld, components %lld, sites %lld, residues %lld, atoms %lld\n",
           (long long)s.n_structures, (long long)s.n_ligands, (long long)s.n_components, (long long)s.n_sites,
           (long long)s.n_residues, (long long)s.n_atoms);
    printf("  %lld datasets: types, shapes, contiguous, unfiltered, allocated, aligned; %.3f MB of data in a "
           "%.3f MB file (%.1f%%)\n",
           (long long)s.n_datasets, s.data_bytes / 1e6, s.file_bytes / 1e6,
           s.file_bytes ? 100.0 * (double)s.data_bytes / (double)s.file_bytes : 0.0);
    printf("  CSR pointers, counts and indices: consistent; %lld sites spot-checked (seed %llu)\n",
           (long long)s.n_spot_checked, seed);
  }
  return 0;
}
