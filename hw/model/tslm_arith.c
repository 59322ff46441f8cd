/* Tessel golden-model arithmetic; see tslm_arith.h for the rules. Integer-only soft float. */
#include "tslm_arith.h"

#include "tsl_hw.h"
#include "tslm_f32_bits.h"

#define HIDDEN 0x00800000u

static int f32_is_inf(uint32_t a) { return (a & ~SIGN) == EXP_MASK; }

uint32_t tslm_f32_canon(uint32_t a) { return f32_canon(a); }

/* Index of the most significant set bit of a non-zero value. */
static unsigned msb64(uint64_t v)
{
    unsigned n = 0;
    for (unsigned step = 32; step; step >>= 1) {
        if (v >> step) {
            v >>= step;
            n += step;
        }
    }
    return n;
}

/* Round the significand `sig` (msb at bit p, p >= 24) to 24 bits, RNE, and pack it with the
 * biased exponent `e` that the msb would have; apply overflow and FTZ. */
static uint32_t round_pack(uint32_t sign, int e, uint64_t sig, unsigned p)
{
    unsigned sh = p - 23;
    uint64_t mant = sig >> sh;
    uint64_t rem = sig & ((1ull << sh) - 1);
    uint64_t half = 1ull << (sh - 1);
    if (rem > half || (rem == half && (mant & 1)))
        mant++;
    if (mant == (1ull << 24)) {
        mant >>= 1;
        e++;
    }
    if (e >= 255)
        return sign | EXP_MASK;
    if (e <= 0)
        return sign;
    return sign | ((uint32_t)e << 23) | ((uint32_t)mant & FRAC_MASK);
}

uint32_t tslm_f32_add(uint32_t a, uint32_t b)
{
    a = tslm_f32_canon(a);
    b = tslm_f32_canon(b);
    if (a == TSLM_F32_QNAN || b == TSLM_F32_QNAN)
        return TSLM_F32_QNAN;
    if (f32_is_inf(a))
        return (f32_is_inf(b) && (a ^ b) & SIGN) ? TSLM_F32_QNAN : a;
    if (f32_is_inf(b))
        return b;
    if (!(a & ~SIGN))
        return (b & ~SIGN) ? b : (a & b);   /* -0 + -0 = -0, every other zero sum is +0 */
    if (!(b & ~SIGN))
        return a;
    if ((a & ~SIGN) < (b & ~SIGN)) {       /* make |a| >= |b| */
        uint32_t t = a;
        a = b;
        b = t;
    }
    unsigned ea = f32_exp(a), d = ea - f32_exp(b);
    uint64_t ma = (uint64_t)((a & FRAC_MASK) | HIDDEN) << 32;
    uint64_t mb = (uint64_t)((b & FRAC_MASK) | HIDDEN) << 32;
    if (d >= 63)
        mb = 1;                              /* only a sticky bit is left */
    else if (d)
        mb = (mb >> d) | ((mb & ((1ull << d) - 1)) != 0);
    uint64_t s = ((a ^ b) & SIGN) ? ma - mb : ma + mb;
    if (!s)
        return 0;                            /* exact cancellation is +0 */
    unsigned p = msb64(s);
    return round_pack(a & SIGN, (int)ea + (int)p - 55, s, p);
}

uint32_t tslm_f32_mul(uint32_t a, uint32_t b)
{
    a = tslm_f32_canon(a);
    b = tslm_f32_canon(b);
    uint32_t sign = (a ^ b) & SIGN;
    if (a == TSLM_F32_QNAN || b == TSLM_F32_QNAN)
        return TSLM_F32_QNAN;
    int za = !(a & ~SIGN), zb = !(b & ~SIGN);
    if (f32_is_inf(a) || f32_is_inf(b))
        return (za || zb) ? TSLM_F32_QNAN : (sign | EXP_MASK);
    if (za || zb)
        return sign;
    uint64_t s = (uint64_t)((a & FRAC_MASK) | HIDDEN) * ((b & FRAC_MASK) | HIDDEN);
    unsigned p = s >> 47 ? 47 : 46;
    return round_pack(sign, (int)f32_exp(a) + (int)f32_exp(b) - 127 + (int)p - 46, s, p);
}

uint32_t tslm_f32_max(uint32_t a, uint32_t b)
{
    a = tslm_f32_canon(a);
    b = tslm_f32_canon(b);
    if (a == TSLM_F32_QNAN || b == TSLM_F32_QNAN)
        return TSLM_F32_QNAN;
    /* Map sign-magnitude to an order-preserving unsigned key (-0 sorts just below +0). */
    uint32_t ka = (a & SIGN) ? ~a : (a | SIGN);
    uint32_t kb = (b & SIGN) ? ~b : (b | SIGN);
    return ka >= kb ? a : b;
}

