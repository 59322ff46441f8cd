/* Tessel command processor: GEMM, C = epilogue(A x B). README.md ("Tiling") has the plan.
 *
 * Output tiles are MC rows x N columns (one ACC slot each). A tile's K range is one chunk (band
 * mode) or split into chunks of KC columns (chunked mode, when a band of whole-K rows does not fit
 * VMEM). A "step" is one (tile, chunk); its MXU work is one LOADW and one MATMUL per K-block
 * (MATMULK instructions do them), overwriting ACC on the first K-block and accumulating after
 * (K-blocks ascending, as isa.md defines the GEMM's fp32 order). After a tile's last step the
 * VPU runs the epilogue in ACC (SCALE, BIAS, RELU or GELU) and converts into VMEM (INT8 by
 * REQUANT, BF16 by MOV; with VPU_OP ADD, by the ADD of the old C, loaded there), and the DMA stores
 * the valid rows and columns.
 *
 * Band mode: the A band (MC x Kp) has one VMEM buffer in up to 4 pieces along K. It stays resident
 * across the band's column blocks; during the band's last step each piece of the next band is
 * loaded as soon as the MATMULs have finished reading it. B comes in panels of Kp rows x NBW column
 * blocks (wide rows make long DMA bursts), two slots, each loaded a whole panel ahead. Chunked
 * mode: A chunks (MC x KC) and B panels (KC x N) both have two slots, loaded one step ahead.
 * The MXU work of a step is one MATMULK per A piece it must wait for or release (usually one per
 * step); the scheduler (tsl_cp_sched.c) adds the tokens.
 * Padding: K is padded with zeros to a multiple of N (A's columns and B's rows), and a partial
 * column block's B columns and bias lanes are zeroed too, by VPU MULs by 0 in VMEM. */
#include "tsl_cp_int.h"

#define TOK_DMA TSL_TOK(TSL_UNIT_DMA)
#define TOK_MXU TSL_TOK(TSL_UNIT_MXU)
#define TOK_VPU TSL_TOK(TSL_UNIT_VPU)
#define PIECES 4u           /* A band pieces, at most */
#define PIECE_BLOCKS 4u     /* K-blocks per piece, at least */
#define PANEL_ROW_MAX 512u  /* B panels are widened up to this many bytes per row */

static uint64_t al(uint64_t v) { return (v + TSL_CP_ALIGN - 1u) / TSL_CP_ALIGN * TSL_CP_ALIGN; }

typedef struct {
    const tsl_cmd_t *c;
    uint32_t n, es, ces, narrow, epi_vpu, fl, band;
    uint32_t mc, kc, kp, nchunks, mb, ncb, nbw, npan, steps, pkb, npieces;
    uint32_t va[2], vb[2], vbias[2], vout[2], acc[2];
    uint32_t a_stride[2], a_kv[2]; /* chunked A slot: layout whose K padding is known to be zero */
    uint32_t wb;
    tsl_cp_buf_t A[2], AP[PIECES], B[2], BI[2], ACC[2], OUT[2];
} gemm_t;

/* Rows of A that fit VMEM next to the other buffers, with `abufs` A slots of kc columns and B
 * panels of nbw column blocks (each buffer may lose up to TSL_CP_ALIGN to alignment). */
static uint32_t fit_rows(const tsl_cp_t *cp, const gemm_t *g, uint32_t kc, uint32_t abufs, uint32_t nbw)
{
    uint32_t n = g->n;
    uint64_t fixed = 2u * al((uint64_t)kc * nbw * n * g->es) + 2u * al(4u * n) + (abufs + 2u) * TSL_CP_ALIGN;
    uint64_t per_row = (uint64_t)abufs * kc * g->es + (g->narrow ? 2u * n * g->ces : 0u);
    if (fixed >= cp->vmem_bytes)
        return 0;
    uint64_t rows = (cp->vmem_bytes - fixed) / per_row;
    return rows < TSL_CP_MAX_ROWS ? (uint32_t)rows : TSL_CP_MAX_ROWS;
}

