/* Tessel command processor: ATTENTION, O = softmax(Q Kt SCALE + mask) V for each head, with the
 * scores kept on chip (docs/isa.md §7). README.md ("Attention") has the plan.
 *
 * K sits in VMEM as it lies in HBM: transposed (Kt, D rows of LK keys), or with K_ROWS as K itself
 * (LK rows of D), which the MATMULKs of the scores load with TRANSPOSE, so that the host need not
 * transpose it.
 *
 * A step is one tile of R query rows of one head. The MXU computes the tile's scores S = Q Kt into
 * ACC, one MATMULK over all of D per column block of N keys, so that S lands block-major (block j of
 * row r at S + (j R + r) 4N): the layout of ROWWISE, whose softmax steps (tsl_cp_softmax) then run
 * on it in place, after the scale and the mask; on a core with EPI, one EPI ROW SOFTMAX BLOCKED
 * (the VPU's row engine) instead. The VPU rounds the probabilities into P (BF16, VMEM,
 * block-major too), and the MXU computes O = P V into ACC, one MATMULK per (K-block, column block),
 * K-blocks ascending with ACCUMULATE after the first: the GEMM order. The BF16 rounding of O and
 * one STORE follow. Neither S nor P goes to HBM.
 *
 * The mask: a table E in VMEM whose row k is -inf in the lanes l >= k - c0 and +0 in the others is
 * built once, by the VPU from nothing (mask_table). A causal tile adds, to each column block that
 * reaches past the diagonal, the window of R rows of E that masks its keys j > i + LK - LQ: the
 * unfused path's mask, element by element. Without CAUSAL, a last block that is partly padding
 * adds one row of E to every row. Blocks with no masked key add nothing (x + 0 = x but for the sign
 * of a zero score, which EXP maps to 1 either way). On a core with EPI there is no E: the EPI's
 * ZERO_POINT adds the causal mask and its PAD leaves the padding keys out.
 *
 * The order: the VPU's softmax sets the pace, so each step's softmax is pushed first, then the
 * previous step's values (two P slots in VMEM), then the next step's Q LOAD and scores (two S slots
 * in ACC), then the previous step's STORE: none of them waits for the softmax just pushed, and the
 * values go first on the MXU so that the V LOAD and the STORE behind them do not hold the next K and
 * Q LOADs back. Q, K, V, O and the BF16 output
 * tile have one slot each; the scheduler (tsl_cp_sched.c) adds the tokens. A head's K is loaded when
 * its first step's scores need it, its V behind that step's softmax, once the previous head's last
 * values have read theirs. */
#include "tsl_att.h"
#include "tsl_cp_int.h"

#define TOK_DMA TSL_TOK(TSL_UNIT_DMA)
#define TOK_MXU TSL_TOK(TSL_UNIT_MXU)
#define TOK_VPU TSL_TOK(TSL_UNIT_VPU)
#define I8 TSL_DTYPE_INT8
#define I32 TSL_DTYPE_INT32
#define BF TSL_DTYPE_BF16
#define FP TSL_DTYPE_FP32
#define NEG_INF_I32 0xFF800000u   /* -inf's FP32 bits, as INT32: -2^23 */
#define F32_ONE 0x3F800000u

static uint64_t al(uint64_t v) { return (v + TSL_CP_ALIGN - 1u) / TSL_CP_ALIGN * TSL_CP_ALIGN; }

typedef struct {
    const tsl_cmd_t *c;
    tsl_att_t a;
    uint32_t n, r, tiles;            /* N, rows per tile, tiles per head */
    uint32_t v, kb, db;              /* column blocks of keys (S, P), of D (Q, K), of DV (V, O) */
    uint32_t ke;                     /* rows of E: 2R + N - 2 (CAUSAL), 1 (a partial last block), or 0 */
    int32_t c0;                      /* E's row k masks the lanes l >= k - c0 */
    uint32_t q, k, vm, p[2], out, e; /* VMEM */
    uint32_t s[2], o, s1;            /* ACC: scores, outputs, the softmax's per-row scratch */
    tsl_cp_buf_t Q, K, VM, P[2], OUT, S[2], O;
    uint32_t wb;                     /* the weight buffer of the next MATMULK */
    uint32_t qh, kh, vh, oh;         /* bytes from one head's Q, K, V, O to the next's: LQ or LK rows, or
                                        (HEAD_COLUMNS) D or DV columns; Kt: D rows */
    int krows;                       /* K_ROWS: K in VMEM as LK rows of D (else Kt, D rows of LK) */
    int epi;                         /* the core has EPI's row functions (CFG_FEATURES.SEQ) */
} att_t;

