/* Tessel command processor: CONV2D and POOL2D, windows over NHWC activations (docs/isa.md §7),
 * through an implicit im2col. README.md ("Windows") has the plan.
 *
 * CONV2D is, group by group, the GEMM of A' (output pixels x KH*KW*C/G) by the weights. A' is never
 * written to HBM: tile by tile, the DMA loads each tap's input pixels straight into the rows of an
 * A slot in VMEM, one LOAD per tap and output row (the pixels STRIDE_W*C apart in HBM). Pixels in
 * the padding are not loaded: the slot holds the padding value there, written by a VPU fill before
 * the loads. When tiles are whole output rows, a filled slot keeps the padding where every tile
 * whose taps stay inside the input rows (an interior tile) leaves it, so those skip the fill. Tiles
 * alternate between two A slots, so the loads of tile i + 1 overlap the MXU's work on tile i. The
 * group's weights stay in VMEM when they fit, else come as N-column panels in two slots. Each
 * (tile, column block) is one MATMULK over all of K into an ACC slot, then the GEMM epilogue
 * (tsl_cp_epilogue_store). The scheduler (tsl_cp_sched.c) adds every token.
 *
 * POOL2D loads one tap of a tile at a time into two tap slots and folds it into the tile with the
 * VPU (MAX in the input type, or ADD into 32-bit sums), then converts and stores the tile. */
#include "tsl_cp_int.h"
#include "tsl_win.h"

#define TOK_DMA TSL_TOK(TSL_UNIT_DMA)
#define TOK_MXU TSL_TOK(TSL_UNIT_MXU)
#define TOK_VPU TSL_TOK(TSL_UNIT_VPU)
#define BF16_NEG_INF 0xFF80FF80u    /* two bf16 -inf */
#define DIRTY 0u
#define KEPT 1u
#define FRESH 2u

static uint64_t al(uint64_t v) { return (v + TSL_CP_ALIGN - 1u) / TSL_CP_ALIGN * TSL_CP_ALIGN; }
static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

typedef struct {
    const tsl_cmd_t *c;
    tsl_win_t g;
    uint32_t n, es, ces, conv, avg, oh, ow, m;
    uint32_t cg, coutg, kp, ncb;    /* CONV2D: channels and output channels of a pass's GEMM, K padded, column blocks */
    uint32_t packed, passes;        /* CONV2D: N depthwise groups per pass (tsl_win_packed), or one group */
    uint32_t lanes;                 /* POOL2D: C padded to N */
    uint32_t mc, aligned, resident;
    uint32_t bmajor, pp, nb, nbt, tiles;   /* batch-major tiles: pp positions x nb images; nbt image chunks */
    uint32_t pad;                   /* the padding value, repeated over 32 bits */
    uint32_t va[2], vb[2], vbias, vout[2], acc[2];
    uint32_t clean[2];              /* A slot s holds the padding everywhere (FRESH), or wherever an
                                       interior tile loads nothing (KEPT) */
    tsl_insn_t held;                /* the latest LOAD of a tile's or a tap's loads, not issued yet */
    tsl_cp_buf_t *held_buf;
} win_t;

/* The rows of a tile. Pixel-major: output pixels [m0, m0 + mr) (image, row, column order).
 * Batch-major (more images than output columns): output positions [p0, p0 + np) of images
 * [b0, b0 + nb), row (p - p0) * nb + (b - b0), so that one LOAD moves a tap of every image. */
typedef struct {
    uint32_t m0, mr, p0, np, b0, nb;
} tile_t;

static tile_t tile_of(const win_t *x, uint32_t t)
{
    tile_t r = {0, 0, 0, 0, 0, 0};
    if (t >= x->tiles)
        return r;
    if (!x->bmajor) {
        r.m0 = t * x->mc;
        r.mr = tsl_cp_min(x->mc, x->m - r.m0);
        return r;
    }
    uint32_t pi = t / x->nbt, bi = t - pi * x->nbt;
    r.p0 = pi * x->pp;
    r.np = tsl_cp_min(x->pp, x->oh * x->ow - r.p0);
    r.b0 = bi * x->nb;
    r.nb = tsl_cp_min(x->nb, x->g.batch - r.b0);
    r.mr = r.np * r.nb;
    return r;
}

/* --------------------------------------------------------------------------------- planning */

