/* libtessel: tessel_bmm, tessel_attention_cmd (the ATTENTION command of device buffers) and
 * tessel_attention.
 *
 * Attention is one ATTENTION command for all heads (docs/isa.md §7), which keeps the scores and
 * probabilities on chip. When the firmware refuses it (its tiles do not fit VMEM and ACC), the same
 * result comes from three commands a head, queued together: GEMM S = (Q Kt) * scale (FP32 C),
 * ROWWISE SOFTMAX(S + mask) into P (BF16), GEMM O = P V; the device runs commands one at a time in
 * ring order, so a command may read what the one before it wrote, and one scratch S and P serve
 * every head. The host uploads Q, K transposed and V (and the mask for the three commands) once,
 * and reads O back once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tessel_int.h"
#include "tsl_att.h"
#include "tsl_insn.h"

TESSEL_API tessel_status_t tessel_bmm(tessel_dev_t *dev, const tessel_gemm_t *g, uint32_t batch)
{
    if (!dev || !g)
        return TESSEL_EINVAL;
    if (!batch)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_bmm: batch 0 must be at least 1");
    const int fp = g->in_dtype == TESSEL_BF16;
    const size_t ea = fp ? 4u : 1u, ec = g->out_dtype == TESSEL_INT8 ? 1u : 4u;
    for (uint32_t i = 0; i < batch; i++) {   /* the library's GEMM per block (each checks its arguments) */
        tessel_gemm_t b = *g;
        b.lda = g->k;
        b.ldb = g->n;
        b.ldc = g->n;
        b.a = (const uint8_t *)g->a + (size_t)i * g->m * g->k * ea;
        b.b = (const uint8_t *)g->b + (size_t)i * g->k * g->n * ea;
        b.c = (uint8_t *)g->c + (size_t)i * g->m * g->n * ec;
        int r = tessel_gemm(dev, &b, NULL);
        if (r)
            return r;
    }
    return TESSEL_OK;
}

/* The rules of both attention calls: an FP32 or BF16 output, and a causal mask with no more
 * queries than keys. */
static tessel_status_t attention_check(tessel_dev_t *dev, tessel_dtype_t out, int causal, uint32_t lq, uint32_t lk)
{
    if (out != TESSEL_FP32 && out != TESSEL_BF16)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_attention: out_dtype %s is not fp32 or bf16",
                           tessel_dtype_str(out));
    if (causal && lq > lk)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_attention: causal needs lq <= lk (lq %u, lk %u: more queries "
                           "than keys)", lq, lk);
    return TESSEL_OK;
}

/* The scale a call applies: its own, or 1/sqrt(d) when it gives 0. */
static float att_scale(float scale, uint32_t d) { return scale != 0.0f ? scale : 1.0f / sqrtf((float)d); }