/* One step: tile t (rows i0 .. i0 + mr - 1) of head h, in S and P slot s. */
typedef struct {
    uint32_t h, t, i0, mr, s;
} step_t;

/* Lay the buffers out for tiles of x->r rows: seven VMEM regions, then four in ACC, each aligned.
 * 1 when they fit. (Each region's bytes stay below 2^32 within plan()'s limits.) */
static int layout(const tsl_cp_t *cp, att_t *x)
{
    uint32_t n = x->n, r = x->r, lkp = x->v * n, kp = x->kb * n, dvp = x->db * n;
    int causal = (x->c->flags & TSL_CP_FLAG(CAUSAL)) != 0;
    x->ke = x->epi ? 0u : causal ? 2u * r + n - 2u : x->a.lk < lkp ? 1u : 0u;
    x->c0 = causal ? (int32_t)r - 1 : -(int32_t)(x->a.lk - lkp + n);   /* without CAUSAL: the padding lanes */
    uint32_t *at[] = {&x->q, &x->k, &x->vm, &x->p[0], &x->p[1], &x->out, &x->e, &x->s[0], &x->s[1], &x->o, &x->s1};
    uint32_t bytes[] = {2u * r * kp, 2u * kp * lkp, 2u * lkp * dvp, 2u * r * lkp, 2u * r * lkp,
                        x->c->c_dtype == BF ? 2u * r * dvp : 0u,
                        x->ke ? (x->ke + 2u) * 4u * n : 0u,   /* E, and two vectors of scratch to build it */
                        4u * r * lkp, 4u * r * lkp, 4u * r * dvp, 4u * r * n};
    uint64_t p = 0;
    for (uint32_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
        if (i == 7) {   /* the first ACC region */
            if (p > cp->vmem_bytes)
                return 0;
            p = 0;
        }
        *at[i] = (i < 7 ? 0u : TSL_LOCAL_ACC_BASE) + (uint32_t)p;
        p += al(bytes[i]);
    }
    return p <= cp->acc_bytes;
}

/* Tiles of as many rows as fit, made equal; 0 when one row does not fit or a row exceeds what one
 * DMA row or MATMULK takes. */
static int plan(const tsl_cp_t *cp, const tsl_cmd_t *c, att_t *x)
{
    uint32_t w[TSL_PARAM_CMD_WORDS], n = cp->n;
    tsl_cmd_encode(c, w);
    x->c = c;
    x->a = tsl_att_decode(w);
    x->n = n;
    int cols = tsl_att_head_columns(c->flags);
    x->qh = (uint32_t)tsl_att_q(&x->a, cols, c->lda).head;
    x->kh = (uint32_t)tsl_att_k(&x->a, c->flags, c->ldb).head;
    x->krows = tsl_att_k_rows(c->flags);
    x->epi = (cp->features >> TSL_TC_CFG_FEATURES_SEQ_SHIFT) & 1u;
    x->vh = (uint32_t)tsl_att_v(&x->a, cols).head;
    x->oh = (uint32_t)tsl_att_o(&x->a, cols, c->ldc, tsl_dtype_bytes(c->c_dtype)).head;
    x->v = (x->a.lk + n - 1u) >> cp->n_log2;   /* divisions are slow on the control core */
    x->kb = (x->a.d + n - 1u) >> cp->n_log2;
    x->db = (x->a.dv + n - 1u) >> cp->n_log2;
    if (2u * x->a.lk > TSL_CP_MAX_ROW_BYTES || 2u * x->a.d > TSL_CP_MAX_ROW_BYTES ||
        x->a.dv * tsl_dtype_bytes(c->c_dtype) > TSL_CP_MAX_ROW_BYTES || x->kb > TSL_INSN_MXU_MATMULK_KBLOCKS_MASK)
        return 0;
    /* VPU instructions of a whole tile: V R and DB R vectors, and E's 2R + N - 2 rows */
    uint32_t lq = x->a.lq, vmax = x->v > x->db ? x->v : x->db, r = tsl_cp_min(lq, (TSL_CP_MAX_ROWS - n) / 2u);
    if ((uint64_t)r * vmax > TSL_CP_MAX_ROWS)   /* (only then the division) */
        r = TSL_CP_MAX_ROWS / vmax;
    for (x->r = r; x->r; x->r /= 2u) {   /* each try half, then equal tiles (one when r covers LQ) */
        x->tiles = x->r >= lq ? 1u : tsl_cp_ceil(lq, x->r);
        x->r = x->tiles == 1u ? lq : tsl_cp_ceil(lq, x->tiles);
        if (layout(cp, x))
            return 1;
    }
    return 0;
}

