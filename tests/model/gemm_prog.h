/* A tiled GEMM as a Tessel instruction program: C (M x NC, int32/fp32) = A (M x K) x B (K x NC),
 * row-major in HBM, int8 or bf16. M, K and NC must be multiples of N. Used by the model tests and
 * the model benchmark (the firmware has its own, double-buffered version).
 *
 * Per output block (up to ACC-capacity rows x N columns), per K step: DMA the N x N B tile and the
 * A rows into VMEM, LOADW, MATMUL (accumulating after the first step); then DMA the block out.
 * Tokens: the A load signals the MXU and LOADW waits for it; every MATMUL signals the DMA, and the
 * next DMA instruction waits for it. The program is therefore correct under any schedule. */
#ifndef GEMM_PROG_H
#define GEMM_PROG_H

#include <stdint.h>

#include "tsl_insn.h"

typedef struct {
    uint32_t n, dtype, m, k, nc;          /* array size, INT8 or BF16, shape */
    uint32_t a, b, c;                     /* HBM addresses; rows are dense */
    uint32_t acc_bytes;                   /* ACC capacity bounds the block height */
} gemm_prog_t;

/* Calls push(ctx, insn) for each instruction; stops and returns the first non-zero it returns. */
static inline int gemm_prog(const gemm_prog_t *g, int (*push)(void *, const tsl_insn_t *), void *ctx)
{
    uint32_t n = g->n, es = tsl_dtype_bytes(g->dtype), vb = n * es;
    uint32_t lda = g->k * es, ldb = g->nc * es, ldc = g->nc * 4;
    uint32_t block = g->acc_bytes / (4 * n);
    uint32_t vm_b = 0, vm_a = n * vb;     /* VMEM: B tile, then A rows */
    int pending = 0, rc;                  /* a MATMUL token the next DMA must take */
    for (uint32_t nb = 0; nb < g->nc; nb += n) {
        for (uint32_t mb = 0; mb < g->m; mb += block) {
            uint32_t rows = g->m - mb < block ? g->m - mb : block;
            for (uint32_t kb = 0; kb < g->k; kb += n) {
                tsl_insn_t i = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                        .op = TSL_DMA_OP_LOAD, .hbm_addr = g->b + kb * ldb + nb * es, .local_addr = vm_b, .rows = n,
                        .row_bytes = vb, .hbm_stride = ldb, .local_stride = vb});
                if (pending)
                    tsl_insn_wait(&i, TSL_TOK(TSL_UNIT_MXU));
                pending = 0;
                if ((rc = push(ctx, &i)))
                    return rc;
                i = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                        .op = TSL_DMA_OP_LOAD, .hbm_addr = g->a + mb * lda + kb * es, .local_addr = vm_a,
                        .rows = rows, .row_bytes = vb, .hbm_stride = lda, .local_stride = vb});
                tsl_insn_signal(&i, TSL_TOK(TSL_UNIT_MXU));
                if ((rc = push(ctx, &i)))
                    return rc;
                i = tsl_insn_mxu_loadw_encode((tsl_insn_mxu_loadw_t){
                        .dtype = g->dtype, .addr = vm_b, .stride = vb});
                tsl_insn_wait(&i, TSL_TOK(TSL_UNIT_DMA));
                if ((rc = push(ctx, &i)))
                    return rc;
                i = tsl_insn_mxu_matmul_encode((tsl_insn_mxu_matmul_t){
                        .dtype = g->dtype, .accumulate = kb != 0, .act_addr = vm_a, .act_stride = vb,
                        .acc_addr = TSL_LOCAL_ACC_BASE, .acc_stride = 4 * n, .rows = rows});
                tsl_insn_signal(&i, TSL_TOK(TSL_UNIT_DMA));
                pending = 1;
                if ((rc = push(ctx, &i)))
                    return rc;
            }
            tsl_insn_t s = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
                    .op = TSL_DMA_OP_STORE, .hbm_addr = g->c + mb * ldc + nb * 4, .local_addr = TSL_LOCAL_ACC_BASE,
                    .rows = rows, .row_bytes = 4 * n, .hbm_stride = ldc, .local_stride = 4 * n});
            tsl_insn_wait(&s, TSL_TOK(TSL_UNIT_MXU));
            pending = 0;
            if ((rc = push(ctx, &s)))
                return rc;
        }
    }
    return 0;
}

#endif /* GEMM_PROG_H */
