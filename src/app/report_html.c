/* `sitepack report FILE.h5 --out report.html` (issue 38; app/report_html.h, docs/report.md): one
 * self-contained HTML page of the survey as plots, and with --site a 3D view of each site named. The data are
 * aggregates (report_html_data.c) written as one JSON object into the page, drawn by the embedded Chart.js and
 * 3Dmol.js (third_party/, compiled in: report_assets.h) and the page's own script (report_html.js). The file
 * passes sitepack check's checks first; the page is written to OUT.tmp and renamed, so nothing is left on an
 * error; an existing OUT is replaced only with --force. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app/app.h"
#include "app/cli_opts.h"
#include "app/report_assets.h"
#include "app/report_html.h"
#include "sitepack/store.h"
#include "sitepack/version.h"

#define SP_REPORT_MAX_SITES 64 /* 3D views in one page: each is a WebGL context; browsers keep about 16 live */

typedef struct report_opts {
  const char *path, *out, *sites_arg;
  int64_t sites[SP_REPORT_MAX_SITES];
  size_t n_sites;
  int force, quiet;
} report_opts;

static void usage(FILE *f) {
  fprintf(f,
          "usage: sitepack report FILE.h5 --out REPORT.html [--site I[,J...]] [--ccd FILE] [--force] [--quiet]\n"
          "  one self-contained HTML page (no network needed to view it) of the survey of a merged file as\n"
          "  plots, each with its numbers: ligand classes, comp ids, method, resolution, release years, pocket\n"
          "  sizes, interactions per type per ligand class, protein context, clusters, splits, descriptors and\n"
          "  quality when the file has them (docs/report.md). Aggregates only: its size does not grow with the\n"
          "  file. --site adds a 3D view of each /sites row named (0-based; at most %d): ligand, pocket\n"
          "  residues, interactions as dashed lines by type, the waters of water bridges. A site named twice gets\n"
          "  one view; an empty item (0,,1) is a bad command line.\n"
          "  --ccd FILE  the CCD to confirm molecule-key groups with (default the run's, as sitepack survey)\n"
          "  --force     replace an existing REPORT.html\n"
          "exit status: 0 written; 1 FILE.h5 is not a valid sitepack file (sitepack check's error) or the page\n"
          "cannot be written; 2 bad command line, no such file, REPORT.html exists without --force, a site out\n"
          "of range. Nothing is written on an error.\n",
          SP_REPORT_MAX_SITES);
}

/* --site I[,J...]: 0-based rows, at most SP_REPORT_MAX_SITES distinct ones; a repeated row is kept once (its
 * first place), an empty item ("0,,1", a leading or trailing comma) is an error. 0 or -1 after saying why. */
static int parse_sites(const char *text, report_opts *o) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf) {
    fprintf(stderr, "sitepack report: --site: list too long\n");
    return -1;
  }
  for (char *t = buf, *next; t; t = next) {
    next = strchr(t, ',');
    if (next) *next++ = '\0';
    if (!*t) {
      fprintf(stderr, "sitepack report: invalid_argument: --site: empty item in '%s'\n", text);
      return -1;
    }
    int64_t v;
    if (sp_opt_int("report", "--site", t, 0, INT64_MAX, &v)) return -1;
    int seen = 0;
    for (size_t k = 0; k < o->n_sites && !seen; ++k) seen = o->sites[k] == v;
    if (seen) continue;
    if (o->n_sites == SP_REPORT_MAX_SITES) {
      fprintf(stderr, "sitepack report: --site: at most %d sites\n", SP_REPORT_MAX_SITES);
      return -1;
    }
    o->sites[o->n_sites++] = v;
  }
  return 0;
}

/* -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, report_opts *o, sp_file_survey *s) {
  static const struct option longopts[] = {{"out", required_argument, NULL, 'o'}, {"site", required_argument, NULL, 's'},
                                           {"ccd", required_argument, NULL, 'c'}, {"force", no_argument, NULL, 'f'},
                                           {"quiet", no_argument, NULL, 'q'},     {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int opt;
  sp_opt_reset();
  while ((opt = sp_opt_next("report", argc, argv, "ho:q", longopts)) != -1) {
    if (opt == '?') return SP_EXIT_USAGE;
    if (opt == 'h') return usage(stdout), SP_EXIT_OK;
    if (opt == 'o') o->out = optarg;
    else if (opt == 's' && parse_sites(optarg, o)) return SP_EXIT_USAGE;
    else if (opt == 'c') s->ccd_arg = optarg;
    else if (opt == 'f') o->force = 1;
    else if (opt == 'q') o->quiet = 1;
  }
  if (argc - optind > 1) {
    fprintf(stderr, "sitepack report: unexpected argument: %s (one FILE.h5)\n", argv[optind + 1]);
    return SP_EXIT_USAGE;
  }
  if (optind < argc) o->path = s->path = argv[optind];
  if (!o->path || !o->out) {
    if (o->path) fprintf(stderr, "sitepack report: --out REPORT.html is required\n");
    else usage(stderr);
    return SP_EXIT_USAGE;
  }
  struct stat st;
  if (!o->force && stat(o->out, &st) == 0) {
    fprintf(stderr, "sitepack report: invalid_argument: %s exists (use --force to overwrite)\n", o->out);
    return SP_EXIT_USAGE;
  }
  return -1;
}

/* The page's data: the file, its /run attributes, the sections and the sites. NULL with @p err set. */
static cJSON *page_data(const report_opts *o, const sp_file_survey *s, hid_t f, int *status, sp_err *err) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "file", o->path);
  cJSON_AddStringToObject(root, "report_tool_version", SP_VERSION);
  cJSON *run = cJSON_AddObjectToObject(root, "run");
  static const char *const attrs[] = {"tool_version", "git_sha", "created", "ccd_path"};
  for (size_t k = 0; k < 4; ++k) {
    char buf[1024] = "";
    if (!sp_run_attr_str(o->path, attrs[k], buf, sizeof buf, NULL)) cJSON_AddStringToObject(run, attrs[k], buf);
  }
  int rc = sp_rh_sections(s, f, cJSON_AddArrayToObject(root, "sections"), err);
  cJSON *sites = cJSON_AddArrayToObject(root, "sites");
  for (size_t k = 0; k < o->n_sites && !rc; ++k) rc = sp_rh_site(s, f, o->sites[k], sites, err);
  if (rc) {
    *status = rc == SP_E_INVALID ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}