uint32_t tslm_f32_min(uint32_t a, uint32_t b)
{
    a = tslm_f32_canon(a);
    b = tslm_f32_canon(b);
    if (a == TSLM_F32_QNAN || b == TSLM_F32_QNAN)
        return TSLM_F32_QNAN;
    uint32_t ka = (a & SIGN) ? ~a : (a | SIGN);   /* the order-preserving keys of tslm_f32_max */
    uint32_t kb = (b & SIGN) ? ~b : (b | SIGN);
    return ka <= kb ? a : b;
}

/* ---- VPU functions: docs/isa.md "VPU functions" is the definition this fixed-point arithmetic
 * follows (the RTL's tsl_vpu_eup computes the same integers). */

#define TB TSL_VPU_FN_TABLE_BITS

/* The 24-bit significand of y in [2^31, 2^32] (the value y 2^-32 in [1/2, 1], or y 2^-31 in [1, 2)),
 * rounded half up; *carry = 1 when it rounds up to the next binade (the significand is then 2^23). */
static uint32_t sig24(uint64_t y, int *carry)
{
    uint32_t m = (uint32_t)((y + 128u) >> 8);
    *carry = m >> 24;
    return *carry ? HIDDEN : m;
}

/* A result of biased exponent e and significand m (2^23 <= m < 2^24): a zero of `sign` for e <= 0,
 * an infinity for e >= 255. */
static uint32_t pack_fn(uint32_t sign, int e, uint32_t m)
{
    if (e <= 0)
        return sign;
    if (e >= 255)
        return sign | EXP_MASK;
    return sign | (uint32_t)e << 23 | (m & FRAC_MASK);
}

uint32_t tslm_f32_exp(uint32_t a)
{
    a = tslm_f32_canon(a);
    if (a == TSLM_F32_QNAN)
        return TSLM_F32_QNAN;
    if (f32_exp(a) == 0)
        return F32_ONE;
    if (f32_exp(a) >= 127 + 7)   /* |a| >= 128, infinities included: e^a over- or underflows */
        return (a & SIGN) ? 0 : EXP_MASK;
    /* t = a log2 e in fixed point, 32 fraction bits, its magnitude truncated: |a| = M 2^(ea-150),
     * so |t| 2^32 = M LOG2E 2^(ea-157). */
    uint64_t p = (uint64_t)(HIDDEN | (a & FRAC_MASK)) * TSL_VPU_FN_LOG2E;
    unsigned sh = 157u - f32_exp(a);
    int64_t t = sh >= 64u ? 0 : (int64_t)(p >> sh);
    if (a & SIGN)
        t = -t;
    /* 2^t = 2^k 2^(i/2^TB) 2^g: k = floor(t), i the leading TB bits of the fraction, g the rest */
    int k = (int)(t >> 32);
    uint32_t f = (uint32_t)t, i = f >> (32u - TB), g = f & ((1u << (32u - TB)) - 1u);
    /* 2^g - 1 = g (C1 + g (C2 + g C3)), at 2^-32 */
    uint64_t q = ((uint64_t)TSL_VPU_FN_EXP_C3 * g) >> 32;
    q = ((TSL_VPU_FN_EXP_C2 + q) * g) >> 32;
    q = ((TSL_VPU_FN_EXP_C1 + q) * g) >> 32;
    uint64_t e = tsl_vpu_fn_exp(i);
    uint64_t y = e + ((e * q) >> 32);   /* 2^(i/2^TB + g) at 2^-31, in [2^31, 2^32] */
    int carry;
    uint32_t m = sig24(y, &carry);
    return pack_fn(0, k + 127 + carry, m);
}

/* The chord y0 of 1/x or 1/sqrt(x) over the table interval of the fraction bits f (entry i), at
 * 2^-32: A 2^12 - B d 2^(TB-11), d the fraction bits below the index. */
static uint64_t chord(uint32_t a_i, uint32_t b_i, uint32_t f)
{
    uint32_t d = f & ((1u << (23u - TB)) - 1u);
    return ((uint64_t)a_i << 12) - (((uint64_t)b_i * d) >> (11u - TB));
}

uint32_t tslm_f32_recip(uint32_t a)
{
    a = tslm_f32_canon(a);
    uint32_t sign = a & SIGN, f = a & FRAC_MASK;
    if (a == TSLM_F32_QNAN)
        return TSLM_F32_QNAN;
    if (f32_exp(a) == 0)
        return sign | EXP_MASK;
    if (f32_is_inf(a))
        return sign;
    /* 1/m for m = 1.f: the chord, then one Newton-Raphson step y0 + y0 (1 - m y0); m = 1 is exact */
    int carry = 1;
    uint32_t m = HIDDEN;
    if (f) {
        uint32_t i = f >> (23u - TB);
        uint64_t y0 = chord(tsl_vpu_fn_recip_a(i), tsl_vpu_fn_recip_b(i), f);
        int64_t r = (int64_t)(((uint64_t)1 << 55) - (HIDDEN | f) * y0) >> 23;   /* 1 - m y0 at 2^-32 */
        m = sig24((uint64_t)((int64_t)y0 + (((int64_t)y0 * r) >> 32)), &carry);
    }
    return pack_fn(sign, 253 - (int)f32_exp(a) + carry, m);
}

