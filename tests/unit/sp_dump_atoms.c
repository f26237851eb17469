/* sp_dump_atoms [--conect] FILE...: one TSV row per atom of every model, for cross-checks
 * (tests/peer/gemmi_atoms.py). With --conect, instead of the atoms one row per CONECT bond
 * (sp_structure.conects, tests/peer/test_conect_peer.py): file CONECT serial_a serial_b order
 * atom_name_a atom_name_b (serials of the two atoms of model 1). Atom columns:
 *   file model_num serial label_asym_id auth_asym_id comp_id label_seq_id auth_seq_id
 *   ins_code atom_name altloc element x y z occupancy b_iso
 * (label_seq_id / auth_seq_id "." when absent; ins_code / altloc "" when blank;
 *  x y z in Å with 3 decimals, occupancy and b_iso with 3 decimals).
 * A file that fails gives one row: file ERROR <error class> <message>.
 * Before the atom rows of a file: file FORMAT <mmcif|pdb> <n_models> <n_atoms>.
 * Exit status: 0 (errors are data here), 2 on bad usage or an output error. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/read.h"

static void seq(char *out, size_t n, int32_t v) {
  if (v == SP_SEQ_NONE) snprintf(out, n, ".");
  else snprintf(out, n, "%d", v);
}

int main(int argc, char **argv) {
  bool conect = argc > 1 && !strcmp(argv[1], "--conect");
  if (argc < 2 + conect) {
    fprintf(stderr, "usage: %s [--conect] FILE...\n", argv[0]);
    return 2;
  }
  static char obuf[1 << 16];
  setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
  sp_structure s;
  sp_structure_init(&s);
  for (int f = 1 + conect; f < argc; ++f) {
    const char *path = argv[f];
    sp_buf buf = {0};
    sp_err err = {0};
    int fmt = 0;
    sp_structure_clear(&s);
    int rc = sp_read_structure_file(path, 0, &buf, &s, &fmt, &err);
    sp_buf_free(&buf);
    if (rc) {
      printf("%s\tERROR\t%s\t%s\n", path, sp_errclass_name(rc), err.msg);
      continue;
    }
    printf("%s\tFORMAT\t%s\t%zu\t%zu\n", path, sp_format_name(fmt), s.n_models, s.n_atoms);
    for (size_t k = 0; conect && k < s.n_conects; ++k) {
      const sp_conect *b = &s.conects[k];
      printf("%s\tCONECT\t%d\t%d\t%d\t%s\t%s\n", path, s.serial[b->a], s.serial[b->b], b->order, s.atom_name[b->a],
             s.atom_name[b->b]);
    }
    for (size_t i = 0; !conect && i < s.n_atoms; ++i) {
      const sp_residue *r = &s.residues[s.atom_residue[i]];
      const sp_chain *c = &s.chains[r->chain];
      const sp_model *m = &s.models[c->model];
      char ls[16], as[16];
      seq(ls, sizeof ls, r->label_seq_id);
      seq(as, sizeof as, r->auth_seq_id);
      char ic[2] = {r->ins_code, 0}, al[2] = {s.altloc[i], 0};
      printf("%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", path, m->model_num,
             s.serial[i], c->label_asym_id, c->auth_asym_id, r->comp_id, ls, as, ic, s.atom_name[i], al,
             s.element[i] ? sp_element_symbol(s.element[i]) : "", s.xyz[i][0], s.xyz[i][1], s.xyz[i][2],
             s.occupancy[i], s.b_iso[i]);
    }
  }
  sp_structure_free(&s);
  if (fflush(stdout) != 0) return 2;
  return 0;
}
