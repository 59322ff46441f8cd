/* The tile sequencer of docs/isa.md section 8: the launch checks and the expansion of a GEMM
 * descriptor into DMA, MXU and VPU instructions. This file is the executable form of that section;
 * the RTL (hw/rtl/tc/tsl_tc_seq.sv) is compared with it instruction by instruction. */
#include <string.h>

#include "tslm.h"
#include "tsl_insn.h"

#define TOK_DMA TSL_TOK(TSL_UNIT_DMA)
#define TOK_MXU TSL_TOK(TSL_UNIT_MXU)
#define TOK_VPU TSL_TOK(TSL_UNIT_VPU)

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1u) / b; }
static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* The VMEM and ACC layout of section 8. */
typedef struct {
    uint32_t n, es, ces, kp, ncb, npan, nch;
    uint64_t fill_vecs;   /* CONV: INT32 vectors of an A slot's fill */
    uint64_t va[2], vb[2], vo[2], vbias, vend;   /* 64-bit: a bad descriptor may overflow 32 */
    uint64_t acc[2], acc_end;
} layout_t;

static layout_t layout_of(const tslm_cfg_t *cfg, const tsl_seq_t *d)
{
    layout_t l;
    uint64_t n = cfg->n, al = 4u * n;
    l.n = cfg->n;
    l.es = tsl_dtype_bytes(d->dtype);
    l.ces = tsl_dtype_bytes(d->c_dtype);
    l.kp = ceil_div(d->k, l.n) * l.n;
    l.ncb = ceil_div(d->n, l.n);
    l.npan = ceil_div(l.ncb, d->nbw ? d->nbw : 1u);
    l.nch = ceil_div(l.kp, d->kc ? d->kc : 1u);
    l.fill_vecs = ((uint64_t)d->mc * d->kc * l.es + al - 1u) / al;
    uint64_t p = d->vmem_addr, sz[3] = {(uint64_t)d->mc * d->kc * l.es, (uint64_t)d->kc * d->nbw * n * l.es,
                                        (uint64_t)d->nbw * d->mc * n * l.ces};
    uint64_t *base[3] = {l.va, l.vb, l.vo};
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 2; s++) {
            base[r][s] = p;
            p = (p + sz[r] + al - 1u) / al * al;
        }
    l.vbias = p;
    if (d->bias)
        p += (uint64_t)l.npan * d->nbw * n * 4u;
    l.vend = p;
    l.acc[0] = d->acc_addr;
    l.acc[1] = d->acc_addr + (uint64_t)d->nbw * d->mc * 4u * n;
    l.acc_end = l.acc[1] + (uint64_t)d->nbw * d->mc * 4u * n;
    return l;
}

/* An HBM operand of `rows` rows of `row_bytes`, `ld` apart, past HBM_BYTES or outside the HBM window
 * (no wrap-around). */
static int past_hbm(const tslm_t *m, uint32_t addr, uint32_t rows, uint32_t ld, uint64_t row_bytes)
{
    return !tslm_hbm_ok(m, addr, (uint64_t)addr + (uint64_t)(rows - 1u) * ld + row_bytes);
}

/* The words and fields that only a CONV descriptor uses are 0 in a GEMM's. */
static int conv_fields_zero(const uint32_t *w)
{
    for (unsigned i = TSL_SEQ_IN_H_WORD; i < TSL_PARAM_SEQ_WORDS; i++)
        if (w[i])
            return 0;
    return tsl_seq_decode(w).tile_rows == 0;
}

/* Check 1 of a CONV descriptor: the window fields, and M, K, MC and KC as they follow from them. */
static int conv_fields_ok(const tsl_seq_t *d, const layout_t *l)
{
    return d->in_h && d->in_w && d->out_h && d->out_w && d->kh && d->kw && d->stride_h && d->stride_w && d->dil_h &&
           d->dil_w && d->cg && d->batch && d->tile_rows && (uint64_t)d->kh * d->kw * d->cg == d->k &&
           (uint64_t)d->batch * d->out_h * d->out_w == d->m && (uint64_t)d->tile_rows * d->out_w == d->mc &&
           d->kc == l->kp && (d->dtype == TSL_DTYPE_INT8 || !d->a_zp) && l->fill_vecs <= TSL_INSN_VPU_VEC_ROWS_MASK &&
           (uint64_t)d->cg * l->es <= TSL_INSN_DMA_XFER_ROW_BYTES_MASK;
}

