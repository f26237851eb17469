/* sp_export: ligand SDF and pocket PDB/mmCIF files from a merged file (export.h, docs/format.md
 * "Export files"). The tables are read whole (export_load), then written site by site. */
#include "sitepack/export.h"
#include "export_internal.h"
#include "sitepack/base.h"
#include "sitepack/site.h"
#include "sitepack/store.h"
#include "sitepack/survey.h"
#include "sitepack/h5util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Read dataset `name` whole as native type kind (0 int/float by size and class of the file type,
 * strings as fixed strings of the file's size); *rows gets the length. Optional datasets: absent -> empty. */
static int xload(xfile *x, const char *name, hid_t mt, size_t es, int optional, xcol *out, int64_t *rows) {
  if (optional && H5Lexists(x->f, name, H5P_DEFAULT) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    out->p = NULL;
    out->es = 0;
    return 0;
  }
  hid_t d = H5Dopen2(x->f, name, H5P_DEFAULT);
  if (d < 0) return sp_err_set(x->err, SP_E_FORMAT, "%s: missing dataset %s", x->path, name);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[2] = {0, 0};
  int nd = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  if (sp >= 0) H5Sclose(sp);
  hid_t str = -1;
  if (mt < 0) { /* a string column: its own size */
    hid_t ft = H5Dget_type(d);
    es = ft >= 0 ? H5Tget_size(ft) : 0;
    str = mt = sp_h5_str_type_of(ft, es);
    if (ft >= 0) H5Tclose(ft);
  }
  size_t n = nd >= 1 ? (size_t)dims[0] : 0, per = nd == 2 ? (size_t)dims[1] : 1;
  out->es = es * per;
  out->p = malloc(n * out->es + 1);
  int rc = 0;
  if (nd < 1 || !out->p) rc = sp_err_set(x->err, out->p ? SP_E_FORMAT : SP_E_NOMEM, "%s: cannot read %s", x->path, name);
  else if (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, out->p) < 0) rc = sp_h5_fail(x->err, "cannot read", name);
  if (str >= 0) H5Tclose(str);
  H5Dclose(d);
  if (rows) *rows = (int64_t)n;
  return rc;
}

static void xfree(xfile *x) {
  xcol *cols[] = {&x->st_path, &x->st_entry, &x->l_comp, &x->l_chain, &x->l_seq, &x->l_ins, &x->l_cls,
                  &x->l_flags, &x->l_key, &x->l_src, &x->l_heavy, &x->l_st, &x->l_model, &x->l_residues,
                  &x->c_comp, &x->c_inchikey, &x->s_aptr, &x->s_rptr, &x->s_bptr, &x->s_nlig, &x->s_lig,
                  &x->s_st, &x->r_label, &x->r_auth, &x->r_comp, &x->r_seq, &x->r_lseq, &x->r_ins, &x->r_kind,
                  &x->r_symop, &x->a_pos, &x->a_el, &x->a_name, &x->a_alt, &x->a_res, &x->a_occ, &x->a_b,
                  &x->a_charge, &x->a_ccdc, &x->a_ccda, &x->a_flags, &x->b_a1, &x->b_a2, &x->b_order, &x->b_src, &x->b_flags};
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) free(cols[i]->p);
}

