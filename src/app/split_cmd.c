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
          "exit status: 0 written; 1 MMseqs2 failed, FILE.h5 is not HDF5 (a zero-byte or text file), damaged or\n"
          "truncated, or it could not be written;\n"
          "2 bad command line, no such file, not a version-3 sitepack file (no /sequences), mmseqs2 not found, or\n"
          "/clusters exists without --force. Nothing is written on an error. Then: sitepack split (docs/usage.md\n"
          "\"Splits\").\n");
}

static void split_usage(FILE *f) {
  fprintf(f,
          "usage: sitepack split FILE.h5 [--test 0.1] [--val 0.1] [--seed S] [--by protein|ligand|both|time]\n"
          "                      [--before YYYY-MM-DD] [--no-time-rules] [--max-tanimoto 0.5] [--keep-copies]\n"
          "                      [--non-redundant] [--no-scores] [--mmseqs PATH] [--threads N] [--name NAME]\n"
          "                      [--no-listing] [--force] [--quiet]\n"
          "Assigns every site to train, val or test (the column /splits/NAME, default by_<by>) so that no val or\n"
          "test site shares an entry or a coarse protein cluster (of any polymer chain it contacts) with a train\n"
          "site (--by protein), or a ligand component (molecules joined at Tanimoto >= --max-tanimoto on the\n"
          "/clusters fingerprints: no val/test ligand that similar to a train one; --by ligand), or both (--by\n"
          "both: protein components; val/test sites of a train ligand component dropped). Ions and buffer-class\n"
          "ligands follow their site's protein. --by time: train is released (else deposited) before --before,\n"
          "val and test after it; after-cut sites sharing a protein cluster or ligand component with train are\n"
          "dropped unless --no-time-rules. Groups of sites, in order of a hash of the seed and their smallest\n"
          "entry id, fill test and then val up to their fractions (within 2 points when the groups allow; the\n"
          "summary says by how much otherwise). Sites of later files of an entry (a PDB file beside its mmCIF)\n"
          "go on no side (code copy) unless --keep-copies; --non-redundant keeps one site per (90 %% protein\n"
          "cluster, molecule), the best by resolution, completeness, occupancy, entry id (the rest: redundant).\n"
          "Also writes FILE.split-NAME.tsv (one line per site) and FILE.split-NAME.json (sizes asked and got,\n"
          "dropped, the largest cross-side Tanimoto).\n"
          "Leakage scores of each val/test site (unless --no-scores; /split_scores/NAME and the TSV): the largest\n"
          "identity of a chain it contacts to a train site's chain (MMseqs2 easy-search, 80 %% coverage), the\n"
          "largest Tanimoto to a train ligand, and the stratum novel_protein (identity < 0.3), novel_ligand\n"
          "(Tanimoto < --max-tanimoto), novel_both or not_novel.\n"
          "exit status: 0 written; 1 FILE.h5 is not HDF5 (a zero-byte or text file), damaged or truncated, or it\n"
          "could not be written; 2 bad command\n"
          "line or option out of range, no such file, no /clusters (run sitepack cluster first), mmseqs2 not\n"
          "found (scores), a side without sites, or the split exists without --force. Nothing is written on an\n"
          "error.\n");
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

/* 2 for a bad argument, a missing file or one without what the command needs; 1 otherwise, and for a file that
   is not HDF5, damaged or truncated, as every reader of a merged file says it (sp_h5_damaged(), issue 39). */
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
           "%lld at %.0f %% identity (%lld of protein chains; coverage %.2f, MMseqs2 %s); %lld %s no chain; "
           "%lld molecules in %lld ligand clusters (Tanimoto >= %.2f); %.2f s (read %.2f, mmseqs %.2f, ligands "
           "%.2f, write %.2f)\n",
           (long long)s.n_sites, (long long)s.n_chains, (long long)s.n_protein_chains, (long long)s.n_sequences,
           (long long)s.n_clusters_low, o.id_low * 100, (long long)s.n_protein_clusters_low,
           (long long)s.n_clusters_high, o.id_high * 100, (long long)s.n_protein_clusters_high, o.coverage,
           s.mmseqs_version[0] ? s.mmseqs_version : "version unknown", (long long)s.n_sites_no_chain,
           s.n_sites_no_chain == 1 ? "site touches" : "sites touch", (long long)s.n_molecules,
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
      {"max-tanimoto", required_argument, NULL, 'T'}, {"before", required_argument, NULL, 'B'},
      {"no-time-rules", no_argument, NULL, 'R'}, {"keep-copies", no_argument, NULL, 'K'},
      {"no-scores", no_argument, NULL, 'S'},   {"mmseqs", required_argument, NULL, 'm'},
      {"threads", required_argument, NULL, 'j'}, {"non-redundant", no_argument, NULL, 'N'},
      {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
  sp_datasplit_opts o;
  sp_datasplit_opts_default(&o);
  int quiet = 0, ch, bad = 0;
  int64_t seed = 0, thr = 1;
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
        else if (!strcmp(optarg, "time")) o.by = SP_BY_TIME;
        else {
          fprintf(stderr, "sitepack split: --by must be protein, ligand, both or time, got '%s'\n", optarg);
          bad = 1;
        }
        break;
      case 'n': o.name = optarg; break;
      case 'L': o.write_listing = 0; break;
      case 'T': bad = sp_opt_double("split", "--max-tanimoto", optarg, 0, 1, 1, &o.max_tanimoto) != 0; break;
      case 'B': o.before = optarg; break;
      case 'R': o.time_rules = 0; break;
      case 'K': o.keep_copies = 1; break;
      case 'S': o.scores = 0; break;
      case 'N': o.non_redundant = 1; break;
      case 'm': o.mmseqs = optarg; break;
      case 'j': bad = sp_opt_int("split", "--threads", optarg, 1, 1024, &thr) != 0; break;
      case 'F': o.force = 1; break;
      case 'q': quiet = 1; break;
      case 'h': split_usage(stdout); return SP_EXIT_OK;
      default: bad = 1;
    }
  }
  o.seed = (uint64_t)seed, o.threads = (int)thr;
  if (!bad && o.test + o.val >= 1) {
    fprintf(stderr, "sitepack split: --test + --val must be below 1\n");
    bad = 1;
  }
  if (!bad && (o.by == SP_BY_TIME) != (o.before != NULL)) {
    fprintf(stderr, "sitepack split: --by time and --before YYYY-MM-DD go together\n");
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
    printf(
        "sitepack split: /splits/%s: train %lld, val %lld, test %lld sites (entries %lld / %lld / %lld), dropped "
        "%lld, copies %lld, undated %lld, redundant %lld; %lld components, largest %lld sites; got %.1f / %.1f / "
        "%.1f %% for %.1f / %.1f / %.1f %% asked (off by %.1f points%s); largest train-val/test Tanimoto %.3f "
        "(ions, artifacts, detergents excepted; bound < %.2f%s) (%.2f s)\n",
        s.name, (long long)s.sites[0], (long long)s.sites[1], (long long)s.sites[2], (long long)s.entries[0],
        (long long)s.entries[1], (long long)s.entries[2], (long long)s.dropped, (long long)s.copies,
        (long long)s.undated, (long long)s.redundant, (long long)s.n_components, (long long)s.largest_component,
        100 * s.got[0], 100 * s.got[1], 100 * s.got[2], 100 * s.asked[0], 100 * s.asked[1], 100 * s.asked[2],
        100 * s.deviation, s.deviation > 0.02 ? ": more than 2, the components allow no closer fill" : "",
        s.max_cross_tanimoto, o.max_tanimoto,
        o.by == SP_BY_PROTEIN || (o.by == SP_BY_TIME && !o.time_rules) ? ": not applied" : "", s.seconds);
    for (int k = 0; s.scored && k < 2; k++)
      printf("sitepack split: %s strata: not_novel %lld, novel_protein %lld, novel_ligand %lld, novel_both %lld%s\n",
             k ? "test" : "val", (long long)s.strata[k][0], (long long)s.strata[k][1], (long long)s.strata[k][2],
             (long long)s.strata[k][3], "");
    if (s.scored)
      printf("sitepack split: leakage scores /split_scores/%s: largest val/test-train chain identity %.3f (MMseqs2, "
             "80 %% coverage; %.2f s)\n", s.name, s.max_cross_identity, s.seconds_scores);
    if (o.write_listing) printf("sitepack split: %s, %s\n", s.tsv_path, s.json_path);
  }
  return SP_EXIT_OK;
}
