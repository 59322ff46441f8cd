/* The model's fast path (hw/model/tslm_fast.c, the default) against its definition (the soft float
 * of tslm_arith.c, selected by TESSEL_MODEL_SOFTFLOAT=1), through the VPU's instructions: every float
 * op of VPU_VEC (ADD, MUL, MAX, MIN, RELU, RSUM, RMAX, MOV, EXP, RECIP, RSQRT, GELU) with FP32 and
 * BF16 sources and destinations and each SRC2 mode, and EPI with every combination of its float
 * steps, at N = 4, 16 and 32, on operands biased towards zeros, subnormals, extreme exponents, Inf and
 * NaN. Each instruction runs on one model of each kind, which must leave the same VMEM bytes; the
 * number of results compared is printed. (test_gemm does the same for GEMM programs, test_arith and
 * test_vmath for the operations themselves.)
 * Usage: test_fast [SEED] */
#define _POSIX_C_SOURCE 200112L   /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tsl_insn.h"
#include "tslm.h"
#include "tslm_fast.h"

#define SRC1 0x0000u
#define SRC2 0x4000u
#define DST 0x8000u
#define ROWS 8u

static uint32_t rand_f32(tu_rng_t *r)
{
    uint32_t sign = (uint32_t)(tu_next(r) & 1) << 31;
    switch (tu_below(r, 16)) {
    case 0: return sign;                                                               /* zero */
    case 1: return sign | (uint32_t)(tu_next(r) & 0x7FFFFF);                           /* subnormal */
    case 2: return sign | 0x7F800000u;                                                 /* infinity */
    case 3: return sign | 0x7F800000u | (uint32_t)(1 + tu_below(r, 0x7FFFFF));         /* NaN */
    case 4: return sign | (uint32_t)((1 + tu_below(r, 4)) << 23) | (uint32_t)(tu_next(r) & 0x7FFFFF); /* tiny */
    case 5: return sign | (uint32_t)((250 + tu_below(r, 5)) << 23) | (uint32_t)(tu_next(r) & 0x7FFFFF); /* huge */
    case 6: return sign | (uint32_t)((120 + tu_below(r, 15)) << 23) | (uint32_t)(tu_next(r) & 0x7FFFFF); /* near 1 */
    default: return sign | (uint32_t)((90 + tu_below(r, 70)) << 23) | (uint32_t)(tu_next(r) & 0x7FFFFF);
    }
}

/* Fill `bytes` of VMEM at `addr` in both models with random fp32 or bf16 values. */
static void fill(tslm_t *mod, tu_rng_t *r, uint32_t addr, uint32_t bytes, uint32_t dtype)
{
    for (uint32_t o = 0; o < bytes; o += tsl_dtype_bytes(dtype)) {
        uint32_t v = rand_f32(r);
        if (dtype == TSL_DTYPE_BF16) {
            uint16_t h = (uint16_t)(v >> 16);
            memcpy(tslm_vmem(&mod[0]) + addr + o, &h, 2);
            memcpy(tslm_vmem(&mod[1]) + addr + o, &h, 2);
        } else {
            memcpy(tslm_vmem(&mod[0]) + addr + o, &v, 4);
            memcpy(tslm_vmem(&mod[1]) + addr + o, &v, 4);
        }
    }
}

typedef struct {
    tu_t *t;
    uint64_t compared, differ;
} fast_t;

/* Push `insn` to both models, run them, and compare the destination's `bytes` (element size es). */
static void run_both(fast_t *f, tslm_t *mod, const tsl_insn_t *insn, uint32_t bytes, uint32_t es, const char *what)
{
    for (int s = 0; s < 2; s++) {
        if (tslm_push(&mod[s], insn->w) != TSLM_OK) {
            tu_check(f->t, 0, "%s: rejected, ERR_CODE %u", what, tslm_reg_read(&mod[s], TSL_TC_ERR_CODE_OFFSET));
            return;
        }
        tslm_run(&mod[s]);
    }
    long bad = 0;
    for (uint32_t o = 0; o < bytes; o += es) {
        uint32_t a = 0, b = 0;
        memcpy(&a, tslm_vmem(&mod[0]) + DST + o, es);
        memcpy(&b, tslm_vmem(&mod[1]) + DST + o, es);
        if (a != b && bad++ == 0)
            printf("%s: first difference at VMEM 0x%x: definition 0x%08x, fast path 0x%08x\n", what, DST + o, b, a);
    }
    f->compared += bytes / es;
    f->differ += (uint64_t)bad;
    tu_check(f->t, bad == 0, "%s: the fast path gives the definition's bytes (%ld differ)", what, bad);
}

