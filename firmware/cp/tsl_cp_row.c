/* Tessel command processor: ROWWISE, a function of each row of an M x N matrix on the VPU
 * (docs/isa.md §7: softmax, layer norm, RMS norm, GELU, SiLU, sum). README.md ("Rows") has the plan.
 *
 * A tile is R rows, held block-major in VMEM: vector j of row r (its columns jN .. jN+N-1) is at
 * block j, position r, so that one VPU instruction of R rows applies to the same block of every
 * row, and a reduction of a row is a chain of VPU ops over its V = ceil(N / N_mxu) blocks followed
 * by RSUM or RMAX across the lanes. The DMA moves one block of a tile per LOAD or STORE. The
 * lanes past column N of the last block are filled first with a value that leaves the row's
 * reductions alone (0 for sums; for the softmax -inf after its SCALE and MASK steps). Tiles
 * alternate between two sets of input and output buffers, so that the DMA moves tile t + 1 while
 * the VPU computes tile t; the VPU's own work buffers need no tokens (one in-order queue). Every
 * value is FP32 inside. GELU and SiLU are elementwise, each a VPU function (ACT): their tiles stay
 * row-major (one LOAD and one STORE a tile), and each tile is one VPU_VEC ACT from the input buffer
 * (A's dtype) into the output buffer (C's), with no work buffers. So are the softmax without a
 * mask and the norms on a core with EPI (the sequencer's feature, CFG_FEATURES.SEQ): each tile is
 * one EPI with a ROW function (SOFTMAX, LAYERNORM, RMSNORM), the VPU's row engine, which keeps the
 * rows between its passes and leaves a row's lanes past column N out (PAD). An FP32 input is then
 * loaded into ACC (one line a vector), and the norms' gamma and beta are resident in one piece in
 * the other memory, so that the engine reads them on a port the input's reads do not use. A norm's
 * ADD_C (C = norm(A + C)) loads C's old tile as the mask's is loaded, and a VPU_VEC ADD puts A + C in
 * FP32 before the rest: in place in C's old tile when that is FP32 (in ACC, row-major), else in x. */
#include "tsl_cp_int.h"

#define TOK_DMA TSL_TOK(TSL_UNIT_DMA)
#define TOK_VPU TSL_TOK(TSL_UNIT_VPU)
#define F32_ONE 0x3F800000u
#define F32_MINUS_ONE 0xBF800000u
#define F32_NEG_INF 0xFF800000u
#define F32_POS_INF 0x7F800000u
#define BF16_NEG_INF2 0xFF80FF80u
#define BF16_POS_INF2 0x7F807F80u
#define FP TSL_DTYPE_FP32

static uint64_t al64(uint64_t v) { return (v + TSL_CP_ALIGN - 1u) / TSL_CP_ALIGN * TSL_CP_ALIGN; }

/* FP32 bits of 1/v, rounded to nearest, for 1 <= v < 2^24. */
static uint32_t f32_recip(uint32_t v)
{
    uint32_t e = 0;
    while ((v >> e) > 1u)
        e++;
    if (!(v & (v - 1u)))   /* 2^-e, exact (and no 64-bit division on the control core) */
        return (127u - e) << 23;
    /* 1/v = 2^-(e+1) * m / 2^23 with m = 2^(24+e) / v in [2^23, 2^24] */
    uint64_t num = (uint64_t)1 << (24u + e);
    uint32_t m = (uint32_t)(num / v), rem = (uint32_t)(num % v);
    if (2u * (uint64_t)rem > v || (2u * (uint64_t)rem == v && (m & 1u)))
        m++;
    uint32_t ex = 127u - e - 1u;
    if (m == (1u << 24)) {
        m >>= 1;
        ex++;
    }
    return (ex << 23) | (m & 0x7FFFFFu);
}

typedef struct {
    const tsl_cmd_t *c;
    uint32_t n, v, r;                /* MXU N, blocks per row, rows per tile (a multiple of 4 / the
                                        narrowest input's bytes, so that a block is whole INT32 vectors) */
    uint32_t esa, esb, esc, op, mask;
    uint32_t addc;                   /* the norms' ADD_C: C's old value, loaded as the mask is (esb = esc)
                                        and added to A in FP32: into x, or when row-major into its own
                                        buffer if FP32 (then in ACC: one line a vector) */
    uint32_t esw;                    /* the VPU's work buffers: 4 (FP32); 0 when row-major, but for the
                                        sum of ADD_C with a BF16 C (x) */
    uint32_t wtiles;                 /* FP32 tiles in the work: x and t, or x alone (the softmax, and
                                        row-major ADD_C) */
    uint32_t rowmajor;               /* GELU, SiLU, and the softmax without a mask and the norms on a core
                                        with EPI's row functions: one VPU instruction a tile, so a tile is
                                        row-major (row r at r V N) */
    uint32_t in[2], mk[2], out[2];   /* DMA'd buffers, two of each */
    uint32_t x, t, s1, s2, gam, bet; /* VPU-only: FP32 tile, FP32 scratch, two per-row vectors, gamma, beta */
    uint32_t lm;                     /* LAYERNORM of a row with padding lanes: a vector of 1.0 in the
                                        row's lanes of its last block and 0 in the padding (two more
                                        vectors of scratch above it) */
} row_t;