uint32_t tslm_seq_check(const tslm_t *m, const uint32_t *w, uint32_t *eaddr)
{
    const tslm_cfg_t *cfg = &m->cfg;
    tsl_seq_t d = tsl_seq_decode(w);
    uint32_t n = cfg->n, again[TSL_PARAM_SEQ_WORDS];
    *eaddr = 0;
    /* 1. fields */
    tsl_seq_encode(&d, again);
    for (unsigned i = 0; i < TSL_PARAM_SEQ_WORDS; i++)
        if (again[i] != w[i])
            return TSL_ERR_BAD_FIELD;   /* a reserved bit */
    if (!d.m || !d.n || !d.k || !d.mc || !d.kc || !d.nbw)
        return TSL_ERR_BAD_FIELD;
    int fl = d.dtype == TSL_DTYPE_BF16, c8 = d.c_dtype == TSL_DTYPE_INT8;
    uint32_t feature = fl ? TSL_TC_CFG_FEATURES_BF16_SHIFT : TSL_TC_CFG_FEATURES_INT8_SHIFT;
    if ((d.dtype != TSL_DTYPE_INT8 && !fl) || !((cfg->features >> feature) & 1u))
        return TSL_ERR_BAD_FIELD;
    if (fl ? (d.c_dtype != TSL_DTYPE_FP32 && d.c_dtype != TSL_DTYPE_BF16) : (d.c_dtype != TSL_DTYPE_INT32 && !c8))
        return TSL_ERR_BAD_FIELD;
    if ((!fl && d.fscale) || (d.scale && !c8 && !d.fscale) || ((d.shift || d.zero_point) && !c8) || d.shift > 62u)
        return TSL_ERR_BAD_FIELD;
    if ((!d.bias && d.bias_addr) ||
        (d.post && (!fl || !tsl_gemm_post_has(TSL_GEMM_POST_OPS, d.post) ||
                    (d.relu && !tsl_gemm_post_has(TSL_GEMM_POST_RELU, d.post)) ||
                    (d.conv && !tsl_gemm_post_has(TSL_GEMM_POST_CONV, d.post)))))
        return TSL_ERR_BAD_FIELD;
    layout_t l = layout_of(cfg, &d);
    if (d.conv ? !conv_fields_ok(&d, &l) : !conv_fields_zero(w))
        return TSL_ERR_BAD_FIELD;
    const uint32_t row_bytes = TSL_INSN_DMA_XFER_ROW_BYTES_MASK;
    if (d.kc % n || d.kc * l.es > row_bytes || d.kc / n > TSL_INSN_MXU_MATMULK_KBLOCKS_MASK ||
        d.nbw * n * l.es > row_bytes || d.mc * d.nbw > TSL_INSN_VPU_EPI_ROWS_MASK || (d.bias && d.n * 4u > row_bytes) ||
        (d.k % n && d.kc < l.kp))
        return TSL_ERR_BAD_FIELD;
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
        for (uint32_t v = 0; v < TSL_UNIT_LIMIT; v++)
            if (m->credit[u][v])
                return TSL_ERR_BAD_FIELD;
    /* 2. HBM operands: inside HBM_BYTES and the window [HBM_BASE, HBM_LIMIT) */
    struct {
        uint32_t addr, rows, ld;
        uint64_t row_bytes;
    } hbm[4] = {{d.a_addr, d.m, d.lda, (uint64_t)d.k * l.es},
                {d.b_addr, d.k, d.ldb, (uint64_t)d.n * l.es},
                {d.c_addr, d.m, d.ldc, (uint64_t)d.n * l.ces},
                {d.bias_addr, 1, 0, (uint64_t)d.n * 4u}};
    if (d.conv) {   /* the NHWC input in place of A */
        hbm[0].rows = 1;
        hbm[0].ld = 0;
        hbm[0].row_bytes = (uint64_t)(d.batch - 1u) * d.img_stride + (uint64_t)(d.in_h - 1u) * d.row_stride +
                           (uint64_t)(d.in_w - 1u) * d.lda + (uint64_t)d.cg * l.es;
    }
    for (int i = 0; i < (d.bias ? 4 : 3); i++)
        if (past_hbm(m, hbm[i].addr, hbm[i].rows, hbm[i].ld, hbm[i].row_bytes)) {
            *eaddr = hbm[i].addr;
            return TSL_ERR_HBM_RANGE;
        }
    /* 3. alignment, 4. regions */
    *eaddr = d.vmem_addr % (4u * n) ? d.vmem_addr : d.acc_addr;
    if (d.vmem_addr % (4u * n) || d.acc_addr % (4u * n))
        return TSL_ERR_MISALIGNED;
    *eaddr = d.vmem_addr;
    if (l.vend > cfg->vmem_bytes)
        return TSL_ERR_LOCAL_RANGE;
    *eaddr = d.acc_addr;
    if (d.acc_addr < TSL_LOCAL_ACC_BASE || l.acc_end - TSL_LOCAL_ACC_BASE > cfg->acc_bytes)
        return TSL_ERR_LOCAL_RANGE;
    *eaddr = 0;
    return TSL_ERR_NONE;
}

