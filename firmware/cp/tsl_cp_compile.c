/* Tessel's command compiler: the checks of docs/isa.md §7 and the program they plan (see
 * tsl_cp_compile.h). The planners are tsl_cp_{gemm,seq,ops,win,row,att}.c and the token scheduler
 * tsl_cp_sched.c; they emit through tsl_cp_emit_insn and tsl_cp_emit_seq, below. */
#include "tsl_cp_compile.h"

#include <stdlib.h>
#include <string.h>

#include "tsl_att.h"
#include "tsl_cp_int.h"
#include "tsl_win.h"

static int is_pow2(uint32_t v) { return v && !(v & (v - 1u)); }

/* ----------------------------------------------------------------------------- the program */

void tsl_cp_prog_free(tsl_cp_prog_t *p)
{
    free(p->w);
    memset(p, 0, sizeof *p);
}

/* Room for `words` more words: 0, or -1 (p->oom set). */
static int room(tsl_cp_prog_t *p, uint32_t words)
{
    if (p->oom)
        return -1;
    if (p->cap - p->words >= words)
        return 0;
    uint32_t cap = p->cap ? p->cap : 256u;
    while (cap - p->words < words && cap < (1u << 28))
        cap *= 2u;
    uint32_t *w = cap - p->words >= words ? realloc(p->w, (size_t)cap * 4u) : NULL;
    if (!w) {
        p->oom = 1;
        return -1;
    }
    p->w = w;
    p->cap = cap;
    return 0;
}

int tsl_cp_prog_append(tsl_cp_prog_t *p, const uint32_t *w, uint32_t n)
{
    if (room(p, n))
        return -1;
    memcpy(p->w + p->words, w, 4u * (size_t)n);
    p->words += n;
    p->open = 0;
    return 0;
}

void tsl_cp_emit_insn(tsl_cp_t *cp, const uint32_t w[TSL_PARAM_INSN_WORDS])
{
    tsl_cp_prog_t *p = cp->prog;
    int join = p->open && TSL_GET(&p->w[p->open - 1u], TSL_PROG_HDR_COUNT) < TSL_PROG_HDR_COUNT_MASK;
    if (room(p, TSL_PARAM_INSN_WORDS + (join ? 0u : 1u)))
        return;
    if (!join) {
        p->w[p->words] = 0;
        TSL_SET(&p->w[p->words], TSL_PROG_HDR_KIND, TSL_PROG_REC_INSN);
        p->open = ++p->words;
    }
    uint32_t *h = &p->w[p->open - 1u];
    TSL_SET(h, TSL_PROG_HDR_COUNT, TSL_GET(h, TSL_PROG_HDR_COUNT) + 1u);
    memcpy(&p->w[p->words], w, 4u * TSL_PARAM_INSN_WORDS);
    p->words += TSL_PARAM_INSN_WORDS;
}

void tsl_cp_emit_seq(tsl_cp_t *cp, const uint32_t w[TSL_PARAM_SEQ_WORDS])
{
    tsl_cp_prog_t *p = cp->prog;
    if (room(p, 1u + TSL_PARAM_SEQ_WORDS))
        return;
    p->w[p->words] = 0;
    TSL_SET(&p->w[p->words], TSL_PROG_HDR_KIND, TSL_PROG_REC_SEQ);
    TSL_SET(&p->w[p->words], TSL_PROG_HDR_COUNT, 1u);
    memcpy(&p->w[p->words + 1u], w, 4u * TSL_PARAM_SEQ_WORDS);
    p->words += 1u + TSL_PARAM_SEQ_WORDS;
    p->open = 0;
}

/* ---------------------------------------------------------------------------- the compiler */

