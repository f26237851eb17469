/* libFuzzer harness: legacy PDB reader (sp_pdb_read), hybrid-36 decoding and the format
 * dispatch (sp_read_structure_text). The input is not NUL-terminated. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/model.h"
#include "sitepack/symmetry.h"
#include "sitepack/pdb.h"
#include "sitepack/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int rc, const sp_structure *s, const sp_err *e) {
  if (rc == 0 && s->n_atoms == 0) abort();
  if (rc != 0 && (rc <= 0 || rc >= SP_ERRCLASS_COUNT || !e->msg[0])) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  sp_structure s;
  memset(&s, 0, sizeof s);
  sp_structure_init(&s);
  sp_err err = {0};
  int rc = sp_pdb_read(text, size, &s, &err);
  check(rc, &s, &err);

  /* the same text through the dispatcher (detects mmCIF / PDB / other) */
  sp_structure_clear(&s);
  sp_err e2 = {0};
  int fmt = -1;
  rc = sp_read_structure_text(text, size, &s, &fmt, &e2);
  check(rc, &s, &e2);
  /* crystal symmetry of what was read (cell, SCALE, explicit operators; space-group names are looked up
     only when the library's table is not asked for a fuzzed name: explicit operators or no name) */
  if (rc == 0 && (s.n_symops || !s.spacegroup[0])) {
    static sp_crystal cr;
    if (sp_crystal_resolve(&s, &cr, NULL) != 0 || cr.n_ops < 0 || cr.n_ops > SP_SYM_MAX_OPS) abort();
  }
  {
    sp_symop op;
    (void)sp_symop_parse(text, size < 128 ? size : 128, &op);
  }
  sp_structure_free(&s);

  if (size >= 4) {
    int32_t v;
    (void)sp_hy36_decode(text, 4, &v);
    if (size >= 5) (void)sp_hy36_decode(text, 5, &v);
    (void)sp_pdb_element_from_name(text, (sp_sv){text, size < 3 ? size : 3});
  }
  return 0;
}
