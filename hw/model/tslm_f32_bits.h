/* The bit fields of an FP32 value and the small rules on them that the golden model's soft-float
 * (tslm_arith.c, the definition) and its fast path (tslm_fast.c) share: one copy of each. */
#ifndef TSLM_F32_BITS_H
#define TSLM_F32_BITS_H

#include <stdint.h>

#include "tslm_arith.h"

#define SIGN 0x80000000u
#define EXP_MASK 0x7F800000u
#define FRAC_MASK 0x007FFFFFu
#define F32_ONE 0x3F800000u
#define F32_HALF 0x3F000000u

static inline unsigned f32_exp(uint32_t a) { return (a & EXP_MASK) >> 23; }

/* The model's input rule (tslm_f32_canon): a NaN is the canonical NaN, a subnormal a zero of its sign. */
static inline uint32_t f32_canon(uint32_t a)
{
    if ((a & ~SIGN) > EXP_MASK)
        return TSLM_F32_QNAN;
    return (a & EXP_MASK) ? a : (a & SIGN);
}

/* y (a normal FP32) with its biased exponent replaced by e; a zero of y's sign when e <= 0, an
 * infinity when e >= 255. */
static inline uint32_t f32_with_exp(uint32_t y, int e)
{
    if (e >= 255)
        return (y & SIGN) | EXP_MASK;
    if (e <= 0)
        return y & SIGN;
    return (y & ~EXP_MASK) | ((uint32_t)e << 23);
}

#endif
