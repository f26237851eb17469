/* Space-group operators by name (CCP4 csymlib + syminfo.lib) and the resolved crystal symmetry of a
 * structure: see include/sitepack/symmetry.h and docs/sites.md "Symmetry mates". */
#include "sitepack/symmetry.h"

#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef SP_HAVE_CCP4
#include <ccp4/ccp4_errno.h>
#include <ccp4/csymlib.h>
#endif

#ifndef SP_SYMINFO_PATH
#define SP_SYMINFO_PATH "/usr/share/ccp4/syminfo.lib"
#endif

int sp_spacegroup_library(void) {
#ifdef SP_HAVE_CCP4
  return 1;
#else
  return 0;
#endif
}

/* Normalise a name: blanks trimmed and collapsed; refuse odd characters. 0 ok, -1 refused. */
static int normalise(const char *name, char *out, size_t cap) {
  size_t m = 0;
  int blank = 0;
  for (const char *p = name; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == ' ' || c == '\t' || c == '_') {
      blank = m > 0;
      continue;
    }
    if (!(isalnum(c) || c == '-' || c == '/' || c == ':' || c == '.')) return -1;
    if (blank) {
      if (m + 1 >= cap) return -1;
      out[m++] = ' ';
      blank = 0;
    }
    if (m + 1 >= cap) return -1;
    out[m++] = (char)c;
  }
  out[m] = 0;
  return m ? 0 : -1;
}

static double snap(double v, double q) {
  double k = floor(v * q + 0.5);
  return fabs(v * q - k) < 1e-3 ? k / q : v;
}

/* A small process-wide cache of looked-up names: csymlib re-reads syminfo.lib (320 kB) on every
 * load, and a run meets the same few dozen groups again and again. */
#define SP_SG_CACHE 48
typedef struct sg_entry {
  char name[40];
  int n_ops;                 /* -1: unknown name */
  char xhm[24];
  sp_symop *ops;
} sg_entry;
static sg_entry g_cache[SP_SG_CACHE];
static size_t g_cache_next;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

#ifdef SP_HAVE_CCP4
/* Look a normalised name up in csymlib (lock held). n_ops -1 when unknown. */
static int load_ccp4(const char *name, sp_symop *ops, int *n_ops, char *xhm, size_t xhm_cap) {
  static int env_done;
  if (!env_done) {
    /* csymlib finds syminfo.lib through $SYMINFO (or $CLIBD); point it at Debian's copy unless the
       user says otherwise */
    if (!getenv("SYMINFO") && !getenv("CLIBD")) setenv("SYMINFO", SP_SYMINFO_PATH, 0);
    ccp4_liberr_verbosity(0);
    env_done = 1;
  }
  /* csymlib prints "Failed to find spacegroup in SYMINFO!" on stdout for an unknown name, with no
     way to turn it off: stdout goes to /dev/null for the call (lock held; ranks are single-threaded),
     and the caller reports the unknown name with the file's name instead (src/pipeline/stages.c: a warning) */
  fflush(stdout);
  int saved = dup(STDOUT_FILENO), devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (saved >= 0 && devnull >= 0) dup2(devnull, STDOUT_FILENO);
  CCP4SPG *sg = ccp4spg_load_by_ccp4_spgname(name);
  fflush(stdout);
  if (saved >= 0 && devnull >= 0) dup2(saved, STDOUT_FILENO);
  if (saved >= 0) close(saved);
  if (devnull >= 0) close(devnull);
  if (!sg) {
    *n_ops = -1;
    return 0;
  }
  int n = sg->nsymop;
  if (n < 1 || n > SP_SYM_MAX_OPS) {
    ccp4spg_free(&sg);
    *n_ops = -1;
    return 0;
  }
  for (int k = 0; k < n; k++) {
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) ops[k].rot[r][c] = snap(sg->symop[k].rot[r][c], 1);
      ops[k].trn[r] = snap(sg->symop[k].trn[r], 24);
    }
  }
  if (xhm) snprintf(xhm, xhm_cap, "%s", sg->symbol_xHM);
  *n_ops = n;
  ccp4spg_free(&sg);
  return 0;
}
#endif

