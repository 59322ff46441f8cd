/* libtessel: tessel_rowwise_cmd and tessel_eltwise_cmd, the ROWWISE and ELTWISE commands of device
 * buffers (docs/isa.md §7), and the row functions (softmax, the norms, GELU, SiLU: one ROWWISE
 * command each) and elementwise ones (one ELTWISE command each) on host operands.
 *
 * The host converts only: x to bf16 (BF16) or as it is (FP32), gamma, beta and the mask as FP32;
 * the result is widened back to float; a norm's residual goes into y's buffer (ADD_C) as y's
 * dtype. Everything in between runs on the device's VPU.
 */
#include <stdlib.h>
#include <string.h>

#include "tessel_int.h"
#include "tsl_insn.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static int float_dt(tessel_dtype_t t) { return t == TESSEL_BF16 || t == TESSEL_FP32; }

/* A stride of `ld` elements of `es` bytes between rows of n: at least a row, and its bytes in the
 * command's 32 bits. */
static int stride_ok(uint32_t ld, uint32_t n, uint32_t es) { return ld >= n && (uint64_t)ld * es <= UINT32_MAX; }

/* TESSEL_EINVAL naming the first of dtypes, sizes and the strides of x and y (each ld of es-byte
 * elements, dense already) that the command cannot take. */
static tessel_status_t rows_check(tessel_dev_t *dev, const char *what, tessel_dtype_t in, tessel_dtype_t out,
                                  uint32_t m, uint32_t n, uint32_t ldx, uint32_t esa, uint32_t ldy, uint32_t esc)
{
    if (!float_dt(in) || !float_dt(out))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: %s %s is not bf16 or fp32", what,
                           float_dt(in) ? "out_dtype" : "in_dtype", tessel_dtype_str(float_dt(in) ? out : in));
    if (!m || !n)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: %s 0 must be at least 1", what, !m ? "m" : "n");
    if (!stride_ok(ldx, n, esa) || !stride_ok(ldy, n, esc))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: %s %u is shorter than a row of %u or a stride of 4 GiB or more",
                           what, stride_ok(ldx, n, esa) ? "ldy" : "ldx", stride_ok(ldx, n, esa) ? ldy : ldx, n);
    return TESSEL_OK;
}

/* A stride given as 0: dense, rows of n. */
static uint32_t dense(uint32_t ld, uint32_t n) { return ld ? ld : n; }

/* Each TESSEL_ROW_*: its ROW_OP, and the name its messages give. */
static const struct {
    uint32_t op;
    const char *what;
} row_fns[] = {{TSL_ROW_OP_SOFTMAX, "tessel_softmax"}, {TSL_ROW_OP_LAYERNORM, "tessel_layernorm"},
               {TSL_ROW_OP_RMSNORM, "tessel_rmsnorm"}, {TSL_ROW_OP_GELU, "tessel_gelu"},
               {TSL_ROW_OP_SILU, "tessel_silu"},       {TSL_ROW_OP_SUM, "tessel_rowwise_cmd (SUM)"}};