TESSEL_API tessel_status_t tessel_attention_cmd(tessel_dev_t *dev, const tessel_attention_op_t *p, tessel_cmd_t *cmd)
{
    if (!dev || !p || !cmd)
        return TESSEL_EINVAL;
    const char *what = "tessel_attention";
    tsl_att_t g = {.lq = p->lq, .lk = p->lk, .d = p->d, .dv = p->dv, .batch = p->batch, .v_addr = (uint32_t)p->v};
    int r = tessel_cmd_range(dev, what, tsl_att_bad_field(&g, TSL_CMD_OP_ATTENTION), &g);
    if (r || (r = attention_check(dev, p->out_dtype, p->causal, p->lq, p->lk)))
        return r;
    const uint32_t cdt = tessel_cmd_dtype(p->out_dtype), ces = tsl_dtype_bytes(cdt);
    const uint32_t flags = (p->causal ? 1u << TSL_CMD_FLAG_CAUSAL : 0u) |
                           (p->head_columns ? 1u << TSL_CMD_FLAG_HEAD_COLUMNS : 0u) |
                           (p->k_rows ? 1u << TSL_CMD_FLAG_K_ROWS : 0u);
    /* the least stride of each operand, and a stride of 0's: a row of every head the row holds (tsl_att.h) */
    const int cols = p->head_columns != 0;
    const uint64_t rq = tsl_att_q(&g, cols, 0).row_bytes, rk = tsl_att_k(&g, flags, 0).row_bytes,
                   rv = tsl_att_v(&g, cols).row_bytes, ro = tsl_att_o(&g, cols, 0, ces).row_bytes;
    const uint64_t ldq = p->ldq ? 2ull * p->ldq : rq, ldk = p->ldk ? 2ull * p->ldk : rk,
                   ldv = p->ldv ? 2ull * p->ldv : rv, ldo = p->ldo ? (uint64_t)ces * p->ldo : ro;
    g.ldv = (uint32_t)ldv;
    static const char *const nld[] = {"ldq", "ldk", "ldv", "ldo"};
    const uint64_t ld[] = {ldq, ldk, ldv, ldo}, row[] = {rq, rk, rv, ro};
    for (size_t i = 0; i < 4; i++)
        if (ld[i] < row[i] || ld[i] > UINT32_MAX)
            return tessel_fail(dev, TESSEL_EINVAL, "%s: %s is %llu bytes: %s", what, nld[i],
                               (unsigned long long)ld[i], ld[i] < row[i] ? "shorter than a row of its heads"
                                                                         : "a stride of 4 GiB or more");
    if ((r = tessel_f32_check(dev, what, "scale", p->scale, TESSEL_ARG_SCALE)) ||
        (r = tessel_cmd_addr(dev, what, "q", p->q)) || (r = tessel_cmd_addr(dev, what, "k", p->k)) ||
        (r = tessel_cmd_addr(dev, what, "v", p->v)) || (r = tessel_cmd_addr(dev, what, "o", p->o)))
        return r;
    tsl_cmd_t c = {.opcode = TSL_CMD_OP_ATTENTION, .flags = flags, .a_dtype = TSL_DTYPE_BF16,
                   .b_dtype = TSL_DTYPE_BF16, .c_dtype = cdt, .a_addr = (uint32_t)p->q, .lda = (uint32_t)ldq,
                   .b_addr = (uint32_t)p->k, .ldb = (uint32_t)ldk, .c_addr = (uint32_t)p->o, .ldc = (uint32_t)ldo,
                   .scale = tessel_f32_bits(att_scale(p->scale, p->d))};
    tsl_cmd_encode(&c, cmd->w);
    tsl_att_encode(&g, cmd->w);
    return TESSEL_OK;
}

/* Device buffers of an attention call: Q, K transposed, V and O; the unfused path's scores S,
 * probabilities P and causal mask. */
enum { BUF_Q, BUF_K, BUF_V, BUF_O, BUF_S, BUF_P, BUF_MASK, NBUFS };

/* The fused path: one ATTENTION command per 65535 heads (the BATCH field), each run to completion.
 * 1 when the firmware refuses the shape (BAD_SHAPE, detail LK: the tiles do not fit on chip) or a
 * size exceeds the command's 16-bit fields: then the first command wrote nothing. */
static int fused(tessel_dev_t *dev, const tessel_attention_t *a, const tessel_buf_t *m, uint32_t cdt,
                 tessel_completion_t *cpl)
{
    const uint64_t lq = a->lq, lk = a->lk, d = a->d, dv = a->dv, ces = tsl_dtype_bytes(cdt);
    if (lq > TSL_ATT_LQ_MASK || lk > TSL_ATT_LK_MASK || d > TSL_ATT_D_MASK || dv > TSL_ATT_DV_MASK)
        return 1;
    for (uint64_t h = 0; h < a->batch; h += TSL_ATT_BATCH_MASK) {
        const tessel_attention_op_t op = {
            .batch = (uint32_t)(a->batch - h < TSL_ATT_BATCH_MASK ? a->batch - h : TSL_ATT_BATCH_MASK),
            .lq = a->lq, .lk = a->lk, .d = a->d, .dv = a->dv, .q = m[BUF_Q].addr + h * lq * d * 2u,
            .k = m[BUF_K].addr + h * d * lk * 2u, .v = m[BUF_V].addr + h * lk * dv * 2u,
            .o = m[BUF_O].addr + h * lq * dv * ces, .ldq = a->d, .ldk = a->lk, .ldv = a->dv, .ldo = a->dv,
            .scale = a->scale, .causal = a->causal, .out_dtype = a->out_dtype};
        tessel_cmd_t cmd;
        int r = tessel_attention_cmd(dev, &op, &cmd);
        if (r)
            return r;
        tessel_completion_t done;
        r = tessel_run(dev, &cmd, &done);
        if (cpl)
            *cpl = done;
        if (r == TESSEL_EDEVICE && done.status == TSL_CMD_ERR_BAD_SHAPE && done.detail == TSL_ATT_LK_WORD)
            return 1;
        if (r && r != TESSEL_EMISMATCH)   /* on a mismatch O still holds the device's result */
            return r;
    }
    return TESSEL_OK;
}

