/* Whole-file reading, gzip inflation and SHA-256: see include/sitepack/io.h. */
#include "sitepack/io.h"
#include "sitepack/base.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

void sp_buf_free(sp_buf *b) {
  if (!b) return;
  free(b->data);
  memset(b, 0, sizeof *b);
}

void sp_sha256_hex(const void *data, size_t len, char out[65]) {
  static const char hex[] = "0123456789abcdef";
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(data ? data : "", len, md, &n, EVP_sha256(), NULL) || n != 32) {
    memset(out, '0', 64); /* libcrypto failure (cannot happen with the built-in SHA-256) */
    out[64] = 0;
    return;
  }
  for (unsigned i = 0; i < 32; ++i) {
    out[2 * i] = hex[md[i] >> 4];
    out[2 * i + 1] = hex[md[i] & 15];
  }
  out[64] = 0;
}

double sp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The end of a whole-buffer inflate: @p buf [cap] holds @p out_len bytes of text; give back a badly
   over-estimated size hint (a buffer over 1 MiB at least twice the text), add the NUL, hand @p buf to
   @p out as its gzip text. */
static void inflated_text(char *buf, size_t out_len, size_t cap, sp_buf *out) {
  if (out_len + 1 < cap / 2 && cap > ((size_t)1 << 20)) {
    char *nb = sp_realloc_array(buf, out_len + 1, 1);
    if (nb) buf = nb;
  }
  buf[out_len] = '\0';
  out->data = buf;
  out->len = out_len;
  out->gzip = 1;
}

#ifdef SP_HAVE_LIBDEFLATE
#include <libdeflate.h>

/* Fast path: whole-buffer inflate with libdeflate (about 3x zlib on the entries of
 * shared/data/structures: results/parse-*.md). Every gzip member is inflated in one call into
 * the remaining space; a member that does not fit doubles the buffer and is inflated again.
 * Returns 1 and fills *out on success; 0 for anything else (corrupt, truncated, trailing
 * bytes, above max_bytes, out of memory), which the caller hands to the zlib path below: it
 * gives the exact error class and message, and zlib stays the one reference for errors. */
static int gunzip_libdeflate(const unsigned char *data, size_t len, size_t max_bytes, sp_buf *out) {
  size_t cap = len * 4 + 64;
  if (len >= 18) {
    const unsigned char *t = data + len - 4;
    size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
    if (isize >= len / 2 && isize / 1032 <= len) cap = isize + 1; /* hint only: see gunzip_zlib */
  }
  if (max_bytes && cap > max_bytes + 1) cap = max_bytes + 1;
  char *buf = malloc(cap);
  struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
  if (!buf || !d) goto fail;
  size_t in_pos = 0, out_len = 0;
  while (in_pos < len) {
    if (len - in_pos < 2 || data[in_pos] != 0x1f || data[in_pos + 1] != 0x8b) goto fail; /* padding/garbage: zlib */
    size_t in_used = 0, got = 0;
    enum libdeflate_result r =
        libdeflate_gzip_decompress_ex(d, data + in_pos, len - in_pos, buf + out_len, cap - 1 - out_len, &in_used, &got);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
      if (max_bytes && cap >= max_bytes + 1) goto fail; /* above the limit: zlib reports it */
      size_t nc = cap * 2;
      if (max_bytes && nc > max_bytes + 1) nc = max_bytes + 1;
      char *nb = nc > cap ? sp_realloc_array(buf, nc, 1) : NULL; /* growth bounded by max_bytes + 1 */
      if (!nb) goto fail;
      buf = nb;
      cap = nc;
      continue; /* the same member again */
    }
    if (r != LIBDEFLATE_SUCCESS || in_used == 0) goto fail;
    in_pos += in_used;
    out_len += got;
  }
  libdeflate_free_decompressor(d);
  inflated_text(buf, out_len, cap, out);
  return 1;
fail:
  if (d) libdeflate_free_decompressor(d);
  free(buf);
  return 0;
}
#endif

/* Inflate every gzip member of data[0..len) into out->data (NUL-terminated).
 * `name` is used in messages only. Does not touch out->sha256 / stored_bytes. */
/* One inflate(Z_NO_FLUSH) call on the input in[*in_pos, n) into out[*out_pos, out_cap) (each side at
   most UINT_MAX bytes per call): the positions advance by what zlib read and wrote. Returns inflate's
   status. */
