/* Tessel golden model: the fast path of its float arithmetic; see tslm_fast.h for the contract.
 * Each function follows its tslm_arith.c definition step for step, with one SSE instruction per
 * fp32 add or multiply (intrinsics, so that no x87 code can be chosen) and the definition's own
 * integer steps (DAZ of the inputs, exponent arithmetic). EXP, RECIP and RSQRT are integer
 * arithmetic already: the definition is their fast path.
 */
#include "tslm_fast.h"

#include <string.h>

#include "tslm_arith.h"
#include "tsl_hw.h"
#include "tslm_f32_bits.h"

/* No fused multiply-add and no reassociation: either would change bits. The model's makefiles pass
 * -ffp-contract=off, and the pragmas below turn contraction off for this file; clang ignores them
 * under -ffp-contract=fast, so each product also passes through KEEP, an empty asm statement that
 * hands the rounded value over in a register (no instruction, and nothing left to fuse). */
#if defined(__FAST_MATH__)
#error "tslm_fast.c needs IEEE arithmetic: build it without -ffast-math"
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* x86-64 only: every x86-64 processor has SSE2 and the DAZ bit (the first SSE2 processors lacked
 * DAZ, and setting it there faults), and its compilers do float arithmetic in SSE, never x87.
 * -DTSLM_NO_FAST_PATH builds the model without it, as on any other host. */
#if defined(__SSE2__) && defined(__x86_64__) && !defined(TSLM_NO_FAST_PATH)
#define TSLM_FAST 1
#include <emmintrin.h>
#define KEEP(v) __asm__("" : "+x"(v))
#else
#define TSLM_FAST 0
#endif

#if TSLM_FAST

#define MXCSR_DAZ 0x0040u
#define MXCSR_EXC_MASKS 0x1F80u   /* IM DM ZM OM UM PM */
#define MXCSR_RC 0x6000u          /* rounding control: 00 is round to nearest even */
#define MXCSR_FTZ 0x8000u

int tslm_fast_available(void) { return 1; }

unsigned tslm_fast_enter(void)
{
    unsigned mode = _mm_getcsr();
    _mm_setcsr((mode & ~MXCSR_RC) | MXCSR_EXC_MASKS | MXCSR_FTZ | MXCSR_DAZ);
    return mode;
}

void tslm_fast_leave(unsigned mode) { _mm_setcsr(mode); }

/* A NaN result of any payload becomes the canonical NaN. */
static uint32_t canon_nan(uint32_t a) { return (a & ~SIGN) > EXP_MASK ? TSLM_F32_QNAN : a; }

static __m128 to_ps(uint32_t a) { return _mm_castsi128_ps(_mm_cvtsi32_si128((int)a)); }
static uint32_t from_ps(__m128 v) { return (uint32_t)_mm_cvtsi128_si32(_mm_castps_si128(v)); }

/* One IEEE operation under FTZ/DAZ; a NaN result keeps whatever payload the host gives it. */
static uint32_t add_raw(uint32_t a, uint32_t b) { return from_ps(_mm_add_ss(to_ps(a), to_ps(b))); }
static uint32_t mul_raw(uint32_t a, uint32_t b)
{
    __m128 p = _mm_mul_ss(to_ps(a), to_ps(b));
    KEEP(p);
    return from_ps(p);
}

uint32_t tslm_fast_f32_add(uint32_t a, uint32_t b) { return canon_nan(add_raw(a, b)); }
uint32_t tslm_fast_f32_mul(uint32_t a, uint32_t b) { return canon_nan(mul_raw(a, b)); }

/* NaNs may arise here (a = NaN or +-inf); EXP and RECIP (fixed-point: the definition itself) read
 * any NaN as the canonical one, and the last product is canonicalised. */
uint32_t tslm_fast_f32_gelu(uint32_t a)
{
    a = f32_canon(a);
    uint32_t t = mul_raw(mul_raw(a, a), a);
    t = add_raw(mul_raw(t, TSL_VPU_FN_GELU_C3), a);
    t = tslm_f32_exp(mul_raw(t, TSL_VPU_FN_GELU_K2));
    return canon_nan(mul_raw(a, tslm_f32_recip(add_raw(t, F32_ONE))));
}

