/* CIF 1.1 document reader: see include/sitepack/cif.h for the grammar and errors. */
#include "sitepack/cif.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cif_internal.h"
#include "sitepack/base.h"

/* ---------------------------------------------------------------- helpers */

/* whitespace per CIF 1.1: space, tab, LF, CR (VT and FF tolerated as blanks) */
/* Whitespace: space, tab, LF, CR per CIF 1.1; every other control byte (<= 0x20) is
 * treated as a blank too, which lets the scanner test "byte <= 0x20" 16 bytes at a time. */
#define IS_WS(c) ((unsigned char)(c) <= 0x20)

#if defined(__SSE2__)
/* the block scanner stores a value's n and kind as one little-endian 64-bit word */
_Static_assert(offsetof(sp_cif_value, kind) == offsetof(sp_cif_value, n) + 4, "n and kind adjacent");

/* classes of the first character of a token for the block scanner: bit 0 special (quotes,
 * comment, text field, tag, frame reference: the per-token path takes it), bit 1 first letter of
 * data_ loop_ save_ stop_ global_ */
static const unsigned char k_cls[256] = {['\''] = 1, ['"'] = 1, ['#'] = 1, [';'] = 1, ['_'] = 1, ['$'] = 1,
                                         ['d'] = 2, ['D'] = 2, ['l'] = 2, ['L'] = 2, ['s'] = 2, ['S'] = 2,
                                         ['g'] = 2, ['G'] = 2};
/* the kind of a one-character value in the upper half of a word (the block scanner's n + kind) */
static const uint64_t k_kind1w[256] = {['?'] = (uint64_t)SP_CIF_UNKNOWN << 32,
                                       ['.'] = (uint64_t)SP_CIF_INAPPLICABLE << 32};

#include <emmintrin.h>
/* bit i set when p[i] <= 0x20 */
static inline unsigned ws_mask16(const char *p) {
  __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
  return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x20)), v));
}
#endif

/* first non-blank at or after pos (len if none); never reads at or beyond len */
static inline size_t skip_ws(const char *t, size_t pos, size_t len) {
#if defined(__SSE2__)
  while (pos + 16 <= len) {
    unsigned m = ~ws_mask16(t + pos) & 0xFFFFu;
    if (m) return pos + (size_t)__builtin_ctz(m);
    pos += 16;
  }
#endif
  while (pos < len && IS_WS(t[pos])) ++pos;
  return pos;
}

/* first blank at or after pos (len if none) */
static inline size_t skip_token(const char *t, size_t pos, size_t len) {
#if defined(__SSE2__)
  while (pos + 16 <= len) {
    unsigned m = ws_mask16(t + pos);
    if (m) return pos + (size_t)__builtin_ctz(m);
    pos += 16;
  }
#endif
  while (pos < len && !IS_WS(t[pos])) ++pos;
  return pos;
}

/* true when only blanks precede p on its line */
static bool first_on_line(const char *t, const char *p) {
  while (p > t && p[-1] != '\n' && p[-1] != '\r' && IS_WS(p[-1])) --p;
  return p == t || p[-1] == '\n' || p[-1] == '\r';
}

typedef struct arena_chunk {
  struct arena_chunk *next;
  size_t cap, used;
  char data[];
} arena_chunk;

static void arena_free(sp_cif_doc *d) {
  arena_chunk *c = d->arena;
  while (c) {
    arena_chunk *n = c->next;
    free(c);
    c = n;
  }
  d->arena = NULL;
}

static char *arena_alloc(sp_cif_doc *d, size_t n) {
  arena_chunk *c = d->arena;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > 65536 ? n : 65536;
    arena_chunk *nc = malloc(sizeof *nc + cap);
    if (!nc) return NULL;
    nc->cap = cap;
    nc->used = 0;
    nc->next = c;
    d->arena = nc;
    c = nc;
  }
  char *p = c->data + c->used;
  c->used += n;
  return p;
}

static void doc_warn(sp_cif_doc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void doc_warn(sp_cif_doc *d, const char *fmt, ...) {
  if (d->n_warnings >= 100) return;
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) n = (int)sizeof buf - 1;
  if (sp_grow((void **)&d->warnings, &d->warnings_cap, d->warnings_len + (size_t)n + 1, 1)) return;
  memcpy(d->warnings + d->warnings_len, buf, (size_t)n + 1);
  d->warnings_len += (size_t)n + 1;
  d->n_warnings++;
}

const char *sp_cif_warning(const sp_cif_doc *doc, size_t i) {
  if (i >= doc->n_warnings) return NULL;
  const char *p = doc->warnings;
  while (i--) p += strlen(p) + 1;
  return p;
}

void sp_cif_doc_free(sp_cif_doc *doc) {
  free(doc->blocks);
  free(doc->cats);
  free(doc->cols);
  free(doc->values);
  free(doc->warnings);
  arena_free(doc);
  memset(doc, 0, sizeof *doc);
}