TESSEL_API tessel_status_t tessel_rowwise_cmd(tessel_dev_t *dev, const tessel_rows_op_t *p, tessel_cmd_t *cmd)
{
    if (!dev || !p || !cmd)
        return TESSEL_EINVAL;
    if ((unsigned)p->fn >= NELEMS(row_fns))
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_rowwise_cmd: fn %d is none of TESSEL_ROW_*", (int)p->fn);
    const char *what = row_fns[p->fn].what;
    const int softmax = p->fn == TESSEL_ROW_SOFTMAX, norm = p->fn == TESSEL_ROW_LAYERNORM || p->fn == TESSEL_ROW_RMSNORM;
    const uint32_t adt = tessel_cmd_dtype(p->in_dtype), cdt = tessel_cmd_dtype(p->out_dtype);
    const uint32_t esa = tsl_dtype_bytes(adt), esc = tsl_dtype_bytes(cdt);
    const uint32_t ldx = dense(p->ldx, p->n), ldy = dense(p->ldy, p->n), ldmask = p->mask ? dense(p->ldmask, p->n) : 0u;
    int r = rows_check(dev, what, p->in_dtype, p->out_dtype, p->m, p->n, ldx, esa, ldy, esc);
    if (r)
        return r;
    if (p->mask ? !stride_ok(ldmask, p->n, 4) : p->ldmask != 0)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: ldmask %u %s", what, p->ldmask,
                           p->mask ? "is shorter than a row or a stride of 4 GiB or more" : "without a mask");
    if (norm && !p->gamma)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: a norm needs gamma", what);
    if (p->add_y != 0 && p->add_y != 1)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: add_y %d is not 0 or 1", what, p->add_y);
    const char *unread = !norm && p->gamma ? "gamma" : !norm && p->eps != 0.0f ? "eps" : !norm && p->add_y ? "add_y"
                       : p->beta && p->fn != TESSEL_ROW_LAYERNORM ? "beta"
                       : !softmax && p->mask ? "a mask" : !softmax && p->scale != 0.0f ? "scale" : NULL;
    if (unread)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: %s is not read by this function (%s takes %s)", what, unread,
                           what, softmax ? "scale and a mask" : p->fn == TESSEL_ROW_LAYERNORM ? "gamma, beta, eps and add_y"
                                         : norm ? "gamma, eps and add_y" : "no operand but x");
    r = softmax ? tessel_f32_check(dev, what, "scale", p->scale, TESSEL_ARG_SCALE)
                : norm ? tessel_f32_check(dev, what, "eps", p->eps, TESSEL_ARG_EPS) : 0;
    if (r || (r = tessel_cmd_addr(dev, what, "x", p->x)) || (r = tessel_cmd_addr(dev, what, "y", p->y)) ||
        (r = tessel_cmd_addr(dev, what, "mask", p->mask)) || (r = tessel_cmd_addr(dev, what, "gamma", p->gamma)) ||
        (r = tessel_cmd_addr(dev, what, "beta", p->beta)))
        return r;
    tsl_cmd_t c = {.opcode = TSL_CMD_OP_ROWWISE, .vpu_op = row_fns[p->fn].op, .a_dtype = adt, .c_dtype = cdt,
                   .m = p->m, .n = p->n, .a_addr = (uint32_t)p->x, .lda = ldx * esa, .c_addr = (uint32_t)p->y,
                   .ldc = ldy * esc};
    if (softmax && p->scale != 0.0f && p->scale != 1.0f) {
        c.flags |= 1u << TSL_CMD_FLAG_SCALE;
        c.scale = tessel_f32_bits(p->scale);
    }
    if (p->mask) {
        c.flags |= 1u << TSL_CMD_FLAG_MASK;
        c.b_dtype = TSL_DTYPE_FP32;
        c.b_addr = (uint32_t)p->mask;
        c.ldb = ldmask * 4u;
    }
    if (norm) {   /* gamma is B, eps the SCALE word, beta the bias row */
        c.b_addr = (uint32_t)p->gamma;
        c.scale = tessel_f32_bits(p->eps);
    }
    if (p->beta) {
        c.flags |= 1u << TSL_CMD_FLAG_BIAS;
        c.bias_addr = (uint32_t)p->beta;
    }
    if (p->add_y)
        c.flags |= 1u << TSL_CMD_FLAG_ADD_C;
    tsl_cmd_encode(&c, cmd->w);
    return TESSEL_OK;
}

/* The VPU_OP of each TESSEL_EW_*. */
static const uint32_t ew_ops[] = {TSL_VPU_OP_ADD,  TSL_VPU_OP_MUL, TSL_VPU_OP_MAX,   TSL_VPU_OP_MIN,  TSL_VPU_OP_RELU,
                                  TSL_VPU_OP_EXP,  TSL_VPU_OP_RECIP, TSL_VPU_OP_RSQRT, TSL_VPU_OP_MOV};

TESSEL_API tessel_status_t tessel_eltwise_cmd(tessel_dev_t *dev, const tessel_ew_op_t *p, tessel_cmd_t *cmd)
{
    if (!dev || !p || !cmd)
        return TESSEL_EINVAL;
    const char *what = "tessel_eltwise";
    if ((unsigned)p->op >= NELEMS(ew_ops))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: op %d is none of TESSEL_EW_*", what, (int)p->op);
    const uint32_t vop = ew_ops[p->op];
    const int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, vop);
    const int matrix = !unary && !p->b_imm && !p->b_row;
    if (unary ? p->b || p->ldb || p->b_row || p->b_imm : p->b_imm ? p->b || p->ldb || p->b_row : !p->b || (p->b_row && p->ldb))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: %s", what,
                           unary ? "b given to a unary op"
                                 : "a binary op takes one B: a matrix (b, ldb), a row (b, b_row) or a scalar (b_imm)");
    const uint32_t adt = tessel_cmd_dtype(p->in_dtype), cdt = tessel_cmd_dtype(p->out_dtype);
    const uint32_t esa = tsl_dtype_bytes(adt), esc = tsl_dtype_bytes(cdt);
    const uint32_t ldx = dense(p->ldx, p->n), ldy = dense(p->ldy, p->n), ldb = matrix ? dense(p->ldb, p->n) : 0u;
    int r = rows_check(dev, what, p->in_dtype, p->out_dtype, p->m, p->n, ldx, esa, ldy, esc);
    if (r)
        return r;
    if (matrix && !stride_ok(ldb, p->n, esa))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: ldb %u is shorter than a row of %u or a stride of 4 GiB or more",
                           what, ldb, p->n);
    if (!p->b_imm && p->imm != 0.0f)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: imm %g without b_imm", what, (double)p->imm);
    if ((r = tessel_cmd_addr(dev, what, "x", p->x)) || (r = tessel_cmd_addr(dev, what, "y", p->y)) ||
        (r = tessel_cmd_addr(dev, what, "b", p->b)))
        return r;
    tsl_cmd_t c = {.opcode = TSL_CMD_OP_ELTWISE, .vpu_op = vop, .a_dtype = adt, .c_dtype = cdt, .m = p->m, .n = p->n,
                   .a_addr = (uint32_t)p->x, .lda = ldx * esa, .c_addr = (uint32_t)p->y, .ldc = ldy * esc};
    if (p->b_imm) {   /* the scalar, FP32 in the SCALE word */
        c.flags = 1u << TSL_CMD_FLAG_B_IMM;
        c.b_dtype = TSL_DTYPE_FP32;
        c.scale = tessel_f32_bits(p->imm);
    } else if (!unary) {
        c.flags = p->b_row ? 1u << TSL_CMD_FLAG_B_BCAST : 0u;
        c.b_dtype = adt;
        c.b_addr = (uint32_t)p->b;
        c.ldb = ldb * esa;
    }
    tsl_cmd_encode(&c, cmd->w);
    return TESSEL_OK;
}

