/* A double-buffered tiled GEMM as a Tessel instruction program: C (M x NC, int32/fp32) = A (M x K)
 * x B (K x NC), row-major and dense in HBM, int8 or bf16; M a multiple of MC, K and NC multiples
 * of N. Used by the tensor-core co-simulation to measure overlap (hw/sim/tc/tc_main.cpp: make test-tc-gemm).
 *
 * All of B, then A in M/MC parts, are loaded into VMEM once. The MXU works through output tiles of
 * MC rows x N columns, K-block by K-block, alternating its two weight buffers so that each LOADW
 * overlaps the previous MATMUL. SLOTS ACC tiles rotate: the DMA stores tile t while the MXU computes
 * the next ones, and tile t + SLOTS waits for that store.
 * Tokens, DMA -> MXU: each A part and each store (but the last SLOTS) signal; every tile's first
 * LOADW waits once, taking them in the same order (A parts for the first tiles, then stores).
 * MXU -> DMA: each tile's last MATMUL signals; its store waits. Race-free under any schedule. */
#ifndef GEMM_DB_H
#define GEMM_DB_H

#include <stdint.h>

#include "tsl_insn.h"

typedef struct {
    uint32_t n, dtype, m, k, nc;  /* array size, INT8 or BF16, shape */
    uint32_t mc, slots;           /* rows per output tile (M / mc A parts), ACC tiles in rotation */
    uint32_t a, b, c;             /* HBM addresses */
    uint32_t vmem_a, vmem_b;      /* VMEM addresses of A (M x K) and B (K x NC) */
} gemm_db_t;

/* VMEM bytes the program needs, to check a configuration against VMEM_BYTES. */
static inline uint32_t gemm_db_vmem_bytes(const gemm_db_t *g)
{
    uint32_t es = tsl_dtype_bytes(g->dtype);
    return g->m * g->k * es + g->k * g->nc * es;
}

/* Calls push(ctx, insn) for each instruction; stops and returns the first non-zero it returns. */
static inline int gemm_db_prog(const gemm_db_t *g, int (*push)(void *, const tsl_insn_t *), void *ctx)
{
    uint32_t n = g->n, es = tsl_dtype_bytes(g->dtype), lda = g->k * es, ldb = g->nc * es, ldc = g->nc * 4;
    uint32_t parts = g->m / g->mc, tiles = (g->nc / n) * parts, t = 0, wb = 0;
    int rc;
    tsl_insn_t i = tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
            .op = TSL_DMA_OP_LOAD, .hbm_addr = g->b, .local_addr = g->vmem_b, .rows = g->k, .row_bytes = ldb,
            .hbm_stride = ldb, .local_stride = ldb});
    if ((rc = push(ctx, &i)))
        return rc;
    for (uint32_t p = 0; p < parts; p++) {
        i = tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                .op = TSL_DMA_OP_LOAD, .hbm_addr = g->a + p * g->mc * lda,
                .local_addr = g->vmem_a + p * g->mc * lda, .rows = g->mc, .row_bytes = lda, .hbm_stride = lda,
                .local_stride = lda});
        tsl_insn_signal(&i, TSL_TOK(TSL_UNIT_MXU));
        if ((rc = push(ctx, &i)))
            return rc;
    }
    for (uint32_t nb = 0; nb < g->nc / n; nb++) {
        for (uint32_t p = 0; p < parts; p++, t++) {
            uint32_t slot = TSL_LOCAL_ACC_BASE + (t % g->slots) * g->mc * 4 * n;
            int waits = t < parts || t >= g->slots;  /* an A part, or the store of tile t - slots */
            for (uint32_t kb = 0; kb < g->k / n; kb++, wb ^= 1) {
                i = tsl_insn_mxu_loadw_encode(tsl_insn_mxu_loadw_t{
                        .dtype = g->dtype, .wbuf = wb, .addr = g->vmem_b + kb * n * ldb + nb * n * es,
                        .stride = ldb});
                if (kb == 0 && waits)
                    tsl_insn_wait(&i, TSL_TOK(TSL_UNIT_DMA));
                if ((rc = push(ctx, &i)))
                    return rc;
                i = tsl_insn_mxu_matmul_encode(tsl_insn_mxu_matmul_t{
                        .dtype = g->dtype, .wbuf = wb, .accumulate = kb != 0,
                        .act_addr = g->vmem_a + p * g->mc * lda + kb * n * es, .act_stride = lda, .acc_addr = slot,
                        .acc_stride = 4 * n, .rows = g->mc});
                if (kb == g->k / n - 1)
                    tsl_insn_signal(&i, TSL_TOK(TSL_UNIT_DMA));
                if ((rc = push(ctx, &i)))
                    return rc;
            }
            i = tsl_insn_dma_xfer_encode(tsl_insn_dma_xfer_t{
                    .op = TSL_DMA_OP_STORE, .hbm_addr = g->c + p * g->mc * ldc + nb * n * 4, .local_addr = slot,
                    .rows = g->mc, .row_bytes = 4 * n, .hbm_stride = ldc, .local_stride = 4 * n});
            tsl_insn_wait(&i, TSL_TOK(TSL_UNIT_MXU));
            if (t + g->slots < tiles)
                tsl_insn_signal(&i, TSL_TOK(TSL_UNIT_MXU));
            if ((rc = push(ctx, &i)))
                return rc;
        }
    }
    return 0;
}

#endif /* GEMM_DB_H */