/* Most rows of a tile that fit: VMEM holds `fixed` bytes plus `per_row` a row, ACC `acc_row`
 * bytes a row (0: none), and a VPU instruction covers the `vecs` vectors of a row. Before the
 * alignment of each region (layout() checks the real thing). */
static uint32_t fit(const tsl_cp_t *cp, const win_t *x, uint64_t fixed, uint64_t per_row, uint64_t acc_row, uint64_t vecs)
{
    if (fixed >= cp->vmem_bytes)
        return 0;
    uint64_t rows = min64((cp->vmem_bytes - fixed) / per_row, min64(x->m, TSL_CP_MAX_ROWS));
    if (acc_row)
        rows = min64(rows, cp->acc_bytes / (2u * acc_row));
    return (uint32_t)min64(rows, TSL_CP_MAX_ROWS / vecs);
}

/* Tiles of at most `rows` rows: batch-major when there are more images than output columns (a LOAD
 * then moves more rows), else whole output rows when a tile holds one (the padding then repeats from
 * tile to tile), or equal tiles; then the VMEM and ACC layout. 1 when it fits. */
static int layout(const tsl_cp_t *cp, win_t *x, uint32_t rows)
{
    const tsl_win_t *g = &x->g;
    uint32_t n = x->n, positions = x->oh * x->ow, narrow = x->ces < 4u;
    x->bmajor = g->batch > x->ow;
    x->aligned = !x->bmajor && rows >= x->ow;
    if (x->bmajor) {
        x->nb = tsl_cp_min(g->batch, rows);
        x->pp = x->nb == g->batch ? tsl_cp_min(rows / g->batch, positions) : 1u;
        x->nbt = tsl_cp_ceil(g->batch, x->nb);
        x->mc = x->pp * x->nb;
        x->tiles = tsl_cp_ceil(positions, x->pp) * x->nbt;
    } else {
        x->mc = x->aligned ? rows / x->ow * x->ow : tsl_cp_ceil(x->m, tsl_cp_ceil(x->m, rows));
        x->tiles = tsl_cp_ceil(x->m, x->mc);
    }
    uint64_t p = 0, abytes = al((uint64_t)x->mc * (x->conv ? x->kp : x->lanes) * x->es);
    uint32_t wide = x->conv ? n : x->lanes;
    for (int s = 0; s < 2; s++) {
        x->va[s] = (uint32_t)p;
        p += abytes;
        x->clean[s] = DIRTY;
    }
    for (int s = 0; s < 2; s++) {
        x->vb[s] = (uint32_t)p;
        if (x->conv)
            p += al((uint64_t)x->kp * (x->resident && s == 0 ? x->ncb * n : x->resident ? 0u : n) * x->es);
    }
    x->vbias = (uint32_t)p;
    if (x->conv && (x->c->flags & TSL_CP_FLAG(BIAS)))
        p += al(4u * n * x->ncb);
    for (int s = 0; s < 2; s++) {
        x->vout[s] = (uint32_t)p;
        /* narrow C (CONV2D, ADD) or the MAX tile */
        if (narrow || (!x->conv && !x->avg))
            p += al((uint64_t)x->mc * wide * x->ces);
        x->acc[s] = TSL_LOCAL_ACC_BASE + (uint32_t)s * x->mc * 4u * wide;
    }
    return p <= cp->vmem_bytes;
}

/* The largest tiles up to `rows` rows whose layout fits (each try an eighth fewer rows). */
static int place(const tsl_cp_t *cp, win_t *x, uint32_t rows)
{
    for (; rows; rows -= rows > 8u ? rows / 8u : 1u)
        if (layout(cp, x, rows))
            return 1;
    return 0;
}

