/* Tessel golden-model arithmetic; see tslm_arith.h for the rules. Integer-only soft float. */
#include "tslm_arith.h"

#define SIGN 0x80000000u
#define EXP_MASK 0x7F800000u
#define FRAC_MASK 0x007FFFFFu
#define HIDDEN 0x00800000u

static unsigned f32_exp(uint32_t a) { return (a & EXP_MASK) >> 23; }
static int f32_is_nan(uint32_t a) { return (a & EXP_MASK) == EXP_MASK && (a & FRAC_MASK); }
static int f32_is_inf(uint32_t a) { return (a & ~SIGN) == EXP_MASK; }

uint32_t tslm_f32_canon(uint32_t a)
{
    if (f32_is_nan(a))
        return TSLM_F32_QNAN;
    if (f32_exp(a) == 0)
        return a & SIGN;
    return a;
}

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
