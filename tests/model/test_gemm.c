/* GEMM on the golden model, through tiled instruction programs, against independent references:
 *   int8: exact int64 arithmetic;
 *   bf16: the host CPU's float with FTZ/DAZ, in the documented order (per K tile of N: s = +0,
 *         s += a*b for k in order; C = s for the first tile, C += s after).
 * For N = 4, 8, 16, 32, random shapes; bf16 inputs include zeros, negatives, extreme exponents,
 * Inf and NaN. Each program also runs under the random schedule, which must give the same bytes, and
 * on a model made with TESSEL_MODEL_SOFTFLOAT=1 (the definition's soft float), which must give the
 * same bytes as the default fast path; the number of results compared is printed.
 * Usage: test_gemm [SEED] */
#define _POSIX_C_SOURCE 200112L   /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_prog.h"
#include "ref.h"
#include "test_util.h"
#include "tslm.h"
#include "tslm_fast.h"

static int push_model(void *ctx, const tsl_insn_t *i)
{
    return tslm_push((tslm_t *)ctx, i->w) == TSLM_OK ? 0 : -1;
}

static uint16_t rand_bf16(tu_rng_t *r)
{
    uint16_t sign = (uint16_t)((tu_next(r) & 1) << 15);
    /* Inf and NaN are rare: one in a dot product makes the whole result Inf or NaN. */
    uint64_t special = tu_below(r, 2000);
    if (special == 0)
        return sign | 0x7F80u;                                       /* infinity */
    if (special == 1)
        return sign | 0x7FC1u;                                       /* NaN */
    switch (tu_below(r, 40)) {
    case 0: case 1: case 2: return sign;                             /* zero */
    case 3: return sign | (uint16_t)(tu_below(r, 0x7F) + 1);         /* subnormal */
    case 4: return sign | (uint16_t)((0xF0 + tu_below(r, 0xE)) << 7) | (uint16_t)tu_below(r, 128); /* huge */
    case 5: return sign | (uint16_t)((1 + tu_below(r, 8)) << 7) | (uint16_t)tu_below(r, 128);       /* tiny */
    default: return sign | (uint16_t)((0x70 + tu_below(r, 0x20)) << 7) | (uint16_t)tu_below(r, 128);
    }
}

static uint64_t soft_compared, soft_differ;   /* results compared, and differing, fast against definition */

