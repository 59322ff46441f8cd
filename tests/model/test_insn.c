/* Directed tests of every instruction of the golden model and of every error it reports.
 * Results are compared with references written here (byte loops, exact integers, host float with
 * FTZ/DAZ); whole memories are compared, so a stray write anywhere fails. Each error case checks
 * ERR_CODE/UNIT/SEQ/ADDR, STATUS and IRQ, that no memory changed, that later pushes are dropped
 * and that CTRL.RESET recovers. Usage: test_insn [SEED] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "test_util.h"
#include "tsl_insn.h"
#include "tslm.h"
#include "tslm_arith.h"

#define HBM_BYTES (1u << 20)
#define ACC TSL_LOCAL_ACC_BASE

static tu_t T;

static void fresh(tslm_t *m, uint32_t n, uint32_t features)
{
    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.n = n;
    cfg.hbm_bytes = HBM_BYTES;
    if (features)
        cfg.features = features;
    if (tslm_init(m, &cfg) != TSLM_OK) {
        printf("tslm_init failed\n");
        exit(2);
    }
    for (uint32_t i = 0; i < HBM_BYTES; i++)
        m->hbm[i] = (uint8_t)tu_next(&T.rng);
    for (uint32_t i = 0; i < cfg.vmem_bytes; i++)
        m->vmem[i] = (uint8_t)tu_next(&T.rng);
    for (uint32_t i = 0; i < cfg.acc_bytes; i++)
        m->acc[i] = (uint8_t)tu_next(&T.rng);
}

typedef struct {
    uint8_t *hbm, *vmem, *acc;
} snap_t;

static snap_t snap(const tslm_t *m)
{
    snap_t s = {malloc(m->cfg.hbm_bytes), malloc(m->cfg.vmem_bytes), malloc(m->cfg.acc_bytes)};
    memcpy(s.hbm, m->hbm, m->cfg.hbm_bytes);
    memcpy(s.vmem, m->vmem, m->cfg.vmem_bytes);
    memcpy(s.acc, m->acc, m->cfg.acc_bytes);
    return s;
}

/* Compare a memory with its expected image; report the first differing address. */
static int same_mem(const char *what, const char *name, const uint8_t *want, const uint8_t *got, uint32_t bytes)
{
    for (uint32_t i = 0; i < bytes; i++)
        if (want[i] != got[i])
            return tu_check(&T, 0, "%s: %s first differs at 0x%x: expected 0x%02x got 0x%02x",
                            what, name, i, want[i], got[i]);
    return 1;
}

static void check_snap(const char *what, const tslm_t *m, const snap_t *s)
{
    int ok = same_mem(what, "HBM", s->hbm, m->hbm, m->cfg.hbm_bytes) &&
             same_mem(what, "VMEM", s->vmem, m->vmem, m->cfg.vmem_bytes) &&
             same_mem(what, "ACC", s->acc, m->acc, m->cfg.acc_bytes);
    tu_check(&T, ok, "%s: memories as expected", what);
    free(s->hbm);
    free(s->vmem);
    free(s->acc);
}

static void push_ok(tslm_t *m, tsl_insn_t i, const char *what)
{
    int ok = tslm_push(m, i.w) == TSLM_OK;   /* ERR_CODE read after it, and only on a refusal (a read runs the model) */
    tu_check(&T, ok, "%s: accepted (ERR_CODE %u)", what, ok ? 0u : tslm_reg_read(m, TSL_TC_ERR_CODE_OFFSET));
}

/* Push a bad instruction and check everything docs/isa.md promises about the error. */
static void expect_err(tslm_t *m, tsl_insn_t i, uint32_t code, uint32_t eaddr, const char *what)
{
    snap_t s = snap(m);
    uint32_t seq = tslm_reg_read(m, TSL_TC_PUSH_COUNT_OFFSET);
    tslm_reg_write(m, TSL_TC_IRQ_ENABLE_OFFSET, 1u << TSL_TC_IRQ_STATUS_ERROR_SHIFT);
    int rc = tslm_push(m, i.w);
    uint32_t got = tslm_reg_read(m, TSL_TC_ERR_CODE_OFFSET);
    tu_check(&T, rc == TSLM_EDEVICE && got == code, "%s: ERR_CODE %s expected, got %s", what,
             tsl_err_name(code), tsl_err_name(got) ? tsl_err_name(got) : "?");
    tu_check(&T, tslm_reg_read(m, TSL_TC_ERR_SEQ_OFFSET) == seq &&
                 tslm_reg_read(m, TSL_TC_ERR_UNIT_OFFSET) == TSL_GET(i.w, TSL_INSN_HDR_UNIT) &&
                 tslm_reg_read(m, TSL_TC_ERR_ADDR_OFFSET) == eaddr,
             "%s: ERR_SEQ/UNIT/ADDR (addr expected 0x%x got 0x%x)", what, eaddr,
             tslm_reg_read(m, TSL_TC_ERR_ADDR_OFFSET));
    tu_check(&T, (tslm_reg_read(m, TSL_TC_STATUS_OFFSET) >> TSL_TC_STATUS_ERROR_SHIFT) & 1 && tslm_irq(m),
             "%s: STATUS.ERROR and the interrupt are set", what);
    tsl_insn_t sync = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_VPU});
    tu_check(&T, tslm_push(m, sync.w) == TSLM_EDEVICE && tslm_reg_read(m, TSL_TC_PUSH_COUNT_OFFSET) == seq,
             "%s: a later push is dropped", what);
    check_snap(what, m, &s);
    tslm_reg_write(m, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
    tu_check(&T, tslm_reg_read(m, TSL_TC_STATUS_OFFSET) == (1u << TSL_TC_STATUS_IDLE_SHIFT) && !tslm_irq(m) &&
                 tslm_push(m, sync.w) == TSLM_OK,
             "%s: CTRL.RESET clears the error and pushes work again", what);
    tslm_reg_write(m, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
}

/* ---------------------------------------------------------------------------------------- DMA */

static void dma_case(tslm_t *m, uint32_t op, uint32_t ha, uint32_t hs, uint32_t la, uint32_t ls,
                     uint32_t rows, uint32_t rb, const char *what)
{
    snap_t s = snap(m);
    uint8_t *local = la >= ACC ? s.acc + (la - ACC) : s.vmem + la;
    for (uint32_t r = 0; r < rows; r++)          /* rows in order, bytes in order */
        for (uint32_t b = 0; b < rb; b++) {
            if (op == TSL_DMA_OP_LOAD)
                local[(size_t)r * ls + b] = s.hbm[ha + (size_t)r * hs + b];
            else
                s.hbm[ha + (size_t)r * hs + b] = local[(size_t)r * ls + b];
        }
    push_ok(m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = op, .hbm_addr = ha, .local_addr = la, .rows = rows, .row_bytes = rb, .hbm_stride = hs,
            .local_stride = ls}), what);
    check_snap(what, m, &s);
}

static void test_dma(void)
{
    tslm_t m;
    fresh(&m, 16, 0);
    dma_case(&m, TSL_DMA_OP_LOAD, 0x1235, 1000, 0x101, 77, 9, 61, "LOAD unaligned rows, strides != width");
    dma_case(&m, TSL_DMA_OP_STORE, 0x30003, 333, 0x2000, 129, 7, 100, "STORE unaligned rows");
    dma_case(&m, TSL_DMA_OP_LOAD, 0x777, 0, 0x3000, 64, 5, 64, "LOAD with HBM stride 0 repeats a row");
    dma_case(&m, TSL_DMA_OP_LOAD, 0x100, 50, 0x4000, 10, 6, 40, "LOAD with overlapping local rows");
    dma_case(&m, TSL_DMA_OP_STORE, 0x9000, 3, 0x5000, 64, 8, 16, "STORE with overlapping HBM rows");
    dma_case(&m, TSL_DMA_OP_LOAD, 0x5555, 1, 0x6000, 1, 1, 1, "LOAD of one byte");
    dma_case(&m, TSL_DMA_OP_LOAD, 0x10, 64, ACC + 0x40, 128, 12, 64, "LOAD into ACC");
    dma_case(&m, TSL_DMA_OP_STORE, 0x20001, 4096, ACC + 0x100, 64, 3, 60, "STORE from ACC");
    dma_case(&m, TSL_DMA_OP_LOAD, 0x0, 1, 0x10000, 1, 65535, 1, "LOAD of the maximum row count");
    dma_case(&m, TSL_DMA_OP_LOAD, 0x40000, 0, 0x20000, 0, 1, 65535, "LOAD of the maximum row length");
    dma_case(&m, TSL_DMA_OP_STORE, HBM_BYTES - 100, 0, TSL_PARAM_VMEM_BYTES - 100, 0, 1, 100,
             "STORE ending exactly at the ends of HBM and VMEM");
    tu_check(&T, tslm_reg_read(&m, TSL_TC_PERF_DMA_INSNS_LO_OFFSET) == 11 &&
                 tslm_reg_read(&m, TSL_TC_PERF_HBM_WR_BYTES_LO_OFFSET) == 7 * 100 + 8 * 16 + 3 * 60 + 100,
             "DMA_INSNS and HBM_WR_BYTES count the transfers");
    tslm_free(&m);
}

/* The HBM window (TC HBM_BASE, HBM_LIMIT): its reset values, that CTRL.RESET keeps it, and the DMA
 * dispatch check against it: a DMA whose HBM extent [addr, addr + (ROWS-1)*HBM_STRIDE + ROW_BYTES)
 * leaves [HBM_BASE, HBM_LIMIT) or HBM is ERR_HBM_RANGE with ERR_ADDR = HBM_ADDR; random windows
 * and transfers on and across both edges, the expected outcome computed here. */
static void window_set(tslm_t *m, uint32_t base, uint32_t limit)
{
    tslm_reg_write(m, TSL_TC_HBM_BASE_OFFSET, base);
    tslm_reg_write(m, TSL_TC_HBM_LIMIT_OFFSET, limit);
}

static void test_window(void)
{
    tslm_t m;
    char what[160];
    fresh(&m, 16, 0);
    tu_check(&T, tslm_reg_read(&m, TSL_TC_HBM_BASE_OFFSET) == 0 &&
                     tslm_reg_read(&m, TSL_TC_HBM_LIMIT_OFFSET) == HBM_BYTES &&
                     (tslm_reg_read(&m, TSL_TC_CFG_FEATURES_OFFSET) >> TSL_TC_CFG_FEATURES_WINDOW_SHIFT & 1u),
             "window: CFG_FEATURES.WINDOW, and [0, HBM_BYTES) after init");
    window_set(&m, 0x1234, 0x5678);
    tslm_reg_write(&m, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
    tu_check(&T, tslm_reg_read(&m, TSL_TC_HBM_BASE_OFFSET) == 0x1234 &&
                     tslm_reg_read(&m, TSL_TC_HBM_LIMIT_OFFSET) == 0x5678,
             "window: CTRL.RESET keeps HBM_BASE and HBM_LIMIT");
    /* directed: window [0x1000, 0x2000) */
    window_set(&m, 0x1000, 0x2000);
    dma_case(&m, TSL_DMA_OP_LOAD, 0x1000, 0, 0x100, 0, 1, 0x1000, "window: LOAD of the whole window");
    dma_case(&m, TSL_DMA_OP_STORE, 0x1000, 0x100, 0x2000, 0x10, 16, 0x100, "window: STORE rows up to HBM_LIMIT");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                   .op = TSL_DMA_OP_LOAD, .hbm_addr = 0xFFF, .local_addr = 0, .rows = 1, .row_bytes = 2}),
               TSL_ERR_HBM_RANGE, 0xFFF, "window: LOAD one byte below HBM_BASE");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                   .op = TSL_DMA_OP_STORE, .hbm_addr = 0x1F00, .local_addr = 0, .rows = 1, .row_bytes = 0x101}),
               TSL_ERR_HBM_RANGE, 0x1F00, "window: STORE one byte past HBM_LIMIT");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                   .op = TSL_DMA_OP_STORE, .hbm_addr = 0x1000, .local_addr = 0, .rows = 3, .row_bytes = 16,
                   .hbm_stride = 0x7F9, .local_stride = 16}),
               TSL_ERR_HBM_RANGE, 0x1000, "window: the last row of a strided STORE crosses HBM_LIMIT");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                   .op = TSL_DMA_OP_LOAD, .hbm_addr = 0x3000, .local_addr = 0, .rows = 1, .row_bytes = 1}),
               TSL_ERR_HBM_RANGE, 0x3000, "window: LOAD above the window");
    window_set(&m, 0x1000, 0x1000);
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                   .op = TSL_DMA_OP_LOAD, .hbm_addr = 0x1000, .local_addr = 0, .rows = 1, .row_bytes = 1}),
               TSL_ERR_HBM_RANGE, 0x1000, "window: an empty window refuses every HBM access");
    window_set(&m, 0, 0xFFFFFFFFu);
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                   .op = TSL_DMA_OP_LOAD, .hbm_addr = HBM_BYTES - 4, .local_addr = 0, .rows = 1, .row_bytes = 8}),
               TSL_ERR_HBM_RANGE, HBM_BYTES - 4, "window: HBM_LIMIT past HBM, HBM_BYTES still bounds");
    window_set(&m, 0x1000, 0x2000);
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                   .op = TSL_DMA_OP_LOAD, .hbm_addr = 0x3000, .local_addr = TSL_PARAM_VMEM_BYTES, .rows = 1,
                   .row_bytes = 1}),
               TSL_ERR_HBM_RANGE, 0x3000, "window: the HBM operand is checked before the local one");
    /* an instruction queued before a window change runs with the window it was checked against */
    tslm_set_schedule(&m, TSLM_SCHED_RANDOM, T.seed);
    window_set(&m, 0, HBM_BYTES);
    snap_t sn = snap(&m);
    memcpy(sn.vmem + 0x300, sn.hbm + 0x8000, 64);
    tsl_insn_t ld = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
        .op = TSL_DMA_OP_LOAD, .hbm_addr = 0x8000, .local_addr = 0x300, .rows = 1, .row_bytes = 64});
    int queued = tslm_push(&m, ld.w) == TSLM_OK && m.q[TSL_UNIT_DMA].count == 1;   /* not run yet */
    window_set(&m, 0, 0x100);
    tu_check(&T, queued, "window: a LOAD queued (random schedule, not run yet)");
    tslm_run(&m);
    check_snap("window: a queued LOAD runs after the window shrank", &m, &sn);
    tslm_set_schedule(&m, TSLM_SCHED_PUSH_ORDER, 0);
    /* random windows and transfers near their edges */
    for (int k = 0; k < 300; k++) {
        uint32_t base = (uint32_t)tu_below(&T.rng, HBM_BYTES), limit = base + (uint32_t)tu_below(&T.rng, 0x20000);
        if (tu_below(&T.rng, 8) == 0)
            limit = (uint32_t)tu_below(&T.rng, HBM_BYTES);   /* often below HBM_BASE */
        if (tu_below(&T.rng, 8) == 0)
            limit = 0xFFFFFFFFu - (uint32_t)tu_below(&T.rng, 4);
        uint32_t rows = 1 + (uint32_t)tu_below(&T.rng, tu_below(&T.rng, 2) ? 1 : 8);
        uint32_t rb = 1 + (uint32_t)tu_below(&T.rng, 300), hs = (uint32_t)tu_below(&T.rng, 600);
        uint64_t ext = (uint64_t)(rows - 1) * hs + rb;
        /* start or end on an edge, or within 3 bytes of it */
        int64_t d = (int64_t)tu_below(&T.rng, 7) - 3, a;
        switch (tu_below(&T.rng, 4)) {
        case 0: a = (int64_t)base + d; break;
        case 1: a = (int64_t)limit - (int64_t)ext + d; break;
        case 2: a = (int64_t)HBM_BYTES - (int64_t)ext + d; break;
        default: a = (int64_t)base + (int64_t)tu_below(&T.rng, limit > base ? limit - base : 1); break;
        }
        uint32_t ha = (uint32_t)(a < 0 ? 0 : a > 0xFFFFFFFFll ? 0xFFFFFFFFll : a);
        uint64_t end = (uint64_t)ha + ext;
        int inside = ha >= base && end <= limit && end <= HBM_BYTES;
        uint32_t op = tu_below(&T.rng, 2) ? TSL_DMA_OP_STORE : TSL_DMA_OP_LOAD;
        window_set(&m, base, limit);
        snprintf(what, sizeof what, "window [0x%x, 0x%x): %s of %u rows of %u at 0x%x stride %u (end 0x%llx) %s", base,
                 limit, op == TSL_DMA_OP_STORE ? "STORE" : "LOAD", rows, rb, ha, hs, (unsigned long long)end,
                 inside ? "runs" : "refused");
        tsl_insn_t i = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = op, .hbm_addr = ha, .local_addr = 0x100, .rows = rows, .row_bytes = rb, .hbm_stride = hs,
            .local_stride = rb});
        if (inside)
            push_ok(&m, i, what);
        else
            expect_err(&m, i, TSL_ERR_HBM_RANGE, ha, what);
    }
    tslm_free(&m);
    /* the lite core, and a TC without the feature: the registers read 0 and writes change nothing */
    for (int lite = 0; lite < 2; lite++) {
        tslm_cfg_t cfg = tslm_cfg_default();
        cfg.hbm_bytes = HBM_BYTES;
        if (lite)
            cfg.core = TSL_CORE_LITE;
        else
            cfg.features &= ~(1u << TSL_TC_CFG_FEATURES_WINDOW_SHIFT);
        if (tslm_init(&m, &cfg) != TSLM_OK)
            continue;
        window_set(&m, 0x1000, 0x1001);
        tu_check(&T, tslm_reg_read(&m, TSL_TC_HBM_BASE_OFFSET) == 0 && tslm_reg_read(&m, TSL_TC_HBM_LIMIT_OFFSET) == 0 &&
                         !(tslm_reg_read(&m, TSL_TC_CFG_FEATURES_OFFSET) >> TSL_TC_CFG_FEATURES_WINDOW_SHIFT & 1u) &&
                         tslm_push(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                                           .op = TSL_DMA_OP_LOAD, .hbm_addr = 0x8000, .rows = 1, .row_bytes = 4}).w) ==
                             TSLM_OK,
                 "window: %s has none (registers read 0, a DMA anywhere in HBM runs)",
                 lite ? "the lite core" : "a TC without CFG_FEATURES.WINDOW");
        tslm_free(&m);
    }
}

