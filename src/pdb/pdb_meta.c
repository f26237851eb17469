/* The entry context of a legacy PDB file (pdb_internal.h): dates, R factors, reference-database
 * segments, modified residues, the first biological assembly. Columns: wwPDB PDB format v3.3.
 * Nothing here fails a file: an unreadable value leaves its field empty / NAN. */
#include "pdb_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"

/* Columns c0..c1 (1-based, inclusive) clipped to the line, blanks trimmed. */
static sp_sv fld(const char *p, size_t n, size_t c0, size_t c1) {
  sp_sv v = {p, 0};
  if (c0 - 1 >= n) return v;
  size_t a = c0 - 1, b = c1 < n ? c1 : n;
  while (a < b && p[a] == ' ') ++a;
  while (b > a && p[b - 1] == ' ') --b;
  v.p = p + a;
  v.n = b - a;
  return v;
}

static int32_t fld_int(const char *p, size_t n, size_t c0, size_t c1) {
  sp_sv v = fld(p, n, c0, c1);
  char buf[16];
  if (!v.n || v.n >= sizeof buf) return SP_SEQ_NONE;
  memcpy(buf, v.p, v.n);
  buf[v.n] = 0;
  char *end;
  long x = strtol(buf, &end, 10);
  return *end || x < -99999999 || x > 999999999 ? SP_SEQ_NONE : (int32_t)x;
}

static char fld_char(const char *p, size_t n, size_t c) { return c - 1 < n && p[c - 1] != ' ' ? p[c - 1] : '\0'; }

static bool starts(const char *p, size_t n, const char *rec) {
  size_t k = strlen(rec);
  return n >= k && !memcmp(p, rec, k);
}

/* "DD-MON-YY" -> "YYYY-MM-DD" (years 50-99: 19xx, else 20xx: the PDB began in 1971). */
static void pdb_date(sp_sv v, char out[12]) {
  static const char *const k_mon[12] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                        "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
  memset(out, 0, 12);
  if (v.n != 9 || v.p[2] != '-' || v.p[6] != '-') return;
  int mon = -1;
  for (int i = 0; i < 12; i++)
    if (!memcmp(v.p + 3, k_mon[i], 3)) mon = i + 1;
  int dd = (v.p[0] - '0') * 10 + (v.p[1] - '0'), yy = (v.p[7] - '0') * 10 + (v.p[8] - '0');
  for (int i = 0; i < 9; i++)
    if (i != 2 && (i < 3 || i > 5) && i != 6 && (v.p[i] < '0' || v.p[i] > '9')) return;
  if (mon < 0 || dd < 1 || dd > 31) return;
  int year = yy >= 50 ? 1900 + yy : 2000 + yy;
  const int digits[8] = {year / 1000, year / 100 % 10, year / 10 % 10, year % 10, mon / 10, mon % 10, dd / 10, dd % 10};
  static const int at[8] = {0, 1, 2, 3, 5, 6, 8, 9};
  memcpy(out, "0000-00-00", 11);
  for (int i = 0; i < 8; i++) out[at[i]] = (char)('0' + digits[i]);
}

/* REMARK 3 "label : value": the label with runs of blanks collapsed, the value as a float (NULL -> NAN). */
static void remark3(sp_pdb_meta *m, sp_structure *s, const char *p, size_t n) {
  sp_sv t = fld(p, n, 11, n);
  const char *colon = memchr(t.p, ':', t.n);
  if (!colon) return;
  char label[64];
  size_t k = 0;
  for (const char *q = t.p; q < colon && k + 1 < sizeof label; q++)
    if (*q != ' ' || (k && label[k - 1] != ' ')) label[k++] = *q;
  while (k && label[k - 1] == ' ') k--;
  label[k] = 0;
  int which = !strcmp(label, "R VALUE (WORKING SET)")          ? 1
              : !strcmp(label, "R VALUE (WORKING + TEST SET)") ? 2
              : !strcmp(label, "FREE R VALUE")                 ? 3
              : !strcmp(label, "R VALUE (WORKING SET, NO CUTOFF)") ? 4
              : !strcmp(label, "FREE R VALUE (NO CUTOFF)")     ? 5
                                                               : 0;
  if (!which) return;
  char buf[32];
  sp_sv v = {colon + 1, (size_t)(t.p + t.n - colon - 1)};
  while (v.n && v.p[0] == ' ') v.p++, v.n--;
  if (!v.n || v.n >= sizeof buf) return;
  memcpy(buf, v.p, v.n);
  buf[v.n] = 0;
  char *end;
  double x = strtod(buf, &end);
  if (end == buf || *end || !isfinite(x)) return; /* NULL: not refined against data */
  /* r_work: (WORKING SET) over (WORKING + TEST SET) over the older (WORKING SET, NO CUTOFF); r_free: FREE R
   * VALUE over FREE R VALUE (NO CUTOFF) (REMARK 3 of the pre-2000 SHELXL/X-PLOR templates, 3O5R) */
  int rank = which == 1 ? 3 : which == 2 ? 2 : which == 4 ? 1 : which == 3 ? 2 : 1;
  if (which == 3 || which == 5) {
    if (rank > m->rfree_kind) s->r_free = (float)x, m->rfree_kind = rank;
  } else if (rank > m->rwork_kind) {
    s->r_work = (float)x;
    m->rwork_kind = rank;
  }
}