tsl_cp_status_t tsl_cp_compiler_init(tsl_cp_t *cp, uint32_t n, uint32_t vmem_bytes, uint32_t acc_bytes,
                                     uint32_t hbm_bytes, uint32_t features)
{
    if (!cp)
        return TSL_CP_EINVAL;
    memset(cp, 0, sizeof *cp);
    cp->n = n;
    cp->vmem_bytes = vmem_bytes;
    cp->acc_bytes = acc_bytes;
    cp->hbm_bytes = hbm_bytes;
    cp->features = features;
    /* The smallest GEMM tiling (see README): two A, B, bias and output slots of one N-row band and
     * one K-block, two one-row ACC slots; ELTWISE needs two slots of one row of N 32-bit values. */
    if (!is_pow2(n) || n < 4 || n > 128 || !is_pow2(hbm_bytes) || acc_bytes < 8u * 4u * n ||
        vmem_bytes < 8u * (tsl_cp_roundup(n * n * 2u, TSL_CP_ALIGN) + TSL_CP_ALIGN))
        return TSL_CP_ECONFIG;
    for (cp->n_log2 = 0; (1u << cp->n_log2) < n; cp->n_log2++)
        ;
    return TSL_CP_OK;
}

int tsl_cp_compiled(uint32_t opcode)
{
    return opcode < TSL_CMD_OP_LIMIT && opcode != TSL_CMD_OP_NOP && opcode != TSL_CMD_OP_FENCE &&
           opcode != TSL_CMD_OP_KERNEL && opcode != TSL_CMD_OP_PROGRAM;
}

/* A barrier between two commands of one program: each unit signals the other two, then waits for
 * both, so that every instruction after it starts after every instruction before it has finished
 * (a queue runs one instruction at a time, in order). One token on each channel, given and taken. */
static void barrier(tsl_cp_t *cp)
{
    const uint32_t all = TSL_TOK(TSL_UNIT_DMA) | TSL_TOK(TSL_UNIT_MXU) | TSL_TOK(TSL_UNIT_VPU);
    for (int wait = 0; wait < 2; wait++)
        for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++) {
            uint32_t others = all & ~TSL_TOK(u);
            tsl_insn_t i = tsl_insn_sync_encode(
                    (tsl_insn_sync_t){.unit = u, .wait = wait ? others : 0u, .signal = wait ? 0u : others});
            tsl_cp_emit_insn(cp, i.w);
        }
}

/* The first instruction of unit u in old[from, n) (n instructions of INSN_WORDS words), or n. */
static uint32_t next_of(const uint32_t *old, uint32_t n, uint32_t u, uint32_t from)
{
    while (from < n && TSL_GET(&old[from * TSL_PARAM_INSN_WORDS], TSL_INSN_HDR_UNIT) != u)
        from++;
    return from;
}

/* The instructions of the INSN records in p->w[start, p->words), pushed in a new order: each unit's
 * in its own order, the units taken in turn (DMA, MXU, VPU), passing over one whose next
 * instruction would wait for a token not yet signalled (the push-order rule, isa.md section 3), so
 * the tokens are the same and the program's legal schedules, and so its result, too. The fetch
 * unit pushes records in order and a unit's queue holds QUEUE_DEPTH instructions: a run of one
 * unit's instructions that wait for another's work (a tile's STOREs, one a block) would keep the
 * fetch from the other's next instructions until most of them had run. Taken in turn, each unit's
 * instructions come as early as their tokens allow. The instruction of the three units' next that
 * came first in the old order never waits for a token not yet signalled, so one can always go.
 * ROWWISE's and POOL2D's programs take it (a tile's VPU passes beside the last tile's STOREs and
 * the next one's LOADs; max pool 2x2 of 56x56x64: 34 327 -> 31 718 cycles); ATTENTION's, whose MXU
 * and VPU steps alternate, ran slower with it (4 heads of 64x64 causal: 21 868 -> 22 333 cycles),
 * and ELTWISE's no faster (137 449 -> 137 439 cycles, an ADD of 512x1024). */
