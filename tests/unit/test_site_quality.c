/* The site quality criteria (pipeline.h sp_site_quality, result.h SP_QUAL_*; issue 36): a site that meets every
 * criterion, then each criterion failed alone (exactly its bit set), at and beyond each threshold, unknown
 * entry values (not met) and unknown B (not judged). The facts of real sites: tests/peer/test_site_quality.py. */
#include <math.h>
#include <stdio.h>

#include "sitepack/pipeline.h"
#include "sitepack/survey.h"

static int fails;
#define CHECK(c, ...)                \
  do {                               \
    if (!(c)) {                      \
      fails++;                       \
      printf("FAIL %d: ", __LINE__); \
      printf(__VA_ARGS__);           \
      printf("\n");                  \
    }                                \
  } while (0)

static sp_quality_in good(void) {
  sp_quality_in q = {.resolution = 2.0f, .r_work = 0.20f, .r_free = 0.24f, .lig_flags = 0, .n_altlocs = 1,
                     .occupancy_mean = 1.0f, .b_mean = 30.0f, .site_b_mean = 25.0f};
  return q;
}

#define ALONE(field_set, bit)                                                                           \
  do {                                                                                                  \
    sp_quality_in q = good();                                                                           \
    field_set;                                                                                          \
    uint32_t b = sp_site_quality(&q);                                                                   \
    CHECK(b == (uint32_t)(bit), "%s: bits 0x%x, want 0x%x", #field_set, (unsigned)b, (unsigned)(bit)); \
  } while (0)

int main(void) {
  sp_quality_in g = good();
  CHECK(sp_site_quality(&g) == 0, "the good site fails 0x%x", (unsigned)sp_site_quality(&g));
  CHECK(sp_site_quality(NULL) == 0, "NULL");
  /* each criterion alone */
  ALONE(q.resolution = 3.6f, SP_QUAL_RESOLUTION);
  ALONE(q.resolution = NAN, SP_QUAL_RESOLUTION);
  ALONE((q.r_work = 0.41f, q.r_free = 0.45f), SP_QUAL_R_WORK);
  ALONE((q.r_free = 0.46f, q.r_work = 0.42f), SP_QUAL_R_WORK | SP_QUAL_R_FREE); /* R-free 0.46 needs R > 0.41 */
  /* R-free above 0.45 alone cannot be: with R <= 0.40 the gap is then above 0.05 */
  ALONE((q.r_free = 0.451f, q.r_work = 0.40f), SP_QUAL_R_FREE | SP_QUAL_R_GAP);
  ALONE(q.r_free = 0.26f, SP_QUAL_R_GAP);
  ALONE(q.lig_flags = SP_LIG_INCOMPLETE, SP_QUAL_LIG_INCOMPLETE);
  ALONE(q.n_altlocs = 2, SP_QUAL_LIG_ALTLOCS);
  ALONE(q.occupancy_mean = 0.79f, SP_QUAL_LIG_OCCUPANCY);
  ALONE(q.b_mean = 50.1f, SP_QUAL_LIG_B);
  ALONE(q.pocket_incomplete = true, SP_QUAL_POCKET_INCOMPLETE);
  ALONE(q.pocket_gap = true, SP_QUAL_POCKET_GAP);
  ALONE(q.crystal_contact = true, SP_QUAL_CRYSTAL_CONTACT);
  /* at the thresholds: met */
  ALONE((q.resolution = 3.5f, q.r_work = 0.40f, q.r_free = 0.45f), 0);
  ALONE((q.r_work = 0.20f, q.r_free = 0.25f), 0);
  ALONE(q.occupancy_mean = 0.8f, 0);
  ALONE(q.b_mean = 50.0f, 0);
  ALONE(q.n_altlocs = 0, 0);
  /* other ligand flags do not count; unknown entry values are not met; unknown B is not judged */
  ALONE(q.lig_flags = SP_LIG_ALTLOC | SP_LIG_COVALENT, 0);
  ALONE(q.r_free = NAN, SP_QUAL_R_FREE | SP_QUAL_R_GAP);
  ALONE(q.r_work = NAN, SP_QUAL_R_WORK | SP_QUAL_R_GAP);
  ALONE(q.site_b_mean = NAN, 0);
  ALONE(q.b_mean = NAN, 0);
  printf("test_site_quality: %d failure(s)\n", fails);
  return fails ? 1 : 0;
}
