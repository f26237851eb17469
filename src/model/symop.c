/* Symmetry operator strings, unit-cell matrices and symmetry tags: see include/sitepack/symmetry.h.
 * Pure functions (no library, no global state); the space-group lookup is src/site/spacegroup.c. */
#include "sitepack/symop.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846

/* A decimal number at p[*i] (digits, optional fraction): 0 ok, -1 none. */
static int number(const char *p, size_t n, size_t *i, double *out) {
  size_t k = *i;
  double v = 0;
  int any = 0;
  while (k < n && p[k] >= '0' && p[k] <= '9') {
    if (v < 1e12) v = v * 10 + (p[k] - '0');
    any = 1;
    k++;
  }
  if (k < n && p[k] == '.') {
    double sc = 0.1;
    k++;
    while (k < n && p[k] >= '0' && p[k] <= '9') {
      v += sc * (p[k] - '0');
      sc *= 0.1;
      any = 1;
      k++;
    }
  }
  if (!any) return -1;
  *i = k;
  *out = v;
  return 0;
}

static int var_index(char c) {
  switch (c) {
  case 'x': case 'X': return 0;
  case 'y': case 'Y': return 1;
  case 'z': case 'Z': return 2;
  default: return -1;
  }
}

/* One component p[0..n) (blanks already removed): sum of terms. */
static int component(const char *p, size_t n, double row[3], double *t) {
  row[0] = row[1] = row[2] = 0;
  *t = 0;
  size_t i = 0;
  if (n == 0) return -1;
  while (i < n) {
    double sign = 1;
    if (p[i] == '+' || p[i] == '-') {
      sign = p[i] == '-' ? -1 : 1;
      i++;
    } else if (i > 0) {
      return -1; /* terms must be separated by a sign */
    }
    if (i >= n) return -1;
    double num = 1;
    int has_num = 0;
    if ((p[i] >= '0' && p[i] <= '9') || p[i] == '.') {
      if (number(p, n, &i, &num)) return -1;
      has_num = 1;
      if (i < n && p[i] == '/') {
        double den;
        i++;
        if (number(p, n, &i, &den) || !(den > 0)) return -1;
        num /= den;
      }
      if (i < n && p[i] == '*') {
        i++;
        if (i >= n || var_index(p[i]) < 0) return -1;
      }
    }
    int v = i < n ? var_index(p[i]) : -1;
    if (v >= 0) {
      row[v] += sign * num;
      i++;
      /* "x/2" style: a divisor after the variable */
      if (i < n && p[i] == '/') {
        double den;
        i++;
        if (number(p, n, &i, &den) || !(den > 0)) return -1;
        row[v] /= den;
      }
    } else if (has_num) {
      *t += sign * num;
    } else {
      return -1;
    }
  }
  return 0;
}

int sp_symop_parse(const char *p, size_t n, sp_symop *op) {
  if (!p || !op || n == 0 || n > 256) return -1;
  char buf[257];
  size_t m = 0;
  for (size_t k = 0; k < n; k++) {
    char c = p[k];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    if (c == '\0') return -1;
    buf[m++] = c;
  }
  size_t start = 0;
  int comp = 0;
  for (size_t k = 0; k <= m; k++) {
    if (k < m && buf[k] != ',') continue;
    if (comp >= 3) return -1;
    if (component(buf + start, k - start, op->rot[comp], &op->trn[comp])) return -1;
    comp++;
    start = k + 1;
  }
  if (comp != 3) return -1;
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++)
      if (!isfinite(op->rot[r][c]) || fabs(op->rot[r][c]) > 6) return -1;
    if (!isfinite(op->trn[r]) || fabs(op->trn[r]) > 1000) return -1;
  }
  const double(*R)[3] = op->rot;
  double det = R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) - R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
               R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
  if (fabs(fabs(det) - 1.0) > 1e-6) return -1;
  return 0;
}

static size_t put(char *buf, size_t cap, size_t len, const char *s) {
  for (; *s; s++) {
    if (len + 1 < cap) buf[len] = *s;
    len++;
  }
  if (cap) buf[len < cap ? len : cap - 1] = 0;
  return len;
}

/* "+1/2", "-3/4", "+0.3333" */
static void fmt_num(double v, int leading, char *out, size_t cap) {
  const char *sg = v < 0 ? "-" : (leading ? "" : "+");
  double a = fabs(v), k = a * 24;
  if (fabs(k - floor(k + 0.5)) < 1e-6) {
    long num = (long)floor(k + 0.5), den = 24;
    while (num % 2 == 0 && den % 2 == 0) num /= 2, den /= 2;
    while (num % 3 == 0 && den % 3 == 0) num /= 3, den /= 3;
    if (den == 1) snprintf(out, cap, "%s%ld", sg, num);
    else snprintf(out, cap, "%s%ld/%ld", sg, num, den);
  } else {
    snprintf(out, cap, "%s%.6g", sg, a);
  }
}

