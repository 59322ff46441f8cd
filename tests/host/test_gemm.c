/* libtessel tests: GEMM and ELTWISE through the public API (host_driver/include/tessel.h), on the
 * backend named by argv[1] ("model" or "sim"); argv[2] or $SEED replays.
 *
 * Every GEMM (tessel_gemm) and ELTWISE (raw command) result is checked bit-exactly
 *   1. against a model device (a second tessel_open("model"): the golden model + native firmware),
 *   2. against independent C references (exact integers; host float with FTZ/DAZ in the documented
 *      K-block accumulation order, hw/model/ref.h; bf16 rounding by ref_bf16),
 * over every dtype combination and epilogue, strided operands (the padding between rows must stay
 * untouched), fixed shapes 1x1x1, 17x33x65, 300x7x129 and seeded random ones (smaller on sim).
 * Then: COPY/FILL/NOP/FENCE, many outstanding commands (ring wrap, out-of-order waits), stats,
 * every CMD_ERR the host can provoke (surfacing as TESSEL_EDEVICE with the completion's status and
 * detail), the program cache (hits, misses, its bound, tessel_reset), invalid arguments of every public function,
 * each command encoder of device buffers (its refusals, and its command against the host call), timeouts, and checking mode (a clean run,
 * then a provoked divergence -> TESSEL_EMISMATCH with a tessel_last_error() line).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ref.h"
#include "tessel.h"
#include "test_util.h"
#include "tsl_insn.h"
#include "tslm_arith.h"

#define CF(f) (1u << TSL_CMD_FLAG_##f)
#define TMO 600000u

static tu_t T;
static int SIM;
static const char *BACKEND;

static uint32_t rnd(void) { return (uint32_t)tu_next(&T.rng); }
static uint32_t below(uint32_t n) { return (uint32_t)tu_below(&T.rng, n); }
static uint32_t dtb(uint32_t dt) { return dt == TSL_DTYPE_INT8 ? 1u : dt == TSL_DTYPE_BF16 ? 2u : 4u; }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(2);
    }
    return p;
}

/* Random floats: mostly normal values with random low bits (bf16 rounding, ties included), some
 * zeros and bf16-exact subnormals (DAZ). No inf/NaN. */
static float rnd_float(void)
{
    uint32_t r = rnd(), cls = r % 100, sign = (r >> 31) << 31, u;
    if (cls < 3)
        u = sign;
    else if (cls < 5)
        u = sign | ((1u + below(127)) << 16);
    else if (cls < 8)
        u = sign | ((118u + below(18)) << 23) | (below(128) << 16) | 0x8000u;   /* a tie */
    else
        u = sign | ((118u + below(18)) << 23) | (rnd() & 0x7FFFFFu);
    return ref_f(u);
}

/* ------------------------------------------------------------------------------------ GEMM */

typedef struct {
    uint32_t m, n, k;
    tessel_dtype_t in, out;
    int bias, relu, scale;
    tessel_epilogue_t epi;   /* bf16: the last step (GELU, C's old values added, ...) */
} gcase_t;

static const char *dname(tessel_dtype_t t)
{
    return t == TESSEL_INT8 ? "int8" : t == TESSEL_BF16 ? "bf16" : t == TESSEL_INT32 ? "int32" : "fp32";
}

static void gemm_case(tessel_dev_t *d, tessel_dev_t *mdl, uint32_t nn, gcase_t s)
{
    char what[128];
    static const char *const epis[TESSEL_EPILOGUE_COUNT] = TESSEL_EPILOGUE_NAMES;
    const uint32_t post = (uint32_t)s.epi, old_c = tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, post);   /* its code */
    snprintf(what, sizeof what, "[%s] GEMM %ux%ux%u %s->%s bias %d relu %d scale %d %s", BACKEND, s.m, s.n, s.k,
             dname(s.in), dname(s.out), s.bias, s.relu, s.scale, epis[s.epi]);
    int fp = s.in == TESSEL_BF16;
    size_t lda = s.k + below(3), ldb = s.n + below(3), ldc = s.n + below(3), es = fp ? 4 : 1;
    size_t ces = s.out == TESSEL_INT8 ? 1 : 4;
    uint8_t *A = xmalloc(s.m * lda * es), *B = xmalloc(s.k * ldb * es), *bias = xmalloc(4u * s.n);
    uint8_t *C = xmalloc(s.m * ldc * ces), *Cm = xmalloc(s.m * ldc * ces), *E = xmalloc(s.m * ldc * ces);
    for (size_t i = 0; i < s.m * lda; i++)
        fp ? put32(A + 4 * i, ref_u(rnd_float())) : (void)(A[i] = (uint8_t)rnd());
    for (size_t i = 0; i < s.k * ldb; i++)
        fp ? put32(B + 4 * i, ref_u(rnd_float())) : (void)(B[i] = (uint8_t)rnd());
    for (uint32_t j = 0; j < s.n; j++)
        put32(bias + 4 * j, fp ? ref_u(rnd_float()) : ((rnd() & 1) ? rnd() : (uint32_t)((int32_t)below(2001) - 1000)));
    memset(C, 0xA5, s.m * ldc * ces);
    for (size_t i = 0; old_c && i < s.m * ldc; i++)   /* the old C, its padding too */
        put32(C + 4 * i, ref_u(rnd_float()));
    memcpy(Cm, C, s.m * ldc * ces);
    memcpy(E, C, s.m * ldc * ces);
    tessel_gemm_t g = {.m = s.m, .n = s.n, .k = s.k, .in_dtype = s.in, .out_dtype = s.out, .a = A, .lda = lda,
                       .b = B, .ldb = ldb, .c = C, .ldc = ldc, .bias = s.bias ? bias : NULL, .relu = s.relu,
                       .scale = 1.0f, .epilogue = s.epi};
    if (s.scale)
        g.scale = ref_f(((rnd() & 1) << 31) | ((120u + below(14)) << 23) | (rnd() & 0x7FFFFFu));
    if (s.out == TESSEL_INT8) {
        g.rq_scale = (int32_t)(1u + below(1u << 20)) * ((rnd() & 1) ? 1 : -1);
        g.rq_shift = 10u + below(20);
        g.rq_zero_point = (int32_t)below(41) - 20;
    }
    tessel_completion_t cpl;
    int r = tessel_gemm(d, &g, &cpl);
    if (!tu_check(&T, r == TESSEL_OK && cpl.status == 0 && cpl.opcode == TSL_CMD_OP_GEMM,
                  "%s: status %d (%s) cpl.status %d: %s", what, r, tessel_strerror(r), cpl.status,
                  tessel_last_error(d)))
        goto out;
    g.c = Cm;   /* holding C's old values too */
    r = tessel_gemm(mdl, &g, NULL);
    tu_check(&T, r == TESSEL_OK && !memcmp(C, Cm, s.m * ldc * ces), "%s: differs from the model device (%d)", what, r);

    /* independent reference, dense bf16 copies made with ref_bf16 */
    uint8_t *a16 = xmalloc((size_t)s.m * s.k * 2), *b16 = xmalloc((size_t)s.k * s.n * 2);
    unsigned csr = ref_fp_ftz_daz();
    if (fp) {
        for (size_t i = 0; i < s.m; i++)
            for (size_t kk = 0; kk < s.k; kk++)
                put16(a16 + 2 * (i * s.k + kk), ref_bf16(get32(A + 4 * (i * lda + kk))));
        for (size_t kk = 0; kk < s.k; kk++)
            for (size_t j = 0; j < s.n; j++)
                put16(b16 + 2 * (kk * s.n + j), ref_bf16(get32(B + 4 * (kk * ldb + j))));
    }
    for (size_t i = 0; i < s.m; i++)
        for (size_t j = 0; j < s.n; j++) {
            uint8_t *e = E + (i * ldc + j) * ces;
            if (!fp) {
                int64_t sum = 0;
                for (size_t kk = 0; kk < s.k; kk++)
                    sum += (int64_t)(int8_t)A[i * lda + kk] * (int8_t)B[kk * ldb + j];
                uint32_t v = (uint32_t)sum;
                if (s.bias)
                    v += get32(bias + 4 * j);
                if (s.relu && (int32_t)v < 0)
                    v = 0;
                if (s.out == TESSEL_INT8)
                    *e = (uint8_t)ref_sat8(ref_requant((int32_t)v, g.rq_scale, g.rq_shift, g.rq_zero_point));
                else
                    put32(e, v);
                continue;
            }
            /* the model's K padding: zero products for the padded K-block lanes (+0 sums) */
            volatile float acc = 0;
            for (uint32_t kb = 0; kb < s.k; kb += nn) {
                volatile float sb = 0.0f;
                for (uint32_t kk = kb; kk < kb + nn; kk++) {
                    volatile float p = 0.0f * 0.0f;
                    if (kk < s.k)
                        p = ref_f((uint32_t)get16(a16 + 2 * (i * s.k + kk)) << 16) *
                            ref_f((uint32_t)get16(b16 + 2 * (kk * s.n + j)) << 16);
                    sb = sb + p;
                }
                acc = kb == 0 ? sb : acc + sb;
            }
            if (s.scale)
                acc = acc * ref_f(ref_daz(ref_u(g.scale)));
            if (s.bias)
                acc = acc + ref_f(ref_daz(get32(bias + 4 * j)));
            uint32_t v = ref_canon(acc);
            if (s.relu)
                v = ref_max(v, 0);
            if (post && !old_c)
                v = tslm_f32_fn(tsl_gemm_post_op(post), tsl_gemm_post_act(post), v);   /* the VPU function; test_vmath checks it */
            if (old_c) {   /* ADD of the old C, bf16-rounded on its way in for a BF16 C */
                uint32_t old = get32(e);
                uint32_t was = s.out == TESSEL_BF16 ? (uint32_t)ref_bf16(old) << 16 : old;
                volatile float sum = ref_f(v) + ref_f(ref_daz(was));
                v = ref_canon(sum);
            }
            if (s.out == TESSEL_BF16)
                v = (uint32_t)ref_bf16(v) << 16;
            put32(e, v);
        }
    ref_fp_restore(csr);
    size_t bad = 0;
    for (; bad < s.m * ldc * ces; bad++) {
        size_t el = bad / ces;
        int pad = el % ldc >= s.n;
        if (C[bad] != E[bad]) {
            if (fp && !pad) {   /* NaN payloads are not part of the spec */
                size_t q = el * 4;
                if (ref_canon(ref_f(get32(C + q))) == ref_canon(ref_f(get32(E + q))))
                    continue;
            }
            break;
        }
    }
    if (!tu_check(&T, bad == s.m * ldc * ces, "%s: differs from the C reference at C[%zu][%zu] byte %zu: got 0x%02x, expected 0x%02x",
                  what, bad / ces / ldc, bad / ces % ldc, bad % ces, bad < s.m * ldc * ces ? C[bad] : 0,
                  bad < s.m * ldc * ces ? E[bad] : 0))
        (void)0;
    free(a16);
    free(b16);
out:
    free(A); free(B); free(bias); free(C); free(Cm); free(E);
}

static void gemm_suite(tessel_dev_t *d, tessel_dev_t *mdl, uint32_t nn)
{
    static const uint32_t shapes[][3] = {{1, 1, 1}, {17, 33, 65}, {300, 7, 129}};
    static const tessel_dtype_t io[4][2] = {{TESSEL_INT8, TESSEL_INT32}, {TESSEL_INT8, TESSEL_INT8},
                                            {TESSEL_BF16, TESSEL_FP32}, {TESSEL_BF16, TESSEL_BF16}};
    uint32_t nshapes = SIM ? 2 : 3;
    for (uint32_t sh = 0; sh < nshapes; sh++)
        for (uint32_t t = 0; t < 4; t++) {
            int fp = io[t][0] == TESSEL_BF16;
            /* epilogues: every combination on the model; none / all / bias / relu(+scale) on sim */
            for (uint32_t e = 0; e < (fp ? 8u : 4u); e++) {
                if (SIM && sh > 0 && e != (fp ? 7u : 3u))   /* sim: every epilogue on 1x1x1, all at once else */
                    continue;
                gcase_t s = {shapes[sh][0], shapes[sh][1], shapes[sh][2], io[t][0], io[t][1], e & 1, (e >> 1) & 1,
                             (e >> 2) & 1, 0};
                gemm_case(d, mdl, nn, s);
            }
            for (uint32_t e = 1; fp && e < TESSEL_EPILOGUE_COUNT && (!SIM || sh == 0); e++)   /* with a bias, */
                gemm_case(d, mdl, nn, (gcase_t){shapes[sh][0], shapes[sh][1], shapes[sh][2], io[t][0], io[t][1], 1,
                                                tsl_gemm_post_has(TSL_GEMM_POST_RELU, (uint32_t)e), 0,   /* ReLU if allowed */
                                                (tessel_epilogue_t)e});
        }
    if (SIM)   /* the tall shape once */
        gemm_case(d, mdl, nn, (gcase_t){300, 7, 129, TESSEL_BF16, TESSEL_BF16, 1, 1, 1, 0});
    uint32_t randoms = SIM ? 2 : 24, maxdim = SIM ? 24 : 200;
    for (uint32_t i = 0; i < randoms; i++) {
        uint32_t t = below(4), e = below(8);
        gcase_t s = {1 + below(maxdim), 1 + below(maxdim), 1 + below(maxdim), io[t][0], io[t][1], e & 1,
                     (e >> 1) & 1, io[t][0] == TESSEL_BF16 ? (e >> 2) & 1 : 0, 0};
        if (io[t][0] == TESSEL_BF16)
            s.epi = (tessel_epilogue_t)below(TESSEL_EPILOGUE_COUNT);
        if (s.epi && !tsl_gemm_post_has(TSL_GEMM_POST_RELU, (uint32_t)s.epi))
            s.relu = 0;
        gemm_case(d, mdl, nn, s);
    }
}

/* ------------------------------------------------------------------------------- raw commands */

/* ------------------------------------------------------------------------------ CONV2D, POOL2D */

/* Input element index of tap (kh, kw), channel ch, of output pixel p, or -1 in the padding. */
static int64_t tap_at(const tessel_conv2d_t *g, uint32_t ow_n, uint32_t oh_n, uint32_t p, uint32_t kh, uint32_t kw,
                      uint32_t ch)
{
    uint32_t b = p / (oh_n * ow_n), oh = p / ow_n % oh_n, ow = p % ow_n;
    int64_t ih = (int64_t)oh * g->stride_h - g->pad_t + (int64_t)kh * g->dil_h;
    int64_t iw = (int64_t)ow * g->stride_w - g->pad_l + (int64_t)kw * g->dil_w;
    if (ih < 0 || ih >= g->h || iw < 0 || iw >= g->w)
        return -1;
    return (((int64_t)b * g->h + ih) * g->w + iw) * g->c + ch;
}

/* int8 CONV2D and average POOL2D on `d` against exact references (an int8 average rounds sum/k to
 * nearest, ties away from zero), and every case bit for bit against the model device. */
