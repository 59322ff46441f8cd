/* libtessel: tessel_conv2d_cmd and tessel_pool2d_cmd, the CONV2D and POOL2D commands of device
 * buffers (docs/isa.md §7), and tessel_conv2d and tessel_pool2d, the same command on host operands.
 *
 * The operands are dense already (NHWC, HWIO), so the host only converts: float rounded to bf16
 * on the way in, the result widened on the way out. The firmware walks the windows itself (its
 * implicit im2col, firmware/cp/README.md). An int8 average is REQUANT(sum, SCALE, SHIFT) with
 * SHIFT = 30 + floor(log2 k) and SCALE = floor(2^SHIFT / k) + 1 for k = kh*kw taps: just above
 * 1/k, so that sum/k is rounded to nearest with ties away from zero, exactly for any int8 window
 * (the excess, |sum| / 2^SHIFT < 1/(2k), never reaches the next rounding boundary).
 */
#include <stdlib.h>
#include <string.h>

#include "tessel_int.h"
#include "tsl_insn.h"
#include "tsl_win.h"

TESSEL_API uint32_t tessel_window_out(uint32_t in, uint32_t pad0, uint32_t pad1, uint32_t k, uint32_t stride,
                                      uint32_t dil)
{
    return tsl_win_out(in, pad0, pad1, k, dil, stride);
}

/* The geometry of a window op's struct. */
#define WIN_OF(p, cout_, groups_)                                                                          \
    ((tsl_win_t){.h = (p)->h, .w = (p)->w, .c = (p)->c, .cout = (cout_), .kh = (p)->kh, .kw = (p)->kw,     \
                 .stride_h = (p)->stride_h, .stride_w = (p)->stride_w, .pad_t = (p)->pad_t,                \
                 .pad_b = (p)->pad_b, .pad_l = (p)->pad_l, .pad_r = (p)->pad_r, .dil_h = (p)->dil_h,       \
                 .dil_w = (p)->dil_w, .groups = (groups_), .batch = (p)->batch})

/* Every field in its range (the spec's: tsl_win_bad_field) and an output of at least one pixel;
 * TESSEL_EINVAL naming the field otherwise. */
static tessel_status_t geometry_check(tessel_dev_t *dev, const char *what, const tsl_win_t *g, uint32_t opcode)
{
    int r = tessel_cmd_range(dev, what, tsl_win_bad_field(g, opcode), g);
    if (r)
        return r;
    if (!tsl_win_oh(g) || !tsl_win_ow(g))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: the %ux%u window (dilation %u,%u) does not fit the %ux%u input "
                           "padded by %u,%u,%u,%u (top, bottom, left, right)", what, g->kh, g->kw, g->dil_h, g->dil_w,
                           g->h, g->w, g->pad_t, g->pad_b, g->pad_l, g->pad_r);
    return TESSEL_OK;
}