static int plan(const tsl_cp_t *cp, const tsl_cmd_t *c, win_t *x)
{
    uint32_t w[TSL_PARAM_CMD_WORDS];
    tsl_cmd_encode(c, w);
    const tsl_win_t *g = &x->g;
    uint32_t n = cp->n;
    x->c = c;
    x->held_buf = NULL;
    x->g = tsl_win_decode(w);
    x->n = n;
    x->conv = c->opcode == TSL_CMD_OP_CONV2D;
    x->avg = !x->conv && c->vpu_op == TSL_VPU_OP_ADD;
    x->es = tsl_dtype_bytes(c->a_dtype);
    x->ces = tsl_dtype_bytes(c->c_dtype);
    x->oh = tsl_win_oh(g);
    x->ow = tsl_win_ow(g);
    x->m = g->batch * x->oh * x->ow;
    int fl = c->a_dtype == TSL_DTYPE_BF16;
    int narrow = x->ces < 4u;
    if (!x->conv) {
        x->lanes = tsl_cp_roundup(g->c, n);
        x->pad = x->avg ? (fl ? 0u : g->a_zp * 0x01010101u) : fl ? BF16_NEG_INF : 0x80808080u;
        if (g->c * x->es > TSL_CP_MAX_ROW_BYTES)
            return 0;
        /* two tap slots, two tiles (MAX: in VMEM; ADD: sums in ACC, and a narrow C in VMEM) */
        uint64_t per_row = 2u * x->lanes * x->es + (x->avg ? (narrow ? 2u * x->lanes * x->ces : 0u) : 2u * x->lanes * x->es);
        return place(cp, x, fit(cp, x, 0, per_row, x->avg ? 4u * x->lanes : 0u, x->lanes / n));
    }
    x->packed = (uint32_t)tsl_win_packed(g, c->a_dtype);
    x->cg = x->packed ? n : g->c / g->groups;
    x->coutg = x->packed ? n : g->cout / g->groups;
    x->passes = x->packed ? tsl_cp_ceil(g->groups, n) : g->groups;
    uint32_t kk = g->kh * g->kw * x->cg;
    x->kp = tsl_cp_roundup(kk, n);
    x->ncb = tsl_cp_ceil(x->coutg, n);
    x->pad = fl ? 0u : g->a_zp * 0x01010101u;
    if (x->kp / n > TSL_INSN_MXU_MATMULK_KBLOCKS_MASK || kk > TSL_CP_MAX_ROWS || x->cg * x->es > TSL_CP_MAX_ROW_BYTES)
        return 0;
    uint64_t fixed = (c->flags & TSL_CP_FLAG(BIAS)) ? al(4u * n * x->ncb) : 0u;
    uint64_t per_row = 2u * x->kp * x->es + (narrow ? 2u * n * x->ces : 0u);
    /* the group's weights stay in VMEM when that leaves room for tiles of 2N rows */
    x->resident = 1;
    uint32_t rows = fit(cp, x, fixed + al((uint64_t)x->kp * x->ncb * n * x->es), per_row, 4u * n, 1);
    if ((rows >= tsl_cp_min(x->m, 2u * n) || (x->packed && rows)) && place(cp, x, rows))
        return 1;
    x->resident = 0;
    return place(cp, x, fit(cp, x, fixed + 2u * al((uint64_t)x->kp * n * x->es), per_row, 4u * n, 1));
}

int tsl_cp_win_fits(const tsl_cp_t *cp, const tsl_cmd_t *c)
{
    win_t x;
    return plan(cp, c, &x);
}

/* ------------------------------------------------------------------------------ the im2col */

/* Whether taps [kh0, kh1] x [kw0, kw1] of output pixels [m0, m0 + mr) reach into the padding:
 * *vpad for the rows above or below the input, the result for any. Conservative when the pixels
 * span output rows (every column) or images (every row). */
static int tile_pad(const win_t *x, uint32_t m0, uint32_t mr, uint32_t kh0, uint32_t kh1, uint32_t kw0, uint32_t kw1,
                    int *vpad)
{
    const tsl_win_t *g = &x->g;
    uint32_t img = x->oh * x->ow, m1 = m0 + mr - 1u;
    uint32_t r0 = m0 / x->ow, r1 = m1 / x->ow;   /* output rows, counted over the images */
    uint32_t oh0 = r0 % x->oh, oh1 = r1 % x->oh, ow0 = m0 % x->ow, ow1 = m1 % x->ow;
    if (m0 / img != m1 / img) {
        oh0 = 0;
        oh1 = x->oh - 1u;
    }
    if (r0 != r1) {
        ow0 = 0;
        ow1 = x->ow - 1u;
    }
    *vpad = oh0 * g->stride_h + kh0 * g->dil_h < g->pad_t ||
            (uint64_t)oh1 * g->stride_h + kh1 * g->dil_h >= (uint64_t)g->h + g->pad_t;
    return *vpad || ow0 * g->stride_w + kw0 * g->dil_w < g->pad_l ||
           (uint64_t)ow1 * g->stride_w + kw1 * g->dil_w >= (uint64_t)g->w + g->pad_l;
}