static void win_case(tessel_dev_t *d, tessel_dev_t *mdl, int pool, tessel_conv2d_t g)
{
    char what[160];
    snprintf(what, sizeof what, "[%s] %s %ux%ux%ux%u -> %u, %ux%u stride %u pad %u,%u dil %u groups %u", BACKEND,
             pool ? "avg POOL2D" : "CONV2D", g.batch, g.h, g.w, g.c, g.cout, g.kh, g.kw, g.stride_h, g.pad_t, g.pad_l,
             g.dil_h, g.groups);
    uint32_t oh = tessel_window_out(g.h, g.pad_t, g.pad_b, g.kh, g.stride_h, g.dil_h);
    uint32_t ow = tessel_window_out(g.w, g.pad_l, g.pad_r, g.kw, g.stride_w, g.dil_w);
    uint32_t co = pool ? g.c : g.cout, cg = g.c / g.groups, og = g.cout / g.groups, m = g.batch * oh * ow;
    size_t nx = (size_t)g.batch * g.h * g.w * g.c, nw = (size_t)g.kh * g.kw * cg * g.cout, ny = (size_t)m * co;
    int8_t *x = xmalloc(nx), *w = xmalloc(nw + 1);
    int32_t *y = xmalloc(4 * ny), *ym = xmalloc(4 * ny), *bias = xmalloc(4u * g.cout + 4);
    for (size_t i = 0; i < nx; i++)
        x[i] = (int8_t)rnd();
    for (size_t i = 0; i < nw; i++)
        w[i] = (int8_t)rnd();
    for (uint32_t j = 0; j < g.cout; j++)
        bias[j] = (int32_t)below(20001) - 10000;
    g.x = x;
    g.weights = w;
    g.x_zero_point = (int32_t)below(256) - 128;
    tessel_pool2d_t pl = {.kind = TESSEL_POOL_AVG, .batch = g.batch, .h = g.h, .w = g.w, .c = g.c, .kh = g.kh,
                          .kw = g.kw, .stride_h = g.stride_h, .stride_w = g.stride_w, .pad_t = g.pad_t, .pad_b = g.pad_b,
                          .pad_l = g.pad_l, .pad_r = g.pad_r, .dil_h = g.dil_h, .dil_w = g.dil_w,
                          .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT8, .x = x, .x_zero_point = g.x_zero_point};
    g.in_dtype = TESSEL_INT8;
    g.out_dtype = TESSEL_INT32;
    g.bias = bias;
    int r = 0, rm = 0;
    for (int dev = 0; dev < 2; dev++) {
        int8_t *out8 = (int8_t *)(dev ? ym : y);
        g.y = dev ? ym : y;
        pl.y = out8;
        int st = pool ? tessel_pool2d(dev ? mdl : d, &pl, NULL) : tessel_conv2d(dev ? mdl : d, &g, NULL);
        *(dev ? &rm : &r) = st;
    }
    if (!tu_check(&T, r == TESSEL_OK && rm == TESSEL_OK, "%s: status %d / model %d: %s", what, r, rm,
                  tessel_last_error(d)))
        goto out;
    tu_check(&T, !memcmp(y, ym, pool ? ny : 4 * ny), "%s: differs from the model device", what);
    size_t bad = ny;
    for (size_t i = 0; i < ny && bad == ny; i++) {
        uint32_t p = (uint32_t)(i / co), ch = (uint32_t)(i % co), gr = ch / (og ? og : 1);
        int64_t sum = pool ? 0 : bias[ch];
        for (uint32_t kh = 0; kh < g.kh; kh++)
            for (uint32_t kw = 0; kw < g.kw; kw++)
                for (uint32_t ci = 0; ci < (pool ? 1u : cg); ci++) {
                    int64_t at = tap_at(&g, ow, oh, p, kh, kw, pool ? ch : gr * cg + ci);
                    int64_t xv = at < 0 ? g.x_zero_point : x[at];
                    sum += pool ? xv : xv * w[(((size_t)kh * g.kw + kw) * cg + ci) * g.cout + ch];
                }
        int64_t k = (int64_t)g.kh * g.kw, want = sum;
        if (pool)   /* nearest, ties away from zero */
            want = sum >= 0 ? (2 * sum + k) / (2 * k) : -((-2 * sum + k) / (2 * k));
        int64_t got = pool ? ((int8_t *)y)[i] : y[i];
        if (got != want)
            bad = i;
    }
    tu_check(&T, bad == ny, "%s: differs from the reference at element %zu", what, bad);
out:
    free(x); free(w); free(y); free(ym); free(bias);
}

/* The value a row function computes with: x[i] as in_dtype reads it, plus (res not NULL) res[i] as
 * out_dtype holds it, rounded to FP32 (ADD_C). */
static double row_in(const float *x, const float *res, size_t i, tessel_dtype_t in, tessel_dtype_t out)
{
    float v = in == TESSEL_BF16 ? ref_f((uint32_t)ref_bf16(ref_u(x[i])) << 16) : x[i];
    if (res)
        v += out == TESSEL_BF16 ? ref_f((uint32_t)ref_bf16(ref_u(res[i])) << 16) : res[i];
    return v;
}

/* The row functions on `d` and on the model device (bit for bit), and against libm within a loose
 * bound (tests/fw checks the tight one); fn 6 and 7 are the norms with a residual. */
static void rows_case(tessel_dev_t *d, tessel_dev_t *mdl, int fn, uint32_t m, uint32_t n, tessel_dtype_t in,
                      tessel_dtype_t out)
{
    static const char *const names[] = {"softmax", "layernorm", "rmsnorm", "gelu", "silu", "add",
                                        "layernorm + residual", "rmsnorm + residual"};
    char what[96];
    snprintf(what, sizeof what, "[%s] %s %ux%u %s->%s", BACKEND, names[fn], m, n, dname(in), dname(out));
    float *x = xmalloc(4u * m * n), *y = xmalloc(4u * m * n), *ym = xmalloc(4u * m * n), *g = xmalloc(4u * n);
    float *b = xmalloc(4u * n), *mask = xmalloc(4u * m * n), *res = xmalloc(4u * m * n);
    for (uint32_t i = 0; i < m * n; i++) {
        x[i] = (float)((int32_t)below(4001) - 2000) / 500.0f;
        res[i] = (float)((int32_t)below(4001) - 2000) / 300.0f;
        mask[i] = (i % n) > (i / n) ? -INFINITY : 0.0f;   /* causal */
    }
    for (uint32_t j = 0; j < n; j++) {
        g[j] = 0.5f + (float)below(100) / 100.0f;
        b[j] = (float)((int32_t)below(200) - 100) / 100.0f;
    }
    const float *rs = fn >= 6 ? res : NULL;
    tessel_rows_t r = {m, n, in, out, x, n, y, n, rs};
    int st[2];
    for (int k = 0; k < 2; k++) {
        tessel_dev_t *dv = k ? mdl : d;
        r.y = k ? ym : y;
        switch (fn) {
        case 0: st[k] = tessel_softmax(dv, &r, 0.5f, mask, NULL); break;
        case 1: case 6: st[k] = tessel_layernorm(dv, &r, g, b, 1e-5f, NULL); break;
        case 2: case 7: st[k] = tessel_rmsnorm(dv, &r, g, 1e-5f, NULL); break;
        case 3: st[k] = tessel_gelu(dv, &r, NULL); break;
        case 4: st[k] = tessel_silu(dv, &r, NULL); break;
        default: st[k] = tessel_add(dv, &r, x, NULL); break;   /* x + x */
        }
    }
    if (tu_check(&T, st[0] == TESSEL_OK && st[1] == TESSEL_OK, "%s: status %d / model %d: %s", what, st[0], st[1],
                 tessel_last_error(d))) {
        tu_check(&T, !memcmp(y, ym, 4u * m * n), "%s: differs from the model device", what);
        double worst = 0;
        for (uint32_t i = 0; i < m; i++) {
            double mx = -INFINITY, sum = 0, mean = 0, var = 0, ms = 0;
            for (uint32_t j = 0; j < n; j++) {
                double v = row_in(x, rs, (size_t)i * n + j, in, out);
                double z = 0.5 * v + mask[(size_t)i * n + j];
                mx = z > mx ? z : mx;
                mean += v / n;
                ms += v * v / n;
            }
            for (uint32_t j = 0; j < n; j++) {
                double v = row_in(x, rs, (size_t)i * n + j, in, out);
                sum += exp(0.5 * v + mask[(size_t)i * n + j] - mx);
                var += (v - mean) * (v - mean) / n;
            }
            for (uint32_t j = 0; j < n; j++) {
                double v = row_in(x, rs, (size_t)i * n + j, in, out), e;
                double k = 2.0 * sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v);
                switch (fn) {
                case 0: e = exp(0.5 * v + mask[(size_t)i * n + j] - mx) / sum; break;
                case 1: case 6: e = (v - mean) / sqrt(var + 1e-5) * g[j] + b[j]; break;
                case 2: case 7: e = v / sqrt(ms + 1e-5) * g[j]; break;
                case 3: e = v / (1.0 + exp(-k)); break;
                case 4: e = v / (1.0 + exp(-v)); break;
                default: e = 2.0 * v; break;
                }
                double err = fabs(y[(size_t)i * n + j] - e);
                worst = err > worst ? err : worst;
            }
        }
        tu_check(&T, worst <= (out == TESSEL_BF16 ? 0.05 : 1e-4), "%s: max error %g against libm", what, worst);
    }
    free(x); free(y); free(ym); free(g); free(b); free(mask); free(res);
}

/* LAYERNORM of near-equal rows (mean 4, spread 0.01: the normalisation multiplies every error by
 * 1/std, about 150 here) of n values, n not a multiple of N, so that the last block has padding lanes:
 * each result within (64 + n) u (|gamma| max|x| rstd + |beta|) of the float64 layer norm, the bound
 * tessel.torch's debug mode checks. The padding lanes of x - mean once went into the sum of squares
 * and came back out as pads * mean^2, which cancelled the row's variance away. */
static void layernorm_near_equal(tessel_dev_t *d, uint32_t n)
{
    const uint32_t m = 8;
    char what[96];
    snprintf(what, sizeof what, "[%s] layernorm of near-equal rows, %ux%u", BACKEND, m, n);
    float *x = xmalloc(4u * m * n), *y = xmalloc(4u * m * n), *g = xmalloc(4u * n), *b = xmalloc(4u * n);
    for (uint32_t i = 0; i < m * n; i++)
        x[i] = 4.0f + 0.01f * (float)((int32_t)below(2001) - 1000) / 1000.0f;
    for (uint32_t j = 0; j < n; j++) {
        g[j] = (float)((int32_t)below(2001) - 1000) / 500.0f;
        b[j] = (float)((int32_t)below(2001) - 1000) / 500.0f;
    }
    tessel_rows_t r = {m, n, TESSEL_FP32, TESSEL_FP32, x, n, y, n, NULL};
    if (tu_check(&T, tessel_layernorm(d, &r, g, b, 1e-5f, NULL) == TESSEL_OK, "%s: %s", what, tessel_last_error(d))) {
        double gmax = 0, bmax = 0, worst = 0;
        for (uint32_t j = 0; j < n; j++) {
            gmax = fabs(g[j]) > gmax ? fabs(g[j]) : gmax;
            bmax = fabs(b[j]) > bmax ? fabs(b[j]) : bmax;
        }
        for (uint32_t i = 0; i < m; i++) {
            const float *xr = x + (size_t)i * n;
            double mean = 0, var = 0, xmax = 0;
            for (uint32_t j = 0; j < n; j++)
                mean += xr[j] / (double)n;
            for (uint32_t j = 0; j < n; j++) {
                var += (xr[j] - mean) * (xr[j] - mean) / (double)n;
                xmax = fabs(xr[j]) > xmax ? fabs(xr[j]) : xmax;
            }
            double rstd = 1.0 / sqrt(var + 1e-5), bound = (64.0 + n) * 0x1p-24 * (gmax * xmax * rstd + bmax);
            for (uint32_t j = 0; j < n; j++) {
                double e = (xr[j] - mean) * rstd * g[j] + b[j], q = fabs(y[(size_t)i * n + j] - e) / bound;
                worst = q > worst ? q : worst;
            }
        }
        tu_check(&T, worst <= 1.0, "%s: an error %.2f times the bound", what, worst);
    }
    free(x); free(y); free(g); free(b);
}

/* The three-command path of attention, composed here from the public calls: per head tessel_gemm
 * (S = Q Kt, FP32, the scale 1/sqrt(d)), tessel_softmax (S taken as FP32 plus the causal mask,
 * BF16 out), tessel_gemm (O = P V). */
static int attention_composed(tessel_dev_t *d, const tessel_attention_t *a, float *o)
{
    uint32_t lq = a->lq, lk = a->lk, dd = a->d, dv = a->dv;
    float *kt = xmalloc(4u * dd * lk), *s = xmalloc(4u * lq * lk), *p = xmalloc(4u * lq * lk);
    float *mask = a->causal ? xmalloc(4u * lq * lk) : NULL;
    for (uint32_t i = 0; i < lq * lk && mask; i++)
        mask[i] = i % lk > i / lk + (lk - lq) ? -INFINITY : 0.0f;
    int r = TESSEL_OK;
    for (uint32_t h = 0; h < a->batch && !r; h++) {
        for (uint32_t j = 0; j < lk; j++)
            for (uint32_t c = 0; c < dd; c++)
                kt[c * lk + j] = a->k[((size_t)h * lk + j) * dd + c];
        tessel_gemm_t qk = {lq, lk, dd, TESSEL_BF16, TESSEL_FP32, a->q + (size_t)h * lq * dd, dd, kt, lk, s, lk,
                            NULL, 0, 1.0f / sqrtf((float)dd), 0, 0, 0, TESSEL_EPILOGUE_NONE};
        tessel_rows_t sm = {lq, lk, TESSEL_FP32, TESSEL_BF16, s, lk, p, lk, NULL};
        tessel_gemm_t pv = {lq, dv, lk, TESSEL_BF16, a->out_dtype, p, lk, a->v + (size_t)h * lk * dv, dv,
                            o + (size_t)h * lq * dv, dv, NULL, 0, 0.0f, 0, 0, 0, TESSEL_EPILOGUE_NONE};
        if (!(r = tessel_gemm(d, &qk, NULL)) && !(r = tessel_softmax(d, &sm, 0.0f, mask, NULL)))
            r = tessel_gemm(d, &pv, NULL);
    }
    free(kt); free(s); free(p); free(mask);
    return r;
}

/* tessel_attention on `d`: bit for bit the model device's result and (`compose`) the three-command
 * path's (attention_composed), and within a bound of softmax(Q Kt s + mask) V in double on the
 * bf16-rounded inputs: the probabilities are rounded to bf16 on the device (2^-9 relative each), so
 * |O - ref| <= 2^-8 * sum_j p_j |v_j| plus FP32 sums. `fused`: whether the device runs it as one
 * ATTENTION command (the last completion's opcode), or falls back to the three commands. */
static void attention_case(tessel_dev_t *d, tessel_dev_t *mdl, uint32_t B, uint32_t lq, uint32_t lk, uint32_t dd,
                           uint32_t dv, int causal, tessel_dtype_t out, int fused, int compose)
{
    char what[128];
    snprintf(what, sizeof what, "[%s] attention %u heads, %ux%u, d %u, dv %u, causal %d, %s", BACKEND, B, lq, lk, dd, dv,
             causal, dname(out));
    float *q = xmalloc(4u * B * lq * dd), *k = xmalloc(4u * B * lk * dd), *v = xmalloc(4u * B * lk * dv);
    float *o = xmalloc(4u * B * lq * dv), *om = xmalloc(4u * B * lq * dv), *oc = xmalloc(4u * B * lq * dv);
    float *all[3] = {q, k, v};
    uint32_t cnt[3] = {B * lq * dd, B * lk * dd, B * lk * dv};
    for (int t = 0; t < 3; t++)
        for (uint32_t i = 0; i < cnt[t]; i++)
            all[t][i] = ref_f((uint32_t)ref_bf16(ref_u((float)((int32_t)below(2001) - 1000) / 500.0f)) << 16);
    tessel_attention_t a = {B, lq, lk, dd, dv, q, k, v, o, 0.0f, causal, out};
    tessel_completion_t cpl = {0};
    int st = tessel_attention(d, &a, &cpl);
    a.o = om;
    int sm = tessel_attention(mdl, &a, NULL);
    int sc = compose ? attention_composed(d, &a, oc) : TESSEL_OK;
    if (tu_check(&T, st == TESSEL_OK && sm == TESSEL_OK && sc == TESSEL_OK, "%s: status %d / model %d / composed %d: %s",
                 what, st, sm, sc, tessel_last_error(d))) {
        tu_check(&T, cpl.opcode == (fused ? TSL_CMD_OP_ATTENTION : TSL_CMD_OP_GEMM), "%s: last command %s, expected %s",
                 what, tsl_cmd_op_name(cpl.opcode), fused ? "ATTENTION" : "GEMM (the three-command path)");
        tu_check(&T, !memcmp(o, om, 4u * B * lq * dv), "%s: differs from the model device", what);
        size_t i = 0;
        while (compose && i < (size_t)B * lq * dv && !memcmp(o + i, oc + i, 4))
            i++;
        tu_check(&T, !compose || i == (size_t)B * lq * dv, "%s: O[%zu] = 0x%08x, the three-command path 0x%08x", what, i,
                 i < (size_t)B * lq * dv ? ref_u(o[i]) : 0u, i < (size_t)B * lq * dv ? ref_u(oc[i]) : 0u);
        double worst = 0, *p = xmalloc(sizeof(double) * lk), scl = 1.0 / sqrt((double)dd);
        for (uint32_t h = 0; h < B; h++)
            for (uint32_t i2 = 0; i2 < lq; i2++) {
                double mx = -INFINITY, sum = 0;
                for (uint32_t j = 0; j < lk; j++) {
                    double s = 0;
                    for (uint32_t c = 0; c < dd; c++)
                        s += (double)q[(h * lq + i2) * dd + c] * k[(h * lk + j) * dd + c];
                    p[j] = causal && j > i2 + (lk - lq) ? -INFINITY : s * scl;
                    mx = p[j] > mx ? p[j] : mx;
                }
                for (uint32_t j = 0; j < lk; j++)
                    sum += p[j] = exp(p[j] - mx);
                for (uint32_t c = 0; c < dv; c++) {
                    double e = 0, mag = 0;
                    for (uint32_t j = 0; j < lk; j++) {
                        e += p[j] / sum * v[(h * lk + j) * dv + c];
                        mag += p[j] / sum * fabs(v[(h * lk + j) * dv + c]);
                    }
                    double bound = ldexp(mag, out == TESSEL_BF16 ? -7 : -8) + 1e-6;
                    double err = fabs(o[(h * lq + i2) * dv + c] - e) / bound;
                    worst = err > worst ? err : worst;
                }
            }
        tu_check(&T, worst <= 1.0, "%s: error %.2f times the bound", what, worst);
        free(p);
    }
    free(q); free(k); free(v); free(o); free(om); free(oc);
}