static int export_load(xfile *x) {
  hid_t S = -1, i64 = H5T_NATIVE_INT64, i32 = H5T_NATIVE_INT32, u32 = H5T_NATIVE_UINT32, u16 = H5T_NATIVE_UINT16,
        u8 = H5T_NATIVE_UINT8, i8 = H5T_NATIVE_INT8, f32 = H5T_NATIVE_FLOAT;
  int64_t np1 = 0;
  int rc = 0;
#define L(name, mt, es, col, rows) \
  if (!rc) rc = xload(x, name, mt, es, 0, col, rows)
  L("/structures/path", S, 0, &x->st_path, &x->n_st);
  L("/structures/entry_id", S, 0, &x->st_entry, NULL);
  L("/ligands/comp_id", S, 0, &x->l_comp, &x->n_lig);
  L("/ligands/auth_asym_id", S, 0, &x->l_chain, NULL);
  L("/ligands/auth_seq_id", i32, 4, &x->l_seq, NULL);
  L("/ligands/ins_code", S, 0, &x->l_ins, NULL);
  L("/ligands/class", S, 0, &x->l_cls, NULL);
  L("/ligands/flags", u32, 4, &x->l_flags, NULL);
  L("/ligands/molecule_key", S, 0, &x->l_key, NULL);
  L("/ligands/key_source", S, 0, &x->l_src, NULL);
  L("/ligands/n_heavy_atoms", i32, 4, &x->l_heavy, NULL);
  L("/ligands/structure_idx", i64, 8, &x->l_st, NULL);
  L("/ligands/model_num", i32, 4, &x->l_model, NULL);
  L("/ligands/residues", S, 0, &x->l_residues, NULL);
  L("/components/comp_id", S, 0, &x->c_comp, &x->n_comp);
  L("/components/inchikey", S, 0, &x->c_inchikey, NULL);
  L("/sites/atom_ptr", i64, 8, &x->s_aptr, &np1);
  L("/sites/residue_ptr", i64, 8, &x->s_rptr, NULL);
  L("/sites/bond_ptr", i64, 8, &x->s_bptr, NULL);
  L("/sites/n_ligand", i32, 4, &x->s_nlig, &x->n_site);
  L("/sites/ligand_idx", i64, 8, &x->s_lig, NULL);
  L("/sites/structure_idx", i64, 8, &x->s_st, NULL);
  L("/residues/label_asym_id", S, 0, &x->r_label, &x->n_res);
  L("/residues/auth_asym_id", S, 0, &x->r_auth, NULL);
  L("/residues/comp_id", S, 0, &x->r_comp, NULL);
  L("/residues/auth_seq_id", i32, 4, &x->r_seq, NULL);
  L("/residues/label_seq_id", i32, 4, &x->r_lseq, NULL);
  L("/residues/ins_code", S, 0, &x->r_ins, NULL);
  L("/residues/kind", u8, 1, &x->r_kind, NULL);
  if (!rc) rc = xload(x, "/residues/symop", S, 0, 1, &x->r_symop, NULL);
  L("/atoms/position", f32, 4, &x->a_pos, &x->n_atom);
  L("/atoms/element", u8, 1, &x->a_el, NULL);
  L("/atoms/atom_name", S, 0, &x->a_name, NULL);
  L("/atoms/altloc", S, 0, &x->a_alt, NULL);
  L("/atoms/residue_idx", i64, 8, &x->a_res, NULL);
  L("/atoms/occupancy", f32, 4, &x->a_occ, NULL);
  L("/atoms/b_iso", f32, 4, &x->a_b, NULL);
  L("/atoms/charge", i8, 1, &x->a_charge, NULL);
  L("/atoms/ccd_charge", i8, 1, &x->a_ccdc, NULL);
  L("/atoms/ccd_atom", u8, 1, &x->a_ccda, NULL);
  L("/atoms/flags", u16, 2, &x->a_flags, NULL);
  L("/bonds/atom1", i32, 4, &x->b_a1, &x->n_bond);
  L("/bonds/atom2", i32, 4, &x->b_a2, NULL);
  L("/bonds/order", u8, 1, &x->b_order, NULL);
  L("/bonds/source", S, 0, &x->b_src, NULL);
  L("/bonds/flags", u8, 1, &x->b_flags, NULL);
#undef L
  if (!rc && (np1 != x->n_site + 1 || I64(x->s_aptr, x->n_site) != x->n_atom))
    rc = sp_err_set(x->err, SP_E_FORMAT, "%s: /sites/atom_ptr does not match the site and atom counts", x->path);
  return rc;
}

/* ---------------------------------------------------------------- names */

static void keep_name_chars(char *s) {
  for (; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '.'))
      *s = '-';
}

