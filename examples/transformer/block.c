/* block: one transformer encoder block in bf16 on a Tessel device, every op a libtessel command
 * (docs/networks.md, "A transformer block").
 *
 * usage: block [--backend model|sim] [--heads H] DIR OUT.npy
 *
 * Post-LN, as torch.nn.TransformerEncoderLayer with norm_first=False, GELU in its tanh form:
 *   x1 = LayerNorm1(x + MHA(x)),  y = LayerNorm2(x1 + W2 GELU(W1 x1 + b1) + b2),  eps 1e-5.
 * DIR holds float32 .npy files, every weight as K x N (in x out: torch's weight transposed):
 *   x (L x D); wqkv (D x 3D: the Q, K and V projections side by side), bqkv (3D); wo (D x D), bo (D);
 *   ln1_g, ln1_b (D); w1 (D x F), b1 (F); w2 (F x D), b2 (D); ln2_g, ln2_b (D).
 * Head h owns columns h*D/H .. (h+1)*D/H - 1 of Q, K, V and of the attention output. The device runs
 * every projection (tessel_gemm: bf16 in, FP32 out, bias), with the residual adds and GELU in their
 * GEMM's epilogue (TESSEL_EPILOGUE_ADD_C: the output starts as the residual; _GELU), the attention (tessel_attention,
 * the heads as its batch) and the norms (tessel_layernorm, FP32 in and out); the host only moves the
 * Q/K/V columns into per-head blocks and back, and copies each residual into its GEMM's output. Writes y (L x D) to OUT.npy and prints one JSON line: the device statistics of the
 * whole block (tessel_stats, from a reset before the first step; the SoC's cycles on the sim backend,
 * cycles_timed) and each step's commands and cycles.
 * Exit code: 0 ok, 1 device or library error, 2 usage or input error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel.h"
#include "tessel_npy.h"

#define EPS 1e-5f

/* The input files, and their shapes in the sizes L, D, 3D (T) and F: "LD" is L x D. */
enum { X, WQKV, BQKV, WO, BO, LN1_G, LN1_B, W1, B1, W2, B2, LN2_G, LN2_B, NFILES };
static const char *const NAME[NFILES] = {"x",  "wqkv", "bqkv", "wo", "bo",    "ln1_g", "ln1_b",
                                         "w1", "b1",   "w2",   "b2", "ln2_g", "ln2_b"};
static const char *const SHAPE[NFILES] = {"LD", "DT", "T", "DD", "D", "D", "D", "DF", "F", "FD", "D", "D", "D"};

#define NSTEPS 7                   /* qkv, attention, out+add1, norm1, ffn1+gelu, ffn2+add2, norm2 */

typedef struct {
    const char *name;
    uint64_t commands, cycles;
} step_t;

typedef struct {
    tessel_dev_t *dev;
    uint32_t l, d, f, heads;
    const float *in[NFILES];
    step_t step[NSTEPS];           /* each library call's share of the statistics */
    uint32_t nsteps;
    tessel_stats_t seen;           /* the statistics after the last step */
} block_t;

/* 0 when st is TESSEL_OK, else 1 after a message. */
static int ok(const block_t *b, const char *what, tessel_status_t st)
{
    if (st == TESSEL_OK)
        return 0;
    fprintf(stderr, "block: %s: %s (%s)\n", what, tessel_strerror(st), tessel_last_error(b->dev));
    return 1;
}

/* ok() for the library call of step `name`, whose commands and cycles it records. */
static int step(block_t *b, const char *name, tessel_status_t st)
{
    tessel_stats_t now;
    if (ok(b, name, st) || ok(b, "tessel_stats", tessel_stats(b->dev, &now)))
        return 1;
    if (b->nsteps < NSTEPS)
        b->step[b->nsteps++] = (step_t){name, now.commands - b->seen.commands, now.cycles - b->seen.cycles};
    b->seen = now;
    return 0;
}

/* c (m x n) = a (m x k) b (k x n) + bias, then GELU (gelu) or + res (res not NULL: c starts as a
 * copy of it): bf16 inputs, FP32 accumulation and output, one GEMM command. */
static tessel_status_t gemm(const block_t *b, uint32_t m, uint32_t k, uint32_t n, const float *a, const float *w,
                            const float *bias, int gelu, const float *res, float *c)
{
    tessel_gemm_t g = {.m = m, .n = n, .k = k, .in_dtype = TESSEL_BF16, .out_dtype = TESSEL_FP32, .a = a, .lda = k,
                       .b = w, .ldb = n, .c = c, .ldc = n, .bias = bias, .scale = 1.0f,
                       .epilogue = gelu ? TESSEL_EPILOGUE_GELU : res ? TESSEL_EPILOGUE_ADD_C : TESSEL_EPILOGUE_NONE};
    if (res)
        memcpy(c, res, (size_t)m * n * sizeof(float));
    return tessel_gemm(b->dev, &g, NULL);
}