/* ---------------------------------------------------------------------------------------- MXU */

static void test_mxu(uint32_t n)
{
    tslm_t m;
    fresh(&m, n, 0);
    const uint32_t rows = 5, wa = 0x1000, xa = 0x8000, xs = 3 * n, ca = ACC + 0x400, cs = 2 * 4 * n;
    push_ok(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_INT8, .wbuf = 1, .addr = wa, .stride = 2 * n}), "LOADW int8 into buffer 1");
    push_ok(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_BF16, .addr = 0x2000, .stride = 2 * n}), "LOADW bf16 into buffer 0");
    for (int accumulate = 0; accumulate < 2; accumulate++) {
        snap_t s = snap(&m);
        for (uint32_t i = 0; i < rows; i++) {
            for (uint32_t j = 0; j < n; j++) {
                int64_t sum = 0;
                for (uint32_t k = 0; k < n; k++)
                    sum += (int64_t)(int8_t)s.vmem[xa + i * xs + k] * (int8_t)s.vmem[wa + k * 2 * n + j];
                uint8_t *p = s.acc + (ca - ACC) + i * cs + 4 * j;
                uint32_t old;
                memcpy(&old, p, 4);
                uint32_t v = (uint32_t)(int32_t)sum + (accumulate ? old : 0);
                memcpy(p, &v, 4);
            }
        }
        push_ok(&m, tsl_insn_mxu_matmul_encode((tsl_insn_mxu_matmul_t){
                .dtype = TSL_DTYPE_INT8, .wbuf = 1, .accumulate = (uint32_t)accumulate, .act_addr = xa,
                .act_stride = xs, .acc_addr = ca, .acc_stride = cs, .rows = rows}), "MATMUL int8");
        check_snap(accumulate ? "MATMUL int8 accumulate, strided" : "MATMUL int8 overwrite, strided", &m, &s);
    }
    /* bf16 with buffer 0: host float, FTZ/DAZ, column sums in row order from +0. */
    snap_t s = snap(&m);
    unsigned csr = ref_fp_ftz_daz();
    for (uint32_t i = 0; i < rows; i++) {
        for (uint32_t j = 0; j < n; j++) {
            volatile float sum = 0.0f;
            for (uint32_t k = 0; k < n; k++) {
                uint16_t x, w;
                memcpy(&x, s.vmem + 0x6000 + i * 2 * n + 2 * k, 2);
                memcpy(&w, s.vmem + 0x2000 + k * 2 * n + 2 * j, 2);
                volatile float p = ref_f((uint32_t)x << 16) * ref_f((uint32_t)w << 16);
                sum = sum + p;
            }
            uint8_t *p = s.acc + i * 4 * n + 4 * j;
            uint32_t old;
            memcpy(&old, p, 4);
            volatile float o = ref_f(old);
            uint32_t v = ref_canon(o + sum);
            memcpy(p, &v, 4);
        }
    }
    ref_fp_restore(csr);
    push_ok(&m, tsl_insn_mxu_matmul_encode((tsl_insn_mxu_matmul_t){
            .dtype = TSL_DTYPE_BF16, .accumulate = 1, .act_addr = 0x6000, .act_stride = 2 * n, .acc_addr = ACC,
            .acc_stride = 4 * n, .rows = rows}), "MATMUL bf16");
    check_snap("MATMUL bf16 accumulate (random bits: NaN, Inf, subnormal inputs)", &m, &s);
    tslm_free(&m);
}

/* Transposed weight loads (isa.md "MXU LOADW", "MXU MATMULK"): LOADW TRANSPOSE against an int8
 * reference loop, and against a plain LOADW of the tile transposed by hand (bf16, bit for bit);
 * MATMULK TRANSPOSE against its LOADW TRANSPOSE/MATMUL pairs; the other buffer keeps a plain load.
 * Without CFG_FEATURES.TRANSPOSE (a TC built without it, the lite core) TRANSPOSE is ERR_BAD_OPCODE. */
static void test_mxu_transpose(uint32_t n)
{
    tslm_t m, b;
    fresh(&m, n, 0);
    const uint32_t rows = 3, wa = 0x1000, ws = 3 * n, xa = 0x8000, xs = n, ca = ACC + 0x400, cs = 4 * n;
    push_ok(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_BF16, .wbuf = 0, .addr = 0x2000, .stride = 2 * n}), "LOADW bf16 into buffer 0");
    push_ok(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_INT8, .wbuf = 1, .transpose = 1, .addr = wa, .stride = ws}),
            "LOADW TRANSPOSE int8 into buffer 1");
    snap_t s = snap(&m);
    for (uint32_t i = 0; i < rows; i++) {
        for (uint32_t j = 0; j < n; j++) {
            int64_t sum = 0;
            for (uint32_t k = 0; k < n; k++)   /* W[k][j] = element k of the vector at wa + j*ws */
                sum += (int64_t)(int8_t)s.vmem[xa + i * xs + k] * (int8_t)s.vmem[wa + j * ws + k];
            uint32_t v = (uint32_t)(int32_t)sum;
            memcpy(s.acc + (ca - ACC) + i * cs + 4 * j, &v, 4);
        }
    }
    push_ok(&m, tsl_insn_mxu_matmul_encode((tsl_insn_mxu_matmul_t){
            .dtype = TSL_DTYPE_INT8, .wbuf = 1, .act_addr = xa, .act_stride = xs, .acc_addr = ca,
            .acc_stride = cs, .rows = rows}), "MATMUL int8 on the transposed buffer");
    check_snap("LOADW TRANSPOSE int8: W[k][j] = VMEM[ADDR + j*STRIDE + k]", &m, &s);

    /* bf16, and MATMULK: the same model state in b, with the tiles transposed by hand into VMEM. */
    for (int k_op = 0; k_op < 2; k_op++) {
        const uint32_t kb = 3, vb = 2 * n, ta = 0x4000, tws = (kb + 1) * vb, pa = 0x10000;
        fresh(&m, n, 0);
        fresh(&b, n, 0);
        memcpy(b.hbm, m.hbm, m.cfg.hbm_bytes);
        memcpy(b.vmem, m.vmem, m.cfg.vmem_bytes);
        memcpy(b.acc, m.acc, m.cfg.acc_bytes);
        /* b's plain weights at pa: row r = kb*N + k of the KBLOCKS*N x N matrix W, W[r][j] =
         * element r of m's column vector j at ta + j*tws. */
        for (uint32_t r = 0; r < kb * n; r++)
            for (uint32_t j = 0; j < n; j++)
                memcpy(b.vmem + pa + r * vb + 2 * j, m.vmem + ta + j * tws + 2 * r, 2);
        memcpy(m.vmem + pa, b.vmem + pa, kb * n * vb);   /* the same VMEM in both */
        tsl_insn_mxu_matmulk_t mk = {.dtype = TSL_DTYPE_BF16, .wbuf = 1, .accumulate = 1, .act_addr = 0x8000,
                                     .act_stride = kb * vb, .acc_addr = ACC, .acc_stride = 4 * n, .rows = 5,
                                     .kblocks = k_op ? kb : 1, .w_addr = ta, .w_stride = tws};
        tsl_insn_mxu_matmulk_t mp = mk;
        mk.transpose = 1;
        mp.w_addr = pa;
        mp.w_stride = vb;
        if (k_op) {
            push_ok(&m, tsl_insn_mxu_matmulk_encode(mk), "MATMULK TRANSPOSE bf16");
            push_ok(&b, tsl_insn_mxu_matmulk_encode(mp), "MATMULK bf16 on the tiles transposed by hand");
        } else {
            push_ok(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
                    .dtype = TSL_DTYPE_BF16, .wbuf = 1, .transpose = 1, .addr = ta, .stride = tws}),
                    "LOADW TRANSPOSE bf16");
            push_ok(&b, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
                    .dtype = TSL_DTYPE_BF16, .wbuf = 1, .addr = pa, .stride = vb}), "LOADW bf16 of the tile transposed by hand");
            tsl_insn_mxu_matmul_t mm = {.dtype = TSL_DTYPE_BF16, .wbuf = 1, .accumulate = 1, .act_addr = 0x8000,
                                        .act_stride = vb, .acc_addr = ACC, .acc_stride = 4 * n, .rows = 5};
            push_ok(&m, tsl_insn_mxu_matmul_encode(mm), "MATMUL bf16 on the transposed buffer");
            push_ok(&b, tsl_insn_mxu_matmul_encode(mm), "MATMUL bf16 on the plain buffer");
        }
        snap_t sb = snap(&b);
        check_snap(k_op ? "MATMULK TRANSPOSE bf16 = MATMULK of the transposed tiles"
                        : "LOADW TRANSPOSE bf16 = LOADW of the transposed tile", &m, &sb);
        tslm_free(&b);
        if (k_op) {   /* the transposed weights' extent: N columns of KBLOCKS vectors */
            uint32_t vmem = m.cfg.vmem_bytes;
            mk.w_stride = vb;
            mk.w_addr = vmem - (n - 1) * vb - kb * vb;
            push_ok(&m, tsl_insn_mxu_matmulk_encode(mk), "MATMULK TRANSPOSE whose last column ends at VMEM's end");
            mk.w_addr += vb;
            expect_err(&m, tsl_insn_mxu_matmulk_encode(mk), TSL_ERR_LOCAL_RANGE, mk.w_addr,
                       "MATMULK TRANSPOSE one vector past VMEM");
        }
    }
    tslm_free(&m);

    /* Without the feature: ERR_BAD_OPCODE, before any field check. */
    for (int lite = 0; lite < 2; lite++) {
        tslm_cfg_t cfg = tslm_cfg_default();
        cfg.n = n;
        cfg.hbm_bytes = HBM_BYTES;
        if (lite)
            cfg.core = TSL_CORE_LITE;
        else
            cfg.features &= ~(1u << TSL_TC_CFG_FEATURES_TRANSPOSE_SHIFT);
        tu_check(&T, tslm_init(&m, &cfg) == TSLM_OK, "model without CFG_FEATURES.TRANSPOSE");
        tu_check(&T, !((tslm_reg_read(&m, TSL_TC_CFG_FEATURES_OFFSET) >> TSL_TC_CFG_FEATURES_TRANSPOSE_SHIFT) & 1u),
                 "%s: CFG_FEATURES.TRANSPOSE reads 0", lite ? "the lite core" : "a TC without it");
        push_ok(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){.dtype = TSL_DTYPE_INT8, .addr = wa, .stride = n}),
                "plain LOADW without the feature");
        expect_err(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
                       .dtype = TSL_DTYPE_FP32, .transpose = 1, .addr = wa, .stride = n}),
                   TSL_ERR_BAD_OPCODE, 0, lite ? "LOADW TRANSPOSE on the lite core" : "LOADW TRANSPOSE without the feature");
        expect_err(&m, tsl_insn_mxu_matmulk_encode((tsl_insn_mxu_matmulk_t){
                       .dtype = TSL_DTYPE_INT8, .transpose = 1, .act_addr = xa, .act_stride = n, .acc_addr = ACC,
                       .acc_stride = 4 * n, .rows = 1, .kblocks = 1, .w_addr = wa, .w_stride = n}),
                   TSL_ERR_BAD_OPCODE, 0, lite ? "MATMULK TRANSPOSE on the lite core" : "MATMULK TRANSPOSE without the feature");
        tslm_free(&m);
    }
}

/* ---------------------------------------------------------------------------------------- VPU */

static int is_fl(uint32_t dt) { return dt == TSL_DTYPE_BF16 || dt == TSL_DTYPE_FP32; }

/* Element j of a row, as int64 (int types) or canonical fp32 bits (float types). */
static int64_t rd(const uint8_t *p, uint32_t dt, uint32_t j)
{
    if (dt == TSL_DTYPE_INT8)
        return (int8_t)p[j];
    if (dt == TSL_DTYPE_BF16) {
        uint16_t h;
        memcpy(&h, p + 2 * j, 2);
        return ref_canon(ref_f(ref_daz((uint32_t)h << 16)));
    }
    uint32_t v;
    memcpy(&v, p + 4 * j, 4);
    return dt == TSL_DTYPE_INT32 ? (int32_t)v : (int64_t)ref_canon(ref_f(ref_daz(v)));
}

