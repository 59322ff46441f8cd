/* The tile sequencer in the golden model (docs/isa.md section 8): random GEMM descriptors launched
 * through TC SEQ0..SEQ23 against the independent reference of hw/model/ref.h, under the in-order
 * and the random schedule (a missing dependency token shows as a wrong result there), and every
 * launch check with the error it must give, also under an HBM window (TC HBM_BASE, HBM_LIMIT): a
 * window exactly the operands' span leaves every descriptor running, one byte less refuses it.
 * Usage: test_seq [SEED] [CASES]. */
#include <string.h>

#include "ref_seq.h"
#include "tsl_insn.h"
#include "test_util.h"
#include "tslm.h"

#define HBM_BYTES (1u << 22)

static void launch(tslm_t *m, const tsl_seq_t *d)
{
    uint32_t w[TSL_PARAM_SEQ_WORDS];
    tsl_seq_encode(d, w);
    for (unsigned i = 0; i < TSL_PARAM_SEQ_WORDS; i++)
        tslm_reg_write(m, TSL_TC_SEQ0_OFFSET + 4u * i, w[i]);
}

static uint32_t rd(tslm_t *m, uint32_t off) { return tslm_reg_read(m, off); }

static uint32_t fill_f32(tu_rng_t *r)
{
    /* values of a few magnitudes, some specials */
    switch (tu_below(r, 40)) {
    case 0: return 0x7F800000u;
    case 1: return 0x80000000u;
    case 2: return 0x00000001u;   /* subnormal */
    default: return ref_u((float)((int)tu_below(r, 2001) - 1000) / 64.0f);
    }
}

/* A random valid descriptor for an N-array with vmem/acc bytes, or 0 when the draw does not fit. */
static int draw(tu_rng_t *r, uint32_t n, uint32_t vmem, uint32_t acc, int bf16, tsl_seq_t *d)
{
    memset(d, 0, sizeof *d);
    d->m = 1 + (uint32_t)tu_below(r, tu_below(r, 4) ? 40 : 200);
    d->n = 1 + (uint32_t)tu_below(r, tu_below(r, 4) ? 40 : 150);
    d->k = 1 + (uint32_t)tu_below(r, tu_below(r, 4) ? 40 : 300);
    d->dtype = bf16 ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8;
    uint32_t es = bf16 ? 2 : 1, kp = (d->k + n - 1) / n * n;
    d->bias = tu_below(r, 2);
    d->relu = tu_below(r, 2);
    if (bf16) {
        d->c_dtype = tu_below(r, 2) ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32;
        d->fscale = tu_below(r, 3) == 0;
        d->post = tu_below(r, 4) ? 1u + (uint32_t)tu_below(r, TSL_GEMM_POSTS_COUNT) : 0u;   /* a [gemm_post] code */
        if (d->relu && !tsl_gemm_post_has(TSL_GEMM_POST_RELU, d->post))
            d->post = 0;
        if (d->fscale)
            d->scale = fill_f32(r);
    } else {
        d->c_dtype = tu_below(r, 2) ? TSL_DTYPE_INT8 : TSL_DTYPE_INT32;
        if (d->c_dtype == TSL_DTYPE_INT8) {
            d->scale = (uint32_t)((int32_t)tu_below(r, 2001) - 1000);
            d->shift = (uint32_t)tu_below(r, 20);
            d->zero_point = (uint32_t)((int32_t)tu_below(r, 21) - 10);
        }
    }
    uint32_t ces = tsl_dtype_bytes(d->c_dtype);
    d->mc = 1 + (uint32_t)tu_below(r, d->m + 8);
    d->nbw = 1 + (uint32_t)tu_below(r, 4);
    d->kc = d->k % n ? kp : n * (1 + (uint32_t)tu_below(r, kp / n));
    /* HBM: A, B, C, bias with strides a little longer than a row */
    /* dense half of the time (whole tiles then move as one row) */
    d->lda = d->k * es + (tu_below(r, 2) ? 0u : (uint32_t)tu_below(r, 8));
    d->ldb = d->n * es + (tu_below(r, 2) ? 0u : (uint32_t)tu_below(r, 8));
    d->ldc = d->n * ces + (tu_below(r, 2) ? 0u : (uint32_t)tu_below(r, 8));
    uint32_t p = 4096 + (uint32_t)tu_below(r, 64);
    d->a_addr = p;
    p += d->m * d->lda + 64 + (uint32_t)tu_below(r, 64);
    d->b_addr = p;
    p += d->k * d->ldb + 64 + (uint32_t)tu_below(r, 64);
    d->c_addr = p;
    p += d->m * d->ldc + 64 + (uint32_t)tu_below(r, 64);
    if (d->bias)
        d->bias_addr = p;
    p += d->n * 4 + 64;
    if (p > HBM_BYTES)
        return 0;
    /* the regions: the layout's size, then a random aligned place that fits */
    uint64_t al = 4u * n, sz = 0, parts[3] = {(uint64_t)d->mc * d->kc * es, (uint64_t)d->kc * d->nbw * n * es,
                                              (uint64_t)d->nbw * d->mc * n * ces};
    for (int i = 0; i < 3; i++)
        sz += 2 * ((parts[i] + al - 1) / al * al);
    uint32_t ncb = (d->n + n - 1) / n;
    sz += d->bias ? (ncb + d->nbw - 1) / d->nbw * d->nbw * n * 4u : 0u;
    uint64_t accsz = 2ull * d->nbw * d->mc * 4u * n;
    if (sz > vmem || accsz > acc)
        return 0;
    d->vmem_addr = (uint32_t)(tu_below(r, (vmem - sz) / al + 1) * al);
    d->acc_addr = TSL_LOCAL_ACC_BASE + (uint32_t)(tu_below(r, (acc - accsz) / al + 1) * al);
    return 1;
}