static int inflate_step(z_stream *z, const unsigned char *in, size_t n, size_t *in_pos, char *out, size_t out_cap,
                        size_t *out_pos) {
  size_t il = n - *in_pos, ol = out_cap - *out_pos;
  z->next_in = (Bytef *)(uintptr_t)(in + *in_pos);
  z->avail_in = il > UINT_MAX ? UINT_MAX : (uInt)il;
  z->next_out = (Bytef *)(out + *out_pos);
  z->avail_out = ol > UINT_MAX ? UINT_MAX : (uInt)ol;
  uInt ai = z->avail_in, ao = z->avail_out;
  int zr = inflate(z, Z_NO_FLUSH);
  *in_pos += ai - z->avail_in;
  *out_pos += ao - z->avail_out;
  return zr;
}

static int gunzip_zlib(const unsigned char *data, size_t len, size_t max_bytes, sp_buf *out, const char *name,
                       sp_err *err) {
  if (len < 2 || data[0] != 0x1f || data[1] != 0x8b)
    return sp_err_set(err, SP_E_GZIP, "%s: not gzip data (no 1F 8B magic bytes)", name);
  /* Output size hint: ISIZE, the last 4 bytes of the (last) member, little-endian (RFC 1952, 2.3.1).
   * It is the size modulo 2^32 of the last member only, so it is a hint, never trusted. */
  size_t cap = len * 4 + 64;
  if (len >= 18) {
    const unsigned char *t = data + len - 4;
    size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
    /* plausible only between len/2 and deflate's maximum ratio of 1032:1 (RFC 1951 stored/
     * length-258 limits); a truncated or corrupt file has arbitrary bytes there */
    if (isize >= len / 2 && isize / 1032 <= len) cap = isize + 1;
  }
  if (max_bytes && cap > max_bytes + 1) cap = max_bytes + 1;
  if (cap < 64) cap = 64;
  char *buf = malloc(cap);
  if (!buf) return sp_err_set(err, SP_E_NOMEM, "%s: out of memory (%zu bytes for inflated data)", name, cap);

  z_stream z;
  memset(&z, 0, sizeof z);
  /* 16 + MAX_WBITS: gzip wrapper only, header and CRC-32/ISIZE trailer checked by zlib. */
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
    free(buf);
    return sp_err_set(err, SP_E_NOMEM, "%s: cannot initialise zlib inflate", name);
  }
  size_t in_pos = 0, out_len = 0;
  int rc = 0;
  for (;;) {
    /* one member */
    int zr = Z_OK;
    while (zr != Z_STREAM_END) {
      if (out_len + 1 >= cap) {
        if (max_bytes && out_len >= max_bytes) {
          rc = sp_err_set(err, SP_E_TOO_LARGE, "%s: inflated gzip content exceeds the limit of %zu bytes", name,
                          max_bytes);
          goto done;
        }
        size_t nc = cap < ((size_t)1 << 20) ? ((size_t)1 << 20) : cap * 2;
        if (nc < cap) { /* overflow */
          rc = sp_err_set(err, SP_E_TOO_LARGE, "%s: inflated gzip content too large", name);
          goto done;
        }
        if (max_bytes && nc > max_bytes + 1) nc = max_bytes + 1;
        char *nb = sp_realloc_array(buf, nc, 1); /* growth bounded by max_bytes + 1 */
        if (!nb) {
          rc = sp_err_set(err, SP_E_NOMEM, "%s: out of memory (%zu bytes for inflated data)", name, nc);
          goto done;
        }
        buf = nb;
        cap = nc;
      }
      zr = inflate_step(&z, data, len, &in_pos, buf, cap - 1, &out_len);
      if (zr == Z_STREAM_END) break;
      if (zr == Z_DATA_ERROR) {
        rc = sp_err_set(err, SP_E_GZIP, "%s: corrupt gzip data (%s)", name, z.msg ? z.msg : "data error");
        goto done;
      }
      if (zr == Z_MEM_ERROR) {
        rc = sp_err_set(err, SP_E_NOMEM, "%s: out of memory in zlib inflate", name);
        goto done;
      }
      if (zr == Z_NEED_DICT || zr == Z_STREAM_ERROR) {
        rc = sp_err_set(err, SP_E_GZIP, "%s: corrupt gzip data (zlib error %d)", name, zr);
        goto done;
      }
      /* Z_OK or Z_BUF_ERROR: no progress possible without more input -> truncated */
      if (in_pos >= len && z.avail_out > 0) {
        rc = sp_err_set(err, SP_E_TRUNCATED_GZIP,
                        "%s: truncated gzip stream (input ends after %zu bytes, before the end of the member)",
                        name, len);
        goto done;
      }
    }
    /* member finished: another member, zero padding, or garbage */
    if (in_pos >= len) break;
    if (len - in_pos >= 2 && data[in_pos] == 0x1f && data[in_pos + 1] == 0x8b) {
      if (inflateReset(&z) != Z_OK) {
        rc = sp_err_set(err, SP_E_GZIP, "%s: cannot reset zlib inflate", name);
        goto done;
      }
      continue;
    }
    if (len - in_pos == 1 && data[in_pos] == 0x1f) { /* the next member cut after its first byte */
      rc = sp_err_set(err, SP_E_TRUNCATED_GZIP, "%s: truncated gzip stream (input ends inside a member header)",
                      name);
      goto done;
    }
    size_t k = in_pos;
    while (k < len && data[k] == 0) ++k;
    if (k == len) break; /* trailing zero padding (tape blocks), as gzip(1) accepts */
    rc = sp_err_set(err, SP_E_GZIP, "%s: %zu bytes of trailing garbage after a gzip member", name, len - in_pos);
    goto done;
  }
  if (max_bytes && out_len > max_bytes) {
    rc = sp_err_set(err, SP_E_TOO_LARGE, "%s: inflated gzip content exceeds the limit of %zu bytes", name,
                    max_bytes);
    goto done;
  }
