/* Checks hw/model's arithmetic against independent references: the host CPU's IEEE float with
 * FTZ and DAZ set (fp32 add, mul, max, min, bf16 rounding), and exact 64-bit integer maths (requant).
 * Random operands are biased towards zeros, subnormals, extreme exponents, Inf and NaN.
 * Then the fast path (tslm_fast.h) against the definition (tslm_arith.h), bit for bit: fp32 add and
 * mul on the random pairs, on products and sums that land at 2^-126 (FTZ after rounding) and at
 * the overflow edge, and every bf16 value times 256 random bf16 values (the MXU's products).
 * Usage: test_arith [SEED]   (the seed is printed; pass it back to replay a failure) */
#include <stdio.h>
#include <stdlib.h>

#include "tslm_arith.h"
#include "tslm_fast.h"
#include "test_util.h"
#include "ref.h"

/* Random fp32 operand, often special. */
static uint32_t rand_f32(tu_rng_t *r)
{
    uint32_t sign = (uint32_t)(tu_next(r) & 1) << 31;
    switch (tu_below(r, 10)) {
    case 0: return sign;                                              /* zero */
    case 1: return sign | (uint32_t)(tu_next(r) & 0x7FFFFF);          /* subnormal */
    case 2: return sign | 0x7F800000u;                                /* infinity */
    case 3: return sign | 0x7F800000u | (uint32_t)(1 + tu_below(r, 0x7FFFFF)); /* NaN */
    case 4: return sign | (uint32_t)((1 + tu_below(r, 24)) << 23) | (uint32_t)(tu_next(r) & 0x7FFFFF); /* tiny */
    case 5: return sign | (uint32_t)((230 + tu_below(r, 25)) << 23) | (uint32_t)(tu_next(r) & 0x7FFFFF); /* huge */
    case 6: return sign | (uint32_t)((100 + tu_below(r, 55)) << 23) | (uint32_t)(tu_next(r) & 0x7FFF0000u >> 16 << 16); /* bf16-like */
    default: return (uint32_t)tu_next(r);
    }
}

/* Operand pairs at a result edge: b the fp32 nearest to `edge` / a, moved by -3..3 ulps, so that
 * a * b straddles the edge; or b = edge - a, moved likewise, so that a + b does. */
static void edge_pair(tu_rng_t *r, double edge, int add, uint32_t *pa, uint32_t *pb)
{
    uint32_t sign = (uint32_t)(tu_next(r) & 1) << 31;
    int e = add ? (int)tu_below(r, 6) - 3 : (int)tu_below(r, 40) - 20;   /* a's unbiased exponent */
    if (add && edge > 1)
        e += 127;
    else if (add)
        e -= 126;
    uint32_t a = sign | (uint32_t)(e + 127) << 23 | (uint32_t)(tu_next(r) & 0x7FFFFF);
    double fa = ref_f(a), fb = add ? (sign ? -edge : edge) - fa : edge / fa;
    uint32_t b = ref_u((float)fb) + (uint32_t)((int)tu_below(r, 7) - 3);
    *pa = a;
    *pb = b;
}

/* The fast path against the definition; returns the number of differing results. */
static long check_fast(tu_t *t)
{
    long n_add = 0, n_mul = 0, n_prod = 0, bad_add = 0, bad_mul = 0, bad_prod = 0;
    unsigned mode = tslm_fast_enter();
    for (long i = 0; i < 4000000; i++) {
        uint32_t a, b;
        if (i < 2000000) {
            a = rand_f32(&t->rng);
            b = rand_f32(&t->rng);
        } else {
            edge_pair(&t->rng, (i & 2) ? 0x1p-126 : 0x1p128 * (1 - 0x1p-25), i & 1, &a, &b);
        }
        uint32_t want = tslm_f32_add(a, b), got = tslm_fast_f32_add(a, b);
        n_add++;
        if (want != got && bad_add++ < 5)
            printf("fast add %08x + %08x: definition %08x fast %08x\n", a, b, want, got);
        want = tslm_f32_mul(a, b);
        got = tslm_fast_f32_mul(a, b);
        n_mul++;
        if (want != got && bad_mul++ < 5)
            printf("fast mul %08x * %08x: definition %08x fast %08x\n", a, b, want, got);
    }
    /* Every bf16 value times 256 random bf16 values: the MXU's products. */
    for (uint32_t x = 0; x < 0x10000; x++) {
        for (int i = 0; i < 256; i++) {
            uint32_t a = x << 16, b = (uint32_t)(tu_next(&t->rng) & 0xFFFF) << 16;
            uint32_t want = tslm_f32_mul(a, b), got = tslm_fast_f32_mul(a, b);
            n_prod++;
            if (want != got && bad_prod++ < 5)
                printf("fast bf16 product %08x * %08x: definition %08x fast %08x\n", a, b, want, got);
        }
    }
    tslm_fast_leave(mode);
    printf("arith: fast path against the definition: add %ld pairs, %ld differ; mul %ld pairs, %ld differ; "
           "bf16 products %ld, %ld differ\n", n_add, bad_add, n_mul, bad_mul, n_prod, bad_prod);
    tu_check(t, bad_add == 0, "fast fp32 add equals the definition (%ld of %ld differ)", bad_add, n_add);
    tu_check(t, bad_mul == 0, "fast fp32 mul equals the definition (%ld of %ld differ)", bad_mul, n_mul);
    tu_check(t, bad_prod == 0, "fast bf16 products equal the definition (%ld of %ld differ)", bad_prod, n_prod);
    return bad_add + bad_mul + bad_prod;
}