static void site_ident(const xfile *x, int64_t i, site_id *id) {
  id->lig = I64(x->s_lig, i);
  id->st = I64(x->s_st, i);
  xstr(&x->st_entry, id->st, id->entry, sizeof id->entry);
  if (!id->entry[0]) { /* the file name without directories and extensions */
    char p[SP_PATH_LEN];
    xstr(&x->st_path, id->st, p, sizeof p);
    const char *b = strrchr(p, '/');
    b = b ? b + 1 : p;
    snprintf(id->entry, sizeof id->entry, "%.39s", b);
    char *dot = strchr(id->entry, '.');
    if (dot && dot != id->entry) *dot = '\0';
  }
  xstr(&x->l_comp, id->lig, id->comp, sizeof id->comp);
  xstr(&x->l_chain, id->lig, id->chain, sizeof id->chain);
  char ins[8];
  xstr(&x->l_ins, id->lig, ins, sizeof ins);
  int32_t seq = I32(x->l_seq, id->lig);
  if (seq == SP_SEQ_NONE) snprintf(id->seq, sizeof id->seq, ".%s", ins);
  else snprintf(id->seq, sizeof id->seq, "%d%s", seq, ins);
}

static void site_stem(const xfile *x, const site_id *id, char *out, size_t cap) {
  int32_t model = I32(x->l_model, id->lig);
  char e[40], c[SP_ID_LEN], ch[SP_ID_LEN], s[24];
  snprintf(e, sizeof e, "%s", id->entry);
  snprintf(c, sizeof c, "%s", id->comp);
  snprintf(ch, sizeof ch, "%s", id->chain[0] ? id->chain : "-");
  snprintf(s, sizeof s, "%s", id->seq);
  keep_name_chars(e);
  keep_name_chars(c);
  keep_name_chars(ch);
  keep_name_chars(s);
  if (model > 1) snprintf(out, cap, "%s_%s_%s_%s_m%d", e, c, ch, s, model);
  else snprintf(out, cap, "%s_%s_%s_%s", e, c, ch, s);
}

/* FNV-1a, 64 bits (Fowler, Noll, Vo; the IETF draft-eastlake-fnv offset basis and prime) of string s. */
static uint64_t fnv1a64(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return h;
}

typedef struct stem_hash {
  uint64_t h;
  int64_t i;
} stem_hash;

static int cmp_stem_hash(const void *a, const void *b) {
  const stem_hash *p = a, *q = b;
  if (p->h != q->h) return p->h < q->h ? -1 : 1;
  return (p->i > q->i) - (p->i < q->i);
}

static void base_stem(const xfile *x, int64_t i, char out[160]) {
  site_id id;
  site_ident(x, i, &id);
  site_stem(x, &id, out, 160);
}

/* The naming rule of the files (docs/usage.md "Export"): a site whose stem (entry, comp, chain, number,
 * model) another site of the same merged file shares, i.e. the same entry read from two files (its .cif
 * and its .pdb), gets "_site<I>" appended, all of those sites, whatever is selected: a site's file names
 * depend on the merged file alone, never on the selection, so that exports of different selections into
 * one directory neither collide nor replace each other. *out gets one byte per site (1: repeated),
 * found by sorting the stems' 64-bit hashes and comparing the stems of equal hashes. */
static int repeated_stems(const xfile *x, uint8_t **out) {
  size_t n = (size_t)(x->n_site > 0 ? x->n_site : 0);
  uint8_t *rep = calloc(n + 1, 1);
  stem_hash *v = malloc((n + 1) * sizeof *v);
  if (!rep || !v) {
    free(rep);
    free(v);
    return sp_err_set(x->err, SP_E_NOMEM, "out of memory naming the export files");
  }
  char a[160], b[160];
  for (size_t i = 0; i < n; i++) {
    base_stem(x, (int64_t)i, a);
    v[i].h = fnv1a64(a);
    v[i].i = (int64_t)i;
  }
  qsort(v, n, sizeof *v, cmp_stem_hash);
  for (size_t j = 0; j < n; j++)
    for (size_t k = j + 1; k < n && v[k].h == v[j].h; k++) {
      base_stem(x, v[j].i, a);
      base_stem(x, v[k].i, b);
      if (!strcmp(a, b)) rep[v[j].i] = rep[v[k].i] = 1;
    }
  free(v);
  *out = rep;
  return 0;
}

