/* Tessel command processor: ring handling, command validation, completions. See tsl_cp.h. */
#include "tsl_cp.h"

#include "tsl_att.h"
#include "tsl_cp_int.h"
#include "tsl_win.h"

#define CMD_BYTES (TSL_PARAM_CMD_WORDS * 4u)
#define CPL_BYTES (TSL_PARAM_CPL_WORDS * 4u)

static uint32_t hif_rd(tsl_cp_t *cp, uint32_t off) { return cp->hal->hostif_read(cp->hal->ctx, off); }
static void hif_wr(tsl_cp_t *cp, uint32_t off, uint32_t v) { cp->hal->hostif_write(cp->hal->ctx, off, v); }

static int is_pow2(uint32_t v) { return v && !(v & (v - 1u)); }

const char *tsl_cp_strerror(int status)
{
    return status > 0 ? "ok" : tsl_status_text(status);
}

tsl_cp_status_t tsl_cp_init(tsl_cp_t *cp, const tsl_cp_hal_t *hal)
{
    if (!cp || !hal || !hal->tc_read || !hal->tc_write || !hal->tc_push || !hal->hostif_read || !hal->hostif_write ||
        !hal->hbm_read || !hal->hbm_write || !hal->cycles)
        return TSL_CP_EINVAL;
    cp->hal = hal;
    cp->timeout_cycles = TSL_CP_TIMEOUT_DEFAULT;
    cp->commands = 0;
    cp->seq_window = 0;   /* CTRL.RESET (below) clears the SEQ registers */
    if (hal->tc_read(hal->ctx, TSL_TC_ID_OFFSET) != TSL_ID_VALUE)
        return TSL_CP_ECONFIG;
    cp->n = hal->tc_read(hal->ctx, TSL_TC_CFG_N_OFFSET);
    cp->vmem_bytes = hal->tc_read(hal->ctx, TSL_TC_CFG_VMEM_BYTES_OFFSET);
    cp->acc_bytes = hal->tc_read(hal->ctx, TSL_TC_CFG_ACC_BYTES_OFFSET);
    cp->hbm_bytes = hal->tc_read(hal->ctx, TSL_TC_CFG_HBM_BYTES_OFFSET);
    cp->features = hal->tc_read(hal->ctx, TSL_TC_CFG_FEATURES_OFFSET);
    uint32_t n = cp->n;
    /* The smallest GEMM tiling (see README): two A, B, bias and output slots of one N-row band and
     * one K-block, two one-row ACC slots; ELTWISE needs two slots of one row of N 32-bit values. */
    if (!is_pow2(n) || n < 4 || n > 128 || !is_pow2(cp->hbm_bytes) || cp->acc_bytes < 8u * 4u * n ||
        cp->vmem_bytes < 8u * (tsl_cp_roundup(n * n * 2u, TSL_CP_ALIGN) + TSL_CP_ALIGN))
        return TSL_CP_ECONFIG;
    for (cp->n_log2 = 0; (1u << cp->n_log2) < n; cp->n_log2++)
        ;
    hal->tc_write(hal->ctx, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
    tsl_cp_sched_begin(cp);
    return TSL_CP_OK;
}

int tsl_cp_doorbell(tsl_cp_t *cp)
{
    if (!cp)
        return 0;
    if (!(hif_rd(cp, TSL_HOSTIF_DB_PENDING_OFFSET) & 1u))
        return 0;
    hif_wr(cp, TSL_HOSTIF_DB_PENDING_OFFSET, 1u);
    return 1;
}

/* ------------------------------------------------------------------------------- validation */

typedef struct {
    uint32_t status, detail;
} verdict_t;

#define FAIL(st, word)                         \
    do {                                       \
        verdict_t f_ = {TSL_CMD_ERR_##st, (word)}; \
        return f_;                             \
    } while (0)

static int is_float(uint32_t dt) { return dt == TSL_DTYPE_BF16 || dt == TSL_DTYPE_FP32; }

static int has_feature(const tsl_cp_t *cp, uint32_t bit) { return (cp->features >> bit) & 1u; }

typedef struct {
    uint32_t cmd_base, cmd_size, head, tail, cpl_base, cpl_size, cpl_head, cpl_tail;
    uint32_t hi;                  /* the end of the higher ring: [0, hi) is the ring region */
    uint32_t above;               /* HBM bytes above it: HBM_BYTES - hi */
} ring_t;

/* Operand of `rows` rows of `row_bytes` bytes, `stride` apart: inside HBM, no wrap-around, and
 * above the ring region (a command must not overwrite queued commands or completions, nor read
 * them). One comparison: addr - hi wraps to 2^32 or more for addr < hi, which no extent inside
 * HBM can follow. */
static int in_hbm(const ring_t *r, uint32_t addr, uint32_t rows, uint32_t stride, uint64_t row_bytes)
{
    return (uint64_t)(uint32_t)(addr - r->hi) + (uint64_t)(rows - 1u) * stride + row_bytes <= r->above;
}

/* First non-zero word of `mask` (bit i = word i) in w, or -1. */
static int nonzero_word(const uint32_t *w, uint32_t mask)
{
    for (int i = 0; i < (int)TSL_PARAM_CMD_WORDS; i++)
        if (((mask >> i) & 1u) && w[i])
            return i;
    return -1;
}

/* First word of `mask` in which `w` differs from `again` (an overlay decoded and encoded again:
 * reserved bits set), or -1. */
static int reserved_word(const uint32_t *w, const uint32_t *again, uint32_t mask)
{
    for (int i = 0; i < (int)TSL_PARAM_CMD_WORDS; i++)
        if (((mask >> i) & 1u) && again[i] != w[i])
            return i;
    return -1;
}

#define W(f) (1u << TSL_CMD_##f##_WORD)
#define WIN_FAIL(st, f) FAIL(st, TSL_WIN_##f##_WORD)
#define ATT_FAIL(st, f) FAIL(st, TSL_ATT_##f##_WORD)

/* CONV2D and POOL2D after step 4: the window's reserved bits and unused fields, its shape (5) and
 * the operands (6), as GEMM's; a shape whose tiles do not fit is BAD_SHAPE (detail 5). */
static verdict_t validate_win(const tsl_cp_t *cp, const ring_t *r, const uint32_t *w, const tsl_cmd_t *c)
{
    verdict_t ok = {TSL_CMD_ERR_OK, 0};
    tsl_win_t g = tsl_win_decode(w);
    uint32_t again[TSL_PARAM_CMD_WORDS];
    tsl_win_encode(&g, again);
    int bad = reserved_word(w, again, TSL_WIN_WORDS_MASK);
    if (bad >= 0)
        FAIL(BAD_FLAGS, (uint32_t)bad);
    int conv = c->opcode == TSL_CMD_OP_CONV2D;
    if (!conv && (g.cout || g.groups))
        FAIL(BAD_FLAGS, g.cout ? TSL_WIN_COUT_WORD : TSL_WIN_GROUPS_WORD);
    if (g.a_zp && (c->a_dtype != TSL_DTYPE_INT8 || (!conv && c->vpu_op == TSL_VPU_OP_MAX)))
        WIN_FAIL(BAD_FLAGS, A_ZP);
    /* 5. shapes */
    if (!g.h || !g.w)
        WIN_FAIL(BAD_SHAPE, H);
    if (!g.c || (conv && !g.cout))
        WIN_FAIL(BAD_SHAPE, C);
    if (conv && (!g.groups || g.c % g.groups || g.cout % g.groups))
        WIN_FAIL(BAD_SHAPE, GROUPS);
    if (!g.batch)
        WIN_FAIL(BAD_SHAPE, BATCH);
    if (!g.dil_h || !g.dil_w)
        WIN_FAIL(BAD_SHAPE, DIL_H);
    if (!tsl_win_oh(&g) || !tsl_win_ow(&g))   /* a zero window or stride, or larger than the input */
        WIN_FAIL(BAD_SHAPE, KH);
    /* 6. operands */
    uint32_t esa = tsl_dtype_bytes(c->a_dtype), esc = tsl_dtype_bytes(c->c_dtype);
    if (!in_hbm(r, c->a_addr, 1, 0, tsl_win_in_bytes(&g, esa)))
        FAIL(BAD_ADDR, TSL_CMD_A_ADDR_WORD);
    if (conv && !in_hbm(r, c->b_addr, 1, 0, tsl_win_w_bytes(&g, esa)))
        FAIL(BAD_ADDR, TSL_CMD_B_ADDR_WORD);
    if (!in_hbm(r, c->c_addr, 1, 0, tsl_win_out_bytes(&g, esc)))
        FAIL(BAD_ADDR, TSL_CMD_C_ADDR_WORD);
    if ((c->flags & TSL_CP_FLAG(BIAS)) && !in_hbm(r, c->bias_addr, 1, 0, (uint64_t)g.cout * 4u))
        FAIL(BAD_ADDR, TSL_CMD_BIAS_ADDR_WORD);
    if (!tsl_cp_win_fits(cp, c))
        WIN_FAIL(BAD_SHAPE, KH);
    return ok;
}

/* ATTENTION after step 4: the geometry's reserved bits, its shape (5: a causal mask needs LQ <= LK;
 * BATCH heads of rows must stay below HBM_BYTES) and the operands (6); a shape whose tiles do not fit
 * is BAD_SHAPE (detail 3). */
static verdict_t validate_att(const tsl_cp_t *cp, const ring_t *r, const uint32_t *w, const tsl_cmd_t *c)
{
    verdict_t ok = {TSL_CMD_ERR_OK, 0};
    tsl_att_t a = tsl_att_decode(w);
    uint32_t again[TSL_PARAM_CMD_WORDS];
    tsl_att_encode(&a, again);
    int bad = reserved_word(w, again, TSL_ATT_WORDS_MASK);
    if (bad >= 0)
        FAIL(BAD_FLAGS, (uint32_t)bad);
    /* 5. shapes */
    uint64_t b = a.batch;
    uint32_t esc = tsl_dtype_bytes(c->c_dtype);
    if (!a.lq || !a.lk || ((c->flags & TSL_CP_FLAG(CAUSAL)) && a.lq > a.lk))
        ATT_FAIL(BAD_SHAPE, LQ);
    if (!a.d || !a.dv)
        ATT_FAIL(BAD_SHAPE, D);
    if (!b || b * a.lq > cp->hbm_bytes || b * a.lk > cp->hbm_bytes || b * a.d > cp->hbm_bytes)
        ATT_FAIL(BAD_SHAPE, BATCH);
    /* each operand's rows and row bytes: the heads stacked by rows, or side by side (HEAD_COLUMNS) */
    int cols = tsl_att_head_columns(c->flags);
    tsl_att_span_t q = tsl_att_q(&a, cols, c->lda), v = tsl_att_v(&a, cols), o = tsl_att_o(&a, cols, c->ldc, esc);
    if (c->lda < q.row_bytes)
        FAIL(BAD_SHAPE, TSL_CMD_LDA_WORD);
    if (c->ldb < 2u * a.lk)
        FAIL(BAD_SHAPE, TSL_CMD_LDB_WORD);
    if (c->ldc < o.row_bytes)
        FAIL(BAD_SHAPE, TSL_CMD_LDC_WORD);
    if (a.ldv < v.row_bytes)
        ATT_FAIL(BAD_SHAPE, LDV);
    /* 6. operands: Q, K transposed (BATCH D rows either way), V, O */
    if (!in_hbm(r, c->a_addr, (uint32_t)q.rows, c->lda, q.row_bytes))
        FAIL(BAD_ADDR, TSL_CMD_A_ADDR_WORD);
    if (!in_hbm(r, c->b_addr, a.batch * a.d, c->ldb, 2u * a.lk))
        FAIL(BAD_ADDR, TSL_CMD_B_ADDR_WORD);
    if (!in_hbm(r, a.v_addr, (uint32_t)v.rows, a.ldv, v.row_bytes))
        ATT_FAIL(BAD_ADDR, V_ADDR);
    if (!in_hbm(r, c->c_addr, (uint32_t)o.rows, c->ldc, o.row_bytes))
        FAIL(BAD_ADDR, TSL_CMD_C_ADDR_WORD);
    if (!tsl_cp_att_fits(cp, c))
        ATT_FAIL(BAD_SHAPE, LK);
    return ok;
}

static verdict_t validate(const tsl_cp_t *cp, const ring_t *r, const uint32_t *w, tsl_cmd_t *c)
{
    verdict_t ok = {TSL_CMD_ERR_OK, 0};
    *c = tsl_cmd_decode(w);

    /* 1. opcode */
    if (c->opcode >= TSL_CMD_OP_LIMIT)
        FAIL(BAD_OPCODE, TSL_CMD_OPCODE_WORD);
    /* 2. reserved bits (outside every field) and flags */
    if (w[0] >> 16)
        FAIL(BAD_FLAGS, 0);
    if (w[2] >> 16)
        FAIL(BAD_FLAGS, 2);
    if (w[TSL_CMD_SHIFT_WORD] & ~TSL_CMD_SHIFT_MASK)
        FAIL(BAD_FLAGS, TSL_CMD_SHIFT_WORD);
    uint32_t allowed = 0, used = W(TAG), f = c->flags;
    switch (c->opcode) {
    case TSL_CMD_OP_GEMM: allowed = TSL_CP_FLAG(BIAS) | TSL_CP_FLAG(RELU) | TSL_CP_FLAG(SCALE); break;
    case TSL_CMD_OP_ELTWISE: allowed = TSL_CP_FLAG(B_BCAST) | TSL_CP_FLAG(B_IMM); break;
    case TSL_CMD_OP_CONV2D: allowed = TSL_CP_FLAG(BIAS) | TSL_CP_FLAG(RELU) | TSL_CP_FLAG(SCALE); break;
    case TSL_CMD_OP_POOL2D: allowed = c->vpu_op == TSL_VPU_OP_ADD ? TSL_CP_FLAG(SCALE) : 0u; break;
    case TSL_CMD_OP_ROWWISE:
        allowed = c->vpu_op == TSL_ROW_OP_SOFTMAX ? TSL_CP_FLAG(SCALE) | TSL_CP_FLAG(MASK)
                  : c->vpu_op == TSL_ROW_OP_LAYERNORM ? TSL_CP_FLAG(BIAS) : 0u;
        break;
    case TSL_CMD_OP_ATTENTION: allowed = TSL_CP_FLAG(CAUSAL) | TSL_CP_FLAG(HEAD_COLUMNS); break;
    default: break;
    }
    if (f & ~allowed)
        FAIL(BAD_FLAGS, 0);

    uint32_t esa = tsl_dtype_bytes(c->a_dtype), esb = tsl_dtype_bytes(c->b_dtype), esc = tsl_dtype_bytes(c->c_dtype);
    switch (c->opcode) {
    case TSL_CMD_OP_NOP:
    case TSL_CMD_OP_FENCE:
        break;
    case TSL_CMD_OP_COPY:
        used |= W(M) | W(N) | W(A_ADDR) | W(LDA) | W(C_ADDR) | W(LDC);
        break;
    case TSL_CMD_OP_FILL:
        used |= W(M) | W(N) | W(C_ADDR) | W(LDC) | W(SCALE);
        break;
    case TSL_CMD_OP_GEMM:
    case TSL_CMD_OP_CONV2D:
    case TSL_CMD_OP_POOL2D: {
        /* GEMM's rules, and CONV2D's; POOL2D: MAX keeps A's type, ADD (average) converts as GEMM */
        int pool = c->opcode == TSL_CMD_OP_POOL2D, max = pool && c->vpu_op == TSL_VPU_OP_MAX;
        if (pool && !max && c->vpu_op != TSL_VPU_OP_ADD)
            FAIL(BAD_OPCODE, 2);
        /* 3. dtypes */
        if ((!pool && c->a_dtype != c->b_dtype) || (c->a_dtype != TSL_DTYPE_INT8 && c->a_dtype != TSL_DTYPE_BF16))
            FAIL(BAD_DTYPE, 2);
        if (!has_feature(cp, c->a_dtype == TSL_DTYPE_INT8 ? TSL_TC_CFG_FEATURES_INT8_SHIFT
                                                          : TSL_TC_CFG_FEATURES_BF16_SHIFT))
            FAIL(BAD_DTYPE, 2);
        if (max ? c->c_dtype != c->a_dtype
                : c->a_dtype == TSL_DTYPE_INT8 ? (c->c_dtype != TSL_DTYPE_INT32 && c->c_dtype != TSL_DTYPE_INT8)
                                               : (c->c_dtype != TSL_DTYPE_FP32 && c->c_dtype != TSL_DTYPE_BF16))
            FAIL(BAD_DTYPE, 2);
        if ((f & TSL_CP_FLAG(SCALE)) && !is_float(c->c_dtype))
            FAIL(BAD_FLAGS, 0);
        /* GEMM's VPU_OP (float C): 0, GELU after the bias (without RELU), or ADD of the old C */
        int gemm = c->opcode == TSL_CMD_OP_GEMM, gelu = gemm && c->vpu_op == TSL_VPU_OP_GELU;
        int act = gelu || (gemm && c->vpu_op == TSL_VPU_OP_ADD);
        if ((!pool && c->vpu_op && !act) || (pool && c->b_dtype) ||
            (act && (!is_float(c->c_dtype) || (gelu && (f & TSL_CP_FLAG(RELU))))))
            FAIL(BAD_FLAGS, 2);
        used |= c->opcode == TSL_CMD_OP_GEMM ? W(M) | W(N) | W(K) | W(LDA) | W(LDB) | W(LDC) : TSL_WIN_WORDS_MASK;
        used |= W(A_ADDR) | W(C_ADDR) | (pool ? 0u : W(B_ADDR));
        if (f & TSL_CP_FLAG(BIAS))
            used |= W(BIAS_ADDR);
        if (c->c_dtype == TSL_DTYPE_INT8 && !max)
            used |= W(SCALE) | W(SHIFT) | W(ZERO_POINT);
        if (f & TSL_CP_FLAG(SCALE))
            used |= W(SCALE);
        break;
    }
    case TSL_CMD_OP_ELTWISE: {
        /* Every elementwise VPU_VEC op (hw/spec/tessel.toml), not the row reductions. */
        uint32_t op = c->vpu_op;
        int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op), binary = !unary;
        if (!tsl_vpu_op_eltwise(op))
            FAIL(BAD_OPCODE, 2);
        if ((f & TSL_CP_FLAG(B_BCAST)) && (f & TSL_CP_FLAG(B_IMM)))
            FAIL(BAD_FLAGS, 0);
        if (unary && f)
            FAIL(BAD_FLAGS, 0);
        if (unary && c->b_dtype)
            FAIL(BAD_FLAGS, 2);
        if (c->a_dtype >= TSL_DTYPE_LIMIT || c->b_dtype >= TSL_DTYPE_LIMIT || c->c_dtype >= TSL_DTYPE_LIMIT)
            FAIL(BAD_DTYPE, 2);
        int fl = is_float(c->a_dtype);
        if (is_float(c->c_dtype) != fl || (binary && is_float(c->b_dtype) != fl))
            FAIL(BAD_DTYPE, 2);
        if (binary && (f & TSL_CP_FLAG(B_IMM)) && esb != 4)
            FAIL(BAD_DTYPE, 2);
        if (!tsl_ops_has(fl ? TSL_OPS_FLOAT : TSL_OPS_INT, TSL_UNIT_VPU, op))
            FAIL(BAD_DTYPE, 2);   /* REQUANT of floats, the functions (EXP, ...) of integers */
        if (fl && !has_feature(cp, TSL_TC_CFG_FEATURES_BF16_SHIFT))
            FAIL(BAD_DTYPE, 2);
        used |= W(M) | W(N) | W(A_ADDR) | W(LDA) | W(C_ADDR) | W(LDC);
        if (binary && (f & TSL_CP_FLAG(B_IMM)))
            used |= W(SCALE);
        else if (binary && (f & TSL_CP_FLAG(B_BCAST)))
            used |= W(B_ADDR);
        else if (binary)
            used |= W(B_ADDR) | W(LDB);
        if (op == TSL_VPU_OP_REQUANT)
            used |= W(SCALE) | W(SHIFT) | W(ZERO_POINT);
        break;
    }
    case TSL_CMD_OP_ROWWISE: {
        /* float rows in and out; B is the mask (MASK) or the norms' gamma (FP32) */
        uint32_t op = c->vpu_op;
        int norm = op == TSL_ROW_OP_LAYERNORM || op == TSL_ROW_OP_RMSNORM, mask = (f & TSL_CP_FLAG(MASK)) != 0;
        if (op >= TSL_ROW_OP_LIMIT)
            FAIL(BAD_OPCODE, 2);
        if (!is_float(c->a_dtype) || !is_float(c->c_dtype) || (mask && !is_float(c->b_dtype)) ||
            !has_feature(cp, TSL_TC_CFG_FEATURES_BF16_SHIFT))
            FAIL(BAD_DTYPE, 2);
        if (!mask && c->b_dtype)
            FAIL(BAD_FLAGS, 2);
        used |= W(M) | W(N) | W(A_ADDR) | W(LDA) | W(C_ADDR) | W(LDC);
        if (mask)
            used |= W(B_ADDR) | W(LDB);
        if (norm)
            used |= W(B_ADDR) | W(SCALE);
        if (f & TSL_CP_FLAG(BIAS))
            used |= W(BIAS_ADDR);
        if (f & TSL_CP_FLAG(SCALE))
            used |= W(SCALE);
        break;
    }
    case TSL_CMD_OP_KERNEL:
        if (!cp->hal->kernel)   /* the native firmware: no control core to run the image on */
            FAIL(BAD_OPCODE, TSL_CMD_OPCODE_WORD);
        used |= TSL_KERN_WORDS_MASK | W(N) | W(A_ADDR);
        break;
    case TSL_CMD_OP_ATTENTION:
        /* Q, K (transposed) and V in BF16, the scores and probabilities as GEMM and ROWWISE make them */
        if (c->a_dtype != TSL_DTYPE_BF16 || c->b_dtype != TSL_DTYPE_BF16 || !is_float(c->c_dtype) ||
            !has_feature(cp, TSL_TC_CFG_FEATURES_BF16_SHIFT))
            FAIL(BAD_DTYPE, 2);
        if (c->vpu_op)
            FAIL(BAD_FLAGS, 2);
        used |= TSL_ATT_WORDS_MASK | W(A_ADDR) | W(LDA) | W(B_ADDR) | W(LDB) | W(C_ADDR) | W(LDC) | W(SCALE);
        break;
    default:
        break;
    }
    /* 4. fields the command does not use must be zero (word 0 and 2 hold opcode and dtypes) */
    uint32_t dtype_words = W(A_DTYPE);
    int bad = nonzero_word(w, 0xFFFFu & ~used & ~W(OPCODE) & ~dtype_words);
    if (bad >= 0)
        FAIL(BAD_FLAGS, (uint32_t)bad);
    int typed = c->opcode == TSL_CMD_OP_GEMM || c->opcode == TSL_CMD_OP_ELTWISE || c->opcode == TSL_CMD_OP_CONV2D ||
                c->opcode == TSL_CMD_OP_POOL2D || c->opcode == TSL_CMD_OP_ROWWISE || c->opcode == TSL_CMD_OP_ATTENTION;
    if (!typed && w[2])
        FAIL(BAD_FLAGS, 2);
    if ((used & W(SHIFT)) && c->shift > 62u)
        FAIL(BAD_FLAGS, TSL_CMD_SHIFT_WORD);
    if (c->opcode == TSL_CMD_OP_NOP || c->opcode == TSL_CMD_OP_FENCE)
        return ok;
    if (c->opcode == TSL_CMD_OP_KERNEL) {   /* an image of whole words that fits the kernel region */
        if (!c->n || c->n > TSL_PARAM_KERNEL_BYTES || (c->n & 3u))
            FAIL(BAD_SHAPE, TSL_CMD_N_WORD);
        if ((c->a_addr & 3u) || !in_hbm(r, c->a_addr, 1, 0, c->n))
            FAIL(BAD_ADDR, TSL_CMD_A_ADDR_WORD);
        return ok;
    }
    if (c->opcode == TSL_CMD_OP_CONV2D || c->opcode == TSL_CMD_OP_POOL2D)
        return validate_win(cp, r, w, c);
    if (c->opcode == TSL_CMD_OP_ATTENTION)
        return validate_att(cp, r, w, c);

    /* 5. shapes: sizes from 1 to HBM_BYTES, strides at least one row */
    uint32_t hb = cp->hbm_bytes;
    if (!c->m || c->m > hb)
        FAIL(BAD_SHAPE, TSL_CMD_M_WORD);
    if (!c->n || c->n > hb)
        FAIL(BAD_SHAPE, TSL_CMD_N_WORD);
    uint64_t arow, brow = 0, crow;
    uint32_t brows = 0;
    if (c->opcode == TSL_CMD_OP_COPY || c->opcode == TSL_CMD_OP_FILL) {
        arow = crow = c->n;
    } else if (c->opcode == TSL_CMD_OP_GEMM) {
        if (!c->k || c->k > hb)
            FAIL(BAD_SHAPE, TSL_CMD_K_WORD);
        arow = (uint64_t)c->k * esa;
        brow = (uint64_t)c->n * esb;
        brows = c->k;
        crow = (uint64_t)c->n * esc;
    } else {   /* ELTWISE, ROWWISE */
        arow = (uint64_t)c->n * esa;
        crow = (uint64_t)c->n * esc;
        if (used & W(LDB)) {
            brow = (uint64_t)c->n * esb;
            brows = c->m;
        } else if (used & W(B_ADDR)) {   /* a broadcast row, or the norms' FP32 gamma */
            brow = (uint64_t)c->n * (c->opcode == TSL_CMD_OP_ROWWISE ? 4u : esb);
            brows = 1;
        }
    }
    if ((used & W(LDA)) && c->lda < arow)
        FAIL(BAD_SHAPE, TSL_CMD_LDA_WORD);
    if ((used & W(LDB)) && c->ldb < brow)
        FAIL(BAD_SHAPE, TSL_CMD_LDB_WORD);
    if (c->ldc < crow)
        FAIL(BAD_SHAPE, TSL_CMD_LDC_WORD);

    /* 6. every operand inside HBM and clear of the rings */
    if ((used & W(A_ADDR)) && !in_hbm(r, c->a_addr, c->m, c->lda, arow))
        FAIL(BAD_ADDR, TSL_CMD_A_ADDR_WORD);
    if ((used & W(B_ADDR)) && !in_hbm(r, c->b_addr, brows, c->ldb, brow))
        FAIL(BAD_ADDR, TSL_CMD_B_ADDR_WORD);
    if (!in_hbm(r, c->c_addr, c->m, c->ldc, crow))
        FAIL(BAD_ADDR, TSL_CMD_C_ADDR_WORD);
    if ((used & W(BIAS_ADDR)) && !in_hbm(r, c->bias_addr, 1, 0, (uint64_t)c->n * 4u))
        FAIL(BAD_ADDR, TSL_CMD_BIAS_ADDR_WORD);
    if (c->opcode == TSL_CMD_OP_ROWWISE && !tsl_cp_row_fits(cp, c))
        FAIL(BAD_SHAPE, TSL_CMD_N_WORD);
    return ok;
}

/* ------------------------------------------------------------------------------------ rings */

static int ring_valid(const tsl_cp_t *cp, const ring_t *r)
{
    return is_pow2(r->cmd_size) && !(r->cmd_base % CMD_BYTES) &&
           (uint64_t)r->cmd_base + (uint64_t)r->cmd_size * CMD_BYTES <= cp->hbm_bytes &&
           is_pow2(r->cpl_size) && !(r->cpl_base % CPL_BYTES) &&
           (uint64_t)r->cpl_base + (uint64_t)r->cpl_size * CPL_BYTES <= cp->hbm_bytes &&
           r->head - r->tail <= r->cmd_size && r->cpl_head - r->cpl_tail <= r->cpl_size;
}

static uint32_t execute(tsl_cp_t *cp, const uint32_t *w, const tsl_cmd_t *c, uint32_t *detail)
{
    *detail = 0;
    if (c->opcode == TSL_CMD_OP_NOP || c->opcode == TSL_CMD_OP_FENCE)
        return TSL_CMD_ERR_OK; /* commands run one at a time: every earlier one has completed */
    tsl_cp_sched_begin(cp);
    if (c->opcode == TSL_CMD_OP_KERNEL)
        return tsl_cp_exec_kernel(cp, w, c, detail);
    switch (c->opcode) {
    case TSL_CMD_OP_COPY: tsl_cp_exec_copy(cp, c); break;
    case TSL_CMD_OP_FILL: tsl_cp_exec_fill(cp, c); break;
    case TSL_CMD_OP_ELTWISE: tsl_cp_exec_eltwise(cp, c); break;
    case TSL_CMD_OP_CONV2D:
    case TSL_CMD_OP_POOL2D: tsl_cp_exec_win(cp, c); break;
    case TSL_CMD_OP_ROWWISE: tsl_cp_exec_row(cp, c); break;
    case TSL_CMD_OP_ATTENTION: tsl_cp_exec_att(cp, c); break;
    default: tsl_cp_exec_gemm(cp, c); break;
    }
    return tsl_cp_sched_end(cp, detail);
}

int tsl_cp_poll(tsl_cp_t *cp)
{
    if (!cp || !cp->hal)
        return TSL_CP_EINVAL;
    ring_t r;
    r.head = hif_rd(cp, TSL_HOSTIF_CMD_HEAD_OFFSET);
    r.tail = hif_rd(cp, TSL_HOSTIF_CMD_TAIL_OFFSET);
    if (r.head == r.tail)
        return 0;
    r.cmd_base = hif_rd(cp, TSL_HOSTIF_CMD_BASE_OFFSET);
    r.cmd_size = hif_rd(cp, TSL_HOSTIF_CMD_SIZE_OFFSET);
    r.cpl_base = hif_rd(cp, TSL_HOSTIF_CPL_BASE_OFFSET);
    r.cpl_size = hif_rd(cp, TSL_HOSTIF_CPL_SIZE_OFFSET);
    r.cpl_head = hif_rd(cp, TSL_HOSTIF_CPL_HEAD_OFFSET);
    r.cpl_tail = hif_rd(cp, TSL_HOSTIF_CPL_TAIL_OFFSET);
    if (!ring_valid(cp, &r))
        return TSL_CP_ERING;
    uint32_t cmd_end = r.cmd_base + r.cmd_size * CMD_BYTES, cpl_end = r.cpl_base + r.cpl_size * CPL_BYTES;
    r.hi = cmd_end > cpl_end ? cmd_end : cpl_end;
    r.above = cp->hbm_bytes - r.hi;
    int done = 0;
    while (r.tail != r.head) {
        if (r.cpl_head - r.cpl_tail >= r.cpl_size) {
            r.cpl_tail = hif_rd(cp, TSL_HOSTIF_CPL_TAIL_OFFSET);
            if (r.cpl_head - r.cpl_tail >= r.cpl_size)
                break; /* full: never overwrite an unread completion */
        }
        const tsl_cp_hal_t *h = cp->hal;
        uint64_t t0 = h->cycles(h->ctx);
        uint32_t w[TSL_PARAM_CMD_WORDS], cpl[TSL_PARAM_CPL_WORDS] = {0, 0, 0, 0}, detail;
        h->hbm_read(h->ctx, r.cmd_base + (r.tail & (r.cmd_size - 1u)) * CMD_BYTES, w, CMD_BYTES);
        tsl_cmd_t c;
        verdict_t v = validate(cp, &r, w, &c);
        uint32_t st = v.status;
        detail = v.detail;
        if (st == TSL_CMD_ERR_OK)
            st = execute(cp, w, &c, &detail);
        tsl_cpl_t done_cpl = {.tag = c.tag, .status = st, .opcode = c.opcode,
                              .cycles = (uint32_t)(h->cycles(h->ctx) - t0), .detail = detail};
        tsl_cpl_encode(&done_cpl, cpl);
        h->hbm_write(h->ctx, r.cpl_base + (r.cpl_head & (r.cpl_size - 1u)) * CPL_BYTES, cpl, CPL_BYTES);
        r.cpl_head++;
        r.tail++;
        hif_wr(cp, TSL_HOSTIF_CPL_HEAD_OFFSET, r.cpl_head);
        hif_wr(cp, TSL_HOSTIF_CMD_TAIL_OFFSET, r.tail);
        hif_wr(cp, TSL_HOSTIF_HOST_IRQ_SET_OFFSET, 1u << TSL_HOSTIF_HOST_IRQ_STATUS_CPL_SHIFT);
        cp->commands++;
        done++;
        if (h->kick)
            h->kick(h->ctx);   /* between commands, outside the CYCLES of either */
        if (r.tail == r.head)
            r.head = hif_rd(cp, TSL_HOSTIF_CMD_HEAD_OFFSET);
        if (r.head - r.tail > r.cmd_size)
            return TSL_CP_ERING;
    }
    return done;
}
