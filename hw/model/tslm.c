/* libtessel_model: state, dispatch checks, queues and tokens, and instruction execution.
 * docs/isa.md is the specification this file implements; tslm_arith.c holds the number formats. */
#include "tslm.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tsl_insn.h"
#include "tslm_arith.h"
#include "tslm_fast.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the model stores memories little-endian");

enum { SPACE_VMEM = 1, SPACE_ACC = 2 };

static uint32_t ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void st32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static int is_pow2(uint32_t v)
{
    return v && !(v & (v - 1));
}

static int is_float(uint32_t dtype)
{
    return dtype == TSL_DTYPE_BF16 || dtype == TSL_DTYPE_FP32;
}

tslm_cfg_t tslm_cfg_default(void)
{
    tslm_cfg_t c = {
        .n = TSL_PARAM_N,
        .vmem_bytes = TSL_PARAM_VMEM_BYTES,
        .acc_bytes = TSL_PARAM_ACC_BYTES,
        .hbm_bytes = TSL_PARAM_HBM_BYTES,
        .queue_depth = TSL_PARAM_QUEUE_DEPTH,
        .features = (1u << TSL_TC_CFG_FEATURES_INT8_SHIFT) | (1u << TSL_TC_CFG_FEATURES_BF16_SHIFT) |
                    (1u << TSL_TC_CFG_FEATURES_SEQ_SHIFT) | (1u << TSL_TC_CFG_FEATURES_WINDOW_SHIFT) |
                    (1u << TSL_TC_CFG_FEATURES_FETCH_SHIFT) | (1u << TSL_TC_CFG_FEATURES_TRANSPOSE_SHIFT),
    };
    return c;
}

static void pod_detach(tslm_t *m);

void tslm_free(tslm_t *m)
{
    if (!m)
        return;
    pod_detach(m);
    free(m->hbm);
    free(m->vmem);
    free(m->acc);
    for (int b = 0; b < 2; b++) {
        free(m->wbuf[b].w);
        free(m->wbuf[b].w16);
    }
    for (unsigned u = 0; u < TSL_UNIT_LIMIT; u++)
        free(m->q[u].e);
    free(m->row_a);
    free(m->row_b);
    free(m->row_d);
    free(m->row_t);
    memset(m, 0, sizeof *m);
}

tslm_status_t tslm_init(tslm_t *m, const tslm_cfg_t *cfg)
{
    if (!m || !cfg)
        return TSLM_EINVAL;
    const uint32_t all_features = (1u << TSL_TC_CFG_FEATURES_INT8_SHIFT) | (1u << TSL_TC_CFG_FEATURES_BF16_SHIFT) |
                                  (1u << TSL_TC_CFG_FEATURES_SEQ_SHIFT) | (1u << TSL_TC_CFG_FEATURES_WINDOW_SHIFT) |
                                  (1u << TSL_TC_CFG_FEATURES_FETCH_SHIFT) | (1u << TSL_TC_CFG_FEATURES_TRANSPOSE_SHIFT) |
                                  (1u << TSL_TC_CFG_FEATURES_ICI_SHIFT);
    int ici = (cfg->features >> TSL_TC_CFG_FEATURES_ICI_SHIFT) & 1u;
    int pod_ok = ici ? cfg->core == TSL_CORE_TC && cfg->pod_x >= 1 && cfg->pod_x <= TSL_PARAM_ICI_DIM_MAX &&
                           cfg->pod_y >= 1 && cfg->pod_y <= TSL_PARAM_ICI_DIM_MAX && cfg->chip_x < cfg->pod_x &&
                           cfg->chip_y < cfg->pod_y
                     : !(cfg->pod_x | cfg->pod_y | cfg->chip_x | cfg->chip_y);
    if (!pod_ok || !is_pow2(cfg->n) || cfg->n < 4 || cfg->n > 128 ||
        !is_pow2(cfg->vmem_bytes) || cfg->vmem_bytes < 4096 || cfg->vmem_bytes > TSL_LOCAL_ACC_BASE ||
        !is_pow2(cfg->acc_bytes) || cfg->acc_bytes < 4096 || cfg->acc_bytes > (1u << 24) ||
        !is_pow2(cfg->hbm_bytes) || cfg->hbm_bytes < 4096 || cfg->hbm_bytes > (1u << 30) ||
        cfg->queue_depth < 1 || cfg->queue_depth > 255 ||
        !cfg->features || (cfg->features & ~all_features) || cfg->core >= TSL_CORE_COUNT)
        return TSLM_EINVAL;
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    if (cfg->core != TSL_CORE_TC)   /* the lite core has no sequencer, HBM window, fetch unit or transposed load */
        m->cfg.features &= ~((1u << TSL_TC_CFG_FEATURES_SEQ_SHIFT) | (1u << TSL_TC_CFG_FEATURES_WINDOW_SHIFT) |
                             (1u << TSL_TC_CFG_FEATURES_FETCH_SHIFT) | (1u << TSL_TC_CFG_FEATURES_TRANSPOSE_SHIFT));
    m->wr.hbm_base = 0;   /* the power-on window: all of HBM */
    m->wr.hbm_limit = cfg->hbm_bytes;
    size_t n = cfg->n;
    m->hbm = calloc(cfg->hbm_bytes, 1);
    m->vmem = calloc(cfg->vmem_bytes, 1);
    m->acc = calloc(cfg->acc_bytes, 1);
    m->row_a = calloc(n, sizeof(int32_t));
    m->row_b = calloc(n, sizeof(int32_t));
    m->row_d = calloc(n, sizeof(int32_t));
    m->row_t = calloc(n, sizeof(int32_t));
    int ok = m->hbm && m->vmem && m->acc && m->row_a && m->row_b && m->row_d && m->row_t;
    for (int b = 0; b < 2; b++) {
        m->wbuf[b].dtype = m->wbuf_dtype_pushed[b] = TSL_DTYPE_INT8;
        m->wbuf[b].w = calloc(n * n, sizeof(int32_t));
        m->wbuf[b].w16 = calloc(n * n, sizeof(int16_t));
        ok = ok && m->wbuf[b].w && m->wbuf[b].w16;
    }
    for (unsigned u = 0; u < TSL_UNIT_LIMIT; u++) {
        m->q[u].e = calloc(cfg->queue_depth, sizeof(tslm_qentry_t));
        ok = ok && m->q[u].e;
    }
    if (!ok) {
        tslm_free(m);
        return TSLM_ENOMEM;
    }
    m->rng = 1;
    const char *sf = getenv("TESSEL_MODEL_SOFTFLOAT");   /* read once per instance (tslm.h) */
    m->softfloat = !tslm_fast_available() || (sf && *sf && strcmp(sf, "0") != 0);
    return TSLM_OK;
}

void tslm_set_schedule(tslm_t *m, tslm_sched_t sched, uint64_t seed)
{
    if (!m)
        return;
    m->sched = sched;
    m->rng = seed * 0x9E3779B97F4A7C15ull | 1;
}

uint8_t *tslm_hbm(tslm_t *m) { return m ? m->hbm : NULL; }
uint8_t *tslm_vmem(tslm_t *m) { return m ? m->vmem : NULL; }
uint8_t *tslm_acc(tslm_t *m) { return m ? m->acc : NULL; }

/* ----------------------------------------------------------------------------- dispatch checks */

/* Which local memory holds `addr`: SPACE_VMEM, SPACE_ACC or 0. */
static int local_space(const tslm_t *m, uint32_t addr)
{
    if (addr < m->cfg.vmem_bytes)
        return SPACE_VMEM;
    if (addr >= TSL_LOCAL_ACC_BASE && addr - TSL_LOCAL_ACC_BASE < m->cfg.acc_bytes)
        return SPACE_ACC;
    return 0;
}

static uint8_t *local_ptr(tslm_t *m, uint32_t addr)
{
    return local_space(m, addr) == SPACE_ACC ? m->acc + (addr - TSL_LOCAL_ACC_BASE) : m->vmem + addr;
}

/* A local operand of `rows` rows of `row_bytes` bytes, `stride` apart, in one of `spaces`, with
 * address and stride aligned to `align`. Checks space, then alignment, then extent. */
static uint32_t check_local(const tslm_t *m, uint32_t addr, uint32_t stride, uint32_t rows,
                            uint32_t row_bytes, uint32_t align, int spaces, uint32_t *eaddr)
{
    int sp = local_space(m, addr);
    *eaddr = addr;
    if (!(sp & spaces))
        return TSL_ERR_LOCAL_RANGE;
    if (addr % align || stride % align || row_bytes % align)
        return TSL_ERR_MISALIGNED;
    uint64_t base = sp == SPACE_ACC ? TSL_LOCAL_ACC_BASE : 0;
    uint64_t size = sp == SPACE_ACC ? m->cfg.acc_bytes : m->cfg.vmem_bytes;
    if ((uint64_t)addr + (uint64_t)(rows - 1) * stride + row_bytes > base + size)
        return TSL_ERR_LOCAL_RANGE;
    return TSL_ERR_NONE;
}