uint32_t tslm_fast_f32_silu(uint32_t a)
{
    a = f32_canon(a);
    uint32_t t = tslm_f32_exp(mul_raw(a, TSL_VPU_FN_SILU_K));
    return canon_nan(mul_raw(a, tslm_f32_recip(add_raw(t, F32_ONE))));
}

uint32_t tslm_fast_f32_fn(uint32_t op, uint32_t act, uint32_t a)
{
    if (op != TSL_VPU_OP_ACT)
        return tslm_f32_fn(op, act, a);
    return act == TSL_VPU_ACT_SILU ? tslm_fast_f32_silu(a) : tslm_fast_f32_gelu(a);
}

/* ---- the MXU row */

static __m128 bcast_bf16(const uint8_t *x, uint32_t k)
{
    uint16_t h;
    memcpy(&h, x + 2 * k, 2);
    return _mm_castsi128_ps(_mm_set1_epi32((int)((uint32_t)h << 16)));
}

static __m128 load4(const void *p) { return _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)p)); }

/* out[0..3] = s (or out + s), NaNs canonical. */
static void finish4(uint8_t *out, __m128 s, int accumulate)
{
    if (accumulate)
        s = _mm_add_ps(load4(out), s);
    __m128 nan = _mm_cmpunord_ps(s, s);
    __m128 qnan = _mm_castsi128_ps(_mm_set1_epi32((int)TSLM_F32_QNAN));
    s = _mm_or_ps(_mm_and_ps(nan, qnan), _mm_andnot_ps(nan, s));
    _mm_storeu_si128((__m128i *)out, _mm_castps_si128(s));
}

void tslm_fast_mxu_bf16_row(const uint8_t *x, const int32_t *w, uint32_t n, int accumulate, uint8_t *out)
{
    uint32_t j = 0;
    for (; j + 16 <= n; j += 16) {   /* 16 columns in four registers, each column summed over k in order */
        __m128 s0 = _mm_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        const int32_t *wk = w + j;
        for (uint32_t k = 0; k < n; k++, wk += n) {
            __m128 a = bcast_bf16(x, k);
            __m128 p0 = _mm_mul_ps(a, load4(wk)), p1 = _mm_mul_ps(a, load4(wk + 4));
            __m128 p2 = _mm_mul_ps(a, load4(wk + 8)), p3 = _mm_mul_ps(a, load4(wk + 12));
            KEEP(p0);
            KEEP(p1);
            KEEP(p2);
            KEEP(p3);
            s0 = _mm_add_ps(s0, p0);
            s1 = _mm_add_ps(s1, p1);
            s2 = _mm_add_ps(s2, p2);
            s3 = _mm_add_ps(s3, p3);
        }
        finish4(out + 4 * j, s0, accumulate);
        finish4(out + 4 * j + 16, s1, accumulate);
        finish4(out + 4 * j + 32, s2, accumulate);
        finish4(out + 4 * j + 48, s3, accumulate);
    }
    for (; j < n; j += 4) {   /* N = 4 and 8 */
        __m128 s = _mm_setzero_ps();
        const int32_t *wk = w + j;
        for (uint32_t k = 0; k < n; k++, wk += n) {
            __m128 p = _mm_mul_ps(bcast_bf16(x, k), load4(wk));
            KEEP(p);
            s = _mm_add_ps(s, p);
        }
        finish4(out + 4 * j, s, accumulate);
    }
}

/* x[2p] and x[2p + 1], sign-extended to 16 bits, in every 32-bit lane. */
static __m128i bcast_i8_pair(const uint8_t *x, uint32_t p)
{
    uint32_t lo = (uint16_t)(int16_t)(int8_t)x[2 * p], hi = (uint16_t)(int16_t)(int8_t)x[2 * p + 1];
    return _mm_set1_epi32((int)(lo | hi << 16));
}

static void finish4_i32(uint8_t *out, __m128i s, int accumulate)
{
    if (accumulate)
        s = _mm_add_epi32(_mm_loadu_si128((const __m128i *)out), s);
    _mm_storeu_si128((__m128i *)out, s);
}