static void interleave(tsl_cp_prog_t *p, uint32_t start)
{
    const uint32_t IW = TSL_PARAM_INSN_WORDS, NONE = TSL_UNIT_LIMIT;
    uint32_t n = 0;
    for (uint32_t h = start; h < p->words; h += 1u + TSL_GET(&p->w[h], TSL_PROG_HDR_COUNT) * IW) {
        if (TSL_GET(&p->w[h], TSL_PROG_HDR_KIND) != TSL_PROG_REC_INSN)
            return;   /* a sequencer descriptor: the instructions it expands are not in the records; the order stays */
        n += TSL_GET(&p->w[h], TSL_PROG_HDR_COUNT);
    }
    uint32_t *old = malloc((size_t)n * IW * 4u), *slot = malloc((size_t)n * 4u);
    if (!old || !slot) {   /* (the old order is a correct program too) */
        free(old);
        free(slot);
        return;
    }
    /* slot k: where the k-th instruction is pushed, old and new; old: the instructions in the old order */
    for (uint32_t h = start, k = 0; h < p->words; h += 1u + TSL_GET(&p->w[h], TSL_PROG_HDR_COUNT) * IW)
        for (uint32_t j = 0; j < TSL_GET(&p->w[h], TSL_PROG_HDR_COUNT); j++, k++) {
            slot[k] = h + 1u + j * IW;
            memcpy(&old[k * IW], &p->w[slot[k]], 4u * IW);
        }
    uint32_t at[TSL_UNIT_LIMIT], turn = 0;   /* at[u]: unit u's next instruction in old (n: none left) */
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
        at[u] = next_of(old, n, u, 0);
    int32_t tokens[TSL_UNIT_LIMIT][TSL_UNIT_LIMIT] = {{0}};   /* channel u->v: signals pushed - waits */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t pick = NONE, first = NONE;
        for (uint32_t t = 0; t < TSL_UNIT_LIMIT; t++) {
            uint32_t u = (turn + t) % TSL_UNIT_LIMIT, wait, ok = 1;
            if (at[u] == n)
                continue;
            wait = TSL_GET(&old[at[u] * IW], TSL_INSN_HDR_WAIT);
            for (uint32_t v = 0; v < TSL_UNIT_LIMIT; v++)
                if ((wait >> v) & 1u && tokens[v][u] < 1)
                    ok = 0;
            if (ok && pick == NONE)
                pick = u;
            if (first == NONE || at[u] < at[first])
                first = u;
        }
        uint32_t u = pick != NONE ? pick : first;
        const uint32_t *w = &old[at[u] * IW];
        uint32_t wait = TSL_GET(w, TSL_INSN_HDR_WAIT), signal = TSL_GET(w, TSL_INSN_HDR_SIGNAL);
        for (uint32_t v = 0; v < TSL_UNIT_LIMIT; v++) {
            tokens[v][u] -= (int32_t)((wait >> v) & 1u);
            tokens[u][v] += (int32_t)((signal >> v) & 1u);
        }
        memcpy(&p->w[slot[k]], w, 4u * IW);
        at[u] = next_of(old, n, u, at[u] + 1u);
        turn = (u + 1u) % TSL_UNIT_LIMIT;
    }
    free(old);
    free(slot);
}

/* --------------------------------------------------------------------------- the checks */

static int is_float(uint32_t dt) { return dt == TSL_DTYPE_BF16 || dt == TSL_DTYPE_FP32; }

static int has_feature(const tsl_cp_t *cp, uint32_t bit) { return (cp->features >> bit) & 1u; }


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
#define WIN_FAIL(st, f) TSL_CP_FAIL(st, TSL_WIN_##f##_WORD)
#define ATT_FAIL(st, f) TSL_CP_FAIL(st, TSL_ATT_##f##_WORD)

/* CONV2D and POOL2D after step 4: the window's reserved bits and unused fields, its shape (5) and
 * the operands (6), as GEMM's; a shape whose tiles do not fit is BAD_SHAPE (detail 5). */