int tsl_cp_att_fits(const tsl_cp_t *cp, const tsl_cmd_t *c)
{
    att_t x;
    return plan(cp, c, &x);
}

/* One VPU instruction on buffers the VPU alone touches (no tokens). */
static void vpu(tsl_cp_t *cp, tsl_insn_vpu_vec_t i)
{
    tsl_cp_issue(cp, tsl_insn_vpu_vec_encode(i), NULL, NULL, NULL, 0);
}

/* E (x->ke rows of N FP32 values at x->e): row k is -inf (bits 0xFF800000) in the lanes l >= k - c0
 * and +0 in the others. Row 0 is the lane index plus c0 (tsl_cp_lane_index), row k row 0 minus k
 * (doubling the rows at each ADD), and REQUANT, MAX and MIN turn x = l + c0 - k into -2^23 (-inf)
 * for x >= 0 and 0 for x < 0. */
static void mask_table(tsl_cp_t *cp, const att_t *x)
{
    uint32_t vec = 4u * x->n, e = x->e, a = e + x->ke * vec;
    tsl_cp_lane_index(cp, e, a, a + vec, x->c0);
    for (uint32_t k = 1; k < x->ke; k *= 2u)
        vpu(cp, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_ADD, .dst_dtype = I32, .src1_dtype = I32, .src2_dtype = I32,
                                     .src2_mode = TSL_SRC2_IMM, .dst_addr = e + k * vec, .src1_addr = e,
                                     .src2_addr = 0u - k, .rows = tsl_cp_min(k, x->ke - k)});
    vpu(cp, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_REQUANT, .dst_dtype = I32, .src1_dtype = I32, .dst_addr = e,
                                 .src1_addr = e, .rows = x->ke, .scale = NEG_INF_I32, .zero_point = NEG_INF_I32});
    for (int i = 0; i < 2; i++)
        vpu(cp, (tsl_insn_vpu_vec_t){.op = i ? TSL_VPU_OP_MIN : TSL_VPU_OP_MAX, .dst_dtype = I32, .src1_dtype = I32,
                                     .src2_dtype = I32, .src2_mode = TSL_SRC2_IMM, .dst_addr = e, .src1_addr = e,
                                     .src2_addr = i ? 0u : NEG_INF_I32, .rows = x->ke});
}

/* A LOAD into VMEM of `rows` rows of `bytes`, `stride` apart in HBM and `pitch` apart at `local`. */
static void load(tsl_cp_t *cp, uint32_t hbm, uint32_t stride, uint32_t rows, uint32_t bytes, uint32_t local,
                 uint32_t pitch, tsl_cp_buf_t *buf, uint32_t hint)
{
    tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .hbm_addr = hbm, .local_addr = local, .rows = rows, .row_bytes = bytes,
            .hbm_stride = stride, .local_stride = pitch}), NULL, NULL, buf, hint);
}

/* Head h's K (transposed: D rows of LK; K_ROWS: LK rows of D) and V (LK rows of DV), each a whole
 * padded matrix. They
 * signal no one where the MXU's wait for a later Q tile, loaded after them, covers them (a signal
 * of their own would have to be consumed first, by a SYNC): V's `hint` is the MXU when no Q tile
 * is loaded after it before its values. */