/* A host row call: the op of its command (ELTWISE: ew, else ROWWISE: row), its addresses set from
 * the buffers; the host operands besides x (an ELTWISE's b, m x n, ldx apart as x). */
typedef struct {
    int eltwise;
    tessel_rows_op_t row;
    tessel_ew_op_t ew;
    const float *mask, *gamma, *beta, *b;
} row_call_t;

/* The command of call c on buffers addr (x, y, the mask or b, gamma, beta). */
static tessel_status_t row_encode(tessel_dev_t *dev, row_call_t *c, const tessel_addr_t addr[5], tessel_cmd_t *cmd)
{
    if (c->eltwise) {
        c->ew.x = addr[0];
        c->ew.y = addr[1];
        c->ew.b = c->b ? addr[2] : 0u;
        return tessel_eltwise_cmd(dev, &c->ew, cmd);
    }
    c->row.x = addr[0];
    c->row.y = addr[1];
    c->row.mask = c->mask ? addr[2] : 0u;
    c->row.ldmask = c->mask ? c->row.n : 0u;
    c->row.gamma = c->gamma ? addr[3] : 0u;
    c->row.beta = c->beta ? addr[4] : 0u;
    return tessel_rowwise_cmd(dev, &c->row, cmd);
}

/* Check the call (its command on provisional addresses), then allocate and fill its buffers (dense:
 * strides of n), run the command on them and read y back. */
