/* `sitepack survey FILE.h5`: the ligand survey summary of a merged file (app/cmd_survey.h). The tables and
 * counts are survey_data.c's (app/survey_data.h), shared with `sitepack report`; this file prints them. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/cmd_survey.h"
#include "app/cli_opts.h"
#include "app/survey_data.h"
#include "sitepack/split.h"
#include "sitepack/survey.h"

#define at sp_table_at

static void usage(FILE *f) {
  fprintf(f, "usage: sitepack survey FILE.h5 [--ccd FILE] [--per-comp] [--quiet]\n"
             "  the ligand survey of a merged file: instances by class, distinct molecules, comp ids not\n"
             "  in the CCD, per comp id instances and molecules, comp ids sharing a molecule key (confirmed\n"
             "  by exact graph isomorphism of their CCD definitions; --ccd, default the run's CCD).\n"
             "  The per-comp-id table is printed when there are at most 50 comp ids, or always with --per-comp.\n"
             "exit status: 0 printed; 1 FILE.h5 is not a valid sitepack file (sitepack check's checks run\n"
             "first); 2 bad command line, no such file, a --ccd that cannot be opened.\n");
}

/* Step 1: the command line. -1 to go on, else the exit status. */
static int parse_survey_args(int argc, char **argv, sp_file_survey *s) {
  static const struct option longopts[] = {{"ccd", required_argument, NULL, 'c'},
                                           {"per-comp", no_argument, NULL, 'p'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int opt;
  sp_opt_reset();
  while ((opt = sp_opt_next("survey", argc, argv, "hq", longopts)) != -1) {
    if (opt == '?') return SP_EXIT_USAGE;
    if (opt == 'h') {
      usage(stdout);
      return SP_EXIT_OK;
    }
    if (opt == 'c') s->ccd_arg = optarg;
    else if (opt == 'p') s->per_comp = true;
    else if (opt == 'q') s->quiet = true;
  }
  if (argc - optind > 1) {
    fprintf(stderr, "sitepack survey: unexpected argument: %s (one FILE.h5)\n", argv[optind + 1]);
    return SP_EXIT_USAGE;
  }
  if (optind < argc) s->path = argv[optind];
  if (!s->path) {
    usage(stderr);
    return SP_EXIT_USAGE;
  }
  return -1;
}

/* The structures by status, in the words of the run's summary (report.c run_summary_print): "structures:
 * N (ok A, failed B (class n, ...), duplicates D, repeated_entry R)"; a duplicate or a repeated entry is
 * not processed, neither ok nor failed (store/totals.c counts them so too). */
static void print_structures(const sp_file_survey *s) {
  printf("structures: %zu (ok %zu, failed %zu", s->st.n_rows, s->n_ok, sp_fsurvey_failed(s));
  const char *sep = " (";
  for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
    if (s->by_status[k] && k != SP_E_DUPLICATE && k != SP_E_REPEATED_ENTRY) {
      printf("%s%s %zu", sep, sp_errclass_name(k), s->by_status[k]);
      sep = ", ";
    }
  if (s->n_other) {
    printf("%sother %zu", sep, s->n_other);
    sep = ", ";
  }
  if (sep[0] == ',') printf(")");
  if (s->by_status[SP_E_DUPLICATE]) printf(", duplicates %zu", s->by_status[SP_E_DUPLICATE]);
  if (s->by_status[SP_E_REPEATED_ENTRY]) printf(", repeated_entry %zu", s->by_status[SP_E_REPEATED_ENTRY]);
  printf(")\n");
}

/* Step 3: the summary lines, and the per-comp-id table (at most 50 comp ids, or --per-comp). */
static void print_summary(const sp_file_survey *s) {
  const sp_table *cp = &s->cp;
  printf("survey of %s\n", s->path);
  print_structures(s);
  printf("ligand instances: %zu; distinct molecules (molecule keys): %zu; instances without a key: %zu\n",
         s->lg.n_rows, s->n_mol, s->n_nokey);
  printf("instances by class:");
  for (int k = 0; k < SP_CLASS_COUNT; ++k)
    printf(" %s %zu%s", sp_ligand_class_name(k), s->by_class[k], k + 1 < SP_CLASS_COUNT ? "," : "\n");
  printf("comp ids (first residue of an instance or any residue of one): %zu; not in the CCD: %zu\n", s->nc,
         s->n_not_in);
  if (s->n_not_in) {
    printf("not in the CCD:");
    for (size_t r = 0; r < s->nc; ++r)
      if (!strcmp(at(cp, r, s->c_in), "0")) printf(" %s", at(cp, r, s->c_comp));
    printf("\n");
  }
  sp_survey_print_quality(s->path); /* issue 36: descriptors and site quality */
  if ((s->per_comp || s->nc <= 50) && !s->quiet) {
    printf("\nper comp id (instances whose first residue has it):\ncomp_id\tinstances\tmolecules\tclasses\n");
    for (size_t r = 0; r < s->nc; ++r) {
      const sp_comp_stat *c = &s->cs[r];
      if (!c->instances) continue;
      printf("%s\t%zu\t%zu\t", c->comp_id, c->instances, c->n_keys);
      bool first = true;
      for (int k = 0; k < SP_CLASS_COUNT; ++k)
        if (c->classes & (1u << k)) printf("%s%s", first ? "" : ",", sp_ligand_class_name(k)), first = false;
      printf("\n");
    }
  }
}

/* Step 4: the protein context (docs/format.md "/chains", "/ligands"): chains, their UniProt coverage and
 * polymer types, and the PLINDER systems of the ligands. 0 or -1 (out of memory). */
static int print_context(const sp_file_survey *s) {
  sp_fsurvey_context c;
  if (sp_fsurvey_context_get(s, &c)) return -1;
  if (!c.present) return 0;
  printf("polymer chains: %zu; with a UniProt reference: %zu (%.1f %%), distinct UniProt accessions: %zu\n",
         c.n_chains, c.n_unp, c.n_chains ? 100.0 * (double)c.n_unp / (double)c.n_chains : 0.0, c.n_acc);
  printf("chains by type:");
  for (size_t i = 0; i < c.n_types; ++i)
    printf("%s %s %zu", i ? "," : "", *c.type_name[i] ? c.type_name[i] : "(none)", c.type_count[i]);
  printf("\n");
  printf("systems (ligands of one model within 4 A, PLINDER): %zu; of 2 or more ligands: %zu, holding %zu "
         "ligands; largest: %ld\n", c.n_sys, c.n_multi, c.in_multi, c.largest);
  sp_fsurvey_context_free(&c);
  return 0;
}

/* One key group's line (sp_fsurvey_key_groups callback); the table's header before the first. */
static void print_group(const sp_file_survey *s, size_t i, size_t j, const char *verdict, void *arg) {
  size_t *n = arg;
  if (s->quiet) return;
  if (!(*n)++) printf("\ncomp ids that share a molecule key:\nmolecule_key\tcomp_ids\tconfirmation\n");
  printf("%s\t", at(&s->cp, s->order[i], s->c_key));
  for (size_t k = i; k < j; ++k) printf("%s%s", k > i ? " " : "", at(&s->cp, s->order[k], s->c_comp));
  printf("\t%s\n", verdict);
}

/* Step 5: comp ids sharing a molecule key (groups of two or more), each with its verdict, and the
 * closing count line. */
static void print_key_groups(const sp_file_survey *s) {
  size_t printed = 0;
  sp_key_groups g;
  sp_fsurvey_key_groups(s, print_group, &printed, &g);
  printf("key groups (comp ids sharing a molecule key): %zu; confirmed %zu, WL collisions %zu, unconfirmed or "
         "undecided %zu%s\n",
         g.groups, g.confirmed, g.collisions, g.unconfirmed, s->ccd ? "" : " (no CCD to confirm with: give --ccd)");
}

/* The splits of sitepack split with their leakage strata (sp_split_report), when the file has any. */
static void print_splits(const sp_file_survey *s) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  int n = 0;
  sp_err err = {0};
  if (m && !sp_split_report(s->path, m, &n, &err) && n) {
    fclose(m), m = NULL;
    printf("\nsplits (sitepack split; docs/usage.md \"Leakage scores\"):\n%s", text);
  }
  if (m) fclose(m);
  free(text);
}

int sp_cmd_survey(int argc, char **argv) {
  sp_file_survey s;
  memset(&s, 0, sizeof s);
  s.cmd = "survey";
  int status = parse_survey_args(argc, argv, &s);
  if (status >= 0) return status;
  status = sp_fsurvey_load(&s);
  if (status < 0) {
    status = SP_EXIT_OK;
    int oom = sp_fsurvey_count(&s);
    if (!oom) {
      print_summary(&s);
      oom = print_context(&s);
    }
    if (!oom) {
      sp_fsurvey_open_ccd(&s);
      oom = sp_fsurvey_sort_by_key(&s);
    }
    if (!oom) print_key_groups(&s);
    if (!oom && !s.quiet) print_splits(&s);
    if (oom) {
      fprintf(stderr, "sitepack survey: out of memory\n");
      status = SP_EXIT_RUNTIME;
    }
  }
  sp_fsurvey_free(&s);
  return status;
}