static void wr(uint8_t *p, uint32_t dt, uint32_t j, int64_t v)
{
    if (dt == TSL_DTYPE_INT8) {
        p[j] = (uint8_t)(int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
    } else if (dt == TSL_DTYPE_BF16) {
        uint16_t h = ref_bf16((uint32_t)v);
        memcpy(p + 2 * j, &h, 2);
    } else {
        uint32_t u = (uint32_t)v;
        memcpy(p + 4 * j, &u, 4);
    }
}

static int64_t ref_op(uint32_t op, uint32_t act, int fl, int64_t a, int64_t b, int32_t scale, uint32_t shift, int32_t zp)
{
    volatile float fa = ref_f((uint32_t)a), fb = ref_f((uint32_t)b);
    switch (op) {
    case TSL_VPU_OP_ADD: return fl ? (int64_t)ref_canon(fa + fb) : (int32_t)(uint32_t)(a + b);
    case TSL_VPU_OP_MUL: return fl ? (int64_t)ref_canon(fa * fb) : (int32_t)(uint32_t)((uint64_t)a * (uint64_t)b);
    case TSL_VPU_OP_MAX: return fl ? ref_max((uint32_t)a, (uint32_t)b) : (a > b ? a : b);
    case TSL_VPU_OP_MIN: return fl ? ref_min((uint32_t)a, (uint32_t)b) : (a < b ? a : b);
    case TSL_VPU_OP_RELU: return fl ? ref_max((uint32_t)a, 0) : (a > 0 ? a : 0);
    case TSL_VPU_OP_REQUANT: {
        __int128 p = (__int128)a * scale + (shift ? (__int128)1 << (shift - 1) : 0);
        __int128 q = p / ((__int128)1 << shift);
        if (q * ((__int128)1 << shift) > p)
            q--;
        q += zp;
        return q > INT32_MAX ? INT32_MAX : q < INT32_MIN ? INT32_MIN : (int64_t)q;
    }
    /* MOV, and the functions, which test_vmath checks against libm; here, the instruction */
    default: return tslm_f32_is_fn(op) ? tslm_f32_fn(op, act, (uint32_t)a) : a;
    }
}

/* Reduction in the documented pairwise tree. */
static int64_t ref_reduce(uint32_t op, int fl, int64_t *t, uint32_t n)
{
    for (uint32_t len = n; len > 1; len /= 2)
        for (uint32_t i = 0; i < len / 2; i++) {
            int64_t a = t[2 * i], b = t[2 * i + 1];
            if (op == TSL_VPU_OP_RSUM)
                t[i] = fl ? (int64_t)ref_canon(ref_f((uint32_t)a) + ref_f((uint32_t)b)) : (int32_t)(uint32_t)(a + b);
            else
                t[i] = fl ? ref_max((uint32_t)a, (uint32_t)b) : (a > b ? a : b);
        }
    return t[0];
}

typedef struct {
    uint32_t op, dd, d1, d2, mode, dst, src1, src2, act;
} vpu_case_t;

static void vpu_case(tslm_t *m, vpu_case_t c, uint32_t rows)
{
    uint32_t n = m->cfg.n;
    int fl = is_fl(c.d1), unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, c.op);
    int32_t scale = (int32_t)tu_next(&T.rng) >> (int)tu_below(&T.rng, 24);
    uint32_t shift = (uint32_t)tu_below(&T.rng, 40);
    int32_t zp = (int32_t)tu_below(&T.rng, 64) - 32;
    uint32_t imm = (uint32_t)tu_next(&T.rng);
    if (fl && c.mode == TSL_SRC2_IMM)
        imm = (uint32_t)(0x3F000000u + tu_below(&T.rng, 0x1000000)) | (uint32_t)(tu_next(&T.rng) & 1) << 31;
    snap_t s = snap(m);
    uint8_t *base1 = c.src1 >= ACC ? s.acc + (c.src1 - ACC) : s.vmem + c.src1;
    uint8_t *base2 = c.src2 >= ACC ? s.acc + (c.src2 - ACC) : s.vmem + c.src2;
    uint8_t *based = c.dst >= ACC ? s.acc + (c.dst - ACC) : s.vmem + c.dst;
    int64_t *ta = calloc(n, sizeof *ta), *tb = calloc(n, sizeof *tb);
    unsigned csr = ref_fp_ftz_daz();
    for (uint32_t i = 0; i < rows; i++) {
        for (uint32_t j = 0; j < n; j++) {
            ta[j] = rd(base1 + i * n * tsl_dtype_bytes(c.d1), c.d1, j);
            if (!unary)
                tb[j] = c.mode == TSL_SRC2_IMM ? (fl ? (int64_t)ref_canon(ref_f(ref_daz(imm))) : (int32_t)imm)
                                               : rd(base2 + (c.mode == TSL_SRC2_BCAST ? 0 : i) * n * tsl_dtype_bytes(c.d2), c.d2, j);
        }
        if (c.op == TSL_VPU_OP_RSUM || c.op == TSL_VPU_OP_RMAX) {
            int64_t r = ref_reduce(c.op, fl, ta, n);
            for (uint32_t j = 0; j < n; j++)
                wr(based + i * n * tsl_dtype_bytes(c.dd), c.dd, j, r);
        } else {
            for (uint32_t j = 0; j < n; j++)
                wr(based + i * n * tsl_dtype_bytes(c.dd), c.dd, j, ref_op(c.op, c.act, fl, ta[j], tb[j], scale, shift, zp));
        }
    }
    ref_fp_restore(csr);
    tsl_insn_t insn = c.op == TSL_VPU_OP_REQUANT
                          ? tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                                  .op = TSL_VPU_OP_REQUANT, .dst_dtype = c.dd, .src1_dtype = c.d1,
                                  .dst_addr = c.dst, .src1_addr = c.src1, .rows = rows, .scale = scale,
                                  .shift = shift, .zero_point = zp})
                          : tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                                  .op = c.op, .act = c.act, .dst_dtype = c.dd, .src1_dtype = c.d1, .src2_dtype = c.d2,
                                  .src2_mode = c.mode, .dst_addr = c.dst, .src1_addr = c.src1,
                                  .src2_addr = c.mode == TSL_SRC2_IMM ? imm : c.src2, .rows = rows});
    char what[160];
    snprintf(what, sizeof what, "VPU %s %s <- %s, %s (%s)", tsl_vpu_op_name(c.op), tsl_dtype_name(c.dd),
             tsl_dtype_name(c.d1), unary ? "-" : tsl_dtype_name(c.d2), unary ? "unary" : tsl_src2_name(c.mode));
    push_ok(m, insn, what);
    check_snap(what, m, &s);
    free(ta);
    free(tb);
}

static uint32_t epi_special_f32(void);

static void test_vpu(uint32_t n)
{
    tslm_t m;
    fresh(&m, n, 0);
    /* Float data with a sane range (random ACC bits are mostly huge or NaN) at ACC, and specials
     * (NaNs, infinities, zeros, subnormals, extremes) at ACC + 0xF000. */
    for (uint32_t i = 0; i < 0x4000; i += 4) {
        uint32_t v = (0x38000000u + (uint32_t)tu_below(&T.rng, 0x10000000)) | (uint32_t)(tu_next(&T.rng) & 1) << 31;
        memcpy(m.acc + i, &v, 4);
    }
    for (uint32_t i = 0xF000; i < 0x10000; i += 4) {
        uint32_t v = epi_special_f32();
        memcpy(m.acc + i, &v, 4);
    }
    const uint32_t I8 = TSL_DTYPE_INT8, I32 = TSL_DTYPE_INT32, B16 = TSL_DTYPE_BF16, F32 = TSL_DTYPE_FP32;
    const uint32_t V = TSL_SRC2_VEC, BC = TSL_SRC2_BCAST, IM = TSL_SRC2_IMM;
    const vpu_case_t cases[] = {
        {TSL_VPU_OP_ADD, I8, I8, I8, V, 0x100, 0x800, 0x1000, 0},
        {TSL_VPU_OP_ADD, I32, I32, I32, BC, ACC + 0x8000, ACC + 0x4000, ACC + 0x6000, 0},
        {TSL_VPU_OP_ADD, F32, F32, F32, BC, ACC + 0x8000, ACC, ACC + 0x1000, 0},       /* bias add */
        {TSL_VPU_OP_ADD, B16, B16, F32, IM, 0x2000, 0x3000, 0, 0},
        {TSL_VPU_OP_MUL, I32, I8, I32, V, ACC + 0x9000, 0x800, ACC + 0x4000, 0},
        {TSL_VPU_OP_MUL, F32, F32, F32, IM, ACC + 0x9000, ACC, 0, 0},                  /* scale */
        {TSL_VPU_OP_MUL, B16, B16, B16, V, 0x4000, 0x3000, 0x5000, 0},
        {TSL_VPU_OP_MAX, I8, I8, I32, IM, 0x100, 0x800, 0, 0},
        {TSL_VPU_OP_MAX, F32, F32, B16, V, ACC + 0xA000, ACC, 0x3000, 0},
        {TSL_VPU_OP_RELU, I32, I32, 0, 0, ACC + 0xA000, ACC + 0x4000, 0, 0},
        {TSL_VPU_OP_RELU, F32, F32, 0, 0, ACC + 0xA000, ACC, 0, 0},
        {TSL_VPU_OP_RELU, B16, B16, 0, 0, 0x3000, 0x3000, 0, 0},                       /* in place */
        {TSL_VPU_OP_MOV, B16, F32, 0, 0, 0x6000, ACC, 0, 0},                           /* fp32 -> bf16 */
        {TSL_VPU_OP_MOV, F32, B16, 0, 0, ACC + 0xB000, 0x3000, 0, 0},
        {TSL_VPU_OP_MOV, I8, I32, 0, 0, 0x7000, ACC + 0x4000, 0, 0},                   /* saturating */
        {TSL_VPU_OP_MOV, I32, I8, 0, 0, ACC + 0xB000, 0x800, 0, 0},
        {TSL_VPU_OP_REQUANT, I8, I32, 0, 0, 0x7000, ACC + 0x4000, 0, 0},
        {TSL_VPU_OP_REQUANT, I32, I32, 0, 0, ACC + 0xC000, ACC + 0x4000, 0, 0},
        {TSL_VPU_OP_REQUANT, I8, I8, 0, 0, 0x7000, 0x800, 0, 0},
        {TSL_VPU_OP_RSUM, I32, I32, 0, 0, ACC + 0xC000, ACC + 0x4000, 0, 0},
        {TSL_VPU_OP_RSUM, F32, F32, 0, 0, ACC + 0xC000, ACC, 0, 0},
        {TSL_VPU_OP_RSUM, B16, B16, 0, 0, 0x6000, 0x3000, 0, 0},
        {TSL_VPU_OP_RMAX, I8, I8, 0, 0, 0x7000, 0x800, 0, 0},
        {TSL_VPU_OP_RMAX, F32, F32, 0, 0, ACC + 0xD000, ACC, 0, 0},
        {TSL_VPU_OP_MIN, I8, I8, I32, IM, 0x100, 0x800, 0, 0},
        {TSL_VPU_OP_MIN, I32, I32, I32, BC, ACC + 0x8000, ACC + 0x4000, ACC + 0x6000, 0},
        {TSL_VPU_OP_MIN, F32, F32, B16, V, ACC + 0xA000, ACC + 0xF000, 0x3000, 0},
        {TSL_VPU_OP_MIN, B16, B16, F32, IM, 0x2000, 0x3000, 0, 0},
        {TSL_VPU_OP_EXP, F32, F32, 0, 0, ACC + 0xE000, ACC, 0, 0},
        {TSL_VPU_OP_EXP, B16, F32, 0, 0, 0x6000, ACC + 0xF000, 0, 0},
        {TSL_VPU_OP_EXP, B16, B16, 0, 0, 0x3000, 0x3000, 0, 0},                        /* in place */
        {TSL_VPU_OP_RECIP, F32, F32, 0, 0, ACC + 0xE000, ACC + 0xF000, 0, 0},
        {TSL_VPU_OP_RECIP, F32, B16, 0, 0, ACC + 0xE000, 0x3000, 0, 0},
        {TSL_VPU_OP_RSQRT, F32, F32, 0, 0, ACC + 0xE000, ACC, 0, 0},
        {TSL_VPU_OP_RSQRT, B16, F32, 0, 0, 0x6000, ACC + 0xF000, 0, 0},
        {TSL_VPU_OP_RSQRT, B16, B16, 0, 0, 0x4000, 0x3000, 0, 0},
        {TSL_VPU_OP_ACT, F32, F32, 0, 0, ACC + 0xE000, ACC, 0, TSL_VPU_ACT_GELU},
        {TSL_VPU_OP_ACT, B16, B16, 0, 0, 0x3000, 0x3000, 0, TSL_VPU_ACT_GELU},      /* in place */
        {TSL_VPU_OP_ACT, F32, B16, 0, 0, ACC + 0xE000, 0x3000, 0, TSL_VPU_ACT_GELU},
        {TSL_VPU_OP_ACT, F32, F32, 0, 0, ACC + 0xE000, ACC, 0, TSL_VPU_ACT_SILU},
        {TSL_VPU_OP_ACT, B16, B16, 0, 0, 0x3000, 0x3000, 0, TSL_VPU_ACT_SILU},      /* in place */
        {TSL_VPU_OP_ACT, B16, F32, 0, 0, 0x6000, ACC + 0xF000, 0, TSL_VPU_ACT_SILU},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
        vpu_case(&m, cases[i], 1 + (uint32_t)tu_below(&T.rng, 12));
    tu_check(&T, tslm_reg_read(&m, TSL_TC_PERF_VPU_INSNS_LO_OFFSET) == sizeof cases / sizeof cases[0],
             "VPU_INSNS counts the VPU instructions");
    tslm_free(&m);
}

/* ---------------------------------------------------------------------------------------- EPI */

/* Special fp32 values: NaNs, infinities, zeros, subnormals, values near overflow, near the FTZ
 * threshold and bf16 rounding ties. */
static uint32_t epi_special_f32(void)
{
    static const uint32_t v[] = {
        0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFBFFFFFu, 0x7F800000u, 0xFF800000u, 0x00000000u,
        0x80000000u, 0x00000001u, 0x807FFFFFu, 0x00400000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x00800000u,
        0x80800000u, 0x00800001u, 0x3F808000u, 0x3F818000u, 0xBF808000u, 0x3F80FFFFu, 0x7F7F8000u,
        0x3F800000u, 0xBF800000u, 0x40490FDBu, 0x1F800000u, 0x5F800000u,
    };
    if (tu_below(&T.rng, 3))
        return v[tu_below(&T.rng, sizeof v / sizeof v[0])];
    return (0x30000000u + (uint32_t)tu_below(&T.rng, 0x20000000)) | (uint32_t)(tu_next(&T.rng) & 1) << 31;
}

static uint32_t epi_special_i32(void)
{
    static const uint32_t v[] = {0x80000000u, 0x7FFFFFFFu, 0, 1, 0xFFFFFFFFu, 0x80000001u, 0x7FFFFFFEu,
                                 127, 128, 0xFFFFFF80u, 0xFFFFFF7Fu, 0x40000000u, 0xC0000000u};
    if (tu_below(&T.rng, 3))
        return v[tu_below(&T.rng, sizeof v / sizeof v[0])];
    return (uint32_t)((int32_t)tu_next(&T.rng) >> (int)tu_below(&T.rng, 31));
}

static void fill32(tslm_t *m, uint32_t addr, uint32_t words, int fl)
{
    uint8_t *p = addr >= ACC ? m->acc + (addr - ACC) : m->vmem + addr;
    for (uint32_t i = 0; i < words; i++) {
        uint32_t v = fl ? epi_special_f32() : epi_special_i32();
        memcpy(p + 4 * i, &v, 4);
    }
}

static void push_vec(tslm_t *m, tsl_insn_vpu_vec_t f, const char *what)
{
    push_ok(m, tsl_insn_vpu_vec_encode(f), what);
}

/* One EPI on model `a` against the separate ops (MUL IMM, ADD BCAST, RELU, REQUANT or MOV) pushed
 * one by one on model `b`, a copy of `a`. With a 32-bit dst the steps run in place on dst (EPI's
 * definition); otherwise on the scratch rows at `tmp`, whose bytes are put back afterwards.
 * Whole memories must then be equal. */
static void epi_case(tslm_t *a, tslm_t *b, tsl_insn_vpu_epi_t e, uint32_t tmp)
{
    uint32_t n = a->cfg.n, d1 = e.src1_dtype, dd = e.dst_dtype, rows = e.rows;
    int narrow = tsl_dtype_bytes(dd) != 4;
    uint32_t t = narrow ? tmp : e.dst_addr, cur = e.src1_addr;
    memcpy(b->vmem, a->vmem, a->cfg.vmem_bytes);
    memcpy(b->acc, a->acc, a->cfg.acc_bytes);
    uint8_t *tp = t >= ACC ? b->acc + (t - ACC) : b->vmem + t;
    uint8_t *saved = malloc((size_t)rows * n * 4);
    memcpy(saved, tp, (size_t)rows * n * 4);
    char what[200];
    snprintf(what, sizeof what, "EPI %s <- %s%s%s%s rows %u scale 0x%08x shift %u zp %d", tsl_dtype_name(dd),
             tsl_dtype_name(d1), e.fscale ? " FSCALE" : "", e.bias ? " BIAS" : "", e.relu ? " RELU" : "", rows,
             e.scale, e.shift, (int32_t)e.zero_point);
    push_ok(a, tsl_insn_vpu_epi_encode(e), what);
    if (e.fscale) {
        push_vec(b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MUL, .dst_dtype = d1, .src1_dtype = d1,
                                         .src2_dtype = TSL_DTYPE_FP32, .src2_mode = TSL_SRC2_IMM, .dst_addr = t,
                                         .src1_addr = cur, .src2_addr = e.scale, .rows = rows}, "MUL step");
        cur = t;
    }
    if (e.bias) {
        push_vec(b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_ADD, .dst_dtype = d1, .src1_dtype = d1, .src2_dtype = d1,
                                         .src2_mode = TSL_SRC2_BCAST, .dst_addr = t, .src1_addr = cur,
                                         .src2_addr = e.src2_addr, .rows = rows}, "ADD step");
        cur = t;
    }
    if (e.relu) {
        push_vec(b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_RELU, .dst_dtype = d1, .src1_dtype = d1, .dst_addr = t,
                                         .src1_addr = cur, .rows = rows}, "RELU step");
        cur = t;
    }
    if (dd == TSL_DTYPE_INT8)
        push_vec(b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_REQUANT, .dst_dtype = dd, .src1_dtype = d1,
                                         .dst_addr = e.dst_addr, .src1_addr = cur, .rows = rows, .scale = e.scale,
                                         .shift = e.shift, .zero_point = e.zero_point}, "REQUANT step");
    else if (narrow || cur != e.dst_addr || cur == e.src1_addr)   /* in place, no step: MOV */
        push_vec(b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MOV, .dst_dtype = dd, .src1_dtype = d1,
                                         .dst_addr = e.dst_addr, .src1_addr = cur, .rows = rows}, "MOV step");
    if (narrow)
        memcpy(tp, saved, (size_t)rows * n * 4);
    free(saved);
    int ok = same_mem(what, "VMEM", b->vmem, a->vmem, a->cfg.vmem_bytes) &&
             same_mem(what, "ACC", b->acc, a->acc, a->cfg.acc_bytes);
    tu_check(&T, ok, "%s: equals the separate ops", what);
}

