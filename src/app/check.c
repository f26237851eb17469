/* `sitepack check FILE`: validate a merged file (sp_check, store.h) and print a summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_opts.h"
#include "app/cmd_store.h"
#include "sitepack/store.h"

static void check_usage(FILE *f) {
  fprintf(f,
          "usage: sitepack check FILE.h5 [--spot N] [--seed S] [--quiet]\n"
          "Validates a merged sitepack file against docs/format.md: format attributes, every dataset's\n"
          "type, shape and layout (contiguous, unfiltered, allocated, aligned), the CSR pointers, every\n"
          "index, N random sites (default 100, seed 1) against /atoms/flags and /structures, and the values\n"
          "of /atoms/element and position, /ligands/class, /interactions/type and distance2, /residues/kind,\n"
          "/sites/cutoff. Reads format versions 2 to 8 (a file by the layout of its version; docs/format.md\n"
          "\"Versions\"); from version 4 also /structures/warnings against n_warnings; from version 6\n"
          "/atoms/formal_charge against the SDF export's rules recomputed from the file; /bonds/source\n"
          "perceived only from version 8.\n"
          "exit status: 0 valid, 1 invalid or damaged (the message says what: unknown_format for the layout, indices\n"
          "and versions, bad_value for a value), 2 bad command line or no such file\n");
}

int sp_cmd_check(int argc, char **argv) {
  const char *path = NULL;
  size_t spot = 100;
  unsigned long long seed = 1;
  int quiet = 0;
  static const struct option longopts[] = {{"spot", required_argument, NULL, 's'},
                                           {"seed", required_argument, NULL, 'S'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int c;
  int64_t v;
  sp_opt_reset();
  while ((c = sp_opt_next("check", argc, argv, "hq", longopts)) != -1) {
    if (c == '?') return 2;
    if (c == 'h') {
      check_usage(stdout);
      return 0;
    }
    if (c == 'q') quiet = 1;
    if (c == 's' || c == 'S') {
      if (sp_opt_int("check", c == 's' ? "--spot" : "--seed", optarg, 0, INT64_MAX, &v)) return 2;
      if (c == 's') spot = (size_t)v;
      else seed = (unsigned long long)v;
    }
  }
  if (argc - optind > 1) {
    fprintf(stderr, "sitepack check: unexpected argument: %s (one FILE.h5)\n", argv[optind + 1]);
    return 2;
  }
  if (optind < argc) path = argv[optind];
  if (!path) {
    check_usage(stderr);
    return 2;
  }
  sp_err err = {0};
  sp_check_summary s;
  int rc = sp_check(path, spot, (uint64_t)seed, &s, &err);
  if (rc) {
    int usage = rc == SP_E_NOT_FOUND || rc == SP_E_INVALID; /* nothing was checked: no "INVALID" verdict */
    fprintf(stderr, "sitepack check: %s%s: %s\n", usage ? "" : "INVALID: ", sp_errclass_name(rc), err.msg);
    return usage ? 2 : 1;
  }
  if (!quiet) {
    printf("%s: valid sitepack file (format version %lld)\n", path, (long long)s.format_version);
    printf("  structures %lld, ligands %lld, components %lld, sites %lld, residues %lld, atoms %lld\n",
           (long long)s.n_structures, (long long)s.n_ligands, (long long)s.n_components, (long long)s.n_sites,
           (long long)s.n_residues, (long long)s.n_atoms);
    printf("  %lld datasets: types, shapes, contiguous, unfiltered, allocated, aligned; %.3f MB of data in a "
           "%.3f MB file (%.1f%%)\n",
           (long long)s.n_datasets, s.data_bytes / 1e6, s.file_bytes / 1e6,
           s.file_bytes ? 100.0 * (double)s.data_bytes / (double)s.file_bytes : 0.0);
    printf("  CSR pointers, counts and indices: consistent; %lld sites spot-checked (seed %llu)\n",
           (long long)s.n_spot_checked, seed);
    printf("  values: %lld rows checked (element, position, ligand class, interaction type, residue kind, cutoff, distance2, "
           "formal_charge)\n",
           (long long)s.n_values);
  }
  return 0;
}