static tsl_cp_verdict_t validate_win(const tsl_cp_t *cp, const tsl_cp_rings_t *r, const uint32_t *w, const tsl_cmd_t *c)
{
    tsl_cp_verdict_t ok = {TSL_CMD_ERR_OK, 0};
    tsl_win_t g = tsl_win_decode(w);
    uint32_t again[TSL_PARAM_CMD_WORDS];
    tsl_win_encode(&g, again);
    int bad = reserved_word(w, again, TSL_WIN_WORDS_MASK);
    if (bad >= 0)
        TSL_CP_FAIL(BAD_FLAGS, (uint32_t)bad);
    int conv = c->opcode == TSL_CMD_OP_CONV2D;
    if (g.a_zp && (c->a_dtype != TSL_DTYPE_INT8 || (!conv && c->vpu_op == TSL_VPU_OP_MAX)))
        WIN_FAIL(BAD_FLAGS, A_ZP);
    /* 5. shapes: each field in its range (the spec's); POOL2D's COUT and GROUPS 0 */
    const tsl_field_range_t *f = tsl_win_bad_field(&g, c->opcode);
    if (f)
        return (tsl_cp_verdict_t){tsl_field_used(f, c->opcode) ? TSL_CMD_ERR_BAD_SHAPE : TSL_CMD_ERR_BAD_FLAGS, f->word};
    if (conv && (g.c % g.groups || g.cout % g.groups))
        WIN_FAIL(BAD_SHAPE, GROUPS);
    if (!tsl_win_oh(&g) || !tsl_win_ow(&g))   /* a window larger than the padded input */
        WIN_FAIL(BAD_SHAPE, KH);
    /* 6. operands */
    uint32_t esa = tsl_dtype_bytes(c->a_dtype), esc = tsl_dtype_bytes(c->c_dtype);
    if (!tsl_cp_in_hbm(r, c->a_addr, 1, 0, tsl_win_in_bytes(&g, esa)))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_A_ADDR_WORD);
    if (conv && !tsl_cp_in_hbm(r, c->b_addr, 1, 0, tsl_win_w_bytes(&g, esa)))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_B_ADDR_WORD);
    if (!tsl_cp_in_hbm(r, c->c_addr, 1, 0, tsl_win_out_bytes(&g, esc)))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_C_ADDR_WORD);
    if ((c->flags & TSL_CP_FLAG(BIAS)) && !tsl_cp_in_hbm(r, c->bias_addr, 1, 0, (uint64_t)g.cout * 4u))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_BIAS_ADDR_WORD);
    if (!tsl_cp_win_fits(cp, c))
        WIN_FAIL(BAD_SHAPE, KH);
    return ok;
}

/* ATTENTION after step 4: the geometry's reserved bits, its shape (5: a causal mask needs LQ <= LK;
 * BATCH heads of rows must stay below HBM_BYTES) and the operands (6); a shape whose tiles do not fit
 * is BAD_SHAPE (detail 3). */
static tsl_cp_verdict_t validate_att(const tsl_cp_t *cp, const tsl_cp_rings_t *r, const uint32_t *w, const tsl_cmd_t *c)
{
    tsl_cp_verdict_t ok = {TSL_CMD_ERR_OK, 0};
    tsl_att_t a = tsl_att_decode(w);
    uint32_t again[TSL_PARAM_CMD_WORDS];
    tsl_att_encode(&a, again);
    int bad = reserved_word(w, again, TSL_ATT_WORDS_MASK);
    if (bad >= 0)
        TSL_CP_FAIL(BAD_FLAGS, (uint32_t)bad);
    /* 5. shapes */
    uint64_t b = a.batch;
    uint32_t esc = tsl_dtype_bytes(c->c_dtype);
    const tsl_field_range_t *f = tsl_att_bad_field(&a, c->opcode);   /* each in its range (the spec's) */
    if (f)
        TSL_CP_FAIL(BAD_SHAPE, f->word);
    if ((c->flags & TSL_CP_FLAG(CAUSAL)) && a.lq > a.lk)
        ATT_FAIL(BAD_SHAPE, LQ);
    if (b * a.lq > cp->hbm_bytes || b * a.lk > cp->hbm_bytes || b * a.d > cp->hbm_bytes)
        ATT_FAIL(BAD_SHAPE, BATCH);
    /* each operand's rows and row bytes: the heads stacked by rows, or side by side (HEAD_COLUMNS) */
    int cols = tsl_att_head_columns(c->flags);
    tsl_att_span_t q = tsl_att_q(&a, cols, c->lda), v = tsl_att_v(&a, cols), o = tsl_att_o(&a, cols, c->ldc, esc);
    tsl_att_span_t k = tsl_att_k(&a, c->flags, c->ldb);
    if (c->lda < q.row_bytes)
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_LDA_WORD);
    if (c->ldb < k.row_bytes)
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_LDB_WORD);
    if (c->ldc < o.row_bytes)
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_LDC_WORD);
    if (a.ldv < v.row_bytes)
        ATT_FAIL(BAD_SHAPE, LDV);
    /* 6. operands: Q, K (transposed: BATCH D rows either way; K_ROWS: as Q), V, O */
    if (!tsl_cp_in_hbm(r, c->a_addr, (uint32_t)q.rows, c->lda, q.row_bytes))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_A_ADDR_WORD);
    if (!tsl_cp_in_hbm(r, c->b_addr, (uint32_t)k.rows, c->ldb, k.row_bytes))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_B_ADDR_WORD);
    if (!tsl_cp_in_hbm(r, a.v_addr, (uint32_t)v.rows, a.ldv, v.row_bytes))
        ATT_FAIL(BAD_ADDR, V_ADDR);
    if (!tsl_cp_in_hbm(r, c->c_addr, (uint32_t)o.rows, c->ldc, o.row_bytes))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_C_ADDR_WORD);
    if (!tsl_cp_att_fits(cp, c))
        ATT_FAIL(BAD_SHAPE, LK);
    return ok;
}