/* EPI against its definition, on every flag and dtype combination with special values. */
static void test_epi(uint32_t n)
{
    tslm_t a, b;
    fresh(&a, n, 0);
    fresh(&b, n, 0);
    const uint32_t VB = 4 * n;   /* bytes of a 32-bit row */
    static const uint32_t fscales[] = {0x3F800000u, 0xBF800000u, 0x00000000u, 0x80000000u, 0x7F800000u,
                                       0xFF800000u, 0x7FC00001u, 0x00000001u, 0x00800000u, 0x7F000000u,
                                       0x3E800000u, 0x2E800000u, 0x3F7FFFFFu, 0x50000000u};
    for (uint32_t iter = 0; iter < 160; iter++) {
        int fl = iter & 1;
        uint32_t flags = (iter >> 1) & 7;   /* every combination of RELU, BIAS and the dst choice */
        tsl_insn_vpu_epi_t e = {0};
        e.src1_dtype = fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32;
        e.bias = flags & 1;
        e.bvecs = e.bias;   /* one bias row, as ADD BCAST; test_epi_bvecs covers more */
        e.relu = (flags >> 1) & 1;
        e.dst_dtype = (flags >> 2) & 1 ? (fl ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8) : e.src1_dtype;
        e.fscale = fl && (iter >> 4) & 1;
        e.rows = 1 + (uint32_t)tu_below(&T.rng, 9);
        uint32_t rows = e.rows;
        /* src1 in ACC or VMEM, the bias row elsewhere, dst apart or in place (32-bit dst). */
        int s1_acc = (int)tu_below(&T.rng, 3) != 0;
        e.src1_addr = s1_acc ? ACC + VB * (uint32_t)tu_below(&T.rng, 4) : 0x4000 + VB * (uint32_t)tu_below(&T.rng, 4);
        e.src2_addr = e.bias ? (tu_below(&T.rng, 2) ? ACC + 0x3000 : 0x3000) + VB * (uint32_t)tu_below(&T.rng, 3) : 0;
        int narrow = tsl_dtype_bytes(e.dst_dtype) != 4;
        if (!narrow && tu_below(&T.rng, 3) == 0)
            e.dst_addr = e.src1_addr;
        else if (narrow)
            e.dst_addr = 0x8000 + n * tsl_dtype_bytes(e.dst_dtype) * (uint32_t)tu_below(&T.rng, 4);
        else
            e.dst_addr = (tu_below(&T.rng, 2) ? ACC + 0x6000 : 0x6000) + VB * (uint32_t)tu_below(&T.rng, 3);
        if (e.fscale)
            e.scale = tu_below(&T.rng, 2) ? fscales[tu_below(&T.rng, sizeof fscales / sizeof fscales[0])]
                                          : epi_special_f32();
        if (e.dst_dtype == TSL_DTYPE_INT8) {
            e.scale = tu_below(&T.rng, 4) == 0 ? (uint32_t)epi_special_i32()
                                               : (uint32_t)((int32_t)tu_next(&T.rng) >> (int)tu_below(&T.rng, 31));
            e.shift = tu_below(&T.rng, 4) == 0 ? (tu_below(&T.rng, 2) ? 62 : 0) : (uint32_t)tu_below(&T.rng, 48);
            e.zero_point = tu_below(&T.rng, 4) == 0 ? epi_special_i32() : (uint32_t)tu_below(&T.rng, 256) - 128;
        }
        fill32(&a, e.src1_addr, rows * n, fl);
        if (e.bias)
            fill32(&a, e.src2_addr, n, fl);
        epi_case(&a, &b, e, ACC + 0x9000);
    }
    tslm_free(&a);
    tslm_free(&b);
}

/* EPI with BVECS bias vectors: row i adds vector i mod BVECS, so it equals one single-row EPI per
 * row with that vector as its one bias row. */
static void test_epi_bvecs(uint32_t n)
{
    tslm_t a, b;
    fresh(&a, n, 0);
    fresh(&b, n, 0);
    const uint32_t VB = 4 * n;
    for (uint32_t iter = 0; iter < 40; iter++) {
        int fl = iter & 1;
        tsl_insn_vpu_epi_t e = {.src1_dtype = fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32, .bias = 1,
                                .relu = (iter >> 1) & 1, .rows = 1 + (uint32_t)tu_below(&T.rng, 20),
                                .bvecs = 1 + (uint32_t)tu_below(&T.rng, 5), .src1_addr = ACC, .src2_addr = ACC + 0x2000};
        e.dst_dtype = (iter >> 2) & 1 ? (fl ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8) : e.src1_dtype;
        e.dst_addr = 0x4000;
        if (e.dst_dtype == TSL_DTYPE_INT8) {
            e.scale = (uint32_t)tu_below(&T.rng, 1000);
            e.shift = (uint32_t)tu_below(&T.rng, 12);
        }
        fill32(&a, e.src1_addr, e.rows * n, fl);
        fill32(&a, e.src2_addr, e.bvecs * n, fl);
        memcpy(b.vmem, a.vmem, a.cfg.vmem_bytes);
        memcpy(b.acc, a.acc, a.cfg.acc_bytes);
        push_ok(&a, tsl_insn_vpu_epi_encode(e), "EPI with BVECS");
        uint32_t db = n * tsl_dtype_bytes(e.dst_dtype);
        for (uint32_t i = 0; i < e.rows; i++) {
            tsl_insn_vpu_epi_t r = e;
            r.rows = 1;
            r.bvecs = 1;
            r.src1_addr = e.src1_addr + i * VB;
            r.src2_addr = e.src2_addr + i % e.bvecs * VB;
            r.dst_addr = e.dst_addr + i * db;
            push_ok(&b, tsl_insn_vpu_epi_encode(r), "EPI of one row");
        }
        tslm_run(&a);
        tslm_run(&b);
        tu_check(&T, same_mem("EPI BVECS", "VMEM", b.vmem, a.vmem, a.cfg.vmem_bytes) &&
                         same_mem("EPI BVECS", "ACC", b.acc, a.acc, a.cfg.acc_bytes),
                 "EPI with %u bias vectors over %u rows equals one EPI per row", e.bvecs, e.rows);
    }
    tslm_free(&a);
    tslm_free(&b);
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static double f32_value(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* EPI ROW SOFTMAX on model `a` against the VPU_VEC ops that make the same softmax on model `b`,
 * one row at a time (the firmware's program before the row function): the row's a values into an
 * FP32 work row at `w` (MUL by SCALE or MOV, then -inf in the PAD lanes), a MAX chain and RMAX, its
 * negation, ADD, EXP, an ADD chain and RSUM, RECIP, and the MUL into dst. Both must leave the same
 * memories but for the work rows, and each output is checked against the softmax in double. */
static void test_epi_softmax(uint32_t n)
{
    tslm_t a, b;
    fresh(&a, n, 0);
    fresh(&b, n, 0);
    const uint32_t F = TSL_DTYPE_FP32, IMM = TSL_SRC2_IMM, BC = TSL_SRC2_BCAST, VEC = TSL_SRC2_VEC;
    static const uint32_t scales[] = {0x3F800000u, 0x3E000000u, 0xBF800000u, 0x40A00000u, 0x00000000u};
    for (uint32_t iter = 0; iter < 60; iter++) {
        tsl_insn_vpu_epi_t e = {.row = TSL_VPU_ROW_SOFTMAX};
        e.src1_dtype = iter & 1 ? F : TSL_DTYPE_BF16;
        e.dst_dtype = iter & 2 ? F : TSL_DTYPE_BF16;
        e.rows = 1 + (uint32_t)tu_below(&T.rng, 4);
        e.bvecs = 1 + (uint32_t)tu_below(&T.rng, 5);
        e.pad = tu_below(&T.rng, 2) ? (uint32_t)tu_below(&T.rng, n) : 0;
        e.fscale = (iter >> 2) & 1;
        e.scale = e.fscale ? scales[tu_below(&T.rng, sizeof scales / sizeof scales[0])] : 0;
        /* causal: row r's elements from ZERO_POINT + r on masked (+ -inf) */
        e.zero_point = (iter >> 5) & 1 ? 1 + (uint32_t)tu_below(&T.rng, e.bvecs * n + 2) : 0;
        uint32_t vecs = e.rows * e.bvecs, es1 = tsl_dtype_bytes(e.src1_dtype), esd = tsl_dtype_bytes(e.dst_dtype);
        e.src1_addr = (iter & 8 && es1 == 4 ? ACC : 0) + 0x400;
        e.dst_addr = (iter & 16 && esd == 4 ? ACC : 0) + 0x2000;
        uint32_t w = ACC + 0x4000, mx = ACC + 0x6000, sm = mx + 4 * n;   /* b's work rows */
        /* inputs: mostly modest values (some equal, some -inf), sometimes the special values */
        uint8_t *p = e.src1_addr >= ACC ? a.acc + (e.src1_addr - ACC) : a.vmem + e.src1_addr;
        int special = tu_below(&T.rng, 4) == 0;
        for (uint32_t i = 0; i < vecs * n; i++) {
            uint32_t v = special ? epi_special_f32()
                                 : tu_below(&T.rng, 16) == 0 ? 0xFF800000u
                                                             : f32_bits((float)((int)tu_below(&T.rng, 2001) / 100.0 - 10.0));
            if (es1 == 2) {
                uint16_t h = (uint16_t)(v >> 16);
                memcpy(p + 2 * i, &h, 2);
            } else {
                memcpy(p + 4 * i, &v, 4);
            }
        }
        memcpy(b.vmem, a.vmem, a.cfg.vmem_bytes);
        memcpy(b.acc, a.acc, a.cfg.acc_bytes);
        char what[160];
        snprintf(what, sizeof what, "EPI ROW SOFTMAX %s <- %s rows %u bvecs %u pad %u scale 0x%08x%s causal %u (N=%u)",
                 tsl_dtype_name(e.dst_dtype), tsl_dtype_name(e.src1_dtype), e.rows, e.bvecs, e.pad, e.scale,
                 special ? " special" : "", e.zero_point, n);
        push_ok(&a, tsl_insn_vpu_epi_encode(e), what);
        uint32_t v = e.bvecs, last = w + (v - 1) * 4 * n;
        for (uint32_t r = 0; r < e.rows; r++) {
            uint32_t src = e.src1_addr + r * v * n * es1, dst = e.dst_addr + r * v * n * esd;
            tslm_run(&b);
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = e.fscale ? TSL_VPU_OP_MUL : TSL_VPU_OP_MOV, .dst_dtype = F,
                                              .src1_dtype = e.src1_dtype, .src2_dtype = e.fscale ? F : 0,
                                              .src2_mode = e.fscale ? IMM : 0, .src2_addr = e.scale,
                                              .dst_addr = w, .src1_addr = src, .rows = v}, "a");
            tslm_run(&b);
            for (uint32_t l = n - e.pad; l < n; l++)
                memcpy(b.acc + (last - ACC) + 4 * l, &(uint32_t){0xFF800000u}, 4);
            for (uint32_t k = e.zero_point ? e.zero_point + r : v * n; k < v * n - e.pad; k++) {   /* + -inf */
                uint32_t y;
                memcpy(&y, b.acc + (w - ACC) + 4 * k, 4);
                y = tslm_f32_add(y, 0xFF800000u);
                memcpy(b.acc + (w - ACC) + 4 * k, &y, 4);
            }
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MOV, .dst_dtype = F, .src1_dtype = F, .dst_addr = mx,
                                              .src1_addr = w, .rows = 1}, "max 0");
            for (uint32_t j = 1; j < v; j++)
                push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MAX, .dst_dtype = F, .src1_dtype = F,
                                                  .src2_dtype = F, .src2_mode = VEC, .dst_addr = mx, .src1_addr = mx,
                                                  .src2_addr = w + j * 4 * n, .rows = 1}, "max");
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_RMAX, .dst_dtype = F, .src1_dtype = F, .dst_addr = mx,
                                              .src1_addr = mx, .rows = 1}, "rmax");
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MUL, .dst_dtype = F, .src1_dtype = F, .src2_dtype = F,
                                              .src2_mode = IMM, .src2_addr = 0xBF800000u, .dst_addr = mx,
                                              .src1_addr = mx, .rows = 1}, "-max");
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_ADD, .dst_dtype = F, .src1_dtype = F, .src2_dtype = F,
                                              .src2_mode = BC, .src2_addr = mx, .dst_addr = w, .src1_addr = w,
                                              .rows = v}, "a - max");
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_EXP, .dst_dtype = F, .src1_dtype = F, .dst_addr = w,
                                              .src1_addr = w, .rows = v}, "exp");
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MOV, .dst_dtype = F, .src1_dtype = F, .dst_addr = sm,
                                              .src1_addr = w, .rows = 1}, "sum 0");
            for (uint32_t j = 1; j < v; j++)
                push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_ADD, .dst_dtype = F, .src1_dtype = F,
                                                  .src2_dtype = F, .src2_mode = VEC, .dst_addr = sm, .src1_addr = sm,
                                                  .src2_addr = w + j * 4 * n, .rows = 1}, "sum");
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_RSUM, .dst_dtype = F, .src1_dtype = F, .dst_addr = sm,
                                              .src1_addr = sm, .rows = 1}, "rsum");
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_RECIP, .dst_dtype = F, .src1_dtype = F, .dst_addr = sm,
                                              .src1_addr = sm, .rows = 1}, "recip");
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MUL, .dst_dtype = e.dst_dtype, .src1_dtype = F,
                                              .src2_dtype = F, .src2_mode = BC, .src2_addr = sm, .dst_addr = dst,
                                              .src1_addr = w, .rows = v}, "out");
            tslm_run(&b);
        }
        tslm_run(&a);
        /* the work rows are b's alone */
        memcpy(b.acc + (w - ACC), a.acc + (w - ACC), 0x4000);
        int ok = same_mem(what, "VMEM", b.vmem, a.vmem, a.cfg.vmem_bytes) &&
                 same_mem(what, "ACC", b.acc, a.acc, a.cfg.acc_bytes);
        tu_check(&T, ok, "%s: equals the VPU_VEC program", what);
        /* BLOCKED: the same rows block-major (in VMEM at 0x8000, out at 0xC000) give the same
           vectors, block-major */
        {
            tsl_insn_vpu_epi_t eb = e;
            eb.blocked = 1;
            eb.src1_addr = 0x8000;
            eb.dst_addr = 0xC000;
            uint8_t *q0 = e.dst_addr >= ACC ? a.acc + (e.dst_addr - ACC) : a.vmem + e.dst_addr;
            for (uint32_t r = 0; r < e.rows; r++)
                for (uint32_t j = 0; j < e.bvecs; j++)
                    memcpy(a.vmem + eb.src1_addr + (j * e.rows + r) * n * es1, p + (r * e.bvecs + j) * n * es1,
                           n * es1);
            push_ok(&a, tsl_insn_vpu_epi_encode(eb), what);
            tslm_run(&a);
            int same = 1;
            for (uint32_t r = 0; r < e.rows; r++)
                for (uint32_t j = 0; j < e.bvecs; j++)
                    same &= !memcmp(a.vmem + eb.dst_addr + (j * e.rows + r) * n * esd,
                                    q0 + (r * e.bvecs + j) * n * esd, n * esd);
            tu_check(&T, same, "%s: BLOCKED gives the same vectors, block-major", what);
            eb.row = 0;
            eb.pad = 0;
            eb.zero_point = 0;
            eb.fscale = 0;
            eb.scale = 0;
            eb.bvecs = 0;
            eb.src1_dtype = eb.dst_dtype = F;
            if (iter == 0) {
                tslm_t c;
                fresh(&c, n, 0);
                expect_err(&c, tsl_insn_vpu_epi_encode(eb), TSL_ERR_BAD_FIELD, 0, "EPI BLOCKED without ROW");
                tslm_free(&c);
            }
        }
        /* against the softmax in double, for rows of finite inputs and scales of 1 or 1/8 */
        if (special || (e.fscale && e.scale != 0x3F800000u && e.scale != 0x3E000000u))
            continue;
        uint8_t *q = e.dst_addr >= ACC ? a.acc + (e.dst_addr - ACC) : a.vmem + e.dst_addr;
        double tol = esd == 2 ? 1.0 / 128 : 2e-6;
        for (uint32_t r = 0; r < e.rows; r++) {
            uint32_t len = v * n - e.pad, base = r * v * n;
            if (e.zero_point && e.zero_point + r < len)
                len = e.zero_point + r;
            double xs[64 * 8], mxd = -1e300, sum = 0;
            int any = 0;
            for (uint32_t k = 0; k < len; k++) {
                uint32_t bits = (uint32_t)rd(p, e.src1_dtype, base + k);
                xs[k] = f32_value(bits) * (e.fscale ? f32_value(e.scale) : 1.0);
                if (bits != 0xFF800000u) {
                    any = 1;
                    mxd = xs[k] > mxd ? xs[k] : mxd;
                }
            }
            if (!any)
                continue;
            for (uint32_t k = 0; k < len; k++)
                sum += exp(xs[k] - mxd);
            int good = 1;
            for (uint32_t k = 0; k < len && good; k++) {
                uint32_t bits = (uint32_t)rd(q, e.dst_dtype, base + k);
                double want = exp(xs[k] - mxd) / sum, got = f32_value(bits);
                good = fabs(got - want) <= tol * want + 1e-37;
                if (!good)
                    tu_check(&T, 0, "%s: row %u element %u: %.9g, softmax %.9g", what, r, k, got, want);
            }
            tu_check(&T, good, "%s: row %u within %g of the softmax in double", what, r, tol);
        }
    }
    tslm_free(&a);
    tslm_free(&b);
}

