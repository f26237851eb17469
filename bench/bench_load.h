/* bench_load.h: one structure file read and surveyed, for the site benchmarks (site_bench.c, site_hash.c).
 * Include after "sitepack/read.h" and "sitepack/survey.h". */
#ifndef SP_BENCH_LOAD_H
#define SP_BENCH_LOAD_H

#include <string.h>

/* Read dir/name into *s and survey it with ccd into *sv. 0 on success; else the reader's or the survey's
 * error code with *err set, and *s / *sv freed (nothing for the caller to release). */
static inline int bench_load(const char *dir, const char *name, sp_ccd *ccd, sp_structure *s, sp_survey *sv,
                             sp_err *err) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  sp_structure_init(s);
  memset(sv, 0, sizeof *sv);
  sp_buf buf;
  memset(&buf, 0, sizeof buf);
  int fmt = 0;
  int rc = sp_read_structure_file(path, 0, &buf, s, &fmt, err);
  sp_buf_free(&buf);
  if (!rc) rc = sp_survey_run(s, ccd, NULL, sv, err);
  if (rc) {
    sp_survey_free(sv);
    sp_structure_free(s);
  }
  return rc;
}

#endif
