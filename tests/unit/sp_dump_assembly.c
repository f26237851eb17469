/* sp_dump_assembly FILE...: the first biological assembly as sitepack reads it (sp_structure.asm_gens,
 * asm_ops; model.h), one JSON line per file, for tests/peer/test_assembly_gemmi.py:
 *   {"file": F, "n_gens": G, "n_ops": O, "atoms": A, "gens": [{"chains": "A,B", "by_label": 1,
 *    "ops": [{"id": "1", "rot": [[...]], "trn": [...]}]}]}
 * atoms = the sum over generators of (operators x atoms of the first model on its chains), the atom count
 * of the assembly (every altloc, hydrogens included). A file that fails: {"file": F, "error": "..."}.
 * Exit status 0 (errors are data here), 2 on bad usage. */
#include <stdio.h>
#include <string.h>

#include "sitepack/read.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE...\n", argv[0]);
    return 2;
  }
  sp_structure s;
  sp_structure_init(&s);
  for (int f = 1; f < argc; ++f) {
    sp_buf buf = {0};
    sp_err err = {0};
    int fmt = 0;
    sp_structure_clear(&s);
    int rc = sp_read_structure_file(argv[f], 0, &buf, &s, &fmt, &err);
    sp_buf_free(&buf);
    if (rc) {
      printf("{\"file\": \"%s\", \"error\": \"%s\"}\n", argv[f], sp_errclass_name(rc));
      continue;
    }
    long long atoms = 0;
    for (size_t g = 0; g < s.n_asm_gens; g++) {
      const sp_asm_gen *G = &s.asm_gens[g];
      for (size_t c = 0; s.n_models && c < s.models[0].n_chains; c++) {
        const sp_chain *ch = &s.chains[s.models[0].first_chain + c];
        if (!sp_asm_gen_has_chain(G, ch)) continue;
        for (uint32_t r = ch->first_residue; r < ch->first_residue + ch->n_residues; r++)
          atoms += (long long)s.residues[r].n_atoms * G->n_ops;
      }
    }
    printf("{\"file\": \"%s\", \"n_gens\": %zu, \"n_ops\": %zu, \"atoms\": %lld, \"gens\": [", argv[f], s.n_asm_gens,
           s.n_asm_ops, atoms);
    for (size_t g = 0; g < s.n_asm_gens; g++) {
      const sp_asm_gen *G = &s.asm_gens[g];
      printf("%s{\"chains\": \"%s\", \"by_label\": %d, \"ops\": [", g ? ", " : "", G->chains, G->by_label);
      for (uint32_t k = 0; k < G->n_ops; k++) {
        const sp_asm_oper *o = &s.asm_ops[G->first_op + k];
        printf("%s{\"id\": \"%s\", \"rot\": [", k ? ", " : "", o->id);
        for (int i = 0; i < 3; i++)
          printf("%s[%.9g, %.9g, %.9g]", i ? ", " : "", o->rot[i][0], o->rot[i][1], o->rot[i][2]);
        printf("], \"trn\": [%.9g, %.9g, %.9g]}", o->trn[0], o->trn[1], o->trn[2]);
      }
      printf("]}");
    }
    printf("]}\n");
  }
  sp_structure_free(&s);
  return 0;
}
