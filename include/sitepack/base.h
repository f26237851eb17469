/**
 * @file base.h
 * @brief The base module's helpers, below every other module: growth of arrays and the
 *        64-bit mixing functions (error classes: error.h, also base's).
 *
 * Plain C, no allocation beyond realloc, no MPI, no I/O.
 */
#ifndef SITEPACK_BASE_H
#define SITEPACK_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ growth of arrays */

/**
 * realloc(@p p, @p n * @p elsize), with the multiplication checked: NULL (and @p p left as
 * it was) when the product overflows size_t or realloc fails. @p n == 0 asks for 1 byte, so
 * that a successful call never returns NULL. Ownership of the result passes to the caller,
 * as with realloc.
 */
void *sp_realloc_array(void *p, size_t n, size_t elsize);

/**
 * Out-of-line part of sp_grow(): capacity doubled (16 elements at first) until it holds
 * @p need, capped at @p need when doubling would overflow.
 * @return 0, or SP_E_NOMEM (need * elsize overflows, or realloc failed: *arr and *cap are
 *         left as they were).
 */
int sp_grow_to(void **arr, size_t *cap, size_t need, size_t elsize);

/**
 * Make room for at least @p need elements of @p elsize bytes in *@p arr, whose capacity is
 * *@p cap elements (0 and NULL for an empty array). Geometric growth (x2), so appending n
 * elements one by one costs O(n) copies. The elements already there are kept; new ones are
 * uninitialised. The array stays owned by the caller (free() it).
 * @return 0 (also when *cap already holds need), or SP_E_NOMEM as sp_grow_to().
 */
static inline int sp_grow(void **arr, size_t *cap, size_t need, size_t elsize) {
  return need <= *cap ? 0 : sp_grow_to(arr, cap, need, elsize);
}

/** sp_grow() for a typed pointer lvalue @p arr (element size from its type). */
#define SP_GROW(arr, cap, need) sp_grow((void **)&(arr), &(cap), (need), sizeof *(arr))

/* ------------------------------------------------------------------ hashing */

/** Weyl increment of splitmix64: 2^64 / golden ratio, odd. */
#define SP_GOLDEN_GAMMA 0x9E3779B97F4A7C15ull

/**
 * The splitmix64 finaliser (Stafford's "Mix13" variant of MurmurHash3's fmix64): a bijection
 * of 64-bit words in which every input bit affects every output bit. Source: G. Steele,
 * D. Lea, C. Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014, and
 * S. Vigna's reference splitmix64.c.
 *
 * Frozen: the molecule key (molkey.h, version "wl1") is defined on this function, so its
 * constants and shifts never change (a new mixing function is a new function and a new key
 * version). tests/unit/test_base.c pins its values.
 */
static inline uint64_t sp_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/** Next output of the splitmix64 generator of state *@p state (advanced by SP_GOLDEN_GAMMA):
 *  reproducible on every platform; seed 0 gives 0xE220A8397B1DCDAF first. */
static inline uint64_t sp_splitmix64(uint64_t *state) { return sp_mix64(*state += SP_GOLDEN_GAMMA); }

/** Hash @p h combined with the value @p x (boost's hash_combine step, x + gamma + (h << 6) + (h >> 2),
 *  finished by sp_mix64). Frozen like sp_mix64: the ligand fingerprints (chem/fingerprint.c) are built on it. */
static inline uint64_t sp_hash_combine(uint64_t h, uint64_t x) {
  return sp_mix64(h ^ (x + SP_GOLDEN_GAMMA + (h << 6) + (h >> 2)));
}

#ifdef __cplusplus
}
#endif
#endif
