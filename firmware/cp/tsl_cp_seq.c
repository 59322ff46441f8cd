/* Tessel command processor: a GEMM through the tensor core's tile sequencer (docs/isa.md section
 * 8). The firmware only plans the tile shape (MC rows, KC columns of K per chunk, NBW column blocks
 * per panel) and writes the 16-word descriptor; the tensor core expands it into instructions with
 * their tokens. A core without the sequencer (CFG_FEATURES.SEQ = 0, the lite core), shapes it
 * does not take (a dimension over 65535, or K padding across chunks) and plans whose narrow B
 * panels would leave the MXU waiting for the DMA use tsl_cp_gemm.c's tiling. */
#include "tsl_cp_int.h"
#include "tsl_win.h"

#define PANEL_ROW_BEATS 16u  /* B panels are widened up to this many AXI beats (2N bytes) per row, */
#define PANEL_ROW_FEW 512u   /* and, for few rows (B streamed), to at least this many bytes */
#define TILE_NBW 4u          /* K >= 4N: output tiles of at most 4N rows x TILE_NBW column blocks */
#define ROW_CYCLES 7u        /* the DMA's cost of a row of up to 7 beats (docs/performance.md) */

typedef struct {
    uint32_t n, es, ces, kp, ncb, bias;
} shape_t;

/* v rounded up to a multiple of 4N (a power of two: a mask, not a 64-bit division). */
static uint64_t al(uint64_t v, uint32_t n) { return (v + 4u * n - 1u) & ~(uint64_t)(4u * n - 1u); }

/* VMEM bytes of the layout of section 8 for (mc, kc, nbw): two slots each of A, B and OUT, each
 * slot aligned to 4N, and the bias row rounded up to whole panels. */
static uint64_t vmem_bytes(const shape_t *s, uint32_t mc, uint32_t kc, uint32_t nbw)
{
    uint64_t n = s->n;
    uint64_t v = 2u * (al((uint64_t)mc * kc * s->es, s->n) + al((uint64_t)kc * nbw * n * s->es, s->n) +
                       al((uint64_t)mc * nbw * n * s->ces, s->n));
    return v + (s->bias ? (uint64_t)tsl_cp_ceil(s->ncb, nbw) * nbw * n * 4u : 0u);
}

/* The most rows (at most `mmax`) whose layout with (kc, nbw) fits VMEM, or 0. */
static uint32_t fit_rows(const tsl_cp_t *cp, const shape_t *s, uint32_t kc, uint32_t nbw, uint32_t mmax)
{
    uint64_t fixed = vmem_bytes(s, 0, kc, nbw) + 4u * 4u * s->n;   /* + the alignment of A and OUT */
    uint64_t per_row = 2u * ((uint64_t)kc * s->es + (uint64_t)nbw * s->n * s->ces);
    if (fixed >= cp->vmem_bytes)
        return 0;
    uint32_t rows = (cp->vmem_bytes - (uint32_t)fixed) / (uint32_t)per_row;   /* 32-bit: no libgcc call */
    return rows < mmax ? rows : mmax;
}

/* Chunked mode: the largest KC (a multiple of N, at most kcap) for (mc, nbw), or 0. */
static uint32_t fit_kc(const tsl_cp_t *cp, const shape_t *s, uint32_t mc, uint32_t nbw, uint32_t kcap)
{
    uint64_t fixed = vmem_bytes(s, mc, 0, nbw) + 4u * 4u * s->n;
    uint64_t per_col = 2u * ((uint64_t)mc + (uint64_t)nbw * s->n) * s->es;
    if (fixed >= cp->vmem_bytes)
        return 0;
    uint32_t kc = (cp->vmem_bytes - (uint32_t)fixed) / (uint32_t)per_col / s->n * s->n;
    return kc < kcap ? kc : kcap;
}

