/* The reference epilogue of a tile-sequencer GEMM (docs/isa.md section 7 GEMM and EPI, section 8),
 * written from the docs with hw/model/ref.h, for the sequencer's tests on the model
 * (tests/model/test_seq.c) and on the RTL (hw/sim/tc/tc_main.cpp). A last step of one operand (POST:
 * GELU, ...) is the model's VPU function (tslm_f32_fn), which test_vmath checks against the host's
 * libm in double precision; the old C's (ADD) is an FP32 add. */
#ifndef REF_SEQ_H
#define REF_SEQ_H

#include "ref.h"
#include "tsl_hw.h"
#include "tslm_arith.h"

/* C's element from its accumulator value `acc`, its bias and its value `old` before the GEMM
 * (a POST of TSL_GEMM_POST_OLD_C); run with FTZ and DAZ set (ref_fp_ftz_daz). */
static inline uint32_t ref_seq_epilogue(const tsl_seq_t *d, uint32_t acc, uint32_t bias, uint32_t old)
{
    if (d->dtype == TSL_DTYPE_BF16) {
        float x = ref_f(ref_daz(acc));
        if (d->fscale)
            x = ref_f(ref_canon(x * ref_f(ref_daz(d->scale))));
        if (d->bias)
            x = ref_f(ref_canon(x + ref_f(ref_daz(bias))));
        uint32_t u = ref_canon(x);
        if (d->relu)
            u = ref_max(u, 0);
        if (d->post && !tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, d->post))
            u = tslm_f32_fn(tsl_gemm_post_op(d->post), tsl_gemm_post_act(d->post), u);
        else if (d->post)   /* ADD */
            u = ref_canon(ref_f(ref_daz(u)) + ref_f(ref_daz(d->c_dtype == TSL_DTYPE_BF16 ? old << 16 : old)));
        return d->c_dtype == TSL_DTYPE_BF16 ? ref_bf16(u) : u;
    }
    int32_t x = (int32_t)acc;
    if (d->bias)
        x = (int32_t)((uint32_t)x + bias);
    if (d->relu && x < 0)
        x = 0;
    if (d->c_dtype == TSL_DTYPE_INT8)
        return (uint8_t)ref_sat8(ref_requant(x, (int32_t)d->scale, d->shift, (int32_t)d->zero_point));
    return (uint32_t)x;
}

#endif