/* A vector operand of `rows` contiguous rows of N elements of `dtype`. ACC holds 32-bit types only. */
static uint32_t check_vec(const tslm_t *m, uint32_t addr, uint32_t dtype, uint32_t rows, int spaces,
                          uint32_t *eaddr)
{
    uint32_t vb = m->cfg.n * tsl_dtype_bytes(dtype);
    if (tsl_dtype_bytes(dtype) != 4)
        spaces &= SPACE_VMEM;
    return check_local(m, addr, vb, rows, vb, vb, spaces, eaddr);
}

static int mxu_dtype_ok(const tslm_t *m, uint32_t dtype)
{
    if (dtype == TSL_DTYPE_INT8)
        return (m->cfg.features >> TSL_TC_CFG_FEATURES_INT8_SHIFT) & 1;
    if (dtype == TSL_DTYPE_BF16)
        return (m->cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1;
    return 0;
}

static int vpu_unary(uint32_t op)
{
    return tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
}

#define CHECK(e)                       \
    do {                               \
        uint32_t err_ = (e);           \
        if (err_ != TSL_ERR_NONE)      \
            return err_;               \
    } while (0)

int tslm_hbm_ok(const tslm_t *m, uint32_t addr, uint64_t end)
{
    return end <= m->cfg.hbm_bytes && addr >= m->wr.hbm_base && end <= m->wr.hbm_limit;
}

static uint32_t check_dma(const tslm_t *m, const uint32_t *w, uint32_t *eaddr)
{
    tsl_insn_dma_xfer_t x = tsl_insn_dma_xfer_decode(w);
    uint32_t rows = x.rows, rb = x.row_bytes, ha = x.hbm_addr, hs = x.hbm_stride;
    uint32_t la = x.local_addr, ls = x.local_stride;
    if (!rows || !rb)
        return TSL_ERR_BAD_FIELD;
    *eaddr = ha;
    if (!tslm_hbm_ok(m, ha, (uint64_t)ha + (uint64_t)(rows - 1) * hs + rb))
        return TSL_ERR_HBM_RANGE;
    uint32_t align = local_space(m, la) == SPACE_ACC ? 4 : 1;
    return check_local(m, la, ls, rows, rb, align, SPACE_VMEM | SPACE_ACC, eaddr);
}

/* A SEND: a destination in the pod other than this chip, no SIGNAL or NOTIFY with ASYNC, DONE_SEM 0
 * without DONE, its remote rows inside this chip's HBM window or, TO_LOCAL, a local operand of this
 * chip's (a pod's buffers are symmetric: at the same address on every chip), the local rows as a
 * STORE's. */
static uint32_t check_send(const tslm_t *m, const uint32_t *w, uint32_t *eaddr)
{
    tsl_insn_dma_send_t x = tsl_insn_dma_send_decode(w);
    if (!x.rows || !x.row_bytes || x.dest_x >= m->cfg.pod_x || x.dest_y >= m->cfg.pod_y ||
        (x.dest_x == m->cfg.chip_x && x.dest_y == m->cfg.chip_y) || (x.async && (x.signal || x.notify)) ||
        (!x.done && x.done_sem))
        return TSL_ERR_BAD_FIELD;
    *eaddr = x.remote_addr;
    if (x.to_local) {
        uint32_t ra = local_space(m, x.remote_addr) == SPACE_ACC ? 4 : 1;
        CHECK(check_local(m, x.remote_addr, x.remote_stride, x.rows, x.row_bytes, ra, SPACE_VMEM | SPACE_ACC, eaddr));
    } else if (!tslm_hbm_ok(m, x.remote_addr,
                            (uint64_t)x.remote_addr + (uint64_t)(x.rows - 1) * x.remote_stride + x.row_bytes)) {
        return TSL_ERR_HBM_RANGE;
    }
    uint32_t align = local_space(m, x.local_addr) == SPACE_ACC ? 4 : 1;
    return check_local(m, x.local_addr, x.local_stride, x.rows, x.row_bytes, align, SPACE_VMEM | SPACE_ACC, eaddr);
}

static uint32_t check_mxu(const tslm_t *m, const uint32_t *w, uint32_t op, uint32_t *eaddr)
{
    uint32_t n = m->cfg.n;
    if (op == TSL_MXU_OP_LOADW) {
        tsl_insn_mxu_loadw_t x = tsl_insn_mxu_loadw_decode(w);
        uint32_t vb = n * tsl_dtype_bytes(x.dtype);
        if (!mxu_dtype_ok(m, x.dtype))
            return TSL_ERR_BAD_FIELD;
        return check_local(m, x.addr, x.stride, n, vb, vb, SPACE_VMEM, eaddr);
    }
    if (op == TSL_MXU_OP_MATMULK) {
        tsl_insn_mxu_matmulk_t x = tsl_insn_mxu_matmulk_decode(w);
        uint32_t vb = n * tsl_dtype_bytes(x.dtype), rows = x.rows, kb = x.kblocks;
        if (!mxu_dtype_ok(m, x.dtype) || !rows || !kb)
            return TSL_ERR_BAD_FIELD;
        CHECK(check_local(m, x.act_addr, x.act_stride, rows, kb * vb, vb, SPACE_VMEM, eaddr));
        CHECK(check_local(m, x.acc_addr, x.acc_stride, rows, 4 * n, 4 * n, SPACE_ACC, eaddr));
        if (x.transpose)   /* N columns of KBLOCKS vectors */
            return check_local(m, x.w_addr, x.w_stride, n, kb * vb, vb, SPACE_VMEM, eaddr);
        return check_local(m, x.w_addr, x.w_stride, kb * n, vb, vb, SPACE_VMEM, eaddr);
    }
    tsl_insn_mxu_matmul_t x = tsl_insn_mxu_matmul_decode(w);
    uint32_t dt = x.dtype, vb = n * tsl_dtype_bytes(dt), rows = x.rows;
    if (!mxu_dtype_ok(m, dt) || !rows)
        return TSL_ERR_BAD_FIELD;
    CHECK(check_local(m, x.act_addr, x.act_stride, rows, vb, vb, SPACE_VMEM, eaddr));
    CHECK(check_local(m, x.acc_addr, x.acc_stride, rows, 4 * n, 4 * n, SPACE_ACC, eaddr));
    *eaddr = 0;
    if (m->wbuf_dtype_pushed[x.wbuf] != dt)
        return TSL_ERR_WBUF_DTYPE;
    return TSL_ERR_NONE;
}

static uint32_t check_vpu(const tslm_t *m, const uint32_t *w, uint32_t op, uint32_t *eaddr)
{
    tsl_insn_vpu_vec_t x = tsl_insn_vpu_vec_decode(w);
    uint32_t dd = x.dst_dtype, d1 = x.src1_dtype, d2 = x.src2_dtype, mode = x.src2_mode;
    uint32_t rows = x.rows, src2 = x.src2_addr;
    int unary = vpu_unary(op), fl = is_float(d1);
    if (!rows)
        return TSL_ERR_BAD_FIELD;
    if (unary ? (mode || d2 || src2) : mode > TSL_SRC2_IMM)
        return TSL_ERR_BAD_FIELD;
    if (!unary && mode == TSL_SRC2_IMM && tsl_dtype_bytes(d2) != 4)
        return TSL_ERR_BAD_FIELD;
    if (!tsl_ops_has(fl ? TSL_OPS_FLOAT : TSL_OPS_INT, TSL_UNIT_VPU, op))
        return TSL_ERR_BAD_FIELD;
    if (op == TSL_VPU_OP_REQUANT) {
        if (x.shift > 62)
            return TSL_ERR_BAD_FIELD;
    } else if (x.scale || x.shift || x.zero_point) {
        return TSL_ERR_BAD_FIELD;
    }
    if (op == TSL_VPU_OP_ACT ? x.act >= TSL_VPU_ACT_LIMIT : x.act != 0)
        return TSL_ERR_BAD_FIELD;
    if (is_float(dd) != fl || (!unary && is_float(d2) != fl))
        return TSL_ERR_BAD_FIELD;
    if (fl && !((m->cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1))
        return TSL_ERR_BAD_FIELD;
    int both = SPACE_VMEM | SPACE_ACC;
    CHECK(check_vec(m, x.dst_addr, dd, rows, both, eaddr));
    CHECK(check_vec(m, x.src1_addr, d1, rows, both, eaddr));
    if (!unary && mode != TSL_SRC2_IMM)
        CHECK(check_vec(m, src2, d2, mode == TSL_SRC2_BCAST ? 1 : rows, both, eaddr));
    return TSL_ERR_NONE;
}

/* EPI (isa.md "VPU EPI"): field values, then dst, src1 and (BIAS) the BVECS bias vectors, as check_vpu. */
static uint32_t check_epi(const tslm_t *m, const uint32_t *w, uint32_t *eaddr)
{
    tsl_insn_vpu_epi_t x = tsl_insn_vpu_epi_decode(w);
    uint32_t dd = x.dst_dtype, d1 = x.src1_dtype;
    int fl = d1 == TSL_DTYPE_FP32, i8 = dd == TSL_DTYPE_INT8;
    if (!x.rows)
        return TSL_ERR_BAD_FIELD;
    if (d1 != TSL_DTYPE_INT32 && d1 != TSL_DTYPE_FP32)
        return TSL_ERR_BAD_FIELD;
    if (fl ? (dd != TSL_DTYPE_FP32 && dd != TSL_DTYPE_BF16) : (dd != TSL_DTYPE_INT32 && !i8))
        return TSL_ERR_BAD_FIELD;
    if (fl && !((m->cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1))
        return TSL_ERR_BAD_FIELD;
    if (x.fscale && !fl)
        return TSL_ERR_BAD_FIELD;
    if (x.scale && !(i8 || x.fscale))
        return TSL_ERR_BAD_FIELD;
    if (i8 ? x.shift > 62 : x.shift != 0)
        return TSL_ERR_BAD_FIELD;
    if (x.zero_point && !i8)
        return TSL_ERR_BAD_FIELD;
    if ((x.src2_addr && !x.bias) || (x.bias ? !x.bvecs : x.bvecs))
        return TSL_ERR_BAD_FIELD;
    if (x.pad || x.blocked)
        return TSL_ERR_BAD_FIELD;
    int both = SPACE_VMEM | SPACE_ACC;
    CHECK(check_vec(m, x.dst_addr, dd, x.rows, both, eaddr));
    CHECK(check_vec(m, x.src1_addr, d1, x.rows, both, eaddr));
    if (x.bias)
        CHECK(check_vec(m, x.src2_addr, d1, x.bvecs, both, eaddr));
    return TSL_ERR_NONE;
}

/* Whether two local ranges of bytes overlap. */
static int overlap(uint64_t a, uint64_t a_bytes, uint64_t b, uint64_t b_bytes)
{
    return a < b + b_bytes && b < a + a_bytes;
}

/* EPI with a ROW function: floats in (BF16, FP32) and out, no RELU, PAD below N, BVECS vectors a
 * row; SOFTMAX: no BIAS or SRC2_ADDR, SCALE only with FSCALE (ZERO_POINT: a causal mask); the
 * norms: no FSCALE, BIAS (beta) for LAYERNORM only. Then dst, src1 (ROWS rows of BVECS vectors each)
 * and for the norms src2 (gamma's BVECS FP32 vectors, then beta's with BIAS); dst must overlap
 * neither source. */
static uint32_t check_epi_row(const tslm_t *m, const uint32_t *w, uint32_t *eaddr)
{
    tsl_insn_vpu_epi_t x = tsl_insn_vpu_epi_decode(w);
    uint32_t dd = x.dst_dtype, d1 = x.src1_dtype, n = m->cfg.n;
    int norm = x.row == TSL_VPU_ROW_LAYERNORM || x.row == TSL_VPU_ROW_RMSNORM;
    if (!x.rows || x.row >= TSL_VPU_ROW_LIMIT || !is_float(d1) || !is_float(dd) ||
        !((m->cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1))
        return TSL_ERR_BAD_FIELD;
    if (x.relu || x.shift || !x.bvecs || x.pad >= n)
        return TSL_ERR_BAD_FIELD;
    if (norm ? x.fscale || (x.bias && x.row != TSL_VPU_ROW_LAYERNORM)
             : x.bias || x.src2_addr || (x.scale && !x.fscale))
        return TSL_ERR_BAD_FIELD;
    int both = SPACE_VMEM | SPACE_ACC;
    uint32_t vecs = x.rows * x.bvecs, gvecs = x.bvecs * (x.bias ? 2u : 1u);   /* below 2^32 */
    CHECK(check_vec(m, x.dst_addr, dd, vecs, both, eaddr));
    CHECK(check_vec(m, x.src1_addr, d1, vecs, both, eaddr));
    if (norm)
        CHECK(check_vec(m, x.src2_addr, TSL_DTYPE_FP32, gvecs, both, eaddr));
    *eaddr = 0;
    uint64_t db = (uint64_t)vecs * n * tsl_dtype_bytes(dd);
    if (overlap(x.dst_addr, db, x.src1_addr, (uint64_t)vecs * n * tsl_dtype_bytes(d1)) ||
        (norm && overlap(x.dst_addr, db, x.src2_addr, (uint64_t)gvecs * n * 4u)))
        return TSL_ERR_BAD_FIELD;
    return TSL_ERR_NONE;
}

/* Every dispatch check of docs/isa.md, in its documented order. Returns an ERR code. */
static uint32_t validate(tslm_t *m, const uint32_t *w, uint32_t *eaddr)
{
    tsl_insn_hdr_t h = tsl_insn_hdr_decode(w);
    uint32_t unit = h.unit, op = h.op;
    int fmt = tsl_insn_format(unit, op);
    *eaddr = 0;
    if (fmt < 0 || !tsl_op_on_core(m->cfg.core, unit, op) ||
        (tsl_ops_has(TSL_OPS_NEED_ICI, unit, op) && !((m->cfg.features >> TSL_TC_CFG_FEATURES_ICI_SHIFT) & 1u)))
        return TSL_ERR_BAD_OPCODE;
    /* TRANSPOSE is bit 22 of LOADW and MATMULK alike: an op this core lacks without the feature */
    if ((fmt == TSL_FMT_MXU_LOADW && tsl_insn_mxu_loadw_decode(w).transpose) ||
        (fmt == TSL_FMT_MXU_MATMULK && tsl_insn_mxu_matmulk_decode(w).transpose))
        if (!((m->cfg.features >> TSL_TC_CFG_FEATURES_TRANSPOSE_SHIFT) & 1u))
            return TSL_ERR_BAD_OPCODE;
    for (unsigned i = 0; i < TSL_PARAM_INSN_WORDS; i++)
        if (w[i] & ~tsl_insn_used_bits(fmt, i))
            return TSL_ERR_BAD_FIELD;
    uint32_t wait = h.wait, signal = h.signal;
    if ((wait | signal) & (1u << unit))
        return TSL_ERR_BAD_FIELD;
    if (fmt == TSL_FMT_DMA_XFER)
        CHECK(check_dma(m, w, eaddr));
    else if (fmt == TSL_FMT_DMA_SEND)
        CHECK(check_send(m, w, eaddr));
    else if (fmt == TSL_FMT_DMA_SEMWAIT && !tsl_insn_dma_semwait_decode(w).count)
        return TSL_ERR_BAD_FIELD;
    else if (fmt == TSL_FMT_MXU_LOADW || fmt == TSL_FMT_MXU_MATMUL || fmt == TSL_FMT_MXU_MATMULK)
        CHECK(check_mxu(m, w, op, eaddr));
    else if (fmt == TSL_FMT_VPU_VEC)
        CHECK(check_vpu(m, w, op, eaddr));
    else if (fmt == TSL_FMT_VPU_EPI)
        CHECK(tsl_insn_vpu_epi_decode(w).row ? check_epi_row(m, w, eaddr) : check_epi(m, w, eaddr));
    *eaddr = 0;
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++) {
        if (((wait >> u) & 1) && m->credit[u][unit] == 0)
            return TSL_ERR_TOKEN_UNDERFLOW;
        if (((signal >> u) & 1) && m->credit[unit][u] >= TSL_PARAM_TOKEN_MAX)
            return TSL_ERR_TOKEN_OVERFLOW;
    }
    return TSL_ERR_NONE;
}

/* ---------------------------------------------------------------------------------- execution */

static void exec_dma(tslm_t *m, const uint32_t *w, uint32_t op)
{
    tsl_insn_dma_xfer_t x = tsl_insn_dma_xfer_decode(w);
    uint32_t rows = x.rows, rb = x.row_bytes, ha = x.hbm_addr, hs = x.hbm_stride;
    uint32_t la = x.local_addr, ls = x.local_stride;
    uint8_t *local = local_ptr(m, la);
    for (uint32_t r = 0; r < rows; r++) {
        uint8_t *h = m->hbm + ha + (uint64_t)r * hs, *l = local + (uint64_t)r * ls;
        if (op == TSL_DMA_OP_LOAD)
            memcpy(l, h, rb);
        else
            memcpy(h, l, rb);
    }
    m->perf[op == TSL_DMA_OP_LOAD ? TSL_PERF_HBM_RD_BYTES : TSL_PERF_HBM_WR_BYTES] += (uint64_t)rows * rb;
}

/* W[k][j] = element j of the vector at addr + k*stride, or (transpose) element k of the vector at
 * addr + j*stride. */
static void loadw(tslm_t *m, uint32_t dt, uint32_t wbuf, uint32_t addr, uint32_t stride, uint32_t transpose)
{
    uint32_t n = m->cfg.n;
    tslm_wbuf_t *b = &m->wbuf[wbuf];
    b->dtype = dt;
    for (uint32_t r = 0; r < n; r++) {
        const uint8_t *row = m->vmem + addr + (uint64_t)r * stride;
        for (uint32_t e = 0; e < n; e++) {
            uint32_t at = transpose ? e * n + r : r * n + e;
            if (dt == TSL_DTYPE_INT8) {
                b->w[at] = (int8_t)row[e];
            } else {
                uint16_t h;
                memcpy(&h, row + 2 * e, 2);
                b->w[at] = (int32_t)((uint32_t)h << 16);
            }
        }
    }
    if (dt == TSL_DTYPE_INT8 && !m->softfloat)
        tslm_fast_int8_pairs(b->w, n, b->w16);
}

static void matmul(tslm_t *m, uint32_t dt, uint32_t wbuf, uint32_t accumulate, uint32_t act, uint32_t as,
                   uint32_t acc, uint32_t cs, uint32_t rows)
{
    uint32_t n = m->cfg.n;
    const int32_t *wt = m->wbuf[wbuf].w;
    uint32_t *y = (uint32_t *)m->row_d;
    for (uint32_t i = 0; i < rows; i++) {
        const uint8_t *x = m->vmem + act + (uint64_t)i * as;
        uint8_t *out = m->acc + acc + (uint64_t)i * cs;
        if (dt == TSL_DTYPE_INT8 && !m->softfloat) {
            tslm_fast_mxu_int8_row(x, m->wbuf[wbuf].w16, n, (int)accumulate, out);   /* exact: any order */
        } else if (dt == TSL_DTYPE_INT8) {
            memset(y, 0, n * sizeof *y);
            for (uint32_t k = 0; k < n; k++) {
                int32_t a = (int8_t)x[k];
                const int32_t *wrow = wt + k * n;
                for (uint32_t j = 0; j < n; j++)
                    y[j] += (uint32_t)(a * wrow[j]);
            }
            for (uint32_t j = 0; j < n; j++)
                st32(out + 4 * j, accumulate ? ld32(out + 4 * j) + y[j] : y[j]);
        } else if (!m->softfloat) {
            tslm_fast_mxu_bf16_row(x, wt, n, (int)accumulate, out);   /* the same order, on the host's float unit */
        } else {
            /* Column j sums rows k = 0..N-1 in order, starting from +0: the systolic order. */
            memset(y, 0, n * sizeof *y);
            for (uint32_t k = 0; k < n; k++) {
                uint16_t h;
                memcpy(&h, x + 2 * k, 2);
                uint32_t a = (uint32_t)h << 16;
                const int32_t *wrow = wt + k * n;
                for (uint32_t j = 0; j < n; j++)
                    y[j] = tslm_f32_add(y[j], tslm_f32_mul(a, (uint32_t)wrow[j]));
            }
            for (uint32_t j = 0; j < n; j++)
                st32(out + 4 * j, accumulate ? tslm_f32_add(ld32(out + 4 * j), y[j]) : y[j]);
        }
    }
    m->perf[TSL_PERF_MXU_MACS] += (uint64_t)rows * n * n;
}

static void exec_loadw(tslm_t *m, const uint32_t *w)
{
    tsl_insn_mxu_loadw_t x = tsl_insn_mxu_loadw_decode(w);
    loadw(m, x.dtype, x.wbuf, x.addr, x.stride, x.transpose);
}

static void exec_matmul(tslm_t *m, const uint32_t *w)
{
    tsl_insn_mxu_matmul_t x = tsl_insn_mxu_matmul_decode(w);
    matmul(m, x.dtype, x.wbuf, x.accumulate, x.act_addr, x.act_stride, x.acc_addr - TSL_LOCAL_ACC_BASE,
           x.acc_stride, x.rows);
}

/* MATMULK is exactly its KBLOCKS LOADW/MATMUL pairs in order (isa.md); with TRANSPOSE, K-block k's
 * tile is the k-th vector of each weight column. */
static void exec_matmulk(tslm_t *m, const uint32_t *w)
{
    tsl_insn_mxu_matmulk_t x = tsl_insn_mxu_matmulk_decode(w);
    uint32_t n = m->cfg.n, dt = x.dtype, wb = x.wbuf, ws = x.w_stride, vb = n * tsl_dtype_bytes(dt);
    uint32_t wstep = x.transpose ? vb : n * ws;
    for (uint32_t k = 0; k < x.kblocks; k++) {
        loadw(m, dt, wb ^ (k & 1u), x.w_addr + k * wstep, ws, x.transpose);
        matmul(m, dt, wb ^ (k & 1u), x.accumulate || k > 0, x.act_addr + k * vb, x.act_stride,
               x.acc_addr - TSL_LOCAL_ACC_BASE, x.acc_stride, x.rows);
    }
}

/* fp32 add and multiply on the path the model runs (tslm_t.softfloat); the same bits either way. */
static uint32_t fadd(const tslm_t *m, uint32_t a, uint32_t b)
{
    return m->softfloat ? tslm_f32_add(a, b) : tslm_fast_f32_add(a, b);
}

static uint32_t fmul(const tslm_t *m, uint32_t a, uint32_t b)
{
    return m->softfloat ? tslm_f32_mul(a, b) : tslm_fast_f32_mul(a, b);
}

/* Read row `r` of N elements of `dtype` at local `addr` as int32 values or canonical fp32 bits. */
static void load_row(tslm_t *m, uint32_t addr, uint32_t dtype, int32_t *dst)
{
    const uint8_t *p = local_ptr(m, addr);
    for (uint32_t j = 0; j < m->cfg.n; j++) {
        switch (dtype) {
        case TSL_DTYPE_INT8: dst[j] = (int8_t)p[j]; break;
        case TSL_DTYPE_INT32: dst[j] = (int32_t)ld32(p + 4 * j); break;
        case TSL_DTYPE_BF16: {
            uint16_t h;
            memcpy(&h, p + 2 * j, 2);
            dst[j] = (int32_t)tslm_f32_from_bf16(h);
            break;
        }
        default: dst[j] = (int32_t)tslm_f32_canon(ld32(p + 4 * j)); break;
        }
    }
}

/* Write N computed values to local `addr` as `dtype`: int8 saturates, bf16 rounds to nearest even. */
static void store_row(tslm_t *m, uint32_t addr, uint32_t dtype, const int32_t *src)
{
    uint8_t *p = local_ptr(m, addr);
    for (uint32_t j = 0; j < m->cfg.n; j++) {
        switch (dtype) {
        case TSL_DTYPE_INT8: p[j] = (uint8_t)tslm_sat_i8(src[j]); break;
        case TSL_DTYPE_BF16: {
            uint16_t h = tslm_bf16_from_f32((uint32_t)src[j]);
            memcpy(p + 2 * j, &h, 2);
            break;
        }
        default: st32(p + 4 * j, (uint32_t)src[j]); break;
        }
    }
}

/* Reduce a row in a pairwise tree: level by level, t[i] = op(t[2i], t[2i+1]). */
static int32_t reduce_row(const tslm_t *m, int32_t *t, uint32_t n, uint32_t op, int fl)
{
    for (uint32_t len = n; len > 1; len /= 2) {
        for (uint32_t i = 0; i < len / 2; i++) {
            int32_t a = t[2 * i], b = t[2 * i + 1];
            if (op == TSL_VPU_OP_RSUM)
                t[i] = fl ? (int32_t)fadd(m, (uint32_t)a, (uint32_t)b) : tslm_i32_add(a, b);
            else
                t[i] = fl ? (int32_t)tslm_f32_max((uint32_t)a, (uint32_t)b) : (a > b ? a : b);
        }
    }
    return t[0];
}

static void exec_vpu(tslm_t *m, const uint32_t *w, uint32_t op)
{
    tsl_insn_vpu_vec_t x = tsl_insn_vpu_vec_decode(w);
    uint32_t n = m->cfg.n, rows = x.rows, dd = x.dst_dtype, d1 = x.src1_dtype, d2 = x.src2_dtype;
    uint32_t mode = x.src2_mode, dst = x.dst_addr, s1 = x.src1_addr, s2 = x.src2_addr, shift = x.shift;
    int32_t scale = (int32_t)x.scale, zp = (int32_t)x.zero_point;
    int fl = is_float(d1), unary = vpu_unary(op);
    int32_t *a = m->row_a, *b = m->row_b, *d = m->row_d;
    for (uint32_t i = 0; i < rows; i++) {
        load_row(m, s1 + i * n * tsl_dtype_bytes(d1), d1, a);
        if (!unary && mode == TSL_SRC2_IMM) {
            int32_t imm = fl ? (int32_t)tslm_f32_canon(s2) : (int32_t)s2;
            for (uint32_t j = 0; j < n; j++)
                b[j] = imm;
        } else if (!unary) {
            load_row(m, s2 + (mode == TSL_SRC2_BCAST ? 0 : i) * n * tsl_dtype_bytes(d2), d2, b);
        }
        if (op == TSL_VPU_OP_RSUM || op == TSL_VPU_OP_RMAX) {
            int32_t r = reduce_row(m, a, n, op, fl);
            for (uint32_t j = 0; j < n; j++)
                d[j] = r;
        }
        int fast_fn = fl && !m->softfloat && tslm_f32_is_fn(op);   /* the functions on the fast path */
        for (uint32_t j = 0; j < n && fast_fn; j++)
            d[j] = (int32_t)tslm_fast_f32_fn(op, x.act, (uint32_t)a[j]);
        for (uint32_t j = 0; j < n && !fast_fn && op != TSL_VPU_OP_RSUM && op != TSL_VPU_OP_RMAX; j++) {
            uint32_t ua = (uint32_t)a[j], ub = (uint32_t)b[j];
            switch (op) {
            case TSL_VPU_OP_ADD: d[j] = fl ? (int32_t)fadd(m, ua, ub) : tslm_i32_add(a[j], b[j]); break;
            case TSL_VPU_OP_MUL: d[j] = fl ? (int32_t)fmul(m, ua, ub) : tslm_i32_mul(a[j], b[j]); break;
            case TSL_VPU_OP_MAX: d[j] = fl ? (int32_t)tslm_f32_max(ua, ub) : (a[j] > b[j] ? a[j] : b[j]); break;
            case TSL_VPU_OP_MIN: d[j] = fl ? (int32_t)tslm_f32_min(ua, ub) : (a[j] < b[j] ? a[j] : b[j]); break;
            case TSL_VPU_OP_RELU: d[j] = fl ? (int32_t)tslm_f32_max(ua, 0) : (a[j] > 0 ? a[j] : 0); break;
            case TSL_VPU_OP_REQUANT: d[j] = tslm_sat_i32(tslm_requant(a[j], scale, shift, zp)); break;
            /* the functions (float class only), and MOV */
            default: d[j] = tslm_f32_is_fn(op) ? (int32_t)tslm_f32_fn(op, x.act, ua) : a[j]; break;
            }
        }
        store_row(m, dst + i * n * tsl_dtype_bytes(dd), dd, d);
    }
}

/* Vector j of row r of an EPI ROW function's a values: src1 widened, times SCALE with FSCALE, and
 * in the PAD lanes of the row's last vector `pad` (the softmax's -inf, the norms' +0). */
/* A ROW function's row r, vector j: its vector index in src1 and dst (BLOCKED: block-major). */
static uint32_t row_at(const tsl_insn_vpu_epi_t *x, uint32_t r, uint32_t j)
{
    return x->blocked ? j * x->rows + r : r * x->bvecs + j;
}

static void row_vec(tslm_t *m, const tsl_insn_vpu_epi_t *x, uint32_t r, uint32_t j, int32_t *a, uint32_t pad)
{
    uint32_t n = m->cfg.n, d1 = x->src1_dtype, sc = tslm_f32_canon(x->scale);
    load_row(m, x->src1_addr + row_at(x, r, j) * n * tsl_dtype_bytes(d1), d1, a);
    for (uint32_t l = 0; l < n; l++) {
        if (j + 1 == x->bvecs && l >= n - x->pad) {
            a[l] = (int32_t)pad;
            continue;
        }
        if (x->fscale)
            a[l] = (int32_t)fmul(m, (uint32_t)a[l], sc);
        if (x->row == TSL_VPU_ROW_SOFTMAX && x->zero_point &&   /* causal: an additive -inf mask */
            (uint64_t)j * n + l >= (uint64_t)x->zero_point + r)
            a[l] = (int32_t)fadd(m, (uint32_t)a[l], 0xFF800000u);
    }
}

static uint32_t fn1(const tslm_t *m, uint32_t op, uint32_t a)
{
    return m->softfloat ? tslm_f32_fn(op, 0, a) : tslm_fast_f32_fn(op, 0, a);
}

/* EPI ROW SOFTMAX (isa.md "VPU EPI"), each row in three passes: each lane's MAX of its elements,
 * the MAX of the lanes (M); each lane's sum of EXP(a - M) in element order, their pairwise tree
 * (S); each element's EXP(a - M) * RECIP(S). */
static void exec_row_softmax(tslm_t *m, const tsl_insn_vpu_epi_t *x)
{
    uint32_t n = m->cfg.n, v = x->bvecs, dd = x->dst_dtype;
    int32_t *a = m->row_a, *acc = m->row_b, *t = m->row_t, *d = m->row_d;
    for (uint32_t r = 0; r < x->rows; r++) {
        for (uint32_t j = 0; j < v; j++) {
            row_vec(m, x, r, j, a, 0xFF800000u);
            for (uint32_t l = 0; l < n; l++)
                acc[l] = j ? (int32_t)tslm_f32_max((uint32_t)acc[l], (uint32_t)a[l]) : a[l];
        }
        memcpy(t, acc, n * sizeof *t);
        uint32_t neg_max = (uint32_t)reduce_row(m, t, n, TSL_VPU_OP_RMAX, 1) ^ 0x80000000u;
        for (uint32_t j = 0; j < v; j++) {
            row_vec(m, x, r, j, a, 0xFF800000u);
            for (uint32_t l = 0; l < n; l++) {
                uint32_t e = fn1(m, TSL_VPU_OP_EXP, fadd(m, (uint32_t)a[l], neg_max));
                acc[l] = j ? (int32_t)fadd(m, (uint32_t)acc[l], e) : (int32_t)e;
            }
        }
        memcpy(t, acc, n * sizeof *t);
        uint32_t rs = fn1(m, TSL_VPU_OP_RECIP, (uint32_t)reduce_row(m, t, n, TSL_VPU_OP_RSUM, 1));
        for (uint32_t j = 0; j < v; j++) {
            row_vec(m, x, r, j, a, 0xFF800000u);
            for (uint32_t l = 0; l < n; l++)
                d[l] = (int32_t)fmul(m, fn1(m, TSL_VPU_OP_EXP, fadd(m, (uint32_t)a[l], neg_max)), rs);
            store_row(m, x->dst_addr + row_at(x, r, j) * n * tsl_dtype_bytes(dd), dd, d);
        }
    }
}

/* EPI ROW LAYERNORM and RMSNORM (isa.md "VPU EPI"), each row in its passes: each lane's sum of a
 * (LAYERNORM) in element order, the lanes' tree, times 1/length (ZERO_POINT): the mean; d = a - mean
 * (fmul by +0 in the PAD lanes; RMSNORM: d = a); each lane's sum of d*d, the tree, times 1/length,
 * plus SCALE: R = RSQRT of it; the elements d * R * gamma (+ beta), gamma's and beta's vector j for
 * each row's vector j. */
/* The norms' d of row vector j (its elements a): a - mean (fadd of -mean; then fmul by +0 in the
 * PAD lanes) for LAYERNORM, a for RMSNORM, in place. */
static void norm_d(tslm_t *m, const tsl_insn_vpu_epi_t *x, uint32_t j, int32_t *a, uint32_t neg_mean)
{
    uint32_t n = m->cfg.n;
    if (x->row != TSL_VPU_ROW_LAYERNORM)
        return;
    for (uint32_t l = 0; l < n; l++) {
        a[l] = (int32_t)fadd(m, (uint32_t)a[l], neg_mean);
        if (j + 1 == x->bvecs && l >= n - x->pad)
            a[l] = (int32_t)fmul(m, (uint32_t)a[l], 0u);
    }
}

static void exec_row_norm(tslm_t *m, const tsl_insn_vpu_epi_t *x)
{
    uint32_t n = m->cfg.n, v = x->bvecs, dd = x->dst_dtype, rn = tslm_f32_canon(x->zero_point);
    uint32_t eps = tslm_f32_canon(x->scale);
    int ln = x->row == TSL_VPU_ROW_LAYERNORM;
    int32_t *a = m->row_a, *acc = m->row_b, *t = m->row_t, *d = m->row_d;
    for (uint32_t r = 0; r < x->rows; r++) {
        uint32_t neg_mean = 0;
        if (ln) {
            for (uint32_t j = 0; j < v; j++) {
                row_vec(m, x, r, j, a, 0u);
                for (uint32_t l = 0; l < n; l++)
                    acc[l] = j ? (int32_t)fadd(m, (uint32_t)acc[l], (uint32_t)a[l]) : a[l];
            }
            memcpy(t, acc, n * sizeof *t);
            neg_mean = fmul(m, fmul(m, (uint32_t)reduce_row(m, t, n, TSL_VPU_OP_RSUM, 1), rn), 0xBF800000u);
        }
        for (uint32_t j = 0; j < v; j++) {   /* the squares */
            row_vec(m, x, r, j, a, 0u);
            norm_d(m, x, j, a, neg_mean);
            for (uint32_t l = 0; l < n; l++) {
                uint32_t q = fmul(m, (uint32_t)a[l], (uint32_t)a[l]);
                acc[l] = j ? (int32_t)fadd(m, (uint32_t)acc[l], q) : (int32_t)q;
            }
        }
        memcpy(t, acc, n * sizeof *t);
        uint32_t var = fmul(m, (uint32_t)reduce_row(m, t, n, TSL_VPU_OP_RSUM, 1), rn);
        uint32_t rs = fn1(m, TSL_VPU_OP_RSQRT, fadd(m, var, eps));
        for (uint32_t j = 0; j < v; j++) {
            row_vec(m, x, r, j, a, 0u);
            norm_d(m, x, j, a, neg_mean);
            load_row(m, x->src2_addr + j * n * 4u, TSL_DTYPE_FP32, t);   /* gamma's vector j */
            for (uint32_t l = 0; l < n; l++)
                d[l] = (int32_t)fmul(m, fmul(m, (uint32_t)a[l], rs), (uint32_t)t[l]);
            if (x->bias) {   /* beta's vector j */
                load_row(m, x->src2_addr + (v + j) * n * 4u, TSL_DTYPE_FP32, t);
                for (uint32_t l = 0; l < n; l++)
                    d[l] = (int32_t)fadd(m, (uint32_t)d[l], (uint32_t)t[l]);
            }
            store_row(m, x->dst_addr + row_at(x, r, j) * n * tsl_dtype_bytes(dd), dd, d);
        }
    }
}

/* EPI: per row, the steps MUL (IMM), ADD (BCAST), RELU, then REQUANT or MOV, each exactly the
 * VPU_VEC op of that name done in place. Between the steps the value passes through what an FP32
 * (or INT32) store and load would make of it: tslm_f32_canon (the identity on the steps' results,
 * which are canonical already) and nothing for integers. */
static void exec_epi(tslm_t *m, const uint32_t *w)
{
    tsl_insn_vpu_epi_t x = tsl_insn_vpu_epi_decode(w);
    if (x.row == TSL_VPU_ROW_SOFTMAX) {
        exec_row_softmax(m, &x);
        return;
    }
    if (x.row) {
        exec_row_norm(m, &x);
        return;
    }
    uint32_t n = m->cfg.n, d1 = x.src1_dtype, dd = x.dst_dtype;
    int fl = d1 == TSL_DTYPE_FP32;
    int32_t *a = m->row_a, *b = m->row_b;
    uint32_t sc = tslm_f32_canon(x.scale);
    for (uint32_t i = 0; i < x.rows; i++) {
        load_row(m, x.src1_addr + i * n * 4, d1, a);
        if (x.bias)
            load_row(m, x.src2_addr + i % x.bvecs * n * 4, d1, b);
        for (uint32_t j = 0; j < n; j++) {
            uint32_t v = (uint32_t)a[j];
            if (fl) {
                if (x.fscale)
                    v = tslm_f32_canon(fmul(m, v, sc));
                if (x.bias)
                    v = tslm_f32_canon(fadd(m, v, (uint32_t)b[j]));
                if (x.relu)
                    v = tslm_f32_canon(tslm_f32_max(v, 0));
            } else {
                if (x.bias)
                    v = (uint32_t)tslm_i32_add((int32_t)v, b[j]);
                if (x.relu && (int32_t)v < 0)
                    v = 0;
                if (dd == TSL_DTYPE_INT8)
                    v = (uint32_t)tslm_sat_i32(tslm_requant((int32_t)v, (int32_t)x.scale, x.shift,
                                                            (int32_t)x.zero_point));
            }
            a[j] = (int32_t)v;
        }
        store_row(m, x.dst_addr + i * n * tsl_dtype_bytes(dd), dd, a);
    }
}

/* ------------------------------------------------------------------------------------- the pod */

struct tslm_pod {
    pthread_mutex_t mu;
    pthread_cond_t cv;     /* a remote write arrived, or the run deadlocked */
    uint32_t x, y;
    tslm_t **chip;         /* x * y, chip (cx, cy) at cy * x + cx; NULL where none is attached */
    uint32_t active;       /* chips of the run neither waiting nor gone (tslm_pod_begin, _leave) */
    int deadlock;          /* every chip of the run waited or had left: no wait can be met */
};

tslm_status_t tslm_pod_new(tslm_pod_t **pod, uint32_t x, uint32_t y)
{
    if (!pod || x < 1 || y < 1 || x > TSL_PARAM_ICI_DIM_MAX || y > TSL_PARAM_ICI_DIM_MAX)
        return TSLM_EINVAL;
    tslm_pod_t *p = calloc(1, sizeof *p);
    if (!p || !(p->chip = calloc((size_t)x * y, sizeof *p->chip))) {
        free(p);
        return TSLM_ENOMEM;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->x = x;
    p->y = y;
    *pod = p;
    return TSLM_OK;
}

void tslm_pod_free(tslm_pod_t *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->x * p->y; i++)
        if (p->chip[i])
            p->chip[i]->pod = NULL;
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->chip);
    free(p);
}

tslm_status_t tslm_pod_attach(tslm_pod_t *p, tslm_t *m)
{
    if (!p || !m || m->pod || !((m->cfg.features >> TSL_TC_CFG_FEATURES_ICI_SHIFT) & 1u) ||
        m->cfg.pod_x != p->x || m->cfg.pod_y != p->y)
        return TSLM_EINVAL;
    tslm_t **slot = &p->chip[m->cfg.chip_y * p->x + m->cfg.chip_x];
    pthread_mutex_lock(&p->mu);
    int free_slot = !*slot;
    if (free_slot) {
        *slot = m;
        m->pod = p;
    }
    pthread_mutex_unlock(&p->mu);
    return free_slot ? TSLM_OK : TSLM_EINVAL;
}

static void pod_detach(tslm_t *m)
{
    if (m->pod)
        tslm_pod_detach(m->pod, m->cfg.chip_x, m->cfg.chip_y);
}

void tslm_pod_detach(tslm_pod_t *p, uint32_t x, uint32_t y)
{
    if (!p || x >= p->x || y >= p->y)
        return;
    pthread_mutex_lock(&p->mu);
    tslm_t **slot = &p->chip[y * p->x + x];
    if (*slot)
        (*slot)->pod = NULL;
    *slot = NULL;
    pthread_mutex_unlock(&p->mu);
}

void tslm_pod_begin(tslm_pod_t *p, uint32_t chips)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->active = chips;
    p->deadlock = 0;
    pthread_mutex_unlock(&p->mu);
}

/* With the lock held: one chip fewer runs; if none does, no wait can ever be met. */
static void pod_idle(tslm_pod_t *p)
{
    if (p->active)
        p->active--;
    if (!p->active) {
        p->deadlock = 1;
        pthread_cond_broadcast(&p->cv);
    }
}

void tslm_pod_leave(tslm_pod_t *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    pod_idle(p);
    pthread_mutex_unlock(&p->mu);
}

/* Take (on) or give back the lock of m's pod, which guards m's semaphores; nothing outside a pod. */
static void sem_lock(const tslm_t *m, int on)
{
    if (m->pod && on)
        pthread_mutex_lock(&m->pod->mu);
    else if (m->pod)
        pthread_mutex_unlock(&m->pod->mu);
}

/* The SEMWAIT at the head of m's DMA queue, or NULL. */
static const uint32_t *semwait_head(const tslm_t *m)
{
    const tslm_queue_t *q = &m->q[TSL_UNIT_DMA];
    if (!q->count || tsl_insn_hdr_decode(q->e[q->head].w).op != TSL_DMA_OP_SEMWAIT)
        return NULL;
    return q->e[q->head].w;
}

/* The head of m's DMA queue is a SEMWAIT whose semaphore holds too little (the pod's lock held). */
static int sem_short(const tslm_t *m)
{
    const uint32_t *w = semwait_head(m);
    if (!w)
        return 0;
    tsl_insn_dma_semwait_t x = tsl_insn_dma_semwait_decode(w);
    return m->sem[x.sem] < x.count;
}

/* Nothing of m can start. If a SEMWAIT holds its DMA queue, wait for a remote write and return 1; 0
 * when there is nothing to wait for, or the pod deadlocked (or m is in none): then ERR_SEM_DEADLOCK
 * is raised on m. */
static int pod_wait(tslm_t *m)
{
    tslm_pod_t *p = m->pod;
    if (!semwait_head(m))
        return 0;
    sem_lock(m, 1);
    while (p && sem_short(m) && !p->deadlock) {   /* an arrival on another semaphore: wait again */
        m->blocked = 1;
        pod_idle(p);
        while (m->blocked && !p->deadlock)
            pthread_cond_wait(&p->cv, &p->mu);
        if (m->blocked) {   /* a sender takes a chip it wakes back into the run */
            m->blocked = 0;
            p->active++;
        }
    }
    int stuck = sem_short(m);
    sem_lock(m, 0);
    if (stuck && m->err_code == TSL_ERR_NONE) {
        const tslm_queue_t *q = &m->q[TSL_UNIT_DMA];
        m->err_code = TSL_ERR_SEM_DEADLOCK;
        m->err_unit = TSL_ERR_UNIT_DMA;
        m->err_seq = q->e[q->head].seq;
        m->err_addr = 0;
        m->wr.irq_status |= 1u << TSL_TC_IRQ_STATUS_ERROR_SHIFT;
    }
    return !stuck;
}

/* Wake chip d if a semaphore of it counted while it slept (the pod's lock held). */
static void wake(tslm_pod_t *p, tslm_t *d)
{
    if (d->blocked) {
        d->blocked = 0;
        p->active++;
        pthread_cond_broadcast(&p->cv);
    }
}

/* SEND: the rows into the destination's HBM or local memory, then its semaphore; with DONE, this
 * chip's. */
static void exec_send(tslm_t *m, const uint32_t *w)
{
    tsl_insn_dma_send_t x = tsl_insn_dma_send_decode(w);
    tslm_pod_t *p = m->pod;
    if (!p)
        return;   /* a chip outside any pod: its links lead nowhere */
    pthread_mutex_lock(&p->mu);
    tslm_t *d = p->chip[x.dest_y * p->x + x.dest_x];
    if (d) {   /* else no chip is there: the write is lost, as on a dead link */
        const uint8_t *local = local_ptr(m, x.local_addr);
        uint8_t *remote = x.to_local ? local_ptr(d, x.remote_addr) : d->hbm + x.remote_addr;
        for (uint32_t r = 0; r < x.rows; r++)
            memcpy(remote + (uint64_t)r * x.remote_stride, local + (uint64_t)r * x.local_stride, x.row_bytes);
        d->sem[x.sem]++;
        wake(p, d);
    }
    if (x.done)   /* its bytes have left, landed or lost */
        m->sem[x.done_sem]++;
    pthread_mutex_unlock(&p->mu);
}

/* SEMWAIT, once its semaphore holds COUNT (head_ready): take them. */
static void exec_semwait(tslm_t *m, const uint32_t *w)
{
    tsl_insn_dma_semwait_t x = tsl_insn_dma_semwait_decode(w);
    sem_lock(m, 1);
    m->sem[x.sem] -= x.count;
    sem_lock(m, 0);
}

static void execute(tslm_t *m, uint32_t unit, const uint32_t *w)
{
    uint32_t op = tsl_insn_hdr_decode(w).op;
    /* The fast path's float mode (FTZ, DAZ, round to nearest) around the units that compute; the
     * caller's mode is back before the model returns. */
    int fast = !m->softfloat && unit != TSL_UNIT_DMA;
    unsigned mode = fast ? tslm_fast_enter() : 0;
    if (unit == TSL_UNIT_DMA && op == TSL_DMA_OP_SEND)
        exec_send(m, w);
    else if (unit == TSL_UNIT_DMA && op == TSL_DMA_OP_SEMWAIT)
        exec_semwait(m, w);
    else if (unit == TSL_UNIT_DMA && op != TSL_DMA_OP_SYNC)
        exec_dma(m, w, op);
    else if (unit == TSL_UNIT_MXU && op == TSL_MXU_OP_LOADW)
        exec_loadw(m, w);
    else if (unit == TSL_UNIT_MXU && op == TSL_MXU_OP_MATMUL)
        exec_matmul(m, w);
    else if (unit == TSL_UNIT_MXU && op == TSL_MXU_OP_MATMULK)
        exec_matmulk(m, w);
    else if (unit == TSL_UNIT_VPU && op == TSL_VPU_OP_EPI)
        exec_epi(m, w);
    else if (unit == TSL_UNIT_VPU && op != TSL_VPU_OP_SYNC)
        exec_vpu(m, w, op);
    if (fast)
        tslm_fast_leave(mode);
    static const uint32_t insns[TSL_UNIT_LIMIT] = {TSL_PERF_DMA_INSNS, TSL_PERF_MXU_INSNS, TSL_PERF_VPU_INSNS};
    m->perf[insns[unit]]++;
}

/* ------------------------------------------------------------------------- queues and tokens */

static int head_ready(const tslm_t *m, uint32_t unit)
{
    const tslm_queue_t *q = &m->q[unit];
    if (!q->count)
        return 0;
    uint32_t wait = tsl_insn_hdr_decode(q->e[q->head].w).wait;
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
        if (((wait >> u) & 1) && !m->tokens[u][unit])
            return 0;
    if (unit != TSL_UNIT_DMA || !semwait_head(m))
        return 1;
    sem_lock(m, 1);
    int ready = !sem_short(m);
    sem_lock(m, 0);
    return ready;
}

/* Run one queue head that may start. Returns 0 when none can (every queue is empty). */
static int step(tslm_t *m)
{
    uint32_t ready[TSL_UNIT_LIMIT], nready = 0, pick = 0;
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++) {
        if (!head_ready(m, u))
            continue;
        ready[nready++] = u;
        /* Push order: the ready head pushed first (the oldest unrun instruction is always ready). */
        if (m->q[u].e[m->q[u].head].seq < m->q[ready[pick]].e[m->q[ready[pick]].head].seq)
            pick = nready - 1;
    }
    if (!nready)
        return 0;
    if (m->sched == TSLM_SCHED_RANDOM) {
        m->rng ^= m->rng << 13;
        m->rng ^= m->rng >> 7;
        m->rng ^= m->rng << 17;
        pick = (uint32_t)(m->rng % nready);
    }
    uint32_t unit = ready[pick];
    tslm_queue_t *q = &m->q[unit];
    const uint32_t *w = q->e[q->head].w;
    tsl_insn_hdr_t h = tsl_insn_hdr_decode(w);
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
        if ((h.wait >> u) & 1)
            m->tokens[u][unit]--;
    execute(m, unit, w);
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
        if ((h.signal >> u) & 1)
            m->tokens[unit][u]++;
    if (h.notify) {
        m->notify_count++;
        m->wr.irq_status |= 1u << TSL_TC_IRQ_STATUS_NOTIFY_SHIFT;
    }
    q->head = (q->head + 1) % m->cfg.queue_depth;
    q->count--;
    return 1;
}