/* An L x n matrix for the row functions, FP32 in and out. */
static tessel_rows_t rows(const block_t *b, uint32_t n, const float *x, float *y)
{
    return (tessel_rows_t){.m = b->l, .n = n, .in_dtype = TESSEL_FP32, .out_dtype = TESSEL_FP32,
                           .x = x, .ldx = n, .y = y, .ldy = n};
}

/* Part `part` (0 Q, 1 K, 2 V) of an L-row matrix with row stride `stride` (qkv, L x 3D; or the attention
 * output, L x D, part 0), head h in its columns h*D/H.. <-> the dense head blocks hs (H x L x D/H);
 * to_heads says which way. */
static void move_heads(const block_t *b, float *mat, size_t stride, uint32_t part, float *hs, int to_heads)
{
    const uint32_t hd = b->d / b->heads;
    for (uint32_t h = 0; h < b->heads; h++)
        for (uint32_t i = 0; i < b->l; i++) {
            float *wide = mat + i * stride + part * b->d + h * hd, *head = hs + ((size_t)h * b->l + i) * hd;
            memcpy(to_heads ? head : wide, to_heads ? wide : head, hd * sizeof(float));
        }
}

/* The next n floats of the arena at *p. */
static float *take(float **p, size_t n)
{
    float *r = *p;
    *p += n;
    return r;
}

/* y = the block on x; every step one library call (one or more device commands). */
static int run(block_t *b, float *y)
{
    const size_t ld = (size_t)b->l * b->d, lf = (size_t)b->l * b->f;
    float *mem = malloc((11 * ld + lf) * sizeof(float)), *p = mem;
    if (!mem) {
        fprintf(stderr, "block: out of memory\n");
        return 1;
    }
    float *qkv = take(&p, 3 * ld), *q = take(&p, ld), *k = take(&p, ld), *v = take(&p, ld), *o = take(&p, ld);
    float *att = take(&p, ld), *r1 = take(&p, ld), *x1 = take(&p, ld), *r2 = take(&p, ld), *g = take(&p, lf);
    const float *const *in = b->in;
    tessel_attention_t mha = {.batch = b->heads, .lq = b->l, .lk = b->l, .d = b->d / b->heads, .dv = b->d / b->heads,
                              .q = q, .k = k, .v = v, .o = o, .scale = 0.0f, .causal = 0, .out_dtype = TESSEL_FP32};
    tessel_rows_t ln1 = rows(b, b->d, r1, x1), ln2 = rows(b, b->d, r2, y);
    int rc = step(b, "qkv", gemm(b, b->l, b->d, 3 * b->d, in[X], in[WQKV], in[BQKV], 0, NULL, qkv));
    if (!rc) {
        for (uint32_t part = 0; part < 3; part++)
            move_heads(b, qkv, 3u * b->d, part, part == 0 ? q : part == 1 ? k : v, 1);
        rc = step(b, "attention", tessel_attention(b->dev, &mha, NULL));
    }
    if (!rc)
        move_heads(b, att, b->d, 0, o, 0);
    rc = rc || step(b, "out+add1", gemm(b, b->l, b->d, b->d, att, in[WO], in[BO], 0, in[X], r1)) ||
         step(b, "norm1", tessel_layernorm(b->dev, &ln1, in[LN1_G], in[LN1_B], EPS, NULL)) ||
         step(b, "ffn1+gelu", gemm(b, b->l, b->d, b->f, x1, in[W1], in[B1], 1, NULL, g)) ||
         step(b, "ffn2+add2", gemm(b, b->l, b->f, b->d, g, in[W2], in[B2], 0, x1, r2)) ||
         step(b, "norm2", tessel_layernorm(b->dev, &ln2, in[LN2_G], in[LN2_B], EPS, NULL));
    free(mem);
    return rc;
}