/* tessel_eltwise, every op: on `d` and on the model device (bit for bit), and against the host's
 * IEEE float: exact for ADD, MUL, MAX, MIN and RELU (the inputs are normal and so are their
 * results; a BF16 C is that float rounded to nearest even), within 2 ulps for EXP, RECIP and RSQRT
 * (isa.md: at most 1.25). */
static void ew_case(tessel_dev_t *d, tessel_dev_t *mdl, tessel_eltwise_op_t op, tessel_dtype_t in,
                         tessel_dtype_t out)
{
    static const char *const names[] = {"add", "mul", "max", "min", "relu", "exp", "recip", "rsqrt"};
    const uint32_t m = 5, n = 37, mn = m * n;
    int unary = op >= TESSEL_EW_RELU;
    char what[96];
    snprintf(what, sizeof what, "[%s] eltwise %s %ux%u %s->%s", BACKEND, names[op], m, n, dname(in), dname(out));
    float *x = xmalloc(4u * mn), *b = xmalloc(4u * mn), *y = xmalloc(4u * mn), *ym = xmalloc(4u * mn);
    for (uint32_t i = 0; i < mn; i++) {   /* 1/64 .. 8, either sign (positive for RECIP and RSQRT) */
        x[i] = ldexpf(1.0f + (float)below(1u << 20) / (float)(1u << 20), (int)below(10) - 6);
        b[i] = ldexpf(1.0f + (float)below(1u << 20) / (float)(1u << 20), (int)below(10) - 6);
        if (op != TESSEL_EW_RECIP && op != TESSEL_EW_RSQRT && (rnd() & 1))
            x[i] = -x[i];
        if (rnd() & 1)
            b[i] = -b[i];
    }
    tessel_rows_t r = {m, n, in, out, x, n, y, n, NULL};
    int st = tessel_eltwise(d, &r, op, unary ? NULL : b, NULL);
    r.y = ym;
    int stm = tessel_eltwise(mdl, &r, op, unary ? NULL : b, NULL);
    if (tu_check(&T, st == TESSEL_OK && stm == TESSEL_OK, "%s: status %d / model %d: %s", what, st, stm,
                 tessel_last_error(d))) {
        tu_check(&T, !memcmp(y, ym, 4u * mn), "%s: differs from the model device", what);
        size_t bad = mn;
        for (uint32_t i = 0; i < mn && bad == mn; i++) {
            float v = in == TESSEL_BF16 ? ref_f((uint32_t)ref_bf16(ref_u(x[i])) << 16) : x[i];
            float w = in == TESSEL_BF16 ? ref_f((uint32_t)ref_bf16(ref_u(b[i])) << 16) : b[i];
            double e;
            switch (op) {
            case TESSEL_EW_ADD: e = v + w; break;
            case TESSEL_EW_MUL: e = v * w; break;
            case TESSEL_EW_MAX: e = v > w ? v : w; break;
            case TESSEL_EW_MIN: e = v < w ? v : w; break;
            case TESSEL_EW_RELU: e = v > 0 ? v : 0; break;
            case TESSEL_EW_EXP: e = exp(v); break;
            case TESSEL_EW_RECIP: e = 1.0 / v; break;
            default: e = 1.0 / sqrt(v); break;
            }
            if (op < TESSEL_EW_EXP) {   /* exact: the float result, rounded to BF16 for a BF16 C */
                float ef = (float)e;
                if (out == TESSEL_BF16)
                    ef = ref_f((uint32_t)ref_bf16(ref_u(ef)) << 16);
                if (y[i] != ef)
                    bad = i;
            } else if (!(fabs(y[i] - e) <= ldexp(2.0, ilogb(e) - 23))) {   /* 2 ulps (an FP32 C) */
                bad = i;
            }
        }
        tu_check(&T, bad == mn, "%s: element %zu is %.9g", what, bad, bad < mn ? (double)y[bad] : 0.0);
    }
    free(x); free(b); free(y); free(ym);
}

/* ATTENTION with K_ROWS (B is K itself, LK x D a head) as tessel_attention_cmd encodes it, K allocated above Q, V and
 * O so that the library's span of B (the PROGRAM's window) must reach its last row: bit for bit
 * tessel_attention's result on the same values (K transposed by the host). Devices without
 * CFG_FEATURES.TRANSPOSE refuse the flag (BAD_FLAGS). */
static void attention_k_rows(tessel_dev_t *d)
{
    const uint32_t lq = 16, lk = 48, dd = 16, dv = 16;
    char what[96];
    snprintf(what, sizeof what, "[%s] ATTENTION K_ROWS, %ux%u, d %u, K above the rest", BACKEND, lq, lk, dd);
    tessel_info_t info;
    if (tessel_info(d, &info) || !(info.features & (1u << TSL_TC_CFG_FEATURES_BF16_SHIFT)))
        return;
    int has = (info.features >> TSL_TC_CFG_FEATURES_TRANSPOSE_SHIFT) & 1u;
    float *q = xmalloc(4u * lq * dd), *k = xmalloc(4u * lk * dd), *v = xmalloc(4u * lk * dv);
    float *o = xmalloc(4u * lq * dv), *want = xmalloc(4u * lq * dv);
    uint16_t *bits = xmalloc(2u * lk * dd);
    float *all[3] = {q, k, v};
    uint32_t cnt[3] = {lq * dd, lk * dd, lk * dv};
    tessel_addr_t at[4] = {0, 0, 0, 0};   /* Q, V, O, then K */
    uint32_t bytes[4] = {2u * lq * dd, 2u * lk * dv, 4u * lq * dv, 2u * lk * dd};
    int r = TESSEL_OK;
    for (int i = 0; i < 4 && !r; i++)
        r = tessel_alloc(d, bytes[i], 64, &at[i]);
    for (int t = 0; t < 3 && !r; t++) {
        for (uint32_t i = 0; i < cnt[t]; i++) {
            all[t][i] = ref_f((uint32_t)ref_bf16(ref_u((float)((int32_t)below(2001) - 1000) / 500.0f)) << 16);
            bits[i] = (uint16_t)(ref_u(all[t][i]) >> 16);
        }
        r = tessel_write(d, at[t == 0 ? 0 : t == 1 ? 3 : 1], bits, 2u * cnt[t]);
    }
    tessel_attention_t a = {1, lq, lk, dd, dv, q, k, v, want, 0.0f, 0, TESSEL_FP32};
    if (!tu_check(&T, !r && tessel_attention(d, &a, NULL) == TESSEL_OK, "%s: set-up: %s", what, tessel_last_error(d)))
        goto out;
    const tessel_attention_op_t op = {.batch = 1, .lq = lq, .lk = lk, .d = dd, .dv = dv, .q = at[0], .k = at[3],
                                      .v = at[1], .o = at[2], .ldq = dd, .ldk = dd, .ldv = dv, .ldo = dv, .k_rows = 1,
                                      .out_dtype = TESSEL_FP32};
    tessel_cmd_t cmd;
    tessel_handle_t h;
    tessel_completion_t cpl = {0};
    r = tessel_attention_cmd(d, &op, &cmd);
    if (!r)
        r = tessel_submit(d, &cmd, &h);
    if (!r)
        r = tessel_wait(d, h, TESSEL_TIMEOUT_AUTO, &cpl);
    if (!has) {
        tu_check(&T, r == TESSEL_EDEVICE && cpl.status == TSL_CMD_ERR_BAD_FLAGS, "%s: refused without TRANSPOSE: %d, %s",
                 what, r, tessel_last_error(d));
    } else if (tu_check(&T, r == TESSEL_OK, "%s: %d, %s", what, r, tessel_last_error(d)) &&
               tu_check(&T, tessel_read(d, o, at[2], 4u * lq * dv) == TESSEL_OK, "%s: read", what)) {
        tu_check(&T, !memcmp(o, want, 4u * lq * dv), "%s: differs from tessel_attention (K transposed)", what);
    }
out:
    for (int i = 3; i >= 0; i--)
        if (at[i])
            (void)tessel_free(d, at[i]);
    free(q); free(k); free(v); free(o); free(want); free(bits);
}

static void rows_suite(tessel_dev_t *d, tessel_dev_t *mdl)
{
    tessel_info_t info;
    if (tessel_info(d, &info) || !(info.features & (1u << TSL_TC_CFG_FEATURES_BF16_SHIFT)))
        return;
    for (int fn = 0; fn < 8; fn++) {
        rows_case(d, mdl, fn, 7, 37, TESSEL_FP32, TESSEL_FP32);
        rows_case(d, mdl, fn, 20, 64, TESSEL_BF16, TESSEL_BF16);
    }
    for (int op = TESSEL_EW_ADD; op <= TESSEL_EW_RSQRT; op++) {
        ew_case(d, mdl, (tessel_eltwise_op_t)op, TESSEL_FP32, TESSEL_FP32);
        ew_case(d, mdl, (tessel_eltwise_op_t)op, TESSEL_BF16, op < TESSEL_EW_EXP ? TESSEL_BF16 : TESSEL_FP32);
    }
    attention_case(d, mdl, 2, 20, 20, 24, 8, 1, TESSEL_FP32, 1, 1);
    attention_case(d, mdl, 3, 5, 33, 16, 17, 0, TESSEL_BF16, 1, 1);
    attention_case(d, mdl, 1, 64, 64, 32, 32, 1, TESSEL_FP32, 1, 1);
    /* keys too many for the fused command, the three commands instead: for a head's K and V (LK x 64
     * values each) to fit VMEM; for a row of scores to fit ACC twice (a ROWWISE of one row a tile,
     * whose cycle estimate must cover it on the sim; not composed again: ~1 M cycles) */
    attention_case(d, mdl, 2, 3, info.vmem_bytes / 256u + 64u, 64, 64, 1, TESSEL_BF16, 0, 1);
    attention_case(d, mdl, 1, 1, info.acc_bytes / 8u + 1u, 8, 8, 1, TESSEL_FP32, 0, 0);
    attention_k_rows(d);
    for (uint32_t n = 9; n <= 41; n += 16)
        layernorm_near_equal(d, n);
}

static void win_suite(tessel_dev_t *d, tessel_dev_t *mdl)
{
    static const tessel_conv2d_t fixed[] = {
        {.batch = 2, .h = 7, .w = 6, .c = 5, .cout = 20, .kh = 3, .kw = 3, .pad_t = 1, .pad_b = 1, .pad_l = 1, .pad_r = 1},
        {.batch = 1, .h = 9, .w = 9, .c = 8, .cout = 8, .kh = 3, .kw = 3, .groups = 8, .stride_h = 2, .stride_w = 2,
         .pad_t = 1, .pad_l = 1},
        {.batch = 1, .h = 10, .w = 5, .c = 6, .cout = 4, .kh = 2, .kw = 3, .groups = 2, .dil_h = 2, .dil_w = 2,
         .pad_b = 2, .pad_r = 1},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        for (int pool = 0; pool < 2; pool++) {
            tessel_conv2d_t g = fixed[i];
            g.stride_h += !g.stride_h;
            g.stride_w += !g.stride_w;
            g.dil_h += !g.dil_h;
            g.dil_w += !g.dil_w;
            g.groups = pool ? 1 : g.groups + !g.groups;
            win_case(d, mdl, pool, g);
        }
}

static void cmd_init(tessel_cmd_t *c, uint32_t op, uint32_t flags)
{
    memset(c, 0, sizeof *c);
    TSL_SET(c->w, TSL_CMD_OPCODE, op);
    TSL_SET(c->w, TSL_CMD_FLAGS, flags);
}

static int run(tessel_dev_t *d, const tessel_cmd_t *c, tessel_completion_t *cpl)
{
    tessel_handle_t h;
    int r = tessel_submit(d, c, &h);
    return r ? r : tessel_wait(d, h, TMO, cpl);
}

/* Run `c` on both devices (same addresses: both have had the same allocations and writes) and
 * compare `bytes` at `out` with each other and with `exp`. */
static void both(tessel_dev_t *d, tessel_dev_t *mdl, const tessel_cmd_t *c, tessel_addr_t out, size_t bytes,
                 const uint8_t *exp, const char *what)
{
    tessel_completion_t c1, c2;
    int r1 = run(d, c, &c1), r2 = run(mdl, c, &c2);
    if (!tu_check(&T, r1 == TESSEL_OK && r2 == TESSEL_OK, "[%s] %s: status %d / model %d: %s", BACKEND, what, r1, r2,
                  tessel_last_error(d)))
        return;
    uint8_t *g1 = xmalloc(bytes), *g2 = xmalloc(bytes);
    if (tessel_read(d, g1, out, bytes) || tessel_read(mdl, g2, out, bytes)) {
        tu_check(&T, 0, "%s: read back failed", what);
    } else {
        size_t i = 0;
        while (i < bytes && g1[i] == g2[i])
            i++;
        tu_check(&T, i == bytes, "[%s] %s: differs from the model device at byte %zu: 0x%02x vs 0x%02x", BACKEND, what,
                 i, i < bytes ? g1[i] : 0, i < bytes ? g2[i] : 0);
        if (exp) {
            i = 0;
            while (i < bytes && g1[i] == exp[i])
                i++;
            tu_check(&T, i == bytes, "[%s] %s: differs from the C reference at byte %zu: got 0x%02x, expected 0x%02x",
                     BACKEND, what, i, i < bytes ? g1[i] : 0, i < bytes ? exp[i] : 0);
        }
    }
    free(g1);
    free(g2);
}

/* Allocate the same block on both devices (their allocators see the same sequence). */
static tessel_addr_t alloc2(tessel_dev_t *d, tessel_dev_t *mdl, size_t bytes)
{
    tessel_addr_t a = 0, b = 0;
    if (tessel_alloc(d, bytes, 64, &a) || tessel_alloc(mdl, bytes, 64, &b) || a != b) {
        fprintf(stderr, "test bug: allocation mismatch\n");
        exit(2);
    }
    return a;
}

static void write2(tessel_dev_t *d, tessel_dev_t *mdl, tessel_addr_t a, const void *p, size_t n)
{
    if (tessel_write(d, a, p, n) || tessel_write(mdl, a, p, n)) {
        fprintf(stderr, "test bug: write failed\n");
        exit(2);
    }
}

static void free2(tessel_dev_t *d, tessel_dev_t *mdl, tessel_addr_t a)
{
    (void)tessel_free(d, a);
    (void)tessel_free(mdl, a);
}

static uint32_t rnd_elem(uint8_t *p, uint32_t dt)
{
    uint32_t v;
    switch (dt) {
    case TSL_DTYPE_INT8: p[0] = (uint8_t)rnd(); return 0;
    case TSL_DTYPE_INT32: v = (rnd() & 1) ? rnd() : (uint32_t)((int32_t)below(2001) - 1000); put32(p, v); return 0;
    case TSL_DTYPE_BF16: put16(p, (uint16_t)(ref_u(rnd_float()) >> 16)); return 0;
    default: put32(p, ref_u(rnd_float())); return 0;
    }
}

static uint32_t rd_elem(const uint8_t *row, uint32_t j, uint32_t dt)
{
    switch (dt) {
    case TSL_DTYPE_INT8: return (uint32_t)(int32_t)(int8_t)row[j];
    case TSL_DTYPE_INT32: return get32(row + 4 * j);
    case TSL_DTYPE_BF16: return ref_canon(ref_f(ref_daz((uint32_t)get16(row + 2 * j) << 16)));
    default: return ref_canon(ref_f(ref_daz(get32(row + 4 * j))));
    }
}

static void wr_elem(uint8_t *row, uint32_t j, uint32_t dt, uint32_t v)
{
    switch (dt) {
    case TSL_DTYPE_INT8: row[j] = (uint8_t)ref_sat8((int32_t)v); break;
    case TSL_DTYPE_INT32: put32(row + 4 * j, v); break;
    case TSL_DTYPE_BF16: put16(row + 2 * j, ref_bf16(v)); break;
    default: put32(row + 4 * j, ref_canon(ref_f(v))); break;
    }
}

static void eltwise_case(tessel_dev_t *d, tessel_dev_t *mdl, uint32_t op, uint32_t adt, uint32_t bdt, uint32_t cdt,
                         uint32_t flags, uint32_t m, uint32_t n)
{
    int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
    int fl = adt == TSL_DTYPE_BF16 || adt == TSL_DTYPE_FP32, imm = flags & CF(B_IMM), bc = flags & CF(B_BCAST);
    uint32_t lda = n * dtb(adt) + below(3) * 4, ldb = n * dtb(bdt) + below(3) * 4, ldc = n * dtb(cdt) + below(3) * 4;
    uint32_t brows = bc ? 1 : m;
    uint8_t *A = xmalloc((size_t)m * lda), *B = xmalloc((size_t)brows * ldb), *E = xmalloc((size_t)m * ldc);
    for (size_t i = 0; i < (size_t)m * lda; i += dtb(adt))
        rnd_elem(A + i, adt);
    for (size_t i = 0; i < (size_t)brows * ldb; i += dtb(bdt))
        rnd_elem(B + i, bdt);
    for (size_t i = 0; i < (size_t)m * ldc; i++)
        E[i] = (uint8_t)rnd();
    tessel_addr_t a = alloc2(d, mdl, (size_t)m * lda), c = alloc2(d, mdl, (size_t)m * ldc), b = 0;
    write2(d, mdl, a, A, (size_t)m * lda);
    write2(d, mdl, c, E, (size_t)m * ldc);   /* the padding between rows must survive */
    tessel_cmd_t cmd;
    cmd_init(&cmd, TSL_CMD_OP_ELTWISE, flags);
    uint32_t *w = cmd.w, bimm = 0;
    TSL_SET(w, TSL_CMD_A_DTYPE, adt);
    TSL_SET(w, TSL_CMD_C_DTYPE, cdt);
    TSL_SET(w, TSL_CMD_VPU_OP, op);
    w[3] = m; w[4] = n; w[6] = (uint32_t)a; w[7] = lda; w[10] = (uint32_t)c; w[11] = ldc;
    if (!unary) {
        TSL_SET(w, TSL_CMD_B_DTYPE, bdt);
        if (imm) {
            bimm = fl ? ref_u(rnd_float()) : rnd();
            w[13] = bimm;
        } else {
            b = alloc2(d, mdl, (size_t)brows * ldb);
            write2(d, mdl, b, B, (size_t)brows * ldb);
            w[8] = (uint32_t)b;
            w[9] = bc ? 0 : ldb;
        }
    }
    int32_t scale = 0, zp = 0;
    uint32_t shift = 0;
    if (op == TSL_VPU_OP_REQUANT) {
        scale = (int32_t)rnd();
        shift = below(63);
        zp = (int32_t)rnd() >> below(32);
        w[13] = (uint32_t)scale; w[14] = shift; w[15] = (uint32_t)zp;
    }
    unsigned csr = ref_fp_ftz_daz();
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            uint32_t x = rd_elem(A + (size_t)i * lda, j, adt), y = 0, v;
            if (!unary)
                y = imm ? (fl ? ref_canon(ref_f(ref_daz(bimm))) : bimm) : rd_elem(B + (size_t)(bc ? 0 : i) * ldb, j, bdt);
            volatile float fx = ref_f(x), fy = ref_f(y), fr;
            switch (op) {
            case TSL_VPU_OP_ADD: if (fl) { fr = fx + fy; v = ref_canon(fr); } else v = x + y; break;
            case TSL_VPU_OP_MUL: if (fl) { fr = fx * fy; v = ref_canon(fr); } else v = x * y; break;
            case TSL_VPU_OP_MAX: v = fl ? ref_max(x, y) : ((int32_t)x > (int32_t)y ? x : y); break;
            case TSL_VPU_OP_MIN: v = fl ? ref_min(x, y) : ((int32_t)x < (int32_t)y ? x : y); break;
            case TSL_VPU_OP_RELU: v = fl ? ref_max(x, 0) : ((int32_t)x > 0 ? x : 0); break;
            case TSL_VPU_OP_REQUANT: v = (uint32_t)(int32_t)ref_requant((int32_t)x, scale, shift, zp); break;
            /* MOV, and the functions: the model's (tests/model/test_vmath checks them against libm) */
            default: v = tslm_f32_is_fn(op) ? tslm_f32_fn(op, TSL_VPU_ACT_GELU, x) : x; break;   /* a command's ACT: GELU */
            }
            wr_elem(E + (size_t)i * ldc, j, cdt, v);
        }
    ref_fp_restore(csr);
    char what[128];
    snprintf(what, sizeof what, "ELTWISE %s %ux%u %s,%s->%s flags 0x%x", tsl_vpu_op_name(op), m, n, tsl_dtype_name(adt),
             unary ? "-" : tsl_dtype_name(bdt), tsl_dtype_name(cdt), flags);
    both(d, mdl, &cmd, c, (size_t)m * ldc, E, what);
    free2(d, mdl, a);
    free2(d, mdl, c);
    if (b)
        free2(d, mdl, b);
    free(A); free(B); free(E);
}