/* The row-major functions' buffers in ACC when a tile fits there (one line an FP32 vector, where
 * VMEM takes two), for plan()'s bytes and layout()'s addresses alike: an FP32 input (acc_a), but
 * with ADD_C an FP32 C's old tiles instead, which then hold the sum (sum_in_mk); and the norms'
 * gamma and beta (acc_gb) when the EPI's input, A or ADD_C's sum, is not there. */
static int acc_a(const row_t *x) { return x->esa == 4u && !x->addc; }
static int sum_in_mk(const row_t *x) { return x->addc && x->esc == 4u; }
static int acc_gb(const row_t *x) { return !acc_a(x) && !x->addc; }

/* The local address of `bytes` (64-byte aligned) next in ACC (`in_acc`, its end at *q) or VMEM (at *p). */
static uint32_t take(int in_acc, uint64_t *p, uint64_t *q, uint64_t bytes)
{
    uint64_t *at = in_acc ? q : p;
    uint32_t a = (uint32_t)((in_acc ? TSL_LOCAL_ACC_BASE : 0u) + *at);
    *at += al64(bytes);
    return a;
}

/* Lay the buffers out for tiles of x->r rows: in VMEM the DMA's buffers, gamma and beta and the
 * LAYERNORM lane mask; with `acc`, in ACC, where an FP32 vector is one line instead of VMEM's two,
 * the VPU's FP32 work (x, t, s1, s2), or for the row-major functions, which have none, their FP32
 * input (with ADD_C, an FP32 old C instead) and output buffers, and the norms' gamma and beta
 * (contiguous) unless the EPI's input is there; else those in VMEM after the rest. 1 when they fit. */
static int layout(const tsl_cp_t *cp, row_t *x, int norm, int acc)
{
    uint64_t p = 0, q = 0, blk = (uint64_t)x->r * x->n, vb = x->v * blk, gb = (uint64_t)x->v * x->n * 4u;
    int rm_acc = acc && x->rowmajor;
    for (int s = 0; s < 2; s++) {
        x->in[s] = take(rm_acc && acc_a(x), &p, &q, vb * x->esa);
        x->mk[s] = take(rm_acc && sum_in_mk(x), &p, &q, vb * x->esb);
        x->out[s] = take(rm_acc && x->esc == 4u, &p, &q, vb * x->esc);   /* row-major FP32 output */
    }
    if (norm && x->rowmajor) {   /* the EPI's SRC2: gamma's V vectors, then beta's, in the memory its
                                    SRC1 (the input, or ADD_C's sum, which is in ACC with `acc`) is not in */
        x->gam = take(acc && acc_gb(x), &p, &q, 2u * gb);
        x->bet = (uint32_t)(x->gam + gb);
    } else {
        x->gam = take(0, &p, &q, norm ? gb : 0u);
        x->bet = take(0, &p, &q, norm ? gb : 0u);
    }
    x->lm = take(0, &p, &q, x->op == TSL_ROW_OP_LAYERNORM && !x->rowmajor && x->v * x->n != x->c->n
                                ? 3u * al64(4u * x->n) : 0u);   /* INT8 lane indices on the way: VMEM */
    uint64_t sb = x->rowmajor ? 0u : blk * x->esw;   /* the row-major functions have no s1, s2 */
    x->x = take(acc, &p, &q, vb * x->esw);
    x->t = take(acc, &p, &q, (x->wtiles - 1u) * al64(vb * x->esw));
    x->s1 = take(acc, &p, &q, sb);
    x->s2 = take(acc, &p, &q, sb);
    return p <= cp->vmem_bytes && q <= cp->acc_bytes;
}

/* Tiles of as many rows as fit and a VPU instruction's ROWS allows, made equal. The row-major
 * functions need only the DMA's buffers (a tile is one VPU instruction), their FP32 output in ACC
 * when a tile of at least ACC_MIN_ROWS rows (or all of them) fits there; the other functions' FP32
 * work goes there on the same terms. The VPU's passes are bound by its memory port, and ACC's lines hold an FP32 vector
 * each. Else it stays in VMEM. */
