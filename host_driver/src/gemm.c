/* libtessel: tessel_gemm, one GEMM command for host row-major operands of any shape.
 *
 * The firmware tiles and pads any M, N, K itself (firmware/cp/README.md, "Tiling"), so the host
 * only converts and packs: A (M x K) and B (K x N) go to HBM dense (LDA = K, LDB = N elements),
 * float inputs rounded to bf16 to nearest even here; C comes back dense (LDC = N elements of
 * C's type) and is widened into the caller's strided float/int32/int8 matrix. Epilogue fields
 * map one to one onto the command (docs/isa.md §7): SCALE flag for a float C with scale not 0 or 1,
 * BIAS flag and BIAS_ADDR with a bias row (N int32, or N fp32 written unrounded), RELU flag, and
 * SCALE/SHIFT/ZERO_POINT for an INT8 C. Every other command field is zero.
 * Timeout: $TESSEL_TIMEOUT_MS in ms when set, else TESSEL_TIMEOUT_AUTO (the GEMM's size and the
 * backend). When the wait fails before the command completed, the command is orphaned
 * (tessel_orphan): A, B, C and the bias are freed at once, and the in-flight rule keeps
 * tessel_alloc from handing them out again until the device has finished with them.
 */
#include <stdlib.h>
#include <string.h>

#include "tessel_int.h"
#include "tsl_insn.h"

uint16_t tessel_f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu))
        return (uint16_t)((u >> 16) | 0x40u);                  /* NaN: quiet, keep the sign */
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16); /* to nearest even (overflows to inf) */
}

/* $TESSEL_TIMEOUT_MS, checked by tessel_need before anything was sent (a bad value set since then,
 * by another thread, gives TESSEL_TIMEOUT_AUTO here). */
static uint32_t timeout_ms(void)
{
    uint32_t ms;
    (void)tessel_env_timeout("TESSEL_TIMEOUT_MS", &ms);
    return ms;
}

tessel_status_t tessel_env_check(tessel_dev_t *dev, const char *what)
{
    uint32_t ms;
    const char *why = tessel_env_timeout("TESSEL_TIMEOUT_MS", &ms);
    return why ? tessel_fail(dev, TESSEL_EINVAL, "%s: $TESSEL_TIMEOUT_MS '%.60s' %s", what,
                             getenv("TESSEL_TIMEOUT_MS"), why)
               : TESSEL_OK;
}

tessel_status_t tessel_bufs_alloc(tessel_dev_t *dev, tessel_buf_t *b, int n)
{
    for (int i = 0; i < n; i++) {
        b[i].have = 0;
        if (!b[i].bytes)
            continue;
        int r = tessel_alloc(dev, b[i].bytes, 64, &b[i].addr);
        if (r) {
            tessel_bufs_free(dev, b, i);
            return r;
        }
        b[i].have = 1;
    }
    return TESSEL_OK;
}

void tessel_bufs_free(tessel_dev_t *dev, tessel_buf_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (b[i].have) {
            (void)tessel_free(dev, b[i].addr);
            b[i].have = 0;
        }
}

tessel_status_t tessel_need(tessel_dev_t *dev, int bf16, const char *what, tessel_info_t *info)
{
    int r = tessel_info(dev, info);
    if (r || (r = tessel_env_check(dev, what)))
        return r;
    if (!(info->features & (1u << (bf16 ? TSL_TC_CFG_FEATURES_BF16_SHIFT : TSL_TC_CFG_FEATURES_INT8_SHIFT))))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: this device has no %s support", what, bf16 ? "bf16" : "int8");
    return TESSEL_OK;
}