static void eltwise_suite(tessel_dev_t *d, tessel_dev_t *mdl)
{
    static const uint32_t ops[] = TSL_VPU_OPS;   /* those ELTWISE runs: tsl_vpu_op_eltwise */
    static const uint32_t ity[] = {TSL_DTYPE_INT8, TSL_DTYPE_INT32}, fty[] = {TSL_DTYPE_BF16, TSL_DTYPE_FP32};
    for (uint32_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (uint32_t cls = 0; cls < 2; cls++) {
            uint32_t op = ops[o];
            if (!tsl_vpu_op_eltwise(op) || !tsl_ops_has(cls ? TSL_OPS_FLOAT : TSL_OPS_INT, TSL_UNIT_VPU, op))
                continue;
            const uint32_t *ty = cls ? fty : ity;
            int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
            for (uint32_t mode = 0; mode < (unary ? 1u : 3u); mode++) {
                uint32_t flags = mode == 1 ? CF(B_BCAST) : mode == 2 ? CF(B_IMM) : 0;
                uint32_t bdt = unary ? 0 : mode == 2 ? ty[1] : ty[below(2)];
                uint32_t m = 1 + below(SIM ? 6 : 40), n = 1 + below(SIM ? 40 : 90);
                eltwise_case(d, mdl, op, ty[below(2)], bdt, ty[below(2)], flags, m, n);
            }
        }
}

static void misc_suite(tessel_dev_t *d, tessel_dev_t *mdl)
{
    /* COPY and FILL with strides */
    uint32_t m = 1 + below(20), n = 1 + below(SIM ? 200 : 3000), lda = n + below(9), ldc = n + below(9);
    uint8_t *S = xmalloc((size_t)m * lda), *E = xmalloc((size_t)m * ldc);
    for (size_t i = 0; i < (size_t)m * lda; i++)
        S[i] = (uint8_t)rnd();
    for (size_t i = 0; i < (size_t)m * ldc; i++)
        E[i] = (uint8_t)rnd();
    tessel_addr_t a = alloc2(d, mdl, (size_t)m * lda), c = alloc2(d, mdl, (size_t)m * ldc);
    write2(d, mdl, a, S, (size_t)m * lda);
    write2(d, mdl, c, E, (size_t)m * ldc);
    tessel_cmd_t cmd;
    cmd_init(&cmd, TSL_CMD_OP_COPY, 0);
    cmd.w[3] = m; cmd.w[4] = n; cmd.w[6] = (uint32_t)a; cmd.w[7] = lda; cmd.w[10] = (uint32_t)c; cmd.w[11] = ldc;
    for (uint32_t i = 0; i < m; i++)
        memcpy(E + (size_t)i * ldc, S + (size_t)i * lda, n);
    both(d, mdl, &cmd, c, (size_t)m * ldc, E, "COPY");
    uint32_t pat = rnd();
    cmd_init(&cmd, TSL_CMD_OP_FILL, 0);
    cmd.w[3] = m; cmd.w[4] = n; cmd.w[10] = (uint32_t)c; cmd.w[11] = ldc; cmd.w[13] = pat;
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++)
            E[(size_t)i * ldc + j] = (uint8_t)(pat >> (8 * (j % 4)));
    both(d, mdl, &cmd, c, (size_t)m * ldc, E, "FILL");
    free2(d, mdl, a);
    free2(d, mdl, c);
    free(S);
    free(E);

    /* many outstanding commands: more than the ring holds; waited for in reverse order */
    enum { NMAX = 150 };
    const int NCMD = SIM ? 70 : NMAX;   /* the ring holds 64 */
    tessel_handle_t h[NMAX];
    int ok = 1;
    for (int i = 0; i < NCMD && ok; i++) {
        cmd_init(&cmd, (i % 7 == 3) ? TSL_CMD_OP_FENCE : TSL_CMD_OP_NOP, 0);
        ok = tessel_submit(d, &cmd, &h[i]) == TESSEL_OK;
    }
    tu_check(&T, ok, "[%s] submitting %d NOP/FENCE commands failed: %s", BACKEND, NCMD, tessel_last_error(d));
    for (int i = NCMD - 1; i >= 0 && ok; i--) {
        tessel_completion_t cpl;
        ok = tessel_wait(d, h[i], TMO, &cpl) == TESSEL_OK && cpl.tag == (uint32_t)h[i] && cpl.status == 0 &&
             cpl.opcode == ((i % 7 == 3) ? TSL_CMD_OP_FENCE : TSL_CMD_OP_NOP);
    }
    tu_check(&T, ok, "[%s] out-of-order waits on %d commands failed: %s", BACKEND, NCMD, tessel_last_error(d));
}

/* ------------------------------------------------------------------------------- errors */

static void cmd_err_suite(tessel_dev_t *d)
{
    tessel_addr_t a;
    tessel_info_t info;
    if (tessel_alloc(d, 4096, 64, &a) || tessel_info(d, &info)) {
        tu_check(&T, 0, "cmd_err_suite setup failed");
        return;
    }
    struct {
        const char *what;
        uint32_t w[16];
        int status;
        uint32_t detail;
    } cs[8];
    int nc = 0;
    for (int i = 0; i < 6; i++) {
        memset(&cs[i], 0, sizeof cs[i]);
        tessel_cmd_t g;
        cmd_init(&g, TSL_CMD_OP_GEMM, 0);
        TSL_SET(g.w, TSL_CMD_A_DTYPE, TSL_DTYPE_INT8);
        TSL_SET(g.w, TSL_CMD_B_DTYPE, TSL_DTYPE_INT8);
        TSL_SET(g.w, TSL_CMD_C_DTYPE, TSL_DTYPE_INT32);
        g.w[3] = 4; g.w[4] = 4; g.w[5] = 4;
        g.w[6] = (uint32_t)a; g.w[7] = 4; g.w[8] = (uint32_t)a + 64; g.w[9] = 4; g.w[10] = (uint32_t)a + 128; g.w[11] = 16;
        memcpy(cs[i].w, g.w, 64);
    }
    cs[nc].what = "BAD_OPCODE"; TSL_SET(cs[nc].w, TSL_CMD_OPCODE, TSL_CMD_OP_LIMIT); cs[nc].status = TSL_CMD_ERR_BAD_OPCODE; cs[nc++].detail = 0;
    cs[nc].what = "BAD_FLAGS (reserved flag)"; TSL_SET(cs[nc].w, TSL_CMD_FLAGS, CF(B_BCAST)); cs[nc].status = TSL_CMD_ERR_BAD_FLAGS; cs[nc++].detail = 0;
    cs[nc].what = "BAD_DTYPE"; TSL_SET(cs[nc].w, TSL_CMD_A_DTYPE, TSL_DTYPE_INT32); cs[nc].status = TSL_CMD_ERR_BAD_DTYPE; cs[nc++].detail = 2;
    cs[nc].what = "BAD_FLAGS (unused field)"; cs[nc].w[15] = 7; cs[nc].status = TSL_CMD_ERR_BAD_FLAGS; cs[nc++].detail = 15;
    cs[nc].what = "BAD_SHAPE"; cs[nc].w[3] = 0; cs[nc].status = TSL_CMD_ERR_BAD_SHAPE; cs[nc++].detail = 3;
    cs[nc].what = "BAD_ADDR"; cs[nc].w[10] = (uint32_t)info.hbm_bytes - 8; cs[nc].status = TSL_CMD_ERR_BAD_ADDR; cs[nc++].detail = 10;
    for (int i = 0; i < nc; i++) {
        tessel_cmd_t c;
        tessel_completion_t cpl;
        memcpy(c.w, cs[i].w, 64);
        memset(&cpl, 0xFF, sizeof cpl);
        int r = run(d, &c, &cpl);
        tu_check(&T, r == TESSEL_EDEVICE && cpl.status == cs[i].status && cpl.detail == cs[i].detail &&
                         strstr(tessel_last_error(d), tsl_cmd_err_name((uint32_t)cs[i].status)),
                 "[%s] invalid command %s: status %d, completion status %d detail %u (expected %d detail %u), "
                 "last error '%s'", BACKEND, cs[i].what, r, cpl.status, cpl.detail, cs[i].status, cs[i].detail,
                 tessel_last_error(d));
    }
    (void)tessel_free(d, a);
    /* the device still works after the errors */
    tessel_cmd_t nop;
    tessel_completion_t cpl;
    cmd_init(&nop, TSL_CMD_OP_NOP, 0);
    tu_check(&T, run(d, &nop, &cpl) == TESSEL_OK, "[%s] NOP after invalid commands failed", BACKEND);
}

static int expect(int got, int want, const char *call, const char *wname)
{
    return tu_check(&T, got == want, "[%s] %s returned %d, expected %d (%s)", BACKEND, call, got, want, wname);
}
#define EXPECT(call, want) expect((call), (want), #call, #want)

/* `call` refused with TESSEL_EINVAL and `why` in the device's last error. */
static void expect_why(tessel_dev_t *d, int got, const char *why, const char *call)
{
    tu_check(&T, got == TESSEL_EINVAL && strstr(tessel_last_error(d), why), "[%s] %s returned %d (%s), expected "
             "TESSEL_EINVAL and '%s'", BACKEND, call, got, tessel_last_error(d), why);
}
#define EXPECT_WHY(call, why) expect_why(d, (call), (why), #call)