done:
  inflateEnd(&z);
  if (rc) {
    free(buf);
    return rc;
  }
  inflated_text(buf, out_len, cap, out);
  return 0;
}

/* Whole-buffer inflate: libdeflate when built with it, zlib otherwise and for every error. */
static int gunzip_impl(const unsigned char *data, size_t len, size_t max_bytes, sp_buf *out, const char *name,
                       sp_err *err) {
#ifdef SP_HAVE_LIBDEFLATE
  if (sp_gzip_magic(data, len) && gunzip_libdeflate(data, len, max_bytes, out)) return 0;
#endif
  return gunzip_zlib(data, len, max_bytes, out, name, err);
}

/* io.h. */
int sp_gzip_inflate_exact(const unsigned char *in, size_t n, char *dst, size_t len) {
#ifdef SP_HAVE_LIBDEFLATE
  /* libdeflate when the build has it (as io's reader: about 3x zlib) */
  struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
  if (d) {
    size_t in_used = 0, got = 0;
    enum libdeflate_result r = libdeflate_gzip_decompress_ex(d, in, n, dst, len, &in_used, &got);
    libdeflate_free_decompressor(d);
    dst[len] = 0;
    return r == LIBDEFLATE_SUCCESS && in_used == n && got == len;
  }
#endif
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return 0;
  size_t in_pos = 0, out_pos = 0;
  int zr = Z_OK;
  while (zr == Z_OK) {
    size_t in0 = in_pos, out0 = out_pos;
    zr = inflate_step(&z, in, n, &in_pos, dst, len + 1, &out_pos); /* one spare byte: notices a longer stream */
    if (zr == Z_OK && in_pos == in0 && out_pos == out0) break; /* no progress */
    if (out_pos > len) break;
  }
  inflateEnd(&z);
  int ok = zr == Z_STREAM_END && out_pos == len && in_pos == n;
  dst[len] = 0;
  return ok;
}

int sp_gunzip(const void *data, size_t len, size_t max_bytes, sp_buf *out, sp_err *err) {
  memset(out, 0, sizeof *out);
  int rc = gunzip_impl(data, len, max_bytes, out, "gzip data", err);
  if (rc) return rc;
  out->stored_bytes = len;
  sp_sha256_hex(data, len, out->sha256);
  return 0;
}

