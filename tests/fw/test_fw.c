/* Native tests of the command processor (firmware/cp) on the golden model: the host's compiler
 * and the firmware's runner together, as libtessel uses them.
 *
 * The host side compiles each command (tsl_cp_compile.h; one it refuses completes there, with the
 * verdict checked as the firmware's would be), writes its program at PROG_BASE and a 64-byte
 * PROGRAM command into a ring in model HBM (NOP, FENCE and KERNEL go as they are), writes CMD_HEAD
 * through the emulated HOSTIF (ringing the doorbell), and calls tsl_cp_doorbell() + tsl_cp_poll(). Every
 * command is checked against all of HBM: the expected image is the HBM before the command plus the
 * outputs computed here by independent references (exact integers; host float with FTZ/DAZ in the
 * documented accumulation order; hw/model/ref.h) plus the completion entry. Invalid commands
 * must also leave VMEM, ACC and PUSH_COUNT untouched. After every command the tensor core must be
 * idle with no error and zero tokens. Several tensor-core configurations and both the push-order
 * and the random schedule are used. SEED=... (or argv[1]) replays.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "test_util.h"
#include "tsl_cp.h"
#include "tsl_cp_compile.h"
#include "tsl_cp_hal_model.h"
#include "tsl_insn.h"
#include "tsl_win.h"
#include "tslm.h"
#include "tslm_arith.h"

#define HBM_BYTES (4u << 20)
#define CMD_BASE 0x0u
#define CMD_SIZE 16u
#define CPL_BASE 0x400u
#define CPL_SIZE 16u
#define DATA_BASE 0x1000u
#define RING_END (CPL_BASE + CPL_SIZE * 16u)   /* the rings' region, which operands must stay above */
#define PROG_BASE (HBM_BYTES - PROG_BYTES)     /* programs; the data area and the window end below */
#define PROG_BYTES (1u << 20)
#define CF(f) (1u << TSL_CMD_FLAG_##f)

typedef struct {
    const char *name;
    tslm_t m;
    tsl_cp_model_t dev;
    tsl_cp_hal_t hal;
    tsl_cp_t cp;
    tsl_cp_t cc;   /* the host's compiler for this configuration */
    uint8_t *exp, *vmem0, *acc0;
    uint32_t n, heap;
} dev_t;

static tu_t T;

/* ------------------------------------------------------------------------------- helpers */

static uint32_t hif_rd(dev_t *d, uint32_t off) { return tsl_cp_model_hostif_read(&d->dev, off); }
static void hif_wr(dev_t *d, uint32_t off, uint32_t v) { tsl_cp_model_hostif_write(&d->dev, off, v); }
static uint8_t *hbm(dev_t *d) { return tslm_hbm(&d->m); }
static uint32_t rnd(void) { return (uint32_t)tu_next(&T.rng); }
static uint32_t below(uint32_t n) { return (uint32_t)tu_below(&T.rng, n); }

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

static int dev_open(dev_t *d, const char *name, uint32_t n, uint32_t vmem, uint32_t acc, uint32_t features,
                    uint32_t start_index)
{
    tslm_cfg_t cfg = tslm_cfg_default();
    memset(d, 0, sizeof *d);
    d->name = name;
    cfg.n = n;
    cfg.vmem_bytes = vmem;
    cfg.acc_bytes = acc;
    cfg.hbm_bytes = HBM_BYTES;
    cfg.features = features;
    if (tslm_init(&d->m, &cfg) != TSLM_OK)
        return -1;
    d->n = n;
    tsl_cp_hal_model_init(&d->hal, &d->dev, &d->m);
    if (tsl_cp_init(&d->cp, &d->hal) != TSL_CP_OK || tsl_cp_compiler_init(&d->cc, n, vmem, acc, HBM_BYTES, features))
        return -1;
    d->exp = malloc(HBM_BYTES);
    d->vmem0 = malloc(vmem);
    d->acc0 = malloc(acc);
    if (!d->exp || !d->vmem0 || !d->acc0)
        return -1;
    for (uint32_t i = 0; i < HBM_BYTES; i += 4)   /* canary everywhere */
        put32(hbm(d) + i, rnd());
    hif_wr(d, TSL_HOSTIF_CMD_BASE_OFFSET, CMD_BASE);
    hif_wr(d, TSL_HOSTIF_CMD_SIZE_OFFSET, CMD_SIZE);
    hif_wr(d, TSL_HOSTIF_CMD_TAIL_OFFSET, start_index);
    hif_wr(d, TSL_HOSTIF_CMD_HEAD_OFFSET, start_index);
    hif_wr(d, TSL_HOSTIF_DB_PENDING_OFFSET, 1);
    hif_wr(d, TSL_HOSTIF_CPL_BASE_OFFSET, CPL_BASE);
    hif_wr(d, TSL_HOSTIF_CPL_SIZE_OFFSET, CPL_SIZE);
    hif_wr(d, TSL_HOSTIF_CPL_HEAD_OFFSET, start_index);
    hif_wr(d, TSL_HOSTIF_CPL_TAIL_OFFSET, start_index);
    hif_wr(d, TSL_HOSTIF_HOST_IRQ_ENABLE_OFFSET, 1);
    return 0;
}

static void dev_close(dev_t *d)
{
    tslm_free(&d->m);
    free(d->exp);
    free(d->vmem0);
    free(d->acc0);
}

/* Operand allocation inside the data area: a random gap, then `bytes`. */
static uint32_t alloc(dev_t *d, uint64_t bytes)
{
    uint32_t a = d->heap + below(64);
    d->heap = (uint32_t)(a + bytes);
    if ((uint64_t)d->heap > PROG_BASE) {
        fprintf(stderr, "test bug: data area overflow\n");
        exit(2);
    }
    return a;
}

static void cmd_init(uint32_t *w, uint32_t op, uint32_t flags)
{
    memset(w, 0, 64);
    TSL_SET(w, TSL_CMD_OPCODE, op);
    TSL_SET(w, TSL_CMD_FLAGS, flags);
    w[TSL_CMD_TAG_WORD] = rnd();
}

/* Write command `w` at CMD_HEAD (not yet published) and snapshot HBM, VMEM and ACC. */
static void stage(dev_t *d, const uint32_t *w)
{
    uint32_t head = hif_rd(d, TSL_HOSTIF_CMD_HEAD_OFFSET);
    memcpy(hbm(d) + CMD_BASE + (head % CMD_SIZE) * 64u, w, 64);
    memcpy(d->exp, hbm(d), HBM_BYTES);
    memcpy(d->vmem0, tslm_vmem(&d->m), d->m.cfg.vmem_bytes);
    memcpy(d->acc0, tslm_acc(&d->m), d->m.cfg.acc_bytes);
}

/* Instructions the tensor core has run (its per-unit counters, which CTRL.RESET keeps: a refused
 * PROGRAM resets the core to stop its held fetch). */
static uint32_t insns_run(dev_t *d)
{
    return tslm_reg_read(&d->m, TSL_TC_PERF_DMA_INSNS_LO_OFFSET) + tslm_reg_read(&d->m, TSL_TC_PERF_MXU_INSNS_LO_OFFSET) +
           tslm_reg_read(&d->m, TSL_TC_PERF_VPU_INSNS_LO_OFFSET);
}

static int tc_clean(dev_t *d)
{
    uint32_t tok = 0;
    for (uint32_t off = TSL_TC_TOKENS_DMA_MXU_OFFSET; off <= TSL_TC_TOKENS_VPU_MXU_OFFSET; off += 4)
        tok |= tslm_reg_read(&d->m, off);
    for (int u = 0; u < 3; u++)
        for (int v = 0; v < 3; v++)
            tok |= d->m.credit[u][v];
    uint32_t st = tslm_reg_read(&d->m, TSL_TC_STATUS_OFFSET);
    return !tok && st == (1u << TSL_TC_STATUS_IDLE_SHIFT);
}

/* The host's half, as libtessel does it: command w (ring entry `at` of HBM, staged) is compiled;
 * when the compiler takes it, its program goes to HBM at `prog` and the entry becomes the PROGRAM
 * that runs it, its window the data area (in HBM and in d->exp alike). Returns the verdict. */
static uint32_t host_compile(dev_t *d, uint32_t at, uint32_t prog, uint32_t *detail)
{
    uint32_t w[16];
    memcpy(w, hbm(d) + at, 64);
    *detail = 0;
    if (!tsl_cp_compiled(TSL_GET(w, TSL_CMD_OPCODE)))
        return TSL_CMD_ERR_OK;
    tsl_cp_prog_t p = {0};
    uint32_t st = tsl_cp_compile(&d->cc, RING_END, w, &p, detail);
    if (p.oom || (uint64_t)prog + 4u * p.words > HBM_BYTES) {
        fprintf(stderr, "test bug: no room for a program of %u words\n", p.words);
        exit(2);
    }
    if (st == TSL_CMD_ERR_OK) {
        uint32_t e[16] = {0};
        TSL_SET(e, TSL_CMD_OPCODE, TSL_CMD_OP_PROGRAM);
        e[TSL_CMD_TAG_WORD] = w[TSL_CMD_TAG_WORD];
        e[TSL_CMD_N_WORD] = 4u * p.words;
        e[TSL_CMD_A_ADDR_WORD] = prog;
        e[TSL_PROG_WIN_BASE_WORD] = DATA_BASE;
        e[TSL_PROG_WIN_LIMIT_WORD] = PROG_BASE;
        memcpy(hbm(d) + prog, p.w, 4u * p.words);
        memcpy(d->exp + prog, p.w, 4u * p.words);
        memcpy(hbm(d) + at, e, 64);
        memcpy(d->exp + at, e, 64);
    }
    tsl_cp_prog_free(&p);
    return st;
}

/* Publish the staged command, run the firmware, and check completion and memory. `strict`: the
 * whole of HBM must equal d->exp (plus the completion); invalid: VMEM/ACC/PUSH_COUNT unchanged.
 * A command the host's compiler refuses is checked there: it reaches no device. */
/* The first byte where HBM differs from the expected image, or HBM_BYTES. */
static uint32_t hbm_diff(dev_t *d)
{
    const uint8_t *g = hbm(d);
    if (!memcmp(g, d->exp, HBM_BYTES))
        return HBM_BYTES;
    uint32_t i = 0;
    while (g[i] == d->exp[i])
        i++;
    return i;
}

static int submit(dev_t *d, const char *what, uint32_t status, uint32_t detail, int strict, int invalid)
{
    uint32_t head = hif_rd(d, TSL_HOSTIF_CMD_HEAD_OFFSET), cplh = hif_rd(d, TSL_HOSTIF_CPL_HEAD_OFFSET);
    const uint32_t *w = (const uint32_t *)(d->exp + CMD_BASE + (head % CMD_SIZE) * 64u);
    uint32_t ran = insns_run(d), hdetail;
    uint32_t hst = host_compile(d, CMD_BASE + (head % CMD_SIZE) * 64u, PROG_BASE, &hdetail);
    char ctx[160];
    snprintf(ctx, sizeof ctx, "[%s] %s", d->name, what);
    int ok = 1;
    if (hst != TSL_CMD_ERR_OK) {
        d->heap = DATA_BASE;
        return tu_check(&T, hst == status && hdetail == detail,
                        "%s: the compiler's verdict %u (%s) detail %u, expected %u (%s) detail %u", ctx, hst,
                        tsl_cmd_err_name(hst), hdetail, status, tsl_cmd_err_name(status), detail);
    }
    hif_wr(d, TSL_HOSTIF_CMD_HEAD_OFFSET, head + 1);
    int db = tsl_cp_doorbell(&d->cp);
    int r = tsl_cp_poll(&d->cp);
    ok &= tu_check(&T, db == 1 && !(hif_rd(d, TSL_HOSTIF_DB_PENDING_OFFSET) & 1), "%s: doorbell not handled", ctx);
    if (!tu_check(&T, r == 1, "%s: poll returned %d", ctx, r))
        return 0;
    ok &= tu_check(&T, hif_rd(d, TSL_HOSTIF_CMD_TAIL_OFFSET) == head + 1 &&
                           hif_rd(d, TSL_HOSTIF_CPL_HEAD_OFFSET) == cplh + 1 &&
                           (hif_rd(d, TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET) & 1) && tsl_cp_hostif_irq(&d->dev.hif),
                   "%s: ring indices / HOST_IRQ not advanced", ctx);
    uint8_t *cpl = hbm(d) + CPL_BASE + (cplh % CPL_SIZE) * 16u;
    uint32_t c0 = get32(cpl), c1 = get32(cpl + 4), c3 = get32(cpl + 12);
    ok &= tu_check(&T, c0 == w[1] && (c1 & 0xFFFF) == status && (c1 >> 16) == (w[0] & 0xFF) && c3 == detail,
                   "%s: completion tag %08x status %u opcode %u detail %u, expected tag %08x status %u (%s) "
                   "detail %u", ctx, c0, c1 & 0xFFFF, c1 >> 16, c3, w[1], status, tsl_cmd_err_name(status), detail);
    memcpy(d->exp + CPL_BASE + (cplh % CPL_SIZE) * 16u, cpl, 16);
    if (strict) {
        const uint8_t *g = hbm(d);
        uint32_t i = hbm_diff(d);
        ok &= tu_check(&T, i == HBM_BYTES, "%s: HBM differs first at 0x%x: expected 0x%02x, got 0x%02x", ctx, i,
                       i < HBM_BYTES ? d->exp[i] : 0, i < HBM_BYTES ? g[i] : 0);
    }
    if (invalid)
        ok &= tu_check(&T, !memcmp(d->vmem0, tslm_vmem(&d->m), d->m.cfg.vmem_bytes) &&
                               !memcmp(d->acc0, tslm_acc(&d->m), d->m.cfg.acc_bytes) &&
                               insns_run(d) == ran,
                       "%s: invalid command touched VMEM/ACC or ran instructions", ctx);
    ok &= tu_check(&T, tc_clean(d), "%s: tensor core not idle/clean after the command", ctx);
    /* the host consumes the completion */
    hif_wr(d, TSL_HOSTIF_CPL_TAIL_OFFSET, cplh + 1);
    hif_wr(d, TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET, 1);
    d->heap = DATA_BASE;
    return ok;
}

/* ------------------------------------------------------------------------------- data */

static uint16_t rnd_bf16(void)
{
    uint32_t r = rnd(), cls = r % 1000, sign = (r >> 31) << 15;
    if (cls < 30)
        return (uint16_t)sign;                                 /* +-0 */
    if (cls < 45)
        return (uint16_t)(sign | (1u + (r >> 10) % 127u));     /* subnormal: DAZ */
    if (cls == 45)
        return (uint16_t)(sign | 0x7F80u);                     /* infinity */
    return (uint16_t)(sign | ((118u + (r >> 8) % 18u) << 7) | ((r >> 16) & 0x7Fu));
}

