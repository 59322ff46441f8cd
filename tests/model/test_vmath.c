/* Checks the model's VPU functions EXP, RECIP and RSQRT (hw/model/tslm_arith.c) against the host's
 * libm in double precision: exp(x), 1.0 / x and 1.0 / sqrt(x) of the DAZ'd input. It prints the
 * largest error in ulps of the FP32 result and the input where it occurs, and fails when an error
 * exceeds VMATH_MAX_ULP or a special (NaN, infinity, zero, FTZ) breaks docs/isa.md's rules.
 * Inputs: every STEP-th bit pattern (default 256; `make soak` runs STEP = 1, every FP32 value), and
 * windows of 512 patterns around each boundary: zeros, subnormals, the normal range's ends, the
 * infinities and NaNs, EXP's overflow and FTZ thresholds and |x| = 128, and the binades where
 * RECIP's and RSQRT's results leave the normal range or change exponent parity.
 * Usage: test_vmath [STEP] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tslm_arith.h"
#include "ref.h"

#define VMATH_MAX_ULP 2.0   /* docs/isa.md, "VPU functions": the bound every normal result keeps */
#define MIN_NORMAL 0x1p-126
#define INF_EDGE (0x1p128 - 0x1p103)   /* the smallest magnitude that rounds to infinity */

typedef struct {
    const char *name;
    uint32_t (*fn)(uint32_t);
    double (*ref)(double);
    double max_ulp;     /* largest error seen, in ulps of the result */
    uint32_t max_at;    /* its input */
    uint64_t inputs;
    long bad;           /* specials broken or errors above VMATH_MAX_ULP */
} vmath_t;

static double ref_exp(double x) { return exp(x); }
static double ref_recip(double x) { return 1.0 / x; }
static double ref_rsqrt(double x) { return 1.0 / sqrt(x); }

/* The error of `got` against the exact result `want`, in ulps of the FP32 binade of `want` (the
 * lowest normal binade below 2^-126, the highest above 2^128, where an infinity counts as 2^128);
 * -1 when a special rule is broken: a NaN where none is due, a wrong sign, or a zero for a result
 * that rounds to a normal value. A zero of the right sign for |want| < 2^-126 is exact (FTZ). */
static double ulp_error(uint32_t got, double want)
{
    if (want != want)
        return got == REF_QNAN ? 0 : -1;
    if (got == REF_QNAN || (got >> 31) != (signbit(want) != 0))
        return -1;
    double aw = fabs(want), ag = ref_f(got & 0x7FFFFFFFu);
    if ((got & 0x7FFFFFFFu) == 0)
        return aw < MIN_NORMAL ? 0 : -1;
    if (aw >= INF_EDGE && ag == INFINITY)
        return 0;
    if (ag == INFINITY)
        ag = 0x1p128;
    int e;
    frexp(aw < MIN_NORMAL ? MIN_NORMAL : aw, &e);   /* aw in [2^(e-1), 2^e) */
    if (e > 128)
        e = 128;
    return fabs(ag - aw) / ldexp(1.0, e - 1 - 23);
}

static void check(vmath_t *v, uint32_t x)
{
    uint32_t got = v->fn(x);
    double err = ulp_error(got, v->ref(ref_f(ref_daz(x))));
    v->inputs++;
    if (err < 0 || err > VMATH_MAX_ULP) {
        if (v->bad++ < 5)
            printf("%s(0x%08X = %.9g): got 0x%08X, exact %.12g%s\n", v->name, x, ref_f(x), got,
                   v->ref(ref_f(ref_daz(x))), err < 0 ? " (special rule broken)" : "");
    }
    if (err > v->max_ulp) {
        v->max_ulp = err;
        v->max_at = x;
    }
}

static uint32_t f32_bits(float f) { return ref_u(f); }

int main(int argc, char **argv)
{
    uint64_t step = argc > 1 ? strtoull(argv[1], NULL, 0) : 256;
    if (step == 0)
        step = 1;
    vmath_t fns[] = {{"EXP", tslm_f32_exp, ref_exp, 0, 0, 0, 0},
                     {"RECIP", tslm_f32_recip, ref_recip, 0, 0, 0, 0},
                     {"RSQRT", tslm_f32_rsqrt, ref_rsqrt, 0, 0, 0, 0}};
    /* Centres of the boundary windows (each also with the sign flipped). */
    const uint32_t centres[] = {
        0x00000000u, 0x00800000u, 0x7F800000u, 0x7FC00000u, 0x3F800000u, 0x40000000u, 0x40800000u,
        f32_bits(logf(0x1.fffffep127f)), f32_bits(logf(0x1p-126f)), 0x43000000u,   /* EXP */
        0x7E800000u, 0x7F000000u, 0x7F7FFFFFu,                                      /* RECIP */
    };
    printf("vmath: every %llu-th input and %u boundary windows; bound %.1f ulp\n",
           (unsigned long long)step, (unsigned)(2 * sizeof centres / sizeof centres[0]), VMATH_MAX_ULP);
    int failed = 0;
    for (unsigned f = 0; f < 3; f++) {
        vmath_t *v = &fns[f];
        for (uint64_t x = 0; x <= 0xFFFFFFFFull; x += step)
            check(v, (uint32_t)x);
        for (unsigned c = 0; c < sizeof centres / sizeof centres[0]; c++)
            for (uint32_t s = 0; s < 2; s++)
                for (int d = -256; d < 256; d++)
                    check(v, (centres[c] ^ (s << 31)) + (uint32_t)d);
        printf("vmath %s: max error %.3f ulp at 0x%08X (%.9g), %llu inputs, %ld outside the rules\n",
               v->name, v->max_ulp, v->max_at, ref_f(v->max_at), (unsigned long long)v->inputs, v->bad);
        failed += v->bad != 0;
    }
    printf("vmath: %d passed, %d failed\n", 3 - failed, failed);
    return failed != 0;
}