static void arg_suite(tessel_dev_t *d)
{
    tessel_dev_t *nd = (tessel_dev_t *)1;
    tessel_open_opts_t bad = {.flags = 0x80};
    EXPECT(tessel_open(NULL, "model", NULL), TESSEL_EINVAL);
    EXPECT(tessel_open(&nd, NULL, NULL), TESSEL_EINVAL);
    tu_check(&T, nd == NULL, "tessel_open failure leaves *dev NULL");
    EXPECT(tessel_open(&nd, "bogus", NULL), TESSEL_ENODEV);
    tu_check(&T, strstr(tessel_last_error(NULL), "unknown backend 'bogus'") != NULL,
             "tessel_last_error(NULL) after an unknown backend: \"%s\"", tessel_last_error(NULL));
    EXPECT(tessel_open(&nd, "model", &bad), TESSEL_EINVAL);
    tu_check(&T, strstr(tessel_last_error(NULL), "flags") != NULL,
             "tessel_last_error(NULL) after bad flags: \"%s\"", tessel_last_error(NULL));
    tessel_close(NULL);
    tessel_info_t info;
    EXPECT(tessel_info(NULL, &info), TESSEL_EINVAL);
    EXPECT(tessel_info(d, NULL), TESSEL_EINVAL);
    EXPECT(tessel_info(d, &info), TESSEL_OK);
    tu_check(&T, !strcmp(info.backend, BACKEND) && info.n >= 4 && info.hbm_bytes >= (1u << 20) && info.vmem_bytes &&
                     info.acc_bytes && (info.features & 3u) == 3u && info.hbm_bytes_per_cycle,
             "tessel_info: backend %s n %u hbm %llu features %u", info.backend, info.n,
             (unsigned long long)info.hbm_bytes, info.features);

    /* convolution and pooling: every argument the commands cannot take */
    int8_t x8[64] = {0};
    int32_t y32[64];
    const tessel_conv2d_t cv = {.batch = 1, .h = 4, .w = 4, .c = 2, .cout = 2, .kh = 3, .kw = 3, .groups = 1,
                                .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .in_dtype = TESSEL_INT8,
                                .out_dtype = TESSEL_INT32, .x = x8, .weights = x8, .y = y32};
    tessel_conv2d_t cb = cv;
    EXPECT(tessel_conv2d(d, &cb, NULL), TESSEL_OK);
    EXPECT(tessel_conv2d(NULL, &cb, NULL), TESSEL_EINVAL);
    EXPECT(tessel_conv2d(d, NULL, NULL), TESSEL_EINVAL);
    cb.x = NULL;
    EXPECT(tessel_conv2d(d, &cb, NULL), TESSEL_EINVAL);
    cb = cv;
    cb.kh = 5;                       /* larger than the input */
    EXPECT(tessel_conv2d(d, &cb, NULL), TESSEL_EINVAL);
    cb.pad_t = 1;                    /* fits with the padding */
    EXPECT(tessel_conv2d(d, &cb, NULL), TESSEL_OK);
    cb = cv;
    cb.groups = 3;                   /* does not divide c */
    EXPECT(tessel_conv2d(d, &cb, NULL), TESSEL_EINVAL);
    cb = cv;
    cb.stride_w = 256;
    EXPECT(tessel_conv2d(d, &cb, NULL), TESSEL_EINVAL);
    /* a field of 0 is refused, naming it (never read as 1) */
#define WIN_ZERO(op, b, v, field)                                                                                \
    do {                                                                                                         \
        b = v;                                                                                                   \
        b.field = 0;                                                                                             \
        EXPECT_WHY(tessel_##op(d, &b, NULL), "tessel_" #op ": " #field " 0 is outside 1..");                     \
    } while (0)
    WIN_ZERO(conv2d, cb, cv, stride_h);
    WIN_ZERO(conv2d, cb, cv, dil_w);
    WIN_ZERO(conv2d, cb, cv, groups);
    cb = cv;
    cb.x_zero_point = 128;
    EXPECT(tessel_conv2d(d, &cb, NULL), TESSEL_EINVAL);
    cb = cv;
    cb.out_dtype = TESSEL_FP32;
    EXPECT(tessel_conv2d(d, &cb, NULL), TESSEL_EINVAL);
    cb = cv;
    cb.rq_shift = 3;                 /* requantisation of an int32 output */
    EXPECT(tessel_conv2d(d, &cb, NULL), TESSEL_EINVAL);
    const tessel_pool2d_t pv = {.kind = TESSEL_POOL_MAX, .batch = 1, .h = 4, .w = 4, .c = 2, .kh = 2, .kw = 2,
                                .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .in_dtype = TESSEL_INT8,
                                .out_dtype = TESSEL_INT8, .x = x8, .y = y32};
    tessel_pool2d_t pb = pv;
    EXPECT(tessel_pool2d(d, &pb, NULL), TESSEL_OK);
    pb.x_zero_point = 3;             /* max pooling has no padding value */
    EXPECT(tessel_pool2d(d, &pb, NULL), TESSEL_EINVAL);
    pb = pv;
    pb.kind = (tessel_pool_kind_t)2;
    EXPECT(tessel_pool2d(d, &pb, NULL), TESSEL_EINVAL);
    pb = pv;
    pb.out_dtype = TESSEL_INT32;
    EXPECT(tessel_pool2d(d, &pb, NULL), TESSEL_EINVAL);
    WIN_ZERO(pool2d, pb, pv, h);
    WIN_ZERO(pool2d, pb, pv, stride_w);
    float fx[8] = {0}, fy[8];
    const tessel_rows_t rv = {2, 4, TESSEL_FP32, TESSEL_FP32, fx, 4, fy, 4, NULL};
    tessel_rows_t rb = rv;
    EXPECT(tessel_softmax(d, &rb, 1.0f, NULL, NULL), TESSEL_OK);
    EXPECT(tessel_softmax(NULL, &rb, 1.0f, NULL, NULL), TESSEL_EINVAL);
    EXPECT(tessel_gelu(d, NULL, NULL), TESSEL_EINVAL);
    EXPECT(tessel_layernorm(d, &rb, NULL, NULL, 1e-5f, NULL), TESSEL_EINVAL);   /* no gamma */
    EXPECT(tessel_rmsnorm(d, &rb, fx, 1e-5f, NULL), TESSEL_OK);
    rb.ldx = 3;
    EXPECT(tessel_silu(d, &rb, NULL), TESSEL_EINVAL);
    rb = rv;
    rb.in_dtype = TESSEL_INT8;
    EXPECT(tessel_silu(d, &rb, NULL), TESSEL_EINVAL);
    rb = rv;
    rb.m = 0;
    EXPECT(tessel_gelu(d, &rb, NULL), TESSEL_EINVAL);
    rb = rv;
    rb.residual = fx;   /* only the norms add a residual */
    EXPECT(tessel_softmax(d, &rb, 1.0f, NULL, NULL), TESSEL_EINVAL);
    EXPECT(tessel_add(d, &rb, fx, NULL), TESSEL_EINVAL);
    EXPECT(tessel_rmsnorm(d, &rb, fx, 1e-5f, NULL), TESSEL_OK);
    tu_check(&T, tessel_window_out(4, 1, 1, 3, 2, 1) == 2 && tessel_window_out(4, 0, 0, 5, 1, 1) == 0 &&
                     tessel_window_out(9, 0, 0, 3, 1, 2) == 5 && tessel_window_out(4, 0, 0, 2, 0, 1) == 0,
             "tessel_window_out");

    /* allocator */
    tessel_addr_t a = 0, b = 0, c = 0;
    EXPECT(tessel_alloc(NULL, 64, 64, &a), TESSEL_EINVAL);
    EXPECT(tessel_alloc(d, 64, 64, NULL), TESSEL_EINVAL);
    EXPECT(tessel_alloc(d, 0, 64, &a), TESSEL_EINVAL);
    EXPECT(tessel_alloc(d, 64, 3, &a), TESSEL_EINVAL);
    EXPECT(tessel_alloc(d, 64, (size_t)info.hbm_bytes * 2, &a), TESSEL_EINVAL);
    EXPECT(tessel_alloc(d, (size_t)info.hbm_bytes, 64, &a), TESSEL_ENOMEM);
    EXPECT(tessel_alloc(d, SIZE_MAX, 64, &a), TESSEL_ENOMEM);
    EXPECT(tessel_alloc(d, 100, 0, &a), TESSEL_OK);
    EXPECT(tessel_alloc(d, 1, 4096, &b), TESSEL_OK);
    tu_check(&T, a % 64 == 0 && b % 4096 == 0 && b >= a + 100, "alloc alignment/placement: a 0x%llx b 0x%llx",
             (unsigned long long)a, (unsigned long long)b);
    EXPECT(tessel_free(d, a), TESSEL_OK);
    EXPECT(tessel_alloc(d, 64, 64, &c), TESSEL_OK);
    tu_check(&T, c == a, "first fit reuses the freed block");
    EXPECT(tessel_free(d, c), TESSEL_OK);
    EXPECT(tessel_free(d, c), TESSEL_EINVAL);          /* double free */
    EXPECT(tessel_free(d, b + 1), TESSEL_EINVAL);      /* inside a block */
    EXPECT(tessel_free(d, 0x7777777), TESSEL_EINVAL);  /* never allocated */
    EXPECT(tessel_free(NULL, b), TESSEL_EINVAL);
    EXPECT(tessel_free(d, b), TESSEL_OK);
    tessel_addr_t big;   /* all of the usable HBM in one block, then nothing fits */
    if (EXPECT(tessel_alloc(d, (size_t)info.hbm_bytes - TESSEL_HBM_RESERVED, 64, &big), TESSEL_OK)) {
        EXPECT(tessel_alloc(d, 1, 1, &a), TESSEL_ENOMEM);
        EXPECT(tessel_free(d, big), TESSEL_OK);
    }

    /* read / write */
    uint8_t buf[16] = {1, 2, 3};
    EXPECT(tessel_alloc(d, 16, 64, &a), TESSEL_OK);
    EXPECT(tessel_write(NULL, a, buf, 16), TESSEL_EINVAL);
    EXPECT(tessel_write(d, a, NULL, 16), TESSEL_EINVAL);
    EXPECT(tessel_write(d, a, buf, 0), TESSEL_EINVAL);
    EXPECT(tessel_write(d, info.hbm_bytes - 8, buf, 16), TESSEL_ERANGE);
    EXPECT(tessel_write(d, UINT64_MAX - 4, buf, 16), TESSEL_ERANGE);
    EXPECT(tessel_write(d, 0, buf, 16), TESSEL_ERANGE);   /* the reserved ring region */
    EXPECT(tessel_write(d, a, buf, SIZE_MAX), TESSEL_ERANGE);
    EXPECT(tessel_read(NULL, buf, a, 16), TESSEL_EINVAL);
    EXPECT(tessel_read(d, NULL, a, 16), TESSEL_EINVAL);
    EXPECT(tessel_read(d, buf, a, 0), TESSEL_EINVAL);
    EXPECT(tessel_read(d, buf, info.hbm_bytes, 1), TESSEL_ERANGE);
    EXPECT(tessel_read(d, buf, 64, 16), TESSEL_ERANGE);
    uint8_t back[16];
    EXPECT(tessel_write(d, a, buf, 16), TESSEL_OK);
    EXPECT(tessel_read(d, back, a, 16), TESSEL_OK);
    tu_check(&T, !memcmp(buf, back, 16), "write/read round trip");
    EXPECT(tessel_free(d, a), TESSEL_OK);

    /* submit / wait */
    tessel_cmd_t nop;
    tessel_handle_t h;
    tessel_completion_t cpl;
    cmd_init(&nop, TSL_CMD_OP_NOP, 0);
    EXPECT(tessel_submit(NULL, &nop, &h), TESSEL_EINVAL);
    EXPECT(tessel_submit(d, NULL, &h), TESSEL_EINVAL);
    EXPECT(tessel_submit(d, &nop, NULL), TESSEL_EINVAL);
    EXPECT(tessel_wait(NULL, 1, 10, &cpl), TESSEL_EINVAL);
    EXPECT(tessel_wait(d, 0xDEADBEEFull, 10, &cpl), TESSEL_EINVAL);   /* never submitted */
    EXPECT(tessel_submit(d, &nop, &h), TESSEL_OK);
    EXPECT(tessel_wait(d, h, 0, &cpl), TESSEL_ETIMEOUT);              /* 0 ms: one look, then give up */
    tu_check(&T, strstr(tessel_last_error(d), "no completion") != NULL, "timeout message: %s", tessel_last_error(d));
    EXPECT(tessel_wait(d, h, TMO, NULL), TESSEL_OK);                  /* still outstanding: completes */
    EXPECT(tessel_wait(d, h, TMO, &cpl), TESSEL_EINVAL);              /* already waited for */

    /* stats */
    tessel_stats_t st;
    EXPECT(tessel_stats(NULL, &st), TESSEL_EINVAL);
    EXPECT(tessel_stats(d, NULL), TESSEL_EINVAL);
    tessel_stats_reset(NULL);

    /* gemm */
    int8_t A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1};
    int32_t C[4];
    tessel_gemm_t g0 = {.m = 2, .n = 2, .k = 2, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32, .a = A, .lda = 2,
                        .b = B, .ldb = 2, .c = C, .ldc = 2, .scale = 1.0f}, g;
    EXPECT(tessel_gemm(d, &g0, NULL), TESSEL_OK);
    tu_check(&T, C[0] == 1 && C[1] == 2 && C[2] == 3 && C[3] == 4, "2x2 identity GEMM");
    EXPECT(tessel_gemm(NULL, &g0, NULL), TESSEL_EINVAL);
    EXPECT(tessel_gemm(d, NULL, NULL), TESSEL_EINVAL);
    EXPECT_WHY(tessel_bmm(d, &g0, 0), "tessel_bmm: batch 0 must be at least 1");
#define GBAD(field, value, want) do { g = g0; g.field = value; EXPECT(tessel_gemm(d, &g, NULL), want); } while (0)
    GBAD(m, 0, TESSEL_EINVAL);
    GBAD(n, 0, TESSEL_EINVAL);
    GBAD(k, 0, TESSEL_EINVAL);
    GBAD(a, NULL, TESSEL_EINVAL);
    GBAD(b, NULL, TESSEL_EINVAL);
    GBAD(c, NULL, TESSEL_EINVAL);
    GBAD(lda, 1, TESSEL_EINVAL);
    GBAD(ldb, 1, TESSEL_EINVAL);
    GBAD(ldc, 1, TESSEL_EINVAL);
    GBAD(in_dtype, TESSEL_INT32, TESSEL_EINVAL);
    GBAD(in_dtype, (tessel_dtype_t)7, TESSEL_EINVAL);
    GBAD(out_dtype, TESSEL_FP32, TESSEL_EINVAL);       /* int8 in, float out */
    GBAD(out_dtype, (tessel_dtype_t)9, TESSEL_EINVAL);
    GBAD(scale, 2.0f, TESSEL_EINVAL);                  /* scale with an integer C */
    GBAD(rq_shift, 3, TESSEL_EINVAL);                  /* requant fields without an INT8 C */
    GBAD(rq_scale, 3, TESSEL_EINVAL);
    GBAD(rq_zero_point, 3, TESSEL_EINVAL);
    g = g0; g.out_dtype = TESSEL_INT8; g.rq_shift = 63; EXPECT(tessel_gemm(d, &g, NULL), TESSEL_EINVAL);
    g = g0; g.in_dtype = TESSEL_BF16; g.out_dtype = TESSEL_INT32; EXPECT(tessel_gemm(d, &g, NULL), TESSEL_EINVAL);
    g = g0; g.m = 1u << 30; g.k = 1u << 10; g.lda = g.k; EXPECT(tessel_gemm(d, &g, NULL), TESSEL_ENOMEM); /* huge */

    /* custom kernels: the argument checks (nothing allocated or submitted), and a run of a hand-assembled
     * image that returns args[0] + args[1]: on the sim its sum, on the model the refusal */
    static const uint32_t img[4] = {0x00452583u /* lw a1, 4(a0) */, 0x00052503u /* lw a0, 0(a0) */,
                                    0x00b50533u /* add a0, a0, a1 */, 0x00008067u /* ret */};
    tessel_kernel_t k = {0, 0}, none = {0, 0};
    EXPECT(tessel_kernel_load(NULL, img, sizeof img, &k), TESSEL_EINVAL);
    EXPECT(tessel_kernel_load(d, NULL, sizeof img, &k), TESSEL_EINVAL);
    EXPECT(tessel_kernel_load(d, img, sizeof img, NULL), TESSEL_EINVAL);
    EXPECT(tessel_kernel_load(d, img, 0, &k), TESSEL_EINVAL);
    EXPECT(tessel_kernel_load(d, img, 6, &k), TESSEL_EINVAL);
    EXPECT(tessel_kernel_load(d, img, TESSEL_KERNEL_MAX_BYTES + 4u, &k), TESSEL_EINVAL);
    tu_check(&T, k.addr == 0 && strstr(tessel_last_error(d), "kernel region") != NULL,
             "[%s] a refused kernel image: nothing loaded, \"%s\"", BACKEND, tessel_last_error(d));
    uint32_t kargs[TESSEL_KERNEL_ARGS + 1] = {1000, 234};
    EXPECT(tessel_kernel_run(d, &none, kargs, 2, 0, NULL), TESSEL_EINVAL);
    EXPECT(tessel_kernel_load(d, img, sizeof img, &k), TESSEL_OK);
    EXPECT(tessel_kernel_run(NULL, &k, kargs, 2, 0, NULL), TESSEL_EINVAL);
    EXPECT(tessel_kernel_run(d, NULL, kargs, 2, 0, NULL), TESSEL_EINVAL);
    EXPECT(tessel_kernel_run(d, &k, kargs, TESSEL_KERNEL_ARGS + 1u, 0, NULL), TESSEL_EINVAL);
    EXPECT(tessel_kernel_run(d, &k, NULL, 2, 0, NULL), TESSEL_EINVAL);
    EXPECT(tessel_kernel_run(d, &k, kargs, 2, (uint64_t)UINT32_MAX + 1u, NULL), TESSEL_EINVAL);
    tessel_completion_t kc;
    int kr = tessel_kernel_run(d, &k, kargs, 2, 0, &kc);
    if (SIM)
        tu_check(&T, kr == TESSEL_OK && kc.status == 0 && kc.opcode == TSL_CMD_OP_KERNEL && kc.detail == 1234,
                 "[%s] a kernel returning args[0] + args[1]: %d, status %d, detail %u (expected 1234)", BACKEND, kr,
                 kc.status, kc.detail);
    else
        tu_check(&T, kr == TESSEL_EDEVICE && kc.status == TSL_CMD_ERR_BAD_OPCODE &&
                         strstr(tessel_last_error(d), "cannot run kernels") != NULL,
                 "[%s] a kernel on a backend without a control core: %d, status %d, \"%s\"", BACKEND, kr, kc.status,
                 tessel_last_error(d));
    tessel_kernel_free(d, &k);
    tu_check(&T, k.addr == 0 && k.bytes == 0, "[%s] tessel_kernel_free zeroes the kernel", BACKEND);
    tessel_kernel_free(d, &k);
    tessel_kernel_free(d, NULL);
    tessel_kernel_free(NULL, &k);
    EXPECT(tessel_kernel_run(d, &k, kargs, 2, 0, NULL), TESSEL_EINVAL);

    /* strerror / last_error */
    const int codes[] = {TESSEL_OK, TESSEL_EINVAL, TESSEL_ENOMEM, TESSEL_ETIMEOUT, TESSEL_EDEVICE, TESSEL_ENODEV,
                         TESSEL_ERANGE, TESSEL_EIO, TESSEL_EMISMATCH};
    int distinct = 1;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        for (size_t j = 0; j < i; j++)
            distinct &= strcmp(tessel_strerror(codes[i]), tessel_strerror(codes[j])) != 0;
    tu_check(&T, distinct && tessel_strerror(-99) && tessel_strerror(5) && tessel_last_error(NULL),
             "tessel_strerror: distinct texts, never NULL");
}

