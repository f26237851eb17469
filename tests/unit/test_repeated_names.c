/* Repeated atom names inside one residue (issue 13; model.h sp_structure_finish, SP_ATOM_REPEATED_NAME).
 *   test_repeated_names REPEATED_NAMES.pdb REPEATED_NAMES.cif
 * 1. the synthetic tests/data/site_chem/repeated_names.{pdb,cif} (GOL B 1 whose 8 H are all "H", GOL B 2
 *    whose C3 is named "C1"; make_repeated_names.py): each GOL is one residue of 14 atoms, exactly the
 *    repeated-name atoms carry SP_ATOM_REPEATED_NAME, and one warning per residue names the class,
 *    the residue and the atom name; both readers give the same;
 * 2. inline PDB text: two whole copies of GOL with identical identifiers stay two residues without a
 *    warning (case B16's rule), and a third "C1" in a residue is one warning with the count 3;
 * 3. inline PDB text for the rules of src/model/regroup.c and is_copy (cases R21-R25 hold the files):
 *    three waters with identical ids 2.8 A apart stay three residues; a GOL piece that comes back after
 *    another chain with the same names at other coordinates stays a residue of its own (with a warning),
 *    one with only new names (its H) joins it; a SO4 block written again later is one SO4 of 5 atoms. */
#include <stdio.h>
#include <string.h>

#include "sitepack/read.h"
#include "sp_test.h"

static size_t n_warned(const sp_structure *s, const char *part) {
  size_t n = 0;
  for (size_t i = 0; i < s->n_warnings; i++) n += strstr(sp_structure_warning(s, i), part) != NULL;
  return n;
}

/* residue index of (comp, auth_seq_id) in model 1, -1 if absent */
static int64_t residue_of(const sp_structure *s, const char *comp, int32_t seq) {
  for (size_t r = 0; r < s->models[0].n_residues; r++)
    if (!strcmp(s->residues[r].comp_id, comp) && s->residues[r].auth_seq_id == seq) return (int64_t)r;
  return -1;
}

static void check_gol(const char *path, const sp_structure *s, int32_t seq, const char *name, uint32_t n_rep) {
  int64_t r = residue_of(s, "GOL", seq);
  CHECK(r >= 0, "%s: GOL %d present", path, seq);
  if (r < 0) return;
  const sp_residue *R = &s->residues[r];
  CHECK(R->n_atoms == 14, "%s: GOL %d: %u atoms in one residue, want 14", path, seq, R->n_atoms);
  uint32_t flagged = 0, wrong = 0;
  for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
    bool f = (s->atom_flags[k] & SP_ATOM_REPEATED_NAME) != 0;
    flagged += f;
    wrong += f != !strcmp(s->atom_name[k], name);
    CHECK(s->atom_residue[k] == (uint32_t)r, "%s: atom %u of GOL %d in residue %u", path, k, seq, s->atom_residue[k]);
  }
  CHECK(flagged == n_rep && wrong == 0, "%s: GOL %d: %u atoms flagged (want the %u named '%s'), %u wrongly", path,
        seq, flagged, n_rep, name, wrong);
  char want[96];
  snprintf(want, sizeof want, "repeated_atom_name: residue GOL B %d: %u atoms named '%s'", (int)seq, n_rep, name);
  CHECK(n_warned(s, want) == 1, "%s: one warning \"%s...\"", path, want);
}

static void test_file(const char *path) {
  sp_structure s;
  sp_err err = {0};
  CHECK(read_structure(path, &s, &err) == 0, "%s: %s", path, err.msg);
  CHECK(s.n_residues == 10 && s.chains[0].n_residues == 8 && s.chains[1].n_residues == 2,
        "%s: %zu residues (want 8 GLY + 2 GOL)", path, s.n_residues);
  CHECK(s.models[0].first_residue == 0 && s.models[0].n_residues == 10 && s.chains[1].first_residue == 8,
        "%s: model and chain ranges renumbered", path);
  check_gol(path, &s, 1, "H", 8);
  check_gol(path, &s, 2, "C1", 2);
  CHECK(n_warned(&s, "repeated_atom_name") == 2, "%s: %zu repeated_atom_name warnings, want 2", path,
        n_warned(&s, "repeated_atom_name"));
  sp_structure_free(&s);
}