size_t sp_cif_line_of(const sp_cif_doc *doc, const char *p) {
  const char *t = doc->text;
  if (!t || p < t || p > t + doc->text_len) return 0;
  size_t line = 1;
  const char *q = t;
  while (q < p) {
    const char *nl = memchr(q, '\n', (size_t)(p - q));
    if (!nl) break;
    ++line;
    q = nl + 1;
  }
  return line;
}

/* ---------------------------------------------------------------- tokens */

enum { T_EOF, T_VALUE, T_TAG, T_DOLLAR, T_LOOP, T_DATA, T_SAVE, T_GLOBAL, T_STOP, T_ERROR };

typedef struct tok {
  const char *p;
  size_t n;
  int type;
  int kind;     /* sp_cif_kind for T_VALUE */
} tok;

typedef struct parser {
  const char *t;
  size_t len, pos;
  sp_cif_doc *d;
  sp_err *err;
  int has_pending;
  tok pending;
  int ecls; /* class of the last error */
  int in_save;      /* inside a save_ frame (its categories are dropped at its end) */
  sp_cif_stream *st; /* NULL, or the loop to hand over row by row (cif_internal.h) */
} parser;

static int perr(parser *P, int cls, const char *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int perr(parser *P, int cls, const char *at, const char *fmt, ...) {
  P->ecls = cls;
  if (!P->err) return cls;
  char buf[SP_ERR_MSG_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (at)
    return sp_err_set(P->err, cls, "%s (line %zu)", buf, sp_cif_line_of(P->d, at));
  return sp_err_set(P->err, cls, "%s", buf);
}

/* Printable excerpt length of a token for messages. */
#define SHOWN(n) ((int)((n) > 40 ? 40 : (n)))

/* Read the next token into *k. Returns k->type; T_ERROR with P->err filled on lexical error. */
static inline int next_tok(parser *P, tok *k) {
  if (P->has_pending) {
    *k = P->pending;
    P->has_pending = 0;
    return k->type;
  }
  const char *t = P->t;
  size_t len = P->len, pos = P->pos;
  for (;;) {
    pos = skip_ws(t, pos, len);
    if (pos >= len) {
      P->pos = pos;
      k->type = T_EOF;
      k->p = t + len;
      k->n = 0;
      return T_EOF;
    }
    if (t[pos] != '#') break;
    const char *nl = memchr(t + pos, '\n', len - pos);
    pos = nl ? (size_t)(nl - t) : len;
  }
  unsigned char c = (unsigned char)t[pos];
  if (c == ';' && (pos == 0 || t[pos - 1] == '\n' || t[pos - 1] == '\r')) {
    /* text field: up to a line that starts with ';' */
    size_t start = pos + 1, q = start;
    for (;;) {
      const char *nl = q < len ? memchr(t + q, '\n', len - q) : NULL;
      if (!nl) {
        P->pos = len;
        k->type = T_ERROR;
        perr(P, SP_E_SYNTAX, t + pos, "unterminated text field (no closing ';' line)");
        return T_ERROR;
      }
      size_t at = (size_t)(nl - t);
      if (at + 1 < len && t[at + 1] == ';') {
        size_t vend = at;
        if (vend > start && t[vend - 1] == '\r') --vend;
        P->pos = at + 2;
        size_t n = vend - start;
        if (n > UINT32_MAX) {
          k->type = T_ERROR;
          perr(P, SP_E_TOO_LARGE, t + pos, "text field longer than 4 GiB");
          return T_ERROR;
        }
        k->type = T_VALUE;
        k->kind = SP_CIF_TEXT;
        k->p = t + start;
        k->n = n;
        if (n && memchr(t + start, '\r', n)) {
          /* normalise CR LF to LF: the one case where a value is copied */
          char *dst = arena_alloc(P->d, n);
          if (!dst) {
            k->type = T_ERROR;
            perr(P, SP_E_NOMEM, NULL, "out of memory (text field)");
            return T_ERROR;
          }
          size_t m = 0;
          for (size_t i = 0; i < n; ++i) {
            char ch = t[start + i];
            if (ch == '\r' && i + 1 < n && t[start + i + 1] == '\n') continue;
            dst[m++] = ch;
          }
          k->p = dst;
          k->n = m;
        }
        return T_VALUE;
      }
      q = at + 1;
    }
  }
  if (c == '\'' || c == '"') {
    size_t i = pos + 1;
    for (;; ++i) {
      if (i >= len || t[i] == '\n' || t[i] == '\r') {
        P->pos = i;
        k->type = T_ERROR;
        perr(P, SP_E_SYNTAX, t + pos, "unterminated quoted value %.*s", SHOWN(i - pos), t + pos);
        return T_ERROR;
      }
      if ((unsigned char)t[i] == c && (i + 1 >= len || IS_WS(t[i + 1]))) break;
    }
    k->type = T_VALUE;
    k->kind = SP_CIF_QUOTED;
    k->p = t + pos + 1;
    k->n = i - pos - 1;
    P->pos = i + 1;
    return T_VALUE;
  }
  size_t s = pos;
  pos = skip_token(t, pos, len);
  P->pos = pos;
  size_t n = pos - s;
  k->p = t + s;
  k->n = n;
  k->kind = SP_CIF_PLAIN;
  if (c == '_') return k->type = T_TAG;
  if (c == '$') return k->type = T_DOLLAR;
  if (n == 1) {
    if (c == '?') k->kind = SP_CIF_UNKNOWN;
    else if (c == '.') k->kind = SP_CIF_INAPPLICABLE;
    return k->type = T_VALUE;
  }
  if (n >= 5) {
    unsigned char l = c | 0x20;
    if (l == 'd' && !strncasecmp(t + s, "data_", 5)) return k->type = T_DATA;
    if (l == 'l' && n == 5 && !strncasecmp(t + s, "loop_", 5)) return k->type = T_LOOP;
    if (l == 's' && !strncasecmp(t + s, "save_", 5)) return k->type = T_SAVE;
    if (l == 's' && n == 5 && !strncasecmp(t + s, "stop_", 5)) return k->type = T_STOP;
    if (l == 'g' && n == 7 && !strncasecmp(t + s, "global_", 7)) return k->type = T_GLOBAL;
  }
  return k->type = T_VALUE;
}

/* category part of a tag: up to the first '.', or the whole tag */
static sp_sv tag_category(const char *p, size_t n) {
  const char *dot = memchr(p, '.', n);
  sp_sv r = {p, dot ? (size_t)(dot - p) : n};
  return r;
}

static sp_sv tag_item(const char *p, size_t n) {
  const char *dot = memchr(p, '.', n);
  sp_sv r;
  if (dot) {
    r.p = dot + 1;
    r.n = n - (size_t)(dot + 1 - p);
  } else {
    r.p = p + 1;
    r.n = n ? n - 1 : 0;
  }
  return r;
}

static bool sv_ieq(sp_sv a, sp_sv b) { return a.n == b.n && (a.n == 0 || !strncasecmp(a.p, b.p, a.n)); }

/* ---------------------------------------------------------------- parser */

static int push_value(parser *P, const tok *k) {
  sp_cif_doc *d = P->d;
  if (d->n_values == d->cap_values &&
      sp_grow((void **)&d->values, &d->cap_values, d->n_values + 1, sizeof *d->values))
    return perr(P, SP_E_NOMEM, NULL, "out of memory (CIF values)");
  if (k->n > UINT32_MAX) return perr(P, SP_E_TOO_LARGE, k->p, "value longer than 4 GiB");
  sp_cif_value *v = &d->values[d->n_values++];
  v->p = k->p;
  v->n = (uint32_t)k->n;
  v->kind = (uint32_t)k->kind;
  return 0;
}

static int push_col(parser *P, const tok *k, size_t first) {
  sp_cif_doc *d = P->d;
  if (sp_grow((void **)&d->cols, &d->cap_cols, d->n_cols + 1, sizeof *d->cols))
    return perr(P, SP_E_NOMEM, NULL, "out of memory (CIF columns)");
  sp_cif_column *c = &d->cols[d->n_cols++];
  c->tag.p = k->p;
  c->tag.n = k->n;
  c->item = tag_item(k->p, k->n);
  c->first = first;
  return 0;
}

static int push_cat(parser *P, sp_sv name, int is_loop, const char *at) {
  sp_cif_doc *d = P->d;
  if (sp_grow((void **)&d->cats, &d->cap_cats, d->n_cats + 1, sizeof *d->cats))
    return perr(P, SP_E_NOMEM, NULL, "out of memory (CIF categories)");
  sp_cif_category *c = &d->cats[d->n_cats++];
  memset(c, 0, sizeof *c);
  c->name = name;
  c->first_col = d->n_cols;
  c->is_loop = (uint8_t)is_loop;
  c->n_rows = is_loop ? 0 : 1;
  (void)at;
  d->blocks[d->n_blocks - 1].n_cats++;
  return 0;
}

/* Where the values of a loop go: the document's value array, or (a streamed loop, see
 * sp_cif_stream) a small buffer whose complete rows are handed to the reader whenever it fills,
 * so that they are converted while still in the L1 cache and never stored. */
typedef struct vsink {
  sp_cif_value *vals; /* d->values, or the stream buffer, or scratch (discard) */
  size_t nv, cap;     /* filled, capacity */
  sp_cif_stream *st;  /* NULL: document */
  size_t rs;          /* stream: first value of the first row not yet handed over */
  uint64_t rows;      /* stream: rows handed over */
  uint32_t ncols;
  bool discard;       /* a loop nobody reads (sp_cif_stream.keep): values counted only */
  uint64_t dropped;   /* discard: values counted outside vals */
} vsink;

static void sink_deliver(vsink *k) {
  sp_cif_stream *st = k->st;
  while (k->nv - k->rs >= k->ncols) {
    if (!st->rc) st->rc = st->row(st->ctx, k->vals + k->rs);
    k->rs += k->ncols;
    k->rows++;
  }
}

/* room for `need` more values (need <= 65 for a stream: its buffer holds ncols + 65 more) */
static int sink_room(parser *P, vsink *k, size_t need) {
  if (k->cap - k->nv >= need) return 0;
  if (k->discard) {
    k->dropped += k->nv;
    k->nv = 0;
    return 0;
  }
  if (!k->st) {
    sp_cif_doc *d = P->d;
    d->n_values = k->nv;
    if (sp_grow((void **)&d->values, &d->cap_values, k->nv + need, sizeof *d->values))
      return perr(P, SP_E_NOMEM, NULL, "out of memory (CIF values)");
    k->vals = d->values;
    k->cap = d->cap_values;
    return 0;
  }
  sink_deliver(k);
  memmove(k->vals, k->vals + k->rs, (k->nv - k->rs) * sizeof *k->vals);
  k->nv -= k->rs;
  k->rs = 0;
  return 0;
}

static bool stream_wants(const parser *P, sp_sv cat) {
  sp_cif_stream *st = P->st;
  if (!st || st->state != SP_CIF_STREAM_ARMED || P->in_save) return false;
  if (cat.n && *cat.p == '_') cat.p++, cat.n--;
  return cat.n == strlen(st->category) && !strncasecmp(cat.p, st->category, cat.n);
}

/* true for a loop (of any block) that neither the stream nor sp_cif_stream.keep names */
static bool stream_discards(const parser *P, sp_sv cat) {
  sp_cif_stream *st = P->st;
  if (!st || !st->keep || P->in_save) return false;
  if (cat.n && *cat.p == '_') cat.p++, cat.n--;
  if (cat.n == strlen(st->category) && !strncasecmp(cat.p, st->category, cat.n)) return false;
  for (const char *const *kp = st->keep; *kp; ++kp)
    if (cat.n == strlen(*kp) && !strncasecmp(cat.p, *kp, cat.n)) return false;
  return true;
}

#if defined(__SSE2__)
/* true when none of the 64 bytes at p is a quote, '#', ';', '_' or '$': no token of the block
 * is special, and no reserved word (they all hold a '_') lies inside it */
static inline bool block_plain64(const char *p) {
  __m128i acc = _mm_setzero_si128();
  for (int i = 0; i < 4; ++i) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
    acc = _mm_or_si128(acc, _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\'')),
                                                      _mm_cmpeq_epi8(v, _mm_set1_epi8('"'))),
                                         _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('#')),
                                                      _mm_cmpeq_epi8(v, _mm_set1_epi8(';')))));
    acc = _mm_or_si128(acc, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')), _mm_cmpeq_epi8(v, _mm_set1_epi8('$'))));
  }
  return _mm_movemask_epi8(acc) == 0;
}
#endif

