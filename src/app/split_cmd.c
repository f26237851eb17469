/* `sitepack cluster` and `sitepack split`: leakage-aware splits of a merged file (split.h; docs/usage.md
 * "Splits"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/cli_opts.h"
#include "app/cmd_store.h"
#include "sitepack/h5util.h"
#include "sitepack/split.h"

static void cluster_usage(FILE *f) {
  fprintf(f,
          "usage: sitepack cluster FILE.h5 [--identity 0.3,0.9] [--coverage 0.8] [--tanimoto 0.5]\n"
          "                        [--threads N] [--sensitivity S] [--mmseqs PATH] [--force] [--quiet]\n"
          "Adds /clusters to a merged file (docs/format.md \"/clusters\"): the polymer chains' sequences clustered\n"
          "by MMseqs2 at two identities (coverage of both sequences >= --coverage; the low one easy-cluster as\n"
          "connected components, the high one easy-linclust), each site's\n"
          "protein cluster (the chain it contacts most), and ligand clusters (Morgan radius-2 2048-bit\n"
          "fingerprints from the stored bonds, Butina at Tanimoto >= --tanimoto, in molecule-key order).\n"
          "MMseqs2 (Debian mmseqs2) runs in a temporary folder beside FILE.h5 with --threads threads;\n"
          "--sensitivity S (1 to 7.5) is its -s for the coarse level (default: MMseqs2's, 4).\n"
          "exit status: 0 written; 1 MMseqs2 failed, FILE.h5 is damaged or truncated, or it could not be written;\n"
          "2 bad command line, no such file, not a version-3 sitepack file (no /sequences), mmseqs2 not found, or\n"
          "/clusters exists without --force. Nothing is written on an error. Then: sitepack split (docs/usage.md\n"
          "\"Splits\").\n");
}

static void split_usage(FILE *f) {
  fprintf(f,
          "usage: sitepack split FILE.h5 [--test 0.1] [--val 0.1] [--seed S] [--by protein|ligand|both]\n"
          "                      [--name NAME] [--no-listing] [--force] [--quiet]\n"
          "Assigns every site to train, val or test (the column /splits/NAME, default by_<by>) so that no val or\n"
          "test site shares an entry or a protein cluster (the coarse /clusters identity; --by ligand: a\n"
          "ligand cluster; --by both: both) with a train site; ions and buffer-class ligands follow their\n"
          "site's protein. Groups of sites go to a side by a hash of the seed and their smallest entry id;\n"
          "--by both drops val/test sites whose ligand cluster has a train site. Also writes\n"
          "FILE.split-NAME.tsv (one line per site) and FILE.split-NAME.json (sizes, dropped).\n"
          "exit status: 0 written; 1 FILE.h5 is damaged or truncated, or it could not be written; 2 bad command\n"
          "line, no such file, no /clusters (run sitepack cluster first), a side without sites, or the split\n"
          "exists without --force.\n"
          "Nothing is written on an error.\n");
}

/* "0.3,0.9" into two identities. 0 or -1 (message printed). */
static int parse_ids(const char *s, double *lo, double *hi) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", s);
  char *c = strchr(buf, ',');
  if (!c) {
    fprintf(stderr, "sitepack cluster: --identity takes two numbers LOW,HIGH, got '%s'\n", s);
    return -1;
  }
  *c = '\0';
  if (sp_opt_double("cluster", "--identity", buf, 0, 1, 1, lo) ||
      sp_opt_double("cluster", "--identity", c + 1, 0, 1, 1, hi))
    return -1;
  if (*lo >= *hi) {
    fprintf(stderr, "sitepack cluster: --identity LOW,HIGH needs LOW < HIGH, got '%s'\n", s);
    return -1;
  }
  return 0;
}

/* 2 for a bad argument, a missing file or one without what the command needs; 1 otherwise, and for a damaged
   or truncated file, as every reader of a merged file says it (sp_h5_damaged(), issue 39). */
static int exit_of(int rc, const sp_err *err) {
  if (sp_h5_damaged(err)) return SP_EXIT_RUNTIME;
  return rc == SP_E_INVALID || rc == SP_E_NOT_FOUND || rc == SP_E_FORMAT ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
}

