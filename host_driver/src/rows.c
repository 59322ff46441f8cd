/* libtessel: the row functions, one ROWWISE command each (docs/isa.md §7), and the elementwise ones,
 * one ELTWISE command each.
 *
 * The host converts only: x to bf16 (BF16) or as it is (FP32), gamma, beta and the mask as FP32;
 * the result is widened back to float. Everything in between runs on the device's VPU.
 */
#include <stdlib.h>
#include <string.h>

#include "tessel_int.h"
#include "tsl_insn.h"

/* What one row function needs besides the matrix (an ELTWISE: `b` is its B, or NULL for a unary op). */
typedef struct {
    const char *what;
    uint32_t opcode, op, flags, scale;
    const float *mask, *gamma, *beta, *b;
} row_call_t;

static tessel_status_t run_rows(tessel_dev_t *dev, const tessel_rows_t *r, const row_call_t *c, tessel_completion_t *cpl)
{
    if (!dev)
        return TESSEL_EINVAL;
    int in_ok = r && (r->in_dtype == TESSEL_BF16 || r->in_dtype == TESSEL_FP32);
    if (!in_ok || (r->out_dtype != TESSEL_BF16 && r->out_dtype != TESSEL_FP32) || !r->m || !r->n || !r->x || !r->y ||
        r->ldx < r->n || r->ldy < r->n ||
        (c->opcode == TSL_CMD_OP_ROWWISE && (c->op == TSL_ROW_OP_LAYERNORM || c->op == TSL_ROW_OP_RMSNORM) && !c->gamma))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: invalid arguments (a NULL matrix or gamma, a zero size, a stride "
                           "shorter than a row, or a dtype other than BF16 and FP32)", c->what);
    tessel_info_t info;
    int st = tessel_need(dev, 1, c->what, &info);
    if (st)
        return st;
    const uint32_t adt = r->in_dtype == TESSEL_BF16 ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32;
    const uint32_t cdt = r->out_dtype == TESSEL_BF16 ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32;
    const uint64_t m = r->m, n = r->n, esa = tsl_dtype_bytes(adt), esc = tsl_dtype_bytes(cdt);
    const uint64_t xb = m * n * esa, yb = m * n * esc, mb = c->mask ? m * n * 4u : c->b ? xb : 0u;
    const uint64_t gb = c->gamma ? n * 4u : 0u, bb = c->beta ? n * 4u : 0u;
    if (xb > info.hbm_bytes || yb > info.hbm_bytes || mb > info.hbm_bytes || n * 4u > UINT32_MAX)
        return tessel_fail(dev, TESSEL_ENOMEM, "%s: a %llux%llu matrix does not fit the device's HBM", c->what,
                           (unsigned long long)m, (unsigned long long)n);
    uint64_t host = m * n * 4u;
    uint8_t *buf = malloc((size_t)host);
    if (!buf)
        return tessel_fail(dev, TESSEL_ENOMEM, "%s: %llu bytes of host memory", c->what, (unsigned long long)host);
    tessel_buf_t d[5] = {{0, (size_t)xb, 0}, {0, (size_t)yb, 0}, {0, (size_t)mb, 0}, {0, (size_t)gb, 0}, {0, (size_t)bb, 0}};
    if ((st = tessel_bufs_alloc(dev, d, 5)))
        goto out;
    if ((st = tessel_put_matrix(dev, d[0].addr, r->x, m, n, r->ldx, adt, buf)) ||
        (c->b && (st = tessel_put_matrix(dev, d[2].addr, c->b, m, n, r->ldx, adt, buf))) ||
        (c->mask && (st = tessel_write(dev, d[2].addr, c->mask, (size_t)mb))) ||
        (c->gamma && (st = tessel_write(dev, d[3].addr, c->gamma, (size_t)gb))) ||
        (c->beta && (st = tessel_write(dev, d[4].addr, c->beta, (size_t)bb))))
        goto out;
    tessel_cmd_t cmd;
    memset(&cmd, 0, sizeof cmd);
    uint32_t *w = cmd.w;
    TSL_SET(w, TSL_CMD_OPCODE, c->opcode);
    TSL_SET(w, TSL_CMD_FLAGS, c->flags | (c->mask ? 1u << TSL_CMD_FLAG_MASK : 0u) |
                                  (c->beta ? 1u << TSL_CMD_FLAG_BIAS : 0u));
    TSL_SET(w, TSL_CMD_A_DTYPE, adt);
    TSL_SET(w, TSL_CMD_B_DTYPE, c->mask ? TSL_DTYPE_FP32 : c->b ? adt : 0u);
    TSL_SET(w, TSL_CMD_C_DTYPE, cdt);
    TSL_SET(w, TSL_CMD_VPU_OP, c->op);
    TSL_SET(w, TSL_CMD_M, r->m);
    TSL_SET(w, TSL_CMD_N, r->n);
    TSL_SET(w, TSL_CMD_A_ADDR, (uint32_t)d[0].addr);
    TSL_SET(w, TSL_CMD_LDA, (uint32_t)(n * esa));
    TSL_SET(w, TSL_CMD_B_ADDR, (uint32_t)(c->mask || c->b ? d[2].addr : d[3].addr));
    TSL_SET(w, TSL_CMD_LDB, c->mask ? (uint32_t)(n * 4u) : c->b ? (uint32_t)(n * esa) : 0u);
    TSL_SET(w, TSL_CMD_C_ADDR, (uint32_t)d[1].addr);
    TSL_SET(w, TSL_CMD_LDC, (uint32_t)(n * esc));
    TSL_SET(w, TSL_CMD_BIAS_ADDR, (uint32_t)d[4].addr);
    TSL_SET(w, TSL_CMD_SCALE, c->scale);
    st = tessel_run(dev, &cmd, cpl);
    if (st && st != TESSEL_EMISMATCH)
        goto out;
    int r2 = tessel_read(dev, buf, d[1].addr, (size_t)yb);
    if (r2) {
        st = r2;
        goto out;
    }
    tessel_get_matrix(r->y, r->ldy, buf, m, n, cdt);
out:
    tessel_bufs_free(dev, d, 5);
    free(buf);
    return st;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

TESSEL_API tessel_status_t tessel_softmax(tessel_dev_t *dev, const tessel_rows_t *r, float scale, const float *mask,
                                          tessel_completion_t *cpl)
{
    int scaled = scale != 0.0f && scale != 1.0f;
    if (dev && tessel_f32_check(dev, "tessel_softmax", "scale", scale, TESSEL_ARG_SCALE))
        return TESSEL_EINVAL;
    row_call_t c = {"tessel_softmax", TSL_CMD_OP_ROWWISE, TSL_ROW_OP_SOFTMAX, scaled ? 1u << TSL_CMD_FLAG_SCALE : 0u,
                    scaled ? bits(scale) : 0u, mask, NULL, NULL, NULL};
    return run_rows(dev, r, &c, cpl);
}

TESSEL_API tessel_status_t tessel_layernorm(tessel_dev_t *dev, const tessel_rows_t *r, const float *gamma,
                                            const float *beta, float eps, tessel_completion_t *cpl)
{
    if (dev && tessel_f32_check(dev, "tessel_layernorm", "eps", eps, TESSEL_ARG_EPS))
        return TESSEL_EINVAL;
    row_call_t c = {"tessel_layernorm", TSL_CMD_OP_ROWWISE, TSL_ROW_OP_LAYERNORM, 0, bits(eps), NULL, gamma, beta, NULL};
    return run_rows(dev, r, &c, cpl);
}

TESSEL_API tessel_status_t tessel_rmsnorm(tessel_dev_t *dev, const tessel_rows_t *r, const float *gamma, float eps,
                                          tessel_completion_t *cpl)
{
    if (dev && tessel_f32_check(dev, "tessel_rmsnorm", "eps", eps, TESSEL_ARG_EPS))
        return TESSEL_EINVAL;
    row_call_t c = {"tessel_rmsnorm", TSL_CMD_OP_ROWWISE, TSL_ROW_OP_RMSNORM, 0, bits(eps), NULL, gamma, NULL, NULL};
    return run_rows(dev, r, &c, cpl);
}

TESSEL_API tessel_status_t tessel_gelu(tessel_dev_t *dev, const tessel_rows_t *r, tessel_completion_t *cpl)
{
    row_call_t c = {"tessel_gelu", TSL_CMD_OP_ROWWISE, TSL_ROW_OP_GELU, 0, 0, NULL, NULL, NULL, NULL};
    return run_rows(dev, r, &c, cpl);
}

TESSEL_API tessel_status_t tessel_silu(tessel_dev_t *dev, const tessel_rows_t *r, tessel_completion_t *cpl)
{
    row_call_t c = {"tessel_silu", TSL_CMD_OP_ROWWISE, TSL_ROW_OP_SILU, 0, 0, NULL, NULL, NULL, NULL};
    return run_rows(dev, r, &c, cpl);
}

TESSEL_API tessel_status_t tessel_eltwise(tessel_dev_t *dev, const tessel_rows_t *r, tessel_eltwise_op_t op,
                                          const float *b, tessel_completion_t *cpl)
{
    static const uint32_t vpu_op[] = {TSL_VPU_OP_ADD,  TSL_VPU_OP_MUL, TSL_VPU_OP_MAX,   TSL_VPU_OP_MIN,
                                      TSL_VPU_OP_RELU, TSL_VPU_OP_EXP, TSL_VPU_OP_RECIP, TSL_VPU_OP_RSQRT};
    if ((unsigned)op >= sizeof vpu_op / sizeof vpu_op[0] || (b == NULL) != tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, vpu_op[op]))
        return dev ? tessel_fail(dev, TESSEL_EINVAL, "tessel_eltwise: an op other than TESSEL_EW_*, or b %s",
                                 b ? "given to a unary op" : "NULL for a binary op")
                   : TESSEL_EINVAL;
    row_call_t c = {"tessel_eltwise", TSL_CMD_OP_ELTWISE, vpu_op[op], 0, 0, NULL, NULL, NULL, b};
    return run_rows(dev, r, &c, cpl);
}

TESSEL_API tessel_status_t tessel_add(tessel_dev_t *dev, const tessel_rows_t *r, const float *b, tessel_completion_t *cpl)
{
    return tessel_eltwise(dev, r, TESSEL_EW_ADD, b, cpl);
}