static void load_k(tsl_cp_t *cp, att_t *x, uint32_t h)
{
    const tsl_cmd_t *c = x->c;
    if (x->krows)
        load(cp, c->b_addr + h * x->kh, c->ldb, x->a.lk, 2u * x->a.d, x->k, 2u * x->kb * x->n, &x->K, 0);
    else
        load(cp, c->b_addr + h * x->kh, c->ldb, x->a.d, 2u * x->a.lk, x->k, 2u * x->v * x->n, &x->K, 0);
}

static void load_v(tsl_cp_t *cp, att_t *x, uint32_t h, uint32_t hint)
{
    load(cp, x->a.v_addr + h * x->vh, x->a.ldv, x->a.lk, 2u * x->a.dv, x->vm, 2u * x->db * x->n, &x->VM, hint);
}

/* Step st's Q tile, then its scores S = Q Kt into ACC slot st->s, block-major: a MATMULK over all of
 * D per column block of keys, one run (tsl_cp_issue_run), the last giving `hint`. Column block j's
 * weights are Kt's columns j N.. (rows of D, LK keys apart), or with K_ROWS the N rows of K from key
 * j N, loaded TRANSPOSE (each K-block the next N elements of every key). */
static void scores(tsl_cp_t *cp, att_t *x, const step_t *st, uint32_t hint)
{
    const tsl_cmd_t *c = x->c;
    uint32_t n = x->n, v = x->v, kb = x->kb, wb = x->wb, acc = x->s[st->s], blk = x->r * 4u * n;
    load(cp, c->a_addr + st->h * x->qh + st->i0 * c->lda, c->lda, st->mr, 2u * x->a.d, x->q, 2u * kb * n, &x->Q,
         TOK_MXU);
    tsl_insn_t m = tsl_insn_mxu_matmulk_encode((tsl_insn_mxu_matmulk_t){
            .dtype = BF, .act_addr = x->q, .act_stride = 2u * kb * n, .acc_stride = 4u * n, .rows = st->mr,
            .kblocks = kb, .transpose = (uint32_t)x->krows, .w_stride = 2u * (x->krows ? kb : v) * n});
    for (uint32_t j = 0; j < v; j++, wb ^= kb & 1u) {   /* each on the next weight buffer */
        TSL_SET(m.w, TSL_INSN_MXU_MATMULK_ACC_ADDR, acc + j * blk);
        TSL_SET(m.w, TSL_INSN_MXU_MATMULK_W_ADDR, x->k + 2u * j * n * (x->krows ? kb * n : 1u));
        TSL_SET(m.w, TSL_INSN_MXU_MATMULK_WBUF, wb);
        tsl_cp_issue_run(cp, &m, j, v, &x->K, &x->Q, &x->S[st->s], hint, 0u);
    }
    x->wb = wb;
}

/* x (rows vectors, FP32) += E rows from e: row by row (VEC) or e's row for every row (BCAST). */
static void add_mask(tsl_cp_t *cp, uint32_t x, uint32_t e, uint32_t mode, uint32_t rows)
{
    vpu(cp, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_ADD, .dst_dtype = FP, .src1_dtype = FP, .src2_dtype = FP,
                                 .src2_mode = mode, .dst_addr = x, .src1_addr = x, .src2_addr = e, .rows = rows});
}

/* The softmax of step st's scores, as ROWWISE SOFTMAX with SCALE and MASK computes it: the scale,
 * the mask, tsl_cp_softmax, whose last MULs round the probabilities into P, the last giving
 * `hint`. Without a mask the scale is tsl_cp_softmax's, which can fold it into its subtraction
 * of the max. On a core with EPI (x->epi) it is one EPI ROW SOFTMAX, BLOCKED, from S into P, with
 * the scale (FSCALE), the causal mask (ZERO_POINT) and the padding keys (PAD) its own. */
