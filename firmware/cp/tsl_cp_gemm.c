/* Tessel command processor: GEMM, C = epilogue(A x B). See README.md for the tiling.
 *
 * Output tiles are MC rows x N columns (one ACC slot each); a tile's K range is split into chunks
 * of KC columns (usually one chunk: all of K). A "step" is one (tile, chunk): the DMA loads the A
 * band chunk (MC x KC; kept across the column blocks of a band when there is one chunk), the B
 * panel chunk (KC x N) and, on a tile's first step, the bias slice; the MXU runs one LOADW and one
 * MATMUL per K-block, alternating weight buffers, overwriting ACC on the first K-block and
 * accumulating after (K-blocks in ascending order, as isa.md defines the GEMM's fp32 order). After
 * a tile's last step the VPU runs the epilogue in ACC (SCALE, BIAS, RELU) and converts into VMEM
 * (INT8 by REQUANT, BF16 by MOV), and the DMA stores the valid rows and columns. Every buffer has
 * two slots and the loads of step s+1 are pushed before the MXU work of step s, so transfers,
 * matmuls and epilogues overlap; the scheduler (tsl_cp_sched.c) adds the tokens.
 * Padding: K is padded with zeros to a multiple of N (both A's columns and B's rows), and a
 * partial column block's B columns and bias lanes are zeroed too, by VPU MULs by 0 in VMEM. */
#include "tsl_cp_int.h"

#define TOK_DMA TSL_TOK(TSL_UNIT_DMA)
#define TOK_MXU TSL_TOK(TSL_UNIT_MXU)
#define TOK_VPU TSL_TOK(TSL_UNIT_VPU)

static uint32_t al(uint32_t v) { return tsl_cp_roundup(v, TSL_CP_ALIGN); }

typedef struct {
    const tsl_cp_cmd_t *c;
    uint32_t n, es, ces, narrow, epi_vpu, fl;
    uint32_t mc, kc, kp, nchunks, mb, ncb, steps;
    uint32_t va[2], vb[2], vbias[2], vout[2], acc[2];
    uint32_t a_stride[2], a_kv[2]; /* A slot: layout whose K padding is known to be zero */
    uint32_t wb;
    tsl_cp_buf_t A[2], B[2], BI[2], ACC[2], OUT[2];
} gemm_t;

/* Largest KC (a multiple of N, at most kcap) for bands of mc rows, or 0. */
static uint32_t max_kc(const tsl_cp_t *cp, const gemm_t *g, uint32_t mc, uint32_t kcap)
{
    uint32_t n = g->n;
    uint64_t fixed = 2ull * (g->narrow ? al(mc * n * g->ces) : 0u) + 2ull * al(4u * n) + 4ull * TSL_CP_ALIGN;
    if (fixed >= cp->vmem_bytes)
        return 0;
    uint64_t kc = (cp->vmem_bytes - fixed) / (2ull * g->es * (mc + n)) / n * n;
    return kc < kcap ? (uint32_t)kc : kcap;
}

static void plan(const tsl_cp_t *cp, gemm_t *g)
{
    const tsl_cp_cmd_t *c = g->c;
    uint32_t n = g->n;
    g->kp = tsl_cp_roundup(c->k, n);
    uint32_t kcap = tsl_cp_min(g->kp, TSL_CP_MAX_ROW_BYTES / (g->es * n) * n);
    uint32_t mc = tsl_cp_min(tsl_cp_min(c->m, cp->acc_bytes / (8u * n)), TSL_CP_MAX_ROWS);
    uint32_t kc = max_kc(cp, g, mc, kcap);
    while (kc < kcap && mc > 4u * n) {   /* prefer bands of >= 4N rows over splitting K */
        mc = (mc + 1u) / 2u;
        kc = max_kc(cp, g, mc, kcap);
    }
    while (kc < n && mc > 1u) {
        mc = (mc + 1u) / 2u;
        kc = max_kc(cp, g, mc, kcap);
    }
    g->mc = mc;
    g->kc = kc;
    g->nchunks = tsl_cp_ceil(g->kp, kc);
    g->mb = tsl_cp_ceil(c->m, mc);
    g->ncb = tsl_cp_ceil(c->n, n);
    g->steps = g->mb * g->ncb * g->nchunks;
    uint32_t p = 0;
    for (int s = 0; s < 2; s++) {
        g->va[s] = p;
        p += al(mc * kc * g->es);
    }
    for (int s = 0; s < 2; s++) {
        g->vb[s] = p;
        p += al(kc * n * g->es);
    }
    for (int s = 0; s < 2; s++) {
        g->vbias[s] = p;
        p += al(4u * n);
    }
    for (int s = 0; s < 2; s++) {
        g->vout[s] = p;
        p += g->narrow ? al(mc * n * g->ces) : 0u;
        g->acc[s] = TSL_LOCAL_ACC_BASE + (uint32_t)s * mc * 4u * n;
        g->a_stride[s] = g->a_kv[s] = 0;
        g->A[s] = g->B[s] = g->BI[s] = g->ACC[s] = g->OUT[s] = (tsl_cp_buf_t){0, 0, {0, 0, 0}};
    }
}