/* The unfused path, per head: GEMM S = (Q Kt) * scale (FP32), ROWWISE SOFTMAX(S + mask) into P
 * (BF16), GEMM O = P V; every command queued, then each waited for. The caller has uploaded the
 * mask (FP32, lq x lk) for a causal call. */
static int unfused(tessel_dev_t *dev, const tessel_attention_t *a, const tessel_buf_t *m, uint32_t cdt,
                   tessel_completion_t *cpl)
{
    const uint64_t B = a->batch, lq = a->lq, lk = a->lk, d = a->d, dv = a->dv, ces = tsl_dtype_bytes(cdt);
    tessel_handle_t *hs = calloc((size_t)(3u * B), sizeof *hs);
    if (!hs)
        return tessel_fail(dev, TESSEL_ENOMEM, "tessel_attention: host memory");
    uint64_t queued = 0;
    int r = TESSEL_OK;
    for (uint64_t h = 0; h < B && !r; h++) {
        const tessel_gemm_op_t s = {.m = a->lq, .n = a->lk, .k = a->d, .in_dtype = TESSEL_BF16, .out_dtype = TESSEL_FP32,
                                    .a = m[BUF_Q].addr + h * lq * d * 2u, .lda = a->d,
                                    .b = m[BUF_K].addr + h * d * lk * 2u, .ldb = a->lk, .c = m[BUF_S].addr,
                                    .ldc = a->lk, .scale = att_scale(a->scale, a->d)};
        const tessel_rows_op_t p = {.fn = TESSEL_ROW_SOFTMAX, .m = a->lq, .n = a->lk, .in_dtype = TESSEL_FP32,
                                    .out_dtype = TESSEL_BF16, .x = m[BUF_S].addr, .ldx = a->lk, .y = m[BUF_P].addr,
                                    .ldy = a->lk, .mask = a->causal ? m[BUF_MASK].addr : 0u,
                                    .ldmask = a->causal ? a->lk : 0u};
        const tessel_gemm_op_t o = {.m = a->lq, .n = a->dv, .k = a->lk, .in_dtype = TESSEL_BF16,
                                    .out_dtype = a->out_dtype, .a = m[BUF_P].addr, .lda = a->lk,
                                    .b = m[BUF_V].addr + h * lk * dv * 2u, .ldb = a->dv,
                                    .c = m[BUF_O].addr + h * lq * dv * ces, .ldc = a->dv};
        tessel_cmd_t seq[3];
        if ((r = tessel_gemm_cmd(dev, &s, &seq[0])) || (r = tessel_rowwise_cmd(dev, &p, &seq[1])) ||
            (r = tessel_gemm_cmd(dev, &o, &seq[2])))
            break;
        for (int i = 0; i < 3 && !r; i++)
            if (!(r = tessel_submit(dev, &seq[i], &hs[queued])))
                queued++;
    }
    /* every queued command is waited for, or orphaned after a failure */
    for (uint64_t i = 0; i < queued; i++) {
        tessel_completion_t c;
        if (r && r != TESSEL_EMISMATCH) {
            tessel_orphan(dev, hs[i]);
            continue;
        }
        int w = tessel_finish(dev, hs[i], &c);
        if (cpl)
            *cpl = c;
        if (w)
            r = w;
    }
    free(hs);
    return r;
}

