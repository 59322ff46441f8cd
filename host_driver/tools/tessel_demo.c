/* tessel-demo: the inputs and the checker of `make demo` (mk/cli.mk).
 *   tessel-demo gen DIR M N K [SEED]   writes DIR/a.npy (M x K), b.npy (K x N), bias.npy (N), all
 *                                      float32: random values in (-2, 2) that are NOT bf16-exact,
 *                                      so the library's rounding on the way in is exercised
 *   tessel-demo check DIR              DIR/c_sim.npy (from `tessel gemm --backend sim --bias
 *                                      --relu`), c_model.npy (the same on the model backend) and
 *                                      stats_sim.json (its --stats line): both results must equal
 *                                      the plain C reference (tessel_gemm_ref.h) bit for bit;
 *                                      prints the cycles and the MXU utilisation.
 * Exit code 0 when everything matches, 1 on any mismatch or error.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel_gemm_ref.h"
#include "tessel_npy.h"

static uint64_t rng_state;

static uint32_t rng_next(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 32);
}

static int load(const char *dir, const char *name, tessel_npy_t *out)
{
    char path[1024], err[200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (tessel_npy_load(path, out, err, sizeof err) != TESSEL_OK) {
        fprintf(stderr, "demo: %s: %s\n", path, err);
        return -1;
    }
    return 0;
}

static int save(const char *dir, const char *name, uint32_t ndim, const uint64_t *shape, const float *data)
{
    char path[1024], err[200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (tessel_npy_save(path, TESSEL_NPY_F4, ndim, shape, data, err, sizeof err) != TESSEL_OK) {
        fprintf(stderr, "demo: %s: %s\n", path, err);
        return -1;
    }
    return 0;
}

static float rand_float(float range)
{
    return ((float)(rng_next() >> 8) / 8388608.0f - 1.0f) * range;   /* (-range, range), 24 bits */
}

static int gen(const char *dir, uint32_t m, uint32_t n, uint32_t k, uint64_t seed)
{
    rng_state = seed;
    float *a = malloc((size_t)m * k * 4), *b = malloc((size_t)k * n * 4), *bias = malloc((size_t)n * 4);
    int rc = 1;
    if (a && b && bias) {
        for (size_t i = 0; i < (size_t)m * k; i++)
            a[i] = rand_float(2.0f);
        for (size_t i = 0; i < (size_t)k * n; i++)
            b[i] = rand_float(2.0f);
        for (size_t i = 0; i < n; i++)
            bias[i] = rand_float(4.0f);
        uint64_t sa[2] = {m, k}, sb[2] = {k, n}, sc[1] = {n};
        rc = save(dir, "a.npy", 2, sa, a) || save(dir, "b.npy", 2, sb, b) || save(dir, "bias.npy", 1, sc, bias);
    } else {
        fprintf(stderr, "demo: out of memory\n");
    }
    free(a);
    free(b);
    free(bias);
    return rc;
}

/* A number field of a one-line JSON object ("key": value); -1 when absent. */
static double json_num(const char *js, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(js, pat);
    return p ? strtod(p + strlen(pat), NULL) : -1.0;
}

