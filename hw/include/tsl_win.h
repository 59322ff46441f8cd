/* Tessel window geometry: the shapes of a CONV2D or POOL2D command (docs/isa.md §7), shared by the
 * firmware's validation and planning, the host library and the tests, so that the output size and
 * the operand extents are computed in one place. */
#ifndef TSL_WIN_H
#define TSL_WIN_H

#include <stdint.h>

#include "tsl_hw.h"

/* Output rows and columns of window geometry `g`, or 0 when the window does not fit the padded
 * input (or a stride or dilation is 0). */
static inline uint32_t tsl_win_out(uint32_t in, uint32_t pad0, uint32_t pad1, uint32_t k, uint32_t dil,
                                   uint32_t stride)
{
    uint64_t span = (uint64_t)dil * (k - 1u) + 1u, padded = (uint64_t)in + pad0 + pad1;
    if (!k || !dil || !stride || span > padded)
        return 0;
    return (uint32_t)((padded - span) / stride + 1u);
}

static inline uint32_t tsl_win_oh(const tsl_win_t *g)
{
    return tsl_win_out(g->h, g->pad_t, g->pad_b, g->kh, g->dil_h, g->stride_h);
}

static inline uint32_t tsl_win_ow(const tsl_win_t *g)
{
    return tsl_win_out(g->w, g->pad_l, g->pad_r, g->kw, g->dil_w, g->stride_w);
}

/* Bytes of the dense operands, computed in 64 bits: the input (BATCH x H x W x C), the weights
 * (KH x KW x C/GROUPS x COUT) and the output (BATCH x OH x OW x COUT, or x C for POOL2D). */
static inline uint64_t tsl_win_in_bytes(const tsl_win_t *g, uint32_t es)
{
    return (uint64_t)g->batch * g->h * g->w * g->c * es;
}

static inline uint64_t tsl_win_w_bytes(const tsl_win_t *g, uint32_t es)
{
    return g->groups ? (uint64_t)g->kh * g->kw * (g->c / g->groups) * g->cout * es : 0u;
}

static inline uint64_t tsl_win_out_bytes(const tsl_win_t *g, uint32_t ces)
{
    uint64_t ch = g->cout ? g->cout : g->c;
    return (uint64_t)g->batch * tsl_win_oh(g) * tsl_win_ow(g) * ch * ces;
}

/* A depthwise CONV2D (one input and one output channel per group) of INT8 values runs N groups at
 * a time as one GEMM whose weights are N x N diagonal blocks, one per tap (firmware/cp/README.md).
 * bf16 stays group by group: a non-finite input times a block's zeros would spread NaN across
 * channels. */
static inline int tsl_win_packed(const tsl_win_t *g, uint32_t dtype)
{
    return dtype == TSL_DTYPE_INT8 && g->groups > 1u && g->c == g->groups && g->cout == g->groups;
}

/* The MACs a CONV2D issues on an N x N MXU (= PERF_MXU_MACS): every output pixel, per K-block of
 * its GEMM's K (padded to N), per column block. */
static inline uint64_t tsl_win_macs(const tsl_win_t *g, uint32_t dtype, uint32_t n)
{
    uint64_t pixels = (uint64_t)g->batch * tsl_win_oh(g) * tsl_win_ow(g), taps = (uint64_t)g->kh * g->kw;
    if (!g->groups)
        return 0;
    if (tsl_win_packed(g, dtype))
        return (g->groups + n - 1u) / n * pixels * taps * n * n;
    uint64_t kg = taps * (g->c / g->groups), og = g->cout / g->groups;
    return g->groups * pixels * ((kg + n - 1u) / n * n) * ((og + n - 1u) / n * n);
}

#endif /* TSL_WIN_H */