/* loop_ has been read. allow_discard: a loop nobody reads may be counted instead of stored (its
 * errors are reported by parsing it again, stored, so that the messages are exact). */
static int parse_loop(parser *P, const tok *loop_tok, bool allow_discard) {
  sp_cif_doc *d = P->d;
  size_t pos0 = P->pos; /* just after loop_ (for a second pass) */
  tok k;
  int ty = next_tok(P, &k);
  if (ty == T_ERROR) return P->ecls;
  if (ty != T_TAG) return perr(P, SP_E_SYNTAX, loop_tok->p, "loop_ without tags");
  sp_sv cat = tag_category(k.p, k.n);
  bool dotted = k.n != cat.n;
  size_t first_col = d->n_cols;
  int rc = push_cat(P, cat, 1, k.p);
  if (rc) return rc;
  size_t cat_idx = d->n_cats - 1;
  uint32_t ncols = 0;
  for (;;) {
    if ((rc = push_col(P, &k, 0))) return rc;
    ++ncols;
    ty = next_tok(P, &k);
    if (ty == T_ERROR) return P->ecls;
    if (ty != T_TAG) break;
    sp_sv c2 = tag_category(k.p, k.n);
    if (dotted && c2.n != k.n && !sv_ieq(c2, cat)) break; /* another category: header ends */
  }
  size_t first_val = d->n_values;
  for (uint32_t i = 0; i < ncols; ++i) d->cols[first_col + i].first = first_val + i;
  vsink sk = {d->values, d->n_values, d->cap_values, NULL, 0, 0, ncols, false, 0};
  if (stream_wants(P, cat)) {
    sp_cif_stream *st = P->st;
    st->state = SP_CIF_STREAM_DONE;
    st->block = d->n_blocks - 1;
    sk.st = st;
    sk.cap = (size_t)ncols * 8 + 130;
    sk.vals = malloc(sk.cap * sizeof *sk.vals);
    sk.nv = 0;
    if (!sk.vals) return perr(P, SP_E_NOMEM, NULL, "out of memory (CIF values)");
    sp_cif_category *c = &d->cats[cat_idx];
    c->n_cols = ncols; /* rows: 0 in the document (they go to the reader) */
    st->rc = st->begin(st->ctx, d, c);
  } else if (allow_discard && stream_discards(P, cat)) {
    sk.discard = true;
    sk.cap = 130;
    sk.vals = malloc(sk.cap * sizeof *sk.vals);
    sk.nv = 0;
    if (!sk.vals) return perr(P, SP_E_NOMEM, NULL, "out of memory (CIF values)");
  }
  const char *t = P->t;
  size_t len = P->len;
  while (ty == T_VALUE) {
    if ((rc = sink_room(P, &sk, 1))) goto fail;
    if (k.n > UINT32_MAX) {
      rc = perr(P, SP_E_TOO_LARGE, k.p, "value longer than 4 GiB");
      goto fail;
    }
    sp_cif_value *v = &sk.vals[sk.nv++];
    v->p = k.p;
    v->n = (uint32_t)k.n;
    v->kind = (uint32_t)k.kind;
#if defined(__SSE2__)
    /* hottest path: 64-byte blocks, token starts/ends from whitespace bit masks; stops
     * (falls back to the per-token path) at any token that needs more than "plain or null" */
    if (P->pos + 64 <= len && IS_WS(t[P->pos])) {
      size_t pos = P->pos;
      /* the value array and its count live in locals here (written back at the bail-out),
       * so that the compiler keeps them in registers across the stores of the values */
      sp_cif_value *vals = sk.vals;
      size_t nv = sk.nv;
      while (pos + 64 <= len) {
        if (sk.cap - nv < 65) {
          sk.nv = nv;
          if ((rc = sink_room(P, &sk, 65))) goto fail;
          vals = sk.vals;
          nv = sk.nv;
        }
        uint64_t ws = (uint64_t)ws_mask16(t + pos) | (uint64_t)ws_mask16(t + pos + 16) << 16 |
                      (uint64_t)ws_mask16(t + pos + 32) << 32 | (uint64_t)ws_mask16(t + pos + 48) << 48;
        uint64_t starts = ~ws & ((ws << 1) | (uint64_t)IS_WS(t[pos - 1]));
        if (sk.discard && starts && block_plain64(t + pos)) {
          /* a loop nobody reads, a block of plain tokens: count them */
          uint64_t cnt = (uint64_t)__builtin_popcountll(starts);
          size_t nxt = pos + 64;
          if (!(ws >> 63)) { /* the last token runs past the block */
            unsigned hs = 63u - (unsigned)__builtin_clzll(starts);
            const char *tp = t + pos + hs;
            size_t n = skip_token(t, pos + hs, len) - (pos + hs);
            if ((k_cls[(unsigned char)*tp] & 2) && n >= 5 && (tp[4] == '_' || (n == 7 && tp[6] == '_'))) {
              sk.dropped += cnt - 1; /* maybe a reserved word: the per-token path takes it */
              pos += hs;
              goto block_bail;
            }
            nxt = pos + hs + n;
          }
          sk.dropped += cnt;
          pos = nxt;
          continue;
        }
        size_t next = pos + 64;
        const char *base = t + pos;
        sp_cif_value *w = vals + nv;
        while (starts) {
          uint64_t sb = (unsigned)__builtin_ctzll(starts);
          const char *tp = base + sb;
          unsigned char c0 = (unsigned char)*tp;
          unsigned cls = k_cls[c0];
          uint64_t rest = ws >> sb;
          if (cls & 1) {
            pos += sb;
            nv = (size_t)(w - vals);
            goto block_bail;
          }
          uint64_t n;
          if (rest) {
            n = (unsigned)__builtin_ctzll(rest);
          } else { /* the token runs past this block */
            n = skip_token(t, pos + sb, len) - (pos + sb);
            next = pos + sb + n;
            starts = 0; /* last token of the block */
            if (n > UINT32_MAX) {
              sk.nv = (size_t)(w - vals);
              rc = perr(P, SP_E_TOO_LARGE, tp, "value longer than 4 GiB");
              goto fail;
            }
          }
          if ((cls & 2) && n >= 5 && (tp[4] == '_' || (n == 7 && tp[6] == '_'))) { /* maybe a reserved word */
            pos += sb;
            nv = (size_t)(w - vals);
            goto block_bail;
          }
          /* '?' / '.' alone are nulls; n and kind in one 8-byte store */
          uint64_t nk = n | (k_kind1w[c0] & (0 - (uint64_t)(n == 1))); /* no branch: n == 1 follows the columns */
          w->p = tp;
          memcpy(&w->n, &nk, sizeof nk);
          ++w;
          starts &= starts - 1;
        }
        nv = (size_t)(w - vals);
        pos = next;
      }
    block_bail:
      sk.nv = nv;
      P->pos = pos;
    }
#endif
    /* hot path: plain values that need no classification beyond null / not null */
    size_t pos = skip_ws(t, P->pos, len);
    if (pos < len) {
      unsigned char c = (unsigned char)t[pos];
      if (c != '#' && c != '\'' && c != '"' && c != ';' && c != '_' && c != '$') {
        size_t e = skip_token(t, pos, len), n = e - pos;
        if (!(n >= 5 && (t[pos + 4] == '_' || (n == 7 && t[pos + 6] == '_')))) {
          P->pos = e;
          k.p = t + pos;
          k.n = n;
          k.kind = SP_CIF_PLAIN;
          if (n == 1) k.kind = c == '?' ? SP_CIF_UNKNOWN : c == '.' ? SP_CIF_INAPPLICABLE : SP_CIF_PLAIN;
          continue; /* ty stays T_VALUE */
        }
      }
    }
    P->pos = pos;
    ty = next_tok(P, &k);
  }
  if (ty == T_ERROR) {
    rc = P->ecls;
    goto fail;
  }
  size_t nv; /* values of the loop */
  const sp_cif_value *last_row; /* where the last (incomplete) row would start */
  if (sk.discard) {
    nv = (size_t)sk.dropped + sk.nv;
    last_row = NULL;
    if (nv % ncols || ty == T_DOLLAR || nv / ncols > UINT32_MAX) {
      rc = SP_E_SYNTAX; /* any error: the second pass reports it */
      goto fail;
    }
  } else if (sk.st) {
    sink_deliver(&sk);
    nv = (size_t)sk.rows * ncols + (sk.nv - sk.rs);
    last_row = sk.vals + sk.rs;
  } else {
    d->n_values = sk.nv;
    nv = sk.nv - first_val;
    last_row = d->values + first_val + nv / ncols * ncols;
  }
  sp_cif_category *c = &d->cats[cat_idx];
  if (nv % ncols) {
    size_t col = nv % ncols;
    sp_sv ctag = d->cols[first_col + col].tag;
    if (ty == T_DOLLAR || (ty == T_TAG && !first_on_line(P->t, k.p)))
      rc = perr(P, SP_E_SYNTAX, k.p,
                "unquoted value '%.*s' in loop %.*s (row %zu, column %.*s): values starting with '%c' must be quoted",
                SHOWN(k.n), k.p, SHOWN(c->name.n), c->name.p, nv / ncols + 1, SHOWN(ctag.n), ctag.p, *k.p);
    else
      rc = perr(P, SP_E_ROW_COUNT, NULL,
                "loop %.*s (line %zu): %zu values is not a multiple of its %u columns: a value is missing or two are "
                "glued together (the last row, from line %zu, is incomplete)",
                SHOWN(c->name.n), c->name.p, sp_cif_category_line(d, c), nv, ncols, sp_cif_line_of(d, last_row->p));
    goto fail;
  }
  if (ty == T_DOLLAR) {
    sp_sv ctag = d->cols[first_col].tag;
    rc = perr(P, SP_E_SYNTAX, k.p,
              "unquoted value '%.*s' in loop %.*s (row %zu, column %.*s): values starting with '$' must be quoted",
              SHOWN(k.n), k.p, SHOWN(c->name.n), c->name.p, nv / ncols + 1, SHOWN(ctag.n), ctag.p);
    goto fail;
  }
  if (nv / ncols > UINT32_MAX) {
    rc = perr(P, SP_E_TOO_LARGE, NULL, "loop with more than 2^32-1 rows");
    goto fail;
  }
  c->n_cols = ncols;
  c->stride = ncols;
  c->n_rows = (uint32_t)(nv / ncols);
  if (sk.st) {
    c->n_rows = 0;
    sk.st->n_rows = sk.rows;
    free(sk.vals);
  }
  if (sk.discard) {
    c->n_rows = 0; /* counted, not kept */
    free(sk.vals);
  }
  if (nv == 0)
    doc_warn(d, "empty loop %.*s (line %zu): accepted with 0 rows", SHOWN(c->name.n), c->name.p,
             sp_cif_category_line(d, c));
  /* the token that ended the loop is handled by the caller */
  P->pending = k;
  P->has_pending = 1;
  return 0;
fail:
  if (sk.discard) {
    /* parse the loop again, stored, for the exact error and message */
    free(sk.vals);
    d->n_cats = cat_idx;
    d->n_cols = first_col;
    d->n_values = first_val;
    d->blocks[d->n_blocks - 1].n_cats--;
    P->pos = pos0;
    P->has_pending = 0;
    return parse_loop(P, loop_tok, false);
  }
  if (sk.st) free(sk.vals);
  else d->n_values = sk.nv;
  return rc;
}

