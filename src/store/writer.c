/* Per-rank writer: one chunked, extendible compound dataset per table (see store.h). */
#include "sitepack/store.h"
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>

struct sp_rank_writer {
  hid_t file;
  hid_t dset[SP_T_COUNT];
  hid_t rowtype[SP_T_COUNT];
  hid_t tasks, tasktype;
  int64_t rows[SP_T_COUNT];
  int64_t n_tasks;
  uint32_t site_flags_or; /* OR of the flags of every site appended: root attribute site_flags_or at close */
  char *path;
};

/* Chunk of about 32 KiB, at least 16 rows: a per-task append rewrites at most the last partial chunk of each
   table, and the per-task flush writes it (16626ad: 256 KiB chunks made that flush dearer). The merge writes
   the final file in its own layout, so these chunks live only in the per-rank files. */
static hsize_t chunk_rows(size_t row_size) {
  size_t n = (32u * 1024u) / row_size;
  return n < 16 ? 16 : (hsize_t)n;
}

static hid_t create_ext(hid_t loc, const char *name, hid_t type, size_t row_size) {
  hsize_t dims = 0, maxd = H5S_UNLIMITED, ch = chunk_rows(row_size);
  hid_t sp = H5Screate_simple(1, &dims, &maxd);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t d = -1;
  if (sp >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, 1, &ch) >= 0 && H5Pset_obj_track_times(dcpl, 0) >= 0)
    d = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (sp >= 0) H5Sclose(sp);
  return d;
}

static void writer_free(sp_rank_writer *w) {
  if (!w) return;
  for (int i = 0; i < SP_T_COUNT; i++) {
    if (w->dset[i] >= 0) H5Dclose(w->dset[i]);
    if (w->rowtype[i] >= 0) H5Tclose(w->rowtype[i]);
  }
  if (w->tasks >= 0) H5Dclose(w->tasks);
  if (w->tasktype >= 0) H5Tclose(w->tasktype);
  free(w->path);
  free(w);
}

sp_rank_writer *sp_rank_writer_open(const char *path, sp_err *err) {
  if (!path) {
    sp_err_set(err, SP_E_INVALID, "sp_rank_writer_open: NULL path");
    return NULL;
  }
  sp_rank_writer *w = calloc(1, sizeof *w);
  if (!w || !(w->path = strdup(path))) {
    free(w);
    sp_err_set(err, SP_E_NOMEM, "out of memory opening per-rank file %s", path);
    return NULL;
  }
  w->file = w->tasks = w->tasktype = -1;
  for (int i = 0; i < SP_T_COUNT; i++) w->dset[i] = w->rowtype[i] = -1;

  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  const char *what = "cannot create per-rank file";
  hid_t fapl = sp_h5_fapl(0);
  w->file = fapl >= 0 ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : -1;
  if (w->file < 0) {
    sp_h5_fail(err, what, path); /* before H5Pclose clears the error stack */
    if (fapl >= 0) H5Pclose(fapl);
    writer_free(w);
    sp_h5_quiet_end(&q);
    return NULL;
  }
  if (fapl >= 0) H5Pclose(fapl);
  what = "cannot write per-rank file attributes";
  if (sp_h5_attr_str(w->file, "format", SP_RANK_FORMAT_NAME) < 0 ||
      sp_h5_attr_i64(w->file, "format_version", SP_RANK_FORMAT_VERSION) < 0)
    goto fail;
  what = "cannot create per-rank tables";
  for (int i = 0; i < SP_T_COUNT; i++) {
    w->rowtype[i] = sp_h5_row_type(i);
    if (w->rowtype[i] < 0) goto fail;
    hid_t g = H5Gcreate2(w->file, sp_tables[i].name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) goto fail;
    w->dset[i] = create_ext(g, "rows", w->rowtype[i], sp_tables[i].row_size);
    H5Gclose(g);
    if (w->dset[i] < 0) goto fail;
  }
  w->tasktype = sp_h5_task_type();
  if (w->tasktype < 0) goto fail;
  w->tasks = create_ext(w->file, "tasks", w->tasktype, sizeof(sp_task_rec));
  if (w->tasks < 0) goto fail;
  if (H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0) goto fail;
  sp_h5_quiet_end(&q);
  return w;
fail:
  sp_h5_fail(err, what, path);
  if (w->file >= 0) {
    for (int i = 0; i < SP_T_COUNT; i++)
      if (w->dset[i] >= 0) { H5Dclose(w->dset[i]); w->dset[i] = -1; }
    if (w->tasks >= 0) { H5Dclose(w->tasks); w->tasks = -1; }
    H5Fclose(w->file);
  }
  writer_free(w);
  sp_h5_quiet_end(&q);
  return NULL;
}