static tsl_cp_verdict_t validate(const tsl_cp_t *cp, const tsl_cp_rings_t *r, const uint32_t *w, tsl_cmd_t *c)
{
    tsl_cp_verdict_t ok = {TSL_CMD_ERR_OK, 0};
    *c = tsl_cmd_decode(w);

    /* 1. opcode */
    if (!tsl_cp_compiled(c->opcode))
        TSL_CP_FAIL(BAD_OPCODE, TSL_CMD_OPCODE_WORD);
    /* 2. reserved bits (outside every field) and flags */
    if (w[0] & ~(TSL_CMD_OPCODE_MASK << TSL_CMD_OPCODE_SHIFT | TSL_CMD_FLAGS_MASK << TSL_CMD_FLAGS_SHIFT))
        TSL_CP_FAIL(BAD_FLAGS, 0);
    if (w[2] >> 16)
        TSL_CP_FAIL(BAD_FLAGS, 2);
    if (w[TSL_CMD_SHIFT_WORD] & ~TSL_CMD_SHIFT_MASK)
        TSL_CP_FAIL(BAD_FLAGS, TSL_CMD_SHIFT_WORD);
    /* the flags of the opcode and its VPU_OP (the spec's [cmd_flags]); K_ROWS needs the MXU's
     * transposed weight load */
    uint32_t used = W(TAG), f = c->flags, allowed = tsl_cmd_flags_accepted(c->opcode, c->vpu_op);
    if (!has_feature(cp, TSL_TC_CFG_FEATURES_TRANSPOSE_SHIFT))
        allowed &= ~TSL_CP_FLAG(K_ROWS);
    if (f & ~allowed)
        TSL_CP_FAIL(BAD_FLAGS, 0);

    uint32_t esa = tsl_dtype_bytes(c->a_dtype), esb = tsl_dtype_bytes(c->b_dtype), esc = tsl_dtype_bytes(c->c_dtype);
    switch (c->opcode) {
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
            TSL_CP_FAIL(BAD_OPCODE, 2);
        /* 3. dtypes */
        if ((!pool && c->a_dtype != c->b_dtype) || (c->a_dtype != TSL_DTYPE_INT8 && c->a_dtype != TSL_DTYPE_BF16))
            TSL_CP_FAIL(BAD_DTYPE, 2);
        if (!has_feature(cp, c->a_dtype == TSL_DTYPE_INT8 ? TSL_TC_CFG_FEATURES_INT8_SHIFT
                                                          : TSL_TC_CFG_FEATURES_BF16_SHIFT))
            TSL_CP_FAIL(BAD_DTYPE, 2);
        if (max ? c->c_dtype != c->a_dtype
                : c->a_dtype == TSL_DTYPE_INT8 ? (c->c_dtype != TSL_DTYPE_INT32 && c->c_dtype != TSL_DTYPE_INT8)
                                               : (c->c_dtype != TSL_DTYPE_FP32 && c->c_dtype != TSL_DTYPE_BF16))
            TSL_CP_FAIL(BAD_DTYPE, 2);
        if ((f & TSL_CP_FLAG(SCALE)) && !is_float(c->c_dtype))
            TSL_CP_FAIL(BAD_FLAGS, 0);
        /* GEMM's VPU_OP (float C): 0, or the epilogue's last step ([gemm_post]) */
        int post = c->opcode == TSL_CMD_OP_GEMM && tsl_gemm_post_has(TSL_GEMM_POST_OPS, c->vpu_op);
        if ((!pool && c->vpu_op && !post) || (pool && c->b_dtype) ||
            (post && (!is_float(c->c_dtype) ||
                      ((f & TSL_CP_FLAG(RELU)) && !tsl_gemm_post_has(TSL_GEMM_POST_RELU, c->vpu_op)))))
            TSL_CP_FAIL(BAD_FLAGS, 2);
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
            TSL_CP_FAIL(BAD_OPCODE, 2);
        if ((f & TSL_CP_FLAG(B_BCAST)) && (f & TSL_CP_FLAG(B_IMM)))
            TSL_CP_FAIL(BAD_FLAGS, 0);
        if (unary && f)
            TSL_CP_FAIL(BAD_FLAGS, 0);
        if (unary && c->b_dtype)
            TSL_CP_FAIL(BAD_FLAGS, 2);
        if (c->a_dtype >= TSL_DTYPE_LIMIT || c->b_dtype >= TSL_DTYPE_LIMIT || c->c_dtype >= TSL_DTYPE_LIMIT)
            TSL_CP_FAIL(BAD_DTYPE, 2);
        int fl = is_float(c->a_dtype);
        if (is_float(c->c_dtype) != fl || (binary && is_float(c->b_dtype) != fl))
            TSL_CP_FAIL(BAD_DTYPE, 2);
        if (binary && (f & TSL_CP_FLAG(B_IMM)) && esb != 4)
            TSL_CP_FAIL(BAD_DTYPE, 2);
        if (!tsl_ops_has(fl ? TSL_OPS_FLOAT : TSL_OPS_INT, TSL_UNIT_VPU, op))
            TSL_CP_FAIL(BAD_DTYPE, 2);   /* REQUANT of floats, the functions (EXP, ...) of integers */
        if (fl && !has_feature(cp, TSL_TC_CFG_FEATURES_BF16_SHIFT))
            TSL_CP_FAIL(BAD_DTYPE, 2);
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
            TSL_CP_FAIL(BAD_OPCODE, 2);
        if (!is_float(c->a_dtype) || !is_float(c->c_dtype) || (mask && !is_float(c->b_dtype)) ||
            !has_feature(cp, TSL_TC_CFG_FEATURES_BF16_SHIFT))
            TSL_CP_FAIL(BAD_DTYPE, 2);
        if (!mask && c->b_dtype)
            TSL_CP_FAIL(BAD_FLAGS, 2);
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
    case TSL_CMD_OP_ATTENTION:
        /* Q, K (transposed) and V in BF16, the scores and probabilities as GEMM and ROWWISE make them */
        if (c->a_dtype != TSL_DTYPE_BF16 || c->b_dtype != TSL_DTYPE_BF16 || !is_float(c->c_dtype) ||
            !has_feature(cp, TSL_TC_CFG_FEATURES_BF16_SHIFT))
            TSL_CP_FAIL(BAD_DTYPE, 2);
        if (c->vpu_op)
            TSL_CP_FAIL(BAD_FLAGS, 2);
        used |= TSL_ATT_WORDS_MASK | W(A_ADDR) | W(LDA) | W(B_ADDR) | W(LDB) | W(C_ADDR) | W(LDC) | W(SCALE);
        break;
    default:
        break;
    }
    /* 4. fields the command does not use must be zero (word 0 and 2 hold opcode and dtypes) */
    uint32_t dtype_words = W(A_DTYPE);
    int bad = tsl_cp_nonzero_word(w, 0xFFFFu & ~used & ~W(OPCODE) & ~dtype_words);
    if (bad >= 0)
        TSL_CP_FAIL(BAD_FLAGS, (uint32_t)bad);
    if ((c->opcode == TSL_CMD_OP_COPY || c->opcode == TSL_CMD_OP_FILL) && w[2])   /* untyped */
        TSL_CP_FAIL(BAD_FLAGS, 2);
    if ((used & W(SHIFT)) && c->shift > TSL_CMD_SHIFT_MAX)
        TSL_CP_FAIL(BAD_FLAGS, TSL_CMD_SHIFT_WORD);
    if (c->opcode == TSL_CMD_OP_CONV2D || c->opcode == TSL_CMD_OP_POOL2D)
        return validate_win(cp, r, w, c);
    if (c->opcode == TSL_CMD_OP_ATTENTION)
        return validate_att(cp, r, w, c);

    /* 5. shapes: sizes from 1 to HBM_BYTES, strides at least one row */
    uint32_t hb = cp->hbm_bytes;
    if (!c->m || c->m > hb)
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_M_WORD);
    if (!c->n || c->n > hb)
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_N_WORD);
    uint64_t arow, brow = 0, crow;
    uint32_t brows = 0;
    if (c->opcode == TSL_CMD_OP_COPY || c->opcode == TSL_CMD_OP_FILL) {
        arow = crow = c->n;
    } else if (c->opcode == TSL_CMD_OP_GEMM) {
        if (!c->k || c->k > hb)
            TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_K_WORD);
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
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_LDA_WORD);
    if ((used & W(LDB)) && c->ldb < brow)
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_LDB_WORD);
    if (c->ldc < crow)
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_LDC_WORD);

    /* 6. every operand inside HBM and clear of the rings */
    if ((used & W(A_ADDR)) && !tsl_cp_in_hbm(r, c->a_addr, c->m, c->lda, arow))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_A_ADDR_WORD);
    if ((used & W(B_ADDR)) && !tsl_cp_in_hbm(r, c->b_addr, brows, c->ldb, brow))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_B_ADDR_WORD);
    if (!tsl_cp_in_hbm(r, c->c_addr, c->m, c->ldc, crow))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_C_ADDR_WORD);
    if ((used & W(BIAS_ADDR)) && !tsl_cp_in_hbm(r, c->bias_addr, 1, 0, (uint64_t)c->n * 4u))
        TSL_CP_FAIL(BAD_ADDR, TSL_CMD_BIAS_ADDR_WORD);
    if (c->opcode == TSL_CMD_OP_ROWWISE && !tsl_cp_row_fits(cp, c))
        TSL_CP_FAIL(BAD_SHAPE, TSL_CMD_N_WORD);
    return ok;
}