static void random_bytes(tu_rng_t *r, uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        p[i] = (uint8_t)tu_next(r);
}

/* The HBM bytes [*lo, *hi) that a GEMM descriptor's operands span (A, B, C, and the bias row). */
static void hbm_span(const tsl_seq_t *d, uint64_t *lo, uint64_t *hi)
{
    uint64_t es = tsl_dtype_bytes(d->dtype), ces = tsl_dtype_bytes(d->c_dtype);
    uint64_t s[4][2] = {{d->a_addr, d->a_addr + (uint64_t)(d->m - 1) * d->lda + d->k * es},
                        {d->b_addr, d->b_addr + (uint64_t)(d->k - 1) * d->ldb + d->n * es},
                        {d->c_addr, d->c_addr + (uint64_t)(d->m - 1) * d->ldc + d->n * ces},
                        {d->bias_addr, d->bias_addr + 4ull * d->n}};
    *lo = UINT64_MAX;
    *hi = 0;
    for (int i = 0; i < (d->bias ? 4 : 3); i++) {
        *lo = s[i][0] < *lo ? s[i][0] : *lo;
        *hi = s[i][1] > *hi ? s[i][1] : *hi;
    }
}

/* One descriptor under one schedule: the C region (and the bytes next to it) against the reference.
 * tight: under the HBM window [lo, hi) of hbm_span, which every instruction it expands into must
 * keep to. */
