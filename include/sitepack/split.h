/* Leakage-aware splits of a merged file (issue 27): protein, ligand clusters and train/val/test sides.
 *
 * Post-processing of a merged sitepack file (docs/format.md "/clusters", "/splits"; docs/usage.md "Splits"):
 * sp_cluster() adds the group /clusters, sp_split() a column of /splits. Both read the whole file first,
 * compute everything, and only then open it for writing: on any error nothing is written. No MPI: the
 * merged file does not depend on the number of ranks, so neither does anything computed from it.
 *
 * Sources of the rules:
 * - MMseqs2 (Steinegger & Söding 2017, Nat. Biotechnol. 35:1026; `mmseqs easy-cluster`, options
 *   `--min-seq-id`, `-c`, `--cov-mode 0`: the alignment covers at least that fraction of both sequences);
 * - Morgan / ECFP fingerprints (Rogers & Hahn 2010, J. Chem. Inf. Model. 50:742), RDKit's radius and
 *   folding convention (radius 2 ~ ECFP4, 2048 bits): sp_morgan_fp, sp_tanimoto in fingerprint.h (chem);
 * - Butina clustering (Butina 1999, J. Chem. Inf. Comput. Sci. 39:747), at a Tanimoto threshold.
 */
#ifndef SITEPACK_SPLIT_H
#define SITEPACK_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"
#include "sitepack/fingerprint.h"

/** Sides of a split, the values of a /splits column (docs/format.md "/splits"). */
enum { SP_SIDE_DROPPED = -1, SP_SIDE_TRAIN = 0, SP_SIDE_VAL = 1, SP_SIDE_TEST = 2 };

/** What a split keeps apart: the protein clusters, the ligand clusters, or both. */
enum { SP_BY_PROTEIN = 0, SP_BY_LIGAND = 1, SP_BY_BOTH = 2 };

/** Butina clustering (Butina 1999) of @p m fingerprints (@p fps: m * SP_FP_WORDS words) at similarity
 *  >= @p threshold: each item's neighbours are the others at or above it; items are taken in order of
 *  neighbour count (largest first, ties in index order, so the caller's order is the tie-break: sitepack
 *  passes molecule-key order); an item not yet in a cluster becomes a centroid and takes its neighbours not
 *  yet in one. @p cluster[m] (out): the cluster of each item, numbered 0.. in order of their centroids.
 *  @p n_clusters (out). O(m^2) similarities. @return 0; SP_E_NOMEM. */
int sp_butina(size_t m, const uint64_t *fps, double threshold, int64_t *cluster, int64_t *n_clusters);

/** Options of sp_cluster(); sp_cluster_opts_default() fills the defaults. */
typedef struct sp_cluster_opts {
  const char *mmseqs;    /**< MMseqs2 executable, a name looked up in PATH or a path ("mmseqs") */
  double id_low;         /**< identity of the coarse protein clusters, 0..1 (0.3) */
  double id_high;        /**< identity of the fine protein clusters, 0..1 (0.9) */
  double coverage;       /**< alignment coverage of both sequences, 0..1 (0.8; MMseqs2 `-c` with `--cov-mode 0`) */
  double tanimoto;       /**< ligand cluster threshold, 0..1 (0.5) */
  double sensitivity;    /**< MMseqs2 `-s` of the coarse level (cascaded clustering); 0: MMseqs2's default (4) */
  int threads;           /**< MMseqs2 `--threads` (1) */
  int force;             /**< replace an existing /clusters group */
  int keep_tmp;          /**< keep the MMseqs2 folder (debugging) */
} sp_cluster_opts;

void sp_cluster_opts_default(sp_cluster_opts *o);

/** What sp_cluster() did. */
typedef struct sp_cluster_summary {
  int64_t n_sites, n_chains;
  int64_t n_protein_chains;       /**< chains sent to MMseqs2 (polypeptide chains with a sequence) */
  int64_t n_sequences;            /**< distinct protein sequences sent to MMseqs2 */
  int64_t n_clusters_low, n_clusters_high; /**< chain clusters at id_low, id_high (every polymer chain) */
  int64_t n_protein_clusters_low, n_protein_clusters_high; /**< of those, the clusters of protein chains (the
                                                               rest: other polymers, by identical sequence) */
  int64_t n_sites_no_chain;       /**< sites that touch no polymer chain with a sequence (cluster -1) */
  int64_t n_molecules;            /**< distinct ligand molecules fingerprinted (molecule keys; sites without one) */
  int64_t n_ligand_clusters;
  double seconds_read, seconds_mmseqs, seconds_ligand, seconds_write, seconds_total;
  char mmseqs_version[64];
} sp_cluster_summary;