/* An int8 input's zero point in -128..127; a float input's 0 (it is padded with 0). */
static tessel_status_t zero_point_check(tessel_dev_t *dev, const char *what, int int8, int32_t zp)
{
    if (int8 && (zp < -128 || zp > 127))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: x_zero_point %d is outside -128..127", what, (int)zp);
    if (!int8 && zp)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: x_zero_point %d applies to int8 inputs only (float inputs are "
                           "padded with 0)", what, (int)zp);
    return TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_conv2d_cmd(tessel_dev_t *dev, const tessel_conv2d_op_t *p, tessel_cmd_t *cmd)
{
    if (!dev || !p || !cmd)
        return TESSEL_EINVAL;
    const char *what = "tessel_conv2d";
    tsl_win_t g = WIN_OF(p, p->cout, p->groups);
    const int int8 = p->in_dtype == TESSEL_INT8;
    if (!int8 && p->in_dtype != TESSEL_BF16)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: in_dtype %s is not int8 or bf16", what,
                           tessel_dtype_str(p->in_dtype));
    if (int8 ? p->out_dtype != TESSEL_INT32 && p->out_dtype != TESSEL_INT8
             : p->out_dtype != TESSEL_FP32 && p->out_dtype != TESSEL_BF16)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: out_dtype %s does not go with %s inputs (%s)", what,
                           tessel_dtype_str(p->out_dtype), tessel_dtype_str(p->in_dtype),
                           int8 ? "int32 or int8" : "fp32 or bf16");
    int r = geometry_check(dev, what, &g, TSL_CMD_OP_CONV2D);
    if (r)
        return r;
    if (p->c % p->groups || p->cout % p->groups)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: groups %u must divide c (%u) and cout (%u)", what, p->groups, p->c,
                           p->cout);
    if ((r = zero_point_check(dev, what, int8, p->x_zero_point)))
        return r;
    if (int8 && p->scale != 0.0f && p->scale != 1.0f)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: scale %g applies to bf16 inputs only", what, (double)p->scale);
    if (p->out_dtype == TESSEL_INT8 && p->rq_shift > TSL_CMD_SHIFT_MAX)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: rq_shift %u is outside %u..%u", what, p->rq_shift,
                           TSL_CMD_SHIFT_MIN, TSL_CMD_SHIFT_MAX);
    if (p->out_dtype != TESSEL_INT8 && (p->rq_scale || p->rq_shift || p->rq_zero_point))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: rq_scale, rq_shift and rq_zero_point need out_dtype int8", what);
    r = int8 ? 0 : tessel_f32_check(dev, what, "scale", p->scale, TESSEL_ARG_SCALE);
    if (r || (r = tessel_cmd_addr(dev, what, "x", p->x)) || (r = tessel_cmd_addr(dev, what, "weights", p->weights)) ||
        (r = tessel_cmd_addr(dev, what, "y", p->y)) || (r = tessel_cmd_addr(dev, what, "bias", p->bias)))
        return r;
    const uint32_t adt = tessel_cmd_dtype(p->in_dtype);
    g.a_zp = int8 ? (uint32_t)p->x_zero_point & 0xFFu : 0u;
    tsl_cmd_t c = {.opcode = TSL_CMD_OP_CONV2D, .a_dtype = adt, .b_dtype = adt, .c_dtype = tessel_cmd_dtype(p->out_dtype),
                   .a_addr = (uint32_t)p->x, .b_addr = (uint32_t)p->weights, .c_addr = (uint32_t)p->y,
                   .bias_addr = (uint32_t)p->bias};
    if (p->bias)
        c.flags |= 1u << TSL_CMD_FLAG_BIAS;
    if (p->relu)
        c.flags |= 1u << TSL_CMD_FLAG_RELU;
    if (!int8 && p->scale != 0.0f && p->scale != 1.0f) {
        c.flags |= 1u << TSL_CMD_FLAG_SCALE;
        c.scale = tessel_f32_bits(p->scale);
    }
    if (p->out_dtype == TESSEL_INT8) {
        c.scale = (uint32_t)p->rq_scale;
        c.shift = p->rq_shift;
        c.zero_point = (uint32_t)p->rq_zero_point;
    }
    tsl_cmd_encode(&c, cmd->w);
    tsl_win_encode(&g, cmd->w);
    return TESSEL_OK;
}