/* ------------------------------------------------------------------------------- expansion */

typedef struct {
    tslm_seq_emit_t emit;
    void *ctx;
    uint32_t count;
    uint32_t dma_wait;   /* tokens the next DMA instruction also waits for (the padding's) */
} out_t;

static void put(out_t *o, tsl_insn_t i, uint32_t wait, uint32_t signal)
{
    if (tsl_insn_hdr_decode(i.w).unit == TSL_UNIT_DMA) {
        wait |= o->dma_wait;
        o->dma_wait = 0;
    }
    tsl_insn_wait(&i, wait);
    tsl_insn_signal(&i, signal);
    o->emit(o->ctx, &i);
    o->count++;
}

/* A LOAD or STORE whose rows follow each other in HBM and in the local memory (both strides equal
 * to the row) goes out as one row, when it fits ROW_BYTES: one long burst instead of many. */
static tsl_insn_dma_xfer_t merged(tsl_insn_dma_xfer_t x)
{
    if (x.hbm_stride == x.row_bytes && x.local_stride == x.row_bytes && x.rows * x.row_bytes <= TSL_INSN_DMA_XFER_ROW_BYTES_MASK) {
        x.row_bytes *= x.rows;
        x.rows = 1;
    }
    return x;
}

/* Step s = (i, p, c) and what it loads. */
typedef struct {
    uint32_t i, p, c, m0, mr, k0, kw, kv, nb, s, t;
    int load_a, load_b;
} step_t;

static void derive(const tsl_seq_t *d, const layout_t *l, step_t *x)
{
    x->m0 = x->i * d->mc;
    x->mr = min_u32(d->mc, d->m - x->m0);
    x->k0 = x->c * d->kc;
    x->kw = min_u32(d->kc, l->kp - x->k0);
    x->kv = min_u32(x->kw, d->k - x->k0);
    x->nb = min_u32(d->nbw, l->ncb - x->p * d->nbw);
    /* A(i, c) and B(p, c) are loaded when they differ from the previous step's */
    x->load_a = x->s == 0 || l->nch > 1u || (x->p == 0 && x->c == 0);
    x->load_b = x->s == 0 || l->nch > 1u || l->npan > 1u;
}

/* The step after x, or 0 when x is the last one. */
static int next_step(const tsl_seq_t *d, const layout_t *l, const step_t *x, step_t *y)
{
    *y = *x;
    y->s++;
    if (x->c + 1u == l->nch)
        y->t++;
    if (++y->c == l->nch) {
        y->c = 0;
        if (++y->p == l->npan) {
            y->p = 0;
            if (++y->i * d->mc >= d->m)
                return 0;
        }
    }
    derive(d, l, y);
    return 1;
}

/* CONV: the A tile of step x into `slot`, the implicit im2col (section 8). The slot is filled with
 * the padding byte first when it is new or the tile reaches into the padding above or below; a
 * DMA SYNC takes the waits; then per output row, tap row and tap column, one LOAD of the output
 * columns whose tap is inside the input; a SYNC signals MXU when no B load follows. */