uint32_t tsl_cp_compile(tsl_cp_t *cp, uint32_t ring_end, const uint32_t *w, tsl_cp_prog_t *p, uint32_t *detail)
{
    tsl_cp_rings_t r = {ring_end, ring_end <= cp->hbm_bytes ? cp->hbm_bytes - ring_end : 0u};
    tsl_cmd_t c;
    tsl_cp_verdict_t v = ring_end <= cp->hbm_bytes ? validate(cp, &r, w, &c) : (tsl_cp_verdict_t){TSL_CMD_ERR_BAD_ADDR, 0};
    *detail = v.detail;
    if (v.status != TSL_CMD_ERR_OK)
        return v.status;
    cp->prog = p;
    if (p->words)   /* not the program's first command: start behind everything before it */
        barrier(cp);
    uint32_t start = p->words;
    int reorder = c.opcode == TSL_CMD_OP_ROWWISE || c.opcode == TSL_CMD_OP_POOL2D;   /* interleave() */
    if (reorder)
        p->open = 0;   /* its instructions in records of their own */
    tsl_cp_sched_begin(cp);
    switch (c.opcode) {
    case TSL_CMD_OP_COPY: tsl_cp_exec_copy(cp, &c); break;
    case TSL_CMD_OP_FILL: tsl_cp_exec_fill(cp, &c); break;
    case TSL_CMD_OP_ELTWISE: tsl_cp_exec_eltwise(cp, &c); break;
    case TSL_CMD_OP_CONV2D:
    case TSL_CMD_OP_POOL2D: tsl_cp_exec_win(cp, &c); break;
    case TSL_CMD_OP_ROWWISE: tsl_cp_exec_row(cp, &c); break;
    case TSL_CMD_OP_ATTENTION: tsl_cp_exec_att(cp, &c); break;
    default: tsl_cp_exec_gemm(cp, &c); break;
    }
    tsl_cp_sched_end(cp);
    if (reorder && !p->oom)
        interleave(p, start);
    p->open = 0;   /* the next command's instructions start a record of their own */
    cp->prog = NULL;
    return TSL_CMD_ERR_OK;
}