typedef struct {
    uint32_t t, p, nb, ch, m0, mr, k0, kw, kv, n0, nv, as, bs, ts;
} step_t;

static step_t decode(const gemm_t *g, uint32_t s)
{
    const tsl_cp_cmd_t *c = g->c;
    step_t x;
    x.ch = s % g->nchunks;
    x.t = s / g->nchunks;
    x.nb = x.t % g->ncb;
    x.p = x.t / g->ncb;
    x.m0 = x.p * g->mc;
    x.mr = tsl_cp_min(g->mc, c->m - x.m0);
    x.k0 = x.ch * g->kc;
    x.kw = tsl_cp_min(g->kc, g->kp - x.k0);
    x.kv = tsl_cp_min(x.kw, c->k - x.k0);
    x.n0 = x.nb * g->n;
    x.nv = tsl_cp_min(g->n, c->n - x.n0);
    x.as = (g->nchunks > 1 ? s : x.p) & 1u;
    x.bs = s & 1u;
    x.ts = x.t & 1u;
    return x;
}

static void load_step(tsl_cp_t *cp, gemm_t *g, uint32_t s)
{
    const tsl_cp_cmd_t *c = g->c;
    step_t x = decode(g, s);
    uint32_t n = g->n, es = g->es;
    if (g->nchunks > 1 || x.nb == 0) {
        uint32_t stride = x.kw * es;
        if (x.kv < x.kw && !(g->a_stride[x.as] == stride && g->a_kv[x.as] == x.kv))
            tsl_cp_zero(cp, &g->A[x.as], g->va[x.as], g->mc * stride, TOK_DMA);
        g->a_stride[x.as] = stride;
        g->a_kv[x.as] = x.kv;
        tsl_cp_issue(cp, tsl_insn_dma(TSL_DMA_OP_LOAD, c->a + x.m0 * c->lda + x.k0 * es, c->lda, g->va[x.as], stride,
                                      x.mr, x.kv * es), NULL, NULL, &g->A[x.as], 0);
    }
    if (x.nv < n)
        tsl_cp_zero(cp, &g->B[x.bs], g->vb[x.bs], x.kw * n * es, TOK_DMA);
    else if (x.kv < x.kw)
        tsl_cp_zero(cp, &g->B[x.bs], g->vb[x.bs] + x.kv * n * es, (x.kw - x.kv) * n * es, TOK_DMA);
    tsl_cp_issue(cp, tsl_insn_dma(TSL_DMA_OP_LOAD, c->b + x.k0 * c->ldb + x.n0 * es, c->ldb, g->vb[x.bs], n * es,
                                  x.kv, x.nv * es), NULL, NULL, &g->B[x.bs], TOK_MXU);
    if (x.ch == 0 && (c->flags & TSL_CP_FLAG(BIAS))) {
        if (x.nv < n)
            tsl_cp_zero(cp, &g->BI[x.ts], g->vbias[x.ts], 4u * n, TOK_DMA);
        tsl_cp_issue(cp, tsl_insn_dma(TSL_DMA_OP_LOAD, c->bias + x.n0 * 4u, 0, g->vbias[x.ts], 0, 1, x.nv * 4u), NULL,
                     NULL, &g->BI[x.ts], TOK_VPU);
    }
}

static void mxu_step(tsl_cp_t *cp, gemm_t *g, uint32_t s)
{
    const tsl_cp_cmd_t *c = g->c;
    step_t x = decode(g, s);
    uint32_t n = g->n, es = g->es, blocks = x.kw / n, last_chunk = x.ch == g->nchunks - 1u;
    for (uint32_t j = 0; j < blocks; j++) {
        tsl_cp_issue(cp, tsl_insn_loadw(c->adt, g->wb, g->vb[x.bs] + j * n * n * es, n * es), &g->B[x.bs], NULL, NULL,
                     0);
        uint32_t hint = 0;
        if (j == blocks - 1u)
            hint = TOK_DMA | ((last_chunk && g->epi_vpu) ? TOK_VPU : 0u);
        tsl_cp_issue(cp, tsl_insn_matmul(c->adt, g->wb, (x.ch | j) != 0, g->va[x.as] + j * n * es, x.kw * es,
                                         g->acc[x.ts], 4u * n, x.mr),
                     &g->A[x.as], NULL, &g->ACC[x.ts], hint);
        g->wb ^= 1u;
    }
}

