/* Independent references for checking hw/model: host IEEE float run with FTZ and DAZ set, bit
 * logic written separately from the model, and exact integer maths. Nothing here calls the model. */
#ifndef REF_H
#define REF_H

#include <stdint.h>
#include <string.h>
#include <xmmintrin.h>

#define REF_QNAN 0x7FC00000u

static inline float ref_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t ref_u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* Set FTZ (MXCSR bit 15) and DAZ (bit 6); returns the previous MXCSR for ref_fp_restore. */
static inline unsigned ref_fp_ftz_daz(void)
{
    unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u);
    return csr;
}

static inline void ref_fp_restore(unsigned csr) { _mm_setcsr(csr); }

/* A NaN of any payload compares as the canonical NaN (payloads are not part of the spec). */
static inline uint32_t ref_canon(float f) { return f != f ? REF_QNAN : ref_u(f); }

/* DAZ by bit logic. */
static inline uint32_t ref_daz(uint32_t a) { return (a & 0x7F800000u) == 0 ? a & 0x80000000u : a; }

/* fp32 -> bf16 to nearest even, by comparing the distances to the two neighbouring bf16 values
 * (the one above the largest finite is 2^128, as with an unbounded exponent). */
static inline uint16_t ref_bf16(uint32_t a)
{
    a = ref_daz(a);
    if ((a & 0x7F800000u) == 0x7F800000u && (a & 0x7FFFFFu))
        return 0x7FC0u;
    if ((a & 0xFFFFu) == 0 || (a & 0x7F800000u) == 0x7F800000u)
        return (uint16_t)(a >> 16);
    double x = ref_f(a), ax = x < 0 ? -x : x;
    uint16_t lo = (uint16_t)(a >> 16), hi = (uint16_t)(lo + 1);
    double dlo = ref_f((uint32_t)lo << 16), dhi;
    dhi = (hi & 0x7F80u) == 0x7F80u ? 0x1p128 : ref_f((uint32_t)hi << 16);
    dlo = dlo < 0 ? -dlo : dlo;
    dhi = dhi < 0 ? -dhi : dhi;
    if (ax - dlo < dhi - ax)
        return lo;
    if (ax - dlo > dhi - ax)
        return hi;
    return (lo & 1) ? hi : lo;
}

/* max with +0 > -0 and NaN if either is NaN, on DAZ'd inputs (call with FTZ/DAZ set). */
static inline uint32_t ref_max(uint32_t a, uint32_t b)
{
    a = ref_daz(a);
    b = ref_daz(b);
    float fa = ref_f(a), fb = ref_f(b);
    if (fa != fa || fb != fb)
        return REF_QNAN;
    if (fa == 0 && fb == 0)
        return (a & b & 0x80000000u) ? 0x80000000u : 0;
    return fa > fb ? a : b;
}

#endif /* REF_H */