static int run_case(tu_t *t, uint32_t n, const tsl_seq_t *d, tslm_sched_t sched, uint64_t seed, int tight)
{
    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.n = n;
    cfg.hbm_bytes = HBM_BYTES;
    cfg.vmem_bytes = n == 4 ? 16384 : 65536;
    cfg.acc_bytes = n == 4 ? 8192 : 32768;
    tslm_t m;
    if (tslm_init(&m, &cfg) != TSLM_OK)
        return 0;
    tslm_set_schedule(&m, sched, seed);
    tu_rng_t r;
    tu_seed(&r, seed);
    uint8_t *h = tslm_hbm(&m);
    random_bytes(&r, h, HBM_BYTES);
    random_bytes(&r, tslm_vmem(&m), cfg.vmem_bytes);
    random_bytes(&r, tslm_acc(&m), cfg.acc_bytes);
    int bf = d->dtype == TSL_DTYPE_BF16;
    uint32_t es = bf ? 2 : 1, ces = tsl_dtype_bytes(d->c_dtype), kp = (d->k + n - 1) / n * n;
    /* bf16 inputs of modest magnitude (random bits would be mostly NaN and inf) */
    for (uint32_t i = 0; i < d->m; i++)
        for (uint32_t k = 0; k < d->k && bf; k++) {
            uint16_t v = (uint16_t)(ref_u((float)((int)tu_below(&r, 255) - 127) / 16.0f) >> 16);
            memcpy(h + d->a_addr + i * d->lda + 2 * k, &v, 2);
        }
    for (uint32_t k = 0; k < d->k && bf; k++)
        for (uint32_t j = 0; j < d->n; j++) {
            uint16_t v = (uint16_t)(ref_u((float)((int)tu_below(&r, 255) - 127) / 16.0f) >> 16);
            memcpy(h + d->b_addr + k * d->ldb + 2 * j, &v, 2);
        }
    for (uint32_t j = 0; j < d->n && d->bias && bf; j++) {
        uint32_t v = fill_f32(&r);
        memcpy(h + d->bias_addr + 4 * j, &v, 4);
    }
    /* dense zero-padded copies for the reference, and the HBM as it was */
    uint8_t *a = calloc((size_t)d->m * kp, es), *b = calloc((size_t)kp * d->n, es);
    uint8_t *before = malloc(HBM_BYTES);
    for (uint32_t i = 0; i < d->m; i++)
        memcpy(a + (size_t)i * kp * es, h + d->a_addr + i * d->lda, d->k * es);
    for (uint32_t k = 0; k < d->k; k++)
        memcpy(b + (size_t)k * d->n * es, h + d->b_addr + k * d->ldb, d->n * es);
    memcpy(before, h, HBM_BYTES);

    if (tight) {
        uint64_t lo, hi;
        hbm_span(d, &lo, &hi);
        tslm_reg_write(&m, TSL_TC_HBM_BASE_OFFSET, (uint32_t)lo);
        tslm_reg_write(&m, TSL_TC_HBM_LIMIT_OFFSET, (uint32_t)hi);
    }
    launch(&m, d);
    tslm_run(&m);
    int ok = rd(&m, TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_NONE &&
             (rd(&m, TSL_TC_STATUS_OFFSET) >> TSL_TC_STATUS_IDLE_SHIFT & 1u);
    for (uint32_t off = TSL_TC_TOKENS_DMA_MXU_OFFSET; off <= TSL_TC_TOKENS_VPU_MXU_OFFSET; off += 4)
        ok = ok && rd(&m, off) == 0;   /* every channel ends at 0 */
    unsigned csr = ref_fp_ftz_daz();
    uint32_t bad = 0;
    for (uint32_t i = 0; i < d->m && ok; i++)
        for (uint32_t j = 0; j < d->n; j++) {
            uint32_t acc = ref_gemm_elem(a, b, bf, kp, d->n, n, i, j), bias = 0, got = 0, old = 0;
            if (d->bias)
                memcpy(&bias, before + d->bias_addr + 4 * j, 4);
            memcpy(&old, before + d->c_addr + i * d->ldc + j * ces, ces);
            uint32_t want = ref_seq_epilogue(d, acc, bias, old);
            memcpy(&got, h + d->c_addr + i * d->ldc + j * ces, ces);
            if (got != want && bad++ < 4)
                printf("  C[%u][%u] = 0x%08X, want 0x%08X\n", i, j, got, want);
        }
    ref_fp_restore(csr);
    /* everything outside C's elements is untouched */
    for (uint32_t i = 0; i < d->m && ok; i++)
        memcpy(before + d->c_addr + i * d->ldc, h + d->c_addr + i * d->ldc, d->n * ces);
    ok = ok && !bad && memcmp(before, h, HBM_BYTES) == 0;
    if (!ok)
        printf("  case failed: n=%u M=%u N=%u K=%u %s C%u bias=%u relu=%u post=%s fscale=%u MC=%u KC=%u "
               "NBW=%u sched=%d window=%d err=%u ERR_ADDR 0x%X\n",
               n, d->m, d->n, d->k, bf ? "bf16" : "int8", d->c_dtype, d->bias, d->relu,
               d->post ? tsl_vpu_op_name(d->post) : "none", d->fscale,
               d->mc, d->kc, d->nbw,
               sched, tight, rd(&m, TSL_TC_ERR_CODE_OFFSET), rd(&m, TSL_TC_ERR_ADDR_OFFSET));
    free(a);
    free(b);
    free(before);
    tslm_free(&m);
    return tu_check(t, ok, "seq GEMM");
}

/* A launch check: `d` gives ERR `err` at address `addr`, from the sequencer, and pushes nothing. */
/* Under the HBM window [base, limit), written before a CTRL.RESET (which keeps it); err NONE: the
 * descriptor runs (it pushes instructions). */
static void refused_in(tu_t *t, const char *what, const uint32_t *w, uint32_t base, uint32_t limit, uint32_t err,
                       uint32_t addr)
{
    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.hbm_bytes = HBM_BYTES;
    tslm_t m;
    if (tslm_init(&m, &cfg) != TSLM_OK)
        return;
    tslm_reg_write(&m, TSL_TC_HBM_BASE_OFFSET, base);
    tslm_reg_write(&m, TSL_TC_HBM_LIMIT_OFFSET, limit);
    tslm_reg_write(&m, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
    for (unsigned i = 0; i < TSL_PARAM_SEQ_WORDS; i++)
        tslm_reg_write(&m, TSL_TC_SEQ0_OFFSET + 4u * i, w[i]);
    int ok = err == TSL_ERR_NONE
                 ? rd(&m, TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_NONE && rd(&m, TSL_TC_PUSH_COUNT_OFFSET) > 0
                 : rd(&m, TSL_TC_ERR_CODE_OFFSET) == err && rd(&m, TSL_TC_ERR_UNIT_OFFSET) == TSL_ERR_UNIT_SEQ &&
                       rd(&m, TSL_TC_ERR_ADDR_OFFSET) == addr && rd(&m, TSL_TC_PUSH_COUNT_OFFSET) == 0;
    if (!ok)
        printf("  %s: ERR_CODE %u (want %u), ERR_ADDR 0x%X (want 0x%X), pushed %u\n", what,
               rd(&m, TSL_TC_ERR_CODE_OFFSET), err, rd(&m, TSL_TC_ERR_ADDR_OFFSET), addr,
               rd(&m, TSL_TC_PUSH_COUNT_OFFSET));
    tu_check(t, ok, what);
    tslm_free(&m);
}

static void refused(tu_t *t, const char *what, const uint32_t *w, uint32_t err, uint32_t addr)
{
    refused_in(t, what, w, 0, HBM_BYTES, err, addr);
}

static void launch_checks(tu_t *t)
{
    const uint32_t n = TSL_PARAM_N;
    tsl_seq_t good = {.m = 32, .n = 32, .k = 32, .dtype = TSL_DTYPE_INT8, .c_dtype = TSL_DTYPE_INT32,
                      .a_addr = 0x1000, .lda = 32, .b_addr = 0x2000, .ldb = 32, .c_addr = 0x3000, .ldc = 128,
                      .mc = 32, .kc = 32, .nbw = 2, .vmem_addr = 0, .acc_addr = TSL_LOCAL_ACC_BASE};
    uint32_t w[TSL_PARAM_SEQ_WORDS];
#define CASE(what, field_edit, err, addr)     \
    do {                                      \
        tsl_seq_t d = good;                   \
        field_edit;                           \
        tsl_seq_encode(&d, w);                \
        refused(t, what, w, err, addr);       \
    } while (0)
    tsl_seq_encode(&good, w);
    w[13] |= 1u << 31;
    refused(t, "reserved bit", w, TSL_ERR_BAD_FIELD, 0);
    CASE("M = 0", d.m = 0, TSL_ERR_BAD_FIELD, 0);
    CASE("MC = 0", d.mc = 0, TSL_ERR_BAD_FIELD, 0);
    CASE("dtype INT32", d.dtype = TSL_DTYPE_INT32, TSL_ERR_BAD_FIELD, 0);
    CASE("int8 A, fp32 C", d.c_dtype = TSL_DTYPE_FP32, TSL_ERR_BAD_FIELD, 0);
    CASE("FSCALE with int", (d.fscale = 1, d.scale = 0x3F800000u), TSL_ERR_BAD_FIELD, 0);
    CASE("SHIFT with int32 C", d.shift = 3, TSL_ERR_BAD_FIELD, 0);
    CASE("SHIFT 63", (d.c_dtype = TSL_DTYPE_INT8, d.shift = 63), TSL_ERR_BAD_FIELD, 0);
    for (uint32_t post = 1; post <= TSL_GEMM_POSTS_COUNT; post++) {   /* each last step of [gemm_post] */
        CASE("POST with int8", d.post = post, TSL_ERR_BAD_FIELD, 0);
        if (!tsl_gemm_post_has(TSL_GEMM_POST_RELU, post))
            CASE("POST with RELU", (d.dtype = TSL_DTYPE_BF16, d.c_dtype = TSL_DTYPE_FP32, d.lda = 64, d.ldb = 64,
                                    d.ldc = 128, d.post = post, d.relu = 1), TSL_ERR_BAD_FIELD, 0);
    }
    CASE("POST past the last code", (d.dtype = TSL_DTYPE_BF16, d.c_dtype = TSL_DTYPE_FP32, d.lda = 64, d.ldb = 64,
                                     d.ldc = 128, d.post = TSL_GEMM_POSTS_COUNT + 1u), TSL_ERR_BAD_FIELD, 0);
    CASE("BIAS_ADDR without BIAS", d.bias_addr = 0x5000, TSL_ERR_BAD_FIELD, 0);
    CASE("KC not a multiple of N", d.kc = n + 1, TSL_ERR_BAD_FIELD, 0);
    CASE("K padded over two chunks", (d.k = 3 * n + 1, d.kc = n), TSL_ERR_BAD_FIELD, 0);
    CASE("A past HBM", d.a_addr = HBM_BYTES - 100, TSL_ERR_HBM_RANGE, HBM_BYTES - 100);
    CASE("C past HBM", d.ldc = HBM_BYTES / 16, TSL_ERR_HBM_RANGE, 0x3000);
    CASE("bias past HBM", (d.bias = 1, d.bias_addr = HBM_BYTES - 4), TSL_ERR_HBM_RANGE, HBM_BYTES - 4);
    CASE("VMEM_ADDR misaligned", d.vmem_addr = 4 * n + 4, TSL_ERR_MISALIGNED, 4 * n + 4);
    CASE("ACC_ADDR misaligned", d.acc_addr = TSL_LOCAL_ACC_BASE + 8, TSL_ERR_MISALIGNED, TSL_LOCAL_ACC_BASE + 8);
    CASE("VMEM region too large", d.vmem_addr = TSL_PARAM_VMEM_BYTES - 4 * n, TSL_ERR_LOCAL_RANGE,
         TSL_PARAM_VMEM_BYTES - 4 * n);
    CASE("ACC_ADDR in VMEM", d.acc_addr = 0, TSL_ERR_LOCAL_RANGE, 0);
    CASE("ACC region past ACC", d.acc_addr = TSL_LOCAL_ACC_BASE + TSL_PARAM_ACC_BYTES - 4 * n, TSL_ERR_LOCAL_RANGE,
         TSL_LOCAL_ACC_BASE + TSL_PARAM_ACC_BYTES - 4 * n);
    /* the HBM window: A [0x1000, 0x1400), B [0x2000, 0x2400), C [0x3000, 0x4000), bias [0x5000, 0x5080) */
#define WCASE(what, field_edit, base, limit, err, addr) \
    do {                                                \
        tsl_seq_t d = good;                             \
        field_edit;                                     \
        tsl_seq_encode(&d, w);                          \
        refused_in(t, what, w, base, limit, err, addr); \
    } while (0)
    WCASE("window: exactly A..C runs", (void)0, 0x1000, 0x4000, TSL_ERR_NONE, 0);
    WCASE("window: exactly A..bias runs", (d.bias = 1, d.bias_addr = 0x5000), 0x1000, 0x5080, TSL_ERR_NONE, 0);
    WCASE("window: HBM_LIMIT past HBM, HBM_BYTES bounds", (void)0, 0, 0xFFFFFFFFu, TSL_ERR_NONE, 0);
    WCASE("window: base one byte into A", (void)0, 0x1001, 0x4000, TSL_ERR_HBM_RANGE, 0x1000);
    WCASE("window: limit one byte short of C", (void)0, 0x1000, 0x3FFF, TSL_ERR_HBM_RANGE, 0x3000);
    WCASE("window: A only, B outside", (void)0, 0x1000, 0x1400, TSL_ERR_HBM_RANGE, 0x2000);
    WCASE("window: B and C only, A below", (void)0, 0x2000, 0x4000, TSL_ERR_HBM_RANGE, 0x1000);
    WCASE("window: bias one byte past", (d.bias = 1, d.bias_addr = 0x5000), 0x1000, 0x507F, TSL_ERR_HBM_RANGE, 0x5000);
    WCASE("window: bias below", (d.bias = 1, d.bias_addr = 0x800), 0x1000, 0x4000, TSL_ERR_HBM_RANGE, 0x800);
    WCASE("window: empty", (void)0, 0x1000, 0x1000, TSL_ERR_HBM_RANGE, 0x1000);
    WCASE("window: HBM_BASE above HBM_LIMIT", (void)0, 0x4000, 0x1000, TSL_ERR_HBM_RANGE, 0x1000);
    WCASE("window: a bad field first", d.m = 0, 0x4000, 0x1000, TSL_ERR_BAD_FIELD, 0);
    WCASE("window: HBM before alignment", d.vmem_addr = 4, 0x1001, 0x4000, TSL_ERR_HBM_RANGE, 0x1000);
#undef WCASE
#undef CASE
    /* a core without CFG_FEATURES.WINDOW: HBM_BASE and HBM_LIMIT read 0, writes change nothing */
    {
        tslm_cfg_t c = tslm_cfg_default();
        c.hbm_bytes = HBM_BYTES;
        c.features &= ~(1u << TSL_TC_CFG_FEATURES_WINDOW_SHIFT);
        tslm_t m;
        if (tslm_init(&m, &c) == TSLM_OK) {
            tslm_reg_write(&m, TSL_TC_HBM_BASE_OFFSET, 0x1001);
            tslm_reg_write(&m, TSL_TC_HBM_LIMIT_OFFSET, 0x1002);
            launch(&m, &good);
            tu_check(t, rd(&m, TSL_TC_HBM_BASE_OFFSET) == 0 && rd(&m, TSL_TC_HBM_LIMIT_OFFSET) == 0 &&
                            rd(&m, TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_NONE && rd(&m, TSL_TC_PUSH_COUNT_OFFSET) > 0,
                     "without CFG_FEATURES.WINDOW the window registers do nothing");
            tslm_free(&m);
        }
    }
    /* a channel with a token left over: the expansion's waits would take it */
    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.hbm_bytes = HBM_BYTES;
    tslm_t m;
    if (tslm_init(&m, &cfg) == TSLM_OK) {
        tsl_insn_t sy = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_DMA});
        tsl_insn_signal(&sy, TSL_TOK(TSL_UNIT_MXU));
        int pushed = tslm_push(&m, sy.w) == TSLM_OK;
        launch(&m, &good);
        tu_check(t, pushed && rd(&m, TSL_TC_ERR_CODE_OFFSET) == TSL_ERR_BAD_FIELD &&
                        rd(&m, TSL_TC_ERR_UNIT_OFFSET) == TSL_ERR_UNIT_SEQ && rd(&m, TSL_TC_PUSH_COUNT_OFFSET) == 1,
                 "a token left on a channel");
        tslm_free(&m);
    }
}

/* A SEQ record of a device program fetched through PROG_ADDR/PROG_BYTES (docs/isa.md section 6,
 * Program fetch), between two INSN records of SYNCs, equals the same descriptor written to
 * SEQ0..SEQ23 between the same pushes: HBM, VMEM, ACC and every register. A launch refusal stops the
 * fetch (the second INSN record is not pushed), as a refused SEQ23 write drops later pushes. */
static void fetch_seq(tu_t *t, uint32_t n, const tsl_seq_t *d, uint64_t seed, int refuse)
{
    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.n = n;
    cfg.hbm_bytes = HBM_BYTES;
    cfg.vmem_bytes = n == 4 ? 16384 : 65536;
    cfg.acc_bytes = n == 4 ? 8192 : 32768;
    static tslm_t a, b;
    if (tslm_init(&a, &cfg) != TSLM_OK || tslm_init(&b, &cfg) != TSLM_OK) {
        tu_check(t, 0, "tslm_init");
        return;
    }
    tu_rng_t r;
    tu_seed(&r, seed);
    random_bytes(&r, a.hbm, HBM_BYTES);
    random_bytes(&r, a.vmem, cfg.vmem_bytes);
    random_bytes(&r, a.acc, cfg.acc_bytes);
    uint64_t lo, hi;
    hbm_span(d, &lo, &hi);
    uint32_t w[TSL_PARAM_SEQ_WORDS], img[1 + 2 * 8 + 1 + TSL_PARAM_SEQ_WORDS + 1 + 8], nw = 0;
    tsl_seq_encode(d, w);
    tsl_insn_t s1 = tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_VPU});
    tsl_insn_t s2 = refuse ? tsl_insn_sync_encode((tsl_insn_sync_t){.unit = TSL_UNIT_DMA, .signal = TSL_TOK(TSL_UNIT_MXU)}) : s1;
    img[nw++] = TSL_PROG_REC_INSN | 2u << TSL_PROG_HDR_COUNT_SHIFT;
    memcpy(&img[nw], s1.w, sizeof s1.w), nw += 8;
    memcpy(&img[nw], s2.w, sizeof s2.w), nw += 8;   /* refuse: a token left, the launch refuses */
    img[nw++] = TSL_PROG_REC_SEQ | 1u << TSL_PROG_HDR_COUNT_SHIFT;
    memcpy(&img[nw], w, sizeof w), nw += TSL_PARAM_SEQ_WORDS;
    img[nw++] = TSL_PROG_REC_INSN | 1u << TSL_PROG_HDR_COUNT_SHIFT;
    memcpy(&img[nw], s1.w, sizeof s1.w), nw += 8;
    /* the program below or above the operands, at any word */
    uint32_t at = hi + 4 * nw + 64 <= HBM_BYTES ? (uint32_t)((hi + 3) & ~3ull) + 4 * (uint32_t)tu_below(&r, 16)
                                                 : (uint32_t)lo - 4 * nw - 64;
    memcpy(a.hbm + at, img, 4 * nw);
    memcpy(b.hbm, a.hbm, HBM_BYTES);
    memcpy(b.vmem, a.vmem, cfg.vmem_bytes);
    memcpy(b.acc, a.acc, cfg.acc_bytes);
    for (unsigned k = 0; k < 8; k++)
        tslm_reg_write(&a, TSL_TC_INSN0_OFFSET + 4 * k, s1.w[k]);
    for (unsigned k = 0; k < 8; k++)
        tslm_reg_write(&a, TSL_TC_INSN0_OFFSET + 4 * k, s2.w[k]);
    for (unsigned k = 0; k < TSL_PARAM_SEQ_WORDS; k++)
        tslm_reg_write(&a, TSL_TC_SEQ0_OFFSET + 4 * k, w[k]);
    if (a.err_code == TSL_ERR_NONE)   /* a refused launch stops the fetch: nothing after it */
        for (unsigned k = 0; k < 8; k++)
            tslm_reg_write(&a, TSL_TC_INSN0_OFFSET + 4 * k, s1.w[k]);
    tslm_reg_write(&b, TSL_TC_PROG_ADDR_OFFSET, at);
    tslm_reg_write(&b, TSL_TC_PROG_BYTES_OFFSET, 4 * nw);
    int ok = memcmp(a.hbm, b.hbm, HBM_BYTES) == 0 && memcmp(a.vmem, b.vmem, cfg.vmem_bytes) == 0 &&
             memcmp(a.acc, b.acc, cfg.acc_bytes) == 0;
    for (uint32_t k = 0; k < TSL_TC_REG_COUNT; k++) {
        const tsl_reg_info_t *ri = tsl_tc_reg_at(k);
        if (ri->access != TSL_ACCESS_WO && ri->offset != TSL_TC_PROG_ADDR_OFFSET && ri->offset != TSL_TC_PROG_BYTES_OFFSET &&
            tslm_reg_read(&a, ri->offset) != tslm_reg_read(&b, ri->offset)) {
            tu_check(t, 0, "fetched SEQ record (seed 0x%llx): %s written 0x%x fetched 0x%x", (unsigned long long)seed,
                     ri->name, tslm_reg_read(&a, ri->offset), tslm_reg_read(&b, ri->offset));
            ok = 0;
        }
    }
    tu_check(t, ok && (refuse ? b.err_code == TSL_ERR_BAD_FIELD && b.err_unit == TSL_ERR_UNIT_SEQ : b.err_code == TSL_ERR_NONE),
             "fetched SEQ record (seed 0x%llx, N=%u%s): as written to SEQ0..SEQ23 (ERR_CODE %u)",
             (unsigned long long)seed, n, refuse ? ", refused" : "", b.err_code);
    tslm_free(&a);
    tslm_free(&b);
}