static uint32_t rnd_f32(void)
{
    uint32_t r = rnd(), cls = r % 1000, sign = r & 0x80000000u;
    if (cls < 20)
        return sign;
    if (cls < 30)
        return sign | (1u + (rnd() & 0x7FFFFFu));              /* subnormal */
    if (cls == 30)
        return sign | 0x7F800000u;
    if (cls == 31)
        return 0x7FC12345u;                                    /* a NaN with a payload */
    return sign | ((118u + (r >> 8) % 18u) << 23) | (rnd() & 0x7FFFFFu);
}

/* Fill `rows` rows of `row_bytes` at `addr` (stride) with random elements of `dt`. */
static void fill_rand(dev_t *d, uint32_t addr, uint32_t rows, uint32_t stride, uint32_t cols, uint32_t dt)
{
    for (uint32_t r = 0; r < rows; r++) {
        uint8_t *p = hbm(d) + addr + (uint64_t)r * stride;
        for (uint32_t j = 0; j < cols; j++) {
            switch (dt) {
            case TSL_DTYPE_INT8: p[j] = (uint8_t)rnd(); break;
            case TSL_DTYPE_BF16: put16(p + 2 * j, rnd_bf16()); break;
            case TSL_DTYPE_INT32: put32(p + 4 * j, (rnd() & 1) ? rnd() : (uint32_t)(int32_t)(below(2001) - 1000)); break;
            default: put32(p + 4 * j, rnd_f32()); break;
            }
        }
    }
}

/* Read element j of a row as int32 or canonical fp32 bits (DAZ by bit logic). */
static uint32_t rd_elem(const uint8_t *row, uint32_t j, uint32_t dt)
{
    switch (dt) {
    case TSL_DTYPE_INT8: return (uint32_t)(int32_t)(int8_t)row[j];
    case TSL_DTYPE_INT32: return get32(row + 4 * j);
    case TSL_DTYPE_BF16: { uint32_t u = ref_daz((uint32_t)get16(row + 2 * j) << 16); return ref_canon(ref_f(u)); }
    default: { uint32_t u = ref_daz(get32(row + 4 * j)); return ref_canon(ref_f(u)); }
    }
}

static void wr_elem(uint8_t *row, uint32_t j, uint32_t dt, uint32_t v)
{
    switch (dt) {
    case TSL_DTYPE_INT8: row[j] = (uint8_t)ref_sat8((int32_t)v); break;
    case TSL_DTYPE_INT32: put32(row + 4 * j, v); break;
    case TSL_DTYPE_BF16: put16(row + 2 * j, ref_bf16(v)); break;
    default: put32(row + 4 * j, ref_canon(ref_f(v))); break;
    }
}

/* ------------------------------------------------------------------------------- GEMM */

typedef struct {
    uint32_t m, n, k, adt, cdt, flags, vpu_op;   /* vpu_op: 0 or a [gemm_post] code (TSL_POST_*) */
} gemm_shape_t;

/* The epilogue of a GEMM-like command: C's type, the flags, REQUANT's fields and the FP32 scale. */
typedef struct {
    uint32_t cdt, flags;
    int32_t scale;
    uint32_t shift;
    int32_t zp;
    uint32_t fscale;
    uint32_t vpu_op;   /* GEMM: 0 or a [gemm_post] code: GELU or SILU (after the bias), ADD (of the old C, last) */
} ref_epi_t;

/* The reference for one output element of a GEMM (docs/isa.md §4 and §7), written to `out`: `arow`
 * is row i of A (k elements), `bcol` element j of B's row 0 (rows ldb bytes apart), `bias` the
 * element's bias or NULL, `old` the element of C before the command (VPU_OP ADD). int8: exact; bf16: host float (FTZ/DAZ set by the caller) summing
 * products within each K-block of nn from +0, then the blocks in order. */
static void ref_gemm_out(const uint8_t *arow, const uint8_t *bcol, uint32_t ldb, const uint8_t *bias, uint32_t k,
                         uint32_t nn, int fl, const ref_epi_t *e, const uint8_t *old, uint8_t *out)
{
    uint32_t v;
    if (!fl) {
        int64_t sum = 0;
        for (uint32_t kk = 0; kk < k; kk++)
            sum += (int64_t)(int8_t)arow[kk] * (int8_t)bcol[(uint64_t)kk * ldb];
        v = (uint32_t)sum;
        if (bias)
            v += get32(bias);
        if ((e->flags & CF(RELU)) && (int32_t)v < 0)
            v = 0;
        if (e->cdt == TSL_DTYPE_INT8)
            out[0] = (uint8_t)ref_sat8(ref_requant((int32_t)v, e->scale, e->shift, e->zp));
        else
            put32(out, v);
        return;
    }
    volatile float acc = 0;
    for (uint32_t kb = 0; kb < k; kb += nn) {
        volatile float sb = 0.0f;
        for (uint32_t kk = kb; kk < kb + nn; kk++) {
            volatile float p = 0.0f * 0.0f;
            if (kk < k)
                p = ref_f((uint32_t)get16(arow + 2 * kk) << 16) * ref_f((uint32_t)get16(bcol + (uint64_t)kk * ldb) << 16);
            sb = sb + p;
        }
        acc = kb == 0 ? sb : acc + sb;
    }
    if (e->flags & CF(SCALE))
        acc = acc * ref_f(e->fscale);
    if (bias)
        acc = acc + ref_f(get32(bias));
    v = ref_canon(acc);
    if (e->flags & CF(RELU))
        v = ref_max(v, 0);
    if (e->vpu_op && !tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, e->vpu_op))   /* the VPU function; test_vmath checks it */
        v = tslm_f32_fn(tsl_gemm_post_op(e->vpu_op), tsl_gemm_post_act(e->vpu_op), v);
    if (tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, e->vpu_op)) {
        volatile float sum = ref_f(v) + ref_f(e->cdt == TSL_DTYPE_BF16 ? (uint32_t)get16(old) << 16 : get32(old));
        v = ref_canon(sum);
    }
    if (e->cdt == TSL_DTYPE_BF16)
        put16(out, ref_bf16(v));
    else
        put32(out, v);
}

static int gemm_case(dev_t *d, gemm_shape_t s)
{
    uint32_t es = tsl_dtype_bytes(s.adt), ces = tsl_dtype_bytes(s.cdt), w[16], nn = d->n;
    int fl = s.adt == TSL_DTYPE_BF16;
    uint32_t lda = s.k * es + below(3) * below(9), ldb = s.n * es + below(3) * below(9);
    uint32_t ldc = s.n * ces + below(3) * below(9);
    uint32_t a = alloc(d, (uint64_t)s.m * lda), b = alloc(d, (uint64_t)s.k * ldb), c = alloc(d, (uint64_t)s.m * ldc);
    uint32_t bias = (s.flags & CF(BIAS)) ? alloc(d, 4u * s.n) : 0;
    fill_rand(d, a, s.m, lda, s.k, s.adt);
    fill_rand(d, b, s.k, ldb, s.n, s.adt);
    if (bias)
        fill_rand(d, bias, 1, 0, s.n, fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32);
    if (tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, s.vpu_op))
        fill_rand(d, c, s.m, ldc, s.n, s.cdt);
    cmd_init(w, TSL_CMD_OP_GEMM, s.flags);
    TSL_SET(w, TSL_CMD_A_DTYPE, s.adt);
    TSL_SET(w, TSL_CMD_B_DTYPE, s.adt);
    TSL_SET(w, TSL_CMD_C_DTYPE, s.cdt);
    TSL_SET(w, TSL_CMD_VPU_OP, s.vpu_op);
    w[3] = s.m; w[4] = s.n; w[5] = s.k;
    w[6] = a; w[7] = lda; w[8] = b; w[9] = ldb; w[10] = c; w[11] = ldc; w[12] = bias;
    int32_t scale = 0, zp = 0;
    uint32_t shift = 0, fscale = 0;
    if (s.cdt == TSL_DTYPE_INT8) {
        scale = (int32_t)(1u + below(1u << 20)) * ((rnd() & 1) ? 1 : -1);
        shift = 10u + below(20);
        zp = (int32_t)below(41) - 20;
        w[13] = (uint32_t)scale; w[14] = shift; w[15] = (uint32_t)zp;
    }
    if (s.flags & CF(SCALE)) {
        fscale = ((rnd() & 1) << 31) | ((120u + below(14)) << 23) | (rnd() & 0x7FFFFFu);
        w[13] = fscale;
    }
    stage(d, w);
    const uint8_t *H = hbm(d);
    ref_epi_t e = {s.cdt, s.flags, scale, shift, zp, fscale, s.vpu_op};
    unsigned csr = ref_fp_ftz_daz();
    for (uint32_t i = 0; i < s.m; i++)
        for (uint32_t j = 0; j < s.n; j++)
            ref_gemm_out(H + a + (uint64_t)i * lda, H + b + j * es, ldb, bias ? H + bias + 4 * j : NULL,
                          s.k, nn, fl, &e, H + c + (uint64_t)i * ldc + j * ces,
                          d->exp + c + (uint64_t)i * ldc + j * ces);
    ref_fp_restore(csr);
    char what[128];
    snprintf(what, sizeof what, "GEMM %ux%ux%u %s->%s flags 0x%x VPU_OP %u", s.m, s.n, s.k, tsl_dtype_name(s.adt),
             tsl_dtype_name(s.cdt), s.flags, s.vpu_op);
    return submit(d, what, TSL_CMD_ERR_OK, 0, 1, 0);
}

static const uint32_t gemm_cdt[2][2] = {{TSL_DTYPE_INT32, TSL_DTYPE_INT8}, {TSL_DTYPE_FP32, TSL_DTYPE_BF16}};

