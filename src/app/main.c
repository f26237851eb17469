/* sitepack: command-line entry point. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/cmd_merge.h"
#include "app/cmd_store.h"
#include "app/cmd_survey.h"
#include "sitepack/version.h"

static void usage(FILE *f) {
  fprintf(f,
          "sitepack %s: every ligand of a directory of PDB entries and its binding site, in one HDF5 file.\n"
          "\n"
          "usage:\n"
          "  mpirun -np P sitepack run [JOB.json] [--input DIR] [--ccd FILE] [--out FILE.h5] [--ph X]\n"
          "                            [--cutoff A] [--max-site-atoms N] [--model first|all] [--symmetry-mates]\n"
          "                            [--report FILE.json] [--force] [--quiet] [--keep-parts] [--resume]\n"
          "                            [--shard I/N|auto] [--entries all|first]\n"
          "                            [split, steal and limit options: sitepack help run]\n"
          "  sitepack dump FILE.h5 TABLE      print a table as TSV (structures, ligands, sites,\n"
          "                                   components, residues, interactions, bonds, chains,\n"
          "                                   segments)\n"
          "  sitepack check FILE.h5 [--spot N] [--seed S] [--quiet]\n"
          "                                   validate a merged file (docs/format.md), print a summary\n"
          "  sitepack export FILE.h5 (--site I[,J..] | --all | --class C | --comp COMP)\n"
          "                 [--format sdf,pdb,cif] --out DIR|- [--force]\n"
          "                                   ligand SDF and pocket PDB/mmCIF files (docs/usage.md)\n"
          "  sitepack merge OUT.h5 SHARD... [--force] [--quiet]\n"
          "                                   merge the shard files of run --shard I/N (docs/slurm.md)\n"
          "  sitepack bench read [options]    read/write benchmark (docs/reading.md)\n"
          "  sitepack survey FILE.h5 [--ccd FILE] [--per-comp]  ligand survey summary (docs/ligands.md)\n"
          "  sitepack --help | --version | help run\n"
          "\n"
          "exit status: 0 the run completed (files that failed are listed in /structures with their\n"
          "error class), 1 the run could not complete (output not writable, MPI or internal error),\n"
          "2 bad command line or job file, unreadable CCD, input missing or without structure files,\n"
          "or output exists without --force.\n"
          "\n"
          "docs: README.md, docs/usage.md, docs/format.md\n",
          SP_VERSION);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return SP_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    usage(stdout);
    return SP_EXIT_OK;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    printf("sitepack %s (git %s)\n", SP_VERSION, SP_GIT_SHA);
    return SP_EXIT_OK;
  }
  if (!strcmp(cmd, "help")) {
    if (argc > 2 && !strcmp(argv[2], "run"))
      sp_print_run_help(stdout);
    else
      usage(stdout);
    return SP_EXIT_OK;
  }
  if (!strcmp(cmd, "run")) return sp_cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "dump")) return sp_cmd_dump(argc - 1, argv + 1);
  if (!strcmp(cmd, "check")) return sp_cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "merge")) return sp_cmd_merge(argc - 1, argv + 1);
  if (!strcmp(cmd, "bench")) return sp_cmd_bench(argc - 1, argv + 1);
  if (!strcmp(cmd, "survey")) return sp_cmd_survey(argc - 1, argv + 1);
  if (!strcmp(cmd, "export")) return sp_cmd_export(argc - 1, argv + 1);
  fprintf(stderr, "sitepack: unknown command '%s' (try: sitepack --help)\n", cmd);
  return SP_EXIT_USAGE;
}