/* GEMM stats: commands, MACs (M x Kp x Np, N-padded) and compulsory HBM bytes. */
/* A command of `op` on dtypes a, b, c (c also for COPY's bytes) with M, N, K and the operands. */
/* ---- the encoders of device buffers ----------------------------------------------------------- */
/* A value in -4..4 rounded to bf16: host calls and device buffers hold the same. */
static float bf16_val(void)
{
    return ref_f((uint32_t)ref_bf16(ref_u((float)((int32_t)below(2049) - 1024) / 256.0f)) << 16);
}

/* Upload n bytes to a new buffer (0 on failure). */
static tessel_addr_t enc_put(tessel_dev_t *d, const void *p, size_t n)
{
    tessel_addr_t a = 0;
    if (tessel_alloc(d, n, 64, &a) || (p && tessel_write(d, a, p, n)))
        return 0;
    return a;
}

/* The floats of x as bf16 bits. */
static uint16_t *bf16_of(const float *x, size_t n)
{
    uint16_t *b = xmalloc(2u * n + 2u);
    for (size_t i = 0; i < n; i++)
        b[i] = ref_bf16(ref_u(x[i]));
    return b;
}

/* Submit `cmd`, wait, read `bytes` at `out` into got; 1 when all went well. */
static int enc_run(tessel_dev_t *d, const tessel_cmd_t *cmd, tessel_addr_t out, void *got, size_t bytes,
                   const char *what)
{
    tessel_completion_t cpl = {0};
    int r = run(d, cmd, &cpl);
    return tu_check(&T, r == TESSEL_OK && tessel_read(d, got, out, bytes) == TESSEL_OK, "[%s] %s: %d, %s", BACKEND,
                    what, r, tessel_last_error(d));
}

/* The first element where got and want differ (bit for bit), reported; 1 when none. */
static int enc_same(const void *got, const void *want, size_t n, size_t es, const char *what)
{
    const uint8_t *g = got, *w = want;
    size_t i = 0;
    while (i < n && !memcmp(g + i * es, w + i * es, es))
        i++;
    uint32_t gv = 0, wv = 0;
    if (i < n) {
        memcpy(&gv, g + i * es, es);
        memcpy(&wv, w + i * es, es);
    }
    return tu_check(&T, i == n, "[%s] %s: element %zu: got 0x%x, expected 0x%x", BACKEND, what, i, gv, wv);
}

static void free_all(tessel_dev_t *d, tessel_addr_t *a, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i])
            (void)tessel_free(d, a[i]);
}

/* Every encoder's refusals: TESSEL_EINVAL for what the command cannot express, TESSEL_ERANGE for an
 * address past 32 bits, the command untouched. */
static void encoder_args(tessel_dev_t *d)
{
    tessel_cmd_t cmd, keep;
    memset(&keep, 0xA5, sizeof keep);
    cmd = keep;
    const tessel_addr_t A = TESSEL_HBM_RESERVED, FAR = 1ull << 33;
    const tessel_conv2d_op_t cv = {.batch = 1, .h = 4, .w = 4, .c = 2, .cout = 2, .kh = 3, .kw = 3, .groups = 1,
                                   .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32, .x = A, .weights = A, .y = A};
    tessel_conv2d_op_t c = cv;
    EXPECT(tessel_conv2d_cmd(d, &c, &cmd), TESSEL_OK);
    cmd = keep;
    EXPECT(tessel_conv2d_cmd(NULL, &c, &cmd), TESSEL_EINVAL);
    EXPECT(tessel_conv2d_cmd(d, NULL, &cmd), TESSEL_EINVAL);
    EXPECT(tessel_conv2d_cmd(d, &c, NULL), TESSEL_EINVAL);
    c.in_dtype = TESSEL_FP32;        /* bad dtype */
    EXPECT(tessel_conv2d_cmd(d, &c, &cmd), TESSEL_EINVAL);
    c = cv;
    c.h = 0;                         /* zero shape */
    EXPECT(tessel_conv2d_cmd(d, &c, &cmd), TESSEL_EINVAL);
    c = cv;
    c.kh = 256;                      /* window past its 8 bits */
    c.h = 300;
    EXPECT(tessel_conv2d_cmd(d, &c, &cmd), TESSEL_EINVAL);
    c = cv;
    c.pad_l = 256;
    EXPECT(tessel_conv2d_cmd(d, &c, &cmd), TESSEL_EINVAL);
    c = cv;
    c.cout = 65536;
    EXPECT(tessel_conv2d_cmd(d, &c, &cmd), TESSEL_EINVAL);
    c = cv;
    c.weights = FAR;
    EXPECT(tessel_conv2d_cmd(d, &c, &cmd), TESSEL_ERANGE);
    tu_check(&T, !memcmp(&cmd, &keep, sizeof cmd), "tessel_conv2d_cmd: a refusal leaves the command untouched");

    const tessel_pool2d_op_t pv = {.kind = TESSEL_POOL_AVG, .batch = 1, .h = 4, .w = 4, .c = 2, .kh = 2, .kw = 2,
                                   .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .in_dtype = TESSEL_BF16, .out_dtype = TESSEL_FP32, .x = A, .y = A};
    tessel_pool2d_op_t p = pv;
    EXPECT(tessel_pool2d_cmd(d, &p, &cmd), TESSEL_OK);
    p.kind = TESSEL_POOL_MAX;        /* a max pool keeps its dtype */
    EXPECT(tessel_pool2d_cmd(d, &p, &cmd), TESSEL_EINVAL);
    p = pv;
    p.c = 0;
    EXPECT(tessel_pool2d_cmd(d, &p, &cmd), TESSEL_EINVAL);
    p = pv;
    p.kw = 5;                        /* larger than the input */
    EXPECT(tessel_pool2d_cmd(d, &p, &cmd), TESSEL_EINVAL);
    p = pv;
    p.dil_h = 256;
    EXPECT(tessel_pool2d_cmd(d, &p, &cmd), TESSEL_EINVAL);
    p = pv;
    p.y = FAR;
    EXPECT(tessel_pool2d_cmd(d, &p, &cmd), TESSEL_ERANGE);

    const tessel_rows_op_t rv = {.fn = TESSEL_ROW_LAYERNORM, .m = 2, .n = 4, .in_dtype = TESSEL_FP32,
                                 .out_dtype = TESSEL_BF16, .x = A, .y = A, .ldx = 4, .ldy = 4, .gamma = A, .eps = 1e-5f};
    tessel_rows_op_t r = rv;
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_OK);
    r.fn = (tessel_row_fn_t)6;
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_EINVAL);
    r = rv;
    r.in_dtype = TESSEL_INT8;
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_EINVAL);
    r = rv;
    r.m = 0;
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_EINVAL);
    r = rv;
    r.gamma = 0;                     /* a norm without gamma */
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_EINVAL);
    r = rv;
    r.ldy = 3;                       /* shorter than a row */
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_EINVAL);
    r = rv;
    r.scale = 2.0f;                  /* a softmax field */
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_EINVAL);
    r = rv;
    r.eps = -1.0f;
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_EINVAL);
    r = rv;
    r.fn = TESSEL_ROW_RMSNORM;
    r.beta = A;                      /* beta is LAYERNORM's */
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_EINVAL);
    r = rv;
    r.fn = TESSEL_ROW_SOFTMAX;
    r.gamma = 0;
    r.eps = 0.0f;
    r.mask = FAR;
    r.ldmask = 4;
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_ERANGE);
    r.mask = A;
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_OK);
    r.ldmask = 0;                    /* 0: dense */
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_OK);
    r.ldmask = 3;
    EXPECT(tessel_rowwise_cmd(d, &r, &cmd), TESSEL_EINVAL);

    const tessel_ew_op_t ev = {.op = TESSEL_EW_ADD, .m = 2, .n = 4, .in_dtype = TESSEL_BF16, .out_dtype = TESSEL_FP32,
                               .x = A, .y = A, .b = A, .ldx = 4, .ldy = 4, .ldb = 4};
    tessel_ew_op_t e = ev;
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_OK);
    e.op = (tessel_eltwise_op_t)9;
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_EINVAL);
    e = ev;
    e.op = TESSEL_EW_EXP;            /* unary, given b */
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_EINVAL);
    e = ev;
    e.b = 0;                         /* binary without B */
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_EINVAL);
    e.b_imm = 1;
    e.ldb = 0;
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_OK);
    e.b_row = 1;                     /* two B */
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_EINVAL);
    e = ev;
    e.imm = 1.0f;                    /* imm without b_imm */
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_EINVAL);
    e = ev;
    e.in_dtype = TESSEL_INT32;
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_EINVAL);
    e = ev;
    e.n = 0;
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_EINVAL);
    e = ev;
    e.ldb = 3;
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_EINVAL);
    e = ev;
    e.x = FAR;
    EXPECT(tessel_eltwise_cmd(d, &e, &cmd), TESSEL_ERANGE);

    const tessel_attention_op_t av = {.batch = 2, .lq = 4, .lk = 8, .d = 8, .dv = 4, .q = A, .k = A, .v = A, .o = A,
                                      .ldq = 8, .ldk = 8, .ldv = 4, .ldo = 4, .out_dtype = TESSEL_FP32};
    tessel_attention_op_t a = av;
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_OK);
    a.out_dtype = TESSEL_INT8;
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_EINVAL);
    a = av;
    a.lq = 0;
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_EINVAL);
    a = av;
    a.lk = 65536;
    a.ldk = 65536;
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_EINVAL);
    a = av;
    a.lq = 9;                        /* causal, more queries than keys */
    a.causal = 1;
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_EINVAL);
    a = av;
    a.head_columns = 1;              /* a row of Q holds both heads: 16 values */
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_EINVAL);
    a.ldq = 16;
    a.ldv = 8;
    a.ldo = 8;
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_OK);
    a.k_rows = 1;                    /* K laid out as Q: rows of 2 x d */
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_EINVAL);
    a.ldk = 16;
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_OK);
    a = av;
    a.scale = INFINITY;
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_EINVAL);
    a = av;
    a.o = FAR;
    EXPECT(tessel_attention_cmd(d, &a, &cmd), TESSEL_ERANGE);
    tessel_gemm_op_t g = {.m = 2, .n = 2, .k = 2, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32, .a = A, .b = A,
                          .c = FAR, .lda = 2, .ldb = 2, .ldc = 2};
    EXPECT(tessel_gemm_cmd(d, &g, &cmd), TESSEL_ERANGE);
}

/* CONV2D and POOL2D: the encoder's command on device buffers against tessel_conv2d and tessel_pool2d. */
static void encoder_window(tessel_dev_t *d)
{
    const tessel_conv2d_t cv = {.batch = 2, .h = 6, .w = 5, .c = 4, .cout = 6, .kh = 3, .kw = 2, .groups = 2,
                                .stride_h = 2, .stride_w = 1, .dil_h = 1, .dil_w = 1, .pad_t = 1, .pad_b = 1,
                                .pad_r = 1, .in_dtype = TESSEL_INT8,
                                .out_dtype = TESSEL_INT8, .relu = 1, .x_zero_point = -3, .rq_scale = 1 << 20,
                                .rq_shift = 24, .rq_zero_point = 5};
    const uint32_t oh = tessel_window_out(6, 1, 1, 3, 2, 1), ow = tessel_window_out(5, 0, 1, 2, 1, 1);
    const size_t xn = 2u * 6 * 5 * 4, wn = 3u * 2 * 2 * 6, yn = 2u * oh * ow * 6;
    int8_t *x = xmalloc(xn), *w = xmalloc(wn), *y = xmalloc(yn), *got = xmalloc(yn);
    int32_t bias[6];
    for (size_t i = 0; i < xn; i++)
        x[i] = (int8_t)(rnd() & 0xFF);
    for (size_t i = 0; i < wn; i++)
        w[i] = (int8_t)(rnd() & 0xFF);
    for (int i = 0; i < 6; i++)
        bias[i] = (int32_t)below(20001) - 10000;
    tessel_conv2d_t c = cv;
    c.x = x;
    c.weights = w;
    c.y = y;
    c.bias = bias;
    tessel_addr_t at[4] = {enc_put(d, x, xn), enc_put(d, w, wn), enc_put(d, NULL, yn), enc_put(d, bias, sizeof bias)};
    tessel_cmd_t cmd;
    const tessel_conv2d_op_t op = {
        .batch = cv.batch, .h = cv.h, .w = cv.w, .c = cv.c, .cout = cv.cout, .kh = cv.kh, .kw = cv.kw,
        .groups = cv.groups, .stride_h = cv.stride_h, .stride_w = cv.stride_w, .dil_h = cv.dil_h, .dil_w = cv.dil_w,
        .pad_t = cv.pad_t, .pad_b = cv.pad_b, .pad_r = cv.pad_r,
        .in_dtype = cv.in_dtype, .out_dtype = cv.out_dtype, .x = at[0], .weights = at[1], .y = at[2], .bias = at[3],
        .relu = 1, .x_zero_point = cv.x_zero_point, .rq_scale = cv.rq_scale, .rq_shift = cv.rq_shift,
        .rq_zero_point = cv.rq_zero_point};
    if (tu_check(&T, at[0] && at[1] && at[2] && at[3] && tessel_conv2d(d, &c, NULL) == TESSEL_OK &&
                         tessel_conv2d_cmd(d, &op, &cmd) == TESSEL_OK,
                 "[%s] conv2d encoder: set-up: %s", BACKEND, tessel_last_error(d)) &&
        enc_run(d, &cmd, at[2], got, yn, "tessel_conv2d_cmd"))
        enc_same(got, y, yn, 1, "tessel_conv2d_cmd (int8, groups, bias, relu, requant) vs tessel_conv2d");
    free_all(d, at, 4);
    free(x); free(w); free(y); free(got);

    /* an average pool of bf16 into fp32 */
    const size_t pn = 1u * 7 * 6 * 3, qn = 1u * tessel_window_out(7, 1, 1, 3, 2, 1) * tessel_window_out(6, 1, 0, 3, 2, 1) * 3;
    float *px = xmalloc(4u * pn), *py = xmalloc(4u * qn), *pg = xmalloc(4u * qn);
    for (size_t i = 0; i < pn; i++)
        px[i] = bf16_val();
    uint16_t *pb = bf16_of(px, pn);
    const tessel_pool2d_t pv = {.kind = TESSEL_POOL_AVG, .batch = 1, .h = 7, .w = 6, .c = 3, .kh = 3, .kw = 3,
                                .stride_h = 2, .stride_w = 2, .pad_t = 1, .pad_b = 1, .pad_l = 1, .dil_h = 1, .dil_w = 1,
                                .in_dtype = TESSEL_BF16, .out_dtype = TESSEL_FP32, .x = px, .y = py};
    tessel_addr_t pa[2] = {enc_put(d, pb, 2u * pn), enc_put(d, NULL, 4u * qn)};
    const tessel_pool2d_op_t pop = {.kind = pv.kind, .batch = 1, .h = 7, .w = 6, .c = 3, .kh = 3, .kw = 3,
                                    .stride_h = 2, .stride_w = 2, .pad_t = 1, .pad_b = 1, .pad_l = 1, .dil_h = 1,
                                    .dil_w = 1, .in_dtype = TESSEL_BF16, .out_dtype = TESSEL_FP32, .x = pa[0], .y = pa[1]};
    if (tu_check(&T, pa[0] && pa[1] && tessel_pool2d(d, &pv, NULL) == TESSEL_OK &&
                         tessel_pool2d_cmd(d, &pop, &cmd) == TESSEL_OK,
                 "[%s] pool2d encoder: set-up: %s", BACKEND, tessel_last_error(d)) &&
        enc_run(d, &cmd, pa[1], pg, 4u * qn, "tessel_pool2d_cmd"))
        enc_same(pg, py, qn, 4, "tessel_pool2d_cmd (bf16 average, padded) vs tessel_pool2d");
    free_all(d, pa, 2);
    free(px); free(py); free(pg); free(pb);
}

/* ROWWISE and ELTWISE: the encoders' commands on strided device rows against the host calls and
 * float references. */
