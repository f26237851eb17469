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
#include <stdio.h>

#include "sitepack/error.h"
#include "sitepack/fingerprint.h"

/** Sides of a split, the values of a /splits column (docs/format.md "/splits"): dropped (a val/test site
 *  that would leak: --by both, --by time), copy (a later file of an entry already split), undated (--by time:
 *  no release or deposition date), redundant (--non-redundant: not its group's representative). */
enum { SP_SIDE_REDUNDANT = -4, SP_SIDE_UNDATED = -3, SP_SIDE_COPY = -2, SP_SIDE_DROPPED = -1, SP_SIDE_TRAIN = 0, SP_SIDE_VAL = 1,
       SP_SIDE_TEST = 2 };

/** Novelty strata of a val/test site (docs/usage.md "Leakage scores"): its largest sequence identity to a train
 *  chain below SP_NOVEL_IDENTITY (the coarse cluster identity of /clusters, 0.3) makes it novel_protein, its
 *  largest Tanimoto to a train ligand below the split's max_tanimoto novel_ligand, both novel_both. */
enum { SP_NOT_NOVEL = 0, SP_NOVEL_PROTEIN = 1, SP_NOVEL_LIGAND = 2, SP_NOVEL_BOTH = 3 };
#define SP_NOVEL_IDENTITY 0.3

/** What a split keeps apart: the protein clusters, the ligand components, both, or a release-date cut. */
enum { SP_BY_PROTEIN = 0, SP_BY_LIGAND = 1, SP_BY_BOTH = 2, SP_BY_TIME = 3 };

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
 *  most ligand heavy atoms (first in site order on ties), built from the ligand's /bonds and /atoms/element
 *  and formal charges: /atoms/formal_charge in a file of format version >= 6 (the one the SDF export
 *  writes), /atoms/ccd_charge before it (SP_E_FORMAT when the column is missing); a site without a key is its own molecule; Butina at @p o->tanimoto in molecule-key byte
 *  order. Cluster numbers: 0.. in order of first chain row (protein) or first site (ligand).
 *  @return 0; SP_E_NOT_FOUND (no file; MMseqs2 not found: "mmseqs2 not found (PATH ...): apt-get install
 *  mmseqs2"); SP_E_FORMAT (not a sitepack file, version < 3, no /sequences); SP_E_INVALID (/clusters exists
 *  without force; a bad option); SP_E_IO (MMseqs2 failed: its exit status and the last lines of its log;
 *  temporary folder); SP_E_NOMEM; SP_E_HDF5. On error nothing is written to @p path. */
int sp_cluster(const char *path, const sp_cluster_opts *o, sp_cluster_summary *sum, sp_err *err);

/** Options of sp_split(); sp_datasplit_opts_default() fills the defaults. */
typedef struct sp_datasplit_opts {
  double test, val;      /**< target fractions of the sites, each in [0, 1), test + val < 1 (0.1, 0.1) */
  uint64_t seed;         /**< (0) */
  int by;                /**< SP_BY_PROTEIN, SP_BY_LIGAND, SP_BY_BOTH, SP_BY_TIME */
  const char *name;      /**< column name under /splits: [A-Za-z0-9_.-], 1..64 bytes (NULL: "by_<by>") */
  double max_tanimoto;   /**< the ligand bound t, in (0, 1]: no kept val/test ligand at Tanimoto >= t to a train
                              ligand (--by ligand, both, time with rules) (0.5) */
  const char *before;    /**< SP_BY_TIME: the cut, "YYYY-MM-DD": train released before it (NULL otherwise) */
  int time_rules;        /**< SP_BY_TIME: drop after-cut sites that share a protein cluster or a ligand
                              component with train (1) */
  int keep_copies;       /**< put the sites of later files of an entry on sides too (0: SP_SIDE_COPY) */
  int non_redundant;     /**< keep one site per (fine protein cluster, molecule): the others SP_SIDE_REDUNDANT */
  int scores;            /**< compute the leakage scores (MMseqs2 easy-search) and write /split_scores/NAME (1) */
  const char *mmseqs;    /**< MMseqs2 executable for the scores (NULL: "mmseqs" in PATH) */
  int threads;           /**< MMseqs2 --threads (1) */
  int force;             /**< replace an existing column and listings */
  int write_listing;     /**< also write PREFIX.split-NAME.tsv and .json beside the file (1) */
} sp_datasplit_opts;

void sp_datasplit_opts_default(sp_datasplit_opts *o);

