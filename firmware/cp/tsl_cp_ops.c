/* Tessel command processor: COPY, FILL and ELTWISE. See README.md for the tiling. */
#include "tsl_cp_int.h"

#define TOK_DMA TSL_TOK(TSL_UNIT_DMA)
#define TOK_MXU TSL_TOK(TSL_UNIT_MXU)
#define TOK_VPU TSL_TOK(TSL_UNIT_VPU)

static uint32_t al(uint32_t v) { return tsl_cp_roundup(v, TSL_CP_ALIGN); }

/* COPY: tiles of up to 65535 rows x 65535 bytes bounce through VMEM. LOAD and STORE are both DMA
 * instructions, so the in-order DMA queue orders them without tokens. */
void tsl_cp_exec_copy(tsl_cp_t *cp, const tsl_cmd_t *c)
{
    tsl_cp_buf_t buf = {0, 0, {0, 0, 0}};
    uint32_t cb = tsl_cp_min(tsl_cp_min(c->n, TSL_CP_MAX_ROW_BYTES), cp->vmem_bytes);
    uint32_t rmax = tsl_cp_min(cp->vmem_bytes / cb, TSL_CP_MAX_ROWS);
    for (uint32_t r0 = 0; r0 < c->m; r0 += rmax) {
        uint32_t rr = tsl_cp_min(rmax, c->m - r0);
        for (uint32_t c0 = 0; c0 < c->n; c0 += cb) {
            uint32_t cv = tsl_cp_min(cb, c->n - c0);
            tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = c->a_addr + r0 * c->lda + c0, .rows = rr, .row_bytes = cv,
                    .hbm_stride = c->lda, .local_stride = cb}), NULL,
                         NULL, &buf, 0);
            tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                    .op = TSL_DMA_OP_STORE, .hbm_addr = c->c_addr + r0 * c->ldc + c0, .rows = rr, .row_bytes = cv,
                    .hbm_stride = c->ldc, .local_stride = cb}), &buf,
                         NULL, NULL, 0);
        }
    }
}

/* FILL: the VPU writes the pattern over a VMEM row (tsl_cp_fill32: MUL by 0, ADD the pattern, as INT32
 * vectors); DMA STOREs with LOCAL_STRIDE 0 repeat that row. Byte j of every row is byte j mod 4 of
 * the little-endian pattern. */
void tsl_cp_exec_fill(tsl_cp_t *cp, const tsl_cmd_t *c)
{
    tsl_cp_buf_t buf = {0, 0, {0, 0, 0}};
    uint32_t vb = 4u * cp->n;
    uint32_t cap = tsl_cp_min(cp->vmem_bytes, TSL_CP_MAX_ROW_BYTES) / vb * vb;
    uint32_t pb = tsl_cp_min(tsl_cp_roundup(c->n, vb), cap);
    tsl_cp_fill32(cp, &buf, 0, pb, c->scale, TOK_DMA);
    for (uint32_t r0 = 0; r0 < c->m; r0 += TSL_CP_MAX_ROWS) {
        uint32_t rr = tsl_cp_min(TSL_CP_MAX_ROWS, c->m - r0);
        for (uint32_t c0 = 0; c0 < c->n; c0 += pb)
            tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                    .op = TSL_DMA_OP_STORE, .hbm_addr = c->c_addr + r0 * c->ldc + c0, .rows = rr,
                    .row_bytes = tsl_cp_min(pb, c->n - c0), .hbm_stride = c->ldc}), &buf, NULL, NULL, 0);
    }
}

/* ELTWISE: tiles of R rows x CB columns (CB a multiple of N; N columns with B_BCAST), each operand
 * row-major in VMEM with a row of CB elements, so a tile is R*CB/N contiguous vectors and one VPU
 * instruction covers it. Two tile slots alternate: the DMA loads tile t+1 while the VPU computes
 * tile t. Lanes past the last column are computed on stale VMEM and never stored. */
