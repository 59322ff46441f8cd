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

/* ---- VPU functions: docs/isa.md "VPU functions" is the definition these steps follow. */

uint32_t tslm_f32_exp(uint32_t a)
{
    a = tslm_f32_canon(a);
    if (a == TSLM_F32_QNAN)
        return TSLM_F32_QNAN;
    if (f32_exp(a) >= 127 + 7)   /* |a| >= 128, infinities included: e^a over- or underflows */
        return (a & SIGN) ? 0 : EXP_MASK;
    /* a = k ln2 + r: k = round(a log2 e) by the shifter; r by Cody-Waite in two steps. */
    uint32_t s = tslm_f32_add(tslm_f32_mul(a, TSL_VPU_FN_LOG2E), TSL_VPU_FN_SHIFTER);
    int k = (int)(s & FRAC_MASK) - 0x400000;
    uint32_t kf = tslm_f32_add(s, TSL_VPU_FN_SHIFTER ^ SIGN);
    uint32_t r = tslm_f32_add(a, tslm_f32_mul(kf, TSL_VPU_FN_LN2_HI ^ SIGN));
    r = tslm_f32_add(r, tslm_f32_mul(kf, TSL_VPU_FN_LN2_LO ^ SIGN));
    /* e^r = 1 + (r + r^2 p(r)), p(r) = C2 + C3 r + ... + C6 r^4 by Horner. */
    static const uint32_t c[] = {TSL_VPU_FN_EXP_C5, TSL_VPU_FN_EXP_C4, TSL_VPU_FN_EXP_C3, TSL_VPU_FN_EXP_C2};
    uint32_t p = tslm_f32_mul(r, TSL_VPU_FN_EXP_C6);
    for (unsigned i = 0; i < 4; i++) {
        p = tslm_f32_add(p, c[i]);
        if (i < 3)
            p = tslm_f32_mul(p, r);
    }
    p = tslm_f32_mul(p, tslm_f32_mul(r, r));
    uint32_t y = tslm_f32_add(tslm_f32_add(p, r), F32_ONE);
    return f32_with_exp(y, (int)f32_exp(y) + k);   /* y * 2^k */
}

uint32_t tslm_f32_recip(uint32_t a)
{
    a = tslm_f32_canon(a);
    uint32_t sign = a & SIGN;
    if (a == TSLM_F32_QNAN)
        return TSLM_F32_QNAN;
    if (f32_exp(a) == 0)
        return sign | EXP_MASK;
    if (f32_is_inf(a))
        return sign;
    /* 1/m for the mantissa m in [1, 2): a seed, then two Newton-Raphson steps y += y (1 - m y). */
    uint32_t m = F32_ONE | (a & FRAC_MASK);
    uint32_t y = F32_HALF | tsl_vpu_fn_recip_seed((a & FRAC_MASK) >> (23 - TSL_VPU_FN_SEED_BITS)) << 15;
    for (unsigned i = 0; i < 2; i++) {
        uint32_t e = tslm_f32_add(F32_ONE, tslm_f32_mul(m, y) ^ SIGN);
        y = tslm_f32_add(y, tslm_f32_mul(y, e));
    }
    return sign | f32_with_exp(y, (int)f32_exp(y) + 127 - (int)f32_exp(a));   /* y * 2^-(ea - 127) */
}

uint32_t tslm_f32_rsqrt(uint32_t a)
{
    a = tslm_f32_canon(a);
    if (a == TSLM_F32_QNAN || (a & SIGN && a != SIGN))
        return TSLM_F32_QNAN;
    if (f32_exp(a) == 0)
        return a | EXP_MASK;   /* +-0 -> +-inf */
    if (f32_is_inf(a))
        return 0;
    /* a = m' 2^(2q), m' in [1, 4); 1/sqrt(m') from a seed by two Newton-Raphson steps
     * y += y (1/2 - (m'/2) y^2), with h = m'/2 in [1/2, 2). */
    unsigned odd = !(f32_exp(a) & 1);                          /* the unbiased exponent is odd */
    int q = ((int)f32_exp(a) - 127 - (int)odd) / 2;
    uint32_t h = ((126u + odd) << 23) | (a & FRAC_MASK);
    uint32_t y = F32_HALF | tsl_vpu_fn_rsqrt_seed(odd, (a & FRAC_MASK) >> (23 - TSL_VPU_FN_SEED_BITS)) << 15;
    for (unsigned i = 0; i < 2; i++) {
        uint32_t e = tslm_f32_add(F32_HALF, tslm_f32_mul(tslm_f32_mul(y, y), h) ^ SIGN);
        y = tslm_f32_add(y, tslm_f32_mul(y, e));
    }
    return f32_with_exp(y, (int)f32_exp(y) - q);   /* y * 2^-q */
}

uint32_t tslm_f32_gelu(uint32_t a)
{
    a = tslm_f32_canon(a);
    uint32_t t = tslm_f32_mul(tslm_f32_mul(a, a), a);   /* a^3 */
    t = tslm_f32_add(tslm_f32_mul(t, TSL_VPU_FN_GELU_C3), a);
    t = tslm_f32_exp(tslm_f32_mul(t, TSL_VPU_FN_GELU_K2));
    return tslm_f32_mul(a, tslm_f32_recip(tslm_f32_add(t, F32_ONE)));
}

int tslm_f32_is_fn(uint32_t op)
{
    return op == TSL_VPU_OP_EXP || op == TSL_VPU_OP_RECIP || op == TSL_VPU_OP_RSQRT || op == TSL_VPU_OP_GELU;
}

uint32_t tslm_f32_fn(uint32_t op, uint32_t a)
{
    switch (op) {
    case TSL_VPU_OP_EXP: return tslm_f32_exp(a);
    case TSL_VPU_OP_RECIP: return tslm_f32_recip(a);
    case TSL_VPU_OP_RSQRT: return tslm_f32_rsqrt(a);
    default: return tslm_f32_gelu(a);
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
