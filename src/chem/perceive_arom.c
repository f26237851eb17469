/* Aromatic bonds of a molecule from its Kekulé orders and charges (perceive.h sp_perceive_aromatic): Hückel's
 * 4n + 2 over each 5- or 6-membered ring, counting each ring atom's pi electrons as RDKit's aromaticity model
 * does for a single ring (RDKit Book, "Aromaticity"): 1 for an atom with a double bond in the ring or to an atom
 * of another such ring, 0 for an exocyclic double bond to an electronegative atom (the C=O of 2-pyridone,
 * uracil), 2 for an N, O, S or Se with a lone pair and no double bond (pyrrole, furan, thiophene) or a C- , 0 for
 * a C+; an sp3 atom or an exocyclic C=C makes the ring non-aromatic; two fused rings that are not both aromatic
 * alone are when their union is (RDKit's fused-system rule, taken for pairs). */
#include <stdlib.h>
#include <string.h>

#include "perceive_internal.h"
#include "sitepack/perceive.h"

typedef struct arom_ctx {
  size_t n, nb;
  const uint8_t *z, *order;
  const int8_t *charge;
  const uint32_t (*pairs)[2];
  uint32_t *off, *nbr, *bond; /* CSR over bonds among atoms with z > 1 */
  uint8_t *in_ring;           /* atom lies on some 5/6-ring */
  int *deg;                   /* bonds of each atom, hydrogens included */
  uint8_t *arom;              /* the output */
  uint32_t (*ring)[6];        /* the rings found (at most MAX_RINGS), their sizes */
  int *ring_len, n_rings;
} arom_ctx;

/* Rings kept for the fused-pair test; a molecule with more rings tests the pairs of its first MAX_RINGS. */
#define MAX_RINGS 256

/* The CSR over the bonds between heavy atoms, and every atom's bond count (hydrogens included). */
static int build(arom_ctx *A) {
  uint8_t *heavy = malloc(A->nb + 1);
  A->deg = calloc(A->n + 1, sizeof *A->deg), A->in_ring = calloc(A->n + 1, 1);
  if (!heavy || !A->deg || !A->in_ring) {
    free(heavy);
    return SP_E_NOMEM;
  }
  for (size_t e = 0; e < A->nb; e++) {
    A->deg[A->pairs[e][0]]++, A->deg[A->pairs[e][1]]++;
    heavy[e] = A->z[A->pairs[e][0]] > 1 && A->z[A->pairs[e][1]] > 1;
  }
  int rc = pc_csr(A->n, A->nb, A->pairs, heavy, &A->off, &A->nbr, &A->bond);
  free(heavy);
  return rc;
}

/* Whether atom x is one of ring[0..len). */
static int on_ring(const uint32_t *ring, int len, uint32_t x) {
  for (int i = 0; i < len; i++)
    if (ring[i] == x) return 1;
  return 0;
}

/* Pi electrons of ring atom i (the header's counting); -1: the ring cannot be aromatic. */
static int pi_electrons(const arom_ctx *A, const uint32_t *ring, int len, uint32_t i) {
  int dbl = 0, exo_neg = 0, exo_c = 0, deg = A->deg[i];
  for (uint32_t t = A->off[i]; t < A->off[i + 1]; t++) { /* heavy neighbours: a double bond to H is none */
    if (A->order[A->bond[t]] != 2) continue;
    uint32_t o = A->nbr[t];
    if (on_ring(ring, len, o) || A->in_ring[o]) dbl = 1;
    else if (A->z[o] == 6) exo_c = 1;
    else exo_neg = 1;
  }
  uint8_t z = A->z[i];
  if (dbl) return 1;
  if (exo_c) return -1;
  if (exo_neg) return 0;
  if ((z == 7 || z == 8 || z == 16 || z == 34) && deg <= 3 && A->charge[i] <= 0) return 2;
  if (z == 6 && A->charge[i] < 0) return 2;
  if (z == 6 && A->charge[i] > 0) return 0;
  return -1;
}

/* Hückel's 4n + 2 over the atoms atoms[0..len) (one ring, or the union of two fused rings). */
static int huckel(const arom_ctx *A, const uint32_t *atoms, int len) {
  int e_sum = 0;
  for (int k = 0; k < len; k++) {
    int p = pi_electrons(A, atoms, len, atoms[k]);
    if (p < 0) return 0;
    e_sum += p;
  }
  return e_sum % 4 == 2;
}