/* A tile's or a tap's LOADs go out one behind, so that only the last one signals its consumer
 * (flush): a signal from each would have to be consumed by a SYNC in the consumer's queue, each
 * waiting for its LOAD. */
static void hold(tsl_cp_t *cp, win_t *x, tsl_cp_buf_t *buf, tsl_insn_t i)
{
    if (x->held_buf)
        tsl_cp_issue(cp, x->held, NULL, NULL, x->held_buf, 0);
    x->held = i;
    x->held_buf = buf;
}

static void flush(tsl_cp_t *cp, win_t *x, uint32_t hint)
{
    if (x->held_buf)
        tsl_cp_issue(cp, x->held, NULL, NULL, x->held_buf, hint);
    x->held_buf = NULL;
}

/* Pixel-major: DMA-load tap (kh, kw), input channels [c0, c0 + cv), of output pixels [m0, m0 + mr):
 * pixel m0 + r goes to local + r * lstride. One LOAD per output row; pixels in the padding are
 * skipped. */
static void load_rows(tsl_cp_t *cp, win_t *x, tsl_cp_buf_t *buf, uint32_t local, uint32_t lstride, uint32_t m0,
                      uint32_t mr, uint32_t kh, uint32_t kw, uint32_t c0, uint32_t cv)
{
    const tsl_win_t *g = &x->g;
    uint32_t es = x->es, row = x->ow, pix = g->c * es;
    uint32_t r = m0 / row, ow = m0 - r * row, oh = r % x->oh, b = r / x->oh;
    /* output columns whose tap column iw = ow*SW + kw*DW - PL is inside the input: [lo, hi) */
    uint32_t left = kw * g->dil_w, lo = left >= g->pad_l ? 0u : tsl_cp_ceil(g->pad_l - left, g->stride_w);
    uint32_t hi = left >= g->w + g->pad_l ? 0u : tsl_cp_min((g->w + g->pad_l - left - 1u) / g->stride_w + 1u, row);
    for (uint32_t i = 0; i < mr;) {
        uint32_t run = tsl_cp_min(mr - i, row - ow), ih = oh * g->stride_h + kh * g->dil_h;
        uint32_t a = ow > lo ? ow : lo, e = ow + run < hi ? ow + run : hi;
        if (ih >= g->pad_t && ih - g->pad_t < g->h && a < e) {
            uint32_t iw = a * g->stride_w + left - g->pad_l, rows = e - a, bytes = cv * es;
            uint32_t hs = g->stride_w * pix, ls = lstride;
            if (hs == bytes && ls == bytes && (uint64_t)rows * bytes <= TSL_CP_MAX_ROW_BYTES) {
                bytes *= rows;   /* contiguous on both sides: one long row */
                rows = 1;
            }
            hold(cp, x, buf, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                    .op = TSL_DMA_OP_LOAD,
                    .hbm_addr = x->c->a_addr + (((b * g->h + ih - g->pad_t) * g->w + iw) * g->c + c0) * es,
                    .local_addr = local + (i + a - ow) * lstride, .rows = rows, .row_bytes = bytes, .hbm_stride = hs,
                    .local_stride = ls}));
        }
        i += run;
        ow = 0;
        if (++oh == x->oh) {
            oh = 0;
            b++;
        }
    }
}

/* Tap (kh, kw), channels [c0, c0 + cv), of the rows of tile `t` into local + row * lstride: per
 * output row (pixel-major), or per output position with the tile's images as the rows, HBM_STRIDE
 * one image (batch-major). */
