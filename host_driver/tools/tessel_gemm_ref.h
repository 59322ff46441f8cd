/* A plain C reference for tessel_gemm (docs/isa.md §4 accumulation order, §7 epilogue), written
 * independently of the library and the model: exact integer maths for int8, and the host's IEEE
 * float with FTZ and DAZ set (hw/model/ref.h) for bf16. Used by the demo checker and tests/cli.
 *
 * bf16: A and B are rounded to bf16 (ref_bf16: RNE, DAZ); C[i][j] is the sum over K-blocks of n
 * (the MXU size) taken in ascending order: s_t = ((+0 + p_0) + p_1) + ... within a block, then
 * acc = s_0, fadd(acc, s_1), ...; K is padded with zeros (which adds nothing). Then scale
 * (fmul), bias (fadd), ReLU (max with +0), and for bf16 output the fp32 -> bf16 rounding.
 * int8: exact int32 (wrapping) sum, bias add, ReLU, then for int8 output
 * sat8(sat32(round_shift(x * scale, shift) + zero_point)).
 */
#ifndef TESSEL_GEMM_REF_H
#define TESSEL_GEMM_REF_H

#include <stddef.h>
#include <stdint.h>

#include "ref.h"

typedef struct {
    uint32_t m, nc, k, mxu_n;
    int bf16;                /* 0: int8 in; 1: float in (rounded to bf16) */
    int out_narrow;          /* int8 out (requant) or bf16-rounded out */
    int relu;
    float scale;             /* float only */
    int32_t rq_scale;
    uint32_t rq_shift;
    int32_t rq_zp;
} tessel_ref_gemm_t;

static inline int64_t tessel_ref_round_shift(int64_t v, uint32_t s)
{
    if (s == 0)
        return v;
    /* floor((v + 2^(s-1)) / 2^s), with |v| < 2^63 - 2^61 for the products here */
    int64_t t = v + ((int64_t)1 << (s - 1));
    int64_t q = t / ((int64_t)1 << s);
    if (t % ((int64_t)1 << s) != 0 && t < 0)
        q--;
    return q;
}

/* One output element: int32 bits for int8 in, fp32 bits for float in (the stored C value; an int8
 * output is returned sign-extended). a, b: int8_t or float row-major dense; bias NULL or nc
 * int32_t / float. Call with FTZ/DAZ set (ref_fp_ftz_daz) for the float case. */
static inline uint32_t tessel_ref_gemm_elem(const tessel_ref_gemm_t *g, const void *a, const void *b,
                                            const void *bias, uint32_t i, uint32_t j)
{
    if (!g->bf16) {
        const int8_t *A = a, *B = b;
        int64_t sum = 0;
        for (uint32_t kk = 0; kk < g->k; kk++)
            sum += (int64_t)A[(size_t)i * g->k + kk] * B[(size_t)kk * g->nc + j];
        uint32_t x = (uint32_t)sum;
        if (bias)
            x += (uint32_t)((const int32_t *)bias)[j];
        int32_t v = (int32_t)x;
        if (g->relu && v < 0)
            v = 0;
        if (g->out_narrow) {
            int64_t r = tessel_ref_round_shift((int64_t)v * g->rq_scale, g->rq_shift) + g->rq_zp;
            r = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r;
            r = r > 127 ? 127 : r < -128 ? -128 : r;
            v = (int32_t)r;
        }
        return (uint32_t)v;
    }
    const float *A = a, *B = b;
    volatile float acc = 0.0f;
    for (uint32_t kb = 0; kb < g->k; kb += g->mxu_n) {
        volatile float s = 0.0f;
        for (uint32_t kk = kb; kk < kb + g->mxu_n && kk < g->k; kk++) {
            float fa = ref_f((uint32_t)ref_bf16(ref_u(A[(size_t)i * g->k + kk])) << 16);
            float fb = ref_f((uint32_t)ref_bf16(ref_u(B[(size_t)kk * g->nc + j])) << 16);
            volatile float p = fa * fb;
            s = s + p;
        }
        acc = kb == 0 ? s : acc + s;
    }
    volatile float x = acc;
    if (g->scale != 1.0f)
        x = x * g->scale;
    if (bias)
        x = x + ((const float *)bias)[j];
    uint32_t u = ref_canon(x);
    if (g->relu)
        u = ref_max(u, 0);
    if (g->out_narrow)
        u = (uint32_t)ref_bf16(u) << 16;
    return u;
}

#endif /* TESSEL_GEMM_REF_H */