static void gemm_suite(dev_t *d, int randoms, uint32_t maxdim)
{
    static const uint32_t fixed[][3] = {{1, 1, 1}, {17, 33, 65}, {300, 7, 129}, {64, 64, 64}};
    int bf = (d->m.cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1;
    for (uint32_t f = 0; f < 4; f++)
        for (uint32_t t = 0; t < (bf ? 2u : 1u); t++)
            for (uint32_t o = 0; o < 2; o++) {
                uint32_t flags = 0;
                if (f == 1) flags = CF(BIAS);
                if (f == 2) flags = CF(BIAS) | CF(RELU);
                if (f == 3) flags = CF(RELU) | (t ? CF(SCALE) : 0);
                gemm_shape_t s = {fixed[(f * 2 + o) % 4][0], fixed[(f * 2 + o) % 4][1], fixed[(f * 2 + o) % 4][2],
                                  t ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8, gemm_cdt[t][o], flags, 0};
                gemm_case(d, s);
            }
    for (uint32_t i = 0; i < 4; i++) {   /* every fixed shape with the plain int8 product, and each last step */
        gemm_case(d, (gemm_shape_t){fixed[i][0], fixed[i][1], fixed[i][2], TSL_DTYPE_INT8, TSL_DTYPE_INT32, 0, 0});
        for (uint32_t post = 1; bf && post <= TSL_GEMM_POSTS_COUNT; post++)
            gemm_case(d, (gemm_shape_t){fixed[i][0], fixed[i][1], fixed[i][2], TSL_DTYPE_BF16, gemm_cdt[1][(i + post) & 1u],
                                        i & 1u ? CF(BIAS) : 0u, post});
    }
    for (int r = 0; r < randoms; r++) {
        uint32_t t = bf ? below(2) : 0, flags = below(8);
        if (t && (rnd() & 1))
            flags |= CF(SCALE);
        gemm_shape_t s = {1 + below(maxdim), 1 + below(maxdim), 1 + below(maxdim),
                          t ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8, gemm_cdt[t][below(2)], flags & 0x7u & ~(t ? 0u : 4u), 0};
        if (t && (rnd() & 1))
            do   /* a [gemm_post] code that goes with the flags */
                s.vpu_op = 1u + below(TSL_GEMM_POSTS_COUNT);
            while ((s.flags & CF(RELU)) && !tsl_gemm_post_has(TSL_GEMM_POST_RELU, s.vpu_op));
        gemm_case(d, s);
    }
}

/* ------------------------------------------------------------------------------- CONV2D, POOL2D */

/* Input pixel of tap (kh, kw) of output pixel (b, oh, ow) in the test's own words: its element
 * index in the dense NHWC input at channel 0, or -1 in the padding. */
static int64_t tap_pixel(const tsl_win_t *g, uint32_t b, uint32_t oh, uint32_t ow, uint32_t kh, uint32_t kw)
{
    int64_t ih = (int64_t)oh * g->stride_h - g->pad_t + (int64_t)kh * g->dil_h;
    int64_t iw = (int64_t)ow * g->stride_w - g->pad_l + (int64_t)kw * g->dil_w;
    if (ih < 0 || ih >= g->h || iw < 0 || iw >= g->w)
        return -1;
    return (((int64_t)b * g->h + ih) * g->w + iw) * g->c;
}

/* A random window geometry whose output is at least one pixel. */
static tsl_win_t rnd_win(uint32_t maxhw, uint32_t maxc, int conv)
{
    for (;;) {
        tsl_win_t g = {0};
        g.batch = 1 + below(2);
        g.h = 1 + below(maxhw);
        g.w = 1 + below(maxhw);
        g.kh = 1 + below(4);
        g.kw = 1 + below(4);
        g.stride_h = 1 + below(3);
        g.stride_w = 1 + below(3);
        g.dil_h = 1 + (below(4) == 0);
        g.dil_w = 1 + (below(4) == 0);
        g.pad_t = below(g.kh);
        g.pad_b = below(g.kh);
        g.pad_l = below(g.kw);
        g.pad_r = below(g.kw);
        if (conv) {
            g.groups = below(3) == 0 ? 1 + below(4) : 1;
            g.c = g.groups * (1 + below(maxc / g.groups));
            g.cout = g.groups * (1 + below(maxc / g.groups));
        } else {
            g.c = 1 + below(maxc);
        }
        if (tsl_win_oh(&g) && tsl_win_ow(&g))
            return g;
    }
}

/* A random convolution that surely fits VMEM: its two A slots of one row and two weight panels
 * (firmware/cp/README.md) take at most half of it, so that the tiles' alignment and the rest of the
 * layout fit too. Larger K is BAD_SHAPE by contract (isa.md), checked by a directed case. */
static tsl_win_t rnd_conv(const dev_t *d, uint32_t es)
{
    for (;;) {
        tsl_win_t g = rnd_win(12, 20, 1);
        uint64_t kp = (uint64_t)g.kh * g.kw * (g.c / g.groups > d->n ? g.c / g.groups : d->n);
        if ((2u + 2u * d->n) * kp * es <= d->m.cfg.vmem_bytes / 2u)
            return g;
    }
}

static int conv_case(dev_t *d, tsl_win_t g, uint32_t adt, uint32_t cdt, uint32_t flags)
{
    uint32_t es = tsl_dtype_bytes(adt), ces = tsl_dtype_bytes(cdt), w[16], fl = adt == TSL_DTYPE_BF16;
    uint32_t oh = tsl_win_oh(&g), ow = tsl_win_ow(&g), cg = g.c / g.groups, og = g.cout / g.groups;
    uint32_t kk = g.kh * g.kw * cg, m = g.batch * oh * ow;
    if (!fl)
        g.a_zp = rnd() & 0xFF;
    uint32_t x = alloc(d, tsl_win_in_bytes(&g, es)), wt = alloc(d, tsl_win_w_bytes(&g, es));
    uint32_t y = alloc(d, tsl_win_out_bytes(&g, ces)), bias = (flags & CF(BIAS)) ? alloc(d, 4u * g.cout) : 0;
    fill_rand(d, x, 1, 0, (uint32_t)(tsl_win_in_bytes(&g, es) / es), adt);
    fill_rand(d, wt, 1, 0, (uint32_t)(tsl_win_w_bytes(&g, es) / es), adt);
    if (bias)
        fill_rand(d, bias, 1, 0, g.cout, fl ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32);
    cmd_init(w, TSL_CMD_OP_CONV2D, flags);
    TSL_SET(w, TSL_CMD_A_DTYPE, adt);
    TSL_SET(w, TSL_CMD_B_DTYPE, adt);
    TSL_SET(w, TSL_CMD_C_DTYPE, cdt);
    tsl_win_encode(&g, w);
    w[6] = x; w[8] = wt; w[10] = y; w[12] = bias;
    ref_epi_t e = {cdt, flags, 0, 0, 0, 0, 0};
    if (cdt == TSL_DTYPE_INT8) {
        e.scale = (int32_t)(1u + below(1u << 16)) * ((rnd() & 1) ? 1 : -1);
        e.shift = 10u + below(12);
        e.zp = (int32_t)below(41) - 20;
        w[13] = (uint32_t)e.scale; w[14] = e.shift; w[15] = (uint32_t)e.zp;
    }
    if (flags & CF(SCALE))
        w[13] = e.fscale = ((rnd() & 1) << 31) | ((120u + below(14)) << 23) | (rnd() & 0x7FFFFFu);
    stage(d, w);
    /* A' (one output pixel's row) and B (the group's columns, rows COUT apart) from the test's own
     * im2col, then the GEMM reference */
    const uint8_t *H = hbm(d);
    uint8_t *arow = malloc((size_t)kk * es), pad[2] = {(uint8_t)g.a_zp, 0};
    unsigned csr = ref_fp_ftz_daz();
    for (uint32_t gr = 0; gr < g.groups; gr++)
        for (uint32_t p = 0; p < m; p++) {
            uint32_t b = p / (oh * ow), r = p % (oh * ow), col = 0;
            for (uint32_t kh = 0; kh < g.kh; kh++)
                for (uint32_t kw = 0; kw < g.kw; kw++)
                    for (uint32_t ci = 0; ci < cg; ci++, col++) {
                        int64_t px = tap_pixel(&g, b, r / ow, r % ow, kh, kw);
                        memcpy(arow + col * es, px < 0 ? pad : H + x + (px + gr * cg + ci) * es, es);
                    }
            for (uint32_t j = 0; j < og; j++) {
                uint32_t co = gr * og + j;
                ref_gemm_out(arow, H + wt + co * es, g.cout * es, bias ? H + bias + 4 * co : NULL, kk, d->n, (int)fl, &e, NULL,
                              d->exp + y + ((uint64_t)p * g.cout + co) * ces);
            }
        }
    ref_fp_restore(csr);
    free(arow);
    char what[192];
    snprintf(what, sizeof what, "CONV2D %ux%ux%ux%u -> %u, %ux%u stride %u,%u pad %u,%u,%u,%u dil %u,%u groups %u %s->%s flags 0x%x",
             g.batch, g.h, g.w, g.c, g.cout, g.kh, g.kw, g.stride_h, g.stride_w, g.pad_t, g.pad_b, g.pad_l, g.pad_r,
             g.dil_h, g.dil_w, g.groups, tsl_dtype_name(adt), tsl_dtype_name(cdt), flags);
    return submit(d, what, TSL_CMD_ERR_OK, 0, 1, 0);
}

static int pool_case(dev_t *d, tsl_win_t g, uint32_t adt, uint32_t op, uint32_t cdt, uint32_t flags)
{
    uint32_t es = tsl_dtype_bytes(adt), ces = tsl_dtype_bytes(cdt), w[16], fl = adt == TSL_DTYPE_BF16;
    uint32_t oh = tsl_win_oh(&g), ow = tsl_win_ow(&g), m = g.batch * oh * ow, avg = op == TSL_VPU_OP_ADD;
    if (!fl && avg)
        g.a_zp = rnd() & 0xFF;
    uint32_t x = alloc(d, tsl_win_in_bytes(&g, es)), y = alloc(d, tsl_win_out_bytes(&g, ces));
    fill_rand(d, x, 1, 0, (uint32_t)(tsl_win_in_bytes(&g, es) / es), adt);
    cmd_init(w, TSL_CMD_OP_POOL2D, flags);
    TSL_SET(w, TSL_CMD_A_DTYPE, adt);
    TSL_SET(w, TSL_CMD_C_DTYPE, cdt);
    TSL_SET(w, TSL_CMD_VPU_OP, op);
    tsl_win_encode(&g, w);
    w[6] = x; w[10] = y;
    int32_t scale = 0, zp = 0;
    uint32_t shift = 0, fscale = 0;
    if (cdt == TSL_DTYPE_INT8 && avg) {
        scale = (int32_t)(1u + below(1u << 16));
        shift = 10u + below(8);
        zp = (int32_t)below(21) - 10;
        w[13] = (uint32_t)scale; w[14] = shift; w[15] = (uint32_t)zp;
    }
    if (flags & CF(SCALE))
        w[13] = fscale = ((120u + below(8)) << 23) | (rnd() & 0x7FFFFFu);
    stage(d, w);
    const uint8_t *H = hbm(d);
    unsigned csr = ref_fp_ftz_daz();
    uint32_t lowest = fl ? 0xFF800000u : (uint32_t)-128, padv = avg ? (fl ? 0u : (uint32_t)(int32_t)(int8_t)g.a_zp) : lowest;
    for (uint32_t p = 0; p < m; p++) {
        uint32_t b = p / (oh * ow), r = p % (oh * ow);
        for (uint32_t ch = 0; ch < g.c; ch++) {
            uint32_t v = 0;
            volatile float acc = 0;
            for (uint32_t t = 0; t < g.kh * g.kw; t++) {
                int64_t px = tap_pixel(&g, b, r / ow, r % ow, t / g.kw, t % g.kw);
                uint32_t xv = px < 0 ? padv : rd_elem(H + x + (px + ch) * es, 0, adt);
                if (!fl && avg)
                    v += xv;
                else if (!fl)
                    v = t == 0 || (int32_t)xv > (int32_t)v ? xv : v;
                else if (avg)
                    acc = t == 0 ? ref_f(xv) : acc + ref_f(xv);
                else
                    v = t == 0 ? xv : ref_max(v, xv);
            }
            if (fl && avg) {
                if (flags & CF(SCALE))
                    acc = acc * ref_f(fscale);
                v = ref_canon(acc);
            }
            uint8_t *out = d->exp + y + ((uint64_t)p * g.c + ch) * ces;
            if (cdt == TSL_DTYPE_INT8 && avg)
                out[0] = (uint8_t)ref_sat8(ref_requant((int32_t)v, scale, shift, zp));
            else
                wr_elem(out, 0, cdt, v);
        }
    }
    ref_fp_restore(csr);
    char what[192];
    snprintf(what, sizeof what, "POOL2D %s %ux%ux%ux%u, %ux%u stride %u,%u pad %u,%u,%u,%u dil %u,%u %s->%s",
             avg ? "avg" : "max", g.batch, g.h, g.w, g.c, g.kh, g.kw, g.stride_h, g.stride_w, g.pad_t, g.pad_b,
             g.pad_l, g.pad_r, g.dil_h, g.dil_w, tsl_dtype_name(adt), tsl_dtype_name(cdt));
    return submit(d, what, TSL_CMD_ERR_OK, 0, 1, 0);
}

static void win_suite(dev_t *d, int randoms)
{
    int bf = (d->m.cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1;
    /* a 3x3 "same" convolution over whole output rows (the interior tiles skip the fill), a
     * depthwise one, and 2x2 pools */
    tsl_win_t same = {.batch = 2, .h = 9, .w = 7, .c = 5, .cout = 19, .kh = 3, .kw = 3, .stride_h = 1, .stride_w = 1,
                      .pad_t = 1, .pad_b = 1, .pad_l = 1, .pad_r = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
    tsl_win_t dw = same;
    dw.c = dw.cout = dw.groups = 6;
    tsl_win_t pool = {.batch = 1, .h = 8, .w = 8, .c = 3, .kh = 2, .kw = 2, .stride_h = 2, .stride_w = 2,
                      .dil_h = 1, .dil_w = 1};
    /* more images than output columns: batch-major tiles (and, where ACC is small, images split
     * across tiles) */
    tsl_win_t many = {.batch = 300, .h = 5, .w = 4, .c = 3, .cout = 5, .kh = 3, .kw = 2, .stride_h = 1, .stride_w = 1,
                      .pad_t = 1, .pad_b = 1, .pad_l = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
    tsl_win_t many_pool = many;
    many_pool.cout = many_pool.groups = 0;
    /* a pointwise (1x1) convolution, which runs as a GEMM */
    tsl_win_t pw = {.batch = 2, .h = 5, .w = 6, .c = 20, .cout = 24, .kh = 1, .kw = 1, .stride_h = 1, .stride_w = 1,
                    .dil_h = 1, .dil_w = 1, .groups = 1};
    for (uint32_t t = 0; t < (bf ? 2u : 1u); t++) {
        uint32_t adt = t ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8;
        conv_case(d, many, adt, gemm_cdt[t][1], CF(BIAS) | CF(RELU));
        pool_case(d, many_pool, adt, TSL_VPU_OP_MAX, adt, 0);
        pool_case(d, many_pool, adt, TSL_VPU_OP_ADD, gemm_cdt[t][0], 0);
        conv_case(d, same, adt, gemm_cdt[t][1], CF(BIAS) | CF(RELU));
        conv_case(d, dw, adt, gemm_cdt[t][0], 0);
        conv_case(d, pw, adt, gemm_cdt[t][1], CF(BIAS) | CF(RELU));
        pool_case(d, pool, adt, TSL_VPU_OP_MAX, adt, 0);
        pool_case(d, pool, adt, TSL_VPU_OP_ADD, gemm_cdt[t][1], t ? CF(SCALE) : 0);
    }
    for (int r = 0; r < randoms; r++) {
        uint32_t t = bf ? below(2) : 0, adt = t ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8;
        uint32_t flags = below(4);   /* BIAS, RELU */
        if (t && (rnd() & 1))
            flags |= CF(SCALE);
        conv_case(d, rnd_conv(d, tsl_dtype_bytes(adt)), adt, gemm_cdt[t][below(2)], flags);
        uint32_t op = (rnd() & 1) ? TSL_VPU_OP_MAX : TSL_VPU_OP_ADD;
        pool_case(d, rnd_win(12, 40, 0), adt, op, op == TSL_VPU_OP_MAX ? adt : gemm_cdt[t][below(2)],
                  op == TSL_VPU_OP_ADD && t && (rnd() & 1) ? CF(SCALE) : 0);
    }
    /* a convolution whose weight panel alone is larger than VMEM is refused, touching nothing */
    tsl_win_t big = same;
    big.c = d->m.cfg.vmem_bytes / (9u * d->n) + 1u;
    uint32_t w[16];
    cmd_init(w, TSL_CMD_OP_CONV2D, 0);
    TSL_SET(w, TSL_CMD_A_DTYPE, TSL_DTYPE_INT8);
    TSL_SET(w, TSL_CMD_B_DTYPE, TSL_DTYPE_INT8);
    TSL_SET(w, TSL_CMD_C_DTYPE, TSL_DTYPE_INT32);
    tsl_win_encode(&big, w);
    w[6] = w[8] = w[10] = DATA_BASE;
    stage(d, w);
    submit(d, "CONV2D weight panel larger than VMEM", TSL_CMD_ERR_BAD_SHAPE, TSL_CMD_K_WORD, 1, 1);
}

/* ------------------------------------------------------------------------------- ELTWISE */

static int eltwise_case(dev_t *d, uint32_t op, uint32_t adt, uint32_t bdt, uint32_t cdt, uint32_t flags, uint32_t m,
                        uint32_t n)
{
    uint32_t w[16], esa = tsl_dtype_bytes(adt), esb = tsl_dtype_bytes(bdt), esc = tsl_dtype_bytes(cdt);
    int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
    int fl = adt == TSL_DTYPE_BF16 || adt == TSL_DTYPE_FP32;
    int imm = flags & CF(B_IMM), bc = flags & CF(B_BCAST);
    uint32_t lda = n * esa + below(3) * below(7), ldb = n * esb + below(3) * below(7), ldc = n * esc + below(3) * below(7);
    uint32_t a = alloc(d, (uint64_t)m * lda), b = 0, c = alloc(d, (uint64_t)m * ldc), bimm = 0;
    fill_rand(d, a, m, lda, n, adt);
    cmd_init(w, TSL_CMD_OP_ELTWISE, flags);
    TSL_SET(w, TSL_CMD_A_DTYPE, adt);
    TSL_SET(w, TSL_CMD_C_DTYPE, cdt);
    TSL_SET(w, TSL_CMD_VPU_OP, op);
    w[3] = m; w[4] = n; w[6] = a; w[7] = lda; w[10] = c; w[11] = ldc;
    if (!unary) {
        TSL_SET(w, TSL_CMD_B_DTYPE, bdt);
        if (imm) {
            bimm = fl ? rnd_f32() : rnd();
            w[13] = bimm;
        } else if (bc) {
            b = alloc(d, (uint64_t)n * esb);
            fill_rand(d, b, 1, 0, n, bdt);
            w[8] = b;
            ldb = 0;
        } else {
            b = alloc(d, (uint64_t)m * ldb);
            fill_rand(d, b, m, ldb, n, bdt);
            w[8] = b;
            w[9] = ldb;
        }
    }
    int32_t scale = 0, zp = 0;
    uint32_t shift = 0;
    if (op == TSL_VPU_OP_REQUANT) {
        scale = (int32_t)rnd();
        shift = below(63);
        zp = (int32_t)rnd() >> below(32);
        w[13] = (uint32_t)scale; w[14] = shift; w[15] = (uint32_t)zp;
    }
    stage(d, w);
    const uint8_t *H = hbm(d);
    unsigned csr = ref_fp_ftz_daz();
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            uint32_t x = rd_elem(H + a + (uint64_t)i * lda, j, adt), y = 0, v;
            if (!unary)
                y = imm ? (fl ? ref_canon(ref_f(ref_daz(bimm))) : bimm)
                        : rd_elem(H + b + (uint64_t)(bc ? 0 : i) * ldb, j, bdt);
            volatile float fx = ref_f(x), fy = ref_f(y), fr;
            switch (op) {
            case TSL_VPU_OP_ADD: if (fl) { fr = fx + fy; v = ref_canon(fr); } else v = x + y; break;
            case TSL_VPU_OP_MUL: if (fl) { fr = fx * fy; v = ref_canon(fr); } else v = x * y; break;
            case TSL_VPU_OP_MAX: v = fl ? ref_max(x, y) : ((int32_t)x > (int32_t)y ? x : y); break;
            case TSL_VPU_OP_MIN: v = fl ? ref_min(x, y) : ((int32_t)x < (int32_t)y ? x : y); break;
            case TSL_VPU_OP_RELU: v = fl ? ref_max(x, 0) : ((int32_t)x > 0 ? x : 0); break;
            case TSL_VPU_OP_REQUANT: v = (uint32_t)(int32_t)ref_requant((int32_t)x, scale, shift, zp); break;
            /* MOV, and the functions: the model's (tests/model/test_vmath checks them against libm) */
            default: v = tslm_f32_is_fn(op) ? tslm_f32_fn(op, TSL_VPU_ACT_GELU, x) : x; break;   /* a command's ACT: GELU */
            }
            wr_elem(d->exp + c + (uint64_t)i * ldc, j, cdt, v);
        }
    ref_fp_restore(csr);
    char what[128];
    snprintf(what, sizeof what, "ELTWISE %s %ux%u %s,%s->%s flags 0x%x", tsl_vpu_op_name(op), m, n,
             tsl_dtype_name(adt), unary ? "-" : tsl_dtype_name(bdt), tsl_dtype_name(cdt), flags);
    return submit(d, what, TSL_CMD_ERR_OK, 0, 1, 0);
}

/* ------------------------------------------------------------------------------- ROWWISE */

/* A random value for the row functions: mostly moderate, sometimes large, never NaN. */
static float row_val(void)
{
    uint32_t r = rnd();
    float v = (float)((int32_t)(r % 20001u) - 10000) / 1250.0f;   /* -8 .. 8 */
    return (r >> 30) == 3 ? v * 8.0f : v;
}

/* The reference of row function `op` for one row of n values (double precision, libm); mask
 * and gamma/beta may be NULL. */
static void row_ref(uint32_t op, const double *xin, const double *mask, const double *gam, const double *bet,
                    double scale, double eps, uint32_t n, double *y)
{
    double mx = -INFINITY, sum = 0, mean = 0, var = 0;
    for (uint32_t j = 0; j < n; j++) {
        double x = xin[j];
        if (op == TSL_ROW_OP_SOFTMAX) {
            y[j] = x * scale + (mask ? mask[j] : 0.0);
            mx = y[j] > mx ? y[j] : mx;
        }
        mean += x / n;
    }
    for (uint32_t j = 0; j < n; j++) {
        double x = xin[j], k = op == TSL_ROW_OP_GELU ? 2.0 * sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x) : x;
        switch (op) {
        case TSL_ROW_OP_SOFTMAX: y[j] = exp(y[j] - mx); sum += y[j]; break;
        case TSL_ROW_OP_LAYERNORM: var += (x - mean) * (x - mean) / n; break;
        case TSL_ROW_OP_RMSNORM: var += x * x / n; break;
        case TSL_ROW_OP_SUM: sum += x; break;
        default: y[j] = x / (1.0 + exp(-k)); break;
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        if (op == TSL_ROW_OP_SOFTMAX)
            y[j] /= sum;
        else if (op == TSL_ROW_OP_LAYERNORM)
            y[j] = (xin[j] - mean) / sqrt(var + eps) * gam[j] + (bet ? bet[j] : 0.0);
        else if (op == TSL_ROW_OP_RMSNORM)
            y[j] = xin[j] / sqrt(var + eps) * gam[j];
        else if (op == TSL_ROW_OP_SUM)
            y[j] = sum;
    }
}

/* FP32 add and multiply of canonical bits, as the VPU's fadd and fmul (call with FTZ/DAZ set). */
static uint32_t f_add(uint32_t a, uint32_t b) { volatile float r = ref_f(a) + ref_f(b); return ref_canon(r); }
static uint32_t f_mul(uint32_t a, uint32_t b) { volatile float r = ref_f(a) * ref_f(b); return ref_canon(r); }

/* One row's reduction as the VPU does it (docs/isa.md §7): lane by lane over the v vectors of nn
 * lanes in order (op(v0, v1), then op(that, v2), ...), then the pairwise tree across the lanes. */
static uint32_t row_reduce(const uint32_t *y, uint32_t v, uint32_t nn, int add)
{
    uint32_t t[128];
    for (uint32_t l = 0; l < nn; l++) {
        t[l] = y[l];
        for (uint32_t b = 1; b < v; b++)
            t[l] = add ? f_add(t[l], y[b * nn + l]) : ref_max(t[l], y[b * nn + l]);
    }
    for (uint32_t len = nn; len > 1; len /= 2)
        for (uint32_t i = 0; i < len / 2; i++)
            t[i] = add ? f_add(t[2 * i], t[2 * i + 1]) : ref_max(t[2 * i], t[2 * i + 1]);
    return t[0];
}

/* ROWWISE SOFTMAX bit for bit, from the scaled and masked row x (n canonical FP32 values) held as
 * v = ceil(n / nn) vectors whose lanes past n read -inf: m = the row's max; e = EXP(x + (-1 m));
 * y = e RECIP(the row's sum of e). y has room for v nn values (the padding comes back as 0). The
 * EXP and RECIP are the model's functions (tests/model/test_vmath checks them against libm). Call
 * with FTZ/DAZ set. */
static void softmax_ref(const uint32_t *x, uint32_t n, uint32_t nn, uint32_t *y)
{
    uint32_t v = (n + nn - 1) / nn;
    for (uint32_t j = 0; j < v * nn; j++)
        y[j] = j < n ? x[j] : 0xFF800000u;
    uint32_t s = f_mul(row_reduce(y, v, nn, 0), 0xBF800000u);
    for (uint32_t j = 0; j < v * nn; j++)
        y[j] = tslm_f32_exp(f_add(y[j], s));
    uint32_t r = tslm_f32_recip(row_reduce(y, v, nn, 1));
    for (uint32_t j = 0; j < v * nn; j++)
        y[j] = f_mul(y[j], r);
}

/* ROWWISE against the double-precision reference. The bound per element: FP32 maths over the row
 * (a sum of n terms in blocks, a few ulp for EXP, RECIP, RSQRT) is 2^-18 (1 + n 2^-6) of the
 * row's scale (the largest |y|, or for the norms |gamma| + |beta| times the normalised value),
 * plus half a bf16 ulp of |y| for a BF16 C, plus 2^-126 (results below it flush to 0). SOFTMAX is
 * also checked bit for bit against softmax_ref. Everything outside C must be untouched. */
static void row_case(dev_t *d, uint32_t op, uint32_t adt, uint32_t cdt, uint32_t flags, uint32_t m, uint32_t n)
{
    uint32_t esa = tsl_dtype_bytes(adt), esc = tsl_dtype_bytes(cdt), w[16], mdt = (rnd() & 1) ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32;
    int norm = op == TSL_ROW_OP_LAYERNORM || op == TSL_ROW_OP_RMSNORM, mask = (flags & CF(MASK)) != 0;
    int addc = (flags & CF(ADD_C)) != 0;
    uint32_t lda = n * esa + 4 * below(3), ldc = n * esc + 4 * below(3), ldb = n * tsl_dtype_bytes(mdt);
    uint32_t a = alloc(d, (uint64_t)m * lda), c = alloc(d, (uint64_t)m * ldc);
    uint32_t b = mask ? alloc(d, (uint64_t)m * ldb) : norm ? alloc(d, 4u * n) : 0;
    uint32_t bias = (flags & CF(BIAS)) ? alloc(d, 4u * n) : 0;
    double *X = malloc(sizeof(double) * m * n), *M = malloc(sizeof(double) * m * n), *G = malloc(sizeof(double) * n);
    double *Be = malloc(sizeof(double) * n), *Y = malloc(sizeof(double) * n);
    uint8_t *H = hbm(d);
    /* the values as the device reads them: bf16-rounded when stored as bf16 */
    for (uint32_t i = 0; i < m * n; i++) {
        uint32_t u = ref_u(row_val());
        if (adt == TSL_DTYPE_BF16)
            u = (uint32_t)ref_bf16(u) << 16;
        wr_elem(H + a + (uint64_t)(i / n) * lda, i % n, adt, u);
        X[i] = ref_f(u);
        u = (rnd() % 4 == 0) ? 0xFF800000u : ref_u(row_val());   /* the mask: some -inf */
        if (mask && i % n == 0)
            u = 0;                                             /* never a whole row */
        if (mdt == TSL_DTYPE_BF16)
            u = (uint32_t)ref_bf16(u) << 16;
        if (mask)
            wr_elem(H + b + (uint64_t)(i / n) * ldb, i % n, mdt, u);
        M[i] = ref_f(u);
        if (addc) {   /* C's old value, added to A in FP32 (exact in double, then rounded) */
            u = ref_u(row_val());
            if (cdt == TSL_DTYPE_BF16)
                u = (uint32_t)ref_bf16(u) << 16;
            wr_elem(H + c + (uint64_t)(i / n) * ldc, i % n, cdt, u);
            X[i] = (float)(X[i] + ref_f(u));
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        G[j] = row_val() / 4.0f;
        Be[j] = row_val();
        if (norm)
            put32(H + b + 4 * j, ref_u((float)G[j]));
        if (bias)
            put32(H + bias + 4 * j, ref_u((float)Be[j]));
    }
    float scale = (flags & CF(SCALE)) ? 0.125f : 1.0f, eps = 1e-5f;
    cmd_init(w, TSL_CMD_OP_ROWWISE, flags);
    TSL_SET(w, TSL_CMD_A_DTYPE, adt);
    TSL_SET(w, TSL_CMD_B_DTYPE, mask ? mdt : 0u);
    TSL_SET(w, TSL_CMD_C_DTYPE, cdt);
    TSL_SET(w, TSL_CMD_VPU_OP, op);
    w[3] = m; w[4] = n; w[6] = a; w[7] = lda; w[8] = b; w[9] = mask ? ldb : 0; w[10] = c; w[11] = ldc; w[12] = bias;
    w[13] = norm ? ref_u(eps) : (flags & CF(SCALE)) ? ref_u(scale) : 0;
    stage(d, w);
    char what[128];
    snprintf(what, sizeof what, "ROWWISE op %u %ux%u %s->%s flags 0x%x", op, m, n, tsl_dtype_name(adt),
             tsl_dtype_name(cdt), flags);
    if (submit(d, what, TSL_CMD_ERR_OK, 0, 0, 0)) {
        double worst = 0, wref = 0;
        uint32_t bad = 0, wi = 0, wj = 0;
        for (uint32_t i = 0; i < m; i++) {
            row_ref(op, X + (uint64_t)i * n, mask ? M + (uint64_t)i * n : NULL, G, bias ? Be : NULL, scale, eps, n, Y);
            double big = 0;   /* the row's scale; SUM's: the sum of |x|, as its error is n u of it */
            for (uint32_t j = 0; j < n; j++) {
                double s = norm ? (fabs(G[j]) + (bias ? fabs(Be[j]) : 0.0)) * 8.0
                           : op == TSL_ROW_OP_SUM ? fabs(X[(uint64_t)i * n + j]) : fabs(Y[j]);
                big = op == TSL_ROW_OP_SUM ? big + s : s > big ? s : big;
            }
            for (uint32_t j = 0; j < n; j++) {
                double got = ref_f(rd_elem(H + c + (uint64_t)i * ldc, j, cdt)), err = fabs(got - Y[j]);
                /* GELU and SiLU: x * sigmoid(k), k rounded to FP32 on the way (GELU's through its cubic):
                 * k's absolute error, a few 2^-24 of |k|, is sigmoid's relative error times
                 * 1 - sigmoid(k). At k = -42 that is 4.6e-6 of a result of -1.3e-18 (SEED=452, a
                 * 13 x 1 GELU, whose row scale is that one result). */
                double x = X[(uint64_t)i * n + j], k = op == TSL_ROW_OP_GELU
                    ? 2.0 * sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x) : x;
                double tol = ldexp(big, -18) * (1.0 + n / 64.0) + (cdt == TSL_DTYPE_BF16 ? ldexp(fabs(Y[j]), -8) : 0.0) +
                             (op == TSL_ROW_OP_GELU || op == TSL_ROW_OP_SILU ? ldexp(fabs(Y[j] * k) / (1.0 + exp(k)), -20) : 0.0) +
                             ldexp(1.0, -126);   /* FP32 flushes results below its smallest normal to 0 */
                if (!(err <= tol) && !bad++) {
                    wi = i;
                    wj = j;
                    worst = err;
                    wref = Y[j];
                }
                memcpy(d->exp + c + (uint64_t)i * ldc + j * esc, H + c + (uint64_t)i * ldc + j * esc, esc);
            }
        }
        tu_check(&T, !bad, "[%s] %s: %u elements outside the bound, first C[%u][%u] = %g, reference %g (error %g)",
                 d->name, what, bad, wi, wj, bad ? ref_f(rd_elem(H + c + (uint64_t)wi * ldc, wj, cdt)) : 0.0, wref, worst);
        if (op == TSL_ROW_OP_SUM) {   /* bit for bit: the VPU's order, the padding lanes 0 */
            uint32_t v = (n + d->n - 1) / d->n, *x = calloc((size_t)v * d->n, 4u);
            unsigned csr = ref_fp_ftz_daz();
            for (uint32_t i = 0; i < m && !bad; i++) {
                for (uint32_t j = 0; j < n; j++)
                    x[j] = rd_elem(H + a + (uint64_t)i * lda, j, adt);
                uint32_t want = row_reduce(x, v, d->n, 1);
                uint8_t e[4];
                wr_elem(e, 0, cdt, want);
                for (uint32_t j = 0; j < n && !bad; j++)
                    if (memcmp(e, H + c + (uint64_t)i * ldc + j * esc, esc)) {
                        bad = 1;
                        tu_check(&T, 0, "[%s] %s: C[%u][%u] = 0x%08x differs from the VPU steps' 0x%08x", d->name, what,
                                 i, j, rd_elem(H + c + (uint64_t)i * ldc, j, cdt), rd_elem(e, 0, cdt));
                    }
            }
            ref_fp_restore(csr);
            free(x);
        }
        if (op == TSL_ROW_OP_SOFTMAX) {
            uint32_t *x = malloc(4u * (n + d->n) * 2u), *y = x + n + d->n;
            unsigned csr = ref_fp_ftz_daz();
            for (uint32_t i = 0; i < m && !bad; i++) {
                for (uint32_t j = 0; j < n; j++) {
                    x[j] = rd_elem(H + a + (uint64_t)i * lda, j, adt);
                    if (flags & CF(SCALE))
                        x[j] = f_mul(x[j], ref_u(scale));
                    if (mask)
                        x[j] = f_add(x[j], rd_elem(H + b + (uint64_t)i * ldb, j, mdt));
                }
                softmax_ref(x, n, d->n, y);
                uint8_t e[4];
                for (uint32_t j = 0; j < n && !bad; j++) {
                    wr_elem(e, 0, cdt, y[j]);
                    if (memcmp(e, H + c + (uint64_t)i * ldc + j * esc, esc)) {
                        bad = 1;
                        tu_check(&T, 0, "[%s] %s: C[%u][%u] = 0x%08x differs from the VPU steps' 0x%08x", d->name, what, i,
                                 j, rd_elem(H + c + (uint64_t)i * ldc, j, cdt), rd_elem(e, 0, cdt));
                    }
                }
            }
            ref_fp_restore(csr);
            free(x);
        }
        uint32_t i = hbm_diff(d);
        tu_check(&T, i == HBM_BYTES, "[%s] %s: HBM outside C differs first at 0x%x", d->name, what, i);
    }
    free(X); free(M); free(G); free(Be); free(Y);
}

static void row_suite(dev_t *d, int randoms)
{
    if (!((d->m.cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1))
        return;
    static const uint32_t flags[TSL_ROW_OP_LIMIT] = {CF(SCALE) | CF(MASK), CF(BIAS), CF(ADD_C)};
    for (uint32_t op = 0; op < TSL_ROW_OP_LIMIT; op++) {
        row_case(d, op, TSL_DTYPE_FP32, TSL_DTYPE_FP32, flags[op], 5, 3 * d->n + 5);
        row_case(d, op, TSL_DTYPE_BF16, TSL_DTYPE_BF16, 0, 9, d->n);
    }
    for (int r = 0; r < randoms; r++) {
        uint32_t op = below(TSL_ROW_OP_LIMIT), f = 0;
        if (op == TSL_ROW_OP_SOFTMAX)
            f = ((rnd() & 1) ? CF(SCALE) : 0u) | ((rnd() & 1) ? CF(MASK) : 0u);
        if (op == TSL_ROW_OP_LAYERNORM && (rnd() & 1))
            f = CF(BIAS);
        if ((op == TSL_ROW_OP_LAYERNORM || op == TSL_ROW_OP_RMSNORM) && (rnd() & 1))
            f |= CF(ADD_C);
        row_case(d, op, (rnd() & 1) ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32, (rnd() & 1) ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32, f,
                 1 + below(40), 1 + below(d->m.cfg.vmem_bytes / 128u));
    }
    /* a row longer than VMEM holds is refused, touching nothing */
    uint32_t w[16];
    cmd_init(w, TSL_CMD_OP_ROWWISE, 0);
    TSL_SET(w, TSL_CMD_A_DTYPE, TSL_DTYPE_FP32);
    TSL_SET(w, TSL_CMD_C_DTYPE, TSL_DTYPE_FP32);
    TSL_SET(w, TSL_CMD_VPU_OP, TSL_ROW_OP_SILU);
    w[3] = 1; w[4] = d->m.cfg.vmem_bytes / 4u; w[6] = DATA_BASE; w[7] = w[11] = 4u * w[4];
    w[10] = DATA_BASE + w[7];
    stage(d, w);
    submit(d, "ROWWISE row longer than VMEM", TSL_CMD_ERR_BAD_SHAPE, TSL_CMD_N_WORD, 1, 1);
}

/* ------------------------------------------------------------------------------- ATTENTION */

typedef struct {
    uint32_t lq, lk, d, dv, heads, causal, cdt;
} att_shape_t;

static void base_cmd(dev_t *d, uint32_t base, uint32_t *w);   /* a valid command of each kind (below) */

/* ATTENTION against the reference composed of the three commands it replaces, in the test's own
 * words: per head, S = Q Kt with the scale (ref_gemm_out, FP32 C), the causal mask (+0 or -inf) added
 * to every score, the softmax (softmax_ref) rounded to BF16, O = P V (ref_gemm_out). Bit for bit;
 * everything outside O must be untouched. Inputs from rnd_bf16: zeros, subnormals, infinities. */
static int att_case(dev_t *d, att_shape_t s)
{
    uint32_t nn = d->n, esc = tsl_dtype_bytes(s.cdt), w[16], h = s.heads;
    uint32_t lda = 2 * s.d + 2 * below(3), ldb = 2 * s.lk + 2 * below(3), ldv = 2 * s.dv + 2 * below(3);
    uint32_t ldc = s.dv * esc + esc * below(3);
    uint32_t q = alloc(d, (uint64_t)h * s.lq * lda), k = alloc(d, (uint64_t)h * s.d * ldb);
    uint32_t v = alloc(d, (uint64_t)h * s.lk * ldv), o = alloc(d, (uint64_t)h * s.lq * ldc);
    fill_rand(d, q, h * s.lq, lda, s.d, TSL_DTYPE_BF16);
    fill_rand(d, k, h * s.d, ldb, s.lk, TSL_DTYPE_BF16);
    fill_rand(d, v, h * s.lk, ldv, s.dv, TSL_DTYPE_BF16);
    uint32_t fscale = ((rnd() & 1) << 31) | ((120u + below(14)) << 23) | (rnd() & 0x7FFFFFu);
    cmd_init(w, TSL_CMD_OP_ATTENTION, s.causal ? CF(CAUSAL) : 0);
    TSL_SET(w, TSL_CMD_A_DTYPE, TSL_DTYPE_BF16);
    TSL_SET(w, TSL_CMD_B_DTYPE, TSL_DTYPE_BF16);
    TSL_SET(w, TSL_CMD_C_DTYPE, s.cdt);
    tsl_att_t g = {.lq = s.lq, .lk = s.lk, .d = s.d, .dv = s.dv, .batch = h, .v_addr = v, .ldv = ldv};
    tsl_att_encode(&g, w);
    w[6] = q; w[7] = lda; w[8] = k; w[9] = ldb; w[10] = o; w[11] = ldc; w[13] = fscale;
    stage(d, w);
    const uint8_t *H = hbm(d);
    uint32_t vn = (s.lk + nn - 1) / nn * nn, *x = malloc(4u * (s.lk + vn));
    uint8_t *p = malloc(2u * s.lk);
    ref_epi_t es = {TSL_DTYPE_FP32, CF(SCALE), 0, 0, 0, fscale, 0}, eo = {s.cdt, 0, 0, 0, 0, 0, 0};
    unsigned csr = ref_fp_ftz_daz();
    for (uint32_t hd = 0; hd < h; hd++)
        for (uint32_t i = 0; i < s.lq; i++) {
            const uint8_t *qrow = H + q + (uint64_t)(hd * s.lq + i) * lda;
            for (uint32_t j = 0; j < s.lk; j++) {
                uint8_t sc[4];
                ref_gemm_out(qrow, H + k + (uint64_t)hd * s.d * ldb + 2 * j, ldb, NULL, s.d, nn, 1, &es, NULL, sc);
                x[j] = get32(sc);
                if (s.causal)
                    x[j] = f_add(x[j], j > i + s.lk - s.lq ? 0xFF800000u : 0u);
            }
            softmax_ref(x, s.lk, nn, x + s.lk);
            for (uint32_t j = 0; j < s.lk; j++)
                put16(p + 2 * j, ref_bf16(x[s.lk + j]));
            for (uint32_t c = 0; c < s.dv; c++)
                ref_gemm_out(p, H + v + (uint64_t)hd * s.lk * ldv + 2 * c, ldv, NULL, s.lk, nn, 1, &eo, NULL,
                             d->exp + o + (uint64_t)(hd * s.lq + i) * ldc + c * esc);
        }
    ref_fp_restore(csr);
    free(x);
    free(p);
    char what[128];
    snprintf(what, sizeof what, "ATTENTION %u heads %ux%u d %u dv %u causal %u ->%s", h, s.lq, s.lk, s.d, s.dv,
             s.causal, tsl_dtype_name(s.cdt));
    return submit(d, what, TSL_CMD_ERR_OK, 0, 1, 0);
}

/* Directed shapes whose keys and widths are at most 2 maxdim (several tiles of queries where the
 * configuration's ACC holds few rows), random ones up to maxdim, then refusals that touch nothing. */
static void att_suite(dev_t *d, int randoms, uint32_t maxdim)
{
    if (!((d->m.cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1))
        return;
    const uint32_t F = TSL_DTYPE_FP32, B = TSL_DTYPE_BF16, n = d->n;
    const att_shape_t fixed[] = {
        {1, 1, 1, 1, 1, 0, F}, {1, 1, 1, 1, 1, 1, B}, {5, 33, 16, 17, 2, 0, F}, {20, 20, 24, 8, 2, 1, F},
        {n + 1, 2 * n + 3, n, 2 * n - 1, 3, 1, B}, {3, 2 * n, 2 * n, n, 2, 0, B}, {7, 19, 5, 3, 1, 1, F},
        {64, 64, 32, 32, 4, 0, F}, {64, 64, 32, 32, 2, 1, B}, {150, 40, 8, 8, 1, 0, F}, {130, 140, 9, 20, 1, 1, B},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (fixed[i].lk <= 2 * maxdim && fixed[i].d <= 2 * maxdim && fixed[i].dv <= 2 * maxdim)
            att_case(d, fixed[i]);
    for (int r = 0; r < randoms; r++) {
        att_shape_t s = {1 + below(maxdim), 1 + below(maxdim), 1 + below(maxdim), 1 + below(maxdim), 1 + below(3),
                         rnd() & 1, (rnd() & 1) ? F : B};
        if (s.causal && s.lq > s.lk)
            s.lq = 1 + below(s.lk);
        att_case(d, s);
    }
    /* refusals, each touching nothing: a causal mask with more queries than keys; BATCH heads of
     * LQ rows more than HBM holds; keys too many for the scores of one row to fit; an int8-only
     * core (in main) */
    struct {
        const char *what;
        uint32_t flags, lq, lk, batch, ldb, detail;
    } bad[] = {
        {"ATTENTION causal LQ > LK", CF(CAUSAL), 7, 6, 2, 12, TSL_ATT_LQ_WORD},
        {"ATTENTION BATCH x LQ > HBM", 0, 0xFFFF, 6, 0xFFFF, 12, TSL_ATT_BATCH_WORD},
        {"ATTENTION keys past ACC", 0, 1, d->m.cfg.acc_bytes / 8u, 2, d->m.cfg.acc_bytes / 4u, TSL_ATT_LK_WORD},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t w[16];
        base_cmd(d, 6, w);
        w[0] |= bad[i].flags << 8;
        w[3] = bad[i].lq | bad[i].lk << 16;
        w[5] = bad[i].batch;
        w[9] = bad[i].ldb;
        stage(d, w);
        submit(d, bad[i].what, TSL_CMD_ERR_BAD_SHAPE, bad[i].detail, 1, 1);
    }
}

static void eltwise_suite(dev_t *d, int randoms)
{
    static const uint32_t ops[] = TSL_VPU_OPS;   /* those ELTWISE runs: tsl_vpu_op_eltwise */
    static const uint32_t ity[] = {TSL_DTYPE_INT8, TSL_DTYPE_INT32}, fty[] = {TSL_DTYPE_BF16, TSL_DTYPE_FP32};
    int bf = (d->m.cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1;
    for (int r = 0; r < randoms; r++)
        for (uint32_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            for (uint32_t cls = 0; cls < (bf ? 2u : 1u); cls++) {
                uint32_t op = ops[o];
                if (!tsl_vpu_op_eltwise(op) || !tsl_ops_has(cls ? TSL_OPS_FLOAT : TSL_OPS_INT, TSL_UNIT_VPU, op))
                    continue;
                const uint32_t *ty = cls ? fty : ity;
                int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
                for (uint32_t mode = 0; mode < (unary ? 1u : 3u); mode++) {
                    uint32_t flags = mode == 1 ? CF(B_BCAST) : mode == 2 ? CF(B_IMM) : 0;
                    uint32_t bdt = unary ? 0 : mode == 2 ? ty[1] : ty[below(2)];
                    uint32_t m = 1 + below(r ? 70 : 5), n = 1 + below(r ? 90 : 40);
                    eltwise_case(d, op, ty[below(2)], bdt, ty[below(2)], flags, m, n);
                }
            }
}

/* ------------------------------------------------------------------------------- COPY / FILL / NOP */

static void copy_fill_suite(dev_t *d, int randoms)
{
    uint32_t w[16];
    for (int r = 0; r < randoms; r++) {
        uint32_t n = 1 + below(r % 4 ? 300 : 70000), m = 1 + below(n > 1000 ? 3 : 40);
        if (r == 0) { m = 2; n = 70001; }     /* rows longer than one DMA row */
        uint32_t lda = n + below(2) * below(100), ldc = n + below(2) * below(100);
        uint32_t a = alloc(d, (uint64_t)m * lda), c = alloc(d, (uint64_t)m * ldc);
        cmd_init(w, TSL_CMD_OP_COPY, 0);
        w[3] = m; w[4] = n; w[6] = a; w[7] = lda; w[10] = c; w[11] = ldc;
        stage(d, w);
        for (uint32_t i = 0; i < m; i++)
            memcpy(d->exp + c + (uint64_t)i * ldc, hbm(d) + a + (uint64_t)i * lda, n);
        char what[96];
        snprintf(what, sizeof what, "COPY %ux%u lda %u ldc %u", m, n, lda, ldc);
        submit(d, what, TSL_CMD_ERR_OK, 0, 1, 0);

        cmd_init(w, TSL_CMD_OP_FILL, 0);
        c = alloc(d, (uint64_t)m * ldc);
        uint32_t pat = rnd();
        w[3] = m; w[4] = n; w[10] = c; w[11] = ldc; w[13] = pat;
        stage(d, w);
        for (uint32_t i = 0; i < m; i++)
            for (uint32_t j = 0; j < n; j++)
                d->exp[c + (uint64_t)i * ldc + j] = (uint8_t)(pat >> (8 * (j % 4)));
        snprintf(what, sizeof what, "FILL %ux%u ldc %u", m, n, ldc);
        submit(d, what, TSL_CMD_ERR_OK, 0, 1, 0);
    }
    /* many rows: more than one DMA's ROWS */
    cmd_init(w, TSL_CMD_OP_FILL, 0);
    w[3] = 70000; w[4] = 3; w[10] = alloc(d, 70000u * 5); w[11] = 5; w[13] = 0xA1B2C3D4u;
    stage(d, w);
    for (uint32_t i = 0; i < 70000; i++)
        for (uint32_t j = 0; j < 3; j++)
            d->exp[w[10] + i * 5 + j] = (uint8_t)(0xA1B2C3D4u >> (8 * j));
    submit(d, "FILL 70000x3", TSL_CMD_ERR_OK, 0, 1, 0);
    for (int i = 0; i < 3; i++) {
        cmd_init(w, i == 1 ? TSL_CMD_OP_FENCE : TSL_CMD_OP_NOP, 0);
        stage(d, w);
        submit(d, i == 1 ? "FENCE" : "NOP", TSL_CMD_ERR_OK, 0, 1, 0);
    }
}

/* ------------------------------------------------------------------------------- invalid commands */

typedef struct {
    const char *what;
    uint32_t base;      /* 0 GEMM int8, 1 GEMM bf16, 2 ELTWISE int add, 3 COPY, 4 FILL, 5 NOP, 6 ATTENTION */
    uint32_t word, value, set_mode; /* set_mode 0: w[word] = value; 1: w[word] |= value */
    uint32_t status, detail;
} bad_t;

static void base_cmd(dev_t *d, uint32_t base, uint32_t *w)
{
    uint32_t x = DATA_BASE + 0x100;
    switch (base) {
    case 0: case 1:
        cmd_init(w, TSL_CMD_OP_GEMM, 0);
        TSL_SET(w, TSL_CMD_A_DTYPE, base); TSL_SET(w, TSL_CMD_B_DTYPE, base);
        TSL_SET(w, TSL_CMD_C_DTYPE, base ? TSL_DTYPE_FP32 : TSL_DTYPE_INT32);
        w[3] = 5; w[4] = 6; w[5] = 7; w[6] = x; w[7] = 7 * (base + 1); w[8] = x + 0x1000; w[9] = 6 * (base + 1);
        w[10] = x + 0x2000; w[11] = 24;
        break;
    case 2:
        cmd_init(w, TSL_CMD_OP_ELTWISE, 0);
        TSL_SET(w, TSL_CMD_A_DTYPE, TSL_DTYPE_INT32); TSL_SET(w, TSL_CMD_B_DTYPE, TSL_DTYPE_INT32);
        TSL_SET(w, TSL_CMD_C_DTYPE, TSL_DTYPE_INT32); TSL_SET(w, TSL_CMD_VPU_OP, TSL_VPU_OP_ADD);
        w[3] = 5; w[4] = 6; w[6] = x; w[7] = 24; w[8] = x + 0x1000; w[9] = 24; w[10] = x + 0x2000; w[11] = 24;
        break;
    case 3:
        cmd_init(w, TSL_CMD_OP_COPY, 0);
        w[3] = 5; w[4] = 6; w[6] = x; w[7] = 6; w[10] = x + 0x2000; w[11] = 6;
        break;
    case 4:
        cmd_init(w, TSL_CMD_OP_FILL, 0);
        w[3] = 5; w[4] = 6; w[10] = x; w[11] = 6; w[13] = 0x12345678;
        break;
    case 6: {   /* 2 heads of 5 queries, 6 keys, D 7, DV 3, FP32 O */
        cmd_init(w, TSL_CMD_OP_ATTENTION, 0);
        TSL_SET(w, TSL_CMD_A_DTYPE, TSL_DTYPE_BF16); TSL_SET(w, TSL_CMD_B_DTYPE, TSL_DTYPE_BF16);
        TSL_SET(w, TSL_CMD_C_DTYPE, TSL_DTYPE_FP32);
        tsl_att_t g = {.lq = 5, .lk = 6, .d = 7, .dv = 3, .batch = 2, .v_addr = x + 0x3000, .ldv = 6};
        tsl_att_encode(&g, w);
        w[6] = x; w[7] = 14; w[8] = x + 0x1000; w[9] = 12; w[10] = x + 0x2000; w[11] = 12; w[13] = 0x3F800000;
        break;
    }
    default:
        cmd_init(w, TSL_CMD_OP_NOP, 0);
        break;
    }
    (void)d;
}

#define E(x) TSL_CMD_ERR_##x
#define FL(x) (CF(x) << 8)
static const bad_t bad_cases[] = {
    {"opcode LIMIT", 5, 0, TSL_CMD_OP_LIMIT, 0, E(BAD_OPCODE), 0},
    {"opcode 255", 3, 0, 0xFF, 0, E(BAD_OPCODE), 0},
    {"reserved w0[16]", 3, 0, 1u << 16, 1, E(BAD_FLAGS), 0},
    {"reserved w2[16]", 0, 2, 1u << 16, 1, E(BAD_FLAGS), 2},
    {"reserved w14[6]", 0, 14, 1u << 6, 1, E(BAD_FLAGS), 14},
    {"unknown flag 5", 0, 0, 1u << 13, 1, E(BAD_FLAGS), 0},
    {"GEMM with B_BCAST", 0, 0, FL(B_BCAST), 1, E(BAD_FLAGS), 0},
    {"SCALE with int C", 0, 0, FL(SCALE), 1, E(BAD_FLAGS), 0},
    {"COPY with a flag", 3, 0, FL(BIAS), 1, E(BAD_FLAGS), 0},
    {"NOP with K", 5, 5, 1, 0, E(BAD_FLAGS), 5},
    {"NOP with dtype", 5, 2, 1, 0, E(BAD_FLAGS), 2},
    {"COPY with dtype", 3, 2, 0x100, 0, E(BAD_FLAGS), 2},
    {"COPY with K", 3, 5, 3, 0, E(BAD_FLAGS), 5},
    {"FILL with A_ADDR", 4, 6, 4, 0, E(BAD_FLAGS), 6},
    {"GEMM BIAS_ADDR without BIAS", 0, 12, 64, 0, E(BAD_FLAGS), 12},
    {"GEMM int32 with SHIFT", 0, 14, 3, 0, E(BAD_FLAGS), 14},
    {"GEMM fp32 with SCALE, no flag", 1, 13, 0x3F800000, 0, E(BAD_FLAGS), 13},
    {"GEMM with VPU_OP", 0, 2, 0x2000, 1, E(BAD_FLAGS), 2},
    {"GEMM int8 with GELU", 0, 2, TSL_POST_GELU << TSL_CMD_VPU_OP_SHIFT, 1, E(BAD_FLAGS), 2},
    {"GEMM GELU with RELU", 1, 2, TSL_POST_GELU << TSL_CMD_VPU_OP_SHIFT, 7, E(BAD_FLAGS), 2},
    {"GEMM SILU with RELU", 1, 2, TSL_POST_SILU << TSL_CMD_VPU_OP_SHIFT, 7, E(BAD_FLAGS), 2},
    {"GEMM int8 with ADD", 0, 2, TSL_POST_ADD << TSL_CMD_VPU_OP_SHIFT, 1, E(BAD_FLAGS), 2},
    {"GEMM int8 C shift 63", 0, 2, 0x000, 2, E(BAD_FLAGS), 14},
    {"ELTWISE BCAST|IMM", 2, 0, FL(B_BCAST) | FL(B_IMM), 1, E(BAD_FLAGS), 0},
    {"ELTWISE RELU with B_BCAST", 2, 2, 0x5000 | 0x222, 3, E(BAD_FLAGS), 0},
    {"ELTWISE RELU with B dtype", 2, 2, 0x5000 | 0x222, 4, E(BAD_FLAGS), 2},
    {"ELTWISE with K", 2, 5, 2, 0, E(BAD_FLAGS), 5},
    {"ELTWISE BCAST with LDB", 2, 0, FL(B_BCAST), 1, E(BAD_FLAGS), 9},
    {"GEMM A int8 B bf16", 0, 2, 0x010, 1, E(BAD_DTYPE), 2},
    {"GEMM A int32", 0, 2, 0x222, 0, E(BAD_DTYPE), 2},
    {"GEMM int8 -> fp32", 0, 2, 0x300, 0, E(BAD_DTYPE), 2},
    {"GEMM bf16 -> int32", 1, 2, 0x211, 0, E(BAD_DTYPE), 2},
    {"GEMM dtype 5", 0, 2, 0x255, 0, E(BAD_DTYPE), 2},
    {"ELTWISE int + float", 2, 2, 0x2232, 0, E(BAD_DTYPE), 2},
    {"ELTWISE float -> int", 2, 2, 0x2233 & ~0x200u, 0, E(BAD_DTYPE), 2},
    {"ELTWISE IMM int8", 2, 2, 0x2202, 5, E(BAD_DTYPE), 2},
    {"ELTWISE REQUANT float", 2, 2, 0x7303, 0, E(BAD_DTYPE), 2},
    {"ELTWISE EXP int32", 2, 2, 0xC202, 0, E(BAD_DTYPE), 2},
    {"ELTWISE RSQRT int8", 2, 2, 0xE000, 0, E(BAD_DTYPE), 2},
    {"ELTWISE op SYNC", 2, 2, 0x0222, 0, E(BAD_OPCODE), 2},
    {"ELTWISE op RSUM", 2, 2, 0x8222, 0, E(BAD_OPCODE), 2},
    {"ELTWISE op EPI", 2, 2, 0xA222, 0, E(BAD_OPCODE), 2},
    {"ELTWISE op 15", 2, 2, 0xF222, 0, E(BAD_OPCODE), 2},
    {"M = 0", 0, 3, 0, 0, E(BAD_SHAPE), 3},
    {"N = 0", 2, 4, 0, 0, E(BAD_SHAPE), 4},
    {"K = 0", 1, 5, 0, 0, E(BAD_SHAPE), 5},
    {"M > HBM", 3, 3, HBM_BYTES + 1, 0, E(BAD_SHAPE), 3},
    {"K huge", 0, 5, 0xFFFFFFFF, 0, E(BAD_SHAPE), 5},
    {"LDA < row", 0, 7, 6, 0, E(BAD_SHAPE), 7},
    {"LDB < row", 1, 9, 11, 0, E(BAD_SHAPE), 9},
    {"LDC < row", 2, 11, 23, 0, E(BAD_SHAPE), 11},
    {"COPY LDA < N", 3, 7, 5, 0, E(BAD_SHAPE), 7},
    {"FILL LDC < N", 4, 11, 0, 0, E(BAD_SHAPE), 11},
    {"A past HBM", 0, 6, HBM_BYTES - 20, 0, E(BAD_ADDR), 6},
    {"B past HBM", 2, 8, HBM_BYTES - 100, 0, E(BAD_ADDR), 8},
    {"C past HBM", 1, 10, HBM_BYTES - 16, 0, E(BAD_ADDR), 10},
    {"C wraps 2^32", 3, 10, 0xFFFFFFF0, 0, E(BAD_ADDR), 10},
    {"LDA wraps 2^32", 3, 7, 0x80000000, 0, E(BAD_ADDR), 6},
    {"FILL past HBM", 4, 10, HBM_BYTES - 29, 0, E(BAD_ADDR), 10},
    {"bias past HBM", 0, 12, HBM_BYTES - 8, 6, E(BAD_ADDR), 12},
    {"ATTENTION with SCALE", 6, 0, FL(SCALE), 1, E(BAD_FLAGS), 0},
    {"ATTENTION with VPU_OP", 6, 2, 0x1000, 1, E(BAD_FLAGS), 2},
    {"ATTENTION with SHIFT", 6, 14, 1, 0, E(BAD_FLAGS), 14},
    {"ATTENTION w5 reserved", 6, 5, 1u << 16, 1, E(BAD_FLAGS), 5},
    {"ATTENTION A int8", 6, 2, 0x310, 0, E(BAD_DTYPE), 2},
    {"ATTENTION B fp32", 6, 2, 0x331, 0, E(BAD_DTYPE), 2},
    {"ATTENTION C int32", 6, 2, 0x211, 0, E(BAD_DTYPE), 2},
    {"ATTENTION LQ = 0", 6, 3, 6u << 16, 0, E(BAD_SHAPE), 3},
    {"ATTENTION LK = 0", 6, 3, 5, 0, E(BAD_SHAPE), 3},
    {"ATTENTION D = 0", 6, 4, 3u << 16, 0, E(BAD_SHAPE), 4},
    {"ATTENTION DV = 0", 6, 4, 7, 0, E(BAD_SHAPE), 4},
    {"ATTENTION BATCH = 0", 6, 5, 0, 0, E(BAD_SHAPE), 5},
    {"ATTENTION LDA < 2 D", 6, 7, 13, 0, E(BAD_SHAPE), 7},
    {"ATTENTION LDB < 2 LK", 6, 9, 11, 0, E(BAD_SHAPE), 9},
    {"ATTENTION LDC < 4 DV", 6, 11, 11, 0, E(BAD_SHAPE), 11},
    {"ATTENTION LDV < 2 DV", 6, 15, 5, 0, E(BAD_SHAPE), 15},
    {"ATTENTION Q past HBM", 6, 6, HBM_BYTES - 100, 0, E(BAD_ADDR), 6},
    {"ATTENTION K past HBM", 6, 8, HBM_BYTES - 100, 0, E(BAD_ADDR), 8},
    {"ATTENTION O past HBM", 6, 10, HBM_BYTES - 100, 0, E(BAD_ADDR), 10},
    {"ATTENTION V past HBM", 6, 12, HBM_BYTES - 50, 0, E(BAD_ADDR), 12},
    {"ATTENTION V in the rings", 6, 12, CPL_BASE, 0, E(BAD_ADDR), 12},
};

static void invalid_suite(dev_t *d)
{
    uint32_t w[16];
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_t *b = &bad_cases[i];
        if ((b->base == 1 || b->base == 6) && !((d->m.cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1))
            continue;   /* a bf16 GEMM or ATTENTION is BAD_DTYPE there (checked separately) */
        base_cmd(d, b->base, w);
        switch (b->set_mode) {
        case 0: w[b->word] = b->value; break;
        case 1: w[b->word] |= b->value; break;
        case 2: TSL_SET(w, TSL_CMD_C_DTYPE, TSL_DTYPE_INT8); w[13] = 5; w[14] = 63; break;
        case 3: w[2] = b->value; w[0] |= FL(B_BCAST); w[8] = w[9] = 0; break;
        case 4: w[2] = b->value; w[8] = w[9] = 0; break;
        case 5: w[2] = b->value; w[0] |= FL(B_IMM); w[8] = w[9] = 0; break;
        case 6: w[0] |= FL(BIAS); w[12] = b->value; break;
        case 7: w[0] |= FL(RELU); w[b->word] |= b->value; break;
        }
        stage(d, w);
        char what[96];
        snprintf(what, sizeof what, "invalid: %s", b->what);
        submit(d, what, b->status, b->detail, 1, 1);
    }
}

/* ------------------------------------------------------------------------------- kernels */

/* What the stand-in for the control core's kernel hook saw, and what it returns. */
static struct {
    uint32_t calls, addr, bytes, args[TSL_PARAM_KERNEL_ARGS], trap;
    int32_t ret;
} fake;

static uint32_t fake_kernel(void *ctx, uint32_t addr, uint32_t bytes, const uint32_t *args, int32_t *ret)
{
    (void)ctx;
    fake.calls++;
    fake.addr = addr;
    fake.bytes = bytes;
    memcpy(fake.args, args, sizeof fake.args);
    *ret = fake.ret;
    return fake.trap;
}

/* KERNEL: BAD_OPCODE without a kernel hook (the native firmware), touching nothing; with a stand-in
 * hook, the image and the arguments it is given, its return value in DETAIL (KERNEL when negative),
 * and the validation (the hook not called). */
static void kernel_suite(dev_t *d)
{
    static const uint8_t arg_word[TSL_PARAM_KERNEL_ARGS] = {7, 8, 9, 10, 11, 12, 13, 15};   /* docs/isa.md §7 */
    uint32_t w[16], img = DATA_BASE + 0x400;
    cmd_init(w, TSL_CMD_OP_KERNEL, 0);
    w[4] = 256;
    w[6] = img;
    stage(d, w);
    submit(d, "KERNEL without a control core", TSL_CMD_ERR_BAD_OPCODE, 0, 1, 1);
    d->hal.kernel = fake_kernel;
    for (int i = 0; i < 4; i++) {
        cmd_init(w, TSL_CMD_OP_KERNEL, 0);
        w[4] = 4u * (1u + below(TSL_PARAM_KERNEL_BYTES / 4u));
        w[6] = img + 4u * below(64);
        w[5] = rnd();   /* BUDGET: the host's, not read */
        for (unsigned j = 0; j < TSL_PARAM_KERNEL_ARGS; j++)
            w[arg_word[j]] = rnd();
        fake.ret = i == 2 ? -6 : (int32_t)(rnd() >> 1);
        fake.trap = i == 3 ? 1u + 2u : 0u;   /* the last one traps: an illegal instruction (mcause 2) */
        fake.calls = 0;
        stage(d, w);
        char what[64];
        snprintf(what, sizeof what, i == 3 ? "KERNEL trapping" : "KERNEL returning %d", fake.ret);
        submit(d, what, i == 3 ? TSL_CMD_ERR_KERNEL_TRAP : fake.ret < 0 ? TSL_CMD_ERR_KERNEL : TSL_CMD_ERR_OK,
               i == 3 ? 2u : (uint32_t)fake.ret, 1, 0);
        int args_ok = 1;
        for (unsigned j = 0; j < TSL_PARAM_KERNEL_ARGS; j++)
            args_ok &= fake.args[j] == w[arg_word[j]];
        tu_check(&T, fake.calls == 1 && fake.addr == w[6] && fake.bytes == w[4] && args_ok,
                 "[%s] %s: the hook saw %u calls, image 0x%x of %u bytes (expected 0x%x, %u), args %s", d->name, what,
                 fake.calls, fake.addr, fake.bytes, w[6], w[4], args_ok ? "as sent" : "different");
    }
    static const struct {
        const char *what;
        uint32_t word, value, status, detail;
    } bad[] = {
        {"N = 0", 4, 0, E(BAD_SHAPE), 4},
        {"N not whole words", 4, 254, E(BAD_SHAPE), 4},
        {"N over KERNEL_BYTES", 4, TSL_PARAM_KERNEL_BYTES + 4u, E(BAD_SHAPE), 4},
        {"A_ADDR misaligned", 6, DATA_BASE + 0x402, E(BAD_ADDR), 6},
        {"image past HBM", 6, HBM_BYTES - 128, E(BAD_ADDR), 6},
        {"image in the rings", 6, CPL_BASE, E(BAD_ADDR), 6},
        {"with M", 3, 1, E(BAD_FLAGS), 3},
        {"with SHIFT", 14, 1, E(BAD_FLAGS), 14},
        {"with a dtype", 2, 1, E(BAD_FLAGS), 2},
        {"with a flag", 0, TSL_CMD_OP_KERNEL | FL(BIAS), E(BAD_FLAGS), 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cmd_init(w, TSL_CMD_OP_KERNEL, 0);
        w[4] = 256;
        w[6] = img;
        w[bad[i].word] = bad[i].value;
        fake.calls = 0;
        stage(d, w);
        char what[64];
        snprintf(what, sizeof what, "invalid KERNEL: %s", bad[i].what);
        submit(d, what, bad[i].status, bad[i].detail, 1, 1);
        tu_check(&T, fake.calls == 0, "[%s] %s: the kernel ran", d->name, what);
    }
    fake.trap = 0;
    d->hal.kernel = NULL;
}

/* ------------------------------------------------------------------------------- programs */

/* Run the program p (at PROG_BASE) as one PROGRAM command; its completion status. */
static uint32_t run_program(dev_t *d, const tsl_cp_prog_t *p)
{
    uint32_t e[16] = {0}, head = hif_rd(d, TSL_HOSTIF_CMD_HEAD_OFFSET), cplh = hif_rd(d, TSL_HOSTIF_CPL_HEAD_OFFSET);
    TSL_SET(e, TSL_CMD_OPCODE, TSL_CMD_OP_PROGRAM);
    e[TSL_CMD_N_WORD] = 4u * p->words;
    e[TSL_CMD_A_ADDR_WORD] = PROG_BASE;
    e[TSL_PROG_WIN_BASE_WORD] = DATA_BASE;
    e[TSL_PROG_WIN_LIMIT_WORD] = PROG_BASE;
    memcpy(hbm(d) + PROG_BASE, p->w, 4u * p->words);
    memcpy(hbm(d) + CMD_BASE + (head % CMD_SIZE) * 64u, e, 64);
    hif_wr(d, TSL_HOSTIF_CMD_HEAD_OFFSET, head + 1);
    (void)tsl_cp_doorbell(&d->cp);
    int r = tsl_cp_poll(&d->cp);
    uint32_t st = r == 1 ? get32(hbm(d) + CPL_BASE + (cplh % CPL_SIZE) * 16u + 4) & 0xFFFFu : 0xFFFFu;
    hif_wr(d, TSL_HOSTIF_CPL_TAIL_OFFSET, cplh + 1);
    hif_wr(d, TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET, 1);
    return st;
}

/* Several commands compiled into one program (a graph), each reading the one before it: GEMM, a
 * softmax of its rows, a GEMM of those, an ADD, a COPY. The program gives bit for bit what the
 * commands give one program each, in every intermediate, under the random schedule too (the
 * barrier between two commands holds every unit until the one before has finished). */
static void graph_suite(dev_t *d, int randoms)
{
    const uint32_t bf = TSL_DTYPE_BF16, f32 = TSL_DTYPE_FP32;
    if (!((d->m.cfg.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1))
        return;
    for (int t = 0; t < randoms; t++) {
        uint32_t m = 1 + below(40), k = 1 + below(40), n = 1 + below(40), k2 = 1 + below(40), out[2][5];
        uint32_t x = alloc(d, 2ull * m * k), w1 = alloc(d, 2ull * k * n), w2 = alloc(d, 2ull * n * k2);
        const uint32_t bytes[5] = {4 * m * n, 2 * m * n, 4 * m * k2, 4 * m * k2, 4 * m * k2};
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < 5; i++)
                out[s][i] = alloc(d, bytes[i]);
        fill_rand(d, x, m, 2 * k, k, bf);
        fill_rand(d, w1, k, 2 * n, n, bf);
        fill_rand(d, w2, n, 2 * k2, k2, bf);
        uint32_t st[2] = {0, 0};
        for (int s = 0; s < 2; s++) {   /* s = 0: one program; s = 1: a program per command */
            const uint32_t *o = out[s];
            uint32_t w[5][16];
            cmd_init(w[0], TSL_CMD_OP_GEMM, 0);
            cmd_init(w[1], TSL_CMD_OP_ROWWISE, 0);
            cmd_init(w[2], TSL_CMD_OP_GEMM, 0);
            cmd_init(w[3], TSL_CMD_OP_ELTWISE, 0);
            cmd_init(w[4], TSL_CMD_OP_COPY, 0);
            const uint32_t dts[5] = {bf | bf << 4 | f32 << 8, f32 | bf << 8 | TSL_ROW_OP_SOFTMAX << 12, bf | bf << 4 | f32 << 8,
                                     f32 | f32 << 4 | f32 << 8 | TSL_VPU_OP_ADD << 12, 0};
            const uint32_t f[5][9] = {   /* M, N, K, A, LDA, B, LDB, C, LDC */
                {m, n, k, x, 2 * k, w1, 2 * n, o[0], 4 * n}, {m, n, 0, o[0], 4 * n, 0, 0, o[1], 2 * n},
                {m, k2, n, o[1], 2 * n, w2, 2 * k2, o[2], 4 * k2}, {m, k2, 0, o[2], 4 * k2, o[2], 4 * k2, o[3], 4 * k2},
                {m, 4 * k2, 0, o[3], 4 * k2, 0, 0, o[4], 4 * k2}};
            tsl_cp_prog_t p = {0};
            for (int i = 0; i < 5; i++) {
                static const unsigned word[9] = {TSL_CMD_M_WORD, TSL_CMD_N_WORD, TSL_CMD_K_WORD, TSL_CMD_A_ADDR_WORD,
                                                 TSL_CMD_LDA_WORD, TSL_CMD_B_ADDR_WORD, TSL_CMD_LDB_WORD,
                                                 TSL_CMD_C_ADDR_WORD, TSL_CMD_LDC_WORD};
                w[i][2] = dts[i];
                for (int j = 0; j < 9; j++)
                    w[i][word[j]] = f[i][j];
                uint32_t start = p.words, detail, v = tsl_cp_compile(&d->cc, RING_END, w[i], &p, &detail);
                tu_check(&T, v == TSL_CMD_ERR_OK && !p.oom, "[%s] graph: command %d refused: %s, detail %u", d->name, i,
                         tsl_cmd_err_name(v), detail);
                if (s == 0 && v == TSL_CMD_ERR_OK && !p.oom) {
                    /* libtessel's program cache rests on this (tessel.c, compile_cached): a command's part of
                     * a graph's program is what the compiler gives for it alone, behind one word when it is
                     * not the first */
                    uint32_t behind = i ? 1u : 0u, dq;
                    tsl_cp_prog_t q = {.w = calloc(1, 4), .words = behind, .cap = 1};
                    uint32_t vq = q.w ? tsl_cp_compile(&d->cc, RING_END, w[i], &q, &dq) : TSL_CMD_ERR_LIMIT;
                    tu_check(&T, vq == TSL_CMD_ERR_OK && !q.oom && q.words - behind == p.words - start &&
                                     !memcmp(q.w + behind, p.w + start, 4u * (p.words - start)),
                             "[%s] graph: command %d's %u words of the program are not its program compiled alone "
                             "(%u words%s)", d->name, i, p.words - start, q.words - behind, i ? ", behind one word" : "");
                    tsl_cp_prog_free(&q);
                }
                if (s == 1) {
                    st[1] |= run_program(d, &p);
                    tsl_cp_prog_free(&p);
                }
            }
            if (s == 0) {
                st[0] = run_program(d, &p);
                tsl_cp_prog_free(&p);
            }
        }
        tu_check(&T, !st[0] && !st[1], "[%s] graph %ux%ux%ux%u: status %u (one program), %u (one each)", d->name, m, k,
                 n, k2, st[0], st[1]);
        for (int i = 0; i < 5; i++)
            tu_check(&T, !memcmp(hbm(d) + out[0][i], hbm(d) + out[1][i], bytes[i]),
                     "[%s] graph %ux%ux%ux%u: command %d's output differs from its own program's", d->name, m, k, n, k2, i);
        tu_check(&T, tc_clean(d), "[%s] graph: tensor core not idle/clean after it", d->name);
        d->heap = DATA_BASE;
    }
}

/* The runner's own checks of PROGRAM (docs/isa.md §7), and programs that do not come from the
 * compiler: bad records, and DMAs or descriptors that reach outside the window, into the rings or the
 * program itself, which the tensor core refuses where it has the window (CFG_FEATURES.WINDOW). HBM
 * must stay as it was but for the completion. */
static void program_suite(dev_t *d)
{
    const int win = (d->m.cfg.features >> TSL_TC_CFG_FEATURES_WINDOW_SHIFT) & 1;
    const int seq = (d->m.cfg.features >> TSL_TC_CFG_FEATURES_SEQ_SHIFT) & 1;
    const uint32_t store = 1u | 1u << 16;   /* KIND INSN, COUNT 1 */
    static const struct {
        const char *what;
        uint32_t hdr, hbm, rows, row_bytes;   /* a record: its header, and for INSN a STORE of VMEM 0 */
        uint32_t word, value;                 /* a PROGRAM field changed from the good one */
        uint32_t status, detail, needs_win;
    } cases[] = {
        {"a STORE into the window", 1u | 1u << 16, DATA_BASE + 64, 2, 32, 0, 0, 0, 0, 0},
        {"N = 0", 0, 0, 0, 0, TSL_CMD_N_WORD, 0, E(BAD_SHAPE), 4, 0},
        {"N not whole words", 0, 0, 0, 0, TSL_CMD_N_WORD, 6, E(BAD_SHAPE), 4, 0},
        {"A_ADDR misaligned", 0, 0, 0, 0, TSL_CMD_A_ADDR_WORD, PROG_BASE + 2, E(BAD_ADDR), 6, 0},
        {"the program in the rings", 0, 0, 0, 0, TSL_CMD_A_ADDR_WORD, CPL_BASE, E(BAD_ADDR), 6, 0},
        {"the program past HBM", 0, 0, 0, 0, TSL_CMD_A_ADDR_WORD, HBM_BYTES - 4, E(BAD_ADDR), 6, 0},
        {"WIN_BASE above WIN_LIMIT", 0, 0, 0, 0, TSL_PROG_WIN_BASE_WORD, PROG_BASE + 64, E(BAD_ADDR), 8, 0},
        {"a window into the rings", 0, 0, 0, 0, TSL_PROG_WIN_BASE_WORD, CPL_BASE, E(BAD_ADDR), 8, 0},
        {"a window past HBM", 0, 0, 0, 0, TSL_PROG_WIN_LIMIT_WORD, HBM_BYTES + 64, E(BAD_ADDR), 8, 0},
        {"a flag", 0, 0, 0, 0, 0, TSL_CMD_OP_PROGRAM | 1u << 8, E(BAD_FLAGS), 0, 0},
        {"with M", 0, 0, 0, 0, TSL_CMD_M_WORD, 1, E(BAD_FLAGS), 3, 0},
        {"with a dtype", 0, 0, 0, 0, 2, 1, E(BAD_FLAGS), 2, 0},
        {"a record of KIND 0", 0u | 1u << 16, DATA_BASE, 1, 4, 0, 0, E(DEVICE), TSL_ERR_BAD_RECORD, 0},
        {"an INSN record of COUNT 0", 1u, DATA_BASE, 1, 4, 0, 0, E(DEVICE), TSL_ERR_BAD_RECORD, 0},
        {"reserved header bits", 1u | 1u << 16 | 1u << 8, DATA_BASE, 1, 4, 0, 0, E(DEVICE), TSL_ERR_BAD_RECORD, 0},
        {"a record past N", 1u | 2u << 16, DATA_BASE, 1, 4, 0, 0, E(DEVICE), TSL_ERR_BAD_RECORD, 0},
        {"a STORE into the command ring", 1u | 1u << 16, CMD_BASE, 1, 64, 0, 0, E(DEVICE), TSL_ERR_HBM_RANGE, 1},
        {"a STORE across the window's end", 1u | 1u << 16, PROG_BASE - 16, 1, 32, 0, 0, E(DEVICE), TSL_ERR_HBM_RANGE, 1},
        {"a STORE over the program", 1u | 1u << 16, PROG_BASE, 2, 16, 0, 0, E(DEVICE), TSL_ERR_HBM_RANGE, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].needs_win && !win)
            continue;
        uint32_t p[1 + TSL_PARAM_INSN_WORDS], w[16];
        tsl_insn_t st = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                .op = TSL_DMA_OP_STORE, .hbm_addr = cases[i].hbm, .rows = cases[i].rows,
                .row_bytes = cases[i].row_bytes, .hbm_stride = cases[i].row_bytes});
        p[0] = cases[i].hdr ? cases[i].hdr : store;
        memcpy(p + 1, st.w, sizeof st.w);
        memcpy(hbm(d) + PROG_BASE, p, sizeof p);
        cmd_init(w, TSL_CMD_OP_PROGRAM, 0);
        w[TSL_CMD_N_WORD] = sizeof p;
        w[TSL_CMD_A_ADDR_WORD] = PROG_BASE;
        w[TSL_PROG_WIN_BASE_WORD] = DATA_BASE;
        w[TSL_PROG_WIN_LIMIT_WORD] = PROG_BASE;
        if (cases[i].word || cases[i].value)
            w[cases[i].word] = cases[i].value;
        if (cases[i].status == 0)   /* the good one writes its rows of VMEM 0 */
            memcpy(hbm(d) + cases[i].hbm, tslm_vmem(&d->m), 0);
        stage(d, w);
        if (cases[i].status == 0)
            for (uint32_t r = 0; r < cases[i].rows; r++)
                memcpy(d->exp + cases[i].hbm + r * cases[i].row_bytes, tslm_vmem(&d->m), cases[i].row_bytes);
        char what[96];
        snprintf(what, sizeof what, "PROGRAM: %s", cases[i].what);
        submit(d, what, cases[i].status, cases[i].detail, 1, cases[i].status != 0 && cases[i].status != E(DEVICE));
    }
    if (!seq)
        return;
    /* a descriptor whose C is in the rings: the launch check refuses it where there is a window */
    uint32_t p[1 + TSL_PARAM_SEQ_WORDS] = {2u | 1u << 16}, w[16];
    tsl_seq_t g = {.m = 4, .n = 4, .k = 4, .dtype = TSL_DTYPE_INT8, .c_dtype = TSL_DTYPE_INT32, .a_addr = DATA_BASE,
                   .lda = 4, .b_addr = DATA_BASE + 64, .ldb = 4, .c_addr = win ? CMD_BASE : DATA_BASE + 128,
                   .ldc = 16, .mc = 4, .kc = d->n, .nbw = 1, .acc_addr = TSL_LOCAL_ACC_BASE};
    tsl_seq_encode(&g, p + 1);
    memcpy(hbm(d) + PROG_BASE, p, sizeof p);
    cmd_init(w, TSL_CMD_OP_PROGRAM, 0);
    w[TSL_CMD_N_WORD] = sizeof p;
    w[TSL_CMD_A_ADDR_WORD] = PROG_BASE;
    w[TSL_PROG_WIN_BASE_WORD] = DATA_BASE;
    w[TSL_PROG_WIN_LIMIT_WORD] = PROG_BASE;
    stage(d, w);
    if (win)
        submit(d, "PROGRAM: a descriptor whose C is in the command ring", E(DEVICE), TSL_ERR_HBM_RANGE, 1, 0);
}

/* ------------------------------------------------------------------------------- ring and errors */

static void ring_suite(dev_t *d)
{
    uint32_t w[16], head = hif_rd(d, TSL_HOSTIF_CMD_HEAD_OFFSET), cplh = hif_rd(d, TSL_HOSTIF_CPL_HEAD_OFFSET);
    uint32_t tags[6];
    /* a small completion ring: 6 commands, 4 slots -> the firmware stops at 4 and resumes */
    hif_wr(d, TSL_HOSTIF_CPL_SIZE_OFFSET, 4);
    hif_wr(d, TSL_HOSTIF_CPL_BASE_OFFSET, CPL_BASE + 0x100);
    for (uint32_t i = 0; i < 6; i++) {
        base_cmd(d, i == 2 ? 3 : i == 3 ? 4 : 5, w);
        if (i == 4)
            TSL_SET(w, TSL_CMD_OPCODE, TSL_CMD_OP_FENCE);
        if (i == 5)
            w[0] = TSL_CMD_OP_LIMIT;   /* bad opcode in the middle of a batch */
        tags[i] = w[1];
        memcpy(hbm(d) + CMD_BASE + ((head + i) % CMD_SIZE) * 64u, w, 64);
        uint32_t det;
        tu_check(&T, host_compile(d, CMD_BASE + ((head + i) % CMD_SIZE) * 64u, PROG_BASE + i * 4096u, &det) == 0,
                 "[%s] batch: command %u refused by the compiler", d->name, i);
    }
    hif_wr(d, TSL_HOSTIF_CMD_HEAD_OFFSET, head + 6);
    int r1 = tsl_cp_poll(&d->cp);
    int r2 = tsl_cp_poll(&d->cp);
    tu_check(&T, r1 == 4 && r2 == 0 && hif_rd(d, TSL_HOSTIF_CMD_TAIL_OFFSET) == head + 4,
             "[%s] full completion ring: poll returned %d then %d", d->name, r1, r2);
    int ok = 1;
    for (uint32_t i = 0; i < 4; i++)
        ok &= get32(hbm(d) + CPL_BASE + 0x100 + ((cplh + i) % 4) * 16) == tags[i];
    hif_wr(d, TSL_HOSTIF_CPL_TAIL_OFFSET, cplh + 4);
    int r3 = tsl_cp_poll(&d->cp);
    for (uint32_t i = 4; i < 6; i++)
        ok &= get32(hbm(d) + CPL_BASE + 0x100 + ((cplh + i) % 4) * 16) == tags[i];
    uint32_t st5 = get32(hbm(d) + CPL_BASE + 0x100 + ((cplh + 5) % 4) * 16 + 4);
    tu_check(&T, r3 == 2 && ok && st5 == (TSL_CMD_OP_LIMIT << 16 | TSL_CMD_ERR_BAD_OPCODE),
             "[%s] batch completions: poll %d, tags ok %d, last status 0x%x", d->name, r3, ok, st5);
    hif_wr(d, TSL_HOSTIF_CPL_TAIL_OFFSET, cplh + 6);
    hif_wr(d, TSL_HOSTIF_CPL_SIZE_OFFSET, CPL_SIZE);
    hif_wr(d, TSL_HOSTIF_CPL_BASE_OFFSET, CPL_BASE);
    /* the ring indices continue where they were: the completion ring restarts at CPL_HEAD */

    /* an invalid ring is reported and nothing is consumed */
    hif_wr(d, TSL_HOSTIF_CMD_SIZE_OFFSET, 3);
    base_cmd(d, 5, w);
    memcpy(hbm(d) + CMD_BASE + ((head + 6) % CMD_SIZE) * 64u, w, 64);
    hif_wr(d, TSL_HOSTIF_CMD_HEAD_OFFSET, head + 7);
    int r4 = tsl_cp_poll(&d->cp);
    tu_check(&T, r4 == TSL_CP_ERING && hif_rd(d, TSL_HOSTIF_CMD_TAIL_OFFSET) == head + 6,
             "[%s] invalid CMD_SIZE: poll returned %d", d->name, r4);
    hif_wr(d, TSL_HOSTIF_CMD_SIZE_OFFSET, CMD_SIZE);
    int r5 = tsl_cp_poll(&d->cp);
    tu_check(&T, r5 == 1, "[%s] NOP after fixing the ring: poll returned %d", d->name, r5);
    hif_wr(d, TSL_HOSTIF_CPL_TAIL_OFFSET, hif_rd(d, TSL_HOSTIF_CPL_HEAD_OFFSET));
}

static void error_suite(dev_t *d)
{
    uint32_t w[16];
    /* a tensor-core error (a bad instruction pushed behind the firmware's back) -> DEVICE, reset */
    tsl_insn_t bad = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
            .op = TSL_DMA_OP_LOAD, .row_bytes = 1});   /* ROWS = 0: BAD_FIELD */
    for (uint32_t k = 0; k < 8; k++)
        tslm_reg_write(&d->m, TSL_TC_INSN0_OFFSET + 4 * k, bad.w[k]);
    base_cmd(d, 3, w);
    stage(d, w);
    submit(d, "COPY while the TC is in error", TSL_CMD_ERR_DEVICE, TSL_ERR_BAD_FIELD, 0, 0);
    base_cmd(d, 4, w);
    stage(d, w);
    for (uint32_t i = 0; i < 5; i++)
        for (uint32_t j = 0; j < 6; j++)
            d->exp[w[10] + i * 6 + j] = (uint8_t)(0x12345678u >> (8 * (j % 4)));
    submit(d, "FILL after the DEVICE error", TSL_CMD_ERR_OK, 0, 1, 0);
    /* a tensor core that never becomes idle -> TIMEOUT, reset */
    d->dev.inject_busy = 1;
    uint32_t saved = d->cp.timeout_cycles;
    d->cp.timeout_cycles = 5000;
    base_cmd(d, 3, w);
    stage(d, w);
    submit(d, "COPY with a stuck tensor core", TSL_CMD_ERR_TIMEOUT, 0, 0, 0);
    d->dev.inject_busy = 0;
    d->cp.timeout_cycles = saved;
    base_cmd(d, 3, w);
    stage(d, w);
    for (uint32_t i = 0; i < 5; i++)
        memcpy(d->exp + w[10] + i * 6, hbm(d) + w[6] + i * 6, 6);
    submit(d, "COPY after the timeout", TSL_CMD_ERR_OK, 0, 1, 0);
}

/* ------------------------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    tu_init(&T, "fw_native", argc, argv);
    const uint32_t both = (1u << TSL_TC_CFG_FEATURES_INT8_SHIFT) | (1u << TSL_TC_CFG_FEATURES_BF16_SHIFT);
    const uint32_t int8 = 1u << TSL_TC_CFG_FEATURES_INT8_SHIFT, seq = 1u << TSL_TC_CFG_FEATURES_SEQ_SHIFT;
    const uint32_t win = 1u << TSL_TC_CFG_FEATURES_WINDOW_SHIFT;   /* the full core's HBM window */
    const uint32_t fetch = 1u << TSL_TC_CFG_FEATURES_FETCH_SHIFT;  /* and its program fetch unit */
    struct {
        const char *name;
        uint32_t n, vmem, acc, features, start, sched, gemm_randoms, maxdim;
    } cfgs[] = {
        /* the tile sequencer (CFG_FEATURES.SEQ) and the window on three, the compiler's own tiling on
         * the others; the program fetch unit on two (the runner pushes the records on the others) */
        {"n16-seq", 16, 262144, 65536, both | seq | win | fetch, 0, TSLM_SCHED_PUSH_ORDER, 24, 150},
        {"n16-seq-random-sched", 16, 262144, 65536, both | seq | win, 0xFFFFFFF0u, TSLM_SCHED_RANDOM, 12, 150},
        {"n4-small-seq", 4, 8192, 4096, both | seq | win | fetch, 5, TSLM_SCHED_RANDOM, 12, 120},
        {"n16-random-sched", 16, 262144, 65536, both, 0xFFFFFFF0u, TSLM_SCHED_RANDOM, 12, 150},
        {"n8-int8", 8, 32768, 8192, int8, 0x7FFFFFFEu, TSLM_SCHED_PUSH_ORDER, 8, 200},
        {"n32", 32, 131072, 16384, both, 0, TSLM_SCHED_PUSH_ORDER, 6, 200},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        static dev_t d;
        int p0 = T.passed, f0 = T.failed;
        if (dev_open(&d, cfgs[i].name, cfgs[i].n, cfgs[i].vmem, cfgs[i].acc, cfgs[i].features, cfgs[i].start)) {
            tu_check(&T, 0, "[%s] cannot open the device", cfgs[i].name);
            continue;
        }
        tslm_set_schedule(&d.m, (tslm_sched_t)cfgs[i].sched, T.seed + i);
        d.heap = DATA_BASE;
        gemm_suite(&d, (int)cfgs[i].gemm_randoms, cfgs[i].maxdim);
        eltwise_suite(&d, i == 0 ? 3 : 1);
        win_suite(&d, i == 0 ? 16 : 6);
        row_suite(&d, i == 0 ? 16 : 4);
        att_suite(&d, i == 0 ? 12 : 4, cfgs[i].vmem >= 131072 ? 70 : 20);
        copy_fill_suite(&d, i == 0 ? 12 : 4);
        graph_suite(&d, i == 0 ? 8 : 3);
        program_suite(&d);
        invalid_suite(&d);
        kernel_suite(&d);
        ring_suite(&d);
        error_suite(&d);
        if (!((cfgs[i].features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1)) {
            uint32_t w[16];
            base_cmd(&d, 1, w);
            stage(&d, w);
            submit(&d, "bf16 GEMM on an int8-only build", TSL_CMD_ERR_BAD_DTYPE, 2, 1, 1);
            base_cmd(&d, 2, w);
            w[2] = 0x2333;
            stage(&d, w);
            submit(&d, "fp32 ELTWISE on an int8-only build", TSL_CMD_ERR_BAD_DTYPE, 2, 1, 1);
            base_cmd(&d, 6, w);
            stage(&d, w);
            submit(&d, "ATTENTION on an int8-only build", TSL_CMD_ERR_BAD_DTYPE, 2, 1, 1);
        }
        printf("fw_native [%s, %u commands]: %d passed, %d failed\n", cfgs[i].name, d.cp.commands, T.passed - p0,
               T.failed - f0);
        dev_close(&d);
    }
    return tu_done(&T);
}