static void softmax(tsl_cp_t *cp, att_t *x, const step_t *st, uint32_t hint)
{
    uint32_t n = x->n, blk = x->r * 4u * n, s = x->s[st->s], all = x->v * x->r, scale = x->c->scale;
    int causal = (x->c->flags & TSL_CP_FLAG(CAUSAL)) != 0;
    if (x->epi) {   /* row r keeps the keys j <= i0 + r + LK - LQ (CAUSAL: ZERO_POINT, at least 1) and j < LK (PAD) */
        uint32_t fscale = scale != F32_ONE;
        tsl_cp_issue(cp, tsl_insn_vpu_epi_encode((tsl_insn_vpu_epi_t){
                .row = TSL_VPU_ROW_SOFTMAX, .blocked = 1, .dst_dtype = BF,
                .src1_dtype = FP, .fscale = fscale, .scale = fscale ? scale : 0u,
                .zero_point = causal ? st->i0 + 1u + x->a.lk - x->a.lq : 0u, .dst_addr = x->p[st->s],
                .src1_addr = s, .rows = x->r, .bvecs = x->v, .pad = x->v * n - x->a.lk}),
            &x->S[st->s], NULL, &x->P[st->s], hint);
        return;
    }
    if (causal || x->ke) {
        tsl_cp_issue(cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_MUL, .dst_dtype = FP, .src1_dtype = FP, .src2_dtype = FP, .src2_mode = TSL_SRC2_IMM,
                .dst_addr = s, .src1_addr = s, .src2_addr = scale, .rows = all}), NULL, NULL, &x->S[st->s], 0);
        scale = F32_ONE;
    }
    if (causal) {
        /* row r of block j masks its lanes >= rho + r: E's rows from rho + R - 1 (row 0 and on when
         * every lane is masked); a block with rho >= N masks nothing */
        for (uint32_t j = 0; j < x->v; j++) {
            int32_t rho = (int32_t)(st->i0 + x->a.lk - x->a.lq + 1u - j * n), k = rho + (int32_t)x->r - 1;
            if (rho < (int32_t)n)
                add_mask(cp, s + j * blk, x->e + (k > 0 ? (uint32_t)k : 0u) * 4u * n, TSL_SRC2_VEC, x->r);
        }
    } else if (x->ke) {   /* the padding lanes of the last block */
        add_mask(cp, s + (x->v - 1u) * blk, x->e, TSL_SRC2_BCAST, x->r);
    }
    tsl_cp_softmax(cp, s, &x->S[st->s], s, x->s1, x->r, x->v, scale, x->p[st->s], BF, &x->P[st->s], hint);
}

/* O = P V into ACC, rows of DV FP32 values: per column block, a MATMULK per K-block of P (a block
 * of keys), ascending, the first overwriting; all of them one run, each on the next weight buffer. */
static void values(tsl_cp_t *cp, att_t *x, const step_t *st)
{
    uint32_t n = x->n, v = x->v, db = x->db, dvp = db * n, wb = x->wb, k = 0, p = x->p[st->s], pblk = 2u * x->r * n;
    tsl_insn_t m = tsl_insn_mxu_matmulk_encode((tsl_insn_mxu_matmulk_t){
            .dtype = BF, .act_stride = 2u * n, .acc_stride = 4u * dvp, .rows = st->mr, .kblocks = 1,
            .w_stride = 2u * dvp});
    for (uint32_t nb = 0; nb < db; nb++) {
        TSL_SET(m.w, TSL_INSN_MXU_MATMULK_ACC_ADDR, x->o + 4u * nb * n);
        for (uint32_t j = 0; j < v; j++, k++, wb ^= 1u) {
            TSL_SET(m.w, TSL_INSN_MXU_MATMULK_ACCUMULATE, j > 0);
            TSL_SET(m.w, TSL_INSN_MXU_MATMULK_ACT_ADDR, p + j * pblk);
            TSL_SET(m.w, TSL_INSN_MXU_MATMULK_W_ADDR, x->vm + 2u * (j * n * dvp + nb * n));
            TSL_SET(m.w, TSL_INSN_MXU_MATMULK_WBUF, wb);
            tsl_cp_issue_run(cp, &m, k, db * v, &x->P[st->s], &x->VM, &x->O, TOK_DMA | TOK_VPU, 0u);
        }
    }
    x->wb = wb;
}