static int add_mod(sp_pdb_meta *m, const char *p, size_t n, sp_err *err) {
  char res[SP_ID_LEN] = {0}, std[SP_ID_LEN] = {0};
  sp_sv_copy(res, sizeof res, fld(p, n, 13, 15));
  sp_sv_copy(std, sizeof std, fld(p, n, 25, 27));
  if (!res[0] || !std[0]) return 0;
  for (size_t i = 0; i < m->n_mod; i++)
    if (!strcmp(m->mod[i][0], res)) return 0;
  if (SP_GROW(m->mod, m->cap_mod, m->n_mod + 1)) return sp_err_set(err, SP_E_NOMEM, "out of memory (MODRES)");
  memcpy(m->mod[m->n_mod][0], res, SP_ID_LEN);
  memcpy(m->mod[m->n_mod][1], std, SP_ID_LEN);
  m->n_mod++;
  return 0;
}

static int dbref(sp_pdb_meta *m, sp_structure *s, const char *p, size_t n, int kind, sp_err *err) {
  if (kind == 2) { /* DBREF2: the accession and database range of the DBREF1 before it */
    if (!m->dbref1_pending) return 0;
    sp_dbref *d = &s->dbrefs[m->dbref1_pending - 1];
    m->dbref1_pending = 0;
    sp_sv acc = fld(p, n, 19, 40);
    if (sp_sv_copy(d->db_accession, sizeof d->db_accession, acc))
      sp_structure_warn(s, "DBREF2: accession longer than %zu characters, cut", sizeof d->db_accession - 1);
    d->db_begin = fld_int(p, n, 46, 55);
    d->db_end = fld_int(p, n, 58, 67);
    return 0;
  }
  sp_dbref d;
  memset(&d, 0, sizeof d);
  sp_sv_copy(d.auth_asym_id, sizeof d.auth_asym_id, fld(p, n, 13, 13));
  d.auth_begin = fld_int(p, n, 15, 18);
  d.ins_begin = fld_char(p, n, 19);
  d.auth_end = fld_int(p, n, 21, 24);
  d.ins_end = fld_char(p, n, 25);
  sp_sv_copy(d.db_name, sizeof d.db_name, fld(p, n, 27, 32));
  d.seq_begin = d.seq_end = SP_SEQ_NONE;
  if (kind == 1) { /* DBREF1: dbIdCode 48-67; accession in DBREF2 */
    sp_sv_copy(d.db_code, sizeof d.db_code, fld(p, n, 48, 67));
    d.db_begin = d.db_end = SP_SEQ_NONE;
  } else {
    sp_sv_copy(d.db_accession, sizeof d.db_accession, fld(p, n, 34, 41));
    sp_sv_copy(d.db_code, sizeof d.db_code, fld(p, n, 43, 54));
    d.db_begin = fld_int(p, n, 56, 60);
    d.db_end = fld_int(p, n, 63, 67);
  }
  int rc = sp_structure_add_dbref(s, &d, err);
  if (!rc && kind == 1) m->dbref1_pending = (int)s->n_dbrefs;
  return rc;
}