static void load_tap(tsl_cp_t *cp, win_t *x, tsl_cp_buf_t *buf, uint32_t local, uint32_t lstride, const tile_t *t,
                     uint32_t kh, uint32_t kw, uint32_t c0, uint32_t cv)
{
    const tsl_win_t *g = &x->g;
    if (!x->bmajor) {
        load_rows(cp, x, buf, local, lstride, t->m0, t->mr, kh, kw, c0, cv);
        return;
    }
    uint32_t es = x->es, oh = t->p0 / x->ow, ow = t->p0 - oh * x->ow, image = g->h * g->w * g->c * es;
    for (uint32_t p = 0; p < t->np; p++) {
        uint32_t ih = oh * g->stride_h + kh * g->dil_h, iw = ow * g->stride_w + kw * g->dil_w;
        if (ih >= g->pad_t && ih - g->pad_t < g->h && iw >= g->pad_l && iw - g->pad_l < g->w)
            hold(cp, x, buf, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                    .op = TSL_DMA_OP_LOAD,
                    .hbm_addr = x->c->a_addr + t->b0 * image +
                                (((ih - g->pad_t) * g->w + iw - g->pad_l) * g->c + c0) * es,
                    .local_addr = local + p * t->nb * lstride, .rows = t->nb, .row_bytes = cv * es,
                    .hbm_stride = image, .local_stride = lstride}));
        if (++ow == x->ow) {
            ow = 0;
            oh++;
        }
    }
}

/* Whether taps [kh0, kh1] x [kw0, kw1] of tile t reach into the padding (*vpad: above or below). */
static int tile_pad_of(const win_t *x, const tile_t *t, uint32_t kh0, uint32_t kh1, uint32_t kw0, uint32_t kw1, int *vpad)
{
    return x->bmajor ? tile_pad(x, t->p0, t->np, kh0, kh1, kw0, kw1, vpad)
                     : tile_pad(x, t->m0, t->mr, kh0, kh1, kw0, kw1, vpad);
}

/* The tile's STOREs: one (pixel-major), or one per output position (batch-major). */
static void tile_store_parts(const win_t *x, const tile_t *t, uint32_t ch, tsl_cp_tile_t *o)
{
    uint32_t ces = x->ces;
    if (!x->bmajor) {
        o->hbm = x->c->c_addr + t->m0 * ch * ces;
        o->ld = ch * ces;
        return;
    }
    o->hbm = x->c->c_addr + (t->b0 * x->oh * x->ow + t->p0) * ch * ces;
    o->ld = x->oh * x->ow * ch * ces;
    o->parts = t->np;
    o->part_rows = t->nb;
    o->part_step = ch * ces;
}

/* ---------------------------------------------------------------------------------- CONV2D */

typedef struct {
    uint32_t t, tl, cb;   /* tile (counted over every pass, and in the pass), column block */
    tile_t r;             /* its rows */
} cstep_t;

/* Pass p: its input channels [ci0, ci0 + cv) and output channels [co0, co0 + cols). */
typedef struct {
    uint32_t ci0, cv, co0, cols;
} pass_t;

static pass_t pass_of(const win_t *x, uint32_t p)
{
    if (x->packed) {
        uint32_t c0 = p * x->n, v = tsl_cp_min(x->n, x->g.groups - c0);
        return (pass_t){c0, v, c0, v};
    }
    return (pass_t){p * x->cg, x->cg, p * x->coutg, x->coutg};
}

/* The A slot of tile s->t: the padding (when the slot does not hold it already), then every tap.
 * When tiles are whole output rows, an interior tile loads a superset of what any tile loads, and
 * the positions it leaves are the same in every tile: after a fill they keep the padding. */
static void load_a(tsl_cp_t *cp, win_t *x, const cstep_t *s, const pass_t *ps, tsl_cp_buf_t *A)
{
    const tsl_win_t *g = &x->g;
    uint32_t es = x->es, as = s->t & 1u;
    int vpad, pad = tile_pad_of(x, &s->r, 0, g->kh - 1u, 0, g->kw - 1u, &vpad);
    if (pad && x->clean[as] != FRESH && !(x->clean[as] == KEPT && !vpad)) {
        tsl_cp_fill32(cp, &A[as], x->va[as], (uint32_t)al((uint64_t)x->mc * x->kp * es), x->pad, TOK_DMA);
        x->clean[as] = FRESH;
    }
    x->clean[as] = pad && x->aligned && x->clean[as] != DIRTY ? KEPT : DIRTY;
    for (uint32_t kh = 0, col = 0; kh < g->kh; kh++)
        for (uint32_t kw = 0; kw < g->kw; kw++, col += x->cg)
            load_tap(cp, x, &A[as], x->va[as] + col * es, x->kp * es, &s->r, kh, kw, ps->ci0, ps->cv);
    flush(cp, x, TOK_MXU);
}