TESSEL_API tessel_status_t tessel_attention(tessel_dev_t *dev, const tessel_attention_t *a, tessel_completion_t *cpl)
{
    if (!dev)
        return TESSEL_EINVAL;
    if (!a || !a->q || !a->k || !a->v || !a->o)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_attention: a NULL operand (q, k, v and o are all needed)");
    static const char *const names[] = {"batch", "lq", "lk", "d", "dv"};
    const uint32_t sizes[] = {a->batch, a->lq, a->lk, a->d, a->dv};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (!sizes[i])
            return tessel_fail(dev, TESSEL_EINVAL, "tessel_attention: %s 0 must be at least 1", names[i]);
    tessel_info_t info;
    int r = attention_check(dev, a->out_dtype, a->causal, a->lq, a->lk);
    if (r || (r = tessel_f32_check(dev, "tessel_attention", "scale", a->scale, TESSEL_ARG_SCALE)) || (r = tessel_need(dev, 1, "tessel_attention", &info)))
        return r;
    const uint64_t B = a->batch, lq = a->lq, lk = a->lk, d = a->d, dv = a->dv;
    const uint32_t cdt = a->out_dtype == TESSEL_BF16 ? TSL_DTYPE_BF16 : TSL_DTYPE_FP32, ces = tsl_dtype_bytes(cdt);
    const uint64_t qb = B * lq * d * 2u, kb = B * d * lk * 2u, vb = B * lk * dv * 2u, ob = B * lq * dv * ces;
    const uint64_t sb = lq * lk * 4u, pb = lq * lk * 2u, mb = a->causal ? lq * lk * 4u : 0u;
    uint64_t host = qb > kb ? qb : kb;
    host = host > vb ? host : vb;
    host = host > ob ? host : ob;
    host = host > mb ? host : mb;
    if (host > info.hbm_bytes || sb > info.hbm_bytes || (lq + lk) * 4u * (d > dv ? d : dv) > UINT32_MAX)
        return tessel_fail(dev, TESSEL_ENOMEM, "tessel_attention: the operands do not fit the device's HBM");
    uint8_t *buf = malloc((size_t)host);
    if (!buf)
        return tessel_fail(dev, TESSEL_ENOMEM, "tessel_attention: %llu bytes of host memory", (unsigned long long)host);
    tessel_buf_t m[NBUFS] = {{0, (size_t)qb, 0}, {0, (size_t)kb, 0}, {0, (size_t)vb, 0}, {0, (size_t)ob, 0},
                             {0, (size_t)sb, 0}, {0, (size_t)pb, 0}, {0, (size_t)mb, 0}};
    if ((r = tessel_bufs_alloc(dev, m, BUF_S)))
        goto out;
    /* uploads: Q and V as they are, K transposed per head */
    if ((r = tessel_put_matrix(dev, m[BUF_Q].addr, a->q, 1, B * lq * d, 0, TSL_DTYPE_BF16, buf)) ||
        (r = tessel_put_matrix(dev, m[BUF_V].addr, a->v, 1, B * lk * dv, 0, TSL_DTYPE_BF16, buf)))
        goto out;
    for (uint64_t h = 0; h < B; h++)
        for (uint64_t j = 0; j < lk; j++)
            for (uint64_t c = 0; c < d; c++) {
                uint16_t x = tessel_f32_to_bf16(a->k[(h * lk + j) * d + c]);
                memcpy(buf + 2u * ((h * d + c) * lk + j), &x, 2);
            }
    if ((r = tessel_write(dev, m[BUF_K].addr, buf, (size_t)kb)))
        goto out;
    r = fused(dev, a, m, cdt, cpl);
    if (r == 1) {   /* too large for the fused command: the scratch S, P and the mask, then three commands a head */
        if ((r = tessel_bufs_alloc(dev, m + BUF_S, NBUFS - BUF_S)))
            goto out;
        if (a->causal) {
            float *mk = (float *)(void *)buf;
            for (uint64_t i = 0; i < lq; i++)
                for (uint64_t j = 0; j < lk; j++)
                    mk[i * lk + j] = j > i + (lk - lq) ? -INFINITY : 0.0f;
            if ((r = tessel_write(dev, m[BUF_MASK].addr, buf, (size_t)mb)))
                goto out;
        }
        r = unfused(dev, a, m, cdt, cpl);
    }
    if (!r || r == TESSEL_EMISMATCH) {
        int r2 = tessel_read(dev, buf, m[BUF_O].addr, (size_t)ob);
        if (r2)
            r = r2;
        else
            tessel_get_matrix(a->o, 0, buf, 1, B * lq * dv, cdt);
    }
out:
    tessel_bufs_free(dev, m, NBUFS);
    free(buf);
    return r;
}