/* Run until every queue is empty; in a pod, waiting for remote writes while a SEMWAIT holds the
 * queues (until the error of a deadlock stops it). */
static void drain(tslm_t *m)
{
    do {
        while (step(m)) {
        }
    } while (m->err_code == TSL_ERR_NONE && pod_wait(m));
}

void tslm_run(tslm_t *m)
{
    if (m)
        drain(m);
}

tslm_status_t tslm_push(tslm_t *m, const uint32_t *insn)
{
    if (!m || !insn)
        return TSLM_EINVAL;
    if (m->err_code != TSL_ERR_NONE)
        return TSLM_EDEVICE;
    uint32_t eaddr, err = validate(m, insn, &eaddr);
    tsl_insn_hdr_t h = tsl_insn_hdr_decode(insn);
    uint32_t unit = h.unit;
    if (err != TSL_ERR_NONE) {
        m->err_code = err;
        m->err_unit = unit;
        m->err_seq = m->push_count;
        m->err_addr = eaddr;
        m->wr.irq_status |= 1u << TSL_TC_IRQ_STATUS_ERROR_SHIFT;
        return TSLM_EDEVICE;
    }
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++) {
        m->credit[u][unit] -= (h.wait >> u) & 1;
        m->credit[unit][u] += (h.signal >> u) & 1;
    }
    if (unit == TSL_UNIT_MXU && h.op == TSL_MXU_OP_LOADW) {
        tsl_insn_mxu_loadw_t x = tsl_insn_mxu_loadw_decode(insn);
        m->wbuf_dtype_pushed[x.wbuf] = x.dtype;
    }
    if (unit == TSL_UNIT_MXU && h.op == TSL_MXU_OP_MATMULK) {
        tsl_insn_mxu_matmulk_t x = tsl_insn_mxu_matmulk_decode(insn);
        m->wbuf_dtype_pushed[x.wbuf] = x.dtype;
        if (x.kblocks > 1)
            m->wbuf_dtype_pushed[x.wbuf ^ 1u] = x.dtype;
    }
    tslm_queue_t *q = &m->q[unit];
    while (q->count == m->cfg.queue_depth) {   /* the hardware's push stalls until the queue has room */
        if (!step(m) && !pod_wait(m))
            return TSLM_EDEVICE;   /* deadlocked: the push is lost with the error */
    }
    tslm_qentry_t *e = &q->e[(q->head + q->count) % m->cfg.queue_depth];
    memcpy(e->w, insn, sizeof e->w);
    e->seq = m->push_count++;
    q->count++;
    if (m->sched == TSLM_SCHED_PUSH_ORDER)
        tslm_run(m);
    return TSLM_OK;
}

