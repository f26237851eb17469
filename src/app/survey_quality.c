/* `sitepack survey`: the site quality and ligand descriptor lines (issue 36; cmd_survey.h): how many sites meet
 * each quality criterion (/sites/quality, result.h SP_QUAL_*) and pass them all (/sites/pass_quality), and how many
 * ligands have descriptors and meet Ro5, Ro3, the drug-like preset (/ligands/desc_flags, descriptors.h). A file
 * before these columns (format version 4 and older) prints neither line. */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "app/cmd_survey.h"
#include "sitepack/descriptors.h"
#include "sitepack/result.h"

/* The quality names, in bit order (the names of describe.c's /sites/quality flag_bits) */
static const char *const qual_names[SP_QUAL_COUNT] = {"resolution", "r_work", "r_free", "r_gap",
                                                      "ligand_incomplete", "ligand_altlocs", "ligand_occupancy",
                                                      "ligand_b", "pocket_incomplete", "pocket_gap",
                                                      "crystal_contact"};

/* The n values of the 1-D dataset @p name as uint32 (malloc'd) into *out; -1 when absent or unreadable. */
static int64_t read_u32(hid_t f, const char *name, uint32_t **out) {
  *out = NULL;
  if (H5Lexists(f, name, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t sp = H5Dget_space(d);
  hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  if (sp >= 0) H5Sclose(sp);
  uint32_t *v = n >= 0 ? malloc((size_t)(n ? n : 1) * sizeof *v) : NULL;
  if (!v || (n > 0 && H5Dread(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)) {
    free(v);
    H5Dclose(d);
    return -1;
  }
  H5Dclose(d);
  *out = v;
  return (int64_t)n;
}

static void print_quality(hid_t f) {
  uint32_t *q = NULL;
  int64_t n = read_u32(f, "/sites/quality", &q);
  if (n < 0) return;
  int64_t pass = 0, meet[SP_QUAL_COUNT] = {0};
  for (int64_t i = 0; i < n; i++) {
    pass += q[i] == 0;
    for (int b = 0; b < SP_QUAL_COUNT; b++) meet[b] += !(q[i] & (1u << b));
  }
  printf("site quality (docs/format.md \"Site quality\"): %lld of %lld sites pass every criterion; meeting each:",
         (long long)pass, (long long)n);
  for (int b = 0; b < SP_QUAL_COUNT; b++) printf("%s %s %lld", b ? "," : "", qual_names[b], (long long)meet[b]);
  printf("\n");
  free(q);
}

static void print_descriptors(hid_t f) {
  uint32_t *d = NULL;
  int64_t n = read_u32(f, "/ligands/desc_flags", &d);
  if (n < 0) return;
  int64_t c = 0, ro5 = 0, ro3 = 0, drug = 0;
  for (int64_t i = 0; i < n; i++) {
    c += (d[i] & SP_DESCF_COMPUTED) != 0;
    ro5 += (d[i] & SP_DESCF_RO5) != 0;
    ro3 += (d[i] & SP_DESCF_RO3) != 0;
    drug += (d[i] & SP_DESCF_DRUG_LIKE) != 0;
  }
  printf("ligand descriptors (RDKit): %lld of %lld instances; rule of five %lld, rule of three %lld, drug-like "
         "%lld\n", (long long)c, (long long)n, (long long)ro5, (long long)ro3, (long long)drug);
  free(d);
}

void sp_survey_print_quality(const char *path) {
  hid_t f = -1;
  H5E_BEGIN_TRY { f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT); }
  H5E_END_TRY;
  if (f < 0) return;
  H5E_BEGIN_TRY {
    print_descriptors(f);
    print_quality(f);
  }
  H5E_END_TRY;
  H5Fclose(f);
}