static int check(const char *dir)
{
    tessel_npy_t a = {0}, b = {0}, bias = {0}, cs = {0}, cm = {0};
    char js[2048] = "", path[1024];
    int bad = 1;
    snprintf(path, sizeof path, "%s/stats_sim.json", dir);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(js, sizeof js, f)) {
        fprintf(stderr, "demo: %s: no --stats line\n", path);
        if (f)
            fclose(f);
        return 1;
    }
    fclose(f);
    if (load(dir, "a.npy", &a) || load(dir, "b.npy", &b) || load(dir, "bias.npy", &bias) ||
        load(dir, "c_sim.npy", &cs) || load(dir, "c_model.npy", &cm))
        goto out;
    uint32_t m = (uint32_t)a.shape[0], k = (uint32_t)a.shape[1], n = (uint32_t)b.shape[1];
    double mxu_n = json_num(js, "mxu_n");
    if (a.ndim != 2 || b.ndim != 2 || b.shape[0] != k || bias.ndim != 1 || bias.shape[0] != n ||
        a.dtype != TESSEL_NPY_F4 || b.dtype != TESSEL_NPY_F4 || bias.dtype != TESSEL_NPY_F4 || mxu_n < 1) {
        fprintf(stderr, "demo: unexpected inputs or stats line\n");
        goto out;
    }
    for (int w = 0; w < 2; w++) {
        tessel_npy_t *c = w ? &cm : &cs;
        if (c->ndim != 2 || c->shape[0] != m || c->shape[1] != n || c->dtype != TESSEL_NPY_F4) {
            fprintf(stderr, "demo: c_%s.npy is not a %ux%u float32 matrix\n", w ? "model" : "sim", m, n);
            goto out;
        }
    }
    tessel_ref_gemm_t g = {m, n, k, (uint32_t)mxu_n, 1, 0, 1, 1.0f, 0, 0, 0};
    uint64_t diff_sim = 0, diff_model = 0, diff_sm = 0, relu0 = 0;
    unsigned csr = ref_fp_ftz_daz();
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            size_t e = (size_t)i * n + j;
            uint32_t want = tessel_ref_gemm_elem(&g, a.data, b.data, bias.data, i, j), s, mo;
            memcpy(&s, (char *)cs.data + 4 * e, 4);
            memcpy(&mo, (char *)cm.data + 4 * e, 4);
            relu0 += want == 0;
            if (s != want && diff_sim++ == 0)
                printf("demo: MISMATCH sim   C[%u][%u] = 0x%08x (%g), reference 0x%08x (%g)\n", i, j, s,
                       (double)ref_f(s), want, (double)ref_f(want));
            if (mo != want && diff_model++ == 0)
                printf("demo: MISMATCH model C[%u][%u] = 0x%08x (%g), reference 0x%08x (%g)\n", i, j, mo,
                       (double)ref_f(mo), want, (double)ref_f(want));
            diff_sm += s != mo;
        }
    ref_fp_restore(csr);
    printf("demo: %ux%ux%u bf16 GEMM + bias + ReLU: sim vs reference %" PRIu64 " mismatches, model vs "
           "reference %" PRIu64 ", sim vs model %" PRIu64 " (of %" PRIu64 " values, %" PRIu64 " zeroed by ReLU)\n",
           m, n, k, diff_sim, diff_model, diff_sm, (uint64_t)m * n, relu0);
    double cycles = json_num(js, "cycles"), util = json_num(js, "mxu_utilization");
    double roof = json_num(js, "roofline_cycles"), wall = json_num(js, "wall_seconds");
    printf("demo: simulated SoC: %.0f cycles, MXU utilisation %.1f%% (%.0f MACs on a %.0fx%.0f array), "
           "roofline %.0f cycles, %.1f s wall (%.0f cycles/s)\n",
           cycles, 100.0 * util, json_num(js, "macs"), mxu_n, mxu_n, roof, wall, wall > 0 ? cycles / wall : 0.0);
    bad = diff_sim || diff_model || diff_sm;
    printf("demo: %s\n", bad ? "FAILED" : "PASSED: the simulated SoC, the model and the C reference agree bit for bit");
out:
    tessel_npy_free(&a);
    tessel_npy_free(&b);
    tessel_npy_free(&bias);
    tessel_npy_free(&cs);
    tessel_npy_free(&cm);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc >= 6 && !strcmp(argv[1], "gen")) {
        uint32_t d[3];
        for (int i = 0; i < 3; i++) {
            char *end;
            unsigned long v = strtoul(argv[3 + i], &end, 0);
            if (*end || v == 0 || v > 65536) {
                fprintf(stderr, "demo: bad size '%s'\n", argv[3 + i]);
                return 1;
            }
            d[i] = (uint32_t)v;
        }
        return gen(argv[2], d[0], d[1], d[2], argc > 6 ? strtoull(argv[6], NULL, 0) : 1);
    }
    if (argc == 3 && !strcmp(argv[1], "check"))
        return check(argv[2]);
    fprintf(stderr, "usage: tessel-demo gen DIR M N K [SEED] | tessel-demo check DIR\n");
    return 1;
}