/* Chunked mode: the largest KC (a multiple of N, at most kcap) for bands of mc rows, or 0. */
static uint32_t max_kc(const tsl_cp_t *cp, const gemm_t *g, uint32_t mc, uint32_t kcap)
{
    uint32_t n = g->n;
    uint64_t fixed = 2u * (g->narrow ? al(mc * n * g->ces) : 0u) + 2u * al(4u * n) + 4u * TSL_CP_ALIGN;
    if (fixed >= cp->vmem_bytes)
        return 0;
    uint64_t kc = (cp->vmem_bytes - fixed) / (2u * g->es * (mc + n)) / n * n;
    return kc < kcap ? (uint32_t)kc : kcap;
}

static void plan(const tsl_cp_t *cp, gemm_t *g)
{
    const tsl_cmd_t *c = g->c;
    uint32_t n = g->n;
    g->kp = tsl_cp_roundup(c->k, n);
    g->ncb = tsl_cp_ceil(c->n, n);
    g->nbw = 1;
    uint32_t mmax = tsl_cp_min(tsl_cp_min(c->m, cp->acc_bytes / (8u * n)), TSL_CP_MAX_ROWS);
    uint32_t mc = (uint64_t)g->kp * g->es <= TSL_CP_MAX_ROW_BYTES ? tsl_cp_min(fit_rows(cp, g, g->kp, 1, 1), mmax) : 0;
    g->band = mc >= tsl_cp_min(c->m, 4u * n);
    if (g->band) {
        g->kc = g->kp;
    } else {
        uint32_t kcap = tsl_cp_min(g->kp, TSL_CP_MAX_ROW_BYTES / (g->es * n) * n);
        mc = mmax;
        uint32_t kc = max_kc(cp, g, mc, kcap);
        while (kc < kcap && mc > 4u * n) { /* prefer bands of >= 4N rows over splitting K */
            mc = (mc + 1u) / 2u;
            kc = max_kc(cp, g, mc, kcap);
        }
        while (kc < n && mc > 1u) {
            mc = (mc + 1u) / 2u;
            kc = max_kc(cp, g, mc, kcap);
        }
        g->kc = kc;
    }
    g->mb = tsl_cp_ceil(c->m, mc);
    g->mc = tsl_cp_ceil(c->m, g->mb); /* equal bands: no short last band */
    while (g->band && g->nbw < g->ncb && 2u * g->nbw * n * g->es <= PANEL_ROW_MAX &&
           fit_rows(cp, g, g->kp, 1, tsl_cp_min(2u * g->nbw, g->ncb)) >= g->mc)
        g->nbw = tsl_cp_min(2u * g->nbw, g->ncb);
    g->nchunks = tsl_cp_ceil(g->kp, g->kc);
    g->npan = tsl_cp_ceil(g->ncb, g->nbw);
    g->steps = g->mb * g->ncb * g->nchunks;
    /* A pieces (band mode, several bands): at least PIECE_BLOCKS K-blocks each */
    uint32_t kb = g->kp / n;
    g->pkb = g->band && g->mb > 1u ? tsl_cp_ceil(kb, tsl_cp_min(PIECES, tsl_cp_ceil(kb, PIECE_BLOCKS))) : kb;
    g->npieces = tsl_cp_ceil(kb, g->pkb);
    uint32_t p = 0;
    for (uint32_t s = 0; s < 2; s++) {
        g->va[s] = p;
        p += s == 0 || !g->band ? (uint32_t)al(g->mc * g->kc * g->es) : 0u;
    }
    for (uint32_t s = 0; s < 2; s++) {
        g->vb[s] = p;
        p += (uint32_t)al(g->kc * g->nbw * n * g->es);
    }
    for (uint32_t s = 0; s < 2; s++) {
        g->vbias[s] = p;
        p += (uint32_t)al(4u * n);
    }
    for (uint32_t s = 0; s < 2; s++) {
        g->vout[s] = p;
        p += g->narrow ? (uint32_t)al(g->mc * n * g->ces) : 0u;
        g->acc[s] = TSL_LOCAL_ACC_BASE + s * g->mc * 4u * n;
        g->a_stride[s] = g->a_kv[s] = 0;
        g->A[s] = g->B[s] = g->BI[s] = g->ACC[s] = g->OUT[s] = (tsl_cp_buf_t){0, 0, {0, 0, 0}};
    }
    for (uint32_t q = 0; q < PIECES; q++)
        g->AP[q] = g->A[0];
}