int main(int argc, char **argv)
{
    tu_t t;
    tu_init(&t, "arith", argc, argv);
    unsigned csr = ref_fp_ftz_daz();
    const long iters = 2000000;
    long bad_add = 0, bad_mul = 0, bad_max = 0, bad_min = 0, bad_bf16 = 0;
    for (long i = 0; i < iters; i++) {
        uint32_t a = rand_f32(&t.rng), b = rand_f32(&t.rng);
        volatile float fa = ref_f(a), fb = ref_f(b);
        uint32_t want = ref_canon(fa + fb), got = tslm_f32_add(a, b);
        if (want != got && bad_add++ < 5)
            printf("add %08x + %08x: expected %08x got %08x\n", a, b, want, got);
        want = ref_canon(fa * fb);
        got = tslm_f32_mul(a, b);
        if (want != got && bad_mul++ < 5)
            printf("mul %08x * %08x: expected %08x got %08x\n", a, b, want, got);
        want = ref_max(a, b);
        got = tslm_f32_max(a, b);
        if (want != got && bad_max++ < 5)
            printf("max %08x, %08x: expected %08x got %08x\n", a, b, want, got);
        want = ref_min(a, b);
        got = tslm_f32_min(a, b);
        if (want != got && bad_min++ < 5)
            printf("min %08x, %08x: expected %08x got %08x\n", a, b, want, got);
    }
    tu_check(&t, bad_add == 0, "fp32 add matches host float with FTZ/DAZ (%ld mismatches)", bad_add);
    tu_check(&t, bad_mul == 0, "fp32 mul matches host float with FTZ/DAZ (%ld mismatches)", bad_mul);
    tu_check(&t, bad_max == 0, "fp32 max matches the reference (%ld mismatches)", bad_max);
    tu_check(&t, bad_min == 0, "fp32 min matches the reference (%ld mismatches)", bad_min);
    ref_fp_restore(csr);

    /* fp32 -> bf16 RNE: reference by exact comparison of the two neighbouring bf16 values. */
    for (long i = 0; i < iters; i++) {
        uint32_t a = rand_f32(&t.rng);
        uint16_t want = ref_bf16(a);
        uint16_t got = tslm_bf16_from_f32(a);
        if (want != got && bad_bf16++ < 5)
            printf("bf16(%08x): expected %04x got %04x\n", a, want, got);
    }
    tu_check(&t, bad_bf16 == 0, "fp32->bf16 rounds to nearest even (%ld mismatches)", bad_bf16);

    /* Requantisation against exact integer maths (floor division of the rounded product). */
    long bad_rq = 0;
    for (long i = 0; i < iters; i++) {
        int32_t x = (int32_t)tu_next(&t.rng), scale = (int32_t)tu_next(&t.rng);
        unsigned shift = (unsigned)tu_below(&t.rng, 63);
        int32_t zp = (int32_t)tu_below(&t.rng, 256) - 128;
        __int128 p = (__int128)x * scale + (shift ? ((__int128)1 << (shift - 1)) : 0);
        __int128 q = p / ((__int128)1 << shift);
        if (q * ((__int128)1 << shift) > p)
            q -= 1;                                    /* floor */
        int64_t want = (int64_t)(q + zp), got = tslm_requant(x, scale, shift, zp);
        if (want != got && bad_rq++ < 5)
            printf("requant(%d, %d, %u, %d): expected %lld got %lld\n", x, scale, shift, zp,
                   (long long)want, (long long)got);
    }
    tu_check(&t, bad_rq == 0, "requant equals exact integer rounding (%ld mismatches)", bad_rq);
    tu_check(&t, tslm_sat_i8(300) == 127 && tslm_sat_i8(-300) == -128 && tslm_sat_i8(-7) == -7,
             "int8 saturation");
    tu_check(&t, tslm_sat_i32((int64_t)1 << 40) == INT32_MAX && tslm_sat_i32(-((int64_t)1 << 40)) == INT32_MIN,
             "int32 saturation");
    if (tslm_fast_available())
        check_fast(&t);
    else
        printf("arith: this host has no fast path; the model runs on the definition alone\n");
    return tu_done(&t);
}