/* Load DIR's files into npy[] and check their shapes; 0, or 2 after a message. */
static int load(const char *dir, uint32_t heads, tessel_npy_t *npy, block_t *b)
{
    char path[4096], err[256];
    for (int i = 0; i < NFILES; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, NAME[i]);
        if (tessel_npy_load(path, &npy[i], err, sizeof err) != TESSEL_OK) {
            fprintf(stderr, "block: %s: %s\n", path, err);
            return 2;
        }
        if (npy[i].dtype != TESSEL_NPY_F4) {
            fprintf(stderr, "block: %s: float32 expected\n", path);
            return 2;
        }
        b->in[i] = npy[i].data;
    }
    b->l = (uint32_t)npy[X].shape[0];
    b->d = (uint32_t)npy[X].shape[1];
    b->f = (uint32_t)npy[W1].shape[1];
    b->heads = heads;
    for (int i = 0; i < NFILES; i++) {
        int good = npy[i].ndim == strlen(SHAPE[i]);
        for (uint32_t j = 0; good && j < npy[i].ndim; j++) {
            char s = SHAPE[i][j];
            good = npy[i].shape[j] == (s == 'L' ? b->l : s == 'D' ? b->d : s == 'T' ? 3u * b->d : b->f);
        }
        if (!good || !b->l || !b->d || !b->f) {
            fprintf(stderr, "block: %s/%s.npy: the shape is not %s (L, D from x, F from w1, T = 3D)\n", dir, NAME[i],
                    SHAPE[i]);
            return 2;
        }
    }
    if (!heads || b->d % heads) {
        fprintf(stderr, "block: %u heads do not divide d_model %u\n", heads, b->d);
        return 2;
    }
    return 0;
}

/* One JSON line: the device statistics of the block, and of each step. */
static int print_stats(const block_t *b, const char *backend)
{
    const tessel_stats_t s = b->seen;
    tessel_info_t info;
    if (ok(b, "tessel_info", tessel_info(b->dev, &info)))
        return 1;
    /* As `tessel --stats`: the model backend is not timed, its cycles can be below the MXU bound, so the
     * ratio is clamped to 1 (cycles_timed says whether the cycles are the SoC's clock). */
    double nn = (double)info.n * info.n, util = s.cycles ? (double)s.macs / (nn * (double)s.cycles) : 0.0;
    util = util > 1.0 ? 1.0 : util;
    printf("{\"backend\": \"%s\", \"mxu_n\": %u, \"commands\": %" PRIu64 ", \"cycles\": %" PRIu64
           ", \"macs\": %" PRIu64 ", \"mxu_utilization\": %.6f, \"hbm_bytes\": %" PRIu64
           ", \"cycles_timed\": %s, \"steps\": [",
           backend, info.n, s.commands, s.cycles, s.macs, util, s.hbm_bytes,
           strcmp(backend, "model") ? "true" : "false");
    for (uint32_t i = 0; i < b->nsteps; i++)
        printf("%s{\"step\": \"%s\", \"commands\": %" PRIu64 ", \"cycles\": %" PRIu64 "}", i ? ", " : "",
               b->step[i].name, b->step[i].commands, b->step[i].cycles);
    printf("]}\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *backend = "model", *pos[2] = {NULL, NULL};
    uint32_t heads = 4, npos = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            backend = argv[++i];
        else if (!strcmp(argv[i], "--heads") && i + 1 < argc)
            heads = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && npos < 2)
            pos[npos++] = argv[i];
        else
            npos = 3;
    }
    if (npos != 2) {
        fprintf(stderr, "usage: block [--backend model|sim] [--heads H] DIR OUT.npy\n");
        return 2;
    }
    tessel_npy_t npy[NFILES];
    memset(npy, 0, sizeof npy);
    block_t b = {0};
    int rc = load(pos[0], heads, npy, &b);
    float *y = rc ? NULL : malloc((size_t)b.l * b.d * sizeof(float));
    if (!rc && !y) {
        fprintf(stderr, "block: out of memory\n");
        rc = 1;
    }
    tessel_status_t st = rc ? TESSEL_OK : tessel_open(&b.dev, backend, NULL);
    if (st != TESSEL_OK) {
        fprintf(stderr, "block: cannot open the %s backend: %s (%s)\n", backend, tessel_strerror(st),
                tessel_last_error(NULL));
        rc = 1;
    }
    if (!rc) {
        tessel_stats_reset(b.dev);
        rc = run(&b, y) || print_stats(&b, backend);
    }
    char err[256];
    uint64_t shape[2] = {b.l, b.d};
    if (!rc && tessel_npy_save(pos[1], TESSEL_NPY_F4, 2, shape, y, err, sizeof err) != TESSEL_OK) {
        fprintf(stderr, "block: %s: %s\n", pos[1], err);
        rc = 1;
    }
    tessel_close(b.dev);
    for (int i = 0; i < NFILES; i++)
        tessel_npy_free(&npy[i]);
    free(y);
    return rc;
}