typedef struct {
    uint32_t p, nb, ch, m0, mr, k0, kw, kv, n0, nv, pan, pc, as, ts;
} step_t;

/* Fill the fields that follow from (p, nb, ch). */
static void derive(const gemm_t *g, step_t *x)
{
    const tsl_cmd_t *c = g->c;
    x->m0 = x->p * g->mc;
    x->mr = tsl_cp_min(g->mc, c->m - x->m0);
    x->k0 = x->ch * g->kc;
    x->kw = tsl_cp_min(g->kc, g->kp - x->k0);
    x->kv = tsl_cp_min(x->kw, c->k - x->k0);
    x->n0 = x->nb * g->n;
    x->nv = tsl_cp_min(g->n, c->n - x->n0);
}

static step_t decode(const gemm_t *g, uint32_t s)
{
    step_t x;
    x.ch = s % g->nchunks;
    uint32_t t = s / g->nchunks; /* tile */
    x.nb = t % g->ncb;
    x.p = t / g->ncb;
    x.pan = (x.p * g->npan + x.nb / g->nbw) * g->nchunks + x.ch; /* B panel, counted over the command */
    x.pc = x.nb % g->nbw;                                         /* column block within the panel */
    x.as = s & 1u;
    x.ts = t & 1u;
    derive(g, &x);
    return x;
}

/* x = decode(g, s) becomes decode(g, s + 1), without the divisions (slow on the control core). */
static void advance(const gemm_t *g, step_t *x)
{
    x->as ^= 1u;
    if (++x->ch == g->nchunks) {
        x->ch = 0;
        x->ts ^= 1u;
        if (++x->pc == g->nbw)
            x->pc = 0;
        if (++x->nb == g->ncb) {
            x->nb = 0;
            x->pc = 0;
            x->p++;
        }
    }
    x->pan += g->nchunks > 1u || x->pc == 0; /* chunked mode has one-block panels */
    derive(g, x);
}

/* The B panel of step s (kw rows x NBW column blocks) into slot pan & 1. */
static void load_panel(tsl_cp_t *cp, gemm_t *g, const step_t *x)
{
    const tsl_cmd_t *c = g->c;
    uint32_t n = g->n, es = g->es, row = g->nbw * n * es, bs = x->pan & 1u;
    uint32_t n0 = x->n0 - x->pc * n, nv = tsl_cp_min(g->nbw * n, c->n - n0);
    if (nv < g->nbw * n)
        tsl_cp_zero(cp, &g->B[bs], g->vb[bs], x->kw * row, TOK_DMA);
    else if (x->kv < x->kw)
        tsl_cp_zero(cp, &g->B[bs], g->vb[bs] + x->kv * row, (x->kw - x->kv) * row, TOK_DMA);
    tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .hbm_addr = c->b_addr + x->k0 * c->ldb + n0 * es, .local_addr = g->vb[bs],
            .rows = x->kv, .row_bytes = nv * es, .hbm_stride = c->ldb, .local_stride = row}),
        NULL, NULL, &g->B[bs], TOK_MXU);
}

/* Band mode: piece q (K-blocks [q*PKB, (q+1)*PKB)) of band p. */
static void load_piece(tsl_cp_t *cp, gemm_t *g, uint32_t p, uint32_t q)
{
    const tsl_cmd_t *c = g->c;
    uint32_t es = g->es, m0 = p * g->mc, k0 = q * g->pkb * g->n;
    uint32_t kv = tsl_cp_min(g->pkb * g->n, c->k - k0);
    tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .hbm_addr = c->a_addr + m0 * c->lda + k0 * es, .local_addr = g->va[0] + k0 * es,
            .rows = tsl_cp_min(g->mc, c->m - m0), .row_bytes = kv * es, .hbm_stride = c->lda,
            .local_stride = g->kp * es}), NULL, NULL, &g->AP[q], TOK_MXU);
}

