/* Helper of the molecule-key peer test (tests/peer/test_molkey_inchikey.py): prints
 * "comp_id<TAB>key<TAB>inchikey<TAB>release_status" for every block of a CCD file
 * (key "-" when the block has no atoms or does not parse).
 * usage: test_molkey_dump CCD_FILE */
#include <stdio.h>

#include "sitepack/ccd.h"
#include "sitepack/molkey.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CCD_FILE\n", argv[0]);
    return 2;
  }
  sp_ccd *ccd = NULL;
  sp_err err = {0};
  if (sp_ccd_open(argv[1], &ccd, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  const sp_ccd_index *idx = sp_ccd_get_index(ccd);
  for (size_t i = 0; i < idx->n; i++) {
    const sp_component *c = sp_ccd_get(ccd, idx->ids[i], &err);
    char key[SP_KEY_LEN] = "-";
    if (c && sp_molkey_component(c, false, key, &err)) snprintf(key, sizeof key, "-");
    printf("%s\t%s\t%s\t%s\n", idx->ids[i], key, c && c->inchikey[0] ? c->inchikey : "-",
           c && c->release_status[0] ? c->release_status : "-");
  }
  sp_ccd_close(ccd);
  return 0;
}
