/* sitepack CLI: `sitepack report` (issue 38), its parts: the command (report_html.c), the aggregates of the
 * merged file (report_html_data.c), the 3D site blocks (report_html_site.c) and whole-column HDF5 reads
 * (report_html_h5.c). The page's data is one JSON object (docs/report.md "Data"): sections of plots, each plot
 * a set of labels and one or more series of numbers, drawn by src/app/report_html.js. Not a public header. */
#ifndef SITEPACK_REPORT_HTML_H
#define SITEPACK_REPORT_HTML_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "app/survey_data.h"
#include "sitepack/error.h"

/* `sitepack report FILE.h5 --out report.html [--site I[,J...]] [--ccd FILE] [--force] [--quiet]`
 * (argv[0] = "report"). Returns 0; 1 the file is not a valid sitepack file (sitepack check's error) or the page
 * cannot be written; 2 bad command line, no such file, the output exists without --force, a site out of range. */
int sp_cmd_report(int argc, char **argv);

/* ------------------------------------------------------------ HDF5 reads (report_html_h5.c) */

/* The merged file @p path, read-only (after sp_check passed). < 0 with SP_E_FORMAT / SP_E_HDF5 in @p err. */
hid_t sp_rh_open(const char *path, sp_err *err);
/* 1 when the link @p name (a path from the root) exists, else 0. */
int sp_rh_exists(hid_t f, const char *name);
/* Rows [@p start, @p start + @p n) of dataset @p name (n < 0: all rows) converted to @p mtype (element size
 * @p es; a 2-D dataset's row holds its whole second dimension: (N, 3) float32 gives 3 floats a row). Returns a
 * malloc'ed buffer (caller frees; at least 1 byte), rows in *@p rows; NULL with SP_E_FORMAT (missing, rank > 2,
 * range outside), SP_E_NOMEM, SP_E_HDF5. */
void *sp_rh_read(hid_t f, const char *name, hid_t mtype, size_t es, int64_t start, int64_t n, int64_t *rows,
                 sp_err *err);
/* The same for a fixed-size string column: rows of *@p width bytes each, NUL-terminated (width includes the
 * NUL). */
char *sp_rh_read_str(hid_t f, const char *name, int64_t start, int64_t n, size_t *width, int64_t *rows, sp_err *err);
/* The names of the datasets directly in group @p group (sorted, by HDF5's name index): a malloc'ed array of
 * malloc'ed strings in *@p names, count in *@p n (0 and NULL when the group is absent). 0 or -1 (memory). */
int sp_rh_list(hid_t f, const char *group, char ***names, size_t *n);
void sp_rh_list_free(char **names, size_t n);

/* ------------------------------------------------------------ the page's data (report_html_data.c) */

/* A plot of the page: @p title, @p kind ("bar", "hbar", "stacked"), the x labels, then series added with
 * sp_rh_series(). Added to the section's "plots" array. Returns the plot (owned by @p section) or NULL. */
cJSON *sp_rh_plot(cJSON *section, const char *id, const char *title, const char *kind, const char *xlabel);
/* Append a label (x value) to @p plot. */
void sp_rh_label(cJSON *plot, const char *label);
/* A series @p name of @p n values (counts, fractions) appended to @p plot. */
void sp_rh_series(cJSON *plot, const char *name, const double *v, size_t n);
/* A new section @p id with @p title, appended to @p sections; @p absent not NULL: the section says that text
 * instead of plots. */
cJSON *sp_rh_section(cJSON *sections, const char *id, const char *title, const char *absent);

/* A key-value row of @p section's "facts" table (key: a stable name the tests read; label: the words). */
void sp_rh_fact(cJSON *section, const char *key, const char *label, double value);
/* A histogram plot of the finite values of @p v (@p n): 20 equal bins between their min and max, labelled by
 * each bin's lower edge; one bin at the value when min == max; no bin when none is finite. NaN and infinite
 * values are not binned: returns their count, for the caller to state (report_html_chem.c). */
int64_t sp_rh_hist(cJSON *sec, const char *id, const char *title, const char *xlabel, const double *v, int64_t n);

/* ------------------------------------------------------------ descriptors, quality (report_html_chem.c) */

/* The "descriptors" section: the /ligands descriptor columns (docs/format.md "Ligand descriptors") as histograms
 * over the ligands with a /sites row and desc_flags bit computed, and their Ro5 / Ro3 / drug-like counts and
 * rates; absent (a text) without /ligands/desc_flags (format version 4 or older). 0 or -1 with @p err set. */
int sp_rh_section_descriptors(hid_t f, cJSON *sections, sp_err *err);
/* The "quality" section: per criterion of /sites/quality (bit names from its flag_bits attribute) the sites
 * meeting it (bit clear) and the sites with pass_quality 1, as counts (facts meet_NAME, pass_quality: the
 * numbers of `sitepack survey`) and shares; absent without the columns. 0 or -1 with @p err set. */
int sp_rh_section_quality(hid_t f, cJSON *sections, sp_err *err);

/* Every section of the report of survey @p s (loaded and counted, CCD opened, keys sorted) and of the
 * HDF5 file @p f: the survey's numbers, method, resolution, release years, pocket sizes, interactions per
 * type per ligand class, clusters, splits, descriptors and quality when present. 0 or an error in @p err. */
int sp_rh_sections(const sp_file_survey *s, hid_t f, cJSON *sections, sp_err *err);

/* The 3D block of site @p i (0-based row of /sites): its atoms (ligand, pocket residues, the waters of water
 * bridges; no H), residues, interactions and identifiers, appended to @p sites. 0; SP_E_INVALID (out of range);
 * errors of the reads. */
int sp_rh_site(const sp_file_survey *s, hid_t f, int64_t i, cJSON *sites, sp_err *err);

#endif