static void encoder_rows(tessel_dev_t *d)
{
    enum { M = 5, N = 19, LD = 23 };
    float x[M * LD], b[M * LD], mask[M * N], gamma[N], beta[N], want[M * N], got[M * LD];
    for (int i = 0; i < M * LD; i++) {
        x[i] = bf16_val();
        b[i] = bf16_val();
    }
    for (int i = 0; i < M * N; i++)
        mask[i] = (i % N) > (i / N) + 9 ? -INFINITY : 0.0f;
    for (int j = 0; j < N; j++) {
        gamma[j] = 0.5f + (float)below(100) / 100.0f;
        beta[j] = bf16_val();
    }
    /* the device's x: M rows of LD floats (N used); y: rows of LD too */
    tessel_addr_t at[6] = {enc_put(d, x, sizeof x), enc_put(d, NULL, sizeof got), enc_put(d, mask, sizeof mask),
                           enc_put(d, gamma, sizeof gamma), enc_put(d, beta, sizeof beta), enc_put(d, b, sizeof b)};
    int ok = tu_check(&T, at[0] && at[1] && at[2] && at[3] && at[4] && at[5], "[%s] rows encoder: buffers", BACKEND);
    const tessel_rows_t hr = {M, N, TESSEL_FP32, TESSEL_FP32, x, LD, want, N, NULL};
    tessel_cmd_t cmd;
    for (int t = 0; ok && t < 2; t++) {
        const tessel_rows_op_t op = {.fn = t ? TESSEL_ROW_LAYERNORM : TESSEL_ROW_SOFTMAX, .m = M, .n = N,
                                     .in_dtype = TESSEL_FP32, .out_dtype = TESSEL_FP32, .x = at[0], .ldx = LD,
                                     .y = at[1], .ldy = LD, .scale = t ? 0.0f : 0.75f, .mask = t ? 0u : at[2],
                                     .ldmask = t ? 0u : N, .gamma = t ? at[3] : 0u, .beta = t ? at[4] : 0u,
                                     .eps = t ? 1e-3f : 0.0f};
        const char *what = t ? "tessel_rowwise_cmd LAYERNORM (beta, strided) vs tessel_layernorm"
                             : "tessel_rowwise_cmd SOFTMAX (scale, mask, strided) vs tessel_softmax";
        int r = t ? tessel_layernorm(d, &hr, gamma, beta, 1e-3f, NULL) : tessel_softmax(d, &hr, 0.75f, mask, NULL);
        if (!tu_check(&T, r == TESSEL_OK && tessel_rowwise_cmd(d, &op, &cmd) == TESSEL_OK, "[%s] %s: set-up: %s",
                      BACKEND, what, tessel_last_error(d)) ||
            !enc_run(d, &cmd, at[1], got, sizeof got, what))
            continue;
        for (int i = 0; i < M; i++)
            if (!enc_same(got + i * LD, want + i * N, N, 4, what))
                break;
    }
    /* ELTWISE: B a matrix (MUL, against tessel_eltwise), a row (ADD) and a scalar (MAX), and MOV to BF16 */
    for (int t = 0; ok && t < 4; t++) {
        static const char *const what[] = {"tessel_eltwise_cmd MUL, B a matrix, vs tessel_eltwise",
                                           "tessel_eltwise_cmd ADD, B a row, vs x + b", "tessel_eltwise_cmd MAX, B "
                                           "the scalar 0.25, vs max(x, 0.25)", "tessel_eltwise_cmd MOV to BF16"};
        const tessel_ew_op_t op = {.op = t == 0 ? TESSEL_EW_MUL : t == 1 ? TESSEL_EW_ADD : t == 2 ? TESSEL_EW_MAX
                                                                                                   : TESSEL_EW_MOV,
                                   .m = M, .n = N, .in_dtype = TESSEL_FP32, .out_dtype = t == 3 ? TESSEL_BF16 : TESSEL_FP32,
                                   .x = at[0], .ldx = LD, .y = at[1], .ldy = LD, .b = t < 2 ? at[5] : 0u,
                                   .ldb = t == 0 ? LD : 0u, .b_row = t == 1, .b_imm = t == 2, .imm = t == 2 ? 0.25f : 0.0f};
        int r = TESSEL_OK;
        if (t == 0) {
            const tessel_rows_t er = {M, N, TESSEL_FP32, TESSEL_FP32, x, LD, want, N, NULL};
            float bd[M * LD];   /* tessel_eltwise reads b with x's stride */
            memcpy(bd, b, sizeof bd);
            r = tessel_eltwise(d, &er, TESSEL_EW_MUL, bd, NULL);
        }
        for (int i = 0; t && i < M; i++)
            for (int j = 0; j < N; j++) {
                float v = x[i * LD + j];
                want[i * N + j] = t == 1 ? v + b[j] : t == 2 ? (v > 0.25f ? v : 0.25f) : v;   /* bf16 values: MOV exact */
            }
        if (!tu_check(&T, r == TESSEL_OK && tessel_eltwise_cmd(d, &op, &cmd) == TESSEL_OK, "[%s] %s: set-up: %s",
                      BACKEND, what[t], tessel_last_error(d)) ||
            !enc_run(d, &cmd, at[1], got, sizeof got, what[t]))
            continue;
        if (t == 3) {   /* bf16 rows of LD: widen */
            uint16_t h[M * LD];
            memcpy(h, got, sizeof h);
            for (int i = 0; i < M * LD; i++)
                got[i] = ref_f((uint32_t)h[i] << 16);
        }
        for (int i = 0; i < M; i++)
            if (!enc_same(got + i * LD, want + i * N, N, 4, what[t]))
                break;
    }
    free_all(d, at, 6);
}

/* ATTENTION: the encoder's command with the heads side by side (HEAD_COLUMNS), K transposed, causal,
 * against tessel_attention of the same values, head by head. */
static void encoder_attention(tessel_dev_t *d)
{
    enum { B = 2, LQ = 6, LK = 10, D = 8, DV = 5 };
    float q[B * LQ * D], k[B * LK * D], v[B * LK * DV], o[B * LQ * DV];
    float qc[LQ * B * D], kt[B * D * LK], vc[LK * B * DV], oc[LQ * B * DV];
    for (int i = 0; i < B * LQ * D; i++)
        q[i] = bf16_val();
    for (int i = 0; i < B * LK * D; i++)
        k[i] = bf16_val();
    for (int i = 0; i < B * LK * DV; i++)
        v[i] = bf16_val();
    for (int h = 0; h < B; h++) {   /* the device's layouts: Q and V by columns, K transposed and stacked */
        for (int i = 0; i < LQ; i++)
            for (int c = 0; c < D; c++)
                qc[(i * B + h) * D + c] = q[(h * LQ + i) * D + c];
        for (int j = 0; j < LK; j++) {
            for (int c = 0; c < D; c++)
                kt[(h * D + c) * LK + j] = k[(h * LK + j) * D + c];
            for (int c = 0; c < DV; c++)
                vc[(j * B + h) * DV + c] = v[(h * LK + j) * DV + c];
        }
    }
    uint16_t *qb = bf16_of(qc, sizeof qc / 4), *kb = bf16_of(kt, sizeof kt / 4), *vb = bf16_of(vc, sizeof vc / 4);
    tessel_addr_t at[4] = {enc_put(d, qb, sizeof qc / 2), enc_put(d, kb, sizeof kt / 2), enc_put(d, vb, sizeof vc / 2),
                           enc_put(d, NULL, sizeof oc)};
    const tessel_attention_t ha = {B, LQ, LK, D, DV, q, k, v, o, 0.3f, 1, TESSEL_FP32};
    const tessel_attention_op_t op = {.batch = B, .lq = LQ, .lk = LK, .d = D, .dv = DV, .q = at[0], .k = at[1],
                                      .v = at[2], .o = at[3], .ldq = B * D, .ldk = LK, .ldv = B * DV, .ldo = B * DV,
                                      .scale = 0.3f, .causal = 1, .head_columns = 1, .out_dtype = TESSEL_FP32};
    tessel_cmd_t cmd;
    const char *what = "tessel_attention_cmd (HEAD_COLUMNS, causal) vs tessel_attention";
    if (tu_check(&T, at[0] && at[1] && at[2] && at[3] && tessel_attention(d, &ha, NULL) == TESSEL_OK &&
                         tessel_attention_cmd(d, &op, &cmd) == TESSEL_OK,
                 "[%s] %s: set-up: %s", BACKEND, what, tessel_last_error(d)) &&
        enc_run(d, &cmd, at[3], oc, sizeof oc, what)) {
        float want[LQ * B * DV];
        for (int h = 0; h < B; h++)
            for (int i = 0; i < LQ; i++)
                for (int c = 0; c < DV; c++)
                    want[(i * B + h) * DV + c] = o[(h * LQ + i) * DV + c];
        enc_same(oc, want, sizeof want / 4, 4, what);
    }
    free_all(d, at, 4);
    free(qb); free(kb); free(vb);
}

static void encoder_suite(tessel_dev_t *d)
{
    tessel_info_t info;
    encoder_args(d);
    if (tessel_info(d, &info) || !(info.features & (1u << TSL_TC_CFG_FEATURES_BF16_SHIFT)) ||
        !(info.features & (1u << TSL_TC_CFG_FEATURES_INT8_SHIFT)))
        return;
    encoder_window(d);
    encoder_rows(d);
    encoder_attention(d);
}

static tessel_cmd_t graph_cmd(uint32_t op, uint32_t vop, uint32_t dts, uint32_t m, uint32_t n, uint32_t k,
                              tessel_addr_t a, uint32_t lda, tessel_addr_t b, uint32_t ldb, tessel_addr_t c, uint32_t ldc)
{
    tessel_cmd_t x;
    cmd_init(&x, op, 0);
    x.w[TSL_CMD_A_DTYPE_WORD] = dts | vop << TSL_CMD_VPU_OP_SHIFT;
    x.w[TSL_CMD_M_WORD] = m;
    x.w[TSL_CMD_N_WORD] = n;
    x.w[TSL_CMD_K_WORD] = k;
    x.w[TSL_CMD_A_ADDR_WORD] = (uint32_t)a;
    x.w[TSL_CMD_LDA_WORD] = lda;
    x.w[TSL_CMD_B_ADDR_WORD] = (uint32_t)b;
    x.w[TSL_CMD_LDB_WORD] = ldb;
    x.w[TSL_CMD_C_ADDR_WORD] = (uint32_t)c;
    x.w[TSL_CMD_LDC_WORD] = ldc;
    return x;
}

/* Graphs (tessel_graph_*): a chain whose every command reads the one before (GEMM, softmax, GEMM,
 * ADD, COPY), run as one program on `d`, gives bit for bit what the commands give one by one on
 * the model, in every intermediate; refused commands leave the graph as it was. */
static void graph_suite(tessel_dev_t *d, tessel_dev_t *mdl)
{
    enum { BF = TSL_DTYPE_BF16, F32 = TSL_DTYPE_FP32 };
#define DTS(a, b, c) ((a) | (b) << 4 | (c) << 8)
    for (int t = 0; t < 3; t++) {
        uint32_t m = 1 + below(40), k = 1 + below(48), n = 1 + below(48), k2 = 1 + below(48);
        size_t bx = (size_t)m * k * 2, bw1 = (size_t)k * n * 2, bh = (size_t)m * n * 4, bp = (size_t)m * n * 2;
        size_t bw2 = (size_t)n * k2 * 2, bo = (size_t)m * k2 * 4;
        tessel_addr_t x = alloc2(d, mdl, bx), w1 = alloc2(d, mdl, bw1), h = alloc2(d, mdl, bh), p = alloc2(d, mdl, bp);
        tessel_addr_t w2 = alloc2(d, mdl, bw2), o = alloc2(d, mdl, bo), o2 = alloc2(d, mdl, bo), o3 = alloc2(d, mdl, bo);
        uint8_t *buf = xmalloc(bx + bw1 + bw2);
        for (size_t i = 0; i < (bx + bw1 + bw2) / 2; i++)
        {
            float f = rnd_float();
            uint32_t bits;
            memcpy(&bits, &f, 4);
            put16(buf + 2 * i, (uint16_t)(bits >> 16));   /* bf16: the high half */
        }
        write2(d, mdl, x, buf, bx);
        write2(d, mdl, w1, buf + bx, bw1);
        write2(d, mdl, w2, buf + bx + bw1, bw2);
        free(buf);
        tessel_cmd_t cmds[5] = {
            graph_cmd(TSL_CMD_OP_GEMM, 0, DTS(BF, BF, F32), m, n, k, x, 2 * k, w1, 2 * n, h, 4 * n),
            graph_cmd(TSL_CMD_OP_ROWWISE, TSL_ROW_OP_SOFTMAX, DTS(F32, 0, BF), m, n, 0, h, 4 * n, 0, 0, p, 2 * n),
            graph_cmd(TSL_CMD_OP_GEMM, 0, DTS(BF, BF, F32), m, k2, n, p, 2 * n, w2, 2 * k2, o, 4 * k2),
            graph_cmd(TSL_CMD_OP_ELTWISE, TSL_VPU_OP_ADD, DTS(F32, F32, F32), m, k2, 0, o, 4 * k2, o, 4 * k2, o2, 4 * k2),
            graph_cmd(TSL_CMD_OP_COPY, 0, 0, m, 4 * k2, 0, o2, 4 * k2, 0, 0, o3, 4 * k2),
        };
        tessel_graph_t *g = NULL;
        int ok = EXPECT(tessel_graph_create(d, &g), TESSEL_OK);
        for (int i = 0; ok && i < 5; i++) {
            ok &= EXPECT(tessel_graph_add(g, &cmds[i]), TESSEL_OK);
            if (i == 2) {   /* refused: K = 0; and an op a graph cannot hold */
                tessel_cmd_t bad = cmds[0], nop;
                bad.w[TSL_CMD_K_WORD] = 0;
                cmd_init(&nop, TSL_CMD_OP_NOP, 0);
                ok &= EXPECT(tessel_graph_add(g, &bad), TESSEL_EDEVICE);
                ok &= EXPECT(tessel_graph_add(g, &nop), TESSEL_EINVAL);
            }
        }
        for (int i = 0; i < 5; i++) {   /* the reference: one by one, on the model */
            tessel_completion_t c;
            ok &= EXPECT(run(mdl, &cmds[i], &c), TESSEL_OK);
        }
        for (int rep = 0; ok && rep < 2; rep++) {   /* run, then run again */
            tessel_handle_t hd;
            tessel_completion_t c;
            tessel_stats_t s0, s1;
            (void)tessel_stats(d, &s0);
            if (!EXPECT(tessel_graph_submit(g, &hd), TESSEL_OK) || !EXPECT(tessel_wait(d, hd, TMO, &c), TESSEL_OK))
                break;
            (void)tessel_stats(d, &s1);
            tu_check(&T, s1.submissions - s0.submissions == 1 && s1.commands - s0.commands == 5,
                     "[%s] graph: %llu submissions and %llu commands counted, expected 1 and 5", BACKEND,
                     (unsigned long long)(s1.submissions - s0.submissions),
                     (unsigned long long)(s1.commands - s0.commands));
            tu_check(&T, c.opcode == TSL_CMD_OP_GEMM, "[%s] graph: completion opcode %u, expected the first command's",
                     BACKEND, c.opcode);
            const tessel_addr_t outs[5] = {h, p, o, o2, o3};
            const size_t bytes[5] = {bh, bp, bo, bo, bo};
            for (int i = 0; i < 5; i++) {
                uint8_t *g1 = xmalloc(bytes[i]), *g2 = xmalloc(bytes[i]);
                if (!tessel_read(d, g1, outs[i], bytes[i]) && !tessel_read(mdl, g2, outs[i], bytes[i]))
                    tu_check(&T, !memcmp(g1, g2, bytes[i]), "[%s] graph %ux%ux%ux%u, run %d: output of command %d "
                             "differs from the commands one by one", BACKEND, m, k, n, k2, rep, i);
                free(g1);
                free(g2);
            }
        }
        tessel_graph_destroy(g);
        const tessel_addr_t all[8] = {x, w1, h, p, w2, o, o2, o3};
        for (int i = 0; i < 8; i++)
            free2(d, mdl, all[i]);
    }
    tessel_graph_t *e = NULL;
    if (EXPECT(tessel_graph_create(d, &e), TESSEL_OK)) {
        tessel_handle_t hh;
        EXPECT(tessel_graph_submit(e, &hh), TESSEL_EINVAL);   /* nothing in it */
        tessel_graph_destroy(e);
    }
    EXPECT(tessel_graph_create(NULL, &e), TESSEL_EINVAL);
#undef DTS
}

/* The program cache's counters since *s0 are `hits` and `misses`; *s0 becomes the counters now. */
static int cache_count(tessel_dev_t *d, tessel_stats_t *s0, uint64_t hits, uint64_t misses, const char *what)
{
    tessel_stats_t s1;
    (void)tessel_stats(d, &s1);
    uint64_t h = s1.program_cache_hits - s0->program_cache_hits, m = s1.program_cache_misses - s0->program_cache_misses;
    *s0 = s1;
    return tu_check(&T, h == hits && m == misses, "[%s] program cache, %s: %llu hits and %llu misses, expected %llu and %llu",
                    BACKEND, what, (unsigned long long)h, (unsigned long long)m, (unsigned long long)hits,
                    (unsigned long long)misses);
}

/* C (rows x n int32, ldc n) at `c` on `d` is the reference E's first rows. */
static void cache_out(tessel_dev_t *d, tessel_addr_t c, const int32_t *E, uint32_t rows, uint32_t n, const char *what)
{
    int32_t *g = xmalloc(4u * (size_t)rows * n);
    size_t i = 0;
    if (tessel_read(d, g, c, 4u * (size_t)rows * n) == TESSEL_OK)
        while (i < (size_t)rows * n && g[i] == E[i])
            i++;
    tu_check(&T, i == (size_t)rows * n, "[%s] program cache, %s: C[%zu] is %d, expected %d", BACKEND, what, i,
             i < (size_t)rows * n ? g[i] : 0, i < (size_t)rows * n ? E[i] : 0);
    free(g);
}