/* One FP32 VPU_VEC op on model b, to a dst of `dd` (src2: VEC, BCAST or IMM; none when unary). */
static void fop(tslm_t *b, uint32_t op, uint32_t dd, uint32_t d, uint32_t s1, uint32_t mode, uint32_t s2, uint32_t rows)
{
    int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
    push_vec(b, (tsl_insn_vpu_vec_t){.op = op, .dst_dtype = dd, .src1_dtype = TSL_DTYPE_FP32,
                                     .src2_dtype = unary ? 0 : TSL_DTYPE_FP32, .src2_mode = mode, .dst_addr = d,
                                     .src1_addr = s1, .src2_addr = s2, .rows = rows}, tsl_vpu_op_name(op));
}

/* EPI ROW LAYERNORM and RMSNORM on model `a` against the VPU_VEC ops of the ROWWISE program on model
 * `b`, row by row: the row in FP32 work rows at `w` (MOV, +0 in the PAD lanes), LAYERNORM's ADD chain,
 * RSUM, MUL by 1/length and by -1, ADD, the lane mask's MUL; the squares' MUL, ADD chain and RSUM,
 * MUL by 1/length, ADD of epsilon, RSQRT; the MULs by it and by gamma, and beta's ADD. The memories
 * must be equal but for the work rows, and the outputs near the norm in double. */
static void test_epi_norms(uint32_t n)
{
    tslm_t a, b;
    fresh(&a, n, 0);
    fresh(&b, n, 0);
    const uint32_t F = TSL_DTYPE_FP32, IMM = TSL_SRC2_IMM, BC = TSL_SRC2_BCAST, VEC = TSL_SRC2_VEC;
    for (uint32_t iter = 0; iter < 60; iter++) {
        int ln = iter & 1;
        tsl_insn_vpu_epi_t e = {.row = ln ? TSL_VPU_ROW_LAYERNORM : TSL_VPU_ROW_RMSNORM};
        e.src1_dtype = iter & 2 ? F : TSL_DTYPE_BF16;
        e.dst_dtype = iter & 4 ? F : TSL_DTYPE_BF16;
        e.bias = ln && (iter & 8);
        e.rows = 1 + (uint32_t)tu_below(&T.rng, 4);
        e.bvecs = 1 + (uint32_t)tu_below(&T.rng, 5);
        e.pad = tu_below(&T.rng, 2) ? (uint32_t)tu_below(&T.rng, n) : 0;
        uint32_t len = e.bvecs * n - e.pad, v = e.bvecs;
        e.zero_point = f32_bits((float)(1.0 / len));
        e.scale = f32_bits(iter & 16 ? 1e-5f : 1e-3f);
        uint32_t vecs = e.rows * v, es1 = tsl_dtype_bytes(e.src1_dtype), esd = tsl_dtype_bytes(e.dst_dtype);
        e.src1_addr = (iter & 32 && es1 == 4 ? ACC : 0) + 0x400;
        e.dst_addr = (iter & 32 && esd == 4 ? ACC : 0) + 0x2000;
        e.src2_addr = 0x6000;   /* gamma, then beta */
        uint32_t w = ACC + 0x4000, t = ACC + 0x5000, s = ACC + 0x6000, lm = s + 4 * n;   /* b's work rows */
        uint8_t *p = e.src1_addr >= ACC ? a.acc + (e.src1_addr - ACC) : a.vmem + e.src1_addr;
        int special = tu_below(&T.rng, 5) == 0;
        double off = tu_below(&T.rng, 3) == 0 ? 50.0 : 0.0;   /* a mean far from 0 */
        for (uint32_t i = 0; i < vecs * n; i++) {
            uint32_t x = special ? epi_special_f32() : f32_bits((float)(off + (int)tu_below(&T.rng, 2001) / 100.0 - 10.0));
            if (es1 == 2) {
                uint16_t h = (uint16_t)(x >> 16);
                memcpy(p + 2 * i, &h, 2);
            } else {
                memcpy(p + 4 * i, &x, 4);
            }
        }
        for (uint32_t i = 0; i < 2 * v * n; i++)
            memcpy(a.vmem + e.src2_addr + 4 * i, &(uint32_t){f32_bits((float)((int)tu_below(&T.rng, 401) / 100.0 - 2.0))}, 4);
        memcpy(b.vmem, a.vmem, a.cfg.vmem_bytes);
        memcpy(b.acc, a.acc, a.cfg.acc_bytes);
        char what[160];
        snprintf(what, sizeof what, "EPI ROW %s %s <- %s rows %u bvecs %u pad %u%s%s (N=%u)", ln ? "LAYERNORM" : "RMSNORM",
                 tsl_dtype_name(e.dst_dtype), tsl_dtype_name(e.src1_dtype), e.rows, v, e.pad, e.bias ? " BIAS" : "",
                 special ? " special" : "", n);
        push_ok(&a, tsl_insn_vpu_epi_encode(e), what);
        for (uint32_t l = 0; l < n; l++)   /* the lane mask: 1.0 in the row's lanes of its last vector */
            memcpy(b.acc + (lm - ACC) + 4 * l, &(uint32_t){l < n - e.pad ? 0x3F800000u : 0u}, 4);
        uint32_t last = w + (v - 1) * 4 * n;
        for (uint32_t r = 0; r < e.rows; r++) {
            uint32_t src = e.src1_addr + r * v * n * es1, dst = e.dst_addr + r * v * n * esd;
            tslm_run(&b);
            push_vec(&b, (tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MOV, .dst_dtype = F, .src1_dtype = e.src1_dtype,
                                              .dst_addr = w, .src1_addr = src, .rows = v}, "a");
            tslm_run(&b);
            for (uint32_t l = n - e.pad; l < n; l++)
                memcpy(b.acc + (last - ACC) + 4 * l, &(uint32_t){0u}, 4);
            if (ln) {
                fop(&b, TSL_VPU_OP_MOV, F, s, w, 0, 0, 1);
                for (uint32_t j = 1; j < v; j++)
                    fop(&b, TSL_VPU_OP_ADD, F, s, s, VEC, w + j * 4 * n, 1);
                fop(&b, TSL_VPU_OP_RSUM, F, s, s, 0, 0, 1);
                fop(&b, TSL_VPU_OP_MUL, F, s, s, IMM, e.zero_point, 1);
                fop(&b, TSL_VPU_OP_MUL, F, s, s, IMM, 0xBF800000u, 1);
                fop(&b, TSL_VPU_OP_ADD, F, w, w, BC, s, v);
                fop(&b, TSL_VPU_OP_MUL, F, last, last, BC, lm, 1);
            }
            fop(&b, TSL_VPU_OP_MUL, F, t, w, VEC, w, v);
            fop(&b, TSL_VPU_OP_MOV, F, s, t, 0, 0, 1);
            for (uint32_t j = 1; j < v; j++)
                fop(&b, TSL_VPU_OP_ADD, F, s, s, VEC, t + j * 4 * n, 1);
            fop(&b, TSL_VPU_OP_RSUM, F, s, s, 0, 0, 1);
            fop(&b, TSL_VPU_OP_MUL, F, s, s, IMM, e.zero_point, 1);
            fop(&b, TSL_VPU_OP_ADD, F, s, s, IMM, e.scale, 1);
            fop(&b, TSL_VPU_OP_RSQRT, F, s, s, 0, 0, 1);
            fop(&b, TSL_VPU_OP_MUL, F, w, w, BC, s, v);
            if (e.bias) {
                fop(&b, TSL_VPU_OP_MUL, F, w, w, VEC, e.src2_addr, v);
                fop(&b, TSL_VPU_OP_ADD, e.dst_dtype, dst, w, VEC, e.src2_addr + v * 4 * n, v);
            } else {
                fop(&b, TSL_VPU_OP_MUL, e.dst_dtype, dst, w, VEC, e.src2_addr, v);
            }
            tslm_run(&b);
        }
        tslm_run(&a);
        memcpy(b.acc + (w - ACC), a.acc + (w - ACC), 0x2400);   /* the work rows are b's alone */
        int ok = same_mem(what, "VMEM", b.vmem, a.vmem, a.cfg.vmem_bytes) &&
                 same_mem(what, "ACC", b.acc, a.acc, a.cfg.acc_bytes);
        tu_check(&T, ok, "%s: equals the VPU_VEC program", what);
        if (special)
            continue;
        /* against the norm in double */
        uint8_t *q = e.dst_addr >= ACC ? a.acc + (e.dst_addr - ACC) : a.vmem + e.dst_addr;
        for (uint32_t r = 0; r < e.rows; r++) {
            double xs[64 * 8], mean = 0, var = 0;
            for (uint32_t k = 0; k < len; k++) {
                uint32_t i = r * v * n + k, bits = (uint32_t)rd(p, e.src1_dtype, i);
                xs[k] = f32_value(bits);
                mean += xs[k] / len;
            }
            for (uint32_t k = 0; k < len; k++)
                var += (ln ? (xs[k] - mean) * (xs[k] - mean) : xs[k] * xs[k]) / len;
            double rs = 1.0 / sqrt(var + f32_value(e.scale)), worst = 0;
            for (uint32_t k = 0; k < len; k++) {
                uint32_t i = r * v * n + k, bits = (uint32_t)rd(q, e.dst_dtype, i);
                float g, bt = 0;
                memcpy(&g, a.vmem + e.src2_addr + 4 * k, 4);
                if (e.bias)
                    memcpy(&bt, a.vmem + e.src2_addr + 4 * (v * n + k), 4);
                double want = ((ln ? xs[k] - mean : xs[k]) * rs) * g + bt, err = fabs(f32_value(bits) - want);
                worst = err > worst ? err : worst;
            }
            double tol = esd == 2 ? 0.05 : (ln && off ? 2e-3 : 1e-4);
            tu_check(&T, worst <= tol, "%s: row %u within %g of the norm in double (%g)", what, r, tol, worst);
        }
    }
    tslm_free(&a);
    tslm_free(&b);
}

/* ------------------------------------------------------------------------ tokens and registers */