/* ---------------------------------------------------------------- pockets */

/* The chain labels of one PDB pocket's symmetry images: one character per (chain, symop) pair. */
typedef struct img_labels {
  char used[128];            /* characters taken: the site's one-character chains, then the labels given */
  char key[64][2 * SP_ID_LEN + 24];
  char label[64];
  size_t n;
} img_labels;

/* Chain label of residue r: its author chain; for a symmetry-image residue, in mmCIF "<chain>-<symop>",
 * in PDB one character of its own per (chain, symop) pair, the first of the pool (the end of the
 * alphabet first) that no chain of the site and no other image uses, in order of appearance. */
static void pocket_chain(const xfile *x, int64_t r, int pdb, img_labels *T, char *out, size_t cap) {
  static const char pool[] = "zyxwvutsrqponmlkjihgfedcba9876543210ZYXWVUTSRQPONMLKJIHGFEDCBA";
  char sym[20], key[sizeof T->key[0]];
  xstr(&x->r_auth, r, out, cap);
  if (!x->r_symop.p || !xstr(&x->r_symop, r, sym, sizeof sym)[0]) return;
  snprintf(key, sizeof key, "%.*s-%s", SP_ID_LEN, out, sym);
  if (!pdb) {
    snprintf(out, cap, "%s", key);
    return;
  }
  for (size_t k = 0; k < T->n; k++)
    if (!strcmp(T->key[k], key)) {
      snprintf(out, cap, "%c", T->label[k]);
      return;
    }
  size_t nu = strlen(T->used);
  for (const char *c = pool; *c && T->n < sizeof T->label && nu + 1 < sizeof T->used; c++)
    if (!strchr(T->used, *c)) {
      snprintf(T->key[T->n], sizeof T->key[0], "%s", key);
      T->label[T->n++] = *c;
      T->used[nu] = *c, T->used[nu + 1] = '\0';
      snprintf(out, cap, "%c", *c);
      return;
    }
  /* more images than free characters (62 less the site's chains): they share the pool's last one
   * (docs/format.md "Export files") */
  snprintf(out, cap, "%c", pool[sizeof pool - 2]);
}

static void atom_name_pdb(const char *name, const char *el, char out[5]) {
  size_t n = strlen(name);
  if (n >= 4 || strlen(el) == 2) snprintf(out, 5, "%-4.4s", name);
  else snprintf(out, 5, " %-3.3s", name);
}

