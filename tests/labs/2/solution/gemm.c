/* Lab 2 reference: C = A x B tiled to fit the VMEM and ACC budgets, one tile at a time.
 * A tile is tm rows x N columns of C: DMA tm rows of A and the K x N panel of B into VMEM, LOADW +
 * MATMUL over the K-blocks into ACC, DMA the tile out. Tokens: the last load signals the MXU, the
 * last MATMUL signals the DMA and the store waits for it. Because each queue runs in order, the next
 * tile's loads come after this store (so they never overwrite operands the MXU still reads) and its
 * first LOADW waits for them (so its MATMULs never overwrite ACC the store still reads). */
#include "lab2.h"
#include "tsl_tc.h"

tsl_status_t lab2_gemm(const lab2_gemm_t *g) {
  uint32_t n = tsl_tc_read(TSL_TC_CFG_N_OFFSET);
  if (g->k == 0 || g->nc == 0 || g->m == 0 || g->k % n || g->nc % n) return TSL_EINVAL;
  /* Rows per tile: ACC holds tm x N int32, VMEM holds tm x K of A plus the K x N panel of B. */
  uint32_t tm = g->acc_bytes / (4 * n);
  if (g->vmem_bytes < g->k * n + g->k * n) return TSL_EINVAL;
  if (tm > (g->vmem_bytes - g->k * n) / g->k) tm = (g->vmem_bytes - g->k * n) / g->k;
  if (tm == 0) return TSL_EINVAL;
  if (tm > g->m) tm = g->m;
  uint32_t a_v = g->vmem_base, b_v = g->vmem_base + tm * g->k, kbs = g->k / n;

  for (uint32_t m0 = 0; m0 < g->m; m0 += tm) {
    uint32_t rows = g->m - m0 < tm ? g->m - m0 : tm;
    for (uint32_t n0 = 0; n0 < g->nc; n0 += n) {
      tsl_tc_dma_load((tsl_insn_dma_xfer_t){
              .hbm_addr = g->a_hbm + m0 * g->k, .local_addr = a_v, .rows = rows, .row_bytes = g->k,
              .hbm_stride = g->k, .local_stride = g->k});
      tsl_tc_dma_load((tsl_insn_dma_xfer_t){
              .hbm_addr = g->b_hbm + n0, .local_addr = b_v, .rows = g->k, .row_bytes = n, .hbm_stride = g->nc,
              .local_stride = n, .signal = TSL_TOK(TSL_UNIT_MXU)});
      for (uint32_t kb = 0; kb < kbs; kb++) {
        uint32_t wbuf = kb & 1u;
        tsl_tc_loadw((tsl_insn_mxu_loadw_t){
                .dtype = TSL_DTYPE_INT8, .wbuf = wbuf, .addr = b_v + kb * n * n, .stride = n,
                .wait = kb == 0 ? TSL_TOK(TSL_UNIT_DMA) : 0});
        tsl_tc_matmul((tsl_insn_mxu_matmul_t){
                .dtype = TSL_DTYPE_INT8, .wbuf = wbuf, .accumulate = kb != 0, .act_addr = a_v + kb * n,
                .act_stride = g->k, .acc_addr = g->acc_base, .acc_stride = 4 * n, .rows = rows,
                .signal = kb == kbs - 1 ? TSL_TOK(TSL_UNIT_DMA) : 0});
      }
      tsl_tc_dma_store((tsl_insn_dma_xfer_t){
              .hbm_addr = g->c_hbm + (m0 * g->nc + n0) * 4, .local_addr = g->acc_base, .rows = rows,
              .row_bytes = 4 * n, .hbm_stride = g->nc * 4, .local_stride = 4 * n, .wait = TSL_TOK(TSL_UNIT_MXU)});
    }
  }
  return tsl_tc_wait(50000000);
}