static void test_tokens(void)
{
    tslm_t m;
    fresh(&m, 8, 0);
    tsl_insn_t s = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_DMA});
    tsl_insn_signal(&s, TSL_TOK(TSL_UNIT_MXU) | TSL_TOK(TSL_UNIT_VPU));
    push_ok(&m, s, "DMA SYNC signalling MXU and VPU");
    push_ok(&m, s, "DMA SYNC signalling MXU and VPU again");
    tu_check(&T, tslm_reg_read(&m, TSL_TC_TOKENS_DMA_MXU_OFFSET) == 2 &&
                 tslm_reg_read(&m, TSL_TC_TOKENS_DMA_VPU_OFFSET) == 2, "two tokens wait on DMA->MXU and DMA->VPU");
    s = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_MXU});
    tsl_insn_wait(&s, TSL_TOK(TSL_UNIT_DMA));
    tsl_insn_notify(&s);
    tslm_reg_write(&m, TSL_TC_IRQ_ENABLE_OFFSET, 1u << TSL_TC_IRQ_STATUS_NOTIFY_SHIFT);
    push_ok(&m, s, "MXU SYNC waiting on DMA, with NOTIFY");
    tu_check(&T, tslm_reg_read(&m, TSL_TC_TOKENS_DMA_MXU_OFFSET) == 1 &&
                 tslm_reg_read(&m, TSL_TC_NOTIFY_COUNT_OFFSET) == 1 && tslm_irq(&m),
             "the wait took one token; NOTIFY counted and raised the interrupt");
    tslm_reg_write(&m, TSL_TC_IRQ_STATUS_OFFSET, 1u << TSL_TC_IRQ_STATUS_NOTIFY_SHIFT);
    tu_check(&T, !tslm_irq(&m), "IRQ_STATUS is write-one-to-clear");

    /* The register port: INSN0..INSN7, the push on INSN7. */
    tsl_insn_t d = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .hbm_addr = 0x40, .local_addr = 0x80, .rows = 1, .row_bytes = 8});
    snap_t sn = snap(&m);
    memcpy(sn.vmem + 0x80, sn.hbm + 0x40, 8);
    for (unsigned w = 0; w < TSL_PARAM_INSN_WORDS; w++)
        tslm_reg_write(&m, TSL_TC_INSN0_OFFSET + 4 * w, d.w[w]);
    tu_check(&T, tslm_reg_read(&m, TSL_TC_PUSH_COUNT_OFFSET) == 4, "writing INSN7 pushes");
    check_snap("DMA pushed through the register port", &m, &sn);
    tu_check(&T, tslm_reg_read(&m, TSL_TC_ID_OFFSET) == TSL_ID_VALUE && tslm_reg_read(&m, TSL_TC_CFG_N_OFFSET) == 8 &&
                 tslm_reg_read(&m, TSL_TC_CFG_HBM_BYTES_OFFSET) == HBM_BYTES,
             "ID and CFG registers");
    tslm_reg_write(&m, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_CLEAR_PERF_SHIFT);
    tu_check(&T, tslm_reg_read(&m, TSL_TC_PERF_DMA_INSNS_LO_OFFSET) == 0, "CTRL.CLEAR_PERF zeroes the counters");
    tslm_free(&m);
}

/* -------------------------------------------------------------------------------------- errors */

static tsl_insn_t with_word(tsl_insn_t i, unsigned word, uint32_t v)
{
    i.w[word] = v;
    return i;
}

static void test_errors(void)
{
    tslm_t m;
    const uint32_t n = 8;
    fresh(&m, n, 0);
    const uint32_t VM = TSL_PARAM_VMEM_BYTES;
    tsl_insn_t ok_dma = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .rows = 2, .row_bytes = 64, .hbm_stride = 64, .local_stride = 64});
    tsl_insn_t ok_mm = tsl_insn_mxu_matmul_encode((tsl_insn_mxu_matmul_t){
            .dtype = TSL_DTYPE_INT8, .act_stride = n, .acc_addr = ACC, .acc_stride = 4 * n, .rows = 4});
    tsl_insn_t ok_add = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_ADD, .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT32,
            .src2_dtype = TSL_DTYPE_INT32, .src2_mode = TSL_SRC2_VEC, .dst_addr = ACC, .src1_addr = ACC + 0x100,
            .src2_addr = ACC + 0x200, .rows = 2});
    tsl_insn_t sync = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_DMA});

    expect_err(&m, tsl_insn_hdr_encode((tsl_insn_hdr_t){.unit = 3}), TSL_ERR_BAD_OPCODE, 0, "unit 3");
    expect_err(&m, tsl_insn_hdr_encode((tsl_insn_hdr_t){
            .unit = TSL_UNIT_DMA, .op = 3}), TSL_ERR_BAD_OPCODE, 0, "undefined DMA op");
    expect_err(&m, tsl_insn_hdr_encode((tsl_insn_hdr_t){
            .unit = TSL_UNIT_MXU, .op = 7}), TSL_ERR_BAD_OPCODE, 0, "undefined MXU op");
    for (uint32_t op = 0; op < 16; op++)   /* the VPU op codes that the spec leaves undefined */
        if (!tsl_op_info(TSL_UNIT_VPU, op))
            expect_err(&m, tsl_insn_hdr_encode((tsl_insn_hdr_t){.unit = TSL_UNIT_VPU, .op = op}),
                       TSL_ERR_BAD_OPCODE, 0, "undefined VPU op");
    expect_err(&m, with_word(sync, 7, 1), TSL_ERR_BAD_FIELD, 0, "reserved bit in word 7");
    expect_err(&m, with_word(sync, 0, sync.w[0] | 1u << 15), TSL_ERR_BAD_FIELD, 0, "reserved header bit");
    tsl_insn_t self = sync;
    tsl_insn_signal(&self, TSL_TOK(TSL_UNIT_DMA));
    expect_err(&m, self, TSL_ERR_BAD_FIELD, 0, "token on its own unit");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .row_bytes = 4}), TSL_ERR_BAD_FIELD, 0, "DMA of zero rows");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .rows = 1}), TSL_ERR_BAD_FIELD, 0, "DMA of zero bytes");
    expect_err(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_INT32, .stride = n}), TSL_ERR_BAD_FIELD, 0, "LOADW of INT32");
    expect_err(&m, with_word(ok_mm, 5, 0), TSL_ERR_BAD_FIELD, 0, "MATMUL of zero rows");
    tsl_insn_t relu2 = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_RELU, .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT32,
            .src2_mode = TSL_SRC2_BCAST, .dst_addr = ACC, .src1_addr = ACC, .rows = 1});
    expect_err(&m, relu2, TSL_ERR_BAD_FIELD, 0, "unary op with a second operand");
    expect_err(&m, with_word(ok_add, 0, ok_add.w[0] | 3u << TSL_INSN_VPU_VEC_SRC2_MODE_SHIFT), TSL_ERR_BAD_FIELD, 0,
               "SRC2 mode 3");
    expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_REQUANT, .dst_dtype = TSL_DTYPE_INT8, .src1_dtype = TSL_DTYPE_INT32, .src1_addr = ACC,
            .rows = 1, .scale = 1, .shift = 63}), TSL_ERR_BAD_FIELD, 0,
               "REQUANT shift 63");
    expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_REQUANT, .dst_dtype = TSL_DTYPE_BF16, .src1_dtype = TSL_DTYPE_FP32, .src1_addr = ACC,
            .rows = 1, .scale = 1, .shift = 1}), TSL_ERR_BAD_FIELD, 0,
               "REQUANT of floats");
    expect_err(&m, with_word(ok_add, 5, 1), TSL_ERR_BAD_FIELD, 0, "ADD with a REQUANT scale");
    expect_err(&m, with_word(ok_add, 0, ok_add.w[0] | 1u << TSL_INSN_VPU_VEC_ACT_SHIFT), TSL_ERR_BAD_FIELD, 0,
               "ADD with an ACT function");
    expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_ACT, .act = TSL_VPU_ACT_LIMIT, .dst_dtype = TSL_DTYPE_FP32, .src1_dtype = TSL_DTYPE_FP32,
            .dst_addr = ACC, .src1_addr = ACC, .rows = 1}), TSL_ERR_BAD_FIELD, 0, "ACT of an undefined function");
    expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_EXP, .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT32, .dst_addr = ACC,
            .src1_addr = ACC, .rows = 1}), TSL_ERR_BAD_FIELD, 0, "EXP of integers");
    expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_RSQRT, .dst_dtype = TSL_DTYPE_FP32, .src1_dtype = TSL_DTYPE_FP32, .src2_dtype = TSL_DTYPE_FP32,
            .dst_addr = ACC, .src1_addr = ACC, .rows = 1}), TSL_ERR_BAD_FIELD, 0, "RSQRT with a second operand");
    expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_RECIP, .dst_dtype = TSL_DTYPE_FP32, .src1_dtype = TSL_DTYPE_FP32, .dst_addr = ACC,
            .src1_addr = ACC, .src2_addr = 4, .rows = 1}), TSL_ERR_BAD_FIELD, 0, "RECIP with a SRC2 address");
    expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_ADD, .dst_dtype = TSL_DTYPE_FP32, .src1_dtype = TSL_DTYPE_INT32,
            .src2_dtype = TSL_DTYPE_INT32, .src2_mode = TSL_SRC2_VEC, .dst_addr = ACC, .src1_addr = ACC,
            .src2_addr = ACC, .rows = 1}), TSL_ERR_BAD_FIELD, 0, "int and float operands mixed");
    expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_ADD, .dst_dtype = TSL_DTYPE_INT8, .src1_dtype = TSL_DTYPE_INT8,
            .src2_dtype = TSL_DTYPE_INT8, .src2_mode = TSL_SRC2_IMM, .src2_addr = 5, .rows = 1}),
        TSL_ERR_BAD_FIELD, 0, "IMM given an INT8 type");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .hbm_addr = HBM_BYTES - 64, .rows = 2, .row_bytes = 65, .hbm_stride = 64,
            .local_stride = 64}), TSL_ERR_HBM_RANGE,
               HBM_BYTES - 64, "DMA past the end of HBM");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_STORE, .hbm_addr = 0xFFFFFFF0u, .rows = 3, .row_bytes = 16, .hbm_stride = 0xFFFFFFF0u}),
        TSL_ERR_HBM_RANGE,
               0xFFFFFFF0u, "DMA whose extent wraps 32 bits");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .local_addr = VM - 16, .rows = 2, .row_bytes = 16, .local_stride = 16}),
        TSL_ERR_LOCAL_RANGE, VM - 16,
               "DMA past the end of VMEM");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .local_addr = 0x00800000u, .rows = 1, .row_bytes = 4}),
        TSL_ERR_LOCAL_RANGE, 0x00800000u,
               "DMA between VMEM and ACC");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .local_addr = ACC + TSL_PARAM_ACC_BYTES - 4, .rows = 1, .row_bytes = 8}),
        TSL_ERR_LOCAL_RANGE,
               ACC + TSL_PARAM_ACC_BYTES - 4, "DMA past the end of ACC");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .local_addr = ACC + 2, .rows = 1, .row_bytes = 8}), TSL_ERR_MISALIGNED, ACC + 2,
               "DMA to an unaligned ACC address");
    expect_err(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .local_addr = ACC, .rows = 1, .row_bytes = 6}), TSL_ERR_MISALIGNED, ACC,
               "DMA of a partial ACC word");
    expect_err(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_INT8, .addr = 4, .stride = n}), TSL_ERR_MISALIGNED, 4, "LOADW unaligned");
    expect_err(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_BF16, .stride = n}), TSL_ERR_MISALIGNED, 0, "LOADW bf16 stride of N bytes");
    expect_err(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_INT8, .addr = ACC, .stride = n}), TSL_ERR_LOCAL_RANGE, ACC, "LOADW from ACC");
    expect_err(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_INT8, .addr = VM - n, .stride = n}), TSL_ERR_LOCAL_RANGE, VM - n, "LOADW past VMEM");
    expect_err(&m, with_word(ok_mm, 4, 4 * n + 4), TSL_ERR_MISALIGNED, ACC, "MATMUL ACC stride not 4N");
    expect_err(&m, with_word(ok_mm, 3, 0), TSL_ERR_LOCAL_RANGE, 0, "MATMUL result in VMEM");
    expect_err(&m, with_word(ok_mm, 1, ACC), TSL_ERR_LOCAL_RANGE, ACC, "MATMUL activations in ACC");
    expect_err(&m, with_word(ok_mm, 5, TSL_PARAM_ACC_BYTES / (4 * n) + 1), TSL_ERR_LOCAL_RANGE, ACC,
               "MATMUL rows past the end of ACC");
    expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_RELU, .dst_dtype = TSL_DTYPE_INT8, .src1_dtype = TSL_DTYPE_INT8, .dst_addr = ACC,
            .rows = 1}),
               TSL_ERR_LOCAL_RANGE, ACC, "INT8 vector in ACC");
    expect_err(&m, with_word(ok_add, 3, ACC + 4), TSL_ERR_MISALIGNED, ACC + 4, "VPU operand unaligned");

    /* EPI: every refusal of its section, then its operands in the order dst, src1, bias. */
    const uint32_t I8 = TSL_DTYPE_INT8, I32 = TSL_DTYPE_INT32, B16 = TSL_DTYPE_BF16, F32 = TSL_DTYPE_FP32;
    tsl_insn_vpu_epi_t ei = {.dst_dtype = I32, .src1_dtype = I32, .bias = 1, .relu = 1, .dst_addr = ACC,
                             .src1_addr = ACC + 0x100, .src2_addr = ACC + 0x200, .rows = 2, .bvecs = 1};
    tsl_insn_vpu_epi_t ef = {.dst_dtype = F32, .src1_dtype = F32, .bias = 1, .fscale = 1, .dst_addr = ACC,
                             .src1_addr = ACC + 0x100, .src2_addr = ACC + 0x200, .rows = 2, .scale = 0x3F800000u,
                             .bvecs = 1};
    tsl_insn_vpu_epi_t eq = ei;
    eq.dst_dtype = I8;
    eq.dst_addr = 0x100;
    eq.scale = 0x12345;
    eq.shift = 62;
    eq.zero_point = 0xFFFFFF80u;
    tsl_insn_vpu_epi_t x;
    push_ok(&m, tsl_insn_vpu_epi_encode(ei), "EPI int32 bias relu");
    push_ok(&m, tsl_insn_vpu_epi_encode(ef), "EPI fp32 fscale bias");
    push_ok(&m, tsl_insn_vpu_epi_encode(eq), "EPI int8 requant");
    x = ei, x.rows = 0;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI of zero rows");
    x = ei, x.src1_dtype = I8, x.dst_dtype = I8, x.dst_addr = 0x100;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI of an INT8 src1");
    x = ef, x.src1_dtype = B16, x.dst_dtype = B16, x.dst_addr = 0x100;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI of a BF16 src1");
    x = ei, x.dst_dtype = F32;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI INT32 -> FP32");
    x = ef, x.dst_dtype = I32;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI FP32 -> INT32");
    x = ef, x.dst_dtype = I8, x.dst_addr = 0x100;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI FP32 -> INT8");
    x = ei, x.fscale = 1;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI FSCALE on integers");
    x = eq, x.fscale = 1;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI FSCALE on integers (INT8 dst)");
    x = ei, x.scale = 1;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI SCALE with an INT32 dst");
    x = ef, x.fscale = 0;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI SCALE without FSCALE");
    x = ei, x.shift = 1;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI SHIFT with an INT32 dst");
    x = ef, x.shift = 3;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI SHIFT with an FP32 dst");
    x = eq, x.shift = 63;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI SHIFT 63");
    x = ei, x.zero_point = 1;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ZERO_POINT with an INT32 dst");
    x = ef, x.dst_dtype = B16, x.dst_addr = 0x100, x.zero_point = 0x80000000u;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ZERO_POINT with a BF16 dst");
    x = ei, x.bias = 0, x.bvecs = 0;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI SRC2_ADDR without BIAS");
    x = ei, x.bias = 0, x.src2_addr = 0;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI BVECS without BIAS");
    x = ei, x.bvecs = 0;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI BIAS with BVECS 0");
    x = ei, x.src2_addr = VM - 4 * n, x.bvecs = 2;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_LOCAL_RANGE, VM - 4 * n, "EPI BVECS vectors past VMEM");
    expect_err(&m, with_word(tsl_insn_vpu_epi_encode(ei), 0, tsl_insn_vpu_epi_encode(ei).w[0] | 3u << 23),
               TSL_ERR_BAD_FIELD, 0, "EPI ROW past SOFTMAX");
    expect_err(&m, with_word(tsl_insn_vpu_epi_encode(ei), 6, 1u << 6), TSL_ERR_BAD_FIELD, 0,
               "EPI PAD without a ROW function");
    /* a ROW function: floats only, no BIAS or RELU, PAD below N, BVECS vectors a row, no overlap */
    tsl_insn_vpu_epi_t es = {.row = TSL_VPU_ROW_SOFTMAX, .dst_dtype = F32, .src1_dtype = B16, .dst_addr = ACC,
                             .src1_addr = 0x200, .rows = 3, .bvecs = 2, .pad = n - 1, .fscale = 1,
                             .scale = 0xBF800000u};
    push_ok(&m, tsl_insn_vpu_epi_encode(es), "EPI ROW SOFTMAX");
    x = es, x.src1_dtype = I32;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ROW SOFTMAX of INT32");
    x = es, x.dst_dtype = I8, x.dst_addr = 0x100;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ROW SOFTMAX to INT8");
    x = es, x.bias = 1, x.src2_addr = 0x1000;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ROW SOFTMAX with BIAS");
    x = es, x.relu = 1;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ROW SOFTMAX with RELU");
    x = es, x.pad = n;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ROW SOFTMAX with PAD N");
    x = es, x.bvecs = 0;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ROW SOFTMAX of BVECS 0");
    x = es, x.fscale = 0;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ROW SOFTMAX SCALE without FSCALE");
    x = es, x.src1_addr = 0x200, x.dst_addr = 0x200 + 5 * 2 * n, x.dst_dtype = B16;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ROW SOFTMAX dst over src1's last vector");
    x = es, x.src1_addr = ACC + 0x100, x.src1_dtype = F32, x.dst_addr = ACC + 0x100 - 6 * 4 * n + 4 * n;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_FIELD, 0, "EPI ROW SOFTMAX dst's last vector over src1");
    x = es, x.src1_addr = ACC + 0x100, x.src1_dtype = F32, x.dst_addr = ACC + 0x100 - 6 * 4 * n;
    push_ok(&m, tsl_insn_vpu_epi_encode(x), "EPI ROW SOFTMAX dst just below src1");
    x = es, x.rows = 0x8000, x.bvecs = 0x8000;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_LOCAL_RANGE, ACC, "EPI ROW SOFTMAX of 2^30 vectors");
    x = eq, x.dst_addr = ACC;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_LOCAL_RANGE, ACC, "EPI INT8 dst in ACC");
    x = ef, x.dst_dtype = B16, x.dst_addr = ACC + 0x400, x.src1_addr = ACC + 4;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_LOCAL_RANGE, ACC + 0x400, "EPI BF16 dst in ACC before src1");
    x = ei, x.dst_addr = ACC + 4, x.src1_addr = VM;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_MISALIGNED, ACC + 4, "EPI dst unaligned before src1");
    x = ei, x.src1_addr = ACC + 4, x.src2_addr = VM;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_MISALIGNED, ACC + 4, "EPI src1 unaligned before bias");
    x = ei, x.src1_addr = VM - 4 * n;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_LOCAL_RANGE, VM - 4 * n, "EPI src1 rows past VMEM");
    x = ei, x.src2_addr = VM - 4 * n, x.rows = 3;
    push_ok(&m, tsl_insn_vpu_epi_encode(x), "EPI bias of one row at the end of VMEM (ROWS 3)");
    x = ei, x.src2_addr = ACC + TSL_PARAM_ACC_BYTES;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_LOCAL_RANGE, ACC + TSL_PARAM_ACC_BYTES,
               "EPI bias row past ACC");
    x = ef, x.src2_addr = 0x100 + 2 * n;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_MISALIGNED, 0x100 + 2 * n, "EPI bias row unaligned");
    x = ei, x.src2_addr = 0x00800000u;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_LOCAL_RANGE, 0x00800000u, "EPI bias between VMEM and ACC");
    tsl_insn_t w = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_MXU});
    tsl_insn_wait(&w, TSL_TOK(TSL_UNIT_DMA));
    expect_err(&m, w, TSL_ERR_TOKEN_UNDERFLOW, 0, "wait with no signal pushed before it");
    push_ok(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_BF16, .wbuf = 1, .stride = 2 * n}), "LOADW bf16 into buffer 1");
    expect_err(&m, with_word(ok_mm, 0, ok_mm.w[0] | 1u << TSL_INSN_MXU_MATMUL_WBUF_SHIFT), TSL_ERR_WBUF_DTYPE, 0,
               "MATMUL int8 on a bf16 buffer");
    tsl_insn_t sig = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_VPU});
    tsl_insn_signal(&sig, TSL_TOK(TSL_UNIT_DMA));
    int all_ok = 1;
    for (uint32_t i = 0; i < TSL_PARAM_TOKEN_MAX; i++)
        all_ok &= tslm_push(&m, sig.w) == TSLM_OK;
    tu_check(&T, all_ok && tslm_reg_read(&m, TSL_TC_TOKENS_VPU_DMA_OFFSET) == TSL_PARAM_TOKEN_MAX,
             "TOKEN_MAX signals are held");
    expect_err(&m, sig, TSL_ERR_TOKEN_OVERFLOW, 0, "one signal more than TOKEN_MAX");
    tslm_free(&m);

    /* Instructions queued before the bad one still run (random schedule keeps them queued). */
    fresh(&m, n, 0);
    tslm_set_schedule(&m, TSLM_SCHED_RANDOM, T.seed);
    snap_t s = snap(&m);
    memcpy(s.vmem + 0x100, s.hbm + 0x200, 32);
    push_ok(&m, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .hbm_addr = 0x200, .local_addr = 0x100, .rows = 1, .row_bytes = 32}), "queued DMA");
    tu_check(&T, tslm_push(&m, tsl_insn_hdr_encode((tsl_insn_hdr_t){.unit = 3}).w) == TSLM_EDEVICE &&
                 tslm_reg_read(&m, TSL_TC_QUEUE_LEVEL_OFFSET) == 1, "bad instruction after it; DMA still queued");
    tslm_run(&m);
    check_snap("the instruction before the error completed", &m, &s);
    tslm_free(&m);

    /* A bf16 instruction on an int8-only build. */
    fresh(&m, n, 1u << TSL_TC_CFG_FEATURES_INT8_SHIFT);
    expect_err(&m, tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_BF16, .stride = 2 * n}), TSL_ERR_BAD_FIELD, 0, "bf16 LOADW, int8-only build");
    expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_RELU, .dst_dtype = TSL_DTYPE_FP32, .src1_dtype = TSL_DTYPE_FP32, .dst_addr = ACC,
            .src1_addr = ACC, .rows = 1}),
               TSL_ERR_BAD_FIELD, 0, "float VPU op, int8-only build");
    expect_err(&m, tsl_insn_vpu_epi_encode((tsl_insn_vpu_epi_t){
            .dst_dtype = TSL_DTYPE_FP32, .src1_dtype = TSL_DTYPE_FP32, .relu = 1, .dst_addr = ACC,
            .src1_addr = ACC, .rows = 1}),
               TSL_ERR_BAD_FIELD, 0, "float EPI, int8-only build");
    push_ok(&m, tsl_insn_vpu_epi_encode((tsl_insn_vpu_epi_t){
            .dst_dtype = TSL_DTYPE_INT8, .src1_dtype = TSL_DTYPE_INT32, .relu = 1, .dst_addr = 0,
            .src1_addr = ACC, .rows = 1, .scale = 3}), "integer EPI, int8-only build");
    tslm_free(&m);

    /* The lite core lacks EPI: ERR_BAD_OPCODE before any field check. */
    tslm_cfg_t lite = tslm_cfg_default();
    lite.n = n;
    lite.hbm_bytes = HBM_BYTES;
    lite.core = TSL_CORE_LITE;
    tu_check(&T, tslm_init(&m, &lite) == TSLM_OK, "lite-core model");
    expect_err(&m, tsl_insn_vpu_epi_encode(ei), TSL_ERR_BAD_OPCODE, 0, "EPI on the lite core");
    x = ei, x.rows = 0;
    expect_err(&m, tsl_insn_vpu_epi_encode(x), TSL_ERR_BAD_OPCODE, 0, "bad EPI on the lite core");
    /* ... and every other VPU op of the full core alone (MIN, EXP, ...), with valid fields. */
    for (uint32_t op = 0; op < TSL_VPU_OP_LIMIT; op++) {
        if (op == TSL_VPU_OP_EPI || !tsl_op_on_core(TSL_CORE_TC, TSL_UNIT_VPU, op) ||
            tsl_op_on_core(TSL_CORE_LITE, TSL_UNIT_VPU, op))
            continue;
        uint32_t un = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
        expect_err(&m, tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = op, .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT32,
                .src2_dtype = un ? 0 : TSL_DTYPE_INT32, .src2_mode = TSL_SRC2_VEC, .dst_addr = ACC,
                .src1_addr = ACC, .src2_addr = un ? 0 : ACC, .rows = 1}),
                   TSL_ERR_BAD_OPCODE, 0, tsl_vpu_op_name(op));
    }
    tslm_free(&m);

    tslm_cfg_t bad = tslm_cfg_default();
    bad.n = 12;
    tu_check(&T, tslm_init(&m, &bad) == TSLM_EINVAL, "tslm_init rejects N = 12");
    tu_check(&T, tslm_push(NULL, ok_dma.w) == TSLM_EINVAL, "tslm_push rejects a NULL model");
}