/* The loads step s needs besides its B panel: its A chunk (chunked mode) and its bias slice. */
static void load_step(tsl_cp_t *cp, gemm_t *g, const step_t *x)
{
    const tsl_cmd_t *c = g->c;
    uint32_t n = g->n, es = g->es;
    if (!g->band) {
        uint32_t stride = x->kw * es;
        if (x->kv < x->kw && !(g->a_stride[x->as] == stride && g->a_kv[x->as] == x->kv))
            tsl_cp_zero(cp, &g->A[x->as], g->va[x->as], g->mc * stride, TOK_DMA);
        g->a_stride[x->as] = stride;
        g->a_kv[x->as] = x->kv;
        tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                .op = TSL_DMA_OP_LOAD, .hbm_addr = c->a_addr + x->m0 * c->lda + x->k0 * es, .local_addr = g->va[x->as],
                .rows = x->mr, .row_bytes = x->kv * es, .hbm_stride = c->lda, .local_stride = stride}),
            NULL, NULL, &g->A[x->as], TOK_MXU);
    }
    if (x->ch == 0 && (c->flags & TSL_CP_FLAG(BIAS))) {
        if (x->nv < n)
            tsl_cp_zero(cp, &g->BI[x->ts], g->vbias[x->ts], 4u * n, TOK_DMA);
        tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                .op = TSL_DMA_OP_LOAD, .hbm_addr = c->bias_addr + x->n0 * 4u, .local_addr = g->vbias[x->ts], .rows = 1,
                .row_bytes = x->nv * 4u}), NULL,
                     NULL, &g->BI[x->ts], TOK_VPU);
    }
}

static void mxu_step(tsl_cp_t *cp, gemm_t *g, const step_t *x)
{
    const tsl_cmd_t *c = g->c;
    uint32_t n = g->n, es = g->es, blocks = x->kw / n, bs = x->pan & 1u, row = g->nbw * n * es;
    uint32_t last_chunk = x->ch == g->nchunks - 1u;
    /* band mode, the band's last step: refill each piece with the next band once it is read */
    uint32_t refill = g->band && x->nb == g->ncb - 1u && x->p + 1u < g->mb;
    /* A's pieces matter where they are loaded: their RAW waits in a band's first step, their last
     * reads before a refill; elsewhere a step is one MATMULK (KBLOCKS fits 12 bits) */
    uint32_t pkb = g->band && (x->nb == 0 || refill) ? g->pkb : blocks;
    for (uint32_t j = 0, q = 0; j < blocks; q++) {
        uint32_t piece_end = tsl_cp_min(j + pkb, blocks);
        while (j < piece_end) {
            uint32_t kb = tsl_cp_min(piece_end - j, TSL_INSN_MXU_MATMULK_KBLOCKS_MASK), hint = 0;
            uint32_t ends_piece = j + kb == piece_end;
            if (j + kb == blocks)
                hint = TOK_DMA | ((last_chunk && g->epi_vpu) ? TOK_VPU : 0u);
            if (refill && ends_piece)
                hint |= TOK_DMA;
            tsl_insn_t mm = tsl_insn_mxu_matmulk_encode((tsl_insn_mxu_matmulk_t){
                    .dtype = c->a_dtype, .wbuf = g->wb, .accumulate = (x->ch | j) != 0,
                    .act_addr = g->va[g->band ? 0 : x->as] + j * n * es, .act_stride = x->kw * es,
                    .acc_addr = g->acc[x->ts], .acc_stride = 4u * n, .rows = x->mr, .kblocks = kb,
                    .w_addr = g->vb[bs] + x->pc * n * es + j * n * row, .w_stride = row});
            tsl_cp_issue(cp, mm, &g->B[bs], g->band ? &g->AP[q] : &g->A[x->as], &g->ACC[x->ts], hint);
            if (refill && ends_piece)
                load_piece(cp, g, x->p + 1u, q);
            g->wb ^= kb & 1u;
            j += kb;
        }
    }
}

/* The LOADs or STOREs of tile t between HBM and `local` (rows `pitch` bytes apart, `bytes` of each
 * moved), writing or reading `buf`, each signalling `hint`; contiguous rows go as one long row. */