int tsl_cp_seq_gemm(tsl_cp_t *cp, const tsl_cmd_t *c)
{
    /* the descriptor's field widths, and MC * NBW as an EPI's ROWS */
    const uint32_t epi_rows = TSL_INSN_VPU_EPI_ROWS_MASK;
    if (!((cp->features >> TSL_TC_CFG_FEATURES_SEQ_SHIFT) & 1u) || c->m > TSL_SEQ_M_MASK ||
        c->n > TSL_SEQ_N_MASK || c->k > TSL_SEQ_K_MASK)
        return 0;
    shape_t s = {cp->n, tsl_dtype_bytes(c->a_dtype), tsl_dtype_bytes(c->c_dtype), 0, 0,
                 (c->flags & TSL_CP_FLAG(BIAS)) != 0};
    uint32_t n = s.n, sh = cp->n_log2;   /* shifts: the control core divides in 33 cycles */
    s.kp = (c->k + n - 1u) & ~(n - 1u);
    s.ncb = (c->n + n - 1u) >> sh;
    if (s.bias && c->n * 4u > TSL_CP_MAX_ROW_BYTES)
        return 0;
    uint32_t kcap = tsl_cp_min(tsl_cp_min(s.kp, (TSL_CP_MAX_ROW_BYTES >> (s.es >> 1)) & ~(n - 1u)),
                               TSL_INSN_MXU_MATMULK_KBLOCKS_MASK * n);
    int few = c->m <= 2u * n && !(c->k & (n - 1u));
    uint32_t wide = 1, nbw, mc = 0, kc = 0, row_max = PANEL_ROW_BEATS * 2u * n;
    if (few && row_max < PANEL_ROW_FEW)
        row_max = PANEL_ROW_FEW;
    while (2u * wide <= s.ncb && 2u * wide * n * s.es <= row_max)
        wide *= 2u;
    /* Few rows (M <= 2N: a GEMV, a small batch): B's traffic sets the pace, so its panels are as
     * wide as they go, and K is split into chunks to make room for them. Otherwise one chunk (the
     * whole of K) when a band of min(M, 4N) rows fits, with the widest panel that allows it. With
     * K >= 4N, tiles hold at most 4N * TILE_NBW vectors: the first tile's loads and the last one's
     * store are not hidden behind the MXU (with a smaller K, C's stores set the pace). A VPU
     * function as the last step (GELU, a little over 5 cycles a vector) keeps up with the MXU for
     * K >= 4N: whole tiles (quarter tiles, when GELU took 21 cycles a vector, gained 8 k cycles on
     * the FFN of `make bench-torch-modes`; now they lose 1.4 k there). */
    uint32_t tile = epi_rows, top = wide;
    if (s.kp >= 4u * n) {
        tile = TILE_NBW * 4u * n;
        if (c->m >= 4u * n && top > TILE_NBW)
            top = TILE_NBW;   /* a wider panel leaves fewer than 4N rows */
    }
    /* rows per tile that ACC (two tiles of NBW blocks) and the tile size allow: q / NBW */
    uint32_t q = tsl_cp_min(cp->acc_bytes >> (3u + sh), tile), qn = q / top;
    for (nbw = top; !few && nbw >= 1u && kcap == s.kp; nbw /= 2u, qn *= 2u) {
        mc = fit_rows(cp, &s, s.kp, nbw, tsl_cp_min(c->m, qn));
        if (mc >= tsl_cp_min(c->m, 4u * n)) {
            kc = s.kp;
            break;
        }
    }
    if (!kc) {
        if (c->k & (n - 1u))
            return 0;   /* the sequencer pads K only within one chunk */
        nbw = wide;
        mc = tsl_cp_min(tsl_cp_min(c->m, cp->acc_bytes / (8u * nbw * n)), epi_rows / nbw);
        kc = fit_kc(cp, &s, mc, nbw, kcap);
        while (kc < kcap && mc > 4u * n) {   /* prefer bands of >= 4N rows over splitting K finely */
            mc = (mc + 1u) / 2u;
            kc = fit_kc(cp, &s, mc, nbw, kcap);
        }
        while (kc < n && (mc > 1u || nbw > 1u)) {
            if (nbw > 1u)
                nbw /= 2u;
            else
                mc = (mc + 1u) / 2u;
            kc = fit_kc(cp, &s, mc, nbw, kcap);
        }
        if (kc < n)
            return 0;
    }
    mc = tsl_cp_ceil(c->m, tsl_cp_ceil(c->m, mc));   /* equal row tiles: no short last one */
    /* A B panel reloaded for every row tile that the DMA brings in more slowly than the MXU uses it
     * (narrow rows cost the DMA about ROW_CYCLES each): the firmware's own tiling, whose A band
     * leaves room for wider panels, does better. */
    uint32_t beats = (nbw * n * s.es + 2u * n - 1u) >> (sh + 1u);
    if (kc == s.kp && mc < c->m && nbw < s.ncb &&
        (uint64_t)s.kp * (beats > ROW_CYCLES ? beats : ROW_CYCLES) > (uint64_t)nbw * mc * (s.kp >> sh))
        return 0;
    int fl = c->a_dtype == TSL_DTYPE_BF16, c8 = c->c_dtype == TSL_DTYPE_INT8;
    tsl_seq_t d = {
        .m = c->m, .n = c->n, .k = c->k, .dtype = c->a_dtype, .c_dtype = c->c_dtype, .bias = s.bias,
        .relu = (c->flags & TSL_CP_FLAG(RELU)) != 0, .fscale = fl && (c->flags & TSL_CP_FLAG(SCALE)),
        .post = c->vpu_op, .a_addr = c->a_addr, .lda = c->lda, .b_addr = c->b_addr, .ldb = c->ldb, .c_addr = c->c_addr, .ldc = c->ldc,
        .bias_addr = c->bias_addr, .scale = (c8 || (fl && (c->flags & TSL_CP_FLAG(SCALE)))) ? c->scale : 0u,
        .shift = c8 ? c->shift : 0u, .zero_point = c8 ? c->zero_point : 0u, .mc = mc, .kc = kc, .nbw = nbw,
        .vmem_addr = 0, .acc_addr = TSL_LOCAL_ACC_BASE};
    uint32_t w[TSL_PARAM_SEQ_WORDS];
    tsl_seq_encode(&d, w);
    tsl_cp_emit_seq(cp, w);
    return 1;
}

