/* Helper of tests/cli/test_cli.py: writes random GEMM inputs and checks `tessel gemm` results
 * against the plain C reference (host_driver/tools/tessel_gemm_ref.h).
 *   cli_ref gen DIR int8|f32 M N K SEED      DIR/a.npy, b.npy, bias.npy (int32 or float32)
 *   cli_ref check DIR int8|f32 MXU_N [--bias] [--relu] [--narrow] [--rq S SH ZP]   DIR/c.npy
 * check prints the first mismatch and exits 1 on any, 0 when C equals the reference bit for bit.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel_gemm_ref.h"
#include "tessel_npy.h"

static uint64_t rs;
static uint32_t rnd(void)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rs >> 33);
}

static int path_of(char *buf, size_t cap, const char *dir, const char *name)
{
    return snprintf(buf, cap, "%s/%s", dir, name) < (int)cap;
}

static int save(const char *dir, const char *name, tessel_npy_dtype_t dt, uint32_t nd, uint64_t d0, uint64_t d1,
                const void *data)
{
    char p[1024], err[200];
    uint64_t sh[2] = {d0, d1};
    path_of(p, sizeof p, dir, name);
    if (tessel_npy_save(p, dt, nd, sh, data, err, sizeof err) != TESSEL_OK)
        return fprintf(stderr, "cli_ref: %s: %s\n", p, err), 1;
    return 0;
}

static int load(const char *dir, const char *name, tessel_npy_t *t)
{
    char p[1024], err[200];
    path_of(p, sizeof p, dir, name);
    if (tessel_npy_load(p, t, err, sizeof err) != TESSEL_OK)
        return fprintf(stderr, "cli_ref: %s: %s\n", p, err), 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 8 && !strcmp(argv[1], "gen")) {
        const char *dir = argv[2];
        int f32 = !strcmp(argv[3], "f32");
        uint32_t m = (uint32_t)atoi(argv[4]), n = (uint32_t)atoi(argv[5]), k = (uint32_t)atoi(argv[6]);
        rs = strtoull(argv[7], NULL, 0);
        size_t na = (size_t)m * k, nb = (size_t)k * n;
        void *a = malloc(na * 4), *b = malloc(nb * 4), *bias = malloc((size_t)n * 4);
        int rc;
        if (!f32) {
            for (size_t i = 0; i < na; i++)
                ((int8_t *)a)[i] = (int8_t)rnd();
            for (size_t i = 0; i < nb; i++)
                ((int8_t *)b)[i] = (int8_t)rnd();
            for (size_t i = 0; i < n; i++)
                ((int32_t *)bias)[i] = (int32_t)(rnd() % 40001) - 20000;
            rc = save(dir, "a.npy", TESSEL_NPY_I1, 2, m, k, a) || save(dir, "b.npy", TESSEL_NPY_I1, 2, k, n, b) ||
                 save(dir, "bias.npy", TESSEL_NPY_I4, 1, n, 0, bias);
        } else {
            for (size_t i = 0; i < na; i++)
                ((float *)a)[i] = ((float)rnd() / 2147483648.0f - 1.0f) * 3.0f;
            for (size_t i = 0; i < nb; i++)
                ((float *)b)[i] = ((float)rnd() / 2147483648.0f - 1.0f) * 3.0f;
            for (size_t i = 0; i < n; i++)
                ((float *)bias)[i] = ((float)rnd() / 2147483648.0f - 1.0f) * 8.0f;
            rc = save(dir, "a.npy", TESSEL_NPY_F4, 2, m, k, a) || save(dir, "b.npy", TESSEL_NPY_F4, 2, k, n, b) ||
                 save(dir, "bias.npy", TESSEL_NPY_F4, 1, n, 0, bias);
        }
        free(a);
        free(b);
        free(bias);
        return rc;
    }
    if (argc < 5 || strcmp(argv[1], "check")) {
        fprintf(stderr, "usage: cli_ref gen DIR int8|f32 M N K SEED | cli_ref check DIR int8|f32 MXU_N [opts]\n");
        return 2;
    }
    const char *dir = argv[2];
    tessel_ref_gemm_t g = {0, 0, 0, (uint32_t)atoi(argv[4]), !strcmp(argv[3], "f32"), 0, 0, 1.0f, 1, 0, 0};
    int use_bias = 0;
    for (int i = 5; i < argc; i++) {
        if (!strcmp(argv[i], "--bias"))
            use_bias = 1;
        else if (!strcmp(argv[i], "--relu"))
            g.relu = 1;
        else if (!strcmp(argv[i], "--narrow"))
            g.out_narrow = 1;
        else if (!strcmp(argv[i], "--rq") && i + 3 < argc) {
            g.rq_scale = (int32_t)strtol(argv[i + 1], NULL, 0);
            g.rq_shift = (uint32_t)strtoul(argv[i + 2], NULL, 0);
            g.rq_zp = (int32_t)strtol(argv[i + 3], NULL, 0);
            i += 3;
        } else {
            fprintf(stderr, "cli_ref: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    tessel_npy_t a = {0}, b = {0}, bias = {0}, c = {0};
    int bad = 1;
    if (load(dir, "a.npy", &a) || load(dir, "b.npy", &b) || (use_bias && load(dir, "bias.npy", &bias)) ||
        load(dir, "c.npy", &c))
        goto out;
    g.m = (uint32_t)a.shape[0];
    g.k = (uint32_t)a.shape[1];
    g.nc = (uint32_t)b.shape[1];
    tessel_npy_dtype_t want = g.bf16 ? TESSEL_NPY_F4 : g.out_narrow ? TESSEL_NPY_I1 : TESSEL_NPY_I4;
    if (c.ndim != 2 || c.shape[0] != g.m || c.shape[1] != g.nc || c.dtype != want) {
        fprintf(stderr, "cli_ref: C is not a %ux%u %s matrix\n", g.m, g.nc, tessel_npy_dtype_descr(want));
        goto out;
    }
    unsigned csr = ref_fp_ftz_daz();
    uint64_t diffs = 0;
    for (uint32_t i = 0; i < g.m; i++)
        for (uint32_t j = 0; j < g.nc; j++) {
            uint32_t exp = tessel_ref_gemm_elem(&g, a.data, b.data, use_bias ? bias.data : NULL, i, j), got;
            size_t e = (size_t)i * g.nc + j;
            if (c.dtype == TESSEL_NPY_I1)
                got = (uint32_t)(int32_t)((const int8_t *)c.data)[e];
            else
                memcpy(&got, (const char *)c.data + 4 * e, 4);
            if (got != exp && diffs++ == 0)
                printf("cli_ref: C[%u][%u] = 0x%08x, reference 0x%08x\n", i, j, got, exp);
        }
    ref_fp_restore(csr);
    if (diffs)
        printf("cli_ref: %llu of %llu values differ\n", (unsigned long long)diffs, (unsigned long long)g.m * g.nc);
    bad = diffs != 0;
out:
    tessel_npy_free(&a);
    tessel_npy_free(&b);
    tessel_npy_free(&bias);
    tessel_npy_free(&c);
    return bad;
}
