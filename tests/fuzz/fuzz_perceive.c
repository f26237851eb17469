/* libFuzzer harness: the bond-order perception (perceive.h) on molecules decoded from the bytes, as a deposited
 * ligand gives them: byte 0 the atom count (mod 97), byte 1 the flags (bit 0 SP_PERCEIVE_EXPLICIT_H, bit 1 pass
 * link counts), then per atom 7 bytes: element (mod 60: H..Nd, metals and z 0 included), x, y, z as int16 in
 * units of 0.01 Å; bonds by sitepack's distance rule (covalent radii + 0.4 Å, not closer than 0.4 Å); link counts
 * from the atom bytes. Every call must return 0 with orders 1..3, charges within -2..2 and aromatic flags 0/1. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/perceive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ATOMS 96

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  size_t n = data[0] % (MAX_ATOMS + 1), k = 2;
  unsigned flags = data[1] & 1u;
  int use_ext = (data[1] >> 1) & 1;
  if (size < 2 + 7 * n) n = (size - 2) / 7;
  uint8_t z[MAX_ATOMS], ext[MAX_ATOMS];
  float xyz[MAX_ATOMS][3];
  for (size_t i = 0; i < n; i++, k += 7) {
    z[i] = (uint8_t)(data[k] % 60);
    ext[i] = use_ext ? (uint8_t)(data[k] >> 6) : 0;
    for (int c = 0; c < 3; c++) xyz[i][c] = (int16_t)(data[k + 1 + 2 * c] | (data[k + 2 + 2 * c] << 8)) * 0.01f;
  }
  static uint32_t pairs[MAX_ATOMS * MAX_ATOMS / 2][2];
  size_t nb = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      float d2 = 0, r = sp_element_covalent_radius(z[i]) + sp_element_covalent_radius(z[j]) + 0.4f;
      for (int c = 0; c < 3; c++) d2 += (xyz[i][c] - xyz[j][c]) * (xyz[i][c] - xyz[j][c]);
      if (d2 > 0.16f && d2 <= r * r) pairs[nb][0] = (uint32_t)i, pairs[nb++][1] = (uint32_t)j;
    }
  uint8_t *order = malloc(nb + 1), *arom = malloc(nb + 1);
  int8_t charge[MAX_ATOMS + 1];
  sp_perceive_info info;
  sp_err err = {0};
  if (!order || !arom) abort();
  int rc = sp_perceive(n, z, (const float(*)[3])xyz, nb, (const uint32_t(*)[2])pairs, use_ext ? ext : NULL, flags,
                       order, charge, &info, &err);
  if (rc) abort();
  for (size_t e = 0; e < nb; e++)
    if (order[e] < 1 || order[e] > 3) abort();
  for (size_t i = 0; i < n; i++)
    if (charge[i] < -2 || charge[i] > 2) abort();
  if (sp_perceive_aromatic(n, z, nb, (const uint32_t(*)[2])pairs, order, charge, arom, &err)) abort();
  for (size_t e = 0; e < nb; e++)
    if (arom[e] > 1) abort();
  free(order), free(arom);
  return 0;
}
