/* test_pdb_pairs STRUCTURES_DIR: every entry present both as mmCIF and as legacy PDB in the
 * folder (names normalised: 1abc.cif[.gz], pdb_00001abc_xyz-enrich.cif.gz, 1abc.pdb[.gz],
 * pdb1abc.ent[.gz]) must give the same atoms from sp_mmcif_read and sp_pdb_read.
 *
 * Atoms are matched by (model ordinal, auth_asym_id, auth_seq_id, ins_code, comp_id, atom name,
 * altloc) - the identity both formats hold - and every matched atom must agree on element,
 * coordinates (both formats print 3 decimals: equal within 1e-3 Å), occupancy and B (PDB prints
 * 2 decimals: within 0.006), formal charge and the HETATM flag; per model the atom and residue
 * counts must be equal. Not compared, because the PDB format cannot hold them or numbers them
 * differently: label_asym_id / label_seq_id / entity ids (no label ids in PDB), serials (PDB TER
 * records take a serial, and NMR files restart serials per model), chain instances (a PDB chain
 * also holds its ligands and waters; mmCIF splits them into label chains), atom order (e.g. 1a4w,
 * 4opj order chains and waters differently). Chain ids longer than 1 character, hybrid-36 numbers
 * and more than 99999 atoms do not occur in these 27 pairs (they cannot be written as PDB).
 *
 * Known file difference (checked, not skipped): 2beg.pdb is biopython's test copy of the entry
 * with only MODEL 1 of 10 (its NUMMDL says 10): the test requires its one model to equal model 1
 * of 2beg.cif and the mmCIF to have exactly NUMMDL models. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/read.h"

#include "sp_test.h"

/* entry id of a file name, "" if not a structure file name */
static void entry_of(const char *name, char out[16], int *is_cif) {
  out[0] = 0;
  char b[256];
  snprintf(b, sizeof b, "%s", name);
  size_t n = strlen(b);
  if (n > 3 && !strcmp(b + n - 3, ".gz")) b[n -= 3] = 0;
  const char *ext = strrchr(b, '.');
  if (!ext) return;
  *is_cif = !strcmp(ext, ".cif");
  if (!*is_cif && strcmp(ext, ".pdb") && strcmp(ext, ".ent")) return;
  b[ext - b] = 0;
  const char *id = b;
  if (!strncmp(b, "pdb_0000", 8)) id = b + 8;
  else if (!strncmp(b, "pdb", 3) && strlen(b) == 7) id = b + 3;
  if (strlen(id) < 4) return;
  snprintf(out, 16, "%.4s", id);
  if (strlen(id) != 4 && strcmp(id + 4, "_xyz-enrich")) out[0] = 0;
}

/* Standard residues (20 amino acids, nucleotides, water): both formats must agree on their
 * ATOM/HETATM group. For other residues (modified residues inside a polymer) the files
 * themselves may differ, which is reported, not failed. */
static bool standard(const char *comp) {
  static const char *const k[] = {"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU",
                                  "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL", "A",   "C",
                                  "G",   "U",   "DA",  "DC",  "DG",  "DT",  "HOH"};
  for (size_t i = 0; i < sizeof k / sizeof *k; ++i)
    if (!strcmp(comp, k[i])) return true;
  return false;
}

typedef struct {
  const sp_structure *s;
  uint32_t atom;
  uint32_t model; /* ordinal */
} akey;

static int cmp_akey(const void *pa, const void *pb) {
  const akey *a = pa, *b = pb;
  if (a->model != b->model) return a->model < b->model ? -1 : 1;
  const sp_residue *ra = &a->s->residues[a->s->atom_residue[a->atom]];
  const sp_residue *rb = &b->s->residues[b->s->atom_residue[b->atom]];
  int c = strcmp(a->s->chains[ra->chain].auth_asym_id, b->s->chains[rb->chain].auth_asym_id);
  if (c) return c;
  if (ra->auth_seq_id != rb->auth_seq_id) return ra->auth_seq_id < rb->auth_seq_id ? -1 : 1;
  if (ra->ins_code != rb->ins_code) return ra->ins_code < rb->ins_code ? -1 : 1;
  if ((c = strcmp(ra->comp_id, rb->comp_id))) return c;
  if ((c = strcmp(a->s->atom_name[a->atom], b->s->atom_name[b->atom]))) return c;
  return (unsigned char)a->s->altloc[a->atom] - (unsigned char)b->s->altloc[b->atom];
}