/* The generated typed encoders and decoders (tsl_hw.h) against the field macros: every field lands
 * where TSL_GET finds it, masked to its width; the fixed header fields are set; no bit outside the
 * format is; decode inverts encode. */
#define CODEC_FIELD(fmt, F, f)                                                                    \
    ok &= TSL_GET(i.w, TSL_INSN_##fmt##_##F) == (x.f & TSL_INSN_##fmt##_##F##_MASK) &&               \
          y.f == (x.f & TSL_INSN_##fmt##_##F##_MASK)
#define CODEC_HDR(F, f) \
    ok &= TSL_GET(i.w, TSL_INSN_HDR_##F) == (x.f & TSL_INSN_HDR_##F##_MASK) && y.f == (x.f & TSL_INSN_HDR_##F##_MASK)

static int codec_bits(const tsl_insn_t *i, int fmt)
{
    tsl_insn_hdr_t h = tsl_insn_hdr_decode(i->w);
    int ok = tsl_insn_format(h.unit, h.op) == fmt;
    for (unsigned k = 0; k < TSL_PARAM_INSN_WORDS; k++)
        ok &= !(i->w[k] & ~tsl_insn_used_bits(fmt, k));
    return ok;
}

static void test_codec(void)
{
    int ok = 1;
    for (int t = 0; t < 200; t++) {
        uint32_t r[16];
        for (int k = 0; k < 16; k++)
            r[k] = (uint32_t)tu_next(&T.rng);
        {
            tsl_insn_dma_xfer_t x = {.op = 1u + (r[0] & 1u), .hbm_addr = r[1], .local_addr = r[2], .rows = r[3],
                                     .row_bytes = r[4], .hbm_stride = r[5], .local_stride = r[6],
                                     .wait = r[7], .signal = r[8], .notify = r[9]};
            tsl_insn_t i = tsl_insn_dma_xfer_encode(x);
            tsl_insn_dma_xfer_t y = tsl_insn_dma_xfer_decode(i.w);
            CODEC_HDR(OP, op); CODEC_HDR(WAIT, wait); CODEC_HDR(SIGNAL, signal); CODEC_HDR(NOTIFY, notify);
            CODEC_FIELD(DMA_XFER, HBM_ADDR, hbm_addr); CODEC_FIELD(DMA_XFER, LOCAL_ADDR, local_addr);
            CODEC_FIELD(DMA_XFER, ROWS, rows); CODEC_FIELD(DMA_XFER, ROW_BYTES, row_bytes);
            CODEC_FIELD(DMA_XFER, HBM_STRIDE, hbm_stride); CODEC_FIELD(DMA_XFER, LOCAL_STRIDE, local_stride);
            ok &= TSL_GET(i.w, TSL_INSN_HDR_UNIT) == TSL_UNIT_DMA && codec_bits(&i, TSL_FMT_DMA_XFER);
        }
        {
            tsl_insn_mxu_matmulk_t x = {.dtype = r[0], .wbuf = r[1], .accumulate = r[2], .act_addr = r[3],
                                        .act_stride = r[4], .acc_addr = r[5], .acc_stride = r[6], .rows = r[7],
                                        .kblocks = r[8], .w_addr = r[9], .w_stride = r[10], .wait = r[11],
                                        .signal = r[12], .notify = r[13], .transpose = r[14]};
            tsl_insn_t i = tsl_insn_mxu_matmulk_encode(x);
            tsl_insn_mxu_matmulk_t y = tsl_insn_mxu_matmulk_decode(i.w);
            CODEC_HDR(WAIT, wait); CODEC_HDR(SIGNAL, signal); CODEC_HDR(NOTIFY, notify);
            CODEC_FIELD(MXU_MATMULK, DTYPE, dtype); CODEC_FIELD(MXU_MATMULK, WBUF, wbuf);
            CODEC_FIELD(MXU_MATMULK, ACCUMULATE, accumulate); CODEC_FIELD(MXU_MATMULK, ACT_ADDR, act_addr);
            CODEC_FIELD(MXU_MATMULK, TRANSPOSE, transpose);
            CODEC_FIELD(MXU_MATMULK, ACT_STRIDE, act_stride); CODEC_FIELD(MXU_MATMULK, ACC_ADDR, acc_addr);
            CODEC_FIELD(MXU_MATMULK, ACC_STRIDE, acc_stride); CODEC_FIELD(MXU_MATMULK, ROWS, rows);
            CODEC_FIELD(MXU_MATMULK, KBLOCKS, kblocks); CODEC_FIELD(MXU_MATMULK, W_ADDR, w_addr);
            CODEC_FIELD(MXU_MATMULK, W_STRIDE, w_stride);
            ok &= TSL_GET(i.w, TSL_INSN_HDR_UNIT) == TSL_UNIT_MXU && TSL_GET(i.w, TSL_INSN_HDR_OP) == TSL_MXU_OP_MATMULK &&
                  codec_bits(&i, TSL_FMT_MXU_MATMULK);
        }
        {
            tsl_insn_vpu_vec_t x = {.op = TSL_VPU_OP_ADD, .dst_dtype = r[0], .src1_dtype = r[1], .src2_dtype = r[2],
                                    .src2_mode = r[3], .dst_addr = r[4], .src1_addr = r[5], .src2_addr = r[6],
                                    .rows = r[7], .scale = r[8], .shift = r[9], .zero_point = r[10],
                                    .wait = r[11], .signal = r[12], .notify = r[13]};
            tsl_insn_t i = tsl_insn_vpu_vec_encode(x);
            tsl_insn_vpu_vec_t y = tsl_insn_vpu_vec_decode(i.w);
            CODEC_HDR(OP, op); CODEC_HDR(WAIT, wait); CODEC_HDR(SIGNAL, signal); CODEC_HDR(NOTIFY, notify);
            CODEC_FIELD(VPU_VEC, DST_DTYPE, dst_dtype); CODEC_FIELD(VPU_VEC, SRC1_DTYPE, src1_dtype);
            CODEC_FIELD(VPU_VEC, SRC2_DTYPE, src2_dtype); CODEC_FIELD(VPU_VEC, SRC2_MODE, src2_mode);
            CODEC_FIELD(VPU_VEC, DST_ADDR, dst_addr); CODEC_FIELD(VPU_VEC, SRC1_ADDR, src1_addr);
            CODEC_FIELD(VPU_VEC, SRC2_ADDR, src2_addr); CODEC_FIELD(VPU_VEC, ROWS, rows);
            CODEC_FIELD(VPU_VEC, SCALE, scale); CODEC_FIELD(VPU_VEC, SHIFT, shift);
            CODEC_FIELD(VPU_VEC, ZERO_POINT, zero_point);
            ok &= TSL_GET(i.w, TSL_INSN_HDR_UNIT) == TSL_UNIT_VPU && codec_bits(&i, TSL_FMT_VPU_VEC);
        }
        {
            uint32_t w[TSL_PARAM_CMD_WORDS], v[TSL_PARAM_CPL_WORDS];
            for (int k = 0; k < (int)TSL_PARAM_CMD_WORDS; k++)
                w[k] = r[k];
            tsl_cmd_t c = tsl_cmd_decode(w);
            ok &= c.opcode == TSL_GET(w, TSL_CMD_OPCODE) && c.flags == TSL_GET(w, TSL_CMD_FLAGS) &&
                  c.vpu_op == TSL_GET(w, TSL_CMD_VPU_OP) && c.shift == TSL_GET(w, TSL_CMD_SHIFT) &&
                  c.ldc == w[TSL_CMD_LDC_WORD] && c.zero_point == w[TSL_CMD_ZERO_POINT_WORD];
            uint32_t back[TSL_PARAM_CMD_WORDS];
            tsl_cmd_encode(&c, back);
            tsl_cmd_t c2 = tsl_cmd_decode(back);
            ok &= !memcmp(&c, &c2, sizeof c) && back[TSL_CMD_SHIFT_WORD] == (w[TSL_CMD_SHIFT_WORD] & TSL_CMD_SHIFT_MASK);
            tsl_cpl_t p = {.tag = r[0], .status = r[1], .opcode = r[2], .cycles = r[3], .detail = r[4]};
            tsl_cpl_encode(&p, v);
            tsl_cpl_t p2 = tsl_cpl_decode(v);
            ok &= TSL_GET(v, TSL_CPL_STATUS) == (r[1] & 0xFFFFu) && TSL_GET(v, TSL_CPL_OPCODE) == (r[2] & 0xFFu) &&
                  p2.tag == r[0] && p2.status == (r[1] & 0xFFFFu) && p2.detail == r[4] && v[1] >> 24 == 0;
        }
    }
    tsl_insn_t s = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_VPU, .signal = 1u});
    ok &= s.w[0] == (TSL_UNIT_VPU | (1u << TSL_INSN_HDR_SIGNAL_SHIFT)) && codec_bits(&s, TSL_FMT_SYNC);
    tu_check(&T, ok, "generated encode/decode agree with the field macros and invert each other");
    tu_check(&T, tsl_status_text(TSL_EDEVICE) && tsl_status_text(-100) && TSL_EDEVICE == TSLM_EDEVICE,
             "status texts; the model's codes are the shared ones");
}

/* -------------------------------------------------------------------------- program fetch unit */

#define PROG_AT (HBM_BYTES - 65536)   /* programs live in the top 64 KiB; the DMAs below 256 KiB */

/* A random valid instruction: a DMA LOAD or STORE, a VPU ADD (int32, VMEM), or a SYNC. */
static tsl_insn_t fetch_insn(void)
{
    uint32_t k = (uint32_t)tu_below(&T.rng, 4);
    if (k < 2)
        return tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = k ? TSL_DMA_OP_STORE : TSL_DMA_OP_LOAD, .hbm_addr = 64 * (uint32_t)tu_below(&T.rng, 4000),
            .local_addr = 64 * (uint32_t)tu_below(&T.rng, 512), .rows = 1 + (uint32_t)tu_below(&T.rng, 4), .row_bytes = 64,
            .hbm_stride = 64, .local_stride = 64});
    if (k == 2)
        return tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
            .op = TSL_VPU_OP_ADD, .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT32,
            .src2_dtype = TSL_DTYPE_INT32, .dst_addr = 64 * (uint32_t)tu_below(&T.rng, 512),
            .src1_addr = 64 * (uint32_t)tu_below(&T.rng, 512), .src2_addr = 64 * (uint32_t)tu_below(&T.rng, 512),
            .rows = 1 + (uint32_t)tu_below(&T.rng, 4)});
    tsl_insn_t s = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = (uint32_t)tu_below(&T.rng, 3)});
    if (tu_below(&T.rng, 2))
        tsl_insn_notify(&s);
    return s;
}

