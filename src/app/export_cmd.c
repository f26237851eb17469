/* `sitepack export`: ligand SDF and pocket PDB/mmCIF files of a merged file (export.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/cli_opts.h"
#include "app/cmd_store.h"
#include "sitepack/export.h"
#include "sitepack/survey.h"

static void export_usage(FILE *f) {
  fprintf(f,
          "usage: sitepack export FILE.h5 (--site I[,J..] | --all | --class C | --comp COMP)\n"
          "                       [--format sdf,pdb,cif] --out DIR|- [--force] [--quiet]\n"
          "For each selected site: DIR/<entry>_<comp>_<chain>_<seq>[ins]_ligand.sdf (--format sdf) and the\n"
          "pocket _pocket.pdb (pdb) or _pocket.cif (cif), _site<I> added where two sites of the file share\n"
          "the name (the same for every selection); default --format sdf,pdb. --out - writes one stream\n"
          "to standard output: every SDF record first (a multi-molecule SDF), then the pockets.\n"
          "Site indices are rows of /sites (sitepack dump FILE.h5 sites); --class takes a /ligands/class\n"
          "(small_molecule, ion, artifact, glycan, cofactor, peptide, unknown, lipid, detergent);\n"
          "--comp a comp_id.\n"
          "exit status: 0 written, 1 a file could not be read or written (FILE.h5 not a sitepack file, damaged:\n"
          "sitepack check's checks run first), 2 bad command line, no such\n"
          "file, a site that does not exist / a selection that matches nothing, or an output file that\n"
          "exists (without --force).\n");
}

/* "I[,J..]" into a new array; 0, or -1 with a message. */
static int parse_sites(const char *s, int64_t **out, size_t *n) {
  size_t cap = 1;
  for (const char *p = s; *p; p++) cap += *p == ',';
  int64_t *v = malloc(cap * sizeof *v);
  if (!v) return -1;
  size_t k = 0;
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf) {
    fprintf(stderr, "sitepack export: --site list longer than %zu bytes\n", sizeof buf - 1);
    free(v);
    return -1;
  }
  for (char *t = buf, *e; t; t = e) {
    e = strchr(t, ',');
    if (e) *e++ = '\0';
    int64_t x;
    if (sp_opt_int("export", "--site", t, 0, INT64_MAX, &x)) {
      free(v);
      return -1;
    }
    v[k++] = x;
  }
  *out = v;
  *n = k;
  return 0;
}

static int parse_formats(const char *s, unsigned *f) {
  *f = 0;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
    if (!strcmp(t, "sdf")) *f |= SP_EXPORT_SDF;
    else if (!strcmp(t, "pdb")) *f |= SP_EXPORT_PDB;
    else if (!strcmp(t, "cif")) *f |= SP_EXPORT_CIF;
    else {
      fprintf(stderr, "sitepack export: unknown --format '%s' (sdf, pdb, cif, comma-separated)\n", t);
      return -1;
    }
  }
  return *f ? 0 : -1;
}

/* --class C: one of the /ligands/class names (survey.h sp_ligand_class_name); 0, or -1 with a message. */
static int check_class(const char *c) {
  for (int k = 0; k < SP_CLASS_COUNT; k++)
    if (!strcmp(c, sp_ligand_class_name(k))) return 0;
  fprintf(stderr, "sitepack export: unknown class '%s' (valid:", c);
  for (int k = 0; k < SP_CLASS_COUNT; k++) fprintf(stderr, "%s %s", k ? "," : "", sp_ligand_class_name(k));
  fprintf(stderr, ")\n");
  return -1;
}

/* What the SDF records say of their chemistry, one line each kind that occurs (docs/usage.md "Export"). */
static void export_notes(const sp_export_summary *sum) {
  if (sum->n_single_bond_fallback)
    fprintf(stderr, "sitepack export: %lld ligands with bond orders not known, written as single bonds (SD field "
            "bond_orders)\n", (long long)sum->n_single_bond_fallback);
  if (sum->n_valence_charged)
    fprintf(stderr, "sitepack export: %lld atoms without a CCD charge charged by valence (SD field valence_charges)\n",
            (long long)sum->n_valence_charged);
  if (sum->n_over_valence)
    fprintf(stderr, "sitepack export: %lld ligands with an atom above its valence, not sanitizable (SD field warning)\n",
            (long long)sum->n_over_valence);
  if (sum->n_link_hydrogens)
    fprintf(stderr, "sitepack export: %lld deposited hydrogens on linked atoms left out (SD field link_hydrogens)\n",
            (long long)sum->n_link_hydrogens);
  if (sum->n_fragmented)
    fprintf(stderr, "sitepack export: %lld ligands written as several disconnected fragments (SD field fragments)\n",
            (long long)sum->n_fragmented);
}

int sp_cmd_export(int argc, char **argv) {
  static const struct option longopts[] = {
      {"site", required_argument, NULL, 's'}, {"all", no_argument, NULL, 'a'},
      {"class", required_argument, NULL, 'c'}, {"comp", required_argument, NULL, 'C'},
      {"format", required_argument, NULL, 'f'}, {"out", required_argument, NULL, 'o'},
      {"force", no_argument, NULL, 'F'}, {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  sp_export_opts o;
  memset(&o, 0, sizeof o);
  o.formats = SP_EXPORT_SDF | SP_EXPORT_PDB;
  int64_t *sites = NULL;
  const char *out = NULL;
  int quiet = 0, ch, bad = 0;
  sp_opt_reset();
  while (!bad && (ch = sp_opt_next("export", argc, argv, "h", longopts)) != -1) {
    switch (ch) {
      case 's': free(sites); sites = NULL; bad = parse_sites(optarg, &sites, &o.n_sites) != 0; break;
      case 'a': o.all = 1; break;
      case 'c': o.cls = optarg; bad = check_class(optarg) != 0; break;
      case 'C': o.comp = optarg; break;
      case 'f': bad = parse_formats(optarg, &o.formats) != 0; break;
      case 'o': out = optarg; break;
      case 'F': o.force = 1; break;
      case 'q': quiet = 1; break;
      case 'h': export_usage(stdout); free(sites); return SP_EXIT_OK;
      default: bad = 1; /* sp_opt_next printed why */
    }
  }
  o.sites = sites;
  if (!bad && (optind != argc - 1 || !out || !out[0])) {
    fprintf(stderr, "sitepack export: need exactly one FILE.h5 and --out DIR|- (try: sitepack export --help)\n");
    bad = 1;
  }
  if (bad) { /* one line said why (docs/usage.md: one format for command-line errors) */
    free(sites);
    return SP_EXIT_USAGE;
  }
  if (!strcmp(out, "-")) o.stream = stdout;
  else o.out_dir = out;
  sp_err err = {0};
  sp_export_summary sum;
  int rc = sp_export(argv[optind], &o, &sum, &err);
  free(sites);
  if (rc) {
    sp_opt_input_error("export", argv[optind], rc, err.msg);
    /* as check and survey: a file that is no (valid) sitepack file is 1, a wrong argument 2 */
    return rc == SP_E_INVALID || rc == SP_E_NOT_FOUND ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
  }
  if (!quiet && o.out_dir)
    fprintf(stderr, "sitepack export: %lld site%s, %lld file%s in %s (%.3f s; tables loaded in %.3f s)\n",
            (long long)sum.n_sites, sum.n_sites == 1 ? "" : "s", (long long)sum.n_files, sum.n_files == 1 ? "" : "s",
            out, sum.seconds, sum.load_seconds);
  if (!quiet) export_notes(&sum);
  return SP_EXIT_OK;
}