static akey *keys_of(const sp_structure *s, size_t n_models) {
  size_t n = 0;
  for (size_t m = 0; m < n_models; ++m) n += s->models[m].n_atoms;
  akey *k = malloc((n ? n : 1) * sizeof *k);
  if (!k) return NULL;
  size_t j = 0;
  for (size_t m = 0; m < n_models; ++m)
    for (uint32_t a = s->models[m].first_atom; a < s->models[m].first_atom + s->models[m].n_atoms; ++a)
      k[j++] = (akey){s, a, (uint32_t)m};
  qsort(k, n, sizeof *k, cmp_akey);
  return k;
}

static int nummdl(const char *text, size_t len) {
  const char *p = text, *e = text + len;
  while (p < e) {
    if (e - p > 14 && !strncmp(p, "NUMMDL", 6)) return atoi(p + 10);
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    if (!nl) break;
    p = nl + 1;
  }
  return 0;
}

static void compare(const char *id, const char *cpath, const char *ppath) {
  sp_structure c, p;
  sp_structure_init(&c);
  sp_structure_init(&p);
  sp_buf cb = {0}, pb = {0};
  sp_err e1 = {0}, e2 = {0};
  int f1 = 0, f2 = 0;
  int r1 = sp_read_structure_file(cpath, 0, &cb, &c, &f1, &e1);
  int r2 = sp_read_structure_file(ppath, 0, &pb, &p, &f2, &e2);
  CHECK(r1 == 0 && f1 == SP_FMT_MMCIF, "%s: %s", cpath, e1.msg);
  CHECK(r2 == 0 && f2 == SP_FMT_PDB, "%s: %s", ppath, e2.msg);
  if (r1 || r2) goto out;
  size_t nm = c.n_models;
  if (p.n_models != c.n_models) {
    /* only the documented case: a PDB copy that keeps the first models of NUMMDL */
    int nmdl = nummdl(pb.data, pb.len);
    CHECK(p.n_models < c.n_models && nmdl == (int)c.n_models, "%s: %zu models (mmCIF) vs %zu (PDB, NUMMDL %d)", id,
          c.n_models, p.n_models, nmdl);
    printf("%s: PDB file holds %zu of NUMMDL %d models; comparing those\n", id, p.n_models, nmdl);
    nm = p.n_models < c.n_models ? p.n_models : c.n_models;
  }
  size_t na = 0;
  for (size_t m = 0; m < nm; ++m) {
    CHECK(c.models[m].model_num == p.models[m].model_num, "%s model %zu: number %d vs %d", id, m, c.models[m].model_num,
          p.models[m].model_num);
    CHECK(c.models[m].n_atoms == p.models[m].n_atoms, "%s model %zu: %u atoms (mmCIF) vs %u (PDB)", id, m,
          c.models[m].n_atoms, p.models[m].n_atoms);
    CHECK(c.models[m].n_residues == p.models[m].n_residues, "%s model %zu: %u residues vs %u", id, m,
          c.models[m].n_residues, p.models[m].n_residues);
    na += c.models[m].n_atoms;
  }
  for (size_t m = 0; m < nm && c.models[m].n_atoms != p.models[m].n_atoms; ++m) goto out;
  akey *kc = keys_of(&c, nm), *kp = keys_of(&p, nm);
  CHECK(kc && kp, "out of memory");
  size_t bad = 0, bad_shown = 0, het_nonstd = 0;
  for (size_t i = 0; kc && kp && i < na; ++i) {
    uint32_t a = kc[i].atom, b = kp[i].atom;
    bool same = cmp_akey(&kc[i], &(akey){&p, b, kp[i].model}) == 0;
    bool het_differs = (c.atom_flags[a] & SP_ATOM_HETATM) != (p.atom_flags[b] & SP_ATOM_HETATM);
    if (same && het_differs && !standard(c.residues[c.atom_residue[a]].comp_id)) {
      ++het_nonstd; /* e.g. 1a4w TYS: ATOM in the mmCIF, HETATM in the PDB file (as the files say) */
      het_differs = false;
    }
    bool ok = same && c.element[a] == p.element[b] && c.charge[a] == p.charge[b] && !het_differs &&
              fabsf(c.occupancy[a] - p.occupancy[b]) <= 0.006f && fabsf(c.b_iso[a] - p.b_iso[b]) <= 0.006f;
    for (int k = 0; k < 3; ++k) ok = ok && fabsf(c.xyz[a][k] - p.xyz[b][k]) <= 1e-3f;
    if (!ok) {
      ++bad;
      if (bad_shown++ < 5) {
        const sp_residue *ra = &c.residues[c.atom_residue[a]], *rb = &p.residues[p.atom_residue[b]];
        printf("  %s: mmCIF %s/%s/%d%c/%s alt '%c' el %s q %d xyz %.3f %.3f %.3f occ %.2f B %.2f het %d\n"
               "  %*s  PDB   %s/%s/%d%c/%s alt '%c' el %s q %d xyz %.3f %.3f %.3f occ %.2f B %.2f het %d\n",
               id, c.chains[ra->chain].auth_asym_id, ra->comp_id, ra->auth_seq_id, ra->ins_code ? ra->ins_code : ' ',
               c.atom_name[a], c.altloc[a] ? c.altloc[a] : ' ', sp_element_symbol(c.element[a]), c.charge[a],
               c.xyz[a][0], c.xyz[a][1], c.xyz[a][2], c.occupancy[a], c.b_iso[a], c.atom_flags[a] & SP_ATOM_HETATM,
               (int)strlen(id), "", p.chains[rb->chain].auth_asym_id, rb->comp_id, rb->auth_seq_id,
               rb->ins_code ? rb->ins_code : ' ', p.atom_name[b], p.altloc[b] ? p.altloc[b] : ' ',
               sp_element_symbol(p.element[b]), p.charge[b], p.xyz[b][0], p.xyz[b][1], p.xyz[b][2], p.occupancy[b],
               p.b_iso[b], p.atom_flags[b] & SP_ATOM_HETATM);
      }
    }
  }
  CHECK(bad == 0, "%s: %zu of %zu atoms differ between %s and %s", id, bad, na, cpath, ppath);
  printf("%s: %zu models, %zu atoms compared, %zu differ", id, nm, na, bad);
  if (het_nonstd) printf(" (%zu atoms of non-standard residues ATOM in one file, HETATM in the other)", het_nonstd);
  printf("\n");
  free(kc);
  free(kp);
out:
  sp_buf_free(&cb);
  sp_buf_free(&pb);
  sp_structure_free(&c);
  sp_structure_free(&p);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s STRUCTURES_DIR\n", argv[0]);
    return 2;
  }
  DIR *d = opendir(argv[1]);
  if (!d) {
    fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  enum { MAXF = 1024 };
  static char ids[MAXF][16], names[MAXF][256];
  static int cif[MAXF];
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)) && n < MAXF) {
    int is_cif = 0;
    entry_of(de->d_name, ids[n], &is_cif);
    if (!ids[n][0]) continue;
    for (char *q = ids[n]; *q; ++q) *q = (char)tolower((unsigned char)*q);
    memcpy(names[n], de->d_name, strlen(de->d_name) + 1); /* d_name is at most 255 bytes + NUL */
    cif[n] = is_cif;
    ++n;
  }
  closedir(d);
  int pairs = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!cif[i]) continue;
    for (size_t j = 0; j < n; ++j) {
      if (cif[j] || strcmp(ids[i], ids[j])) continue;
      char a[4400], b[4400];
      snprintf(a, sizeof a, "%.4000s/%.255s", argv[1], names[i]);
      snprintf(b, sizeof b, "%.4000s/%.255s", argv[1], names[j]);
      compare(ids[i], a, b);
      ++pairs;
    }
  }
  /* shared/data/README.md: 27 legacy .pdb companions of entries whose main file is mmCIF */
  CHECK(pairs == 27, "%d mmCIF/PDB pairs found, expected 27", pairs);
  printf("test_pdb_pairs: %d pairs, %d checks, %d failed\n", pairs, g_checks, g_fail);
  return g_fail ? 1 : 0;
}