static const char *const k_gol[] = {"C1", "O1", "C2", "O2", "C3", "O3"};

/* PDB text of GOL B 1 written n_copies times (6 heavy atoms each; names[k] replaces the k-th name) */
static size_t gol_text(char *out, size_t cap, int n_copies, const char *const *names) {
  size_t len = 0;
  int serial = 1;
  for (int c = 0; c < n_copies; c++)
    for (int k = 0; k < 6; k++, serial++)
      len += (size_t)snprintf(out + len, cap - len,
                              "HETATM%5d  %-3s GOL B   1    %8.3f%8.3f%8.3f  1.00 20.00           %c\n", serial,
                              names ? names[k] : k_gol[k], 1.5 * k + 10.0 * c, 0.0, 0.0, k_gol[k][0]);
  len += (size_t)snprintf(out + len, cap - len, "END\n");
  return len;
}

static void test_inline(void) {
  char text[4096];
  sp_structure s;
  sp_err err = {0};
  int fmt = 0;
  size_t n = gol_text(text, sizeof text, 2, NULL);
  sp_structure_init(&s);
  CHECK(sp_read_structure_text(text, n, &s, &fmt, &err) == 0, "two copies: %s", err.msg);
  CHECK(s.n_residues == 2 && s.residues[0].n_atoms == 6 && s.residues[1].n_atoms == 6,
        "two whole copies with identical ids: %zu residues (want 2 of 6 atoms)", s.n_residues);
  CHECK(n_warned(&s, "repeated_atom_name") == 0, "two copies: no repeated_atom_name warning");
  sp_structure_free(&s);
  static const char *const three_c1[] = {"C1", "O1", "C1", "O2", "C1", "O3"};
  n = gol_text(text, sizeof text, 1, three_c1);
  sp_structure_init(&s);
  CHECK(sp_read_structure_text(text, n, &s, &fmt, &err) == 0, "three C1: %s", err.msg);
  CHECK(s.n_residues == 1 && s.residues[0].n_atoms == 6, "three C1: %zu residues (want 1 of 6 atoms)", s.n_residues);
  CHECK(n_warned(&s, "repeated_atom_name: residue GOL B 1: 3 atoms named 'C1'") == 1 && s.n_warnings == 1,
        "three C1: one warning with the count 3 (%zu warnings)", s.n_warnings);
  sp_structure_free(&s);
}

static int read_text(const char *text, sp_structure *s) {
  sp_err err = {0};
  int fmt = 0;
  sp_structure_init(s);
  int rc = sp_read_structure_text(text, strlen(text), s, &fmt, &err);
  CHECK(rc == 0, "inline text: %s", err.msg);
  return rc;
}