#define ACC_MIN_ROWS 4u
static int plan(const tsl_cp_t *cp, const tsl_cmd_t *c, row_t *x)
{
    uint32_t n = cp->n;
    x->c = c;
    x->n = n;
    x->v = (c->n + n - 1u) >> cp->n_log2;   /* divisions are slow on the control core */
    x->op = c->vpu_op;
    x->mask = (c->flags & TSL_CP_FLAG(MASK)) != 0;
    x->addc = (c->flags & TSL_CP_FLAG(ADD_C)) != 0;
    int norm = x->op == TSL_ROW_OP_LAYERNORM || x->op == TSL_ROW_OP_RMSNORM;
    x->rowmajor = x->op == TSL_ROW_OP_GELU || x->op == TSL_ROW_OP_SILU ||
                  ((norm || (x->op == TSL_ROW_OP_SOFTMAX && !x->mask)) &&
                   ((cp->features >> TSL_TC_CFG_FEATURES_SEQ_SHIFT) & 1u));
    x->esa = tsl_dtype_bytes(c->a_dtype);
    x->esc = tsl_dtype_bytes(c->c_dtype);
    x->esb = x->mask ? tsl_dtype_bytes(c->b_dtype) : x->addc ? x->esc : 0u;
    x->esw = !x->rowmajor || (x->addc && !sum_in_mk(x)) ? 4u : 0u;
    x->wtiles = x->op == TSL_ROW_OP_SOFTMAX || x->rowmajor ? 1u : 2u;   /* the softmax needs no t */
    uint32_t step = 4u >> ((x->esb && x->esb < x->esa ? x->esb : x->esa) >> 1), mstep = ~(step - 1u);   /* 4 / es */
    uint32_t m = c->m, mr = (m + step - 1u) & mstep;
    for (int acc = !x->rowmajor || x->esa == 4u || x->esc == 4u || norm; acc >= 0; acc--) {
        /* the bytes of a row of a tile: two of each DMA buffer and the work's tiles (v blocks each)
           and s1, s2, in VMEM but for what is in ACC (`in_acc`: the work, or the output) */
        uint64_t work = ((uint64_t)x->v * x->wtiles + (x->rowmajor ? 0u : 2u)) * n * x->esw;
        uint32_t fp32s = (acc_a(x) ? 4u : 0u) + (sum_in_mk(x) ? 4u : 0u) + (x->esc == 4u ? 4u : 0u);
        uint64_t in_acc = !acc ? 0u : !x->rowmajor ? work : (uint64_t)x->v * n * 2u * fp32s + work;
        uint64_t row = (uint64_t)x->v * n * 2u * (x->esa + x->esb + x->esc) + work - in_acc;
        uint64_t gb = norm ? 2u * al64((uint64_t)x->v * n * 4u) : 0u;   /* gamma and beta, where they go */
        uint64_t vgb = acc && x->rowmajor && acc_gb(x) ? 0u : gb, agb = gb - vgb;
        uint64_t vfree = vgb < cp->vmem_bytes ? cp->vmem_bytes - vgb : 0u;
        uint64_t afree = agb < cp->acc_bytes ? cp->acc_bytes - agb : 0u;
        uint32_t r = row > vfree ? 0u : row ? (uint32_t)(vfree / row) : UINT32_MAX;   /* (all in ACC: row 0) */
        if (acc)
            r = in_acc > afree ? 0u : in_acc ? tsl_cp_min(r, (uint32_t)(afree / in_acc)) : r;
        if ((uint64_t)r * x->v > TSL_CP_MAX_ROWS)   /* (only then the division) */
            r = TSL_CP_MAX_ROWS / x->v;
        r = tsl_cp_min(r, mr);
        uint32_t g = TSL_PARAM_VPU_FN_ROWS, quarter = (mr / 4u + g - 1u) / g * g;   /* whole groups */
        if (x->rowmajor && mr >= 4u)   /* four tiles at least, so that the first load and the last
                                          store, which nothing overlaps, are short */
            r = tsl_cp_min(r, quarter);
        for (x->r = r & mstep; x->r && (!acc || x->r >= tsl_cp_min(ACC_MIN_ROWS, mr)); x->r = (x->r >> 1) & mstep) {
            uint32_t tiles = x->r >= m ? 1u : tsl_cp_ceil(m, x->r);   /* each try half, then equal tiles: */
            x->r = ((tiles == 1u ? m : tsl_cp_ceil(m, tiles)) + step - 1u) & mstep;   /* the VPU works on */
            if (layout(cp, x, norm, acc))                                              /* whole tiles */
                return 1;
        }
    }
    return 0;
}

int tsl_cp_row_fits(const tsl_cp_t *cp, const tsl_cmd_t *c)
{
    row_t x;
    return plan(cp, c, &x);
}

/* One VPU_VEC instruction (its operands' dtypes and any of the buffers given). */
static void vec(tsl_cp_t *cp, tsl_insn_vpu_vec_t i, tsl_cp_buf_t *r1, tsl_cp_buf_t *r2, tsl_cp_buf_t *w, uint32_t hint)
{
    tsl_cp_issue(cp, tsl_insn_vpu_vec_encode(i), r1, r2, w, hint);
}

/* One FP32 VPU instruction of `rows` vectors (src2: a vector, row 0 broadcast, or an immediate) on
 * the VPU's own buffers. */
static void vop(tsl_cp_t *cp, uint32_t op, uint32_t dst, uint32_t s1, uint32_t s2, uint32_t mode, uint32_t rows)
{
    int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
    tsl_insn_t i = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = op, .dst_dtype = FP, .src1_dtype = FP, .src2_dtype = unary ? 0u : FP, .src2_mode = unary ? 0u : mode,
            .dst_addr = dst, .src1_addr = s1, .src2_addr = unary ? 0u : s2, .rows = rows});
    tsl_cp_push(cp, &i);
}

/* An INT32 op on the one vector at addr, in place, with an immediate. */
static void vop32(tsl_cp_t *cp, uint32_t op, uint32_t addr, uint32_t imm)
{
    vec(cp, (tsl_insn_vpu_vec_t){.op = op, .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT32,
                                 .src2_dtype = TSL_DTYPE_INT32, .src2_mode = TSL_SRC2_IMM, .dst_addr = addr,
                                 .src1_addr = addr, .src2_addr = imm, .rows = 1}, NULL, NULL, NULL, 0);
}