static void run_n(fast_t *f, uint32_t n)
{
    tu_rng_t *r = &f->t->rng;
    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.n = n;
    tslm_t mod[2];   /* [0] the fast path (the default), [1] the definition */
    if (tslm_init(&mod[0], &cfg) != TSLM_OK) {
        tu_check(f->t, 0, "tslm_init");
        return;
    }
    setenv("TESSEL_MODEL_SOFTFLOAT", "1", 1);
    tslm_status_t st = tslm_init(&mod[1], &cfg);
    unsetenv("TESSEL_MODEL_SOFTFLOAT");
    if (st != TSLM_OK) {
        tslm_free(&mod[0]);
        tu_check(f->t, 0, "tslm_init");
        return;
    }
    static const uint32_t ops[][2] = {   /* op, ACT's function */
        {TSL_VPU_OP_ADD, 0}, {TSL_VPU_OP_MUL, 0}, {TSL_VPU_OP_MAX, 0}, {TSL_VPU_OP_MIN, 0}, {TSL_VPU_OP_RELU, 0},
        {TSL_VPU_OP_RSUM, 0}, {TSL_VPU_OP_RMAX, 0}, {TSL_VPU_OP_MOV, 0}, {TSL_VPU_OP_EXP, 0}, {TSL_VPU_OP_RECIP, 0},
        {TSL_VPU_OP_RSQRT, 0}, {TSL_VPU_OP_ACT, TSL_VPU_ACT_GELU}, {TSL_VPU_OP_ACT, TSL_VPU_ACT_SILU}};
    static const uint32_t fdt[] = {TSL_DTYPE_FP32, TSL_DTYPE_BF16};
    char what[96];
    for (unsigned oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
        uint32_t op = ops[oi][0], act = ops[oi][1];
        int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
        for (unsigned rep = 0; rep < 24; rep++) {
            uint32_t d1 = fdt[rep & 1], dd = fdt[(rep >> 1) & 1], d2 = fdt[(rep >> 2) & 1];
            uint32_t mode = unary ? 0 : (rep >> 3) % 3;
            if (unary && rep >= 4)
                break;
            if (mode == TSL_SRC2_IMM)
                d2 = TSL_DTYPE_FP32;
            fill(mod, r, SRC1, ROWS * n * tsl_dtype_bytes(d1), d1);
            uint32_t imm = rand_f32(r);
            if (!unary && mode != TSL_SRC2_IMM)
                fill(mod, r, SRC2, ROWS * n * tsl_dtype_bytes(d2), d2);
            tsl_insn_t insn = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                .op = op, .act = act, .dst_dtype = dd, .src1_dtype = d1, .src2_dtype = unary ? 0 : d2,
                .src2_mode = mode, .dst_addr = DST, .src1_addr = SRC1,
                .src2_addr = unary ? 0 : mode == TSL_SRC2_IMM ? imm : SRC2, .rows = ROWS});
            snprintf(what, sizeof what, "N=%u VPU op %u (act %u) %s <- %s, %s (mode %u)", n, op, act,
                     dd == TSL_DTYPE_BF16 ? "BF16" : "FP32", d1 == TSL_DTYPE_BF16 ? "BF16" : "FP32",
                     unary ? "-" : d2 == TSL_DTYPE_BF16 ? "BF16" : "FP32", mode);
            run_both(f, mod, &insn, ROWS * n * tsl_dtype_bytes(dd), tsl_dtype_bytes(dd), what);
        }
    }
    for (unsigned steps = 0; steps < 16; steps++) {   /* EPI: fscale, bias, relu, and the dst type */
        uint32_t dd = fdt[(steps >> 3) & 1], bias = (steps >> 1) & 1, bvecs = bias ? 1 + (uint32_t)tu_below(r, 3) : 0;
        fill(mod, r, SRC1, ROWS * n * 4, TSL_DTYPE_FP32);
        fill(mod, r, SRC2, 4 * n * 4, TSL_DTYPE_FP32);
        tsl_insn_t insn = tsl_insn_vpu_epi_encode((tsl_insn_vpu_epi_t){
            .dst_dtype = dd, .src1_dtype = TSL_DTYPE_FP32, .bias = bias, .relu = (steps >> 2) & 1,
            .fscale = steps & 1, .dst_addr = DST, .src1_addr = SRC1, .src2_addr = bias ? SRC2 : 0, .rows = ROWS,
            .scale = (steps & 1) ? rand_f32(r) : 0, .bvecs = bvecs});
        snprintf(what, sizeof what, "N=%u EPI fscale %u bias %u relu %u -> %s", n, steps & 1, bias, (steps >> 2) & 1,
                 dd == TSL_DTYPE_BF16 ? "BF16" : "FP32");
        run_both(f, mod, &insn, ROWS * n * tsl_dtype_bytes(dd), tsl_dtype_bytes(dd), what);
    }
    tslm_free(&mod[0]);
    tslm_free(&mod[1]);
}

int main(int argc, char **argv)
{
    tu_t t;
    tu_init(&t, "fast", argc, argv);
    if (!tslm_fast_available()) {
        printf("fast: this host has no fast path; the model runs on the definition alone\n");
        return tu_done(&t);
    }
    fast_t f = {&t, 0, 0};
    static const uint32_t ns[] = {4, 16, 32};
    for (int round = 0; round < 20; round++)
        for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++)
            run_n(&f, ns[i]);
    printf("fast: VPU fast path against the definition: %llu results compared, %llu differ\n",
           (unsigned long long)f.compared, (unsigned long long)f.differ);
    return tu_done(&t);
}