static void test_regroup(void) {
  sp_structure s;
  /* three waters, identical ids (A 1), 2.8 A apart: single-atom copies that are not bonded */
  const char *waters = "HETATM    1  O   HOH A   1       0.000   0.000   0.000  1.00 20.00           O\n"
                       "HETATM    2  O   HOH A   1       2.800   0.000   0.000  1.00 20.00           O\n"
                       "HETATM    3  O   HOH A   1       5.600   0.000   0.000  1.00 20.00           O\nEND\n";
  if (!read_text(waters, &s))
    CHECK(s.n_residues == 3 && s.n_warnings == 0, "three waters with identical ids: %zu residues (want 3), %zu warnings",
          s.n_residues, s.n_warnings);
  sp_structure_free(&s);
  /* GOL B 1, a chain C atom, GOL B 1 again at other coordinates (kept apart), a chain D atom, then
   * GOL B 1's H (joined to the last GOL B 1 piece, the one it does not conflict with) */
  char text[4096];
  size_t n = 0;
  for (int c = 0; c < 2; c++) {
    for (int k = 0; k < 6; k++)
      n += (size_t)snprintf(text + n, sizeof text - n,
                            "HETATM%5d  %-3s GOL B   1    %8.3f%8.3f%8.3f  1.00 20.00           %c\n", 6 * c + k + 1,
                            k_gol[k], 1.5 * k + 20.0 * c, 0.0, 0.0, k_gol[k][0]);
    if (!c) n += (size_t)snprintf(text + n, sizeof text - n,
                                  "HETATM   50 ZN    ZN C   1      40.000   0.000   0.000  1.00 20.00          ZN\n");
  }
  n += (size_t)snprintf(text + n, sizeof text - n,
                        "HETATM   59 ZN    ZN D   1      60.000   0.000   0.000  1.00 20.00          ZN\n"
                        "HETATM   60  H1  GOL B   1      20.000   1.000   0.000  1.00 20.00           H\nEND\n");
  if (!read_text(text, &s)) {
    CHECK(s.n_residues == 4 && s.residues[0].n_atoms == 6 && s.residues[2].n_atoms == 7 && s.n_chains == 4 &&
              !strcmp(s.atom_name[s.residues[2].first_atom + 6], "H1") && s.residues[3].n_atoms == 1,
          "GOL apart with the same names: %zu residues (want GOL 6, ZN, GOL 7 with its H, ZN)", s.n_residues);
    CHECK(n_warned(&s, "read as separate residues") == 1 && n_warned(&s, "1 residue piece joined") == 1,
          "GOL apart: one warning for the piece kept apart, one for the H joined");
  }
  sp_structure_free(&s);
  /* SO4 A 101, a ZN, the same SO4 records again: one SO4 of 5 atoms, 5 duplicates dropped */
  n = 0;
  static const char *const so4[] = {"S", "O1", "O2", "O3", "O4"};
  for (int c = 0; c < 2; c++) {
    for (int k = 0; k < 5; k++)
      n += (size_t)snprintf(text + n, sizeof text - n,
                            "HETATM%5d  %-3s SO4 A 101    %8.3f%8.3f%8.3f  1.00 20.00           %c\n", 10 * c + k + 1,
                            so4[k], k ? 1.5 : 0.0, k == 2 ? 1.0 : 0.0, k == 3 ? 1.0 : (k == 4 ? -1.0 : 0.0), so4[k][0]);
    if (!c) n += (size_t)snprintf(text + n, sizeof text - n,
                                  "HETATM    6 ZN    ZN A 201      40.000   0.000   0.000  1.00 20.00          ZN\n");
  }
  n += (size_t)snprintf(text + n, sizeof text - n, "END\n");
  if (!read_text(text, &s)) {
    CHECK(s.n_atoms == 6 && s.n_residues == 2 && s.residues[0].n_atoms == 5 && s.models[0].n_atoms == 6,
          "SO4 written twice apart: %zu atoms, %zu residues (want SO4 of 5 and ZN)", s.n_atoms, s.n_residues);
    CHECK(n_warned(&s, "duplicate atom records: residue SO4 A 101: 5 records") == 1 &&
              n_warned(&s, "repeated_atom_name") == 0,
          "SO4 written twice apart: one duplicate warning, no repeated name");
    for (size_t k = 0; k < s.n_atoms; k++)
      CHECK(s.atom_residue[k] == (k < 5 ? 0u : 1u) && s.serial[k] == (int32_t)(k < 5 ? k + 1 : 6),
            "SO4 written twice apart: atom %zu in residue %u, serial %d", k, s.atom_residue[k], s.serial[k]);
  }
  sp_structure_free(&s);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s REPEATED_NAMES.pdb REPEATED_NAMES.cif\n", argv[0]);
    return 2;
  }
  test_file(argv[1]);
  test_file(argv[2]);
  test_inline();
  test_regroup();
  return sp_test_done("test_repeated_names");
}