int sp_cif_parse(const char *text, size_t len, size_t max_blocks, sp_cif_doc *doc, sp_err *err) {
  return sp_cif_parse_stream(text, len, max_blocks, doc, NULL, 0, err);
}

int sp_cif_parse_stream(const char *text, size_t len, size_t max_blocks, sp_cif_doc *doc, sp_cif_stream *st,
                        unsigned flags, sp_err *err) {
  doc->n_blocks = doc->n_cats = doc->n_cols = doc->n_values = 0;
  doc->warnings_len = doc->n_warnings = 0;
  arena_free(doc);
  doc->text = text;
  doc->text_len = len;
  if (st) {
    st->state = SP_CIF_STREAM_ARMED;
    st->rc = 0;
    st->n_rows = 0;
    st->block = 0;
  }
  if (!(flags & SP_CIF_NUL_CHECKED) && len && memchr(text, '\0', len)) {
    const char *z = memchr(text, '\0', len);
    return sp_err_set(err, SP_E_BINARY, "NUL byte at offset %zu (line %zu): binary data, not CIF text",
                      (size_t)(z - text), sp_cif_line_of(doc, z));
  }
  /* a streamed reader takes the bulk of the values (_atom_site): start the array small */
  if (!doc->values &&
      sp_grow((void **)&doc->values, &doc->cap_values, st ? len / 16 + 256 : len / 8 + 256, sizeof *doc->values))
    return sp_err_set(err, SP_E_NOMEM, "out of memory (CIF values)");
  parser P = {.t = text, .len = len, .pos = 0, .d = doc, .err = err, .st = st};
  ptrdiff_t pair_cat = -1; /* index of the open run of pair items */
  size_t save_cats = 0, save_cols = 0, save_vals = 0;
  const char *save_at = NULL;
  tok k;
  for (;;) {
    int ty = next_tok(&P, &k);
    if (ty == T_ERROR) return P.ecls;
    if (ty == T_EOF) break;
    if (ty == T_DATA) {
      if (P.in_save) return perr(&P, SP_E_SYNTAX, save_at, "save frame not closed before the next data_ block");
      if (max_blocks && doc->n_blocks == max_blocks) break;
      if (sp_grow((void **)&doc->blocks, &doc->cap_blocks, doc->n_blocks + 1, sizeof *doc->blocks))
        return sp_err_set(err, SP_E_NOMEM, "out of memory (CIF blocks)");
      sp_cif_block *b = &doc->blocks[doc->n_blocks++];
      b->name.p = k.p + 5;
      b->name.n = k.n - 5;
      b->first_cat = doc->n_cats;
      b->n_cats = 0;
      b->offset = (size_t)(k.p - text);
      pair_cat = -1;
      continue;
    }
    if (ty == T_GLOBAL || ty == T_STOP)
      return perr(&P, SP_E_SYNTAX, k.p, "'%.*s' is STAR syntax, not allowed in CIF", SHOWN(k.n), k.p);
    if (!doc->n_blocks) {
      return perr(&P, SP_E_SYNTAX, k.p, "'%.*s' before the first data_ block", SHOWN(k.n), k.p);
    }
    if (ty == T_SAVE) {
      pair_cat = -1;
      if (k.n > 5) {
        if (P.in_save) return perr(&P, SP_E_SYNTAX, k.p, "nested save frame '%.*s'", SHOWN(k.n), k.p);
        P.in_save = 1;
        save_at = k.p;
        save_cats = doc->n_cats;
        save_cols = doc->n_cols;
        save_vals = doc->n_values;
        doc_warn(doc, "save frame '%.*s' (line %zu) skipped", SHOWN(k.n - 5), k.p + 5, sp_cif_line_of(doc, k.p));
      } else {
        if (!P.in_save) return perr(&P, SP_E_SYNTAX, k.p, "save_ without an open save frame");
        P.in_save = 0;
        doc->blocks[doc->n_blocks - 1].n_cats -= doc->n_cats - save_cats;
        doc->n_cats = save_cats;
        doc->n_cols = save_cols;
        doc->n_values = save_vals;
      }
      continue;
    }
    if (ty == T_LOOP) {
      pair_cat = -1;
      int rc = parse_loop(&P, &k, true);
      if (rc) return rc;
      continue;
    }
    if (ty == T_VALUE || ty == T_DOLLAR)
      return perr(&P, SP_E_SYNTAX, k.p, "value '%.*s' without a tag", SHOWN(k.n), k.p);
    /* T_TAG: a pair item */
    tok v;
    int vt = next_tok(&P, &v);
    if (vt == T_ERROR) return P.ecls;
    if (vt == T_DOLLAR)
      return perr(&P, SP_E_SYNTAX, v.p, "unquoted value '%.*s' for %.*s: values starting with '$' must be quoted",
                  SHOWN(v.n), v.p, SHOWN(k.n), k.p);
    if (vt != T_VALUE)
      return perr(&P, SP_E_SYNTAX, k.p, "no value for %.*s (next is '%.*s'; values starting with '_' must be quoted)",
                  SHOWN(k.n), k.p, SHOWN(v.n), v.p);
    sp_sv cat = tag_category(k.p, k.n);
    int rc;
    if (pair_cat < 0 || (size_t)pair_cat != doc->n_cats - 1 || !sv_ieq(doc->cats[pair_cat].name, cat) ||
        cat.n == k.n) {
      if (stream_wants(&P, cat)) st->state = SP_CIF_STREAM_OFF; /* first of that name is pairs: not streamed */
      if ((rc = push_cat(&P, cat, 0, k.p))) return rc;
      pair_cat = (ptrdiff_t)(doc->n_cats - 1);
    } else if (doc->cats[pair_cat].n_cols <= 512) {
      /* duplicate item in the same run? Checked in runs of up to 512 items (real categories have
       * fewer than 100), which bounds the cost on hostile input; beyond, a duplicate is kept as
       * a second column and look-ups still return the first (sp_cif_find_column). */
      sp_cif_category *c = &doc->cats[pair_cat];
      sp_sv item = tag_item(k.p, k.n);
      for (size_t i = 0; i < c->n_cols; ++i)
        if (sv_ieq(doc->cols[c->first_col + i].item, item)) {
          doc_warn(doc, "duplicate item %.*s (line %zu): first value kept", SHOWN(k.n), k.p,
                   sp_cif_line_of(doc, k.p));
          goto next;
        }
    }
    if ((rc = push_col(&P, &k, doc->n_values))) return rc;
    if ((rc = push_value(&P, &v))) return rc;
    doc->cats[pair_cat].n_cols++;
  next:;
  }
  if (P.in_save) return perr(&P, SP_E_SYNTAX, save_at, "save frame not closed at end of text");
  return 0;
}

