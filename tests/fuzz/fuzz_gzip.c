/* libFuzzer harness: whole-buffer gzip inflate (sp_gunzip), with a 16 MiB output limit so
 * that a small bomb is SP_E_TOO_LARGE, never an out-of-memory. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "sitepack/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sp_buf b;
  sp_err err = {0};
  int rc = sp_gunzip(data, size, (size_t)16 << 20, &b, &err);
  if (rc == 0) {
    if (!b.data || b.data[b.len] != '\0' || b.len > ((size_t)16 << 20)) abort();
    sp_buf_free(&b);
  } else if (rc != SP_E_GZIP && rc != SP_E_TRUNCATED_GZIP && rc != SP_E_TOO_LARGE && rc != SP_E_NOMEM) {
    abort();
  } else if (!err.msg[0]) {
    abort();
  }
  return 0;
}