/* dst (r vectors) = each row's `op` (ADD or MAX) over its v blocks of `src` (r FP32 vectors each),
 * then across the lanes; the first instruction reads r1 and r2 (either may be NULL). With `parts`,
 * r1 was last written by a run of v LOADs, one per block, each signalling the VPU: the instruction
 * that adds block j waits for block j's LOAD alone (tsl_cp_run_part), so that the chain follows
 * the LOADs. */
static void reduce(tsl_cp_t *cp, uint32_t r, uint32_t v, uint32_t op, uint32_t src, uint32_t dst, tsl_cp_buf_t *r1,
                   tsl_cp_buf_t *r2, int parts)
{
    uint32_t blk = r * cp->n * 4u;
    tsl_insn_t i = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = op, .dst_dtype = FP, .src1_dtype = FP, .src2_dtype = FP, .src2_mode = TSL_SRC2_VEC, .dst_addr = dst,
            .src1_addr = src, .rows = r});
    for (uint32_t j = 1; j < v; j++) {   /* only the first reads r1 and r2, or each its part */
        TSL_SET(i.w, TSL_INSN_VPU_VEC_SRC2_ADDR, src + j * blk);
        tsl_cp_buf_t part = parts ? tsl_cp_run_part(r1, j, v) : (tsl_cp_buf_t){0, 0, {0, 0, 0}};
        tsl_cp_issue_run(cp, &i, 0, 1, parts ? &part : j == 1u ? r1 : NULL, j == 1u ? r2 : NULL, NULL, 0, 0u);
        TSL_SET(i.w, TSL_INSN_VPU_VEC_SRC1_ADDR, dst);
    }
    i = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = op == TSL_VPU_OP_ADD ? TSL_VPU_OP_RSUM : TSL_VPU_OP_RMAX, .dst_dtype = FP, .src1_dtype = FP,
            .dst_addr = dst, .src1_addr = v > 1u ? dst : src, .rows = r});
    tsl_cp_issue_run(cp, &i, 0, 1, v > 1u ? NULL : r1, v > 1u ? NULL : r2, NULL, 0, 0u);
}

/* Block j of dst (in `dtype`, blocks of r vectors) = op(block j of x (FP32), s), s being r per-row
 * vectors (VEC) or a row of v vectors whose vector j is broadcast (BCAST), for the v blocks: a run
 * (tsl_cp_issue_run) reading r1 and writing w (either may be NULL), the last giving `hint` and
 * each `each`. */
static void blocks(tsl_cp_t *cp, uint32_t op, uint32_t dst, uint32_t dtype, uint32_t x, uint32_t s, uint32_t mode,
                   uint32_t r, uint32_t v, tsl_cp_buf_t *r1, tsl_cp_buf_t *w, uint32_t hint, uint32_t each)
{
    uint32_t n = cp->n;
    tsl_insn_t i = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = op, .dst_dtype = dtype, .src1_dtype = FP, .src2_dtype = FP, .src2_mode = mode, .src2_addr = s,
            .rows = r});
    for (uint32_t j = 0; j < v; j++) {
        TSL_SET(i.w, TSL_INSN_VPU_VEC_DST_ADDR, dst + j * r * n * tsl_dtype_bytes(dtype));
        TSL_SET(i.w, TSL_INSN_VPU_VEC_SRC1_ADDR, x + j * r * n * 4u);
        if (mode == TSL_SRC2_BCAST)
            TSL_SET(i.w, TSL_INSN_VPU_VEC_SRC2_ADDR, s + j * n * 4u);
        tsl_cp_issue_run(cp, &i, j, v, r1, NULL, w, hint, each);
    }
}

/* The max commutes with a positive normal scale: x -> fl(x scale) keeps MAX's order (-0 below +0,
 * NaN absorbing), so max(fl(x scale)) = fl(max(x) scale), and -fl(m scale) = fl(m (-scale)). The
 * EPI then scales x in the pass that subtracts the max (FSCALE before BIAS, each step the VPU_VEC
 * op), and the max of the unscaled x is negated by a MUL by -scale instead of -1: the bits of a MUL
 * of every vector first, without its pass. */