/* The program cache (docs/host-api.md, "Program cache"), emptied by tessel_reset first: the same
 * tessel_gemm three times is compiled once, its result bit for bit the reference's each time; a
 * command that differs in one shape or address word is compiled anew, and so is a command behind
 * another in a graph; a graph rebuilt with the same commands is compiled from the cache; a refusal
 * is cached as the same refusal; a command survives TESSEL_PROGRAM_CACHE_ENTRIES - 1 newer ones and
 * is compiled again after TESSEL_PROGRAM_CACHE_ENTRIES; tessel_reset empties the cache. */
static void cache_suite(tessel_dev_t *d, tessel_dev_t *mdl)
{
    enum { M = 9, K = 21, N = 7, ENT = TESSEL_PROGRAM_CACHE_ENTRIES };
    int8_t A[M * K], B[K * N];
    int32_t E[M * N], C[M * N], C1[M * N];
    for (int i = 0; i < M * K; i++) A[i] = (int8_t)rnd();
    for (int i = 0; i < K * N; i++) B[i] = (int8_t)rnd();
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int32_t acc = 0;
            for (int k = 0; k < K; k++)
                acc += (int32_t)A[i * K + k] * B[k * N + j];
            E[i * N + j] = acc;
        }
    tessel_stats_t s;
    if (!EXPECT(tessel_reset(d), TESSEL_OK))
        return;
    (void)tessel_stats(d, &s);
    /* the common case: one GEMM of host arrays, run again and again (tessel_gemm, a network's forward) */
    tessel_gemm_t g = {.m = M, .n = N, .k = K, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32, .a = A, .lda = K,
                       .b = B, .ldb = N, .c = C, .ldc = N, .scale = 1.0f};
    for (int rep = 0; rep < 3; rep++) {
        char what[48];
        snprintf(what, sizeof what, "tessel_gemm, run %d", rep + 1);
        memset(C, 0x5A, sizeof C);
        if (!EXPECT(tessel_gemm(d, &g, NULL), TESSEL_OK))
            return;
        cache_count(d, &s, rep ? 1u : 0u, rep ? 0u : 1u, what);
        size_t i = 0;
        while (i < M * N && C[i] == E[i])
            i++;
        tu_check(&T, i == M * N, "[%s] program cache, %s: C[%zu] is %d, expected %d", BACKEND, what, i,
                 i < M * N ? C[i] : 0, i < M * N ? E[i] : 0);
        if (!rep)
            memcpy(C1, C, sizeof C);
        tu_check(&T, !memcmp(C, C1, sizeof C), "[%s] program cache, %s: C differs from the first run's", BACKEND, what);
    }
    /* raw commands on device buffers, each checked against the model device and the reference */
    enum { I8 = TSL_DTYPE_INT8, I32 = TSL_DTYPE_INT32 };
    tessel_addr_t f = alloc2(d, mdl, 256);   /* first: tessel_gemm's blocks were where a, b, c would be */
    tessel_addr_t a = alloc2(d, mdl, sizeof A), b = alloc2(d, mdl, sizeof B), c = alloc2(d, mdl, sizeof E);
    tessel_addr_t c2 = alloc2(d, mdl, sizeof E);
    write2(d, mdl, a, A, sizeof A);
    write2(d, mdl, b, B, sizeof B);
    tessel_cmd_t g0 = graph_cmd(TSL_CMD_OP_GEMM, 0, I8 | I8 << 4 | I32 << 8, M, N, K, a, K, b, N, c, 4 * N);
    tessel_cmd_t gm = g0, gc = g0, bad = g0;
    gm.w[TSL_CMD_M_WORD] = M - 1;            /* one shape word */
    gc.w[TSL_CMD_C_ADDR_WORD] = (uint32_t)c2;   /* one address word */
    bad.w[TSL_CMD_K_WORD] = 0;                /* refused: BAD_SHAPE */
    both(d, mdl, &g0, c, sizeof E, (const uint8_t *)E, "program cache, a new GEMM");
    cache_count(d, &s, 0, 1, "a new GEMM");
    both(d, mdl, &g0, c, sizeof E, (const uint8_t *)E, "program cache, the same GEMM");
    cache_count(d, &s, 1, 0, "the same GEMM");
    both(d, mdl, &gm, c, 4u * (M - 1) * N, (const uint8_t *)E, "program cache, M - 1");
    cache_count(d, &s, 0, 1, "the GEMM with M - 1");
    both(d, mdl, &gc, c2, sizeof E, (const uint8_t *)E, "program cache, another C");
    cache_count(d, &s, 0, 1, "the GEMM with another C address");
    for (int rep = 0; rep < 2; rep++) {
        tessel_completion_t cpl;
        int r = run(d, &bad, &cpl);
        tu_check(&T, r == TESSEL_EDEVICE && cpl.status == TSL_CMD_ERR_BAD_SHAPE && cpl.detail == TSL_CMD_K_WORD,
                 "[%s] program cache, a refused GEMM, run %d: %d, status %d detail %u (expected EDEVICE, BAD_SHAPE "
                 "detail %u)", BACKEND, rep + 1, r, cpl.status, cpl.detail, TSL_CMD_K_WORD);
        cache_count(d, &s, rep ? 1u : 0u, rep ? 0u : 1u, rep ? "the refused GEMM again" : "a refused GEMM");
    }
    /* graphs: the second command is compiled behind the first (a miss once); built anew, all hits */
    int32_t junk[M * N];
    memset(junk, 0xA5, sizeof junk);
    for (int rep = 0; rep < 2; rep++) {
        tessel_graph_t *gr = NULL;
        tessel_handle_t h;
        tessel_completion_t cpl;
        write2(d, mdl, c, junk, sizeof junk);
        write2(d, mdl, c2, junk, sizeof junk);
        if (!EXPECT(tessel_graph_create(d, &gr), TESSEL_OK))
            break;
        int ok = EXPECT(tessel_graph_add(gr, &g0), TESSEL_OK) && EXPECT(tessel_graph_add(gr, &gc), TESSEL_OK);
        cache_count(d, &s, rep ? 2u : 1u, rep ? 0u : 1u, rep ? "the graph built again" : "a graph of the GEMM and another");
        ok = ok && EXPECT(tessel_graph_submit(gr, &h), TESSEL_OK) && EXPECT(tessel_wait(d, h, TMO, &cpl), TESSEL_OK);
        tessel_graph_destroy(gr);
        if (!ok)
            break;
        cache_out(d, c, E, M, N, rep ? "the graph built again, first C" : "the graph, first C");
        cache_out(d, c2, E, M, N, rep ? "the graph built again, second C" : "the graph, second C");
    }
    /* the bound: ENT - 1 newer commands (FILLs of 1..ENT-1 bytes, compiled into a graph that never
     * runs) keep the GEMM; ENT more push it out */
    both(d, mdl, &g0, c, sizeof E, (const uint8_t *)E, "program cache, the GEMM before the bound");
    cache_count(d, &s, 1, 0, "the GEMM before the bound");
    for (uint32_t round = 0, n0 = 1; round < 2; round++) {
        uint32_t count = round ? ENT : ENT - 1u;
        tessel_graph_t *gr = NULL;
        if (!EXPECT(tessel_graph_create(d, &gr), TESSEL_OK))
            break;
        for (uint32_t i = 0; i < count; i++, n0++) {
            tessel_cmd_t fill;
            cmd_init(&fill, TSL_CMD_OP_FILL, 0);
            fill.w[TSL_CMD_M_WORD] = 1;
            fill.w[TSL_CMD_N_WORD] = n0;
            fill.w[TSL_CMD_C_ADDR_WORD] = (uint32_t)f;
            fill.w[TSL_CMD_LDC_WORD] = 256;
            EXPECT(tessel_graph_add(gr, &fill), TESSEL_OK);
        }
        tessel_graph_destroy(gr);
        cache_count(d, &s, 0, count, round ? "ENT more commands" : "ENT - 1 newer commands");
        both(d, mdl, &g0, c, sizeof E, (const uint8_t *)E, round ? "program cache, the GEMM past the bound"
                                                                   : "program cache, the GEMM within the bound");
        cache_count(d, &s, round ? 0u : 1u, round ? 1u : 0u,
                    round ? "the GEMM after ENT newer commands" : "the GEMM after ENT - 1 newer commands");
    }
    /* tessel_reset empties it */
    if (EXPECT(tessel_reset(d), TESSEL_OK)) {
        (void)tessel_stats(d, &s);
        both(d, mdl, &g0, c, sizeof E, (const uint8_t *)E, "program cache, the GEMM after tessel_reset");
        cache_count(d, &s, 0, 1, "the GEMM after tessel_reset");
    }
    const tessel_addr_t all[5] = {a, b, c, c2, f};
    for (int i = 0; i < 5; i++)
        free2(d, mdl, all[i]);
}

static void stats_suite(tessel_dev_t *d, uint32_t nn)
{
    float A[5 * 20], B[20 * 3], C[5 * 3];
    for (int i = 0; i < 100; i++) A[i] = (float)(i % 7);
    for (int i = 0; i < 60; i++) B[i] = (float)(i % 5);
    tessel_gemm_t g = {.m = 5, .n = 3, .k = 20, .in_dtype = TESSEL_BF16, .out_dtype = TESSEL_FP32, .a = A, .lda = 20,
                       .b = B, .ldb = 3, .c = C, .ldc = 3, .scale = 1.0f};
    tessel_stats_reset(d);
    tessel_completion_t cpl;
    int r = tessel_gemm(d, &g, &cpl);
    tessel_stats_t st;
    (void)tessel_stats(d, &st);
    uint64_t kp = (20 + nn - 1) / nn * nn, np = (3 + nn - 1) / nn * nn;
    tu_check(&T, r == TESSEL_OK && st.commands == 1 && st.cycles == cpl.cycles && cpl.cycles > 0 &&
                     st.macs == 5 * kp * np && st.hbm_bytes == 5 * 20 * 2 + 20 * 3 * 2 + 5 * 3 * 4,
             "[%s] stats: commands %llu cycles %llu (cpl %u) macs %llu (expected %llu) hbm %llu", BACKEND,
             (unsigned long long)st.commands, (unsigned long long)st.cycles, cpl.cycles, (unsigned long long)st.macs,
             (unsigned long long)(5 * kp * np), (unsigned long long)st.hbm_bytes);
    tessel_stats_reset(d);
    (void)tessel_stats(d, &st);
    tu_check(&T, !st.commands && !st.cycles && !st.macs && !st.hbm_bytes && !st.program_cache_hits && !st.program_cache_misses,
             "stats_reset");
}

/* Checking mode: a clean GEMM passes; input that differs only on the shadow gives EMISMATCH. */
static void check_suite(void)
{
    tessel_open_opts_t o = {.flags = TESSEL_OPEN_CHECK};
    tessel_dev_t *d;
    int r = tessel_open(&d, BACKEND, &o);
    if (!tu_check(&T, r == TESSEL_OK && tessel_shadow(d), "[%s] open with TESSEL_OPEN_CHECK: %d", BACKEND, r))
        return;
    int8_t A[3 * 5], B[5 * 4];
    int32_t C[3 * 4];
    for (int i = 0; i < 15; i++) A[i] = (int8_t)rnd();
    for (int i = 0; i < 20; i++) B[i] = (int8_t)rnd();
    B[2 * 4 + 0] = 1; /* so that flipping bit 0 of A[1][2] changes byte 0 of C[1][0] */
    tessel_gemm_t g = {.m = 3, .n = 4, .k = 5, .in_dtype = TESSEL_INT8, .out_dtype = TESSEL_INT32, .a = A, .lda = 5,
                       .b = B, .ldb = 4, .c = C, .ldc = 4, .scale = 1.0f};
    r = tessel_gemm(d, &g, NULL);
    tu_check(&T, r == TESSEL_OK, "[%s] checking mode, clean GEMM: %d %s", BACKEND, r, tessel_last_error(d));
    /* raw GEMM whose A differs on the shadow */
    tessel_addr_t a, b, c;
    if (tessel_alloc(d, 64, 64, &a) || tessel_alloc(d, 64, 64, &b) || tessel_alloc(d, 64, 64, &c) ||
        tessel_write(d, a, A, 15) || tessel_write(d, b, B, 20)) {
        tu_check(&T, 0, "checking mode setup");
        tessel_close(d);
        return;
    }
    int8_t A2[15];
    memcpy(A2, A, 15);
    A2[7] ^= 0x01;
    if (tessel_write(tessel_shadow(d), a, A2, 15)) tu_check(&T, 0, "shadow write");
    tessel_cmd_t cmd;
    cmd_init(&cmd, TSL_CMD_OP_GEMM, 0);
    TSL_SET(cmd.w, TSL_CMD_A_DTYPE, TSL_DTYPE_INT8);
    TSL_SET(cmd.w, TSL_CMD_B_DTYPE, TSL_DTYPE_INT8);
    TSL_SET(cmd.w, TSL_CMD_C_DTYPE, TSL_DTYPE_INT32);
    cmd.w[3] = 3; cmd.w[4] = 4; cmd.w[5] = 5; cmd.w[6] = (uint32_t)a; cmd.w[7] = 5; cmd.w[8] = (uint32_t)b;
    cmd.w[9] = 4; cmd.w[10] = (uint32_t)c; cmd.w[11] = 16;
    tessel_completion_t cpl;
    r = run(d, &cmd, &cpl);
    char exp_addr[32];
    snprintf(exp_addr, sizeof exp_addr, "HBM 0x%llx", (unsigned long long)(c + 16 * (7 / 5)));
    tu_check(&T, r == TESSEL_EMISMATCH && strstr(tessel_last_error(d), "GEMM tag") &&
                     strstr(tessel_last_error(d), exp_addr) && strstr(tessel_last_error(d), "expected"),
             "[%s] checking mode, divergent input: status %d, last error '%s' (expected %s)", BACKEND, r,
             tessel_last_error(d), exp_addr);
    /* the shadow was resynchronised: with equal inputs the next command matches again */
    if (tessel_write(d, a, A, 15)) tu_check(&T, 0, "rewrite A");
    r = run(d, &cmd, &cpl);
    tu_check(&T, r == TESSEL_OK, "[%s] checking mode after resync: %d %s", BACKEND, r, tessel_last_error(d));
    /* invalid commands compare their completions */
    cmd.w[3] = 0;
    r = run(d, &cmd, &cpl);
    tu_check(&T, r == TESSEL_EDEVICE && cpl.status == TSL_CMD_ERR_BAD_SHAPE, "[%s] checking mode, invalid command: %d",
             BACKEND, r);
    tessel_close(d);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    BACKEND = argc > 1 ? argv[1] : "model";
    SIM = !strcmp(BACKEND, "sim");
    char name[32];
    snprintf(name, sizeof name, "host_%s", strstr(argv[0], "asan") ? "asan" : BACKEND);
    tu_init(&T, name, argc - 1, argv + 1);
    tessel_dev_t *d = NULL, *mdl = NULL;
    int r = tessel_open(&d, BACKEND, NULL);
    if (!tu_check(&T, r == TESSEL_OK, "tessel_open(%s): %d (%s)", BACKEND, r, tessel_strerror(r)))
        return tu_done(&T);
    r = tessel_open(&mdl, "model", NULL);
    if (!tu_check(&T, r == TESSEL_OK, "tessel_open(model): %d", r))
        return tu_done(&T);
    tessel_info_t info;
    (void)tessel_info(d, &info);
    if (SIM) {   /* a missing firmware image is refused, as every firmware file the loader refuses */
        tessel_open_opts_t o = {.firmware = "/nonexistent/cp.elf"};
        tessel_dev_t *x = (tessel_dev_t *)1;
        EXPECT(tessel_open(&x, "sim", &o), TESSEL_EINVAL);
        tu_check(&T, x == NULL, "failed open leaves *dev NULL");
    }
    double t0 = now_s();
    arg_suite(d);
    encoder_suite(d);
    stats_suite(d, info.n);
    cmd_err_suite(d);
    double t1 = now_s();
    gemm_suite(d, mdl, info.n);
    double t2 = now_s();
    eltwise_suite(d, mdl);
    win_suite(d, mdl);
    rows_suite(d, mdl);
    graph_suite(d, mdl);
    cache_suite(d, mdl);
    double t3 = now_s();
    misc_suite(d, mdl);
    double t4 = now_s();
    check_suite();
    printf("%s: seconds: args/stats/errors %.1f, gemm %.1f, eltwise/conv/pool/rows %.1f, copy/fill/ring %.1f, checking %.1f\n", name,
           t1 - t0, t2 - t1, t3 - t2, t4 - t3, now_s() - t4);
    tessel_close(d);
    tessel_close(mdl);
    return tu_done(&T);
}
