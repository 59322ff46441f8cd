/* libtessel: tessel_conv2d and tessel_pool2d, one CONV2D or POOL2D command each (docs/isa.md §7).
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

static uint32_t one(uint32_t v) { return v ? v : 1u; }

static uint32_t dtype_of(tessel_dtype_t d)
{
    return d == TESSEL_INT8 ? TSL_DTYPE_INT8 : d == TESSEL_INT32 ? TSL_DTYPE_INT32
           : d == TESSEL_BF16 ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32;
}

/* What one window command moves: its geometry, dtypes and host operands. */
typedef struct {
    const char *what;
    tsl_win_t g;
    uint32_t op, vpu_op, adt, cdt, flags;
    const void *x, *w, *bias;
    void *y;
    uint32_t scale, shift, zero_point;
} win_call_t;

static tessel_status_t run_window(tessel_dev_t *dev, const win_call_t *c, tessel_completion_t *cpl)
{
    tessel_info_t info;
    int r = tessel_need(dev, c->adt == TSL_DTYPE_BF16, c->what, &info);
    if (r)
        return r;
    const tsl_win_t *g = &c->g;
    const uint32_t es = tsl_dtype_bytes(c->adt), ces = tsl_dtype_bytes(c->cdt);
    const uint64_t xb = tsl_win_in_bytes(g, es), wb = c->w ? tsl_win_w_bytes(g, es) : 0, yb = tsl_win_out_bytes(g, ces);
    const uint64_t bb = c->bias ? 4u * (uint64_t)g->cout : 0;
    if (xb > info.hbm_bytes || wb > info.hbm_bytes || yb > info.hbm_bytes)
        return tessel_fail(dev, TESSEL_ENOMEM, "%s: the input (%llu bytes), weights (%llu) and output (%llu) do not fit "
                           "the device's %llu bytes of HBM", c->what, (unsigned long long)xb, (unsigned long long)wb,
                           (unsigned long long)yb, (unsigned long long)info.hbm_bytes);
    uint64_t host = xb > wb ? xb : wb;
    host = host > yb ? host : yb;
    uint8_t *buf = malloc((size_t)host);
    if (!buf)
        return tessel_fail(dev, TESSEL_ENOMEM, "%s: %llu bytes of host memory", c->what, (unsigned long long)host);
    tessel_buf_t d[4] = {{0, (size_t)xb, 0}, {0, (size_t)wb, 0}, {0, (size_t)yb, 0}, {0, (size_t)bb, 0}};
    if ((r = tessel_bufs_alloc(dev, d, 4)))
        goto out;
    if ((r = tessel_put_matrix(dev, d[0].addr, c->x, 1, xb / es, 0, c->adt, buf)) ||
        (c->w && (r = tessel_put_matrix(dev, d[1].addr, c->w, 1, wb / es, 0, c->adt, buf))) ||
        (c->bias && (r = tessel_write(dev, d[3].addr, c->bias, (size_t)bb))))
        goto out;
    tessel_cmd_t cmd;
    memset(&cmd, 0, sizeof cmd);
    uint32_t *w = cmd.w;
    tsl_win_encode(g, w);
    TSL_SET(w, TSL_CMD_OPCODE, c->op);
    TSL_SET(w, TSL_CMD_FLAGS, c->flags);
    TSL_SET(w, TSL_CMD_A_DTYPE, c->adt);
    TSL_SET(w, TSL_CMD_B_DTYPE, c->w ? c->adt : 0u);
    TSL_SET(w, TSL_CMD_C_DTYPE, c->cdt);
    TSL_SET(w, TSL_CMD_VPU_OP, c->vpu_op);
    TSL_SET(w, TSL_CMD_A_ADDR, (uint32_t)d[0].addr);
    TSL_SET(w, TSL_CMD_B_ADDR, (uint32_t)d[1].addr);
    TSL_SET(w, TSL_CMD_C_ADDR, (uint32_t)d[2].addr);
    TSL_SET(w, TSL_CMD_BIAS_ADDR, (uint32_t)d[3].addr);
    TSL_SET(w, TSL_CMD_SCALE, c->scale);
    TSL_SET(w, TSL_CMD_SHIFT, c->shift);
    TSL_SET(w, TSL_CMD_ZERO_POINT, c->zero_point);
    r = tessel_run(dev, &cmd, cpl);
    if (r && r != TESSEL_EMISMATCH)   /* on a mismatch Y still holds the device's result */
        goto out;
    int r2 = tessel_read(dev, buf, d[2].addr, (size_t)yb);
    if (r2) {
        r = r2;
        goto out;
    }
    tessel_get_matrix(c->y, 0, buf, 1, yb / ces, c->cdt);
out:
    tessel_bufs_free(dev, d, 4);
    free(buf);
    return r;
}

/* The geometry of the public structs (0 strides, dilations and groups are 1). */
#define WIN_OF(p, cout_, groups_)                                                                          \
    ((tsl_win_t){.h = (p)->h, .w = (p)->w, .c = (p)->c, .cout = (cout_), .kh = (p)->kh, .kw = (p)->kw,        \
                 .stride_h = one((p)->stride_h), .stride_w = one((p)->stride_w), .pad_t = (p)->pad_t,          \
                 .pad_b = (p)->pad_b, .pad_l = (p)->pad_l, .pad_r = (p)->pad_r, .dil_h = one((p)->dil_h),       \
                 .dil_w = one((p)->dil_w), .groups = (groups_), .batch = (p)->batch})

/* Every field inside the command's: sizes in 16 bits, window sizes, strides, dilations and
 * paddings in 8, and an output of at least one pixel. */