void tsl_cp_softmax(tsl_cp_t *cp, uint32_t src, tsl_cp_buf_t *srcb, uint32_t x, uint32_t s, uint32_t r, uint32_t v,
                    uint32_t scale, uint32_t dst, uint32_t dtype, tsl_cp_buf_t *w, uint32_t hint)
{
    int epi = (cp->features >> TSL_TC_CFG_FEATURES_SEQ_SHIFT) & 1u;
    uint32_t fscale = epi && scale != F32_ONE && (scale >> 23) - 1u < 254u ? scale : 0u;   /* folded, or 0 */
    tsl_cp_buf_t *first = srcb;
    if (scale != F32_ONE && !fscale) {
        vec(cp, (tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_MUL, .dst_dtype = FP, .src1_dtype = FP, .src2_dtype = FP, .src2_mode = TSL_SRC2_IMM,
                .dst_addr = x, .src1_addr = src, .src2_addr = scale, .rows = v * r}, first, NULL, NULL, 0);
        src = x;
        first = NULL;
    }
    reduce(cp, r, v, TSL_VPU_OP_MAX, src, s, first, NULL, 0);
    vop(cp, TSL_VPU_OP_MUL, s, s, (fscale ? fscale : F32_ONE) ^ 0x80000000u, TSL_SRC2_IMM, r);
    /* x + (-1 m): with EPI, whose BIAS step adds vector i mod r of s to vector i (the same fadd), one
     * push for every block; else an ADD per block */
    if (epi) {
        tsl_insn_t i = tsl_insn_vpu_epi_encode((tsl_insn_vpu_epi_t){
                .dst_dtype = FP, .src1_dtype = FP, .bias = 1, .fscale = fscale != 0u, .dst_addr = x, .src1_addr = src,
                .src2_addr = s, .rows = v * r, .scale = fscale, .bvecs = r});
        tsl_cp_push(cp, &i);
    } else {
        blocks(cp, TSL_VPU_OP_ADD, x, FP, src, s, TSL_SRC2_VEC, r, v, NULL, NULL, 0, 0u);
    }
    vop(cp, TSL_VPU_OP_EXP, x, x, 0, 0, v * r);
    reduce(cp, r, v, TSL_VPU_OP_ADD, x, s, NULL, NULL, 0);
    vop(cp, TSL_VPU_OP_RECIP, s, s, 0, 0, r);
    blocks(cp, TSL_VPU_OP_MUL, dst, dtype, x, s, TSL_SRC2_VEC, r, v, srcb, w, hint, 0u);
}

/* The LOADs or STOREs (op) of a tile's rows [m0, m0 + mr) between HBM (addr, rows ld apart) and
 * `base` (elements of es bytes): one per block, or one for the tile when it is row-major; a run
 * (tsl_cp_issue_run) whose last gives `hint`. With `parts`, each LOAD after the first signals the
 * VPU too (reduce), and each STORE waits for its block's writer alone (buf as the run that last
 * wrote it left it, one instruction per block: tsl_cp_run_part), the last reading buf. */
static void tile_xfer(tsl_cp_t *cp, const row_t *x, uint32_t op, uint32_t addr, uint32_t ld, uint32_t base, uint32_t es,
                      uint32_t m0, uint32_t mr, tsl_cp_buf_t *buf, uint32_t hint, int parts)
{
    /* a part: a block of n columns, or the tile's whole rows of cols columns, v n apart; only the
     * last can be narrower, so the others are the first's with their addresses moved */
    uint32_t n = x->n, cols = x->c->n, np = x->rowmajor ? 1u : x->v, w = x->rowmajor ? cols : n;
    uint32_t stride = (x->rowmajor ? x->v * n : n) * es;
    int load = op == TSL_DMA_OP_LOAD;
    tsl_insn_t i;
    for (uint32_t j = 0; j < np; j++) {
        uint32_t hbm = addr + m0 * ld + j * n * es, local = base + j * x->r * n * es;
        if (j == 0 || j + 1u == np) {
            tsl_insn_dma_xfer_t t = {.op = op, .hbm_addr = hbm, .local_addr = local, .rows = mr,
                                     .row_bytes = tsl_cp_min(w, cols - j * n) * es, .hbm_stride = ld,
                                     .local_stride = stride};
            if (t.hbm_stride == t.row_bytes && t.local_stride == t.row_bytes &&
                (uint64_t)mr * t.row_bytes <= TSL_CP_MAX_ROW_BYTES) {
                t.row_bytes *= mr;   /* contiguous on both sides: one long row */
                t.rows = 1;
            }
            i = tsl_insn_dma_xfer_encode(t);
        } else {
            TSL_SET(i.w, TSL_INSN_DMA_XFER_HBM_ADDR, hbm);
            TSL_SET(i.w, TSL_INSN_DMA_XFER_LOCAL_ADDR, local);
        }
        tsl_cp_buf_t part = tsl_cp_run_part(buf, j, np);
        if (parts && !load)
            tsl_cp_issue_run(cp, &i, 0, 1, j + 1u < np ? &part : buf, NULL, NULL, 0, 0u);
        else
            tsl_cp_issue_run(cp, &i, j, np, load ? NULL : buf, NULL, load ? buf : NULL, hint,
                             parts && j ? TOK_VPU : 0u);
    }
}

/* The loads of tile t (rows m0 .. m0 + mr - 1) into buffer set s; with `parts`, each of the input's
 * blocks signals the VPU (compute). */
static void tile_loads(tsl_cp_t *cp, row_t *x, uint32_t s, uint32_t m0, uint32_t mr, tsl_cp_buf_t *IN, tsl_cp_buf_t *MK,
                       int parts)
{
    const tsl_cmd_t *c = x->c;
    uint32_t n = x->n, tail = c->n - (x->v - 1u) * n;
    for (int which = 0; which < 1 + (x->esb != 0u); which++) {   /* A, then the mask or ADD_C's old C */
        uint32_t es = which ? x->esb : x->esa, base = which ? x->mk[s] : x->in[s], blk = x->r * n * es;
        tsl_cp_buf_t *buf = which ? MK : IN;
        if (tail < n && !x->rowmajor) {   /* the last block's lanes past column N: 0, but the softmax's */
            uint32_t pad = 0u;                /* -inf after its SCALE and MASK steps: in the mask, or in A */
            if (x->op == TSL_ROW_OP_SOFTMAX && which == (int)x->mask) {   /* (+inf against a negative SCALE) */
                int pos = !which && (c->flags & TSL_CP_FLAG(SCALE)) && (c->scale >> 31);
                pad = es == 2u ? (pos ? BF16_POS_INF2 : BF16_NEG_INF2) : (pos ? F32_POS_INF : F32_NEG_INF);
            }
            tsl_cp_fill32(cp, buf, base + (x->v - 1u) * blk, blk, pad, TOK_DMA);
        }
        uint32_t addr = !which ? c->a_addr : x->mask ? c->b_addr : c->c_addr;
        uint32_t ld = !which ? c->lda : x->mask ? c->ldb : c->ldc;
        tile_xfer(cp, x, TSL_DMA_OP_LOAD, addr, ld, base, es, m0, mr, buf, TOK_VPU, parts && !which);
    }
}

