/* `sitepack dump FILE.h5 TABLE`: print a table of a merged file as TSV. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/cli_opts.h"
#include "sitepack/store.h"

int sp_cmd_dump(int argc, char **argv) {
  static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {"csv", no_argument, NULL, 'c'},
                                           {NULL, 0, NULL, 0}};
  int c, csv = 0;
  sp_opt_reset();
  while ((c = sp_opt_next("dump", argc, argv, "h", longopts)) != -1) {
    if (c == '?') return SP_EXIT_USAGE;
    if (c == 'c') { /* issue 36: the index as CSV */
      csv = 1;
      continue;
    }
    printf("usage: sitepack dump FILE.h5 TABLE [--csv]\n"
           "TABLE: structures, ligands, sites, components, residues, interactions, bonds, chains, segments, or\n"
           "index (one row per site: entry, ligand, descriptors, quality, interactions by type, pocket residues,\n"
           "clusters and splits when present; --csv: comma-separated instead of TSV)\n"
           "(columns: docs/format.md)\n"
           "exit status: 0 printed, 1 not a sitepack file, damaged or unreadable (the message says why), 2 bad\n"
           "command line, no such file, an unknown table or one the file's format version does not have\n");
    return SP_EXIT_OK;
  }
  if (argc - optind != 2) {
    fprintf(stderr, "sitepack dump: give FILE.h5 and TABLE (TABLE: structures, ligands, sites, components, residues, "
                    "interactions, bonds, chains, segments)\n");
    return SP_EXIT_USAGE;
  }
  argv += optind - 1;
  sp_err err = {0};
  if (csv && strcmp(argv[2], "index")) {
    fprintf(stderr, "sitepack dump: --csv is for the index only (sitepack dump FILE.h5 index --csv)\n");
    return SP_EXIT_USAGE;
  }
  int rc = !strcmp(argv[2], "index") ? sp_dump_index(argv[1], stdout, csv ? ',' : '\t', &err)
                                     : sp_dump(argv[1], argv[2], stdout, &err);
  if (rc) {
    sp_opt_input_error("dump", argv[1], rc, err.msg);
    /* as check and survey: a file that is no (valid) sitepack file is 1, a wrong argument 2 */
    return rc == SP_E_INVALID || rc == SP_E_NOT_FOUND ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
  }
  return SP_EXIT_OK;
}