/* The weight panel of step s (column block s->cb of pass ps) when the weights are not resident. */
static void load_b(tsl_cp_t *cp, const win_t *x, const cstep_t *s, const pass_t *ps, tsl_cp_buf_t *B)
{
    const tsl_win_t *g = &x->g;
    uint32_t n = x->n, es = x->es, bs = (s->t * x->ncb + s->cb) & 1u, cols = tsl_cp_min(n, ps->cols - s->cb * n);
    uint32_t kk = g->kh * g->kw * x->cg;
    if (cols < n || kk < x->kp)
        tsl_cp_zero(cp, &B[bs], x->vb[bs], x->kp * n * es, TOK_DMA);
    tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .hbm_addr = x->c->b_addr + (ps->co0 + s->cb * n) * es,
            .local_addr = x->vb[bs], .rows = kk, .row_bytes = cols * es, .hbm_stride = g->cout * es,
            .local_stride = n * es}),
        NULL, NULL, &B[bs], TOK_MXU);
}

/* The step after s (the next column block, or the next tile's first); r.mr = 0 past the last. */
static cstep_t next_step(const win_t *x, cstep_t s)
{
    if (++s.cb == x->ncb) {
        s.cb = 0;
        s.t++;
        s.r = tile_of(x, ++s.tl);
    }
    return s;
}

/* The resident weights of pass ps: its K x cols block of the HWIO weights, or (packed) per tap a
 * diagonal N x N block, whose diagonal one LOAD of N one-element rows writes. */
static void load_weights(tsl_cp_t *cp, const win_t *x, const pass_t *ps, tsl_cp_buf_t *B)
{
    const tsl_win_t *g = &x->g;
    uint32_t n = x->n, es = x->es, row = x->ncb * n * es, taps = g->kh * g->kw, kk = taps * x->cg;
    if (ps->cols % n || kk < x->kp || x->packed)
        tsl_cp_zero(cp, B, x->vb[0], x->kp * row, TOK_DMA);
    for (uint32_t t = 0; t < (x->packed ? taps : 1u); t++)
        tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                .op = TSL_DMA_OP_LOAD, .hbm_addr = x->c->b_addr + (t * g->cout + ps->co0) * es,
                .local_addr = x->vb[0] + t * n * row, .rows = x->packed ? ps->cv : kk,
                .row_bytes = x->packed ? es : ps->cols * es, .hbm_stride = x->packed ? es : g->cout * es,
                .local_stride = x->packed ? row + es : row}),
            NULL, NULL, B, t + 1u == (x->packed ? taps : 1u) ? TOK_MXU : 0u);
}