/* The norms' gamma and beta (with BIAS), resident: their lanes past N only reach lanes never
 * stored. */
static void gb_loads(tsl_cp_t *cp, const row_t *x, tsl_cp_buf_t *GB)
{
    const tsl_cmd_t *c = x->c;
    uint32_t k = (c->flags & TSL_CP_FLAG(BIAS)) ? 2u : 1u;
    for (uint32_t i = 0; i < k; i++)
        tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                .op = TSL_DMA_OP_LOAD, .hbm_addr = i ? c->bias_addr : c->b_addr, .local_addr = i ? x->bet : x->gam,
                .rows = 1, .row_bytes = c->n * 4u}),
            NULL, NULL, GB, i + 1u == k ? TOK_VPU : 0u);
}

/* ADD_C: `vecs` FP32 vectors at dst = A's tile at `in` (A's dtype) + C's old one at `mk` (C's). */
static void addc(tsl_cp_t *cp, const row_t *x, uint32_t dst, uint32_t in, uint32_t mk, uint32_t vecs,
                 tsl_cp_buf_t *IN, tsl_cp_buf_t *MK)
{
    vec(cp, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_ADD, .dst_dtype = FP, .src1_dtype = x->c->a_dtype,
                                 .src2_dtype = x->c->c_dtype, .src2_mode = TSL_SRC2_VEC, .dst_addr = dst,
                                 .src1_addr = in, .src2_addr = mk, .rows = vecs}, IN, MK, NULL, 0);
}

/* The VPU work of one tile of any ROW_OP but the row-major ones, from the input buffer `in` (and mask `mk`) into
 * the output buffer `out`. The tile in FP32 (src) is `in` itself for an FP32 A, else its MOV into
 * x->x; the first instruction waits for IN, the last reader of `in` or `mk` reads IN or MK (so
 * that the loads of tile t + 2 wait for it), the first use of gamma and beta reads GB, and the
 * last instructions, a run, write `out` in C's dtype (the rounding of a MOV). With `parts`, IN's blocks were
 * loaded as parts (tile_xfer), and a reduction of them that starts the work (LAYERNORM, SUM)
 * follows their LOADs. Returns 1 when the last run wrote `out` block by block, each signalling the
 * DMA, so that each block's STORE can follow its own (tile_xfer), else 0. */