/* ---------------------------------------------------------------------------------- registers */

static void reset_control(tslm_t *m)
{
    for (uint32_t u = 0; u < TSL_UNIT_LIMIT; u++)
        m->q[u].head = m->q[u].count = 0;
    memset(m->credit, 0, sizeof m->credit);
    memset(m->tokens, 0, sizeof m->tokens);
    memset(m->insn_stage, 0, sizeof m->insn_stage);
    memset(m->seq_stage, 0, sizeof m->seq_stage);
    m->push_count = m->notify_count = 0;
    m->err_code = m->err_unit = m->err_seq = m->err_addr = 0;
    m->wr.irq_status = m->wr.prog_hold = 0;
    m->prog_held = 0;
    for (int b = 0; b < 2; b++)
        m->wbuf_dtype_pushed[b] = m->wbuf[b].dtype;
    sem_lock(m, 1);
    memset(m->sem, 0, sizeof m->sem);
    sem_lock(m, 0);
}

uint32_t tslm_reg_read(tslm_t *m, uint32_t offset)
{
    if (!m)
        return 0;
    if (offset == TSL_TC_QUEUE_LEVEL_OFFSET)
        return (m->q[TSL_UNIT_DMA].count << TSL_TC_QUEUE_LEVEL_DMA_SHIFT) |
               (m->q[TSL_UNIT_MXU].count << TSL_TC_QUEUE_LEVEL_MXU_SHIFT) |
               (m->q[TSL_UNIT_VPU].count << TSL_TC_QUEUE_LEVEL_VPU_SHIFT);
    tslm_run(m);
    if (offset >= TSL_TC_PERF_BASE && offset < TSL_TC_PERF_BASE + 8 * TSL_PERF_COUNT && !(offset & 3)) {
        uint64_t v = m->perf[(offset - TSL_TC_PERF_BASE) / 8];
        return (offset & 4) ? (uint32_t)(v >> 32) : (uint32_t)v;
    }
    int window = (m->cfg.features >> TSL_TC_CFG_FEATURES_WINDOW_SHIFT) & 1u;
    tsl_tc_rd_t r = {
        .id = TSL_ID_VALUE,
        .cfg_n = m->cfg.n,
        .cfg_vmem_bytes = m->cfg.vmem_bytes,
        .cfg_acc_bytes = m->cfg.acc_bytes,
        .cfg_hbm_bytes = m->cfg.hbm_bytes,
        .cfg_features = m->cfg.features,
        .cfg_queue_depth = m->cfg.queue_depth,
        .status = ((uint32_t)!m->prog_held << TSL_TC_STATUS_IDLE_SHIFT) |
                  ((uint32_t)(m->err_code != TSL_ERR_NONE) << TSL_TC_STATUS_ERROR_SHIFT),
        .err_code = m->err_code,
        .err_unit = m->err_unit,
        .err_seq = m->err_seq,
        .err_addr = m->err_addr,
        .push_count = m->push_count,
        .notify_count = m->notify_count,
        .queue_level = 0,   /* read above, before running */
        .tokens_dma_mxu = m->tokens[TSL_UNIT_DMA][TSL_UNIT_MXU],
        .tokens_dma_vpu = m->tokens[TSL_UNIT_DMA][TSL_UNIT_VPU],
        .tokens_mxu_dma = m->tokens[TSL_UNIT_MXU][TSL_UNIT_DMA],
        .tokens_mxu_vpu = m->tokens[TSL_UNIT_MXU][TSL_UNIT_VPU],
        .tokens_vpu_dma = m->tokens[TSL_UNIT_VPU][TSL_UNIT_DMA],
        .tokens_vpu_mxu = m->tokens[TSL_UNIT_VPU][TSL_UNIT_MXU],
        .prog_status = (uint32_t)m->prog_held,   /* else a fetch has run to its end when tslm_reg_write returns */
    };
    tsl_tc_rd_from_wr(&r, &m->wr);
    if (!window)   /* the window's registers read 0 without it */
        r.hbm_base = r.hbm_limit = 0;
    return tsl_tc_rd_mux(&r, offset);
}

