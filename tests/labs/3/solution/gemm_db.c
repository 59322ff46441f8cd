/* Lab 3 reference: the tiled GEMM of lab 2, double-buffered. VMEM and ACC budgets are split into two
 * halves; tile t uses half t & 1, so the DMA loads tile t+1 and stores tile t-1 while the MXU works
 * on tile t. Push order: L(0), then for each tile t: M(t), L(t+1), S(t), so the DMA queue runs
 * L(0) L(1) S(0) L(2) S(1) ... Hazards, all solved by queue order and two token channels:
 *   - M(t) waits for L(t)'s token (its operands are there). S(t-2), which read the ACC half M(t)
 *     overwrites, precedes L(t) in the DMA queue, so it is done too;
 *   - L(t+1) overwrites the VMEM half M(t-1) read; it follows S(t-1), which waited for M(t-1);
 *   - S(t) waits for M(t)'s token.
 * At most two DMA->MXU tokens are outstanding (TOKEN_MAX allows more). */
#include "lab2.h"
#include "tsl_tc.h"

/* One tile: its position, its size and the buffer half it uses. */
typedef struct {
  uint32_t m0, n0, rows, a_v, b_v, acc;
} tile_t;

static void load(const lab2_gemm_t *g, const tile_t *t, uint32_t n) {
  tsl_tc_dma_load((tsl_insn_dma_xfer_t){
          .hbm_addr = g->a_hbm + t->m0 * g->k, .local_addr = t->a_v, .rows = t->rows, .row_bytes = g->k,
          .hbm_stride = g->k, .local_stride = g->k});
  tsl_tc_dma_load((tsl_insn_dma_xfer_t){
          .hbm_addr = g->b_hbm + t->n0, .local_addr = t->b_v, .rows = g->k, .row_bytes = n, .hbm_stride = g->nc,
          .local_stride = n, .signal = TSL_TOK(TSL_UNIT_MXU)});
}

static void compute(const lab2_gemm_t *g, const tile_t *t, uint32_t n) {
  uint32_t kbs = g->k / n;
  for (uint32_t kb = 0; kb < kbs; kb++) {
    uint32_t wbuf = kb & 1u;
    tsl_tc_loadw((tsl_insn_mxu_loadw_t){
            .dtype = TSL_DTYPE_INT8, .wbuf = wbuf, .addr = t->b_v + kb * n * n, .stride = n,
            .wait = kb == 0 ? TSL_TOK(TSL_UNIT_DMA) : 0});
    tsl_tc_matmul((tsl_insn_mxu_matmul_t){
            .dtype = TSL_DTYPE_INT8, .wbuf = wbuf, .accumulate = kb != 0, .act_addr = t->a_v + kb * n,
            .act_stride = g->k, .acc_addr = t->acc, .acc_stride = 4 * n, .rows = t->rows,
            .signal = kb == kbs - 1 ? TSL_TOK(TSL_UNIT_DMA) : 0});
  }
}

static void store(const lab2_gemm_t *g, const tile_t *t, uint32_t n) {
  tsl_tc_dma_store((tsl_insn_dma_xfer_t){
          .hbm_addr = g->c_hbm + (t->m0 * g->nc + t->n0) * 4, .local_addr = t->acc, .rows = t->rows,
          .row_bytes = 4 * n, .hbm_stride = g->nc * 4, .local_stride = 4 * n, .wait = TSL_TOK(TSL_UNIT_MXU)});
}

tsl_status_t lab2_gemm(const lab2_gemm_t *g) {
  uint32_t n = tsl_tc_read(TSL_TC_CFG_N_OFFSET);
  if (g->k == 0 || g->nc == 0 || g->m == 0 || g->k % n || g->nc % n) return TSL_EINVAL;
  /* Per half: ACC holds tm x N int32, VMEM holds tm x K of A plus the K x N panel of B. */
  uint32_t vhalf = (g->vmem_bytes / 2) & ~(n - 1), ahalf = (g->acc_bytes / 2) & ~(4 * n - 1);
  if (vhalf < 2 * g->k * n) return TSL_EINVAL;
  uint32_t tm = ahalf / (4 * n);
  if (tm > (vhalf - g->k * n) / g->k) tm = (vhalf - g->k * n) / g->k;
  if (tm == 0) return TSL_EINVAL;
  if (tm > g->m) tm = g->m;

  uint32_t row_blocks = (g->m + tm - 1) / tm, col_blocks = g->nc / n, tiles = row_blocks * col_blocks;
  tile_t t[2];
  for (uint32_t i = 0; i <= tiles; i++) {
    /* Tile i goes into half i & 1: set it up and load it, then compute tile i - 1 and store it. */
    if (i < tiles) {
      tile_t *c = &t[i & 1u];
      c->m0 = (i / col_blocks) * tm;
      c->n0 = (i % col_blocks) * n;
      c->rows = g->m - c->m0 < tm ? g->m - c->m0 : tm;
      c->a_v = g->vmem_base + (i & 1u) * vhalf;
      c->b_v = c->a_v + tm * g->k;
      c->acc = g->acc_base + (i & 1u) * ahalf;
      if (i == 0) load(g, c, n);
    }
    if (i > 0) {
      const tile_t *p = &t[(i - 1) & 1u];
      compute(g, p, n);
      if (i < tiles) load(g, &t[i & 1u], n);
      store(g, p, n);
    }
  }
  return tsl_tc_wait(50000000);
}