static void write_pocket(FILE *o, const xfile *x, int64_t i, const site_id *id, int pdb) {
  int64_t a0 = I64(x->s_aptr, i), a1 = I64(x->s_aptr, i + 1);
  img_labels T;
  T.used[0] = '\0';
  T.n = 0;
  size_t nu = 0;
  for (int64_t r = I64(x->s_rptr, i); r < I64(x->s_rptr, i + 1) && nu + 1 < sizeof T.used; r++) {
    char c[SP_ID_LEN];
    xstr(&x->r_auth, r, c, sizeof c);
    if (strlen(c) == 1 && !strchr(T.used, c[0])) T.used[nu++] = c[0], T.used[nu] = '\0';
  }
  if (pdb) {
    fprintf(o, "REMARK   1 SITEPACK POCKET %s %s %s %s SITE %lld\n", id->entry, id->comp, id->chain[0] ? id->chain : "-",
            id->seq, (long long)i);
  } else {
    fprintf(o, "data_%s_%s_%s_%s_pocket\n", id->entry, id->comp, id->chain[0] ? id->chain : "-", id->seq);
    fputs("loop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n"
          "_atom_site.label_alt_id\n_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_seq_id\n"
          "_atom_site.pdbx_PDB_ins_code\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n"
          "_atom_site.occupancy\n_atom_site.B_iso_or_equiv\n_atom_site.pdbx_formal_charge\n_atom_site.auth_seq_id\n"
          "_atom_site.auth_asym_id\n_atom_site.pdbx_PDB_model_num\n", o);
  }
  for (int64_t a = a0; a < a1; a++) {
    int64_t r = I64(x->a_res, a);
    char name[SP_ID_LEN], comp[SP_ID_LEN], chain[40], ins[8], alt[4], label[40], nm4[5];
    xstr(&x->a_name, a, name, sizeof name);
    xstr(&x->r_comp, r, comp, sizeof comp);
    xstr(&x->r_ins, r, ins, sizeof ins);
    xstr(&x->a_alt, a, alt, sizeof alt);
    pocket_chain(x, r, pdb, &T, chain, sizeof chain);
    int het = (U16(x->a_flags, a) & (SP_SITE_ATOM_LIGAND | SP_SITE_ATOM_HETATM)) != 0;
    const char *el = xelem(U8(x->a_el, a));
    const float *p = &F32(x->a_pos, 3 * a);
    int32_t seq = I32(x->r_seq, r);
    int chg = I8(x->a_charge, a);
    if (pdb) {
      char cs[4] = "";
      if (chg) snprintf(cs, sizeof cs, "%d%c", abs(chg) % 10, chg > 0 ? '+' : '-');
      atom_name_pdb(name, el, nm4);
      fprintf(o, "%-6s%5lld %4s%1.1s%3.3s %1.1s%4d%1.1s   %8.3f%8.3f%8.3f%6.2f%6.2f          %2s%2s\n",
              het ? "HETATM" : "ATOM", (long long)(a - a0 + 1) % 100000, nm4, alt, comp, chain[0] ? chain : " ",
              seq == SP_SEQ_NONE ? 0 : seq, ins, p[0], p[1], p[2], F32(x->a_occ, a), F32(x->a_b, a), el, cs);
    } else {
      xstr(&x->r_label, r, label, sizeof label);
      char sym[20];
      if (x->r_symop.p && xstr(&x->r_symop, r, sym, sizeof sym)[0]) snprintf(label, sizeof label, "%s", chain);
      char lab[48], chq[48], lseq[16]; /* quoted, or "." when empty (a blank chain) */
      int32_t ls = I32(x->r_lseq, r);
      if (ls == SP_SEQ_NONE) snprintf(lseq, sizeof lseq, ".");
      else snprintf(lseq, sizeof lseq, "%d", (int)ls);
      snprintf(chq, sizeof chq, chain[0] ? "\"%.40s\"" : ".", chain);
      snprintf(lab, sizeof lab, label[0] ? "\"%.40s\"" : "%s", label[0] ? label : chq);
      fprintf(o, "%s %lld %s \"%s\" %s \"%s\" %s %s %s %.3f %.3f %.3f %.2f %.2f %d %d %s 1\n",
              het ? "HETATM" : "ATOM", (long long)(a - a0 + 1), el, name, alt[0] ? alt : ".", comp, lab, lseq,
              ins[0] ? ins : "?", p[0], p[1], p[2], F32(x->a_occ, a), F32(x->a_b, a), chg,
              seq == SP_SEQ_NONE ? 0 : seq, chq);
    }
  }
  if (pdb) fputs("END\n", o);
  else fputs("#\n", o);
}

/* ---------------------------------------------------------------- selection and files */