static tessel_status_t run_rows(tessel_dev_t *dev, const char *what, const tessel_rows_t *r, row_call_t *c,
                                tessel_completion_t *cpl)
{
    if (!dev)
        return TESSEL_EINVAL;
    if (!r || !r->x || !r->y || r->ldx < r->n || r->ldy < r->n)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: invalid arguments (a NULL matrix, or a stride shorter than a row)",
                           what);
    c->row.m = c->ew.m = r->m;
    c->row.n = c->ew.n = r->n;
    c->row.in_dtype = c->ew.in_dtype = r->in_dtype;
    c->row.out_dtype = c->ew.out_dtype = r->out_dtype;
    c->row.ldx = c->ew.ldx = c->row.ldy = c->ew.ldy = r->n;   /* the buffers are dense */
    c->row.add_y = r->residual != NULL;
    if (r->residual && (c->eltwise || (c->row.fn != TESSEL_ROW_LAYERNORM && c->row.fn != TESSEL_ROW_RMSNORM)))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: a residual is not read by this function (only the norms add one)",
                           what);
    c->ew.ldb = c->b ? r->n : 0u;
    const tessel_addr_t pa = TESSEL_ADDR_PROVISIONAL, prov[5] = {pa, pa, pa, pa, pa};
    tessel_cmd_t cmd;
    int st = row_encode(dev, c, prov, &cmd);
    tessel_info_t info;
    if (st || (st = tessel_need(dev, 1, what, &info)))
        return st;
    const uint32_t adt = tessel_cmd_dtype(r->in_dtype), cdt = tessel_cmd_dtype(r->out_dtype);
    const uint64_t m = r->m, n = r->n, esa = tsl_dtype_bytes(adt), esc = tsl_dtype_bytes(cdt);
    const uint64_t xb = m * n * esa, yb = m * n * esc, mb = c->mask ? m * n * 4u : c->b ? xb : 0u;
    const uint64_t gb = c->gamma ? n * 4u : 0u, bb = c->beta ? n * 4u : 0u;
    if (xb > info.hbm_bytes || yb > info.hbm_bytes || mb > info.hbm_bytes || n * 4u > UINT32_MAX)
        return tessel_fail(dev, TESSEL_ENOMEM, "%s: a %llux%llu matrix does not fit the device's HBM", what,
                           (unsigned long long)m, (unsigned long long)n);
    uint64_t host = m * n * 4u;
    uint8_t *buf = malloc((size_t)host);
    if (!buf)
        return tessel_fail(dev, TESSEL_ENOMEM, "%s: %llu bytes of host memory", what, (unsigned long long)host);
    tessel_buf_t d[5] = {{0, (size_t)xb, 0}, {0, (size_t)yb, 0}, {0, (size_t)mb, 0}, {0, (size_t)gb, 0}, {0, (size_t)bb, 0}};
    if ((st = tessel_bufs_alloc(dev, d, 5)))
        goto out;
    if ((st = tessel_put_matrix(dev, d[0].addr, r->x, m, n, r->ldx, adt, buf)) ||
        (c->b && (st = tessel_put_matrix(dev, d[2].addr, c->b, m, n, r->ldx, adt, buf))) ||
        (r->residual && (st = tessel_put_matrix(dev, d[1].addr, r->residual, m, n, r->ldx, cdt, buf))) ||
        (c->mask && (st = tessel_write(dev, d[2].addr, c->mask, (size_t)mb))) ||
        (c->gamma && (st = tessel_write(dev, d[3].addr, c->gamma, (size_t)gb))) ||
        (c->beta && (st = tessel_write(dev, d[4].addr, c->beta, (size_t)bb))))
        goto out;
    const tessel_addr_t addr[5] = {d[0].addr, d[1].addr, d[2].addr, d[3].addr, d[4].addr};
    if ((st = row_encode(dev, c, addr, &cmd)))
        goto out;
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

/* A ROWWISE call of fn. */
static tessel_status_t rows(tessel_dev_t *dev, const tessel_rows_t *r, tessel_row_fn_t fn, float scale,
                            const float *mask, const float *gamma, const float *beta, float eps,
                            tessel_completion_t *cpl)
{
    row_call_t c = {.row = {.fn = fn, .scale = scale, .eps = eps}, .mask = mask, .gamma = gamma, .beta = beta};
    return run_rows(dev, row_fns[fn].what, r, &c, cpl);
}

TESSEL_API tessel_status_t tessel_softmax(tessel_dev_t *dev, const tessel_rows_t *r, float scale, const float *mask,
                                          tessel_completion_t *cpl)
{
    return rows(dev, r, TESSEL_ROW_SOFTMAX, scale, mask, NULL, NULL, 0.0f, cpl);
}

TESSEL_API tessel_status_t tessel_layernorm(tessel_dev_t *dev, const tessel_rows_t *r, const float *gamma,
                                            const float *beta, float eps, tessel_completion_t *cpl)
{
    return rows(dev, r, TESSEL_ROW_LAYERNORM, 0.0f, NULL, gamma, beta, eps, cpl);
}

TESSEL_API tessel_status_t tessel_rmsnorm(tessel_dev_t *dev, const tessel_rows_t *r, const float *gamma, float eps,
                                          tessel_completion_t *cpl)
{
    return rows(dev, r, TESSEL_ROW_RMSNORM, 0.0f, NULL, gamma, NULL, eps, cpl);
}

TESSEL_API tessel_status_t tessel_gelu(tessel_dev_t *dev, const tessel_rows_t *r, tessel_completion_t *cpl)
{
    return rows(dev, r, TESSEL_ROW_GELU, 0.0f, NULL, NULL, NULL, 0.0f, cpl);
}

TESSEL_API tessel_status_t tessel_silu(tessel_dev_t *dev, const tessel_rows_t *r, tessel_completion_t *cpl)
{
    return rows(dev, r, TESSEL_ROW_SILU, 0.0f, NULL, NULL, NULL, 0.0f, cpl);
}

TESSEL_API tessel_status_t tessel_eltwise(tessel_dev_t *dev, const tessel_rows_t *r, tessel_eltwise_op_t op,
                                          const float *b, tessel_completion_t *cpl)
{
    row_call_t c = {.eltwise = 1, .ew = {.op = op}, .b = b};
    return run_rows(dev, "tessel_eltwise", r, &c, cpl);
}

TESSEL_API tessel_status_t tessel_add(tessel_dev_t *dev, const tessel_rows_t *r, const float *b, tessel_completion_t *cpl)
{
    return tessel_eltwise(dev, r, TESSEL_EW_ADD, b, cpl);
}
