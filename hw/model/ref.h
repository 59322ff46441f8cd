/* Independent references for checking hw/model: host IEEE float run with FTZ and DAZ set, bit
 * logic written separately from the model, and exact integer maths. Nothing here calls the model.
 * The model's tests (tests/) and the GEMM reference of the tools (host_driver/tools/tessel_gemm_ref.h,
 * which `make demo` checks against) use it. */
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

/* min with -0 < +0 and NaN if either is NaN, on DAZ'd inputs (call with FTZ/DAZ set). */
static inline uint32_t ref_min(uint32_t a, uint32_t b)
{
    a = ref_daz(a);
    b = ref_daz(b);
    float fa = ref_f(a), fb = ref_f(b);
    if (fa != fa || fb != fb)
        return REF_QNAN;
    if (fa == 0 && fb == 0)
        return ((a | b) & 0x80000000u) ? 0x80000000u : 0;
    return fa < fb ? a : b;
}

/* Reference C[i][j] of a GEMM of row-major dense A (M x k) and B (k x nc), int8 or bf16 (dtype 0/1
 * as in DTYPE), with K-blocks of n summed as docs/isa.md orders them. Call with FTZ/DAZ set. */
static inline uint32_t ref_gemm_elem(const uint8_t *a, const uint8_t *b, int bf16, uint32_t k,
                                     uint32_t nc, uint32_t n, uint32_t i, uint32_t j)
{
    if (!bf16) {
        int64_t sum = 0;
        for (uint32_t kk = 0; kk < k; kk++)
            sum += (int64_t)(int8_t)a[(size_t)i * k + kk] * (int8_t)b[(size_t)kk * nc + j];
        return (uint32_t)(int32_t)sum;
    }
    volatile float acc = 0;
    for (uint32_t kb = 0; kb < k; kb += n) {
        volatile float s = 0.0f;
        for (uint32_t kk = kb; kk < kb + n; kk++) {
            uint16_t ha, hb;
            memcpy(&ha, a + 2 * ((size_t)i * k + kk), 2);
            memcpy(&hb, b + 2 * ((size_t)kk * nc + j), 2);
            volatile float p = ref_f((uint32_t)ha << 16) * ref_f((uint32_t)hb << 16);
            s = s + p;
        }
        acc = kb == 0 ? s : acc + s;
    }
    return ref_canon(acc);
}

/* REQUANT before narrowing, written independently of hw/model: sat32(round_shift(x * scale, shift)
 * + zp), with round_shift rounding ties towards +infinity (docs/isa.md). */
static inline int64_t ref_requant(int32_t x, int32_t scale, uint32_t shift, int32_t zp)
{
    int64_t v = (int64_t)x * scale;
    if (shift)
        v = (v + ((int64_t)1 << (shift - 1))) >> shift;
    v += zp;
    return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v;
}

/* Saturate to int8. */
static inline int8_t ref_sat8(int64_t v) { return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }

#endif /* REF_H */