/* Write @p s, HTML-escaped (text of an element or attribute). */
static void put_escaped(FILE *o, const char *s) {
  for (; *s; ++s) {
    if (*s == '<') fputs("&lt;", o);
    else if (*s == '>') fputs("&gt;", o);
    else if (*s == '&') fputs("&amp;", o);
    else if (*s == '"') fputs("&quot;", o);
    else fputc(*s, o);
  }
}

/* The JSON inside <script type="application/json">: every '<' as \u003c (only inside strings in JSON), so no
 * "</script" can end the element early. */
static void put_json(FILE *o, const char *json) {
  for (; *json; ++json)
    if (*json == '<') fputs("\\u003c", o);
    else fputc(*json, o);
}

static void put_script(FILE *o, const unsigned char *js, size_t n) {
  fputs("<script>", o);
  fwrite(js, 1, n, o);
  fputs("</script>\n", o);
}

/* Before any library: every uncaught error and console.error of the page goes to window.__spErrors, which the
 * page's code reports in #sp-status (docs/report.md "Checks"). */
#define ERROR_CATCHER                                                                                              \
  "<script>window.__spErrors=[];window.addEventListener('error',function(e){window.__spErrors.push(String("      \
  "e.message||e));});(function(){var c=console.error;console.error=function(){window.__spErrors.push("            \
  "Array.prototype.join.call(arguments,' '));return c.apply(console,arguments);};})();</script>\n"

static int write_page(FILE *o, const report_opts *opt, const char *json) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>sitepack report: ", o);
  put_escaped(o, opt->path);
  fputs("</title>\n", o);
  fputs(ERROR_CATCHER, o);
  fputs("<style>", o);
  fwrite(sp_asset_page_css, 1, sp_asset_page_css_len, o);
  fputs("</style></head>\n<body><div id=\"sp-app\"></div>\n<script type=\"application/json\" id=\"sp-data\">", o);
  put_json(o, json);
  fputs("</script>\n", o);
  put_script(o, sp_asset_chartjs, sp_asset_chartjs_len);
  if (opt->n_sites) put_script(o, sp_asset_3dmol, sp_asset_3dmol_len);
  put_script(o, sp_asset_page_js, sp_asset_page_js_len);
  fputs("</body></html>\n", o);
  return ferror(o) ? -1 : 0;
}

/* OUT.tmp, then rename to OUT. 0 or the exit status after saying why. */
static int write_out(const report_opts *o, const char *json) {
  char tmp[4200];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", o->out) >= (int)sizeof tmp) {
    fprintf(stderr, "sitepack report: output path too long: %s\n", o->out);
    return SP_EXIT_USAGE;
  }
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "sitepack report: io_error: cannot write %s: %s\n", tmp, strerror(errno));
    return SP_EXIT_RUNTIME;
  }
  int bad = write_page(f, o, json);
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, o->out)) {
    fprintf(stderr, "sitepack report: io_error: cannot write %s: %s\n", o->out, strerror(errno));
    remove(tmp);
    return SP_EXIT_RUNTIME;
  }
  return SP_EXIT_OK;
}

/* Load, count and draw: the exit status. */
static int report(report_opts *o, sp_file_survey *s) {
  int status = sp_fsurvey_load(s);
  if (status >= 0) return status;
  if (sp_fsurvey_count(s) || (sp_fsurvey_open_ccd(s), sp_fsurvey_sort_by_key(s))) {
    fprintf(stderr, "sitepack report: out of memory\n");
    return SP_EXIT_RUNTIME;
  }
  sp_err err = {0};
  hid_t f = sp_rh_open(o->path, &err);
  if (f < 0) {
    sp_opt_input_error("report", o->path, err.cls, err.msg);
    return SP_EXIT_RUNTIME;
  }
  status = SP_EXIT_RUNTIME;
  cJSON *root = page_data(o, s, f, &status, &err);
  H5Fclose(f);
  if (!root) {
    sp_opt_input_error("report", o->path, err.cls, err.msg);
    return status;
  }
  char *json = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  if (!json) {
    fprintf(stderr, "sitepack report: out of memory\n");
    return SP_EXIT_RUNTIME;
  }
  status = write_out(o, json);
  if (!status && !o->quiet) {
    struct stat st;
    printf("sitepack report: %s (%.1f kB, %zu site view%s) of %s\n", o->out,
           stat(o->out, &st) ? 0.0 : (double)st.st_size / 1e3, o->n_sites, o->n_sites == 1 ? "" : "s", o->path);
  }
  free(json);
  return status;
}

int sp_cmd_report(int argc, char **argv) {
  report_opts o;
  sp_file_survey s;
  memset(&o, 0, sizeof o);
  memset(&s, 0, sizeof s);
  s.cmd = "report";
  int status = parse_args(argc, argv, &o, &s);
  if (status < 0) status = report(&o, &s);
  sp_fsurvey_free(&s);
  return status;
}