static int compute(tsl_cp_t *cp, const row_t *x, uint32_t in, uint32_t mk, uint32_t out, tsl_cp_buf_t *IN,
                    tsl_cp_buf_t *MK, tsl_cp_buf_t *OUT, tsl_cp_buf_t *GB, int parts)
{
    const tsl_cmd_t *c = x->c;
    uint32_t all = x->v * x->r, src = in, r = x->r, v = x->v, dd = c->c_dtype;
    tsl_cp_buf_t *inb = IN;   /* IN while src is `in`, and the first instruction's wait */
    if (x->addc) {
        addc(cp, x, x->x, in, mk, all, IN, MK);
        src = x->x;
        inb = NULL;
    } else if (c->a_dtype != FP) {
        vec(cp, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MOV, .dst_dtype = FP, .src1_dtype = c->a_dtype,
                                     .dst_addr = x->x, .src1_addr = in, .rows = all}, IN, NULL, NULL, 0);
        src = x->x;
        inb = NULL;
    }
    switch (x->op) {
    case TSL_ROW_OP_SOFTMAX: {
        uint32_t scale = (c->flags & TSL_CP_FLAG(SCALE)) ? c->scale : F32_ONE;
        if (x->mask) {   /* the scale (when not 1), then the mask, before the max */
            if (scale != F32_ONE)
                vec(cp, (tsl_insn_vpu_vec_t){
                        .op = TSL_VPU_OP_MUL, .dst_dtype = FP, .src1_dtype = FP, .src2_dtype = FP,
                        .src2_mode = TSL_SRC2_IMM, .dst_addr = x->x, .src1_addr = src, .src2_addr = scale, .rows = all},
                    inb, NULL, NULL, 0);
            vec(cp, (tsl_insn_vpu_vec_t){
                    .op = TSL_VPU_OP_ADD, .dst_dtype = FP, .src1_dtype = FP, .src2_dtype = c->b_dtype,
                    .src2_mode = TSL_SRC2_VEC, .dst_addr = x->x, .src1_addr = scale != F32_ONE ? x->x : src,
                    .src2_addr = mk, .rows = all}, MK, inb, NULL, 0);
            src = x->x;
            scale = F32_ONE;
        }
        tsl_cp_softmax(cp, src, IN, x->x, x->s1, r, v, scale, out, dd, OUT, TOK_DMA);
        break;
    }
    case TSL_ROW_OP_LAYERNORM:
    case TSL_ROW_OP_RMSNORM: {
        int ln = x->op == TSL_ROW_OP_LAYERNORM;
        uint32_t real = c->n - (v - 1u) * x->n;   /* the row's lanes in its last block */
        if (ln) {   /* x - mean */
            reduce(cp, r, v, TSL_VPU_OP_ADD, src, x->s1, inb, NULL, parts && inb);
            vop(cp, TSL_VPU_OP_MUL, x->s1, x->s1, f32_recip(c->n), TSL_SRC2_IMM, r);
            vop(cp, TSL_VPU_OP_MUL, x->s2, x->s1, F32_MINUS_ONE, TSL_SRC2_IMM, r);
            if ((cp->features >> TSL_TC_CFG_FEATURES_SEQ_SHIFT) & 1u)   /* EPI: vector i + s2's vector i mod r */
                tsl_cp_issue(cp, tsl_insn_vpu_epi_encode((tsl_insn_vpu_epi_t){
                        .dst_dtype = FP, .src1_dtype = FP, .bias = 1, .dst_addr = x->x, .src1_addr = src,
                        .src2_addr = x->s2, .rows = all, .bvecs = r}), inb, NULL, NULL, 0);
            else
                blocks(cp, TSL_VPU_OP_ADD, x->x, FP, src, x->s2, TSL_SRC2_VEC, r, v, inb, NULL, 0, 0u);
            src = x->x;
            if (real < x->n)   /* the padding lanes, 0 - mean, to 0: they add nothing to the squares */
                vec(cp, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MUL, .dst_dtype = FP, .src1_dtype = FP,
                                             .src2_dtype = FP, .src2_mode = TSL_SRC2_BCAST,
                                             .dst_addr = x->x + (v - 1u) * r * 4u * x->n,
                                             .src1_addr = x->x + (v - 1u) * r * 4u * x->n, .src2_addr = x->lm,
                                             .rows = r}, NULL, NULL, NULL, 0);
        }
        vec(cp, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MUL, .dst_dtype = FP, .src1_dtype = FP, .src2_dtype = FP,
                                     .src2_mode = TSL_SRC2_VEC, .dst_addr = x->t, .src1_addr = src, .src2_addr = src,
                                     .rows = all}, ln ? NULL : inb, NULL, NULL, 0);
        reduce(cp, r, v, TSL_VPU_OP_ADD, x->t, x->s2, NULL, NULL, 0);
        vop(cp, TSL_VPU_OP_MUL, x->s2, x->s2, f32_recip(c->n), TSL_SRC2_IMM, r);
        vop(cp, TSL_VPU_OP_ADD, x->s2, x->s2, c->scale, TSL_SRC2_IMM, r);
        vop(cp, TSL_VPU_OP_RSQRT, x->s2, x->s2, 0, 0, r);
        blocks(cp, TSL_VPU_OP_MUL, x->x, FP, src, x->s2, TSL_SRC2_VEC, r, v, ln ? NULL : inb, NULL, 0, 0u);
        if (!GB->wseq)   /* loaded behind the first tile's input, as late as its work allows */
            gb_loads(cp, x, GB);
        if (c->flags & TSL_CP_FLAG(BIAS)) {   /* the first use of gamma and beta waits for them */
            blocks(cp, TSL_VPU_OP_MUL, x->x, FP, x->x, x->gam, TSL_SRC2_BCAST, r, v, GB, NULL, 0, 0u);
            blocks(cp, TSL_VPU_OP_ADD, out, dd, x->x, x->bet, TSL_SRC2_BCAST, r, v, NULL, OUT, 0, TOK_DMA);
        } else {
            blocks(cp, TSL_VPU_OP_MUL, out, dd, x->x, x->gam, TSL_SRC2_BCAST, r, v, GB, OUT, 0, TOK_DMA);
        }
        return 1;
    }
    case TSL_ROW_OP_SUM: {   /* the row's sum, in each of its blocks */
        reduce(cp, r, v, TSL_VPU_OP_ADD, src, x->s1, inb, NULL, parts && inb);
        tsl_insn_t i = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = TSL_VPU_OP_MOV, .dst_dtype = dd, .src1_dtype = FP, .src1_addr = x->s1, .rows = r});
        for (uint32_t j = 0; j < v; j++) {
            TSL_SET(i.w, TSL_INSN_VPU_VEC_DST_ADDR, out + j * r * x->n * x->esc);
            tsl_cp_issue_run(cp, &i, j, v, IN, NULL, OUT, 0, TOK_DMA);
        }
        return 1;
    }
    }
    return 0;
}