/* ---------------------------------------------------------------- look-ups */

static sp_sv strip_us(const char *s, size_t n) {
  sp_sv r = {s, n};
  if (n && *s == '_') {
    r.p++;
    r.n--;
  }
  return r;
}

const sp_cif_category *sp_cif_find_category(const sp_cif_doc *doc, const sp_cif_block *b, const char *name) {
  sp_sv want = strip_us(name, strlen(name));
  for (size_t i = b->first_cat; i < b->first_cat + b->n_cats; ++i) {
    sp_sv have = strip_us(doc->cats[i].name.p, doc->cats[i].name.n);
    if (sv_ieq(have, want)) return &doc->cats[i];
  }
  return NULL;
}

int sp_cif_find_column(const sp_cif_doc *doc, const sp_cif_category *cat, const char *item) {
  sp_sv want = {item, strlen(item)};
  for (uint32_t i = 0; i < cat->n_cols; ++i)
    if (sv_ieq(doc->cols[cat->first_col + i].item, want)) return (int)i;
  return -1;
}

const sp_cif_value *sp_cif_find_value(const sp_cif_doc *doc, const sp_cif_block *b, const char *tag, uint32_t row) {
  size_t n = strlen(tag);
  sp_sv cat = strip_us(tag_category(tag, n).p, tag_category(tag, n).n);
  sp_sv item = tag_item(tag, n);
  for (size_t i = b->first_cat; i < b->first_cat + b->n_cats; ++i) {
    const sp_cif_category *c = &doc->cats[i];
    if (!sv_ieq(strip_us(c->name.p, c->name.n), cat)) continue;
    for (uint32_t j = 0; j < c->n_cols; ++j)
      if (sv_ieq(doc->cols[c->first_col + j].item, item)) {
        if (row >= c->n_rows) return NULL;
        return sp_cif_cell(doc, c, j, row);
      }
  }
  return NULL;
}