tessel_status_t tessel_put_matrix(tessel_dev_t *dev, tessel_addr_t dst, const void *src, uint64_t rows, uint64_t cols,
                                  uint64_t ld, uint32_t dt, uint8_t *stage)
{
    const uint64_t es = tsl_dtype_bytes(dt), sz = dt == TSL_DTYPE_INT8 ? 1u : 4u;
    for (uint64_t i = 0; i < rows; i++) {
        const uint8_t *row = (const uint8_t *)src + i * ld * sz;
        uint8_t *out = stage + i * cols * es;
        if (dt != TSL_DTYPE_BF16)
            memcpy(out, row, (size_t)(cols * es));
        else
            for (uint64_t j = 0; j < cols; j++) {
                uint16_t h = tessel_f32_to_bf16(((const float *)(const void *)row)[j]);
                memcpy(out + 2 * j, &h, 2);
            }
    }
    return tessel_write(dev, dst, stage, (size_t)(rows * cols * es));
}

tessel_status_t tessel_finish(tessel_dev_t *dev, tessel_handle_t h, tessel_completion_t *cpl)
{
    tessel_completion_t c;
    memset(&c, 0, sizeof c);
    int r = tessel_wait(dev, h, timeout_ms(), &c);
    if (cpl)
        *cpl = c;
    if (r && r != TESSEL_EMISMATCH && r != TESSEL_EDEVICE)
        tessel_orphan(dev, h);   /* maybe still queued: nobody will wait for it now */
    return r;
}

tessel_status_t tessel_run(tessel_dev_t *dev, const tessel_cmd_t *cmd, tessel_completion_t *cpl)
{
    tessel_handle_t h;
    int r = tessel_submit(dev, cmd, &h);
    return r ? r : tessel_finish(dev, h, cpl);
}

void tessel_get_matrix(void *dst, uint64_t ld, const uint8_t *src, uint64_t rows, uint64_t cols, uint32_t dt)
{
    const uint64_t es = tsl_dtype_bytes(dt);
    for (uint64_t i = 0; i < rows; i++)
        for (uint64_t j = 0; j < cols; j++) {
            const uint8_t *p = src + (i * cols + j) * es;
            uint64_t at = i * ld + j;
            switch (dt) {
            case TSL_DTYPE_INT8: ((int8_t *)dst)[at] = (int8_t)p[0]; break;
            case TSL_DTYPE_INT32: memcpy((int32_t *)dst + at, p, 4); break;
            case TSL_DTYPE_FP32: memcpy((float *)dst + at, p, 4); break;
            default: {
                uint32_t u = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 24;
                memcpy((float *)dst + at, &u, 4);
            }
            }
        }
}

/* The [gemm_post] code that ends an epilogue (0: none): tessel_epilogue_t's own value. */
static uint32_t gemm_post_code(tessel_epilogue_t epi)
{
    return epi > 0 && (unsigned)epi <= TSL_GEMM_POSTS_COUNT ? (uint32_t)epi : 0u;
}

/* Argument checks: TESSEL_EINVAL for anything the command could not express, with the rule it
 * breaks in tessel_last_error. */
static tessel_status_t gemm_check(tessel_dev_t *dev, uint32_t m, uint32_t n, uint32_t k, tessel_dtype_t in,
                                  tessel_dtype_t out, float scale, int32_t rq_scale, uint32_t rq_shift,
                                  int32_t rq_zero_point, int relu, tessel_epilogue_t epi)
{
    const char *what = "tessel_gemm";
    if (!m || !n || !k)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: %s 0 must be at least 1", what, !m ? "m" : !n ? "n" : "k");
    if (in != TESSEL_INT8 && in != TESSEL_BF16)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: in_dtype %s is not int8 or bf16", what, tessel_dtype_str(in));
    const int int8 = in == TESSEL_INT8;
    if (int8 ? out != TESSEL_INT32 && out != TESSEL_INT8 : out != TESSEL_FP32 && out != TESSEL_BF16)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: out_dtype %s does not go with %s inputs (%s)", what,
                           tessel_dtype_str(out), tessel_dtype_str(in), int8 ? "int32 or int8" : "fp32 or bf16");
    if (int8 && scale != 0.0f && scale != 1.0f)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: scale %g applies to bf16 inputs only", what, (double)scale);
    if (out == TESSEL_INT8 && rq_shift > TSL_CMD_SHIFT_MAX)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: rq_shift %u is outside %u..%u", what, rq_shift, TSL_CMD_SHIFT_MIN,
                           TSL_CMD_SHIFT_MAX);
    if (out != TESSEL_INT8 && (rq_scale || rq_shift || rq_zero_point))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: rq_scale, rq_shift and rq_zero_point need out_dtype int8", what);
    static const char *const names[TESSEL_EPILOGUE_COUNT] = TESSEL_EPILOGUE_NAMES;
    if ((unsigned)epi >= TESSEL_EPILOGUE_COUNT)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: epilogue %d is not a tessel_epilogue_t", what, (int)epi);
    if (epi && int8)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: %s applies to bf16 inputs only", what, names[epi]);
    if (epi && relu && !tsl_gemm_post_has(TSL_GEMM_POST_RELU, gemm_post_code(epi)))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: %s does not go with relu", what, names[epi]);
    return TESSEL_OK;
}

