/**
 * @file copies.h
 * @brief Internal: one copy per atom position in a site with symmetry images or assembly copies. Used by
 *        site.c; not part of the public API.
 */
#ifndef SITEPACK_SITE_COPIES_H
#define SITEPACK_SITE_COPIES_H

#include "sitepack/site.h"

/** Two copies of one atom closer than this (Å) are the same copy: more than the rounding of a file's
 *  coordinates and operators (3-decimal coordinates, 6-decimal SCALEn, 5-decimal BIOMT vectors: at most
 *  0.02 Å between a crystal operator's and an assembly operator's image of one atom on shared/data), far
 *  less than any two positions a model gives one atom (the next nearest pair on the corpus is 0.06 Å). */
#define SP_SITE_SAME_POSITION 0.03f

/**
 * Leave out every copied atom (res[].image > 0) of @p site that lies within SP_SITE_SAME_POSITION of a
 * kept copy of the same atom (same index into sp_structure), so that each (atom, position) is in the site
 * once. Rule (docs/sites.md "Symmetry mates and assembly copies together"): the file's own atom is kept
 * first, then assembly copies, then symmetry images, each in site order; a copy is kept unless it sits on
 * a kept one. So an assembly copy that a crystal operator reproduces keeps its assembly label, and the
 * symmetry image of an atom on a special position (its image is itself) is left out.
 * A copied residue left with no atom within the cutoff (SP_SITE_ATOM_WITHIN_CUTOFF) is dropped, with its
 * atoms; an image left without residues is dropped; res[].image and atom_res are renumbered, the
 * min_distance of a residue that lost atoms is that of its kept atoms within the cutoff (to the ligand's
 * heavy atoms, atoms[0, n_ligand)), and SP_SITE_SYMMETRY / SP_SITE_ASSEMBLY say what is left. Order is
 * kept. A site without images is not touched.
 * @param site     a site from sp_site_compute (before the max_atoms cut)
 * @return 0, or -1 when out of memory (the site is then unchanged)
 */
int sp_site_merge_copies(sp_site *site);

#endif