static int run_case(tu_t *t, uint32_t n, uint32_t dtype, uint32_t m, uint32_t k, uint32_t nc)
{
    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.n = n;
    cfg.hbm_bytes = 1u << 22;
    tslm_t mod[3];   /* push order, random schedule, push order on the definition */
    if (tslm_init(&mod[0], &cfg) || tslm_init(&mod[1], &cfg))
        return tu_check(t, 0, "tslm_init");
    setenv("TESSEL_MODEL_SOFTFLOAT", "1", 1);
    tslm_status_t st = tslm_init(&mod[2], &cfg);
    unsetenv("TESSEL_MODEL_SOFTFLOAT");
    if (st)
        return tu_check(t, 0, "tslm_init");
    tu_check(t, mod[2].softfloat && mod[0].softfloat == !tslm_fast_available(),
             "TESSEL_MODEL_SOFTFLOAT=1 selects the definition, its absence the fast path");
    tslm_set_schedule(&mod[1], TSLM_SCHED_RANDOM, t->seed);
    uint32_t es = tsl_dtype_bytes(dtype);
    gemm_prog_t g = {n, dtype, m, k, nc, 0, 0, 0, cfg.acc_bytes};
    g.b = (m * k * es + 63) & ~63u;
    g.c = (g.b + k * nc * es + 63) & ~63u;
    uint8_t *a = malloc((size_t)m * k * es), *b = malloc((size_t)k * nc * es);
    for (size_t i = 0; i < (size_t)m * k; i++) {
        if (dtype == TSL_DTYPE_INT8) a[i] = (uint8_t)tu_next(&t->rng);
        else { uint16_t h = rand_bf16(&t->rng); memcpy(a + 2 * i, &h, 2); }
    }
    for (size_t i = 0; i < (size_t)k * nc; i++) {
        if (dtype == TSL_DTYPE_INT8) b[i] = (uint8_t)tu_next(&t->rng);
        else { uint16_t h = rand_bf16(&t->rng); memcpy(b + 2 * i, &h, 2); }
    }
    for (int s = 0; s < 3; s++) {
        memcpy(tslm_hbm(&mod[s]) + g.a, a, (size_t)m * k * es);
        memcpy(tslm_hbm(&mod[s]) + g.b, b, (size_t)k * nc * es);
        if (gemm_prog(&g, push_model, &mod[s]))
            tu_check(t, 0, "program rejected: ERR_CODE %u", tslm_reg_read(&mod[s], TSL_TC_ERR_CODE_OFFSET));
        tslm_run(&mod[s]);
    }
    long bad = 0;
    unsigned csr = ref_fp_ftz_daz();
    for (uint32_t i = 0; i < m; i++) {
        for (uint32_t j = 0; j < nc; j++) {
            uint32_t got, want = ref_gemm_elem(a, b, dtype == TSL_DTYPE_BF16, k, nc, n, i, j);
            memcpy(&got, tslm_hbm(&mod[0]) + g.c + ((size_t)i * nc + j) * 4, 4);
            if (want != got && bad++ == 0)
                printf("N=%u %s %ux%ux%u: first mismatch C[%u][%u] (HBM 0x%x): expected 0x%08x got 0x%08x\n",
                       n, tsl_dtype_name(dtype), m, k, nc, i, j, g.c + (i * nc + j) * 4, want, got);
        }
    }
    ref_fp_restore(csr);
    tu_check(t, bad == 0, "N=%u %s %ux%ux%u matches the reference (%ld mismatches)",
             n, tsl_dtype_name(dtype), m, k, nc, bad);
    tu_check(t, memcmp(tslm_hbm(&mod[0]), tslm_hbm(&mod[1]), cfg.hbm_bytes) == 0,
             "N=%u %s %ux%ux%u: random schedule gives the same HBM bytes", n, tsl_dtype_name(dtype), m, k, nc);
    long differ = 0;
    for (uint32_t e = 0; e < m * nc; e++) {
        const uint8_t *f = tslm_hbm(&mod[0]) + g.c + 4 * e, *d = tslm_hbm(&mod[2]) + g.c + 4 * e;
        if (memcmp(f, d, 4) && differ++ == 0)
            printf("N=%u %s: C[%u][%u]: definition 0x%08x, fast path 0x%08x\n", n, tsl_dtype_name(dtype), e / nc,
                   e % nc, (unsigned)(d[0] | d[1] << 8 | d[2] << 16 | (uint32_t)d[3] << 24),
                   (unsigned)(f[0] | f[1] << 8 | f[2] << 16 | (uint32_t)f[3] << 24));
    }
    soft_compared += (uint64_t)m * nc;
    soft_differ += (uint64_t)differ;
    tu_check(t, differ == 0 && memcmp(tslm_hbm(&mod[0]), tslm_hbm(&mod[2]), cfg.hbm_bytes) == 0,
             "N=%u %s %ux%ux%u: the fast path gives the definition's HBM bytes (%ld results differ)", n,
             tsl_dtype_name(dtype), m, k, nc, differ);
    tu_check(t, tslm_reg_read(&mod[0], TSL_TC_PERF_MXU_MACS_LO_OFFSET) == (uint64_t)m * k * nc,
             "MXU_MACS counts M*K*NC");
    free(a);
    free(b);
    tslm_free(&mod[0]);
    tslm_free(&mod[1]);
    tslm_free(&mod[2]);
    return 1;
}

int main(int argc, char **argv)
{
    tu_t t;
    tu_init(&t, "gemm", argc, argv);
    static const uint32_t ns[] = {4, 8, 16, 32};
    for (unsigned ni = 0; ni < 4; ni++) {
        uint32_t n = ns[ni];
        for (uint32_t dt = TSL_DTYPE_INT8; dt <= TSL_DTYPE_BF16; dt++) {
            for (int rep = 0; rep < 3; rep++) {
                uint32_t m = n * (1 + (uint32_t)tu_below(&t.rng, 96 / n + 2));
                uint32_t k = n * (1 + (uint32_t)tu_below(&t.rng, 128 / n + 2));
                uint32_t nc = n * (1 + (uint32_t)tu_below(&t.rng, 64 / n + 2));
                if (rep == 2 && n == 16)
                    m = 1100;   /* more rows than ACC holds: several output blocks */
                run_case(&t, n, dt, m, k, nc);
            }
        }
    }
    printf("gemm: fast path against the definition: %llu results compared, %llu differ\n",
           (unsigned long long)soft_compared, (unsigned long long)soft_differ);
    return tu_done(&t);
}