/** Cluster the chains and ligands of the merged file @p path (format version 3: needs /chains and
 *  /sequences) and write the group /clusters (docs/format.md "/clusters"). Protein: the polypeptide chains'
 *  distinct sequences are clustered by MMseqs2 `easy-cluster` at @p o->id_low and @p o->id_high (run as a
 *  child process in a temporary folder beside @p path, removed afterwards); other polymer chains
 *  (nucleic acids) are clustered by identical sequence; a chain without a sequence gets -1. A site's
 *  protein cluster is that of the chain with most of its contact residues (/residues/contact), else with
 *  most of its polymer residues, ties to the lower /chains row; -1 when it has none. Ligands: one
 *  fingerprint (sp_morgan_fp, radius 2) per distinct /ligands/molecule_key from the site of that key with
 *  most ligand heavy atoms (first in site order on ties), built from the ligand's /bonds and /atoms/element,
 *  ccd_charge; a site without a key is its own molecule; Butina at @p o->tanimoto in molecule-key byte
 *  order. Cluster numbers: 0.. in order of first chain row (protein) or first site (ligand).
 *  @return 0; SP_E_NOT_FOUND (no file; MMseqs2 not found: "mmseqs2 not found (PATH ...): apt-get install
 *  mmseqs2"); SP_E_FORMAT (not a sitepack file, version < 3, no /sequences); SP_E_INVALID (/clusters exists
 *  without force; a bad option); SP_E_IO (MMseqs2 failed: its exit status and the last lines of its log;
 *  temporary folder); SP_E_NOMEM; SP_E_HDF5. On error nothing is written to @p path. */
int sp_cluster(const char *path, const sp_cluster_opts *o, sp_cluster_summary *sum, sp_err *err);

/** Options of sp_split(). */
typedef struct sp_datasplit_opts {
  double test, val;      /**< target fractions of the sites, each in [0, 1), test + val < 1 */
  uint64_t seed;
  int by;                /**< SP_BY_PROTEIN, SP_BY_LIGAND, SP_BY_BOTH */
  const char *name;      /**< column name under /splits: [A-Za-z0-9_.-], 1..64 bytes (NULL: "by_<by>") */
  int force;             /**< replace an existing column and listings */
  int write_listing;     /**< also write PREFIX.split-NAME.tsv and .json beside the file */
} sp_datasplit_opts;

/** What sp_split() assigned. */
typedef struct sp_datasplit_summary {
  int64_t n_sites;
  int64_t sites[3];       /**< sites per side, SP_SIDE_TRAIN, VAL, TEST */
  int64_t entries[3];     /**< distinct entries (groups of /structures/entry_first) with a site on each side */
  int64_t dropped;        /**< sites left out to keep a ligand cluster out of train (--by both) */
  int64_t n_components;   /**< groups of sites that go to one side together */
  int64_t largest_component; /**< sites of the largest */
  char name[72];
  char tsv_path[4096], json_path[4096];
  double seconds;
} sp_datasplit_summary;

/** Assign every site of the merged file @p path to train, val or test (docs/usage.md "Splits" states the
 *  rule): sites are joined into components by entry (/structures/entry_first) and, by protein, by their
 *  /clusters/protein_30 (the id_low clusters); by ligand, by /clusters/ligand (ions and artifact-class
 *  ligands join no ligand component: they follow their entry). Each component goes to one side by a hash
 *  of the seed and its key (the smallest entry id of its sites, byte order): u = hash / 2^64, test when
 *  u < test, val when u < test + val, else train. With SP_BY_BOTH the components are the protein ones, and
 *  then every val or test site (not ion, not artifact) whose ligand cluster has a train site is dropped
 *  (SP_SIDE_DROPPED). Writes /splits/NAME (int8 per site) and, with write_listing, the TSV and JSON
 *  listing (temporary names, renamed when complete). @return 0; SP_E_NOT_FOUND (no file; no /clusters: "run
 *  sitepack cluster first"); SP_E_FORMAT (not a sitepack file); SP_E_INVALID (bad option; the column or a
 *  listing exists without force; a file without sites; a side with a fraction > 0 gets no site, or train gets
 *  none: "try another seed or larger fractions"); SP_E_IO; SP_E_NOMEM; SP_E_HDF5. On error nothing is written. */
int sp_split(const char *path, const sp_datasplit_opts *o, sp_datasplit_summary *sum, sp_err *err);

/** Name of side @p s ("train", "val", "test", "dropped"), NULL for another value. */
const char *sp_side_name(int s);

#endif