static void seq_push(void *ctx, const tsl_insn_t *insn)
{
    if (tslm_push(ctx, insn->w) != TSLM_OK) {
        /* a rejection shows in ERR_CODE, as in the hardware */
    }
}

/* A write of SEQ23: check the descriptor, then push its expansion (docs/isa.md section 8). */
static void seq_launch(tslm_t *m)
{
    uint32_t eaddr, err;
    if (!((m->cfg.features >> TSL_TC_CFG_FEATURES_SEQ_SHIFT) & 1u) || m->err_code != TSL_ERR_NONE)
        return;
    err = tslm_seq_check(m, m->seq_stage, &eaddr);
    if (err != TSL_ERR_NONE) {
        m->err_code = err;
        m->err_unit = TSL_ERR_UNIT_SEQ;
        m->err_seq = m->push_count;
        m->err_addr = eaddr;
        m->wr.irq_status |= 1u << TSL_TC_IRQ_STATUS_ERROR_SHIFT;
        return;
    }
    tslm_seq_expand(&m->cfg, m->seq_stage, seq_push, m);
}

static void fetch_error(tslm_t *m, uint32_t err, uint32_t addr)
{
    m->err_code = err;
    m->err_unit = TSL_ERR_UNIT_FETCH;
    m->err_seq = m->push_count;
    m->err_addr = addr;
    m->wr.irq_status |= 1u << TSL_TC_IRQ_STATUS_ERROR_SHIFT;
}