/** What sp_split() assigned. */
typedef struct sp_datasplit_summary {
  int64_t n_sites;
  int64_t sites[3];       /**< sites per side, SP_SIDE_TRAIN, VAL, TEST */
  int64_t entries[3];     /**< distinct entries (groups of /structures/entry_first) with a site on each side */
  int64_t dropped;        /**< sites left out so that val/test share nothing with train (--by both, time) */
  int64_t copies;         /**< sites of later files of an entry (SP_SIDE_COPY) */
  int64_t undated;        /**< --by time: sites of structures without a date (SP_SIDE_UNDATED) */
  int64_t redundant;      /**< --non-redundant: sites not chosen (SP_SIDE_REDUNDANT) */
  int64_t n_components;   /**< groups of sites that go to one side together */
  int64_t largest_component; /**< sites of the largest */
  double asked[3];        /**< fractions asked per side (train = 1 - val - test; --by time: of the after-cut
                               sites for val and test, train as it came) */
  double got[3];          /**< fractions got: sites[k] / (train + val + test) */
  double deviation;       /**< largest |got - asked| over the sides (fraction) */
  double max_cross_tanimoto; /**< largest Tanimoto between a train and a val/test ligand (ions, artifacts apart) */
  int scored;             /**< the scores were computed */
  int64_t strata[2][4];   /**< val, test sites per stratum SP_NOT_NOVEL..SP_NOVEL_BOTH */
  double max_cross_identity; /**< largest val/test-to-train chain identity found (MMseqs2, 80 % coverage); -1 none */
  double seconds_scores;
  int iterations;         /**< balancing passes (--by both: the fill redone with targets raised for drops) */
  char name[72];
  char tsv_path[4096], json_path[4096];
  double seconds;
} sp_datasplit_summary;

/** Assign every site of the merged file @p path to train, val or test (docs/usage.md "Splits" states the
 *  rule, step by step; tests/peer/split_rule.py is the same rule written again):
 *  - sites of a later file of an entry (/structures/entry_first not the structure's own row) get
 *    SP_SIDE_COPY unless keep_copies; with non_redundant, the sites that are not the representative of their
 *    (fine protein cluster, molecule) group get SP_SIDE_REDUNDANT (split_internal.h sp_spl_non_redundant);
 *  - the others are joined into components: by entry always; by protein (and both, and time after the cut) by
 *    the coarse cluster (/clusters protein_low) of the site's chain and of every polymer chain it contacts
 *    (/residues/contact); by ligand by the ligand component at max_tanimoto (sp_spl_ligand_components: every
 *    pair of molecules of /clusters/fingerprint at Tanimoto >= t joined; ions, artifacts and detergents join none);
 *  - the components, in order of a hash of the seed and their key (smallest entry id), fill test, then val,
 *    each up to its fraction of the sites (a component that does not fit goes on: smaller ones after it
 *    may), the rest train;
 *  - SP_BY_BOTH: val/test sites (not ions, artifacts or detergents) whose ligand component has a train site are dropped,
 *    and the fill is redone with the val/test targets raised by what was dropped (up to 32 passes; the pass
 *    with the smallest deviation kept);
 *  - SP_BY_TIME: train = sites released (else deposited) before @p o->before; the after-cut components fill
 *    test then val in the ratio asked; with time_rules after-cut sites sharing a protein cluster (any contacted
 *    chain) or a ligand component with train are dropped; undated sites SP_SIDE_UNDATED.
 *  With @p o->scores, the leakage scores of the val/test sites (split_internal.h sp_spl_scores: MMseqs2
 *  easy-search, Tanimoto, strata) into /split_scores/NAME (docs/format.md "/split_scores").
 *  Writes /splits/NAME (int8 per site, attributes: docs/format.md "/splits") and, with write_listing, the TSV
 *  and JSON listing (temporary names, renamed when complete). @return 0; SP_E_NOT_FOUND (no file; no
 *  /clusters: "run sitepack cluster first"; scores: mmseqs2 not found); SP_E_FORMAT (not a sitepack file, columns that do not match);
 *  SP_E_INVALID (bad option: a fraction, max_tanimoto out of (0, 1], a before that is not a calendar date
 *  YYYY-MM-DD, month 1 to 12 and the day within its month: "not a valid date"; the column or a listing exists without force; a file without sites; a side with a fraction > 0 gets no site, or train
 *  gets none); SP_E_IO; SP_E_NOMEM; SP_E_HDF5. On error nothing is written. */
int sp_split(const char *path, const sp_datasplit_opts *o, sp_datasplit_summary *sum, sp_err *err);

/** Print the splits of the merged file @p path to @p out (sitepack survey; docs/usage.md "Leakage scores"): per
 *  /splits column, in name order, one line of its side counts, `by`, max_cross_tanimoto and max_cross_identity
 *  (nan when absent), and when /split_scores/NAME exists one line per val and test of the strata counts.
 *  *@p n_splits (out): the columns printed (0: the file has no /splits, nothing printed). @return 0;
 *  SP_E_NOT_FOUND, SP_E_FORMAT (sp_spl_open_read: no file, not a sitepack file of version >= 3). */
int sp_split_report(const char *path, FILE *out, int *n_splits, sp_err *err);

/** Name of side @p s ("train", "val", "test", "dropped"), NULL for another value. */
const char *sp_side_name(int s);

#endif