uint32_t tslm_f32_rsqrt(uint32_t a)
{
    a = tslm_f32_canon(a);
    uint32_t f = a & FRAC_MASK;
    if (a == TSLM_F32_QNAN || (a & SIGN && a != SIGN))
        return TSLM_F32_QNAN;
    if (f32_exp(a) == 0)
        return a | EXP_MASK;   /* +-0 -> +-inf */
    if (f32_is_inf(a))
        return 0;
    /* a = m' 4^q, m' = 1.f 2^odd in [1, 4): 1/sqrt(m') by the chord, then one Newton-Raphson step
     * y0 + y0 (1 - m' y0^2) / 2; m' = 1 is exact */
    unsigned odd = !(f32_exp(a) & 1u);   /* the unbiased exponent is odd */
    int q = ((int)f32_exp(a) - 127 - (int)odd) / 2, carry = 1;
    uint32_t m = HIDDEN;
    if (f || odd) {
        uint32_t i = odd << TB | f >> (23u - TB);
        uint64_t y0 = chord(tsl_vpu_fn_rsqrt_a(i), tsl_vpu_fn_rsqrt_b(i), f);
        uint64_t s = (y0 * y0) >> 32;                                        /* y0^2 at 2^-32 */
        int64_t r = (int64_t)(((uint64_t)1 << (55u - odd)) - (HIDDEN | f) * s) * (1 + (int)odd) >> 23;   /* 1 - m' y0^2 */
        m = sig24((uint64_t)((int64_t)y0 + (((int64_t)y0 * r) >> 33)), &carry);
    }
    return pack_fn(0, 126 - q + carry, m);
}

uint32_t tslm_f32_gelu(uint32_t a)
{
    a = tslm_f32_canon(a);
    uint32_t t = tslm_f32_mul(tslm_f32_mul(a, a), a);   /* a^3 */
    t = tslm_f32_add(tslm_f32_mul(t, TSL_VPU_FN_GELU_C3), a);
    t = tslm_f32_exp(tslm_f32_mul(t, TSL_VPU_FN_GELU_K2));
    return tslm_f32_mul(a, tslm_f32_recip(tslm_f32_add(t, F32_ONE)));
}

uint32_t tslm_f32_silu(uint32_t a)
{
    a = tslm_f32_canon(a);
    uint32_t t = tslm_f32_exp(tslm_f32_mul(a, TSL_VPU_FN_SILU_K));
    return tslm_f32_mul(a, tslm_f32_recip(tslm_f32_add(t, F32_ONE)));
}

int tslm_f32_is_fn(uint32_t op)
{
    return op == TSL_VPU_OP_EXP || op == TSL_VPU_OP_RECIP || op == TSL_VPU_OP_RSQRT || op == TSL_VPU_OP_ACT;
}

uint32_t tslm_f32_fn(uint32_t op, uint32_t act, uint32_t a)
{
    switch (op) {
    case TSL_VPU_OP_EXP: return tslm_f32_exp(a);
    case TSL_VPU_OP_RECIP: return tslm_f32_recip(a);
    case TSL_VPU_OP_RSQRT: return tslm_f32_rsqrt(a);
    default: return act == TSL_VPU_ACT_SILU ? tslm_f32_silu(a) : tslm_f32_gelu(a);
    }
}

uint16_t tslm_bf16_from_f32(uint32_t a)
{
    a = tslm_f32_canon(a);
    if (a == TSLM_F32_QNAN)
        return TSLM_BF16_QNAN;
    /* Ties to even on bit 16; carries into the exponent give the next binade or infinity. */
    return (uint16_t)((a + 0x7FFFu + ((a >> 16) & 1u)) >> 16);
}

uint32_t tslm_f32_from_bf16(uint16_t a)
{
    return tslm_f32_canon((uint32_t)a << 16);
}

int8_t tslm_sat_i8(int64_t v)
{
    return (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
}

int32_t tslm_sat_i32(int64_t v)
{
    return (int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
}

int64_t tslm_round_shift(int64_t v, unsigned s)
{
    if (s == 0)
        return v;
    v += (int64_t)1 << (s - 1);
    /* Floor division by 2^s without relying on the implementation-defined >> of negatives. */
    return v >= 0 ? v >> s : -(int64_t)((((uint64_t)-v) + ((1ull << s) - 1)) >> s);
}

int64_t tslm_requant(int32_t x, int32_t scale, unsigned shift, int32_t zero_point)
{
    return tslm_round_shift((int64_t)x * scale, shift) + zero_point;
}

int32_t tslm_i32_add(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

int32_t tslm_i32_mul(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a * (uint32_t)b);
}