static void conv_a(out_t *o, const tsl_seq_t *d, const layout_t *l, const step_t *x, uint32_t slot, uint32_t wait)
{
    uint32_t es = l->es, rows = d->batch * d->out_h, g0 = x->i * d->tile_rows, oh0 = g0 % d->out_h;
    uint32_t tr = min_u32(d->tile_rows, rows - g0), pattern = d->a_zp * 0x01010101u;
    int vpad = oh0 + tr > d->out_h ? d->vpad_top > 0 || d->vpad_end < d->out_h
                                   : oh0 < d->vpad_top || oh0 + tr > d->vpad_end;
    if (x->i < 2u || vpad) {
        for (uint32_t st = 0; st < (pattern ? 2u : 1u); st++)
            put(o, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                    .op = st ? TSL_VPU_OP_ADD : TSL_VPU_OP_MUL, .dst_dtype = TSL_DTYPE_INT32,
                    .src1_dtype = TSL_DTYPE_INT32, .src2_dtype = TSL_DTYPE_INT32, .src2_mode = TSL_SRC2_IMM,
                    .dst_addr = slot, .src1_addr = slot, .src2_addr = st ? pattern : 0u, .rows = (uint32_t)l->fill_vecs}),
                0, st + 1u == (pattern ? 2u : 1u) ? TOK_DMA : 0u);
        wait |= TOK_VPU;
    }
    put(o, tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_DMA}), wait, 0);
    for (uint32_t q = 0; q < tr; q++) {
        uint32_t b = (g0 + q) / d->out_h, oh = (g0 + q) % d->out_h;
        for (uint32_t kh = 0; kh < d->kh; kh++) {
            int64_t ih = (int64_t)oh * d->stride_h - d->pad_t + (int64_t)kh * d->dil_h;
            if (ih < 0 || ih >= d->in_h)
                continue;   /* the tap row is in the padding above or below */
            for (uint32_t kw = 0; kw < d->kw; kw++) {
                /* output columns [lo, hi] whose tap column ow*SW + x0 is inside the input */
                int64_t x0 = (int64_t)kw * d->dil_w - d->pad_l, sw = d->stride_w;
                int64_t lo = x0 >= 0 ? 0 : (-x0 + sw - 1) / sw, hi = d->in_w - 1 - x0 >= 0 ? (d->in_w - 1 - x0) / sw : -1;
                if (hi > (int64_t)d->out_w - 1)
                    hi = (int64_t)d->out_w - 1;
                if (lo > hi)
                    continue;
                uint64_t hbm = d->a_addr + (uint64_t)b * d->img_stride + (uint64_t)ih * d->row_stride +
                               (uint64_t)(lo * sw + x0) * d->lda;
                put(o, tsl_insn_dma_xfer_encode(merged((tsl_insn_dma_xfer_t){
                        .op = TSL_DMA_OP_LOAD, .hbm_addr = (uint32_t)hbm,
                        .local_addr = slot + ((q * d->out_w + (uint32_t)lo) * d->kc + (kh * d->kw + kw) * d->cg) * es,
                        .rows = (uint32_t)(hi - lo + 1), .row_bytes = d->cg * es, .hbm_stride = d->stride_w * d->lda,
                        .local_stride = d->kc * es})),
                    0, 0);
            }
        }
    }
    if (!x->load_b)
        put(o, tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_DMA}), 0, TOK_MXU);
}

/* The loads of step x; `wait` is TOK_MXU when the first one waits for step s - 2. With POST ADD, the
 * first step of a tile also loads the tile's old C into its OUT slot, for the VPU. */
