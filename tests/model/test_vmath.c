/* Checks the model's VPU functions EXP, RECIP, RSQRT and ACT's GELU and SILU (hw/model/tslm_arith.c)
 * against the host's libm in double precision: exp(x), 1.0 / x, 1.0 / sqrt(x), GELU's tanh form
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) and SiLU x / (1 + exp(-x)) of the DAZ'd input. It
 * prints the largest error in ulps of the FP32 result and the input where it occurs, and fails when
 * an error exceeds the function's bound or a special (NaN, infinity, zero, FTZ) breaks docs/isa.md's
 * rules.
 * Bounds: EXP, RECIP and RSQRT keep VMATH_MAX_ULP. GELU is x s(u), with s(u) = 1 / (1 + e^u) the
 * logistic function and u = -2 sqrt(2/pi) (x + 0.044715 x^3); the model
 * computes them as x * RECIP(EXP(u) + 1) in FP32 steps. Since d ln s / du = -(1 - s), an error du of
 * the argument becomes a relative error (1 - s(u)) |du| of the result, which near x = -10 (u = 87) is
 * hundreds of ulps. Its bound is therefore SIG_MAX_ULP + per_u |u| (1 - s(u)) ulps (a relative
 * error of k units of 2^-24 is at most k ulps):
 *   - SIG_MAX_ULP, the steps from EXP on: EXP's and RECIP's relative errors (at most 1.95 and 2.48
 *     units by their full-range maxima in docs/isa.md), the add's (1) and the product's rounding
 *     (0.5 ulp): under 6 ulps.
 *   - per_u, the relative error of GELU's FP32 u in units of 2^-24: with w < 1 the share of the cubic
 *     term in x + C3 x^3, the roundings of x^2, x^3 and C3 x^3 count w each, those of the add and of
 *     the product by K2 one each, and the constants (GELU_C3 is 0.58 units low, GELU_K2 0.48 units
 *     high) -0.58 w and +0.48: at most 1.52 + 3.58 w < 5.1. Measured on every input with
 *     2^-23 <= |x| < 128, GELU's errors are within 2.86 + 3.25 |u| (1 - s) ulps. The bound
 *     4 + 3.5 |u| (1 - s) fails GELU_K2 one ulp off (either way) and GELU_C3 two; GELU_C3 one ulp off
 *     (1.4 units, times w) passes.
 * SILU is x s(u) with u = -x, exact in FP32 (SILU_K is -1): its bound is SIG_MAX_ULP alone.
 *   For u > 126 ln 2 (GELU: x < -10.001; SILU: x < -87.34), s(u) is below 2^-126: RECIP flushes it to
 *   zero (or EXP(u) overflows and RECIP(inf) is 0), and the result is a zero of x's sign although
 *   x s(u) may still be normal. A zero is accepted where s(u) is within the bound of 2^-126.
 *   At x = -inf the model and the reference give NaN (-inf times 0; the limit is -0).
 * Inputs: every STEP-th bit pattern (default 256; `make soak` runs STEP = 1, every FP32 value), and
 * windows of 512 patterns around each boundary: zeros, subnormals, the normal range's ends, the
 * infinities and NaNs, EXP's overflow and FTZ thresholds and |x| = 128, the binades where RECIP's and
 * RSQRT's results leave the normal range or change exponent parity, and for GELU and SILU the inputs
 * where their u reaches 126 ln 2 (the flush), ln(FLT_MAX) (EXP's overflow) and 128, and where GELU's
 * x^2 and x^3 overflow.
 * Each GELU and SILU input also runs through the fast path (tslm_fast.h), whose result must equal the
 * definition's bit for bit; the counts are printed (EXP, RECIP and RSQRT have no other path).
 * Usage: test_vmath [STEP] */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tslm_arith.h"
#include "tslm_fast.h"
#include "ref.h"

