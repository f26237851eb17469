/* Alt ids and insertion codes of more than one character in mmCIF (cif_internal.h sp_cif_char_map). */
#include <stdio.h>
#include <string.h>

#include "cif_internal.h"
#include "sitepack/model.h"

#define SHOWN(n) ((int)((n) > 40 ? 40 : (n)))

static int sv_same(sp_sv a, sp_sv b) { return a.n == b.n && !memcmp(a.p, b.p, a.n); }

char sp_cif_char_map_code(sp_cif_char_map *m, sp_sv v) {
  for (uint32_t k = 0; k < m->n; ++k)
    if (sv_same(m->val[k], v)) return (char)(0x80u | k);
  if (m->n >= 128) {
    m->overflow = 1;
    return (char)0x80;
  }
  m->val[m->n] = v;
  return (char)(0x80u | m->n++);
}

char sp_cif_char_map_lookup(const sp_cif_char_map *m, sp_sv v) {
  if (!v.n || v.p[0] == ' ') return '\0';
  for (uint32_t k = 0; k < m->n; ++k)
    if (sv_same(m->val[k], v)) return m->final[k];
  return v.p[0];
}

int sp_cif_char_map_finish(sp_cif_char_map *m, sp_structure *s, size_t atom0, size_t res0, bool altloc,
                           const char *item, sp_err *err) {
  if (!m->n) return 0;
  if (m->overflow)
    return sp_err_set(err, SP_E_BAD_VALUE, "_atom_site.%s: more than 128 distinct values that are not one ASCII "
                      "character; sitepack keeps one character per value", item);
  bool used[256] = {false};
  size_t n = altloc ? s->n_atoms : s->n_residues;
  for (size_t i = altloc ? atom0 : res0; i < n; ++i) {
    unsigned char c = (unsigned char)(altloc ? s->altloc[i] : s->residues[i].ins_code);
    if (c < 0x80) used[c] = true;
  }
  static const char k_free[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  for (uint32_t k = 0; k < m->n; ++k) {
    sp_sv v = m->val[k];
    unsigned char c0 = (unsigned char)v.p[0];
    if (v.n == 1) { /* one non-ASCII byte: kept as it is (docs/format.md: ids are taken as they are) */
      m->final[k] = (char)c0;
      continue;
    }
    char f = 0;
    if (c0 > 0x20 && c0 < 0x7f && !used[c0]) f = (char)c0;
    for (const char *q = k_free; !f && *q; ++q)
      if (!used[(unsigned char)*q]) f = *q;
    if (!f)
      return sp_err_set(err, SP_E_BAD_VALUE, "_atom_site.%s '%.*s': no character left to read it as (all of A-Z, "
                        "a-z, 0-9 are taken)", item, SHOWN(v.n), v.p);
    used[(unsigned char)f] = true;
    m->final[k] = f;
    sp_structure_warn(s, "_atom_site.%s '%.*s' has more than one character: read as '%c' (sitepack keeps one "
                      "character; each distinct value gets its own)", item, SHOWN(v.n), v.p, f);
  }
  for (size_t i = altloc ? atom0 : res0; i < n; ++i) {
    char *c = altloc ? &s->altloc[i] : &s->residues[i].ins_code;
    if ((unsigned char)*c >= 0x80) *c = m->final[(unsigned char)*c & 0x7f];
  }
  return 0;
}