int sp_cmd_cluster(int argc, char **argv) {
  static const struct option lo[] = {
      {"identity", required_argument, NULL, 'i'}, {"coverage", required_argument, NULL, 'c'},
      {"tanimoto", required_argument, NULL, 't'}, {"threads", required_argument, NULL, 'j'},
      {"mmseqs", required_argument, NULL, 'm'},   {"force", no_argument, NULL, 'F'},
      {"keep-tmp", no_argument, NULL, 'k'},       {"quiet", no_argument, NULL, 'q'},
      {"sensitivity", required_argument, NULL, 's'},
      {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
  sp_cluster_opts o;
  sp_cluster_opts_default(&o);
  int quiet = 0, ch, bad = 0;
  int64_t thr = 1;
  sp_opt_reset();
  while (!bad && (ch = sp_opt_next("cluster", argc, argv, "h", lo)) != -1) {
    switch (ch) {
      case 'i': bad = parse_ids(optarg, &o.id_low, &o.id_high) != 0; break;
      case 'c': bad = sp_opt_double("cluster", "--coverage", optarg, 0, 0, 1, &o.coverage) != 0; break;
      case 't': bad = sp_opt_double("cluster", "--tanimoto", optarg, 0, 1, 1, &o.tanimoto) != 0; break;
      case 'j': bad = sp_opt_int("cluster", "--threads", optarg, 1, 1024, &thr) != 0; break;
      case 'm': o.mmseqs = optarg; break;
      case 's': bad = sp_opt_double("cluster", "--sensitivity", optarg, 1, 0, 7.5, &o.sensitivity) != 0; break;
      case 'F': o.force = 1; break;
      case 'k': o.keep_tmp = 1; break;
      case 'q': quiet = 1; break;
      case 'h': cluster_usage(stdout); return SP_EXIT_OK;
      default: bad = 1;
    }
  }
  o.threads = (int)thr;
  if (!bad && optind != argc - 1) {
    fprintf(stderr, "sitepack cluster: need exactly one FILE.h5 (try: sitepack cluster --help)\n");
    bad = 1;
  }
  if (bad) /* one line said why (docs/usage.md: one format for command-line errors) */
    return SP_EXIT_USAGE;
  sp_err err = {0};
  sp_cluster_summary s;
  int rc = sp_cluster(argv[optind], &o, &s, &err);
  if (rc) {
    sp_opt_input_error("cluster", argv[optind], rc, err.msg);
    return exit_of(rc, &err);
  }
  if (!quiet)
    printf("sitepack cluster: %lld sites, %lld chains (%lld protein chains, %lld distinct protein sequences): "
           "%lld chain clusters at %.0f %% (%lld of protein chains, the rest other polymers by identical sequence), "
           "%lld at %.0f %% identity (%lld of protein chains; coverage %.2f, %s); %lld sites touch no chain; "
           "%lld molecules in %lld ligand clusters (Tanimoto >= %.2f); %.2f s (read %.2f, mmseqs %.2f, ligands "
           "%.2f, write %.2f)\n",
           (long long)s.n_sites, (long long)s.n_chains, (long long)s.n_protein_chains, (long long)s.n_sequences,
           (long long)s.n_clusters_low, o.id_low * 100, (long long)s.n_protein_clusters_low,
           (long long)s.n_clusters_high, o.id_high * 100, (long long)s.n_protein_clusters_high, o.coverage,
           s.mmseqs_version[0] ? s.mmseqs_version : "mmseqs", (long long)s.n_sites_no_chain, (long long)s.n_molecules,
           (long long)s.n_ligand_clusters, o.tanimoto, s.seconds_total, s.seconds_read, s.seconds_mmseqs,
           s.seconds_ligand, s.seconds_write);
  return SP_EXIT_OK;
}

int sp_cmd_split(int argc, char **argv) {
  static const struct option lo[] = {
      {"test", required_argument, NULL, 't'},  {"val", required_argument, NULL, 'v'},
      {"seed", required_argument, NULL, 's'},  {"by", required_argument, NULL, 'b'},
      {"name", required_argument, NULL, 'n'},  {"no-listing", no_argument, NULL, 'L'},
      {"force", no_argument, NULL, 'F'},       {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
  sp_datasplit_opts o;
  memset(&o, 0, sizeof o);
  o.test = 0.1, o.val = 0.1, o.write_listing = 1;
  int quiet = 0, ch, bad = 0;
  int64_t seed = 0;
  sp_opt_reset();
  while (!bad && (ch = sp_opt_next("split", argc, argv, "h", lo)) != -1) {
    switch (ch) {
      case 't': bad = sp_opt_double("split", "--test", optarg, 0, 0, 0.999999, &o.test) != 0; break;
      case 'v': bad = sp_opt_double("split", "--val", optarg, 0, 0, 0.999999, &o.val) != 0; break;
      case 's': bad = sp_opt_int("split", "--seed", optarg, 0, INT64_MAX, &seed) != 0; break;
      case 'b':
        if (!strcmp(optarg, "protein")) o.by = SP_BY_PROTEIN;
        else if (!strcmp(optarg, "ligand")) o.by = SP_BY_LIGAND;
        else if (!strcmp(optarg, "both")) o.by = SP_BY_BOTH;
        else {
          fprintf(stderr, "sitepack split: --by must be protein, ligand or both, got '%s'\n", optarg);
          bad = 1;
        }
        break;
      case 'n': o.name = optarg; break;
      case 'L': o.write_listing = 0; break;
      case 'F': o.force = 1; break;
      case 'q': quiet = 1; break;
      case 'h': split_usage(stdout); return SP_EXIT_OK;
      default: bad = 1;
    }
  }
  o.seed = (uint64_t)seed;
  if (!bad && o.test + o.val >= 1) {
    fprintf(stderr, "sitepack split: --test + --val must be below 1\n");
    bad = 1;
  }
  if (!bad && optind != argc - 1) {
    fprintf(stderr, "sitepack split: need exactly one FILE.h5 (try: sitepack split --help)\n");
    bad = 1;
  }
  if (bad) /* one line said why (docs/usage.md: one format for command-line errors) */
    return SP_EXIT_USAGE;
  sp_err err = {0};
  sp_datasplit_summary s;
  int rc = sp_split(argv[optind], &o, &s, &err);
  if (rc) {
    sp_opt_input_error("split", argv[optind], rc, err.msg);
    return exit_of(rc, &err);
  }
  if (!quiet) {
    printf("sitepack split: /splits/%s: train %lld, val %lld, test %lld sites (entries %lld / %lld / %lld), dropped "
           "%lld; %lld components, largest %lld sites (%.2f s)\n",
           s.name, (long long)s.sites[0], (long long)s.sites[1], (long long)s.sites[2], (long long)s.entries[0],
           (long long)s.entries[1], (long long)s.entries[2], (long long)s.dropped, (long long)s.n_components,
           (long long)s.largest_component, s.seconds);
    if (o.write_listing) printf("sitepack split: %s, %s\n", s.tsv_path, s.json_path);
  }
  return SP_EXIT_OK;
}
