/* sp_dump_symmetry FILE...: the crystal symmetry sitepack reads and resolves, one JSON object per line
 * (tests/peer/test_symmetry_gemmi.py compares it with gemmi):
 *   {"file": path, "cell": [a, b, c, alpha, beta, gamma] or null, "spacegroup": name as written,
 *    "z": Z, "n_file_ops": explicit operators in the file, "source": 0 none / 1 file / 2 name,
 *    "file_frame": 0/1, "why": reason when none, "ops": ["x,y,z", ...] (sp_symop_format)}
 * A file that fails to read: {"file": path, "error": message}.
 * Exit status: 0 (errors are data here), 2 on bad usage or an output error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/read.h"
#include "sitepack/symmetry.h"

static void json_str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20 || c >= 0x7f) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE...\n", argv[0]);
    return 2;
  }
  sp_structure s;
  sp_structure_init(&s);
  sp_crystal *cr = malloc(sizeof *cr);
  if (!cr) return 2;
  for (int f = 1; f < argc; ++f) {
    sp_buf buf = {0};
    sp_err err = {0};
    int fmt = 0;
    sp_structure_clear(&s);
    int rc = sp_read_structure_file(argv[f], 0, &buf, &s, &fmt, &err);
    sp_buf_free(&buf);
    printf("{\"file\": ");
    json_str(argv[f]);
    if (rc) {
      printf(", \"error\": ");
      json_str(err.msg);
      printf("}\n");
      continue;
    }
    if (isfinite(s.cell[0]))
      printf(", \"cell\": [%.4f, %.4f, %.4f, %.4f, %.4f, %.4f]", s.cell[0], s.cell[1], s.cell[2], s.cell[3], s.cell[4],
             s.cell[5]);
    else
      printf(", \"cell\": null");
    printf(", \"spacegroup\": ");
    json_str(s.spacegroup);
    printf(", \"z\": %d, \"n_file_ops\": %zu", s.cell_z, s.n_symops);
    rc = sp_crystal_resolve(&s, cr, &err);
    printf(", \"source\": %d, \"file_frame\": %d, \"why\": ", rc ? -1 : cr->source, cr->file_frame);
    json_str(rc ? err.msg : cr->why);
    printf(", \"ops\": [");
    for (int k = 0; k < cr->n_ops; k++) {
      char t[128];
      sp_symop_format(&cr->ops[k], t, sizeof t);
      printf("%s", k ? ", " : "");
      json_str(t);
    }
    printf("]}\n");
  }
  free(cr);
  sp_structure_free(&s);
  return fflush(stdout) != 0 ? 2 : 0;
}