static int select_sites(const xfile *x, const sp_export_opts *o, int64_t **out, size_t *n_out, sp_err *err) {
  int nsel = (o->n_sites > 0) + (o->all != 0) + (o->cls != NULL) + (o->comp != NULL);
  if (nsel != 1)
    return sp_err_set(err, SP_E_INVALID, "export: give exactly one of --site, --all, --class, --comp (%d given)", nsel);
  int64_t *v = malloc((size_t)(x->n_site > 0 ? x->n_site : 1) * sizeof *v + o->n_sites * sizeof *v);
  if (!v) return sp_err_set(err, SP_E_NOMEM, "out of memory selecting sites");
  size_t n = 0;
  uint8_t *given = o->n_sites ? calloc((size_t)x->n_site + 1, 1) : NULL; /* a site listed twice is written once */
  if (o->n_sites && !given) {
    free(v);
    return sp_err_set(err, SP_E_NOMEM, "out of memory selecting sites");
  }
  for (size_t k = 0; k < o->n_sites; k++) {
    if (o->sites[k] < 0 || o->sites[k] >= x->n_site) {
      free(v);
      free(given);
      return sp_err_set(err, SP_E_NOT_FOUND, "%s: no site %lld (the file has %lld sites: 0..%lld)", x->path,
                        (long long)o->sites[k], (long long)x->n_site, (long long)x->n_site - 1);
    }
    if (!given[o->sites[k]]) v[n++] = o->sites[k];
    given[o->sites[k]] = 1;
  }
  free(given);
  for (int64_t i = 0; !o->n_sites && i < x->n_site; i++) {
    int64_t l = I64(x->s_lig, i);
    char buf[128];
    int take = o->all;
    if (o->cls) take = !strcmp(xstr(&x->l_cls, l, buf, sizeof buf), o->cls);
    if (o->comp) /* a comp_id of any of the ligand's own residues (the site's /residues rows of kind 0): a
                    multi-residue ligand that contains it too; /ligands/residues may be cut, these rows never are */
      for (int64_t r = I64(x->s_rptr, i); r < I64(x->s_rptr, i + 1) && !take; r++)
        take = U8(x->r_kind, r) == SP_RES_KIND_LIGAND && !strcmp(xstr(&x->r_comp, r, buf, sizeof buf), o->comp);
    if (take) v[n++] = i;
  }
  if (!n) {
    free(v);
    return sp_err_set(err, SP_E_NOT_FOUND, "%s: no site matches the selection", x->path);
  }
  *out = v;
  *n_out = n;
  return 0;
}

static FILE *open_out(const sp_export_opts *o, const char *stem, const char *suffix, char *path, size_t cap, sp_err *err) {
  snprintf(path, cap, "%s/%s%s", o->out_dir, stem, suffix);
  struct stat st;
  if (!o->force && stat(path, &st) == 0) {
    sp_err_set(err, SP_E_INVALID, "%s exists (use --force to overwrite)", path); /* exit 2, as run and merge */
    return NULL;
  }
  FILE *f = fopen(path, "w");
  if (!f) sp_err_set(err, SP_E_IO, "cannot create %s: %s", path, strerror(errno));
  return f;
}

static int close_out(FILE *f, const char *path, sp_err *err) {
  int bad = ferror(f) != 0;
  if (fclose(f) != 0) bad = 1;
  return bad ? sp_err_set(err, SP_E_IO, "writing %s failed", path) : 0;
}