int sp_file_read_stored(const char *path, size_t max_bytes, unsigned char **data, size_t *len, sp_err *err) {
  *data = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return sp_err_set(err, e == ENOENT ? SP_E_NOT_FOUND : SP_E_IO, "%s: cannot open: %s", path, strerror(e));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return sp_err_set(err, SP_E_IO, "%s: cannot stat: %s", path, strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return sp_err_set(err, SP_E_IO, "%s: is a directory", path);
  }
  /* A plain regular file above the limit is refused before any byte is read (a gzip file is
   * checked on its inflated size below). */
  if (max_bytes && S_ISREG(st.st_mode) && (uint64_t)st.st_size > (uint64_t)max_bytes) {
    unsigned char magic[2] = {0, 0};
    ssize_t r = pread(fd, magic, 2, 0);
    if (!(r == 2 && magic[0] == 0x1f && magic[1] == 0x8b)) {
      close(fd);
      return sp_err_set(err, SP_E_TOO_LARGE, "%s: %lld bytes exceeds the limit of %zu bytes", path,
                        (long long)st.st_size, max_bytes);
    }
  }
  /* Regular files: read st_size bytes (and notice growth); others (pipes): read until EOF. */
  size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 2 : 65536; /* +2: room for the NUL and for the read that sees EOF, so a file read whole is never regrown */
  unsigned char *raw = malloc(cap);
  if (!raw) {
    close(fd);
    return sp_err_set(err, SP_E_NOMEM, "%s: out of memory (%zu bytes)", path, cap);
  }
  size_t n = 0;
  for (;;) {
    if (SP_GROW(raw, cap, n + 2)) { /* room for one more byte and the NUL */
      free(raw);
      close(fd);
      return sp_err_set(err, SP_E_NOMEM, "%s: out of memory (%zu bytes)", path, cap * 2);
    }
    size_t want = cap - 1 - n;
    if (want > ((size_t)1 << 30)) want = (size_t)1 << 30;
    ssize_t r = read(fd, raw + n, want);
    if (r < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      free(raw);
      close(fd);
      return sp_err_set(err, SP_E_IO, "%s: read error: %s", path, strerror(e));
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  raw[n] = 0; /* n + 1 < cap: the loop keeps one byte free */
  *data = raw;
  *len = n;
  return 0;
}

int sp_file_digest(const char *path, char sha[65], int64_t *bytes, int *gzip, sp_err *err) {
  struct stat st;
  if (stat(path, &st) != 0) {
    int e = errno;
    return sp_err_set(err, e == ENOENT ? SP_E_NOT_FOUND : SP_E_IO, "%s: cannot stat: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) return sp_err_set(err, SP_E_IO, "%s: not a regular file", path);
  unsigned char *raw;
  size_t n;
  int rc = sp_file_read_stored(path, 0, &raw, &n, err);
  if (rc) return rc;
  sp_sha256_hex(raw, n, sha);
  if (bytes) *bytes = (int64_t)n;
  if (gzip) *gzip = sp_gzip_magic(raw, n);
  free(raw);
  return 0;
}

int sp_file_read(const char *path, size_t max_bytes, sp_buf *out, sp_err *err) {
  memset(out, 0, sizeof *out);
  unsigned char *raw;
  size_t n;
  int rc0 = sp_file_read_stored(path, max_bytes, &raw, &n, err);
  if (rc0) return rc0;
  char sha[65];
  double t_sha = sp_now();
  sp_sha256_hex(raw, n, sha);
  t_sha = sp_now() - t_sha;
  if (sp_gzip_magic(raw, n)) {
    int rc = gunzip_impl(raw, n, max_bytes, out, path, err);
    free(raw);
    if (rc) return rc;
  } else {
    if (max_bytes && n > max_bytes) {
      free(raw);
      return sp_err_set(err, SP_E_TOO_LARGE, "%s: %zu bytes exceeds the limit of %zu bytes", path, n, max_bytes);
    }
    raw[n] = '\0';
    out->data = (char *)raw;
    out->len = n;
    out->gzip = 0;
  }
  out->stored_bytes = n;
  memcpy(out->sha256, sha, sizeof sha);
  out->sha256_seconds = t_sha;
  return 0;
}

int sp_file_map(const char *path, void **map, size_t *len, sp_err *err) {
  *map = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return sp_err_set(err, e == ENOENT ? SP_E_NOT_FOUND : SP_E_IO, "%s: cannot open: %s", path, strerror(e));
  }
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
      rc = sp_err_set(err, SP_E_IO, "%s: cannot map: %s", path, strerror(errno));
    } else {
      *map = m;
      *len = (size_t)st.st_size;
    }
  }
  close(fd);
  return rc;
}