static void tile_xfer(tsl_cp_t *cp, uint32_t op, const tsl_cp_tile_t *t, uint32_t local, tsl_cp_buf_t *buf,
                      uint32_t pitch, uint32_t bytes, uint32_t hint)
{
    uint32_t parts = t->parts ? t->parts : 1u, rows = t->parts ? t->part_rows : t->rows;
    for (uint32_t k = 0; k < parts; k++) {
        tsl_insn_dma_xfer_t x = {.op = op, .hbm_addr = t->hbm + k * t->part_step, .local_addr = local + k * rows * pitch,
                                 .rows = rows, .row_bytes = bytes, .hbm_stride = t->ld, .local_stride = pitch};
        if (t->ld == bytes && pitch == bytes && (uint64_t)rows * bytes <= TSL_CP_MAX_ROW_BYTES) {
            x.row_bytes = rows * bytes;
            x.rows = 1;
        }
        int load = op == TSL_DMA_OP_LOAD;
        tsl_cp_issue(cp, tsl_insn_dma_xfer_encode(x), load ? NULL : buf, NULL, load ? buf : NULL, hint);
    }
}

void tsl_cp_epilogue_store(tsl_cp_t *cp, const tsl_cmd_t *c, const tsl_cp_tile_t *t)
{
    uint32_t n = cp->n, acc = t->acc, fl = c->a_dtype == TSL_DTYPE_BF16, adt = fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
    uint32_t ces = tsl_dtype_bytes(c->c_dtype), add = tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, c->vpu_op);
    tsl_insn_t ops[5];
    tsl_cp_buf_t *rd[5] = {NULL, NULL, NULL, NULL, NULL}, *wr[5];
    uint32_t k = 0;
    if (add)   /* a last step on the old C (C = epilogue + C), loaded into the output tile */
        tile_xfer(cp, TSL_DMA_OP_LOAD, t, t->out, t->outb, n * ces, t->cols * ces, TOK_VPU);
    if (c->flags & TSL_CP_FLAG(SCALE)) {
        wr[k] = t->accb;
        ops[k++] = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_MUL, .dst_dtype = adt, .src1_dtype = adt, .src2_dtype = adt,
                .src2_mode = TSL_SRC2_IMM, .dst_addr = acc, .src1_addr = acc, .src2_addr = c->scale, .rows = t->rows});
    }
    if (c->flags & TSL_CP_FLAG(BIAS)) {
        rd[k] = t->biasb;
        wr[k] = t->accb;
        ops[k++] = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_ADD, .dst_dtype = adt, .src1_dtype = adt, .src2_dtype = adt,
                .src2_mode = TSL_SRC2_BCAST, .dst_addr = acc, .src1_addr = acc, .src2_addr = t->bias,
                .rows = t->rows});
    }
    /* ReLU, then a last step of one operand (GELU, SiLU), each in place */
    const uint32_t unary[2] = {(c->flags & TSL_CP_FLAG(RELU)) ? TSL_VPU_OP_RELU : 0u, add ? 0u : tsl_gemm_post_op(c->vpu_op)};
    for (uint32_t i = 0; i < 2u; i++) {
        if (!unary[i])
            continue;
        wr[k] = t->accb;
        ops[k++] = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = unary[i], .act = i ? tsl_gemm_post_act(c->vpu_op) : 0u, .dst_dtype = adt, .src1_dtype = adt,
                .dst_addr = acc, .src1_addr = acc, .rows = t->rows});
    }
    if (add) {   /* a last step on the old C, from the output tile into it */
        rd[k] = t->accb;
        wr[k] = t->outb;
        ops[k++] = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = tsl_gemm_post_op(c->vpu_op), .dst_dtype = c->c_dtype, .src1_dtype = TSL_DTYPE_FP32, .src2_dtype = c->c_dtype,
                .dst_addr = t->out, .src1_addr = acc, .src2_addr = t->out, .rows = t->rows});
    } else if (c->c_dtype == TSL_DTYPE_INT8) {
        rd[k] = t->accb;
        wr[k] = t->outb;
        ops[k++] = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_REQUANT, .dst_dtype = TSL_DTYPE_INT8, .src1_dtype = TSL_DTYPE_INT32,
                .dst_addr = t->out, .src1_addr = acc, .rows = t->rows, .scale = c->scale,
                .shift = c->shift, .zero_point = c->zero_point});
    } else if (c->c_dtype == TSL_DTYPE_BF16) {
        rd[k] = t->accb;
        wr[k] = t->outb;
        ops[k++] = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_MOV, .dst_dtype = TSL_DTYPE_BF16, .src1_dtype = TSL_DTYPE_FP32,
                .dst_addr = t->out, .src1_addr = acc, .rows = t->rows});
    }
    for (uint32_t i = 0; i < k; i++)
        tsl_cp_issue(cp, ops[i], rd[i], NULL, wr[i], i == k - 1u ? (TOK_DMA | TOK_MXU) : 0u);
    if (ces < 4u || add)
        tsl_cp_store(cp, t, t->out, t->outb, n * ces, t->cols * ces, TOK_VPU);
    else
        tsl_cp_store(cp, t, acc, t->accb, 4u * n, t->cols * 4u, TOK_MXU);
}