void tsl_cp_exec_row(tsl_cp_t *cp, const tsl_cmd_t *c)
{
    row_t x;
    if (!plan(cp, c, &x))
        return;   /* validate() refused it already */
    uint32_t tiles = tsl_cp_ceil(c->m, x.r);
    tsl_cp_buf_t IN[2], MK[2], OUT[2], GB = {0, 0, {0, 0, 0}};
    for (int s = 0; s < 2; s++)
        IN[s] = MK[s] = OUT[s] = GB;
    int norm = x.op == TSL_ROW_OP_LAYERNORM || x.op == TSL_ROW_OP_RMSNORM;
    /* the first tile's reduction of the input, when it starts the work, follows its LOADs */
    int parts = (x.op == TSL_ROW_OP_LAYERNORM || x.op == TSL_ROW_OP_SUM) && c->a_dtype == FP && x.v > 1u &&
                !x.rowmajor && !x.addc;
    uint32_t real = c->n - (x.v - 1u) * x.n;
    if (x.op == TSL_ROW_OP_LAYERNORM && !x.rowmajor && real < x.n) {   /* compute()'s lane mask: clamp(real - l, 0, 1) */
        tsl_cp_lane_index(cp, x.lm, x.lm + 4u * x.n, x.lm + 8u * x.n, -(int32_t)real);
        vop32(cp, TSL_VPU_OP_MUL, x.lm, 0xFFFFFFFFu);
        vop32(cp, TSL_VPU_OP_MAX, x.lm, 0u);
        vop32(cp, TSL_VPU_OP_MIN, x.lm, 1u);
        vop32(cp, TSL_VPU_OP_MUL, x.lm, F32_ONE);   /* 1 -> 1.0's FP32 bits, 0 -> +0 */
    }
    for (uint32_t t = 0; t <= tiles; t++) {
        if (t < tiles)
            tile_loads(cp, &x, t & 1u, t * x.r, tsl_cp_min(x.r, c->m - t * x.r), &IN[t & 1u], &MK[t & 1u],
                       parts && !t);
        if (t == 0) {
            if (norm && x.rowmajor)   /* gamma and beta, behind the first tile */
                gb_loads(cp, &x, &GB);
            continue;
        }
        uint32_t u = t - 1u, s = u & 1u, m0 = u * x.r, mr = tsl_cp_min(x.r, c->m - m0);
        int stores = 0;   /* the STOREs follow the output's blocks one by one */
        if (x.rowmajor && norm) {   /* EPI ROW LAYERNORM or RMSNORM of the tile's rows (with ADD_C, of x) */
            uint32_t ln = x.op == TSL_ROW_OP_LAYERNORM;
            uint32_t sum = sum_in_mk(&x) ? x.mk[s] : x.x;   /* ADD_C's A + C */
            if (x.addc)
                addc(cp, &x, sum, x.in[s], x.mk[s], mr * x.v, &IN[s], &MK[s]);
            tsl_cp_issue(cp, tsl_insn_vpu_epi_encode((tsl_insn_vpu_epi_t){
                    .row = ln ? TSL_VPU_ROW_LAYERNORM : TSL_VPU_ROW_RMSNORM, .dst_dtype = c->c_dtype,
                    .src1_dtype = x.addc ? FP : c->a_dtype, .bias = ln && (c->flags & TSL_CP_FLAG(BIAS)),
                    .scale = c->scale, .zero_point = f32_recip(c->n), .dst_addr = x.out[s],
                    .src1_addr = x.addc ? sum : x.in[s], .src2_addr = x.gam, .rows = mr, .bvecs = x.v,
                    .pad = x.v * x.n - c->n}),
                !x.addc ? &IN[s] : sum == x.mk[s] ? &MK[s] : NULL, &GB, &OUT[s], TOK_DMA);
        } else if (x.rowmajor && x.op == TSL_ROW_OP_SOFTMAX) {   /* EPI ROW SOFTMAX of the tile's rows */
            uint32_t fscale = (c->flags & TSL_CP_FLAG(SCALE)) && c->scale != F32_ONE;
            tsl_cp_issue(cp, tsl_insn_vpu_epi_encode((tsl_insn_vpu_epi_t){
                    .row = TSL_VPU_ROW_SOFTMAX, .dst_dtype = c->c_dtype, .src1_dtype = c->a_dtype, .fscale = fscale,
                    .scale = fscale ? c->scale : 0u, .dst_addr = x.out[s], .src1_addr = x.in[s], .rows = mr,
                    .bvecs = x.v, .pad = x.v * x.n - c->n}),
                &IN[s], NULL, &OUT[s], TOK_DMA);
        } else if (x.rowmajor) {   /* GELU, SiLU: the VPU function, from the input buffer into the output */
            tsl_cp_issue(cp, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                    .op = TSL_VPU_OP_ACT, .act = x.op == TSL_ROW_OP_SILU ? TSL_VPU_ACT_SILU : TSL_VPU_ACT_GELU,
                    .dst_dtype = c->c_dtype,
                    .src1_dtype = c->a_dtype, .dst_addr = x.out[s], .src1_addr = x.in[s], .rows = x.v * x.r}),
                &IN[s], NULL, &OUT[s], TOK_DMA);
        } else {
            stores = compute(cp, &x, x.in[s], x.mk[s], x.out[s], &IN[s], &MK[s], &OUT[s], norm ? &GB : NULL, parts && !u);
        }
        tile_xfer(cp, &x, TSL_DMA_OP_STORE, c->c_addr, c->ldc, x.out[s], x.esc, m0, mr, &OUT[s], 0, stores);
    }
}