void tslm_fast_mxu_int8_row(const uint8_t *x, const int16_t *w16, uint32_t n, int accumulate, uint8_t *out)
{
    uint32_t j = 0;
    for (; j + 16 <= n; j += 16) {
        __m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;
        const int16_t *wp = w16 + 2 * j;
        for (uint32_t p = 0; p < n / 2; p++, wp += 2 * n) {
            __m128i a = bcast_i8_pair(x, p);
            s0 = _mm_add_epi32(s0, _mm_madd_epi16(a, _mm_loadu_si128((const __m128i *)wp)));
            s1 = _mm_add_epi32(s1, _mm_madd_epi16(a, _mm_loadu_si128((const __m128i *)(wp + 8))));
            s2 = _mm_add_epi32(s2, _mm_madd_epi16(a, _mm_loadu_si128((const __m128i *)(wp + 16))));
            s3 = _mm_add_epi32(s3, _mm_madd_epi16(a, _mm_loadu_si128((const __m128i *)(wp + 24))));
        }
        finish4_i32(out + 4 * j, s0, accumulate);
        finish4_i32(out + 4 * j + 16, s1, accumulate);
        finish4_i32(out + 4 * j + 32, s2, accumulate);
        finish4_i32(out + 4 * j + 48, s3, accumulate);
    }
    for (; j < n; j += 4) {
        __m128i s = _mm_setzero_si128();
        const int16_t *wp = w16 + 2 * j;
        for (uint32_t p = 0; p < n / 2; p++, wp += 2 * n)
            s = _mm_add_epi32(s, _mm_madd_epi16(bcast_i8_pair(x, p), _mm_loadu_si128((const __m128i *)wp)));
        finish4_i32(out + 4 * j, s, accumulate);
    }
}

#else /* !TSLM_FAST: no fast path; these are the definition, so that a call cannot go wrong */

int tslm_fast_available(void) { return 0; }
unsigned tslm_fast_enter(void) { return 0; }
void tslm_fast_leave(unsigned mode) { (void)mode; }
uint32_t tslm_fast_f32_add(uint32_t a, uint32_t b) { return tslm_f32_add(a, b); }
uint32_t tslm_fast_f32_mul(uint32_t a, uint32_t b) { return tslm_f32_mul(a, b); }
uint32_t tslm_fast_f32_gelu(uint32_t a) { return tslm_f32_gelu(a); }
uint32_t tslm_fast_f32_silu(uint32_t a) { return tslm_f32_silu(a); }
uint32_t tslm_fast_f32_fn(uint32_t op, uint32_t act, uint32_t a) { return tslm_f32_fn(op, act, a); }

void tslm_fast_mxu_bf16_row(const uint8_t *x, const int32_t *w, uint32_t n, int accumulate, uint8_t *out)
{
    for (uint32_t j = 0; j < n; j++) {
        uint32_t s = 0, o;
        for (uint32_t k = 0; k < n; k++) {
            uint16_t h;
            memcpy(&h, x + 2 * k, 2);
            s = tslm_f32_add(s, tslm_f32_mul((uint32_t)h << 16, (uint32_t)w[k * n + j]));
        }
        uint8_t *p = out + 4 * j;   /* little-endian, as tslm.c's ld32/st32 */
        o = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        s = accumulate ? tslm_f32_add(o, s) : s;
        for (unsigned b = 0; b < 4; b++)
            p[b] = (uint8_t)(s >> (8 * b));
    }
}

void tslm_fast_mxu_int8_row(const uint8_t *x, const int16_t *w16, uint32_t n, int accumulate, uint8_t *out)
{
    for (uint32_t j = 0; j < n; j++) {
        uint32_t s = 0, o;
        for (uint32_t k = 0; k < n; k++)
            s += (uint32_t)((int32_t)(int8_t)x[k] * w16[2 * ((k / 2) * n + j) + (k & 1)]);
        uint8_t *p = out + 4 * j;
        o = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        s = accumulate ? o + s : s;
        for (unsigned b = 0; b < 4; b++)
            p[b] = (uint8_t)(s >> (8 * b));
    }
}

#endif

/* Plain C, the same on every host. */
void tslm_fast_int8_pairs(const int32_t *w, uint32_t n, int16_t *w16)
{
    for (uint32_t p = 0; p < n / 2; p++) {
        for (uint32_t j = 0; j < n; j++) {
            w16[2 * (p * n + j)] = (int16_t)w[2 * p * n + j];
            w16[2 * (p * n + j) + 1] = (int16_t)w[(2 * p + 1) * n + j];
        }
    }
}