/* Strides: at least a row (lda >= k, ldb >= n, ldc >= n). */
static tessel_status_t gemm_strides(tessel_dev_t *dev, uint64_t lda, uint64_t ldb, uint64_t ldc, uint32_t n,
                                    uint32_t k)
{
    const char *name = lda < k ? "lda" : ldb < n ? "ldb" : ldc < n ? "ldc" : NULL;
    if (!name)
        return TESSEL_OK;
    return tessel_fail(dev, TESSEL_EINVAL, "tessel_gemm: %s %llu is shorter than a row (%u elements)", name,
                       (unsigned long long)(lda < k ? lda : ldb < n ? ldb : ldc), lda < k ? k : n);
}

const char *tessel_dtype_str(tessel_dtype_t t)
{
    static const char *const names[] = {"int8", "bf16", "int32", "fp32"};
    return (unsigned)t < 4u ? names[t] : "an unknown dtype";
}

uint32_t tessel_cmd_dtype(tessel_dtype_t t)
{
    return t == TESSEL_INT8 ? TSL_DTYPE_INT8 : t == TESSEL_INT32 ? TSL_DTYPE_INT32 : t == TESSEL_BF16 ? TSL_DTYPE_BF16
                                                                                      : TSL_DTYPE_FP32;
}

tessel_status_t tessel_cmd_addr(tessel_dev_t *dev, const char *what, const char *name, tessel_addr_t a)
{
    return a > UINT32_MAX ? tessel_fail(dev, TESSEL_ERANGE, "%s: %s 0x%llx is past the command's 32-bit addresses",
                                        what, name, (unsigned long long)a)
                          : TESSEL_OK;
}

tessel_status_t tessel_cmd_range(tessel_dev_t *dev, const char *what, const tsl_field_range_t *f, const void *g)
{
    return f ? tessel_fail(dev, TESSEL_EINVAL, "%s: %s %u is outside %u..%u", what, f->name, tsl_field_value(g, f),
                           f->min, f->max)
             : TESSEL_OK;
}

uint32_t tessel_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