static void loads(out_t *o, const tsl_seq_t *d, const layout_t *l, const step_t *x, uint32_t slot[2], uint32_t wait)
{
    uint32_t es = l->es, n = l->n, ces = l->ces, n0 = x->p * d->nbw * n;
    if (x->load_a && d->conv) {
        slot[0] ^= 1u;
        conv_a(o, d, l, x, (uint32_t)l->va[slot[0]], wait);
        wait = 0;
    } else if (x->load_a) {
        slot[0] ^= 1u;
        put(o, tsl_insn_dma_xfer_encode(merged((tsl_insn_dma_xfer_t){
                .op = TSL_DMA_OP_LOAD, .hbm_addr = d->a_addr + x->m0 * d->lda + x->k0 * es,
                .local_addr = (uint32_t)l->va[slot[0]], .rows = x->mr, .row_bytes = x->kv * es,
                .hbm_stride = d->lda, .local_stride = x->kw * es})),
            wait, x->load_b ? 0u : TOK_MXU);
        wait = 0;
    }
    if (x->load_b) {
        slot[1] ^= 1u;
        put(o, tsl_insn_dma_xfer_encode(merged((tsl_insn_dma_xfer_t){
                .op = TSL_DMA_OP_LOAD, .hbm_addr = d->b_addr + x->k0 * d->ldb + n0 * es,
                .local_addr = (uint32_t)l->vb[slot[1]], .rows = x->kv,
                .row_bytes = min_u32(d->nbw * n, d->n - n0) * es, .hbm_stride = d->ldb,
                .local_stride = d->nbw * n * es})),
            wait, TOK_MXU);
    }
    if (tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, d->post) && x->c == 0)
        put(o, tsl_insn_dma_xfer_encode(merged((tsl_insn_dma_xfer_t){
                .op = TSL_DMA_OP_LOAD, .hbm_addr = d->c_addr + x->m0 * d->ldc + n0 * ces,
                .local_addr = (uint32_t)l->vo[x->t & 1u], .rows = x->mr,
                .row_bytes = min_u32(d->nbw * n, d->n - n0) * ces, .hbm_stride = d->ldc,
                .local_stride = d->nbw * n * ces})),
            0, TOK_VPU);
}