int main(int argc, char **argv)
{
    tu_t t;
    tu_init(&t, "test_seq", argc, argv);
    int cases = argc > 2 ? atoi(argv[2]) : 300;
    launch_checks(&t);
    for (int c = 0; c < 20; c++) {
        uint32_t n = c & 1 ? 16 : 4;
        tsl_seq_t d;
        if (!draw(&t.rng, n, n == 4 ? 16384 : 65536, n == 4 ? 8192 : 32768, (int)tu_below(&t.rng, 2), &d)) {
            c--;
            continue;
        }
        fetch_seq(&t, n, &d, tu_next(&t.rng), c % 5 == 4);
    }
    for (int c = 0; c < cases; c++) {
        uint32_t n = tu_below(&t.rng, 2) ? 4 : 16;
        tsl_seq_t d;
        if (!draw(&t.rng, n, n == 4 ? 16384 : 65536, n == 4 ? 8192 : 32768, (int)tu_below(&t.rng, 2), &d)) {
            c--;
            continue;
        }
        uint64_t seed = tu_next(&t.rng);
        if (run_case(&t, n, &d, TSLM_SCHED_PUSH_ORDER, seed, 0))
            run_case(&t, n, &d, TSLM_SCHED_RANDOM, seed, 1);
    }
    return tu_done(&t);
}