#define VMATH_MAX_ULP 2.0   /* docs/isa.md, "VPU functions": the bound every normal EXP, RECIP, RSQRT result keeps */
#define SIG_MAX_ULP 4.0     /* GELU: its steps from EXP on (see above) */
#define GELU_PER_U 3.5      /* GELU: the relative error of its FP32 u, in units of 2^-24 (see above) */
#define MIN_NORMAL 0x1p-126
#define INF_EDGE (0x1p128 - 0x1p103)   /* the smallest magnitude that rounds to infinity */
#define SQRT_2_PI 0.79788456080286535588   /* sqrt(2 / pi) */
#define GELU_C3 0.044715

typedef struct {
    const char *name;
    uint32_t (*fn)(uint32_t);
    uint32_t (*fast)(uint32_t);   /* the fast path of fn (NULL: fn is integer arithmetic, its own) */
    double (*ref)(double);
    double (*arg)(double);   /* GELU: the exact argument u of its e^u; else NULL */
    double bound_ulp;   /* the bound: bound_ulp + per_u |u| (1 - s(u)) ulps */
    double per_u;
    double max_ulp;     /* largest error seen, in ulps of the result */
    uint32_t max_at;    /* its input */
    double max_frac;    /* largest error / bound */
    uint32_t frac_at;
    uint64_t inputs;
    long bad;           /* specials broken or errors above the bound */
    long fast_diff;     /* inputs where the fast path differs from the definition */
} vmath_t;

static double ref_exp(double x) { return exp(x); }
static double ref_recip(double x) { return 1.0 / x; }
static double ref_rsqrt(double x) { return 1.0 / sqrt(x); }

/* GELU's tanh form. Below z = 0, 1 + tanh z is 2 e^2z / (1 + e^2z), without the cancellation. */
static double ref_gelu(double x)
{
    double z = SQRT_2_PI * (x + GELU_C3 * x * x * x);
    return z >= 0 ? 0.5 * x * (1 + tanh(z)) : x * exp(2 * z) / (1 + exp(2 * z));
}

static double arg_gelu(double x) { return -2 * SQRT_2_PI * (x + GELU_C3 * x * x * x); }

static double ref_silu(double x) { return x >= 0 ? x / (1 + exp(-x)) : x * exp(x) / (1 + exp(x)); }

static double arg_silu(double x) { return -x; }

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
    if (v->fast && tslm_fast_available()) {   /* the fast path runs in its own float mode, the libm reference not */
        unsigned mode = tslm_fast_enter();
        uint32_t fast = v->fast(x);
        tslm_fast_leave(mode);
        if (fast != got && v->fast_diff++ < 5)
            printf("%s(0x%08X): definition 0x%08X, fast path 0x%08X\n", v->name, x, got, fast);
    }
    double xd = ref_f(ref_daz(x)), want = v->ref(xd), bound = v->bound_ulp;
    int flushed = 0;
    if (v->arg) {
        double u = v->arg(xd), s = 1 / (1 + exp(u));
        double t = fabs(u) * (u > 0 ? 1 / (1 + exp(-u)) : exp(u) * s);   /* |u| (1 - s(u)) */
        if (t == t)   /* not at x = NaN or +inf */
            bound += v->per_u * t;
        /* s(u) within the bound of 2^-126: RECIP may flush it, and the result is a zero of x's sign */
        flushed = s * (1 - bound * 0x1p-23) < MIN_NORMAL && (got & 0x7FFFFFFFu) == 0 &&
                  (got >> 31) == (signbit(want) != 0);
    }
    double err = flushed ? 0 : ulp_error(got, want);
    v->inputs++;
    if (err < 0 || err > bound) {
        if (v->bad++ < 5)
            printf("%s(0x%08X = %.9g): got 0x%08X, exact %.12g, bound %.3f ulp%s\n", v->name, x, ref_f(x), got,
                   want, bound, err < 0 ? " (special rule broken)" : "");
    }
    if (err > v->max_ulp) {
        v->max_ulp = err;
        v->max_at = x;
    }
    if (err / bound > v->max_frac) {
        v->max_frac = err / bound;
        v->frac_at = x;
    }
}

static uint32_t f32_bits(float f) { return ref_u(f); }