uint32_t tslm_seq_expand(const tslm_cfg_t *cfg, const uint32_t *w, tslm_seq_emit_t emit, void *ctx)
{
    tsl_seq_t d = tsl_seq_decode(w);
    layout_t l = layout_of(cfg, &d);
    out_t o = {emit, ctx, 0, 0};
    uint32_t n = l.n, es = l.es, ces = l.ces, acc_dt = d.dtype == TSL_DTYPE_BF16 ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
    /* 1. zero the K padding of every A and B slot */
    if (d.k % n) {
        uint32_t addr = (uint32_t)l.va[0], vecs = (uint32_t)((l.vo[0] - l.va[0]) / n);
        while (vecs) {
            uint32_t r = min_u32(vecs, TSL_INSN_VPU_VEC_ROWS_MASK);
            vecs -= r;
            put(&o, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                    .op = TSL_VPU_OP_MUL, .dst_dtype = TSL_DTYPE_INT8, .src1_dtype = TSL_DTYPE_INT8,
                    .src2_dtype = TSL_DTYPE_INT32, .src2_mode = TSL_SRC2_IMM, .dst_addr = addr, .src1_addr = addr,
                    .rows = r}),
                0, vecs || d.conv ? 0u : TOK_DMA);
            addr += r * n;
        }
        o.dma_wait = d.conv ? 0u : TOK_VPU;   /* CONV: the fill of the first A slot follows, and signals */
    }
    /* 2. the bias row, once */
    if (d.bias)
        put(&o, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                .op = TSL_DMA_OP_LOAD, .hbm_addr = d.bias_addr, .local_addr = (uint32_t)l.vbias, .rows = 1,
                .row_bytes = d.n * 4u}),
            0, 0);
    /* 3. the steps */
    step_t st[2], *x = &st[0], *y = &st[1], *tmp;
    memset(x, 0, sizeof *x);
    derive(&d, &l, x);
    /* A 32-bit C with no epilogue is stored straight from its ACC tile: no EPI, and the STORE
     * waits for the MXU in place of the next loads but one. */
    uint32_t plain = ces == 4u && !d.bias && !d.relu && !d.fscale && !d.conv && !d.post,
             tok_epi = plain ? 0u : TOK_VPU, post = d.post != 0u, old_c = tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, d.post);
    uint32_t slot[2] = {1, 1}, wb = 0, epis = 0, prev_last = 0, last_chunk = 0;
    loads(&o, &d, &l, x, slot, 0);
    uint32_t a_slot = slot[0], b_slot = slot[1];
    for (int more = 1; more; tmp = x, x = y, y = tmp) {
        more = next_step(&d, &l, x, y);
        prev_last = last_chunk;   /* step s - 1 ended a tile */
        uint32_t wait_prev = x->s >= 1u && !(plain && prev_last) ? TOK_MXU : 0u;   /* step s - 1 */
        if (more)
            loads(&o, &d, &l, y, slot, wait_prev);
        else if (plain && wait_prev)   /* the last STORE must not take step s - 1's token */
            put(&o, tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_DMA}), TOK_MXU, 0);
        uint32_t ts = x->t & 1u;
        last_chunk = x->c + 1u == l.nch;
        for (uint32_t j = 0; j < x->nb; j++) {
            uint32_t kb = x->kw / n;
            put(&o, tsl_insn_mxu_matmulk_encode((tsl_insn_mxu_matmulk_t){
                    .dtype = d.dtype, .wbuf = wb, .accumulate = x->c > 0, .act_addr = (uint32_t)l.va[a_slot],
                    .act_stride = x->kw * es, .acc_addr = (uint32_t)l.acc[ts] + j * 4u * n, .acc_stride = d.nbw * 4u * n,
                    .rows = x->mr, .kblocks = kb, .w_addr = (uint32_t)l.vb[b_slot] + j * n * es,
                    .w_stride = d.nbw * n * es}),
                j == 0 ? TOK_DMA | (x->c == 0 && x->t >= 2u ? tok_epi : 0u) : 0u,
                j + 1u == x->nb ? TOK_DMA | (last_chunk ? tok_epi : 0u) : 0u);
            wb ^= kb & 1u;
        }
        if (last_chunk) {
            /* a 32-bit C stays in its ACC tile (EPI in place), a narrow one goes to the OUT slot;
             * POST: the EPI's FP32 stays in the ACC tile, and the POST op (GELU, ...; an ADD of the old
             * C loaded into the OUT slot) from there ends in the OUT slot and takes the EPI's signals */
            uint32_t n0 = x->p * d.nbw * n, acc = (uint32_t)l.acc[ts];
            uint32_t out = ces == 4u && !post ? acc : (uint32_t)l.vo[ts];
            if (!plain)
                put(&o, tsl_insn_vpu_epi_encode((tsl_insn_vpu_epi_t){
                        .dst_dtype = post ? TSL_DTYPE_FP32 : d.c_dtype, .src1_dtype = acc_dt, .bias = d.bias,
                        .relu = d.relu, .fscale = d.fscale, .dst_addr = post ? acc : out, .src1_addr = acc,
                        .src2_addr = d.bias ? (uint32_t)l.vbias + n0 * 4u : 0u, .rows = x->mr * d.nbw, .scale = d.scale,
                        .shift = d.shift, .bvecs = d.bias ? d.nbw : 0u, .zero_point = d.zero_point}),
                    TOK_MXU | (x->t >= 2u ? TOK_DMA : 0u), post ? 0u : TOK_DMA | TOK_MXU);
            if (post)
                put(&o, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                        .op = tsl_gemm_post_op(d.post), .act = tsl_gemm_post_act(d.post),
                        .dst_dtype = d.c_dtype, .src1_dtype = TSL_DTYPE_FP32,
                        .src2_dtype = old_c ? d.c_dtype : 0u, .dst_addr = out, .src1_addr = acc,
                        .src2_addr = old_c ? out : 0u, .rows = x->mr * d.nbw}),
                    old_c ? TOK_DMA : 0u, TOK_DMA | TOK_MXU);
            put(&o, tsl_insn_dma_xfer_encode(merged((tsl_insn_dma_xfer_t){
                    .op = TSL_DMA_OP_STORE, .hbm_addr = d.c_addr + x->m0 * d.ldc + n0 * ces, .local_addr = out,
                    .rows = x->mr, .row_bytes = min_u32(d.nbw * n, d.n - n0) * ces, .hbm_stride = d.ldc,
                    .local_stride = d.nbw * n * ces})),
                plain ? TOK_MXU : TOK_VPU, tok_epi);
            epis += !plain;
        }
        a_slot = slot[0];
        b_slot = slot[1];
        if (!more) {
            /* 4. consume the tokens left over (none when plain) */
            for (uint32_t k = 0; k < (plain ? 0u : min_u32(x->s + 1u, 2u)); k++)
                put(&o, tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_DMA}), TOK_MXU, 0);
            for (uint32_t k = 0; k < min_u32(epis, 2u); k++)
                put(&o, tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_MXU}), TOK_VPU, 0);
            for (uint32_t k = 0; k < min_u32(epis, 2u); k++)
                put(&o, tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_VPU}), TOK_DMA, 0);
        }
    }
    return o.count;
}