/* Step st's output rows: the BF16 rounding for a BF16 C, and one STORE. */
static void store(tsl_cp_t *cp, att_t *x, const step_t *st)
{
    const tsl_cmd_t *c = x->c;
    uint32_t dvp = x->db * x->n, o = x->o;
    tsl_cp_tile_t t = {.rows = st->mr, .hbm = c->c_addr + st->h * x->oh + st->i0 * c->ldc, .ld = c->ldc};
    if (c->c_dtype == BF) {
        tsl_cp_issue(cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_MOV, .dst_dtype = BF, .src1_dtype = FP, .dst_addr = x->out, .src1_addr = o,
                .rows = st->mr * x->db}), &x->O, NULL, &x->OUT, TOK_DMA | TOK_MXU);
        tsl_cp_store(cp, &t, x->out, &x->OUT, 2u * dvp, 2u * x->a.dv, TOK_VPU);
    } else {
        tsl_cp_store(cp, &t, o, &x->O, 4u * dvp, 4u * x->a.dv, TOK_MXU);
    }
}

void tsl_cp_exec_att(tsl_cp_t *cp, const tsl_cmd_t *c)
{
    att_t x;
    if (!plan(cp, c, &x))
        return;   /* validate() refused it already */
    uint32_t n = x.n, kp = x.kb * n, lkp = x.v * n, steps = x.a.batch * x.tiles;
    x.Q = x.K = x.VM = x.P[0] = x.P[1] = x.OUT = x.S[0] = x.S[1] = x.O = (tsl_cp_buf_t){0, 0, {0, 0, 0}};
    x.wb = 0;
    if (x.ke)
        mask_table(cp, &x);
    /* the padding, which no LOAD overwrites: zeros, so that it adds +0 to the products */
    if (kp > x.a.d)
        tsl_cp_zero(cp, &x.Q, x.q, 2u * x.r * kp, TOK_DMA);
    if (kp > x.a.d || lkp > x.a.lk)
        tsl_cp_zero(cp, &x.K, x.k, 2u * kp * lkp, TOK_DMA);
    if (lkp > x.a.lk)
        tsl_cp_zero(cp, &x.VM, x.vm, 2u * lkp * x.db * n, TOK_DMA);
    /* The hints: a unit is signalled only where no later wait covers the dependency. With a BF16 C
     * the VPU's rounding of O waits for step i - 1's values, which the MXU runs after step i + 1's
     * scores, and the next step's softmax is pushed after that rounding; the P of step i is read
     * by its values, pushed after that rounding too. The DMA's LOAD of V or STORE of an FP32 O
     * waits for the same values, before the next Q tile's LOAD. */
    int bf = c->c_dtype == BF;
    step_t cur = {0, 0, 0, tsl_cp_min(x.r, x.a.lq), 0}, prev = cur;
    load_k(cp, &x, 0);
    scores(cp, &x, &cur, TOK_VPU | TOK_DMA);
    for (uint32_t i = 0; i < steps; i++) {
        step_t next = cur;
        next.s ^= 1u;
        if (++next.t == x.tiles) {
            next.t = 0;
            next.h++;
        }
        next.i0 = next.t * x.r;
        next.mr = tsl_cp_min(x.r, x.a.lq - next.i0);
        softmax(cp, &x, &cur, i && bf ? 0u : TOK_MXU);
        if (i)
            values(cp, &x, &prev);
        if (i + 1u < steps) {
            if (next.t == 0)
                load_k(cp, &x, next.h);
            scores(cp, &x, &next, (i && bf ? 0u : TOK_VPU) | (i && (cur.t == 0 || !bf) ? 0u : TOK_DMA));
        }
        if (cur.t == 0)   /* V behind the first softmax of its head, before the STORE, which waits for the
                             VPU's rounding of O behind that softmax */
            load_v(cp, &x, cur.h, i + 2u >= steps ? TOK_MXU : 0u);
        if (i)
            store(cp, &x, &prev);
        prev = cur;
        cur = next;
    }
    values(cp, &x, &prev);
    store(cp, &x, &prev);
}