static uint32_t prog_hdr(uint32_t kind, uint32_t count)
{
    uint32_t h = 0;
    TSL_SET(&h, TSL_PROG_HDR_KIND, kind);
    TSL_SET(&h, TSL_PROG_HDR_COUNT, count);
    return h;
}

/* Every readable TC register of a and b the same (ID and CFG_* too) but the one at `skip`. */
static int same_regs(tslm_t *a, tslm_t *b, const char *what, uint32_t skip)
{
    for (uint32_t k = 0; k < TSL_TC_REG_COUNT; k++) {
        const tsl_reg_info_t *r = tsl_tc_reg_at(k);
        if (r->access == TSL_ACCESS_WO || r->offset == skip)
            continue;
        uint32_t x = tslm_reg_read(a, r->offset), y = tslm_reg_read(b, r->offset);
        if (x != y)
            return tu_check(&T, 0, "%s: %s pushed 0x%x fetched 0x%x", what, r->name, x, y);
    }
    return 1;
}

/* A device program run by a PROG_BYTES write equals its instructions written to INSN0..INSN7, word
 * for word (registers, HBM, VMEM, ACC); bad records, a program outside HBM, the window (which the
 * fetch does not obey), a pending error, and a core without the unit. */
static void test_fetch(void)
{
    static tslm_t a, b;
    static uint32_t img[16384];
    for (int run = 0; run < 40; run++) {
        fresh(&a, 16, 0);
        fresh(&b, 16, 0);
        memcpy(b.hbm, a.hbm, HBM_BYTES);
        memcpy(b.vmem, a.vmem, a.cfg.vmem_bytes);
        memcpy(b.acc, a.acc, a.cfg.acc_bytes);
        uint32_t nw = 0, total = 1 + (uint32_t)tu_below(&T.rng, 300);
        tsl_insn_t insns[300];
        for (uint32_t k = 0; k < total; k++)
            insns[k] = fetch_insn();
        int bad_insn = run % 5 == 4;
        if (bad_insn)
            insns[tu_below(&T.rng, total)] = tsl_insn_hdr_encode((tsl_insn_hdr_t){.unit = 3});
        for (uint32_t k = 0; k < total;) {
            uint32_t c = 1 + (uint32_t)tu_below(&T.rng, run % 3 ? 8 : 300);
            if (c > total - k)
                c = total - k;
            img[nw++] = prog_hdr(TSL_PROG_REC_INSN, c);
            for (uint32_t j = 0; j < c; j++, k++) {
                memcpy(&img[nw], insns[k].w, sizeof insns[k].w);
                nw += TSL_PARAM_INSN_WORDS;
            }
        }
        uint32_t at = PROG_AT + 4 * (uint32_t)tu_below(&T.rng, 1000);
        memcpy(a.hbm + at, img, 4 * nw);
        memcpy(b.hbm + at, img, 4 * nw);
        /* the window covers the DMAs' HBM and not the program */
        tslm_reg_write(&a, TSL_TC_HBM_LIMIT_OFFSET, PROG_AT);
        tslm_reg_write(&b, TSL_TC_HBM_LIMIT_OFFSET, PROG_AT);
        for (uint32_t k = 0; k < total; k++)
            for (unsigned w = 0; w < TSL_PARAM_INSN_WORDS; w++)
                tslm_reg_write(&a, TSL_TC_INSN0_OFFSET + 4 * w, insns[k].w[w]);
        tslm_reg_write(&a, TSL_TC_PROG_ADDR_OFFSET, at);   /* the registers read back the same */
        tslm_reg_write(&b, TSL_TC_PROG_ADDR_OFFSET, at + 3);
        tslm_reg_write(&a, TSL_TC_PROG_BYTES_OFFSET, 0);   /* 0 bytes: nothing runs */
        if (a.err_code != TSL_ERR_NONE)   /* with an error pending a write runs nothing */
            tslm_reg_write(&a, TSL_TC_PROG_BYTES_OFFSET, 4 * nw);
        tslm_reg_write(&b, TSL_TC_PROG_BYTES_OFFSET, 4 * nw + 2);
        char what[64];
        snprintf(what, sizeof what, "fetch run %d (%u instructions%s)", run, total, bad_insn ? ", one bad" : "");
        int ok = same_regs(&a, &b, what, a.err_code != TSL_ERR_NONE ? ~0u : TSL_TC_PROG_BYTES_OFFSET) &&
                 tslm_reg_read(&b, TSL_TC_PROG_BYTES_OFFSET) == 4 * nw && same_mem(what, "HBM", a.hbm, b.hbm, HBM_BYTES) &&
                 same_mem(what, "VMEM", a.vmem, b.vmem, a.cfg.vmem_bytes) && same_mem(what, "ACC", a.acc, b.acc, a.cfg.acc_bytes);
        tu_check(&T, ok && (bad_insn ? b.err_code == TSL_ERR_BAD_OPCODE : b.push_count == total),
                 "%s: as pushed through INSN0..INSN7", what);
    }

    /* bad records: ERR_BAD_RECORD at the record, ERR_UNIT FETCH, every record before it run */
    static const struct { uint32_t hdr; int end; const char *what; } bad[] = {
        {0u | 1u << 16, 0, "KIND 0"},       {3u | 1u << 16, 0, "KIND 3"},
        {1u | 0u << 16, 0, "INSN COUNT 0"}, {2u | 2u << 16, 0, "SEQ COUNT 2"},
        {1u | 1u << 16 | 1u << 8, 0, "reserved bit 8"}, {1u | 1u << 16 | 1u << 15, 0, "reserved bit 15"},
        {1u | 3u << 16, 1, "INSN past PROG_BYTES"}, {2u | 1u << 16, 1, "SEQ past PROG_BYTES"},
        {1u | 1u << 16, 2, "INSN one word short"},
    };
    for (unsigned c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        fresh(&b, 16, 0);
        tsl_insn_t s = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_MXU});
        uint32_t nw = 0;
        img[nw++] = prog_hdr(TSL_PROG_REC_INSN, 2);
        for (int j = 0; j < 2; j++, nw += TSL_PARAM_INSN_WORDS)
            memcpy(&img[nw], s.w, sizeof s.w);
        uint32_t bad_at = nw;
        img[nw++] = bad[c].hdr;
        for (int j = 0; j < 2; j++, nw += TSL_PARAM_INSN_WORDS)   /* what follows: one SYNC record */
            memcpy(&img[nw], j ? s.w : (uint32_t[8]){prog_hdr(TSL_PROG_REC_INSN, 1)}, sizeof s.w);
        if (bad[c].end)   /* the program ends inside the record */
            nw = bad_at + 1 + TSL_PARAM_INSN_WORDS - (bad[c].end == 2);
        memcpy(b.hbm + PROG_AT, img, 4 * nw);
        tslm_reg_write(&b, TSL_TC_PROG_ADDR_OFFSET, PROG_AT);
        tslm_reg_write(&b, TSL_TC_PROG_BYTES_OFFSET, 4 * nw);
        tu_check(&T, b.err_code == TSL_ERR_BAD_RECORD && b.err_unit == TSL_ERR_UNIT_FETCH && b.err_addr == PROG_AT + 4 * bad_at &&
                     b.err_seq == 2 && b.push_count == 2 && tslm_irq(&b) == 0 &&
                     (tslm_reg_read(&b, TSL_TC_STATUS_OFFSET) >> TSL_TC_STATUS_ERROR_SHIFT & 1),
                 "bad record (%s): ERR_CODE %u ERR_UNIT %u ERR_ADDR 0x%x PUSH_COUNT %u", bad[c].what, b.err_code,
                 b.err_unit, b.err_addr, b.push_count);
        tslm_reg_write(&b, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
        tu_check(&T, tslm_reg_read(&b, TSL_TC_PROG_ADDR_OFFSET) == PROG_AT && tslm_reg_read(&b, TSL_TC_PROG_BYTES_OFFSET) == 4 * nw,
                 "bad record (%s): CTRL.RESET keeps PROG_ADDR and PROG_BYTES", bad[c].what);
    }

    /* outside HBM: ERR_HBM_RANGE at PROG_ADDR, nothing run */
    fresh(&b, 16, 0);
    tslm_reg_write(&b, TSL_TC_PROG_ADDR_OFFSET, HBM_BYTES - 8);
    tslm_reg_write(&b, TSL_TC_PROG_BYTES_OFFSET, 12);
    tu_check(&T, b.err_code == TSL_ERR_HBM_RANGE && b.err_unit == TSL_ERR_UNIT_FETCH && b.err_addr == HBM_BYTES - 8 &&
                 b.push_count == 0, "a program past HBM: ERR_HBM_RANGE at PROG_ADDR");
    fresh(&b, 16, 0);
    tslm_reg_write(&b, TSL_TC_PROG_ADDR_OFFSET, 0xFFFFFFF0u);
    tslm_reg_write(&b, TSL_TC_PROG_BYTES_OFFSET, 0x20);
    tu_check(&T, b.err_code == TSL_ERR_HBM_RANGE && b.err_addr == 0xFFFFFFF0u, "a program wrapping past 2^32: ERR_HBM_RANGE");

    /* a core without the unit: the registers read 0 and a write runs nothing */
    fresh(&b, 16, (1u << TSL_TC_CFG_FEATURES_INT8_SHIFT) | (1u << TSL_TC_CFG_FEATURES_BF16_SHIFT));
    img[0] = prog_hdr(TSL_PROG_REC_INSN, 0);
    memcpy(b.hbm, img, 4);
    tslm_reg_write(&b, TSL_TC_PROG_ADDR_OFFSET, 0);
    tslm_reg_write(&b, TSL_TC_PROG_BYTES_OFFSET, 4);
    tu_check(&T, b.err_code == TSL_ERR_NONE && tslm_reg_read(&b, TSL_TC_PROG_BYTES_OFFSET) == 0 &&
                 !(tslm_reg_read(&b, TSL_TC_CFG_FEATURES_OFFSET) >> TSL_TC_CFG_FEATURES_FETCH_SHIFT & 1),
             "without CFG_FEATURES.FETCH: PROG_BYTES reads 0 and runs nothing");
    tslm_free(&a);
    tslm_free(&b);
}

int main(int argc, char **argv)
{
    tu_init(&T, "insn", argc, argv);
    test_fetch();
    test_dma();
    test_window();
    test_mxu(4);
    test_mxu(16);
    test_mxu_transpose(4);
    test_mxu_transpose(16);
    test_vpu(4);
    test_vpu(16);
    test_vpu(32);
    test_epi(4);
    test_epi(16);
    test_epi_bvecs(4);
    test_epi_bvecs(16);
    test_epi_softmax(4);
    test_epi_softmax(16);
    test_epi_norms(4);
    test_epi_norms(16);
    test_tokens();
    test_errors();
    test_codec();
    return tu_done(&T);
}