/* REMARK 350 of BIOMOLECULE 1: "APPLY THE FOLLOWING TO CHAINS: A, B" / "AND CHAINS: C" and BIOMTn rows. */
static int remark350(sp_pdb_meta *m, sp_structure *s, const char *p, size_t n, sp_err *err) {
  sp_sv t = fld(p, n, 11, n);
  if (t.n >= 12 && !memcmp(t.p, "BIOMOLECULE:", 12)) {
    sp_sv id = {t.p + 12, t.n - 12};
    while (id.n && id.p[0] == ' ') id.p++, id.n--;
    if (m->in_biomol1 || m->biomol_done) m->biomol_done = 1, m->in_biomol1 = 0;
    else m->in_biomol1 = sp_sv_eq(id, "1");
    return 0;
  }
  if (!m->in_biomol1) return 0;
  const char *ap = "APPLY THE FOLLOWING TO CHAINS:", *an = "AND CHAINS:";
  bool apply = t.n >= strlen(ap) && !memcmp(t.p, ap, strlen(ap));
  bool more = t.n >= strlen(an) && !memcmp(t.p, an, strlen(an));
  if (apply || more) {
    sp_sv list = {t.p + strlen(apply ? ap : an), t.n - strlen(apply ? ap : an)};
    if (apply || !s->n_asm_gens || !m->gen_open) {
      sp_asm_gen g;
      memset(&g, 0, sizeof g);
      g.first_op = (uint32_t)s->n_asm_ops;
      int rc = sp_structure_add_asm_gen(s, &g, err);
      if (rc) return rc;
      m->gen_open = 1;
    }
    sp_asm_gen *g = &s->asm_gens[s->n_asm_gens - 1];
    size_t k = strlen(g->chains);
    for (size_t i = 0; i < list.n; i++) { /* "A, B," -> "A,B" */
      char ch = list.p[i];
      if (ch == ' ') continue;
      if (ch == ',' && (k == 0 || g->chains[k - 1] == ',')) continue;
      if (k + 1 >= sizeof g->chains) break;
      g->chains[k++] = ch;
    }
    if (k && g->chains[k - 1] != ',' && k + 1 < sizeof g->chains) g->chains[k++] = ',';
    g->chains[k] = 0;
    return 0;
  }
  if (t.n > 6 && !memcmp(t.p, "BIOMT", 5) && t.p[5] >= '1' && t.p[5] <= '3' && s->n_asm_gens) {
    int row = t.p[5] - '1', serial;
    double v[4];
    char buf[128];
    snprintf(buf, sizeof buf, "%.*s", (int)(t.n - 6 > 120 ? 120 : t.n - 6), t.p + 6);
    if (sscanf(buf, "%d %lf %lf %lf %lf", &serial, &v[0], &v[1], &v[2], &v[3]) != 5) return 0;
    memcpy(m->biomt[row], v, sizeof v);
    m->biomt_seen |= 1u << row;
    if (m->biomt_seen == 7u) {
      sp_asm_oper op;
      memset(&op, 0, sizeof op);
      snprintf(op.id, sizeof op.id, "%d", serial);
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) op.rot[i][j] = m->biomt[i][j];
        op.trn[i] = m->biomt[i][3];
      }
      int rc = sp_structure_add_asm_oper(s, &op, err);
      if (rc) return rc;
      s->asm_gens[s->n_asm_gens - 1].n_ops++;
      m->biomt_seen = 0;
      m->gen_open = 0;
    }
  }
  return 0;
}

int sp_pdb_meta_line(sp_pdb_meta *m, sp_structure *s, const char *p, size_t n, size_t no, sp_err *err) {
  (void)no;
  if (starts(p, n, "HEADER")) pdb_date(fld(p, n, 51, 59), s->deposition_date);
  else if (starts(p, n, "REVDAT")) {
    int32_t mod = fld_int(p, n, 8, 10);
    if (mod != SP_SEQ_NONE && mod >= 1 && (m->release_mod == 0 || mod <= m->release_mod)) {
      char d[12] = {0};
      pdb_date(fld(p, n, 14, 22), d);
      if (d[0]) m->release_mod = mod, memcpy(s->release_date, d, sizeof d);
    }
  } else if (starts(p, n, "REMARK   3 ")) remark3(m, s, p, n);
  else if (starts(p, n, "REMARK 350 ")) return remark350(m, s, p, n, err);
  else if (starts(p, n, "DBREF1")) return dbref(m, s, p, n, 1, err);
  else if (starts(p, n, "DBREF2")) return dbref(m, s, p, n, 2, err);
  else if (starts(p, n, "DBREF ")) return dbref(m, s, p, n, 0, err);
  else if (starts(p, n, "MODRES")) return add_mod(m, p, n, err);
  return 0;
}

int sp_pdb_meta_finish(sp_pdb_meta *m, sp_structure *s, sp_err *err) {
  /* generators without operators (a BIOMOLECULE 1 block cut short) make no assembly */
  for (size_t g = 0; g < s->n_asm_gens; g++)
    if (!s->asm_gens[g].n_ops || !s->asm_gens[g].chains[0]) {
      sp_structure_warn(s, "REMARK 350 BIOMOLECULE 1: a chain list without BIOMT operators; no assembly");
      s->n_asm_gens = s->n_asm_ops = 0;
      break;
    }
  for (size_t g = 0; g < s->n_asm_gens; g++) { /* drop the trailing ',' */
    size_t k = strlen(s->asm_gens[g].chains);
    if (k && s->asm_gens[g].chains[k - 1] == ',') s->asm_gens[g].chains[k - 1] = 0;
  }
  int rc = sp_structure_can_from_seq(s, (const char(*)[2][SP_ID_LEN])m->mod, m->n_mod, err);
  free(m->mod);
  memset(m, 0, sizeof *m);
  return rc;
}