/* bonds: each site's n_bonds rows, in site order; atom1 a ligand atom, atom1 < atom2 < n_atoms */
static int validate_bonds(const sp_result *r, sp_err *err) {
  const long long fi = (long long)r->file_idx;
  size_t bx = 0;
  for (size_t i = 0; i < r->n_sites; i++) {
    const sp_site_row *s = &r->sites[i];
    if (s->n_bonds < 0 || (size_t)s->n_bonds > r->n_bonds - bx)
      return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: site %zu n_bonds %d exceeds the %zu bond rows", fi, i,
                        s->n_bonds, r->n_bonds);
    for (size_t k = bx; k < bx + (size_t)s->n_bonds; k++) {
      const sp_bond_row *b = &r->bonds[k];
      if (b->site_idx != (int64_t)i || b->atom1 < 0 || b->atom1 >= s->n_ligand || b->atom2 <= b->atom1 ||
          b->atom2 >= s->n_atoms)
        return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: bond %zu of site %zu has a site_idx or atom offset "
                          "out of range", fi, k, i);
    }
    bx += (size_t)s->n_bonds;
  }
  if (bx != r->n_bonds)
    return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: sites count %zu of %zu bond rows", fi, bx, r->n_bonds);
  return 0;
}

/* Check the invariants documented in store.h. */
static int validate(const sp_result *r, sp_err *err) {
  if (r->file_idx < 0) return sp_err_set(err, SP_E_INVALID, "result: file_idx %lld < 0", (long long)r->file_idx);
  if (r->n_parts < 1 || r->part < 0 || r->part >= r->n_parts)
    return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: part %d not in [0, n_parts=%d)",
                      (long long)r->file_idx, r->part, r->n_parts);
  const long long fi = (long long)r->file_idx;
  if ((r->n_ligands && !r->ligands) || (r->n_components && !r->components) || (r->n_sites && !r->sites) ||
      (r->n_residues && !r->residues) || (r->n_atoms && !r->atoms) || (r->n_interactions && !r->interactions) ||
      (r->n_bonds && !r->bonds))
    return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: row count without rows", fi);
  for (size_t i = 0; i < r->n_ligands; i++) {
    int64_t s = r->ligands[i].site_idx;
    if (s < -1 || (s >= 0 && (uint64_t)s >= r->n_sites))
      return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: ligand %zu site_idx %lld out of range (%zu sites)",
                        fi, i, (long long)s, r->n_sites);
  }
  size_t res = 0, atom = 0;
  for (size_t i = 0; i < r->n_sites; i++) {
    const sp_site_row *s = &r->sites[i];
    if (s->ligand_idx < 0 || (uint64_t)s->ligand_idx >= r->n_ligands)
      return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: site %zu ligand_idx %lld out of range (%zu ligands)",
                        fi, i, (long long)s->ligand_idx, r->n_ligands);
    if (s->n_atoms < 0 || s->n_residues < 0 || s->n_ligand < 0 || s->n_ligand > s->n_atoms)
      return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: site %zu has bad counts (n_ligand %d, n_atoms %d, "
                        "n_residues %d)", fi, i, s->n_ligand, s->n_atoms, s->n_residues);
    if ((size_t)s->n_residues > r->n_residues - res || (size_t)s->n_atoms > r->n_atoms - atom)
      return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: site %zu blocks exceed the %zu residue / %zu atom rows",
                        fi, i, r->n_residues, r->n_atoms);
    size_t r0 = res, r1 = res + (size_t)s->n_residues;
    for (size_t k = r0; k < r1; k++)
      if (r->residues[k].site_idx != (int64_t)i)
        return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: residue %zu has site_idx %lld, expected %zu",
                          fi, k, (long long)r->residues[k].site_idx, i);
    for (size_t k = atom; k < atom + (size_t)s->n_atoms; k++) {
      int64_t ri = r->atoms[k].residue_idx;
      if (ri < (int64_t)r0 || ri >= (int64_t)r1)
        return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: atom %zu of site %zu has residue_idx %lld "
                          "outside the site's residues [%zu, %zu)", fi, k, i, (long long)ri, r0, r1);
    }
    res = r1;
    atom += (size_t)s->n_atoms;
  }
  if (res != r->n_residues || atom != r->n_atoms)
    return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: sites cover %zu of %zu residue rows and %zu of %zu atom rows",
                      fi, res, r->n_residues, atom, r->n_atoms);
  /* interactions: each site's n_interactions rows, in site order, atoms inside the site's block */
  size_t ix = 0;
  for (size_t i = 0; i < r->n_sites; i++) {
    const sp_site_row *s = &r->sites[i];
    if (s->n_interactions < 0 || (size_t)s->n_interactions > r->n_interactions - ix)
      return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: site %zu n_interactions %d exceeds the %zu interaction rows",
                        fi, i, s->n_interactions, r->n_interactions);
    for (size_t k = ix; k < ix + (size_t)s->n_interactions; k++) {
      const sp_interaction_row *x = &r->interactions[k];
      if (x->site_idx != (int64_t)i)
        return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: interaction %zu has site_idx %lld, expected %zu", fi,
                          k, (long long)x->site_idx, i);
      if (x->lig_atom < 0 || x->lig_atom >= s->n_atoms || x->site_atom < 0 || x->site_atom >= s->n_atoms ||
          x->water_atom < -1 || x->water_atom >= s->n_atoms)
        return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: interaction %zu of site %zu has an atom offset "
                          "outside the site's %d atoms", fi, k, i, s->n_atoms);
    }
    ix += (size_t)s->n_interactions;
  }
  if (ix != r->n_interactions)
    return sp_err_set(err, SP_E_INVALID, "result file_idx %lld: sites count %zu of %zu interaction rows", fi, ix,
                      r->n_interactions);
  return validate_bonds(r, err);
}