TESSEL_API tessel_status_t tessel_pool2d_cmd(tessel_dev_t *dev, const tessel_pool2d_op_t *p, tessel_cmd_t *cmd)
{
    if (!dev || !p || !cmd)
        return TESSEL_EINVAL;
    const char *what = "tessel_pool2d";
    const int avg = p->kind == TESSEL_POOL_AVG, int8 = p->in_dtype == TESSEL_INT8;
    tsl_win_t g = WIN_OF(p, 0u, 0u);
    if (p->kind != TESSEL_POOL_MAX && !avg)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: kind %d is none of TESSEL_POOL_MAX and TESSEL_POOL_AVG", what,
                           (int)p->kind);
    if (!int8 && p->in_dtype != TESSEL_BF16)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: in_dtype %s is not int8 or bf16", what,
                           tessel_dtype_str(p->in_dtype));
    if (int8 ? p->out_dtype != TESSEL_INT8 : p->out_dtype != TESSEL_BF16 && (!avg || p->out_dtype != TESSEL_FP32))
        return tessel_fail(dev, TESSEL_EINVAL, "%s: out_dtype %s does not go with the %s pool of %s inputs (%s)", what,
                           tessel_dtype_str(p->out_dtype), avg ? "average" : "max", tessel_dtype_str(p->in_dtype),
                           int8 ? "int8" : avg ? "bf16 or fp32" : "bf16");
    int r = geometry_check(dev, what, &g, TSL_CMD_OP_POOL2D);
    if (r)
        return r;
    if (!avg && p->x_zero_point)
        return tessel_fail(dev, TESSEL_EINVAL, "%s: x_zero_point %d applies to an average pool only (padding never "
                           "wins a max)", what, (int)p->x_zero_point);
    if ((r = zero_point_check(dev, what, int8, p->x_zero_point)) || (r = tessel_cmd_addr(dev, what, "x", p->x)) ||
        (r = tessel_cmd_addr(dev, what, "y", p->y)))
        return r;
    tsl_cmd_t c = {.opcode = TSL_CMD_OP_POOL2D, .vpu_op = avg ? TSL_VPU_OP_ADD : TSL_VPU_OP_MAX,
                   .a_dtype = tessel_cmd_dtype(p->in_dtype), .c_dtype = tessel_cmd_dtype(p->out_dtype),
                   .a_addr = (uint32_t)p->x, .c_addr = (uint32_t)p->y};
    const uint32_t k = g.kh * g.kw;
    if (avg && int8) {   /* round(sum / k), ties away from zero (the file's comment) */
        uint32_t lg = 0;
        while ((2u << lg) <= k)
            lg++;
        c.shift = 30u + lg;
        c.scale = (uint32_t)(((uint64_t)1 << c.shift) / k + 1u);
        g.a_zp = (uint32_t)p->x_zero_point & 0xFFu;
    } else if (avg) {
        c.flags = 1u << TSL_CMD_FLAG_SCALE;
        c.scale = tessel_f32_bits(1.0f / (float)k);
    }
    tsl_cmd_encode(&c, cmd->w);
    tsl_win_encode(&g, cmd->w);
    return TESSEL_OK;
}

/* A host window call: its struct and the encoder that makes its command of the buffers at addr
 * (x, weights, y, bias). */
typedef tessel_status_t (*win_encode_t)(tessel_dev_t *dev, const void *p, const tessel_addr_t addr[4],
                                        tessel_cmd_t *cmd);

/* Check the call (its command on provisional addresses), then allocate and fill its buffers, run
 * the command on them and read Y back; the sizes are the command's. */
static tessel_status_t run_window(tessel_dev_t *dev, const char *what, win_encode_t encode, const void *p,
                                  const void *x, const void *wts, const void *bias, void *y, tessel_completion_t *cpl)
{
    const tessel_addr_t pa = TESSEL_ADDR_PROVISIONAL;
    const tessel_addr_t prov[4] = {pa, wts ? pa : 0u, pa, bias ? pa : 0u};
    tessel_cmd_t cmd;
    int r = encode(dev, p, prov, &cmd);
    if (r)
        return r;
    const tsl_cmd_t c = tsl_cmd_decode(cmd.w);
    const tsl_win_t g = tsl_win_decode(cmd.w);
    tessel_info_t info;
    if ((r = tessel_need(dev, c.a_dtype == TSL_DTYPE_BF16, what, &info)))
        return r;
    const uint32_t es = tsl_dtype_bytes(c.a_dtype), ces = tsl_dtype_bytes(c.c_dtype);
    const uint64_t xb = tsl_win_in_bytes(&g, es), wb = wts ? tsl_win_w_bytes(&g, es) : 0, yb = tsl_win_out_bytes(&g, ces);
    const uint64_t bb = bias ? 4u * (uint64_t)g.cout : 0;
    if (xb > info.hbm_bytes || wb > info.hbm_bytes || yb > info.hbm_bytes)
        return tessel_fail(dev, TESSEL_ENOMEM, "%s: the input (%llu bytes), weights (%llu) and output (%llu) do not fit "
                           "the device's %llu bytes of HBM", what, (unsigned long long)xb, (unsigned long long)wb,
                           (unsigned long long)yb, (unsigned long long)info.hbm_bytes);
    uint64_t host = xb > wb ? xb : wb;
    host = host > yb ? host : yb;
    uint8_t *buf = malloc((size_t)host);
    if (!buf)
        return tessel_fail(dev, TESSEL_ENOMEM, "%s: %llu bytes of host memory", what, (unsigned long long)host);
    tessel_buf_t d[4] = {{0, (size_t)xb, 0}, {0, (size_t)wb, 0}, {0, (size_t)yb, 0}, {0, (size_t)bb, 0}};
    if ((r = tessel_bufs_alloc(dev, d, 4)))
        goto out;
    if ((r = tessel_put_matrix(dev, d[0].addr, x, 1, xb / es, 0, c.a_dtype, buf)) ||
        (wts && (r = tessel_put_matrix(dev, d[1].addr, wts, 1, wb / es, 0, c.a_dtype, buf))) ||
        (bias && (r = tessel_write(dev, d[3].addr, bias, (size_t)bb))))
        goto out;
    const tessel_addr_t addr[4] = {d[0].addr, d[1].addr, d[2].addr, d[3].addr};
    if ((r = encode(dev, p, addr, &cmd)))
        goto out;
    r = tessel_run(dev, &cmd, cpl);
    if (r && r != TESSEL_EMISMATCH)   /* on a mismatch Y still holds the device's result */
        goto out;
    int r2 = tessel_read(dev, buf, d[2].addr, (size_t)yb);
    if (r2) {
        r = r2;
        goto out;
    }
    tessel_get_matrix(y, 0, buf, 1, yb / ces, c.c_dtype);
out:
    tessel_bufs_free(dev, d, 4);
    free(buf);
    return r;
}

