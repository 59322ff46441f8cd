/* make bench-model: the golden model's functional GEMM throughput, through the same tiled
 * instruction program the tests use (DMA, LOADW, MATMUL, DMA), at 256^3 and 1024^3, int8 and
 * bf16, default configuration. Prints GMAC/s (wall clock, one thread) and spot-checks results
 * against exact integer / host float references so a fast wrong answer cannot pass. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemm_prog.h"
#include "ref.h"
#include "test_util.h"
#include "tslm.h"

static int push_model(void *ctx, const tsl_insn_t *i)
{
    return tslm_push((tslm_t *)ctx, i->w) == TSLM_OK ? 0 : -1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Returns the number of spot-check mismatches. */
static int bench(tslm_t *m, uint32_t dtype, uint32_t s, tu_rng_t *rng)
{
    uint32_t n = m->cfg.n, es = tsl_dtype_bytes(dtype);
    gemm_prog_t g = {n, dtype, s, s, s, 0, s * s * es, 2 * s * s * es, m->cfg.acc_bytes};
    uint8_t *hbm = tslm_hbm(m);
    for (uint32_t i = 0; i < 2 * s * s; i++) {
        if (dtype == TSL_DTYPE_INT8) {
            hbm[i] = (uint8_t)tu_next(rng);
        } else {   /* ordinary bf16 values in [-2, 2) */
            uint16_t h = (uint16_t)(0x3C00u + tu_below(rng, 0x400)) | (uint16_t)((tu_next(rng) & 1) << 15);
            memcpy(hbm + 2 * i, &h, 2);
        }
    }
    double t0 = now();
    int rc = gemm_prog(&g, push_model, m);
    tslm_run(m);
    double dt = now() - t0;
    double macs = (double)s * s * s;
    printf("%-5s %5u^3  %8.3f s  %7.3f GMAC/s%s\n", tsl_dtype_name(dtype), s, dt, macs / dt * 1e-9,
           rc ? "  (program rejected)" : "");
    int bad = rc != 0;
    unsigned csr = ref_fp_ftz_daz();
    for (int t = 0; t < 200; t++) {
        uint32_t i = (uint32_t)tu_below(rng, s), j = (uint32_t)tu_below(rng, s), got;
        uint32_t want = ref_gemm_elem(hbm + g.a, hbm + g.b, dtype == TSL_DTYPE_BF16, s, s, n, i, j);
        memcpy(&got, hbm + g.c + ((size_t)i * s + j) * 4, 4);
        if (want != got && bad++ == 0)
            printf("  mismatch C[%u][%u]: expected 0x%08x got 0x%08x\n", i, j, want, got);
    }
    ref_fp_restore(csr);
    return bad;
}

/* Usage: bench_model [SIZE...]   (default 256 1024) */
int main(int argc, char **argv)
{
    tslm_t m;
    tslm_cfg_t cfg = tslm_cfg_default();
    if (tslm_init(&m, &cfg) != TSLM_OK) {
        fprintf(stderr, "bench-model: cannot allocate the model\n");
        return 1;
    }
    tu_rng_t rng;
    tu_seed(&rng, 1);
    printf("golden model GEMM throughput, N=%u, one thread (tiled DMA/LOADW/MATMUL program)\n", cfg.n);
    int bad = 0;
    uint32_t sizes[8] = {256, 1024}, nsizes = argc > 1 ? 0 : 2;
    for (int i = 1; i < argc && nsizes < 8; i++) {
        unsigned long v = strtoul(argv[i], NULL, 10);
        if (v == 0 || v % cfg.n || v > 4096) {
            fprintf(stderr, "bench-model: size %s is not a multiple of %u in 1..4096\n", argv[i], cfg.n);
            tslm_free(&m);
            return 2;
        }
        sizes[nsizes++] = (uint32_t)v;
    }
    for (uint32_t dt = TSL_DTYPE_INT8; dt <= TSL_DTYPE_BF16; dt++)
        for (unsigned s = 0; s < nsizes; s++)
            bad += bench(&m, dt, sizes[s], &rng);
    tslm_free(&m);
    printf("spot checks: %s\n", bad ? "FAILED" : "all match the references");
    return bad ? 1 : 0;
}