/* Output rows [0, top) of an image reach into the padding above, rows [end, OH) into the padding
 * below (the descriptor's VPAD_TOP and VPAD_END). */
static uint32_t vpad_top(const tsl_win_t *g, uint32_t oh)
{
    return tsl_cp_min(tsl_cp_ceil(g->pad_t, g->stride_h), oh);
}

static uint32_t vpad_end(const tsl_win_t *g, uint32_t oh)
{
    uint32_t reach = (g->kh - 1u) * g->dil_h;   /* the last tap row's offset */
    if (g->h + g->pad_t <= reach)
        return 0;
    return tsl_cp_min(tsl_cp_ceil(g->h + g->pad_t - reach, g->stride_h), oh);
}

int tsl_cp_seq_conv(tsl_cp_t *cp, const tsl_cmd_t *c, const tsl_win_t *g)
{
    uint32_t oh = tsl_win_oh(g), ow = tsl_win_ow(g), cg = g->c / g->groups, og = g->cout / g->groups;
    uint32_t k = g->kh * g->kw * cg, byte = 0xFFu;
    if (!((cp->features >> TSL_TC_CFG_FEATURES_SEQ_SHIFT) & 1u) || tsl_win_packed(g, c->a_dtype) ||
        g->kh > byte || g->kw > byte || g->stride_h > byte || g->stride_w > byte || g->dil_h > byte || g->dil_w > byte ||
        g->pad_t > byte || g->pad_l > byte || (uint64_t)oh * ow > TSL_SEQ_M_MASK || k > TSL_SEQ_K_MASK)
        return 0;
    shape_t s = {cp->n, tsl_dtype_bytes(c->a_dtype), tsl_dtype_bytes(c->c_dtype), 0, 0,
                 (c->flags & TSL_CP_FLAG(BIAS)) != 0};
    uint32_t n = s.n, sh = cp->n_log2, rows = g->batch * oh;
    s.kp = (k + n - 1u) & ~(n - 1u);
    s.ncb = (og + n - 1u) >> sh;
    if (s.kp * s.es > TSL_CP_MAX_ROW_BYTES || (s.kp >> sh) > TSL_INSN_MXU_MATMULK_KBLOCKS_MASK)
        return 0;
    /* the widest panel (all of a group's columns: its weights load once) that leaves room for a
     * tile of at least one output row */
    uint32_t nbw = tsl_cp_min(s.ncb, 255u), tr = 0;
    for (; nbw; nbw /= 2u) {
        uint32_t mmax = tsl_cp_min(tsl_cp_min(cp->acc_bytes >> (3u + sh), TSL_INSN_VPU_EPI_ROWS_MASK) / nbw,
                                   (TSL_INSN_VPU_VEC_ROWS_MASK << (2u + sh)) / (s.kp * s.es));
        tr = fit_rows(cp, &s, s.kp, nbw, mmax) / ow;
        if (tr)
            break;
    }
    if (!tr)
        return 0;
    /* tiles of about TILE_NBW * 4N vectors, as a GEMM's, but whole output rows: the first tile's
     * loads and the last one's store are not hidden behind the MXU */
    uint32_t few = TILE_NBW * 4u * n / nbw / ow;
    tr = tsl_cp_min(tr, few ? few : 1u);
    tr = tsl_cp_ceil(rows, tsl_cp_ceil(rows, tr));   /* equal tiles */
    uint32_t imgs = TSL_SEQ_M_MASK / (oh * ow), es = s.es, ces = s.ces;
    int fl = c->a_dtype == TSL_DTYPE_BF16, c8 = c->c_dtype == TSL_DTYPE_INT8;
    for (uint32_t gr = 0; gr < g->groups; gr++)
        for (uint32_t b0 = 0; b0 < g->batch; b0 += imgs) {
            uint32_t nb = tsl_cp_min(imgs, g->batch - b0), img = g->h * g->w * g->c * es;
            uint32_t t = tsl_cp_min(tr, nb * oh);
            tsl_seq_t d = {
                .m = nb * oh * ow, .n = og, .k = k, .dtype = c->a_dtype, .c_dtype = c->c_dtype, .bias = s.bias,
                .relu = (c->flags & TSL_CP_FLAG(RELU)) != 0, .fscale = fl && (c->flags & TSL_CP_FLAG(SCALE)),
                .conv = 1, .a_addr = c->a_addr + b0 * img + gr * cg * es, .lda = g->c * es,
                .b_addr = c->b_addr + gr * og * es, .ldb = g->cout * es,
                .c_addr = c->c_addr + (b0 * oh * ow * g->cout + gr * og) * ces, .ldc = g->cout * ces,
                .bias_addr = s.bias ? c->bias_addr + gr * og * 4u : 0u,
                .scale = (c8 || (fl && (c->flags & TSL_CP_FLAG(SCALE)))) ? c->scale : 0u,
                .shift = c8 ? c->shift : 0u, .zero_point = c8 ? c->zero_point : 0u, .mc = t * ow, .kc = s.kp,
                .nbw = nbw, .tile_rows = t, .vmem_addr = 0, .acc_addr = TSL_LOCAL_ACC_BASE, .in_h = g->h,
                .in_w = g->w, .out_h = oh, .out_w = ow, .kh = g->kh, .kw = g->kw, .stride_h = g->stride_h,
                .stride_w = g->stride_w, .dil_h = g->dil_h, .dil_w = g->dil_w, .pad_t = g->pad_t, .pad_l = g->pad_l,
                .cg = cg, .a_zp = fl ? 0u : g->a_zp, .vpad_top = vpad_top(g, oh), .row_stride = g->w * g->c * es,
                .img_stride = img, .batch = nb, .vpad_end = vpad_end(g, oh)};
            uint32_t w[TSL_PARAM_SEQ_WORDS];
            tsl_seq_encode(&d, w);
            tsl_cp_emit_seq(cp, w);
        }
    return 1;
}