void tsl_cp_exec_eltwise(tsl_cp_t *cp, const tsl_cmd_t *c)
{
    uint32_t n = cp->n, op = c->vpu_op;
    int unary = tsl_ops_has(TSL_OPS_UNARY, TSL_UNIT_VPU, op);
    uint32_t mode = unary ? 0u : (c->flags & TSL_CP_FLAG(B_IMM)) ? TSL_SRC2_IMM
                               : (c->flags & TSL_CP_FLAG(B_BCAST)) ? TSL_SRC2_BCAST : TSL_SRC2_VEC;
    int bvec = !unary && mode == TSL_SRC2_VEC, bbc = !unary && mode == TSL_SRC2_BCAST;
    uint32_t esa = tsl_dtype_bytes(c->a_dtype), esb = tsl_dtype_bytes(c->b_dtype), esc = tsl_dtype_bytes(c->c_dtype);
    uint32_t maxes = esa > esc ? esa : esc, sum = esa + esc;
    if (bvec) {
        maxes = esb > maxes ? esb : maxes;
        sum += esb;
    }
    uint32_t half = cp->vmem_bytes / 2u / TSL_CP_ALIGN * TSL_CP_ALIGN;
    uint32_t room = half - 4u * TSL_CP_ALIGN;
    uint32_t cb = bbc ? n : tsl_cp_min(tsl_cp_roundup(c->n, n), TSL_CP_MAX_ROW_BYTES / (maxes * n) * n);
    cb = tsl_cp_min(cb, room / (sum * n) * n);
    uint32_t rmax = tsl_cp_min(tsl_cp_min(room / (cb * sum), TSL_CP_MAX_ROWS), TSL_CP_MAX_ROWS / (cb / n));
    uint32_t va[2], vb[2], vc[2];
    tsl_cp_buf_t A[2], B[2], C[2];
    for (int s = 0; s < 2; s++) {
        va[s] = (uint32_t)s * half;
        vb[s] = va[s] + al(rmax * cb * esa);
        vc[s] = vb[s] + al(bvec ? rmax * cb * esb : n * esb);
        A[s] = B[s] = C[s] = (tsl_cp_buf_t){0, 0, {0, 0, 0}};
    }
    uint32_t rtiles = tsl_cp_ceil(c->m, rmax), ctiles = tsl_cp_ceil(c->n, cb), tiles = rtiles * ctiles;
    for (uint32_t t = 0; t <= tiles; t++) {
        /* loads of tile t (one ahead of the compute of tile t - 1) */
        if (t < tiles) {
            uint32_t s = t & 1u, r0 = t / ctiles * rmax, c0 = t % ctiles * cb;
            uint32_t rr = tsl_cp_min(rmax, c->m - r0), cv = tsl_cp_min(cb, c->n - c0);
            tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                    .op = TSL_DMA_OP_LOAD, .hbm_addr = c->a_addr + r0 * c->lda + c0 * esa, .local_addr = va[s],
                    .rows = rr, .row_bytes = cv * esa, .hbm_stride = c->lda, .local_stride = cb * esa}),
                NULL, NULL, &A[s], (bvec || bbc) ? 0u : TOK_VPU);
            if (bvec)
                tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                        .op = TSL_DMA_OP_LOAD, .hbm_addr = c->b_addr + r0 * c->ldb + c0 * esb, .local_addr = vb[s],
                        .rows = rr, .row_bytes = cv * esb, .hbm_stride = c->ldb, .local_stride = cb * esb}),
                    NULL, NULL, &B[s], TOK_VPU);
            else if (bbc)
                tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                        .op = TSL_DMA_OP_LOAD, .hbm_addr = c->b_addr + c0 * esb, .local_addr = vb[s], .rows = 1,
                        .row_bytes = cv * esb}), NULL, NULL,
                             &B[s], TOK_VPU);
        }
        if (t == 0)
            continue;
        /* compute and store tile t - 1 */
        uint32_t u = t - 1u, s = u & 1u, r0 = u / ctiles * rmax, c0 = u % ctiles * cb;
        uint32_t rr = tsl_cp_min(rmax, c->m - r0), cv = tsl_cp_min(cb, c->n - c0), vrows = rr * (cb / n);
        tsl_insn_t i;
        if (op == TSL_VPU_OP_REQUANT)
            i = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                    .op = TSL_VPU_OP_REQUANT, .dst_dtype = c->c_dtype, .src1_dtype = c->a_dtype, .dst_addr = vc[s],
                    .src1_addr = va[s], .rows = vrows, .scale = c->scale, .shift = c->shift,
                    .zero_point = c->zero_point});
        else if (unary)
            i = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                    .op = op, .dst_dtype = c->c_dtype, .src1_dtype = c->a_dtype, .dst_addr = vc[s], .src1_addr = va[s],
                    .rows = vrows});
        else
            i = tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                    .op = op, .dst_dtype = c->c_dtype, .src1_dtype = c->a_dtype, .src2_dtype = c->b_dtype,
                    .src2_mode = mode, .dst_addr = vc[s], .src1_addr = va[s], .src2_addr = mode == TSL_SRC2_IMM ? c->scale : vb[s],
                    .rows = vrows});
        tsl_cp_issue(cp, i, &A[s], (bvec || bbc) ? &B[s] : NULL, &C[s], TOK_DMA);
        tsl_cp_issue(cp, tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                .op = TSL_DMA_OP_STORE, .hbm_addr = c->c_addr + r0 * c->ldc + c0 * esc, .local_addr = vc[s], .rows = rr,
                .row_bytes = cv * esc, .hbm_stride = c->ldc, .local_stride = cb * esc}), &C[s], NULL, NULL, 0);
    }
}