static void epilogue_store(tsl_cp_t *cp, gemm_t *g, uint32_t s)
{
    const tsl_cp_cmd_t *c = g->c;
    step_t x = decode(g, s);
    uint32_t n = g->n, acc = g->acc[x.ts], adt = g->fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
    tsl_insn_t ops[4];
    tsl_cp_buf_t *rd[4] = {NULL, NULL, NULL, NULL}, *wr[4];
    uint32_t k = 0;
    if (c->flags & TSL_CP_FLAG(SCALE)) {
        wr[k] = &g->ACC[x.ts];
        ops[k++] = tsl_insn_vpu(TSL_VPU_OP_MUL, adt, acc, adt, acc, TSL_SRC2_IMM, adt, c->scale, x.mr);
    }
    if (c->flags & TSL_CP_FLAG(BIAS)) {
        rd[k] = &g->BI[x.ts];
        wr[k] = &g->ACC[x.ts];
        ops[k++] = tsl_insn_vpu(TSL_VPU_OP_ADD, adt, acc, adt, acc, TSL_SRC2_BCAST, adt, g->vbias[x.ts], x.mr);
    }
    if (c->flags & TSL_CP_FLAG(RELU)) {
        wr[k] = &g->ACC[x.ts];
        ops[k++] = tsl_insn_vpu(TSL_VPU_OP_RELU, adt, acc, adt, acc, 0, 0, 0, x.mr);
    }
    if (c->cdt == TSL_DTYPE_INT8) {
        rd[k] = &g->ACC[x.ts];
        wr[k] = &g->OUT[x.ts];
        ops[k++] = tsl_insn_requant(TSL_DTYPE_INT8, g->vout[x.ts], TSL_DTYPE_INT32, acc, x.mr, (int32_t)c->scale,
                                    c->shift, (int32_t)c->zp);
    } else if (c->cdt == TSL_DTYPE_BF16) {
        rd[k] = &g->ACC[x.ts];
        wr[k] = &g->OUT[x.ts];
        ops[k++] = tsl_insn_vpu(TSL_VPU_OP_MOV, TSL_DTYPE_BF16, g->vout[x.ts], TSL_DTYPE_FP32, acc, 0, 0, 0, x.mr);
    }
    for (uint32_t i = 0; i < k; i++)
        tsl_cp_issue(cp, ops[i], rd[i], NULL, wr[i], i == k - 1u ? (TOK_DMA | TOK_MXU) : 0u);
    uint32_t hbm = c->c + x.m0 * c->ldc + x.n0 * g->ces;
    if (g->narrow)
        tsl_cp_issue(cp, tsl_insn_dma(TSL_DMA_OP_STORE, hbm, c->ldc, g->vout[x.ts], n * g->ces, x.mr, x.nv * g->ces),
                     &g->OUT[x.ts], NULL, NULL, TOK_VPU);
    else
        tsl_cp_issue(cp, tsl_insn_dma(TSL_DMA_OP_STORE, hbm, c->ldc, acc, 4u * n, x.mr, x.nv * 4u), &g->ACC[x.ts],
                     NULL, NULL, TOK_MXU);
}

void tsl_cp_exec_gemm(tsl_cp_t *cp, const tsl_cp_cmd_t *c)
{
    gemm_t g;
    g.c = c;
    g.n = cp->n;
    g.es = tsl_dtype_bytes(c->adt);
    g.ces = tsl_dtype_bytes(c->cdt);
    g.fl = c->adt == TSL_DTYPE_BF16;
    g.narrow = g.ces < 4u;
    g.epi_vpu = g.narrow || (c->flags & (TSL_CP_FLAG(SCALE) | TSL_CP_FLAG(BIAS) | TSL_CP_FLAG(RELU)));
    g.wb = 0;
    plan(cp, &g);
    load_step(cp, &g, 0);
    for (uint32_t s = 0; s < g.steps; s++) {
        if (s + 1u < g.steps)
            load_step(cp, &g, s + 1u);
        mxu_step(cp, &g, s);
        if (s % g.nchunks == g.nchunks - 1u) {
            epilogue_store(cp, &g, s);
            if (tsl_cp_tc_error(cp))
                return;
        }
    }
}