static tessel_status_t conv_encode(tessel_dev_t *dev, const void *pv, const tessel_addr_t addr[4], tessel_cmd_t *cmd)
{
    const tessel_conv2d_t *p = pv;
    const tessel_conv2d_op_t op = {
        .batch = p->batch, .h = p->h, .w = p->w, .c = p->c, .cout = p->cout, .kh = p->kh, .kw = p->kw,
        .groups = p->groups, .stride_h = p->stride_h, .stride_w = p->stride_w, .pad_t = p->pad_t, .pad_b = p->pad_b,
        .pad_l = p->pad_l, .pad_r = p->pad_r, .dil_h = p->dil_h, .dil_w = p->dil_w, .in_dtype = p->in_dtype,
        .out_dtype = p->out_dtype, .x = addr[0], .weights = addr[1], .y = addr[2], .bias = addr[3], .relu = p->relu,
        .scale = p->scale, .x_zero_point = p->x_zero_point, .rq_scale = p->rq_scale, .rq_shift = p->rq_shift,
        .rq_zero_point = p->rq_zero_point};
    return tessel_conv2d_cmd(dev, &op, cmd);
}

static tessel_status_t pool_encode(tessel_dev_t *dev, const void *pv, const tessel_addr_t addr[4], tessel_cmd_t *cmd)
{
    const tessel_pool2d_t *p = pv;
    const tessel_pool2d_op_t op = {
        .kind = p->kind, .batch = p->batch, .h = p->h, .w = p->w, .c = p->c, .kh = p->kh, .kw = p->kw,
        .stride_h = p->stride_h, .stride_w = p->stride_w, .pad_t = p->pad_t, .pad_b = p->pad_b, .pad_l = p->pad_l,
        .pad_r = p->pad_r, .dil_h = p->dil_h, .dil_w = p->dil_w, .in_dtype = p->in_dtype, .out_dtype = p->out_dtype,
        .x = addr[0], .y = addr[2], .x_zero_point = p->x_zero_point};
    return tessel_pool2d_cmd(dev, &op, cmd);
}

TESSEL_API tessel_status_t tessel_conv2d(tessel_dev_t *dev, const tessel_conv2d_t *p, tessel_completion_t *cpl)
{
    if (!dev || !p)
        return TESSEL_EINVAL;
    if (!p->x || !p->weights || !p->y)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_conv2d: invalid arguments (a NULL operand)");
    return run_window(dev, "tessel_conv2d", conv_encode, p, p->x, p->weights, p->bias, p->y, cpl);
}

TESSEL_API tessel_status_t tessel_pool2d(tessel_dev_t *dev, const tessel_pool2d_t *p, tessel_completion_t *cpl)
{
    if (!dev || !p)
        return TESSEL_EINVAL;
    if (!p->x || !p->y)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_pool2d: invalid arguments (a NULL operand)");
    return run_window(dev, "tessel_pool2d", pool_encode, p, p->x, NULL, NULL, p->y, cpl);
}