bool sp_cif_value_ieq(const sp_cif_value *v, const char *s) {
  if (v->kind >= SP_CIF_UNKNOWN) return false;
  size_t n = strlen(s);
  return v->n == n && (n == 0 || !strncasecmp(v->p, s, n));
}

/* ---------------------------------------------------------------- numbers */

static const double k_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool sp_cif_parse_double(const char *p, size_t n, double *out) {
  const char *q = p, *e = p + n;
  bool neg = false;
  if (q < e && (*q == '-' || *q == '+')) neg = *q++ == '-';
  uint64_t mant = 0;
  const char *d0 = q;
  while (q < e && (unsigned)(*q - '0') < 10) mant = mant * 10 + (unsigned)(*q++ - '0');
  size_t ip = (size_t)(q - d0), frac = 0;
  if (q < e && *q == '.') {
    const char *f0 = ++q;
    while (q < e && (unsigned)(*q - '0') < 10) mant = mant * 10 + (unsigned)(*q++ - '0');
    frac = (size_t)(q - f0);
  }
  if (ip + frac == 0) return false;
  /* at most 15 digits: the mantissa is exact in a double, so one division rounds correctly */
  if (q == e && ip + frac <= 15) {
    double v = (double)mant;
    if (frac) v /= k_pow10[frac];
    *out = neg ? -v : v;
    return true;
  }
  goto slow;
slow : {
  char buf[72];
  size_t m = n;
  const char *par = memchr(p, '(', n);
  if (par) m = (size_t)(par - p);
  if (m == 0 || m >= sizeof buf) return false;
  memcpy(buf, p, m);
  buf[m] = 0;
  char *end;
  double v = strtod(buf, &end);
  if (end != buf + m) return false;
  /* strtod accepts inf/nan/hex: only accept what starts as a decimal number */
  if (!((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '.' || buf[0] == '-' || buf[0] == '+')) return false;
  for (size_t j = 0; j < m; ++j)
    if (buf[j] == 'x' || buf[j] == 'X' || buf[j] == 'n' || buf[j] == 'N' || buf[j] == 'i' || buf[j] == 'I')
      return false;
  if (par) {
    size_t j = (size_t)(par - p) + 1;
    size_t j0 = j;
    while (j < n && (unsigned)(p[j] - '0') < 10) ++j;
    if (j == j0 || j + 1 != n || p[j] != ')') return false;
  }
  *out = v;
  return true;
}
}

bool sp_cif_parse_int(const char *p, size_t n, int32_t *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (p[i] == '-' || p[i] == '+')) neg = p[i++] == '-';
  if (i == n) return false;
  int64_t v = 0;
  for (; i < n; ++i) {
    unsigned dg = (unsigned)(p[i] - '0');
    if (dg > 9) return false;
    v = v * 10 + dg;
    if (v > (int64_t)INT32_MAX + 1) return false;
  }
  if (neg) v = -v;
  if (v > INT32_MAX || v < INT32_MIN) return false;
  *out = (int32_t)v;
  return true;
}