static int append_rows(sp_rank_writer *w, int t, const void *rows, size_t n) {
  if (n == 0) return 0;
  hsize_t start = (hsize_t)w->rows[t], cnt = n, newsize = start + n;
  if (H5Dset_extent(w->dset[t], &newsize) < 0) return -1;
  hid_t fs = H5Dget_space(w->dset[t]);
  hid_t ms = H5Screate_simple(1, &cnt, NULL);
  int rc = -1;
  if (fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL) >= 0 &&
      H5Dwrite(w->dset[t], w->rowtype[t], ms, fs, H5P_DEFAULT, rows) >= 0)
    rc = 0;
  /* keep the HDF5 error stack for the caller's sp_h5_fail: H5Sclose would reset it */
  hid_t saved = rc ? H5Eget_current_stack() : -1;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  if (saved >= 0) H5Eset_current_stack(saved);
  return rc;
}

int sp_rank_writer_append(sp_rank_writer *w, const sp_result *r, sp_err *err) {
  if (!w || !r) return sp_err_set(err, SP_E_INVALID, "sp_rank_writer_append: NULL argument");
  int rc = validate(r, err);
  if (rc) return rc;

  sp_task_rec tr;
  memset(&tr, 0, sizeof tr);
  tr.file_idx = r->file_idx;
  tr.part = r->part;
  tr.n_parts = r->n_parts;
  tr.n[SP_T_STRUCTURES] = r->has_structure_row ? 1 : 0;
  tr.n[SP_T_LIGANDS] = (int64_t)r->n_ligands;
  tr.n[SP_T_COMPONENTS] = (int64_t)r->n_components;
  tr.n[SP_T_SITES] = (int64_t)r->n_sites;
  tr.n[SP_T_RESIDUES] = (int64_t)r->n_residues;
  tr.n[SP_T_ATOMS] = (int64_t)r->n_atoms;
  tr.n[SP_T_INTERACTIONS] = (int64_t)r->n_interactions;
  tr.n[SP_T_BONDS] = (int64_t)r->n_bonds;
  tr.n[SP_T_CHAINS] = (int64_t)r->n_chains;
  tr.n[SP_T_SEGMENTS] = (int64_t)r->n_segments;
  tr.n[SP_T_SEQUENCES] = (int64_t)r->n_sequences;
  const void *rows[SP_T_COUNT] = {&r->st, r->ligands, r->components, r->sites, r->residues, r->atoms,
                                  r->interactions, r->bonds, r->chains, r->segments, r->sequences};

  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  for (int t = 0; t < SP_T_COUNT; t++) {
    tr.start[t] = w->rows[t];
    if (append_rows(w, t, rows[t], (size_t)tr.n[t]) < 0) {
      rc = sp_h5_fail(err, "cannot append rows to per-rank file", w->path);
      goto out;
    }
  }
  /* the index row last: a task is visible to the merge only once all its rows are written */
  {
    hsize_t start = (hsize_t)w->n_tasks, cnt = 1, newsize = start + 1;
    hid_t fs = -1, ms = -1;
    int ok = H5Dset_extent(w->tasks, &newsize) >= 0 && (fs = H5Dget_space(w->tasks)) >= 0 &&
             (ms = H5Screate_simple(1, &cnt, NULL)) >= 0 &&
             H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL) >= 0 &&
             H5Dwrite(w->tasks, w->tasktype, ms, fs, H5P_DEFAULT, &tr) >= 0;
    hid_t saved = ok ? -1 : H5Eget_current_stack();
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    if (saved >= 0) H5Eset_current_stack(saved);
    if (!ok || H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0) {
      rc = sp_h5_fail(err, "cannot write task index of per-rank file", w->path);
      goto out;
    }
  }
  for (int t = 0; t < SP_T_COUNT; t++) w->rows[t] += tr.n[t];
  for (size_t k = 0; k < r->n_sites; k++) w->site_flags_or |= r->sites[k].flags;
  w->n_tasks++;
out:
  sp_h5_quiet_end(&q);
  return rc;
}

size_t sp_rank_writer_count(const sp_rank_writer *w) { return w ? (size_t)w->n_tasks : 0; }

int sp_rank_writer_close(sp_rank_writer *w, sp_err *err) {
  if (!w) return 0;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  int rc = 0;
  for (int i = 0; i < SP_T_COUNT; i++)
    if (w->dset[i] >= 0) {
      if (H5Dclose(w->dset[i]) < 0) rc = -1;
      w->dset[i] = -1;
    }
  if (w->tasks >= 0) {
    if (H5Dclose(w->tasks) < 0) rc = -1;
    w->tasks = -1;
  }
  /* issue 21: the merge learns from this whether it writes the optional columns without reading the sites */
  if (w->file >= 0 && sp_h5_attr_i64(w->file, "site_flags_or", (int64_t)w->site_flags_or) < 0) rc = -1;
  if (w->file >= 0 && H5Fclose(w->file) < 0) rc = -1;
  w->file = -1;
  if (rc < 0) rc = sp_h5_fail(err, "cannot close per-rank file", w->path);
  sp_h5_quiet_end(&q);
  writer_free(w);
  return rc;
}