static void exec_conv(tsl_cp_t *cp, win_t *x)
{
    const tsl_cmd_t *c = x->c;
    const tsl_win_t *g = &x->g;
    uint32_t n = x->n, es = x->es, kk = g->kh * g->kw * x->cg, wb = 0;
    tsl_cp_buf_t A[2], B[2], ACC[2], OUT[2], BI = {0, 0, {0, 0, 0}};
    for (int s = 0; s < 2; s++)
        A[s] = B[s] = ACC[s] = OUT[s] = BI;
    /* Both A slots start with the padding (and K's padding columns, which no LOAD writes, with
     * something finite: the weights' padding rows are 0) */
    int vpad;
    if (kk < x->kp || tile_pad(x, 0, x->oh * x->ow, 0, g->kh - 1u, 0, g->kw - 1u, &vpad)) {
        tsl_cp_fill32(cp, &A[0], x->va[0], x->va[1] - x->va[0] + (uint32_t)al((uint64_t)x->mc * x->kp * es), x->pad,
                      TOK_DMA);
        x->clean[0] = x->clean[1] = FRESH;
    }
    A[1] = A[0];
    for (uint32_t p = 0, t0 = 0; p < x->passes; p++, t0 += x->tiles) {
        pass_t ps = pass_of(x, p);
        if (c->flags & TSL_CP_FLAG(BIAS)) {
            if (ps.cols % n)
                tsl_cp_zero(cp, &BI, x->vbias, 4u * n * x->ncb, TOK_DMA);
            tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = c->bias_addr + ps.co0 * 4u, .local_addr = x->vbias,
                    .rows = 1, .row_bytes = ps.cols * 4u}), NULL, NULL, &BI, TOK_VPU);
        }
        if (x->resident)
            load_weights(cp, x, &ps, &B[0]);
        /* A tile ahead (after the current tile's first MATMULK, so that the MXU has work while the
         * loads fill the DMA queue); a weight panel a step ahead */
        cstep_t cur = {t0, 0, 0, tile_of(x, 0)};
        load_a(cp, x, &cur, &ps, A);
        if (!x->resident)
            load_b(cp, x, &cur, &ps, B);
        for (; cur.r.mr; cur = next_step(x, cur)) {
            cstep_t nxt = next_step(x, cur), tile = cur;
            tile.cb = x->ncb - 1u;
            tile = next_step(x, tile);
            if (nxt.r.mr && !x->resident)
                load_b(cp, x, &nxt, &ps, B);
            uint32_t as = cur.t & 1u, ts = (cur.t * x->ncb + cur.cb) & 1u, kb = x->kp / n;
            uint32_t bs = x->resident ? 0u : ts, wrow = (x->resident ? x->ncb : 1u) * n * es;
            uint32_t epi_vpu = x->ces < 4u || (c->flags & (TSL_CP_FLAG(SCALE) | TSL_CP_FLAG(BIAS) | TSL_CP_FLAG(RELU)));
            tsl_cp_issue(cp, tsl_insn_mxu_matmulk_encode((tsl_insn_mxu_matmulk_t){
                    .dtype = c->a_dtype, .wbuf = wb, .act_addr = x->va[as], .act_stride = x->kp * es,
                    .acc_addr = x->acc[ts], .acc_stride = 4u * n, .rows = cur.r.mr, .kblocks = kb,
                    .w_addr = x->vb[bs] + (x->resident ? cur.cb * n * es : 0u), .w_stride = wrow}),
                &B[bs], &A[as], &ACC[ts],
                (epi_vpu ? TOK_VPU : TOK_DMA) | (cur.cb + 1u == x->ncb || !x->resident ? TOK_DMA : 0u));
            wb ^= kb & 1u;
            if (cur.cb == x->ncb / 2u && tile.r.mr)
                load_a(cp, x, &tile, &ps, A);
            uint32_t n0 = ps.co0 + cur.cb * n;
            tsl_cp_tile_t out = {.rows = cur.r.mr, .cols = tsl_cp_min(n, ps.cols - cur.cb * n), .acc = x->acc[ts],
                                  .accb = &ACC[ts], .bias = x->vbias + cur.cb * n * 4u, .biasb = &BI,
                                  .out = x->vout[ts], .outb = &OUT[ts]};
            tile_store_parts(x, &cur.r, g->cout, &out);
            out.hbm += n0 * x->ces;
            tsl_cp_epilogue_store(cp, c, &out);
        }
    }
}

/* ---------------------------------------------------------------------------------- POOL2D */