static int geometry_ok(const tsl_win_t *g, uint32_t raw_pads[4])
{
    const uint32_t v16[] = {g->h, g->w, g->c, g->batch}, v8[] = {g->kh, g->kw, g->stride_h, g->stride_w, g->dil_h, g->dil_w};
    for (size_t i = 0; i < 4; i++)
        if (!v16[i] || v16[i] > 0xFFFFu || raw_pads[i] > 0xFFu)
            return 0;
    for (size_t i = 0; i < 6; i++)
        if (!v8[i] || v8[i] > 0xFFu)
            return 0;
    return tsl_win_oh(g) && tsl_win_ow(g);
}

TESSEL_API tessel_status_t tessel_conv2d(tessel_dev_t *dev, const tessel_conv2d_t *p, tessel_completion_t *cpl)
{
    if (!dev || !p)
        return TESSEL_EINVAL;
    uint32_t groups = one(p->groups), pads[4] = {p->pad_t, p->pad_b, p->pad_l, p->pad_r};
    win_call_t c = {.what = "tessel_conv2d", .g = WIN_OF(p, p->cout, groups), .op = TSL_CMD_OP_CONV2D,
                    .adt = dtype_of(p->in_dtype), .cdt = dtype_of(p->out_dtype), .x = p->x, .w = p->weights,
                    .bias = p->bias, .y = p->y};
    int int8 = p->in_dtype == TESSEL_INT8;
    int types = int8 ? (p->out_dtype == TESSEL_INT32 || p->out_dtype == TESSEL_INT8)
                     : p->in_dtype == TESSEL_BF16 && (p->out_dtype == TESSEL_FP32 || p->out_dtype == TESSEL_BF16);
    if (!p->x || !p->weights || !p->y || !types || !geometry_ok(&c.g, pads) || !p->cout || p->cout > 0xFFFFu ||
        groups > 0xFFFFu || p->c % groups || p->cout % groups ||
        (int8 ? p->x_zero_point < -128 || p->x_zero_point > 127 || (p->scale != 0.0f && p->scale != 1.0f)
              : p->x_zero_point != 0) ||
        (p->out_dtype == TESSEL_INT8 ? p->rq_shift > 62 : p->rq_scale || p->rq_shift || p->rq_zero_point))
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_conv2d: invalid arguments (a NULL operand; a zero size, a "
                           "size past 65535 or a window, stride, dilation or padding past 255; a window larger than "
                           "the padded input; groups not dividing c and cout; a dtype, zero point, scale or "
                           "requantisation the convolution cannot take)");
    int r = int8 ? 0 : tessel_f32_check(dev, "tessel_conv2d", "scale", p->scale, TESSEL_ARG_SCALE);
    if (r)
        return r;
    c.g.a_zp = int8 ? (uint32_t)p->x_zero_point & 0xFFu : 0u;
    if (p->bias)
        c.flags |= 1u << TSL_CMD_FLAG_BIAS;
    if (p->relu)
        c.flags |= 1u << TSL_CMD_FLAG_RELU;
    if (!int8 && p->scale != 0.0f && p->scale != 1.0f) {
        c.flags |= 1u << TSL_CMD_FLAG_SCALE;
        memcpy(&c.scale, &p->scale, 4);
    }
    if (p->out_dtype == TESSEL_INT8) {
        c.scale = (uint32_t)p->rq_scale;
        c.shift = p->rq_shift;
        c.zero_point = (uint32_t)p->rq_zero_point;
    }
    return run_window(dev, &c, cpl);
}

TESSEL_API tessel_status_t tessel_pool2d(tessel_dev_t *dev, const tessel_pool2d_t *p, tessel_completion_t *cpl)
{
    if (!dev || !p)
        return TESSEL_EINVAL;
    uint32_t pads[4] = {p->pad_t, p->pad_b, p->pad_l, p->pad_r};
    int avg = p->kind == TESSEL_POOL_AVG, int8 = p->in_dtype == TESSEL_INT8;
    win_call_t c = {.what = "tessel_pool2d", .g = WIN_OF(p, 0u, 0u), .op = TSL_CMD_OP_POOL2D,
                    .vpu_op = avg ? TSL_VPU_OP_ADD : TSL_VPU_OP_MAX, .adt = dtype_of(p->in_dtype),
                    .cdt = dtype_of(p->out_dtype), .x = p->x, .y = p->y};
    int types = int8 ? p->out_dtype == TESSEL_INT8
                     : p->in_dtype == TESSEL_BF16 && (p->out_dtype == TESSEL_BF16 || (avg && p->out_dtype == TESSEL_FP32));
    if (!p->x || !p->y || (p->kind != TESSEL_POOL_MAX && !avg) || !types || !geometry_ok(&c.g, pads) ||
        (avg && int8 ? p->x_zero_point < -128 || p->x_zero_point > 127 : p->x_zero_point != 0))
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_pool2d: invalid arguments (a NULL operand or unknown kind; a "
                           "zero size, a size past 65535 or a window, stride, dilation or padding past 255; a window "
                           "larger than the padded input; a dtype or zero point the pooling cannot take)");
    uint32_t k = c.g.kh * c.g.kw;
    if (avg && int8) {   /* round(sum / k), ties away from zero (the file's comment) */
        uint32_t lg = 0;
        while ((2u << lg) <= k)
            lg++;
        c.shift = 30u + lg;
        c.scale = (uint32_t)(((uint64_t)1 << c.shift) / k + 1u);
        c.g.a_zp = (uint32_t)p->x_zero_point & 0xFFu;
    } else if (avg) {
        float inv = 1.0f / (float)k;
        c.flags = 1u << TSL_CMD_FLAG_SCALE;
        memcpy(&c.scale, &inv, 4);
    }
    return run_window(dev, &c, cpl);
}