TESSEL_API tessel_status_t tessel_gemm_cmd(tessel_dev_t *dev, const tessel_gemm_op_t *g, tessel_cmd_t *cmd)
{
    if (!dev || !g || !cmd)
        return TESSEL_EINVAL;
    const uint64_t lda = g->lda ? g->lda : g->k, ldb = g->ldb ? g->ldb : g->n, ldc = g->ldc ? g->ldc : g->n;
    int r = gemm_check(dev, g->m, g->n, g->k, g->in_dtype, g->out_dtype, g->scale, g->rq_scale, g->rq_shift,
                       g->rq_zero_point, g->relu, g->epilogue);
    if (r || (r = gemm_strides(dev, lda, ldb, ldc, g->n, g->k)) ||
        (r = tessel_f32_check(dev, "tessel_gemm", "scale", g->scale, TESSEL_ARG_SCALE)) ||
        (r = tessel_cmd_addr(dev, "tessel_gemm", "a", g->a)) || (r = tessel_cmd_addr(dev, "tessel_gemm", "b", g->b)) ||
        (r = tessel_cmd_addr(dev, "tessel_gemm", "c", g->c)) ||
        (r = tessel_cmd_addr(dev, "tessel_gemm", "bias", g->bias)))
        return r;
    const int fp = g->in_dtype == TESSEL_BF16;
    const uint32_t adt = tessel_cmd_dtype(g->in_dtype), cdt = tessel_cmd_dtype(g->out_dtype);
    const uint64_t es = fp ? 2 : 1, ces = tsl_dtype_bytes(cdt);
    if (lda * es > UINT32_MAX || ldb * es > UINT32_MAX || ldc * ces > UINT32_MAX)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_gemm: a stride of 4 GiB or more");
    memset(cmd, 0, sizeof *cmd);
    uint32_t flags = 0, *w = cmd->w;
    if (g->bias) {
        flags |= 1u << TSL_CMD_FLAG_BIAS;
        TSL_SET(w, TSL_CMD_BIAS_ADDR, (uint32_t)g->bias);
    }
    if (g->relu)
        flags |= 1u << TSL_CMD_FLAG_RELU;
    if (fp && g->scale != 0.0f && g->scale != 1.0f) {
        flags |= 1u << TSL_CMD_FLAG_SCALE;
        TSL_SET(w, TSL_CMD_SCALE, tessel_f32_bits(g->scale));
    }
    if (cdt == TSL_DTYPE_INT8) {
        TSL_SET(w, TSL_CMD_SCALE, (uint32_t)g->rq_scale);
        TSL_SET(w, TSL_CMD_SHIFT, g->rq_shift);
        TSL_SET(w, TSL_CMD_ZERO_POINT, (uint32_t)g->rq_zero_point);
    }
    TSL_SET(w, TSL_CMD_OPCODE, TSL_CMD_OP_GEMM);
    TSL_SET(w, TSL_CMD_FLAGS, flags);
    TSL_SET(w, TSL_CMD_VPU_OP, gemm_post_code(g->epilogue));
    TSL_SET(w, TSL_CMD_A_DTYPE, adt);
    TSL_SET(w, TSL_CMD_B_DTYPE, adt);
    TSL_SET(w, TSL_CMD_C_DTYPE, cdt);
    TSL_SET(w, TSL_CMD_M, g->m);
    TSL_SET(w, TSL_CMD_N, g->n);
    TSL_SET(w, TSL_CMD_K, g->k);
    TSL_SET(w, TSL_CMD_A_ADDR, (uint32_t)g->a);
    TSL_SET(w, TSL_CMD_LDA, (uint32_t)(lda * es));
    TSL_SET(w, TSL_CMD_B_ADDR, (uint32_t)g->b);
    TSL_SET(w, TSL_CMD_LDB, (uint32_t)(ldb * es));
    TSL_SET(w, TSL_CMD_C_ADDR, (uint32_t)g->c);
    TSL_SET(w, TSL_CMD_LDC, (uint32_t)(ldc * ces));
    return TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_gemm(tessel_dev_t *dev, const tessel_gemm_t *g, tessel_completion_t *cpl)
{
    if (!dev || !g)
        return TESSEL_EINVAL;
    if (!g->a || !g->b || !g->c)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_gemm: a NULL operand (a, b and c are all needed)");
    tessel_info_t info;
    const int fp = g->in_dtype == TESSEL_BF16;
    int r = gemm_check(dev, g->m, g->n, g->k, g->in_dtype, g->out_dtype, g->scale, g->rq_scale, g->rq_shift,
                       g->rq_zero_point, g->relu, g->epilogue);
    if (r || (r = gemm_strides(dev, g->lda, g->ldb, g->ldc, g->n, g->k)) ||
        (r = tessel_f32_check(dev, "tessel_gemm", "scale", g->scale, TESSEL_ARG_SCALE)) ||
        (r = tessel_need(dev, fp, "tessel_gemm", &info)))
        return r;
    const uint64_t m = g->m, n = g->n, k = g->k, es = fp ? 2 : 1;
    const uint32_t cdt = tessel_cmd_dtype(g->out_dtype);
    const uint64_t ces = tsl_dtype_bytes(cdt);
    const uint64_t abytes = m * k * es, bbytes = k * n * es, cbytes = m * n * ces, biasbytes = g->bias ? 4 * n : 0;
    if (abytes > info.hbm_bytes || bbytes > info.hbm_bytes || cbytes > info.hbm_bytes || m * k * es > UINT32_MAX ||
        k * n * es > UINT32_MAX || n * ces > UINT32_MAX || k * es > UINT32_MAX)
        return tessel_fail(dev, TESSEL_ENOMEM,
                           "tessel_gemm: %llux%llux%llu needs A %llu, B %llu and C %llu bytes of HBM; the device has "
                           "%llu (and a command takes at most 4 GiB per operand)", (unsigned long long)m,
                           (unsigned long long)n, (unsigned long long)k, (unsigned long long)abytes,
                           (unsigned long long)bbytes, (unsigned long long)cbytes,
                           (unsigned long long)info.hbm_bytes);
    uint64_t host = abytes > bbytes ? abytes : bbytes;
    host = host > cbytes ? host : cbytes;
    host = host > biasbytes ? host : biasbytes;
    uint8_t *buf = malloc((size_t)host);
    if (!buf)
        return tessel_fail(dev, TESSEL_ENOMEM, "tessel_gemm: %llu bytes of host memory", (unsigned long long)host);
    tessel_buf_t d[4] = {{0, (size_t)abytes, 0}, {0, (size_t)bbytes, 0}, {0, (size_t)cbytes, 0}, {0, (size_t)biasbytes, 0}};
    if ((r = tessel_bufs_alloc(dev, d, 4)))
        goto out;

    /* A and B, packed dense (bf16 rounded here), then the command on them: tessel_gemm_cmd's */
    const uint32_t adt = fp ? TSL_DTYPE_BF16 : TSL_DTYPE_INT8;
    if ((r = tessel_put_matrix(dev, d[0].addr, g->a, m, k, g->lda, adt, buf)) ||
        (r = tessel_put_matrix(dev, d[1].addr, g->b, k, n, g->ldb, adt, buf)))
        goto out;
    if (g->bias && (r = tessel_write(dev, d[3].addr, g->bias, (size_t)biasbytes)))   /* int32 or fp32, as given */
        goto out;
    if (tsl_gemm_post_has(TSL_GEMM_POST_OLD_C, gemm_post_code(g->epilogue)) &&
        (r = tessel_put_matrix(dev, d[2].addr, g->c, m, n, g->ldc, cdt, buf)))   /* the old C */
        goto out;
    tessel_gemm_op_t op = {.m = g->m, .n = g->n, .k = g->k, .in_dtype = g->in_dtype, .out_dtype = g->out_dtype,
                           .a = d[0].addr, .lda = g->k, .b = d[1].addr, .ldb = g->n, .c = d[2].addr, .ldc = g->n,
                           .bias = g->bias ? d[3].addr : 0, .relu = g->relu, .scale = g->scale,
                           .rq_scale = g->rq_scale, .rq_shift = g->rq_shift, .rq_zero_point = g->rq_zero_point,
                           .epilogue = g->epilogue};
    tessel_cmd_t cmd;
    if ((r = tessel_gemm_cmd(dev, &op, &cmd)))
        goto out;
    r = tessel_run(dev, &cmd, cpl);
    if (r && r != TESSEL_EMISMATCH)   /* on a mismatch C still holds the device's result */
        goto out;
    int r2 = tessel_read(dev, buf, d[2].addr, (size_t)cbytes);
    if (r2) {
        r = r2;
        goto out;
    }
    tessel_get_matrix(g->c, g->ldc, buf, m, n, cdt);
out:
    tessel_bufs_free(dev, d, 4);
    free(buf);
    return r;
}