int sp_spacegroup_ops(const char *name, const double cell[6], sp_symop *ops, int *n_ops, char *xhm, size_t xhm_cap,
                      sp_err *err) {
  if (!name || !ops || !n_ops) return sp_err_set(err, SP_E_INVALID, "spacegroup: NULL argument");
  *n_ops = 0;
  if (xhm && xhm_cap) xhm[0] = 0;
  char norm[40];
  if (strlen(name) > 30 || normalise(name, norm, sizeof norm))
    return sp_err_set(err, SP_E_INVALID, "space group name '%.40s' refused (empty, too long or odd characters)", name);
  /* rhombohedral names without a setting: hexagonal axes unless the cell is rhombohedral */
  if ((norm[0] == 'R' || norm[0] == 'r') && !strchr(norm, ':')) {
    int rhombo = 0;
    if (cell && isfinite(cell[0]) && isfinite(cell[3])) {
      rhombo = fabs(cell[0] - cell[1]) < 1e-3 && fabs(cell[1] - cell[2]) < 1e-3 && fabs(cell[3] - cell[4]) < 1e-3 &&
               fabs(cell[4] - cell[5]) < 1e-3 && fabs(cell[3] - 90.0) > 1e-3;
    }
    size_t l = strlen(norm);
    if (l + 3 < sizeof norm) memcpy(norm + l, rhombo ? " :R" : " :H", 4);
  }
#ifdef SP_HAVE_CCP4
  pthread_mutex_lock(&g_lock);
  sg_entry *hit = NULL;
  for (size_t k = 0; k < SP_SG_CACHE; k++)
    if (g_cache[k].name[0] && !strcmp(g_cache[k].name, norm)) hit = &g_cache[k];
  if (!hit) {
    sg_entry *e = &g_cache[g_cache_next];
    if (!e->ops) e->ops = malloc(SP_SYM_MAX_OPS * sizeof *e->ops);
    if (!e->ops) {
      pthread_mutex_unlock(&g_lock);
      return sp_err_set(err, SP_E_NOMEM, "spacegroup: out of memory");
    }
    e->name[0] = 0;
    load_ccp4(norm, e->ops, &e->n_ops, e->xhm, sizeof e->xhm);
    snprintf(e->name, sizeof e->name, "%s", norm);
    g_cache_next = (g_cache_next + 1) % SP_SG_CACHE;
    hit = e;
  }
  int n = hit->n_ops;
  if (n > 0) {
    memcpy(ops, hit->ops, (size_t)n * sizeof *ops);
    if (xhm) snprintf(xhm, xhm_cap, "%s", hit->xhm);
  }
  pthread_mutex_unlock(&g_lock);
  if (n <= 0) return sp_err_set(err, SP_E_NOT_FOUND, "space group '%s' is not in CCP4's syminfo.lib", norm);
  *n_ops = n;
  return 0;
#else
  (void)g_cache;
  (void)g_cache_next;
  (void)g_lock;
  (void)snap;
  return sp_err_set(err, SP_E_NOT_FOUND,
                    "space group '%s': this build has no space-group library (CCP4 libccp4c was not found when it "
                    "was configured); only a file's explicit operators can be used",
                    norm);
#endif
}

int sp_crystal_resolve(const sp_structure *s, sp_crystal *out, sp_err *err) {
  if (!s || !out) return sp_err_set(err, SP_E_INVALID, "crystal: NULL argument");
  out->source = SP_SYM_NONE;
  out->n_ops = 0;
  out->why[0] = 0;
  if (!isfinite(s->cell[0])) {
    snprintf(out->why, sizeof out->why, "no unit cell in the file");
    return 0;
  }
  if (!sp_cell_is_crystal(s->cell) || sp_cell_matrices(s->cell, out->orth, out->frac)) {
    snprintf(out->why, sizeof out->why, "not a crystal cell (%g %g %g %g %g %g: NMR/EM dummy or invalid)", s->cell[0],
             s->cell[1], s->cell[2], s->cell[3], s->cell[4], s->cell[5]);
    return 0;
  }
  memset(out->shift, 0, sizeof out->shift);
  out->file_frame = 0;
  if (s->has_scale) {
    double diff = 0, vmax = 0;
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) diff = fmax(diff, fabs(s->scale[i][j] - out->frac[i][j]));
      vmax = fmax(vmax, fabs(s->scale[i][3]));
    }
    if (diff > 1e-5 || vmax > 1e-4) {
      const double(*S)[4] = s->scale;
      double det = S[0][0] * (S[1][1] * S[2][2] - S[1][2] * S[2][1]) - S[0][1] * (S[1][0] * S[2][2] - S[1][2] * S[2][0]) +
                   S[0][2] * (S[1][0] * S[2][1] - S[1][1] * S[2][0]);
      if (!(fabs(det) > 1e-12) || !isfinite(det)) {
        snprintf(out->why, sizeof out->why, "the file's fractionalisation matrix (SCALEn) is singular");
        return 0;
      }
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) out->frac[i][j] = S[i][j];
        out->shift[i] = S[i][3];
      }
      /* inverse by cofactors */
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
          out->orth[i][j] = (S[i1][j1] * S[i2][j2] - S[i1][j2] * S[i2][j1]) / det;
        }
      out->file_frame = 1;
    }
  }
  if (s->n_symops > 0 && s->n_symops <= SP_SYM_MAX_OPS) {
    memcpy(out->ops, s->symops, s->n_symops * sizeof *out->ops);
    out->n_ops = (int)s->n_symops;
    out->source = SP_SYM_FILE;
    return 0;
  }
  if (!s->spacegroup[0]) {
    snprintf(out->why, sizeof out->why, "no space group name and no operators in the file");
    return 0;
  }
  sp_err e = {0};
  int n = 0;
  if (sp_spacegroup_ops(s->spacegroup, s->cell, out->ops, &n, NULL, 0, &e)) {
    if (e.cls == SP_E_NOMEM) return sp_err_set(err, SP_E_NOMEM, "%s", e.msg);
    snprintf(out->why, sizeof out->why, "%.159s", e.msg);
    return 0;
  }
  out->n_ops = n;
  out->source = SP_SYM_NAME;
  return 0;
}