void tsl_cp_store(tsl_cp_t *cp, const tsl_cp_tile_t *t, uint32_t src, tsl_cp_buf_t *srcb, uint32_t pitch,
                  uint32_t bytes, uint32_t hint)
{
    tile_xfer(cp, TSL_DMA_OP_STORE, t, src, srcb, pitch, bytes, hint);
}

static void epilogue_store(tsl_cp_t *cp, gemm_t *g, const step_t *x)
{
    const tsl_cmd_t *c = g->c;
    tsl_cp_tile_t t = {.rows = x->mr, .cols = x->nv, .acc = g->acc[x->ts], .accb = &g->ACC[x->ts],
                       .bias = g->vbias[x->ts], .biasb = &g->BI[x->ts], .out = g->vout[x->ts], .outb = &g->OUT[x->ts],
                       .hbm = c->c_addr + x->m0 * c->ldc + x->n0 * g->ces, .ld = c->ldc};
    tsl_cp_epilogue_store(cp, c, &t);
}

void tsl_cp_exec_gemm(tsl_cp_t *cp, const tsl_cmd_t *c)
{
    if (tsl_cp_seq_gemm(cp, c))
        return;
    gemm_t g;
    g.c = c;
    g.n = cp->n;
    g.es = tsl_dtype_bytes(c->a_dtype);
    g.ces = tsl_dtype_bytes(c->c_dtype);
    g.fl = c->a_dtype == TSL_DTYPE_BF16;
    g.narrow = g.ces < 4u || tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, c->vpu_op);   /* C goes through an output tile */
    g.epi_vpu = g.narrow || c->vpu_op || (c->flags & (TSL_CP_FLAG(SCALE) | TSL_CP_FLAG(BIAS) | TSL_CP_FLAG(RELU)));
    g.wb = 0;
    plan(cp, &g);
    step_t st[2], *x = &st[0], *next = &st[1], *tmp;
    *x = decode(&g, 0);
    load_panel(cp, &g, x);
    if (g.band) {
        if (c->k < g.kp) { /* zero A's K padding once: the pieces never write it */
            tsl_cp_zero(cp, &g.AP[0], g.va[0], g.mc * g.kp * g.es, TOK_DMA);
            for (uint32_t q = 1; q < g.npieces; q++)
                g.AP[q] = g.AP[0];
        }
        for (uint32_t q = 0; q < g.npieces; q++)
            load_piece(cp, &g, 0, q);
    }
    load_step(cp, &g, x);
    for (uint32_t s = 0; s < g.steps; s++, tmp = x, x = next, next = tmp) {
        /* at a panel's first step, the next panel (its first step is t) */
        uint32_t t = s + tsl_cp_min(g.nbw, g.ncb - x->nb);
        if (x->pc == 0 && t < g.steps) {
            step_t first = decode(&g, t);
            load_panel(cp, &g, &first);
        }
        if (s + 1u < g.steps) {
            *next = *x;
            advance(&g, next);
            load_step(cp, &g, next);
        }
        mxu_step(cp, &g, x);
        if (x->ch == g.nchunks - 1u) {
            epilogue_store(cp, &g, x);
        }
    }
}