/* A write of PROG_BYTES (while PROG_HOLD.HOLD is 1: the write of 0 to it, the hardware reading ahead
 * meanwhile): the device program [PROG_ADDR, PROG_ADDR + PROG_BYTES) record by record, each
 * through the INSN7 and SEQ23 write paths, until its end or the first error (docs/isa.md section 6,
 * Program fetch). The program is read from HBM as it runs: its own DMAs must not write it (the
 * hardware reads ahead; the window keeps a program's DMAs off it). */
static void run_program(tslm_t *m)
{
    uint32_t base = m->wr.prog_addr, bytes = m->wr.prog_bytes;
    if (!bytes || m->err_code != TSL_ERR_NONE)
        return;
    if ((uint64_t)base + bytes > m->cfg.hbm_bytes) {
        fetch_error(m, TSL_ERR_HBM_RANGE, base);
        return;
    }
    for (uint32_t off = 0; off < bytes && m->err_code == TSL_ERR_NONE;) {
        uint32_t hdr = ld32(m->hbm + base + off);
        uint32_t kind = TSL_GET(&hdr, TSL_PROG_HDR_KIND), count = TSL_GET(&hdr, TSL_PROG_HDR_COUNT);
        uint32_t words = kind == TSL_PROG_REC_INSN ? count * TSL_PARAM_INSN_WORDS : TSL_PARAM_SEQ_WORDS;
        int bad = (kind != TSL_PROG_REC_INSN && kind != TSL_PROG_REC_SEQ) || count == 0 ||
                  (kind == TSL_PROG_REC_SEQ && count != 1) ||
                  (hdr & ~(TSL_PROG_HDR_KIND_MASK << TSL_PROG_HDR_KIND_SHIFT |
                           TSL_PROG_HDR_COUNT_MASK << TSL_PROG_HDR_COUNT_SHIFT)) != 0 ||
                  4u * (uint64_t)words > bytes - off - 4;
        if (bad) {
            fetch_error(m, TSL_ERR_BAD_RECORD, base + off);
            return;
        }
        off += 4;
        if (kind == TSL_PROG_REC_SEQ) {
            memcpy(m->seq_stage, m->hbm + base + off, sizeof m->seq_stage);
            seq_launch(m);
            off += 4 * TSL_PARAM_SEQ_WORDS;
            continue;
        }
        for (uint32_t k = 0; k < count && m->err_code == TSL_ERR_NONE; k++, off += 4 * TSL_PARAM_INSN_WORDS) {
            memcpy(m->insn_stage, m->hbm + base + off, sizeof m->insn_stage);
            if (tslm_push(m, m->insn_stage) != TSLM_OK) {
                /* a rejection shows in ERR_CODE and stops the fetch, as in the hardware */
            }
        }
    }
}

