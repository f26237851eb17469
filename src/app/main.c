/* sitepack: command-line entry point. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/cmd_merge.h"
#include "app/cmd_store.h"
#include "app/cmd_survey.h"
#include "app/report_html.h"
#include "app/run_opts.h"
#include "sitepack/version.h"

static void usage(FILE *f) {
  fprintf(f,
          "sitepack %s: every ligand of a directory of PDB entries and its binding site, in one HDF5 file.\n"
          "\n"
          "usage:\n",
          SP_VERSION);
  /* the run's options from their table (app/run_opts.h) */
  sp_run_opts_usage(f, "mpirun -np P sitepack run", "[JOB.json]",
                    "[split, steal and limit options: sitepack help run]");
  fprintf(f,
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
          "  sitepack report FILE.h5 --out REPORT.html [--site I[,J...]]  the survey as an HTML page of plots,\n"
          "                                   3D views of sites (docs/report.md)\n"
          "  sitepack cluster FILE.h5 [--identity 0.3,0.9] [--coverage 0.8] [--tanimoto 0.5] [--threads N] [--force]\n"
          "                                   protein (MMseqs2) and ligand clusters into /clusters\n"
          "  sitepack split FILE.h5 [--test 0.1] [--val 0.1] [--seed S] [--by protein|ligand|both] [--name N]\n"
          "                                   leakage-aware train/val/test sides into /splits (docs/usage.md)\n"
          "  sitepack --help | --version | help COMMAND (the same as COMMAND --help)\n"
          "\n"
          "exit status of run: 0 the run completed (files that failed are listed in /structures with\n"
          "their error class), 1 the run could not complete (output not writable, MPI or internal error),\n"
          "2 bad command line or job file, unreadable CCD, input missing or without structure files,\n"
          "or output exists without --force. Every command: 2 for a bad command line or a missing file;\n"
          "check, dump, export, survey: 1 for a file that is not a valid sitepack file; each command's\n"
          "--help gives the rest.\n"
          "\n"
          "docs: README.md, docs/usage.md, docs/format.md\n");
}

/* The subcommand called @p name, NULL for none. */
static int (*command(const char *name))(int, char **) {
  static const struct {
    const char *name;
    int (*fn)(int, char **);
  } cmds[] = {{"run", sp_cmd_run},       {"dump", sp_cmd_dump},     {"check", sp_cmd_check},
              {"merge", sp_cmd_merge},   {"bench", sp_cmd_bench},   {"survey", sp_cmd_survey},
              {"export", sp_cmd_export}, {"cluster", sp_cmd_cluster}, {"split", sp_cmd_split},
              {"report", sp_cmd_report}};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    if (!strcmp(name, cmds[i].name)) return cmds[i].fn;
  return NULL;
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
    if (argc == 2) {
      usage(stdout);
      return SP_EXIT_OK;
    }
    if (!strcmp(argv[2], "run")) { /* run --help would need MPI: printed here */
      sp_print_run_help(stdout);
      return SP_EXIT_OK;
    }
    int (*fn)(int, char **) = command(argv[2]);
    if (!fn) {
      fprintf(stderr, "sitepack: help: unknown command '%s' (try: sitepack --help)\n", argv[2]);
      return SP_EXIT_USAGE;
    }
    char *sub[] = {argv[2], "--help", NULL};
    return fn(2, sub);
  }
  int (*fn)(int, char **) = command(cmd);
  if (fn) return fn(argc - 1, argv + 1);
  if (cmd[0] == '-')
    fprintf(stderr, "sitepack: unknown option '%s' (try: sitepack --help)\n", cmd);
  else
    fprintf(stderr, "sitepack: unknown command '%s' (try: sitepack --help)\n", cmd);
  return SP_EXIT_USAGE;
}