size_t sp_symop_format(const sp_symop *op, char *buf, size_t cap) {
  size_t len = 0;
  if (cap) buf[0] = 0;
  static const char *const xyz[3] = {"x", "y", "z"};
  for (int r = 0; r < 3; r++) {
    if (r) len = put(buf, cap, len, ",");
    int first = 1;
    for (int c = 0; c < 3; c++) {
      double v = op->rot[r][c];
      if (v == 0) continue;
      char t[48];
      if (v == 1) snprintf(t, sizeof t, "%s%s", first ? "" : "+", xyz[c]);
      else if (v == -1) snprintf(t, sizeof t, "-%s", xyz[c]);
      else {
        char nb[32];
        fmt_num(v, first, nb, sizeof nb);
        snprintf(t, sizeof t, "%s*%s", nb, xyz[c]);
      }
      len = put(buf, cap, len, t);
      first = 0;
    }
    if (op->trn[r] != 0 || first) {
      char nb[32];
      fmt_num(op->trn[r], first, nb, sizeof nb);
      len = put(buf, cap, len, nb);
    }
  }
  return len;
}

bool sp_symop_is_identity_rot(const sp_symop *op) {
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      if (fabs(op->rot[r][c] - (r == c ? 1.0 : 0.0)) > 1e-9) return false;
  return true;
}

bool sp_cell_is_crystal(const double cell[6]) {
  if (!cell) return false;
  for (int k = 0; k < 6; k++)
    if (!isfinite(cell[k])) return false;
  for (int k = 0; k < 3; k++)
    if (!(cell[k] >= 2.0) || cell[k] > 1e5) return false;
  for (int k = 3; k < 6; k++)
    if (!(cell[k] > 0.0 && cell[k] < 180.0)) return false;
  double ca = cos(cell[3] * PI / 180), cb = cos(cell[4] * PI / 180), cg = cos(cell[5] * PI / 180);
  double v2 = 1 - ca * ca - cb * cb - cg * cg + 2 * ca * cb * cg;
  return v2 > 1e-6;
}

int sp_cell_matrices(const double cell[6], double orth[3][3], double frac[3][3]) {
  if (!sp_cell_is_crystal(cell)) return -1;
  double a = cell[0], b = cell[1], c = cell[2];
  double ca = cos(cell[3] * PI / 180), cb = cos(cell[4] * PI / 180), cg = cos(cell[5] * PI / 180);
  double sg = sin(cell[5] * PI / 180);
  /* exact values for right angles (cos 90° is not 0 in floating point) */
  if (cell[3] == 90.0) ca = 0;
  if (cell[4] == 90.0) cb = 0;
  if (cell[5] == 90.0) cg = 0, sg = 1;
  double v = a * b * c * sqrt(1 - ca * ca - cb * cb - cg * cg + 2 * ca * cb * cg);
  memset(orth, 0, 9 * sizeof(double));
  orth[0][0] = a;
  orth[0][1] = b * cg;
  orth[0][2] = c * cb;
  orth[1][1] = b * sg;
  orth[1][2] = c * (ca - cb * cg) / sg;
  orth[2][2] = v / (a * b * sg);
  /* inverse of the upper-triangular matrix */
  memset(frac, 0, 9 * sizeof(double));
  frac[0][0] = 1 / orth[0][0];
  frac[1][1] = 1 / orth[1][1];
  frac[2][2] = 1 / orth[2][2];
  frac[0][1] = -orth[0][1] / (orth[0][0] * orth[1][1]);
  frac[1][2] = -orth[1][2] / (orth[1][1] * orth[2][2]);
  frac[0][2] = (orth[0][1] * orth[1][2] - orth[0][2] * orth[1][1]) / (orth[0][0] * orth[1][1] * orth[2][2]);
  return 0;
}

void sp_symop_tag(int op, const int t[3], char *buf, size_t cap) {
  if (t[0] >= -5 && t[0] <= 4 && t[1] >= -5 && t[1] <= 4 && t[2] >= -5 && t[2] <= 4)
    snprintf(buf, cap, "%d_%d%d%d", op + 1, 5 + t[0], 5 + t[1], 5 + t[2]);
  else
    snprintf(buf, cap, "%d_%d_%d_%d", op + 1, t[0], t[1], t[2]);
}