static void mark_ring(const arom_ctx *A, const uint32_t *ring, int len, uint8_t *arom) {
  for (int k = 0; k < len; k++) {
    uint32_t a = ring[k], b = ring[(k + 1) % len];
    for (uint32_t t = A->off[a]; t < A->off[a + 1]; t++)
      if (A->nbr[t] == b) arom[A->bond[t]] = 1;
  }
}

/* One ring of the walk: kept for the fused-pair test, its bonds aromatic when it is alone. */
static void test_ring(void *ctx, const uint32_t *ring, int len) {
  arom_ctx *A = ctx;
  if (A->n_rings < MAX_RINGS) {
    memcpy(A->ring[A->n_rings], ring, (size_t)len * sizeof *ring);
    A->ring_len[A->n_rings++] = len;
  }
  if (huckel(A, ring, len)) mark_ring(A, ring, len, A->arom);
}

/* Two fused rings (sharing a bond) that are not both aromatic alone, aromatic together when their union's
 * atoms give 4n + 2 (RDKit's fused-system rule, for pairs: the pyridone-fused and quinoid rings of a flavin,
 * azulene). */
static void fused_pairs(const arom_ctx *A, uint8_t *arom) {
  for (int r = 0; r < A->n_rings; r++)
    for (int q = r + 1; q < A->n_rings; q++) {
      uint32_t u[12];
      int nu = A->ring_len[r], shared = 0;
      memcpy(u, A->ring[r], (size_t)nu * sizeof *u);
      for (int k = 0; k < A->ring_len[q]; k++) {
        if (on_ring(A->ring[r], A->ring_len[r], A->ring[q][k])) shared++;
        else u[nu++] = A->ring[q][k];
      }
      if (shared != 2 || (huckel(A, A->ring[r], A->ring_len[r]) && huckel(A, A->ring[q], A->ring_len[q]))) continue;
      if (huckel(A, u, nu))
        mark_ring(A, A->ring[r], A->ring_len[r], arom), mark_ring(A, A->ring[q], A->ring_len[q], arom);
    }
}

/* Ring atoms walked: at most 3 heavy neighbours (an aromatic atom has no more; a dense cluster of atoms, whose
 * paths would grow as the fifth power of its bonds per atom, is cut off here). */
static bool ring_atom_ok(const void *ctx, uint32_t a) {
  const arom_ctx *A = ctx;
  return A->off[a + 1] - A->off[a] <= 3;
}

static void note_ring(void *ctx, const uint32_t *ring, int len) {
  arom_ctx *A = ctx;
  for (int i = 0; i < len; i++) A->in_ring[ring[i]] = 1;
}

int sp_perceive_aromatic(size_t n, const uint8_t *z, size_t nb, const uint32_t (*pairs)[2], const uint8_t *order,
                         const int8_t *charge, uint8_t *arom, sp_err *err) {
  if (nb && (!pairs || !order || !arom)) return sp_err_set(err, SP_E_INVALID, "perceive aromatic: a NULL array");
  if (n && (!z || !charge)) return sp_err_set(err, SP_E_INVALID, "perceive aromatic: a NULL array");
  for (size_t e = 0; e < nb; e++) {
    arom[e] = 0;
    if (pairs[e][0] >= n || pairs[e][1] >= n)
      return sp_err_set(err, SP_E_INVALID, "perceive aromatic: bond %zu out of range", e);
  }
  arom_ctx A = {n, nb, z, order, charge, pairs, NULL, NULL, NULL, NULL, NULL, arom, NULL, NULL, 0};
  int rc = build(&A);
  A.ring = malloc(MAX_RINGS * sizeof *A.ring), A.ring_len = malloc(MAX_RINGS * sizeof *A.ring_len);
  if (!A.ring || !A.ring_len) rc = SP_E_NOMEM;
  if (!rc) {
    pc_small_rings(n, A.off, A.nbr, ring_atom_ok, note_ring, &A);
    pc_small_rings(n, A.off, A.nbr, ring_atom_ok, test_ring, &A);
    fused_pairs(&A, arom);
  }
  free(A.off), free(A.nbr), free(A.bond), free(A.in_ring), free(A.deg), free(A.ring), free(A.ring_len);
  return rc ? sp_err_set(err, SP_E_NOMEM, "perceive aromatic: out of memory (%zu atoms)", n) : 0;
}
