/* Tessel attention geometry: where the heads of an ATTENTION command's Q, K, V and O lie
 * (docs/isa.md §7), shared by the firmware's validation and planning and the host library, so that
 * the operand extents and the step from one head to the next are computed in one place. K (B) is
 * transposed, BATCH x D rows of 2 LK bytes, LDB apart, with or without HEAD_COLUMNS; or, with
 * K_ROWS, K itself, laid out as Q (LK rows of D per head). */
#ifndef TSL_ATT_H
#define TSL_ATT_H

#include <stdint.h>

#include "tsl_hw.h"

/* Where one operand's BATCH heads lie: its rows, the bytes of each row (what a range check spans,
 * and the least pitch) and the bytes from one head's first element to the next head's. */
typedef struct {
    uint64_t rows, row_bytes, head;
} tsl_att_span_t;

/* 1 when FLAGS hold HEAD_COLUMNS. */
static inline int tsl_att_head_columns(uint32_t flags)
{
    return (flags & (1u << TSL_CMD_FLAG_HEAD_COLUMNS)) != 0;
}

/* An operand of BATCH heads of `l` rows of `bytes` bytes each, rows `ld` bytes apart. Without
 * HEAD_COLUMNS the heads are stacked by rows: BATCH * l rows of `bytes`, each head l * ld bytes after
 * the one before. With it they lie side by side: l rows of BATCH * `bytes`, each head `bytes` after
 * the one before. */
static inline tsl_att_span_t tsl_att_span(const tsl_att_t *g, int head_columns, uint32_t l, uint32_t ld,
                                          uint32_t bytes)
{
    tsl_att_span_t s;
    s.rows = head_columns ? l : (uint64_t)g->batch * l;
    s.row_bytes = head_columns ? (uint64_t)g->batch * bytes : bytes;
    s.head = head_columns ? bytes : (uint64_t)l * ld;
    return s;
}

/* The operands: Q (A, LQ rows of D BF16 per head, LDA apart), V (LK rows of DV BF16, LDV apart) and
 * O (C, LQ rows of DV elements of `ces` bytes, LDC apart). */
static inline tsl_att_span_t tsl_att_q(const tsl_att_t *g, int head_columns, uint32_t lda)
{
    return tsl_att_span(g, head_columns, g->lq, lda, 2u * g->d);
}

/* 1 when FLAGS hold K_ROWS (B is K, not K transposed). */
static inline int tsl_att_k_rows(uint32_t flags)
{
    return (flags & (1u << TSL_CMD_FLAG_K_ROWS)) != 0;
}

/* K (B, LDB apart): with K_ROWS, LK rows of D BF16 per head, as Q (stacked, or side by side with
 * HEAD_COLUMNS); without it K transposed, BATCH x D rows of LK BF16 either way. */
static inline tsl_att_span_t tsl_att_k(const tsl_att_t *g, uint32_t flags, uint32_t ldb)
{
    if (tsl_att_k_rows(flags))
        return tsl_att_span(g, tsl_att_head_columns(flags), g->lk, ldb, 2u * g->d);
    return tsl_att_span(g, 0, g->d, ldb, 2u * g->lk);
}

static inline tsl_att_span_t tsl_att_v(const tsl_att_t *g, int head_columns)
{
    return tsl_att_span(g, head_columns, g->lk, g->ldv, 2u * g->dv);
}

static inline tsl_att_span_t tsl_att_o(const tsl_att_t *g, int head_columns, uint32_t ldc, uint32_t ces)
{
    return tsl_att_span(g, head_columns, g->lq, ldc, ces * g->dv);
}

#endif /* TSL_ATT_H */