/* The files of site i (directory output) or its records on the stream. */
static int export_site(const xfile *x, const sp_export_opts *o, int64_t i, int pass, lig_bonds *lb,
                       const uint8_t *repeated, sp_export_summary *sum, sp_err *err) {
  site_id id;
  site_ident(x, i, &id);
  char stem[160], path[4096];
  site_stem(x, &id, stem, sizeof stem);
  if (repeated[i]) {
    size_t n = strlen(stem);
    snprintf(stem + n, sizeof stem - n, "_site%lld", (long long)i);
  }
  static const char *const suffix[3] = {"_ligand.sdf", "_pocket.pdb", "_pocket.cif"};
  for (int k = 0; k < 3; k++) {
    if (!(o->formats & (1u << k)) || (!o->out_dir && pass != k)) continue;
    FILE *f = o->out_dir ? open_out(o, stem, suffix[k], path, sizeof path, err) : o->stream;
    if (!f) return err ? err->cls : SP_E_IO;
    int rc = 0;
    if (k == 0) {
      rc = sp_export_write_sdf(f, x, i, &id, lb);
      if (!rc) {
        sum->n_single_bond_fallback += lb->unknown_order || lb->conect_no_orders;
        sum->n_valence_charged += lb->q.n_valence_charged;
        sum->n_over_valence += lb->over_valence != 0;
        sum->n_link_hydrogens += lb->n_link_h;
        sum->n_fragmented += lb->n_frag > 1;
      }
    } else {
      write_pocket(f, x, i, &id, k == 1);
    }
    if (o->out_dir) {
      int crc = close_out(f, path, err);
      if (!rc) rc = crc;
      if (!rc) sum->n_files++;
    }
    if (rc) return rc == SP_E_NOMEM ? sp_err_set(err, rc, "out of memory writing site %lld", (long long)i) : rc;
  }
  return 0;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int open_merged(xfile *x, const char *path) {
  int64_t ver = 0; /* versions 2 to 8: export reads only version-2 datasets (/bonds came with version 2) */
  return sp_h5_open_merged(path, &x->f, &ver, NULL, x->err); /* one diagnosis for all readers (h5util.h) */
}

int sp_export(const char *h5_path, const sp_export_opts *o, sp_export_summary *sum, sp_err *err) {
  sp_export_summary dummy;
  if (!sum) sum = &dummy;
  memset(sum, 0, sizeof *sum);
  if (!h5_path || !o || (!o->out_dir && !o->stream)) return sp_err_set(err, SP_E_INVALID, "sp_export: NULL argument");
  if (!(o->formats & (SP_EXPORT_SDF | SP_EXPORT_PDB | SP_EXPORT_CIF)))
    return sp_err_set(err, SP_E_INVALID, "export: no output format (sdf, pdb, cif)");
  xfile x;
  memset(&x, 0, sizeof x);
  x.f = -1;
  x.path = h5_path;
  x.err = err;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  double t0 = now_s();
  /* the reads below follow the file's pointers and indices (atom_ptr, n_ligand, residue_idx, /bonds atoms ...)
     without a test per row: the file passes sitepack check's layout, index and value checks first */
  int rc = sp_check(h5_path, 0, 1, NULL, err);
  if (!rc) rc = open_merged(&x, h5_path);
  if (!rc) rc = export_load(&x);
  if (!rc && sp_export_conect_orders(&x)) rc = sp_err_set(err, SP_E_NOMEM, "out of memory reading %s", h5_path);
  uint8_t *repeated = NULL;
  if (!rc) rc = repeated_stems(&x, &repeated);
  int64_t *sel = NULL;
  size_t n_sel = 0;
  if (!rc) rc = select_sites(&x, o, &sel, &n_sel, err);
  if (!rc && o->out_dir && mkdir(o->out_dir, 0777) != 0 && errno != EEXIST)
    rc = sp_err_set(err, SP_E_IO, "cannot create directory %s: %s", o->out_dir, strerror(errno));
  double t1 = now_s();
  sum->load_seconds = t1 - t0;
  lig_bonds lb = {0};
  /* a stream holds every SDF record first (one multi-molecule SDF), then the pockets */
  for (int pass = 0; !rc && pass < (o->out_dir ? 1 : 3); pass++)
    for (size_t k = 0; !rc && k < n_sel; k++) {
      rc = export_site(&x, o, sel[k], pass, &lb, repeated, sum, err);
      if (!rc && pass == 0) sum->n_sites++;
    }
  if (!rc && !o->out_dir && (fflush(o->stream) != 0 || ferror(o->stream)))
    rc = sp_err_set(err, SP_E_IO, "writing the export stream failed");
  sum->seconds = now_s() - t1;
  sp_export_sdf_free(&lb);
  free(repeated);
  free(x.st_conect_orders);
  free(sel);
  xfree(&x);
  if (x.f >= 0) H5Fclose(x.f);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  return rc;
}