static void exec_pool(tsl_cp_t *cp, win_t *x)
{
    const tsl_cmd_t *c = x->c;
    const tsl_win_t *g = &x->g;
    uint32_t n = x->n, es = x->es, lanes = x->lanes, fl = c->a_dtype == TSL_DTYPE_BF16;
    uint32_t taps = g->kh * g->kw, steps = x->tiles * taps;
    uint32_t sdt = x->avg ? (fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32) : c->a_dtype;   /* the tile's type */
    tsl_cp_buf_t T[2], W[2], OUT[2];
    for (int s = 0; s < 2; s++)
        T[s] = W[s] = OUT[s] = (tsl_cp_buf_t){0, 0, {0, 0, 0}};
    /* step q: tap q % taps of tile q / taps, into tap slot q & 1 */
    for (uint32_t q = 0; q <= steps; q++) {
        if (q < steps) {
            uint32_t tap = q % taps, kh = tap / g->kw, kw = tap % g->kw, ts = q & 1u;
            tile_t t = tile_of(x, q / taps);
            int vpad;
            if (tile_pad_of(x, &t, kh, kh, kw, kw, &vpad))
                tsl_cp_fill32(cp, &T[ts], x->va[ts], (uint32_t)al((uint64_t)x->mc * lanes * es), x->pad, TOK_DMA);
            load_tap(cp, x, &T[ts], x->va[ts], lanes * es, &t, kh, kw, 0, g->c);
            flush(cp, x, TOK_VPU);
        }
        if (q == 0)
            continue;
        uint32_t p = q - 1u, tap = p % taps, ts = p & 1u, ws = (p / taps) & 1u;
        tile_t t = tile_of(x, p / taps);
        uint32_t vecs = t.mr * lanes / n;
        uint32_t work = x->avg ? x->acc[ws] : x->vout[ws];
        tsl_cp_issue(cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = tap == 0 ? TSL_VPU_OP_MOV : x->avg ? TSL_VPU_OP_ADD : TSL_VPU_OP_MAX, .dst_dtype = sdt,
                .src1_dtype = tap == 0 ? c->a_dtype : sdt, .src2_dtype = tap == 0 ? 0u : c->a_dtype,
                .src2_mode = TSL_SRC2_VEC, .dst_addr = work, .src1_addr = tap == 0 ? x->va[ts] : work,
                .src2_addr = tap == 0 ? 0u : x->va[ts], .rows = vecs}),
            &T[ts], NULL, &W[ws], TOK_DMA);
        if (tap + 1u < taps)
            continue;
        /* the tile is complete: its epilogue and store */
        uint32_t src = work, ces = x->ces;
        tsl_cp_buf_t *sb = &W[ws];
        if (x->avg && (c->flags & TSL_CP_FLAG(SCALE)))
            tsl_cp_issue(cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                    .op = TSL_VPU_OP_MUL, .dst_dtype = sdt, .src1_dtype = sdt, .src2_dtype = sdt,
                    .src2_mode = TSL_SRC2_IMM, .dst_addr = work, .src1_addr = work, .src2_addr = c->scale, .rows = vecs}),
                NULL, NULL, &W[ws], 0);
        if (x->avg && ces < 4u) {
            int rq = c->c_dtype == TSL_DTYPE_INT8;
            tsl_cp_issue(cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                    .op = rq ? TSL_VPU_OP_REQUANT : TSL_VPU_OP_MOV, .dst_dtype = c->c_dtype, .src1_dtype = sdt,
                    .dst_addr = x->vout[ws], .src1_addr = work, .rows = vecs, .scale = rq ? c->scale : 0u,
                    .shift = rq ? c->shift : 0u, .zero_point = rq ? c->zero_point : 0u}),
                &W[ws], NULL, &OUT[ws], TOK_DMA);
            src = x->vout[ws];
            sb = &OUT[ws];
        }
        tsl_cp_tile_t out = {.rows = t.mr};
        tile_store_parts(x, &t, g->c, &out);
        tsl_cp_store(cp, &out, src, sb, lanes * ces, g->c * ces, TOK_VPU);
    }
}

/* A 1x1 convolution of stride 1 without padding, in one group, is the GEMM of the input's pixels
 * (rows) by the weights: the GEMM's planner, with its K chunks and panel widths, takes it. */
static int as_gemm(tsl_cp_t *cp, const win_t *x)
{
    const tsl_win_t *g = &x->g;
    if (g->kh != 1u || g->kw != 1u || g->stride_h != 1u || g->stride_w != 1u || g->pad_t || g->pad_b || g->pad_l ||
        g->pad_r || g->groups != 1u)
        return 0;
    tsl_cmd_t m = *x->c;
    m.opcode = TSL_CMD_OP_GEMM;
    m.m = x->m;
    m.n = g->cout;
    m.k = g->c;
    m.lda = g->c * x->es;
    m.ldb = g->cout * x->es;
    m.ldc = g->cout * x->ces;
    tsl_cp_exec_gemm(cp, &m);
    return 1;
}

void tsl_cp_exec_win(tsl_cp_t *cp, const tsl_cmd_t *c)
{
    win_t x;
    if (!plan(cp, c, &x))
        return;   /* validate() refused it already */
    if (!x.conv)
        exec_pool(cp, &x);
    else if (as_gemm(cp, &x))
        return;
    /* more than 4 images per output column: the firmware's batch-major tiles, whose LOADs move a
     * tap of many images (~460 control-core cycles a LOAD) beat the sequencer's LOADs of a few
     * short rows (~100 cycles each; the digits CNN at batch 360: 2 527 against 11 541 cycles) */
    else if (x.g.batch > 4u * x.ow || !tsl_cp_seq_conv(cp, c, &x.g))
        exec_conv(cp, &x);
}
