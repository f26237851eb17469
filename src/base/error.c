/* Error classes (base module): see include/sitepack/error.h. */
#include "sitepack/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const k_names[SP_ERRCLASS_COUNT] = {
    [SP_OK] = "ok",
    [SP_E_IO] = "io_error",
    [SP_E_NOMEM] = "out_of_memory",
    [SP_E_TRUNCATED_GZIP] = "truncated_gzip",
    [SP_E_GZIP] = "bad_gzip",
    [SP_E_NO_ATOMS] = "no_atoms",
    [SP_E_SYNTAX] = "syntax_error",
    [SP_E_ROW_COUNT] = "bad_row_count",
    [SP_E_FORMAT] = "unknown_format",
    [SP_E_BAD_VALUE] = "bad_value",
    [SP_E_MISSING_ITEM] = "missing_item",
    [SP_E_TOO_LARGE] = "too_large",
    [SP_E_NOT_FOUND] = "not_found",
    [SP_E_INVALID] = "invalid_argument",
    [SP_E_HDF5] = "hdf5_error",
    [SP_E_MPI] = "mpi_error",
    [SP_E_INTERNAL] = "internal_error",
    [SP_E_BINARY] = "binary_input",
    [SP_E_DUPLICATE] = "duplicate",
    [SP_E_TOO_MANY_ATOMS] = "too_many_atoms",
    [SP_E_TIMEOUT] = "timeout",
    [SP_E_INTERRUPTED] = "interrupted",
    [SP_E_REPEATED_ENTRY] = "repeated_entry",
    [SP_E_MULTIPLE_BLOCKS] = "multiple_blocks",
};

const char *sp_errclass_name(int cls) {
  if (cls < 0 || cls >= SP_ERRCLASS_COUNT || !k_names[cls]) return "unknown_error";
  return k_names[cls];
}

int sp_errclass_from_name(const char *name) {
  if (!name) return -1;
  for (int k = 0; k < SP_ERRCLASS_COUNT; ++k)
    if (k_names[k] && !strcmp(name, k_names[k])) return k;
  return -1;
}

int sp_err_set(sp_err *err, int cls, const char *fmt, ...) {
  if (!err) return cls;
  err->cls = cls;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  if (n >= (int)sizeof err->msg) /* issue 16 item 7: a cut message says so ("...") */
    memcpy(err->msg + sizeof err->msg - 4, "...", 4);
  for (char *p = err->msg; *p; ++p)
    if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' '; /* one line, one field (a tab would split TSV) */
  return cls;
}