/* The negative x (at least -128) where arg(x) = u, by bisection (arg decreases there), as FP32 bits. */
static uint32_t arg_at(double (*arg)(double), double u)
{
    double lo = -128, hi = 0;
    for (int i = 0; i < 100; i++) {
        double mid = (lo + hi) / 2;
        if (arg(mid) > u)
            lo = mid;
        else
            hi = mid;
    }
    return f32_bits((float)lo);
}

int main(int argc, char **argv)
{
    uint64_t step = argc > 1 ? strtoull(argv[1], NULL, 0) : 256;
    if (step == 0)
        step = 1;
    vmath_t fns[] = {
        {"EXP", tslm_f32_exp, NULL, ref_exp, NULL, VMATH_MAX_ULP, 0, 0, 0, 0, 0, 0, 0, 0},
        {"RECIP", tslm_f32_recip, NULL, ref_recip, NULL, VMATH_MAX_ULP, 0, 0, 0, 0, 0, 0, 0, 0},
        {"RSQRT", tslm_f32_rsqrt, NULL, ref_rsqrt, NULL, VMATH_MAX_ULP, 0, 0, 0, 0, 0, 0, 0, 0},
        {"GELU", tslm_f32_gelu, tslm_fast_f32_gelu, ref_gelu, arg_gelu, SIG_MAX_ULP, GELU_PER_U, 0, 0, 0, 0, 0, 0,
         0},
        {"SILU", tslm_f32_silu, tslm_fast_f32_silu, ref_silu, arg_silu, SIG_MAX_ULP, 0, 0, 0, 0, 0, 0, 0, 0}};
    const unsigned nfns = sizeof fns / sizeof fns[0];
    /* Centres of the boundary windows (each also with the sign flipped). */
    const double flush_u = 126 * log(2.0), ovf_u = log(FLT_MAX);
    const uint32_t centres[] = {
        0x00000000u, 0x00800000u, 0x7F800000u, 0x7FC00000u, 0x3F800000u, 0x40000000u, 0x40800000u,
        f32_bits(logf(0x1.fffffep127f)), f32_bits(logf(0x1p-126f)), 0x43000000u,   /* EXP */
        0x7E800000u, 0x7F000000u, 0x7F7FFFFFu,                                      /* RECIP */
        arg_at(arg_gelu, flush_u), arg_at(arg_gelu, ovf_u), arg_at(arg_gelu, 128),  /* GELU */
        arg_at(arg_silu, flush_u), arg_at(arg_silu, ovf_u),                         /* SILU */
        f32_bits(cbrtf(FLT_MAX)), f32_bits(sqrtf(FLT_MAX)),
    };
    printf("vmath: every %llu-th input and %u boundary windows; bound %.1f ulp (GELU: %.1f ulp + "
           "%.1f ulp per unit of |u| (1 - s(u)))\n",
           (unsigned long long)step, (unsigned)(2 * sizeof centres / sizeof centres[0]), VMATH_MAX_ULP, SIG_MAX_ULP,
           GELU_PER_U);
    int failed = 0;
    for (unsigned f = 0; f < nfns; f++) {
        vmath_t *v = &fns[f];
        for (uint64_t x = 0; x <= 0xFFFFFFFFull; x += step)
            check(v, (uint32_t)x);
        for (unsigned c = 0; c < sizeof centres / sizeof centres[0]; c++)
            for (uint32_t s = 0; s < 2; s++)
                for (int d = -256; d < 256; d++)
                    check(v, (centres[c] ^ (s << 31)) + (uint32_t)d);
        printf("vmath %s: max error %.3f ulp at 0x%08X (%.9g); at most %.3f of the bound, at 0x%08X (%.9g); "
               "%llu inputs, %ld outside the rules\n",
               v->name, v->max_ulp, v->max_at, ref_f(v->max_at), v->max_frac, v->frac_at, ref_f(v->frac_at),
               (unsigned long long)v->inputs, v->bad);
        if (v->fast && tslm_fast_available())
            printf("vmath %s: fast path against the definition: %llu inputs, %ld differ\n", v->name,
                   (unsigned long long)v->inputs, v->fast_diff);
        failed += v->bad != 0 || v->fast_diff != 0;
    }
    printf("vmath: %u passed, %d failed\n", nfns - failed, failed);
    return failed != 0;
}