void tslm_reg_write(tslm_t *m, uint32_t offset, uint32_t value)
{
    if (!m)
        return;
    if (offset >= TSL_TC_SEQ0_OFFSET && offset <= TSL_TC_SEQ23_OFFSET && !(offset & 3)) {
        m->seq_stage[(offset - TSL_TC_SEQ0_OFFSET) / 4] = value;
        if (offset == TSL_TC_SEQ23_OFFSET)
            seq_launch(m);
        return;
    }
    if (offset >= TSL_TC_INSN0_OFFSET && offset <= TSL_TC_INSN7_OFFSET && !(offset & 3)) {
        m->insn_stage[(offset - TSL_TC_INSN0_OFFSET) / 4] = value;
        if (offset == TSL_TC_INSN7_OFFSET && tslm_push(m, m->insn_stage) != TSLM_OK) {
            /* a rejection shows in ERR_CODE, as in the hardware */
        }
        return;
    }
    if (offset == TSL_TC_CTRL_OFFSET) {
        if ((value >> TSL_TC_CTRL_RESET_SHIFT) & 1)
            reset_control(m);
        if ((value >> TSL_TC_CTRL_CLEAR_PERF_SHIFT) & 1)
            memset(m->perf, 0, sizeof m->perf);
        return;
    }
    /* the rw and w1c registers through the spec's decode, then the bits the model implements: a core
     * without the window or the fetch unit ignores their registers */
    tsl_tc_wr_t w = m->wr;
    if (!tsl_tc_wr_apply(&w, offset, value))
        return;
    w.irq_enable &= (1u << TSL_TC_IRQ_STATUS_NOTIFY_SHIFT) | (1u << TSL_TC_IRQ_STATUS_ERROR_SHIFT);
    if (!((m->cfg.features >> TSL_TC_CFG_FEATURES_WINDOW_SHIFT) & 1u)) {
        w.hbm_base = m->wr.hbm_base;
        w.hbm_limit = m->wr.hbm_limit;
    }
    if ((m->cfg.features >> TSL_TC_CFG_FEATURES_FETCH_SHIFT) & 1u) {
        w.prog_addr &= ~3u;
        w.prog_bytes &= ~3u;
        w.prog_hold &= TSL_TC_PROG_HOLD_HOLD_MASK << TSL_TC_PROG_HOLD_HOLD_SHIFT;
    } else {
        w.prog_addr = w.prog_bytes = w.prog_hold = 0;
    }
    m->wr = w;
    if (offset == TSL_TC_PROG_BYTES_OFFSET && w.prog_hold && w.prog_bytes && m->err_code == TSL_ERR_NONE)
        m->prog_held = 1;
    else if (offset == TSL_TC_PROG_BYTES_OFFSET || (offset == TSL_TC_PROG_HOLD_OFFSET && !w.prog_hold && m->prog_held)) {
        m->prog_held = 0;
        run_program(m);
    }
}

int tslm_irq(const tslm_t *m)
{
    return m && (m->wr.irq_status & m->wr.irq_enable) != 0;
}
