/* libFuzzer harness: CIF tokenizer (sp_cif_parse) and mmCIF structure reader (sp_mmcif_read).
 * The input is not NUL-terminated, so any read past `size` is caught by ASan.
 * Build: cmake -DSP_FUZZ=ON -DCMAKE_C_COMPILER=clang (see docs/fuzzing.md). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/cif.h"
#include "sitepack/mmcif.h"
#include "sitepack/model.h"
#include "sitepack/symmetry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  sp_cif_doc doc = {0};
  sp_err err = {0};
  if (sp_cif_parse(text, size, 0, &doc, &err) == 0) {
    /* walk everything the document exposes: every cell, numbers, lookups */
    for (size_t b = 0; b < doc.n_blocks; ++b) {
      const sp_cif_block *blk = &doc.blocks[b];
      for (size_t c = blk->first_cat; c < blk->first_cat + blk->n_cats; ++c) {
        const sp_cif_category *cat = &doc.cats[c];
        for (uint32_t col = 0; col < cat->n_cols; ++col)
          for (uint32_t row = 0; row < cat->n_rows && row < 64; ++row) {
            const sp_cif_value *v = sp_cif_cell(&doc, cat, col, row);
            double d;
            int32_t i;
            (void)sp_cif_parse_double(v->p, v->n, &d);
            (void)sp_cif_parse_int(v->p, v->n, &i);
          }
        (void)sp_cif_category_line(&doc, cat);
      }
      (void)sp_cif_find_category(&doc, blk, "atom_site");
      (void)sp_cif_find_value(&doc, blk, "_entry.id", 0);
    }
    for (size_t w = 0; w < doc.n_warnings; ++w) (void)strlen(sp_cif_warning(&doc, w));
  }
  sp_cif_doc_free(&doc);

  sp_structure s;
  memset(&s, 0, sizeof s);
  sp_structure_init(&s);
  sp_err e2 = {0};
  int rc = sp_mmcif_read(text, size, &s, &e2);
  if (rc == 0 && s.n_atoms == 0) abort(); /* success promises atoms */
  if (rc != 0 && (rc <= 0 || rc >= SP_ERRCLASS_COUNT || !e2.msg[0])) abort(); /* stable class + message */
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
  return 0;
}
