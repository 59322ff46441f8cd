/* A first MXU program: C = A x B (int8 x int8 -> int32) on the tensor core, checked on the control
 * core. Walkthrough: docs/sdk.md. Steps:
 *   1. write A (M x K) and B (K x NC) into HBM through the core's HBM window;
 *   2. DMA them into VMEM; the DMA signals the MXU when both are there;
 *   3. for each N-wide column block of C and each N-deep K-block: LOADW the N x N weight tile of B,
 *      MATMUL the M activation rows of A's K-block into ACC (overwrite, then accumulate);
 *   4. the last MATMUL signals the DMA, which stores C from ACC to HBM; tsl_tc_wait() is the fence;
 *   5. compare C with a plain C loop and print the performance counters. */
#include <stdint.h>
#include <stdio.h>

#include "tsl_hal.h"
#include "tsl_tc.h"

#define M 16  /* rows of A and C (any number; kept small so the core's reference loop is quick) */
#define K 32  /* columns of A, rows of B: a multiple of N */
#define NC 32 /* columns of B and C: a multiple of N */

/* Where the operands live. HBM offsets are what the DMA takes; the core sees HBM at
 * TSL_MMAP_HBM_BASE + offset. */
#define A_HBM 0x00000u
#define B_HBM 0x10000u
#define C_HBM 0x20000u
#define A_VMEM 0x0000u                  /* A row-major, rows K bytes apart */
#define B_VMEM 0x8000u                  /* B row-major, rows NC bytes apart */
#define C_ACC TSL_LOCAL_ACC_BASE        /* C row-major int32, rows 4*NC bytes apart */

static int8_t a[M][K], b[K][NC];
static int32_t ref[M][NC];

static volatile int8_t *hbm8(uint32_t off) { return (volatile int8_t *)(TSL_MMAP_HBM_BASE + off); }
static volatile int32_t *hbm32(uint32_t off) { return (volatile int32_t *)(TSL_MMAP_HBM_BASE + off); }

/* Small deterministic pseudo-random int8 values. */
static int8_t next_int8(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return (int8_t)(*state >> 24);
}

int main(void) {
  uint32_t n = tsl_tc_read(TSL_TC_CFG_N_OFFSET);
  printf("mxu: tensor core N=%lu, C[%d x %d] = A[%d x %d] x B[%d x %d] int8\n", (unsigned long)n, M,
         NC, M, K, K, NC);
  if (n == 0 || K % n != 0 || NC % n != 0) {
    printf("mxu: K and NC must be multiples of N\n");
    return 1;
  }

  /* 1. Operands into HBM, through the window (plain volatile stores). */
  uint32_t seed = 1;
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) *hbm8(A_HBM + i * K + k) = a[i][k] = next_int8(&seed);
  for (int k = 0; k < K; k++)
    for (int j = 0; j < NC; j++) *hbm8(B_HBM + k * NC + j) = b[k][j] = next_int8(&seed);

  tsl_tc_perf_clear();
  uint64_t t0 = tsl_cycles();

  /* 2. DMA A and B into VMEM. The second load signals the MXU: the DMA queue runs in order, so
   *    that one token also means A has landed. */
  tsl_tc_dma_load((tsl_insn_dma_xfer_t){
          .hbm_addr = A_HBM, .local_addr = A_VMEM, .rows = M, .row_bytes = K, .hbm_stride = K, .local_stride = K});
  tsl_tc_dma_load((tsl_insn_dma_xfer_t){
          .hbm_addr = B_HBM, .local_addr = B_VMEM, .rows = K, .row_bytes = NC, .hbm_stride = NC, .local_stride = NC,
          .signal = TSL_TOK(TSL_UNIT_MXU)});

  /* 3. LOADW + MATMUL per (column block, K-block). Only the first LOADW waits for the DMA; the
   *    MXU queue is in order too. Weight buffers alternate so that a LOADW can overlap the previous
   *    MATMUL. The last MATMUL signals the DMA. */
  uint32_t col_blocks = NC / n, k_blocks = K / n, step = 0;
  for (uint32_t nb = 0; nb < col_blocks; nb++) {
    for (uint32_t kb = 0; kb < k_blocks; kb++, step++) {
      uint32_t wbuf = step & 1u;
      bool first = step == 0, last = step == col_blocks * k_blocks - 1;
      /* Weight tile: rows kb*N .. kb*N+N-1 of B, columns nb*N .. nb*N+N-1. */
      tsl_tc_loadw((tsl_insn_mxu_loadw_t){
              .dtype = TSL_DTYPE_INT8, .wbuf = wbuf, .addr = B_VMEM + kb * n * NC + nb * n, .stride = NC,
              .wait = first ? TSL_TOK(TSL_UNIT_DMA) : 0});
      /* All M rows of A's K-block into C's column block: overwrite for kb = 0, then accumulate. */
      tsl_tc_matmul((tsl_insn_mxu_matmul_t){
              .dtype = TSL_DTYPE_INT8, .wbuf = wbuf, .accumulate = kb != 0, .act_addr = A_VMEM + kb * n,
              .act_stride = K, .acc_addr = C_ACC + nb * n * 4, .acc_stride = NC * 4, .rows = M,
              .signal = last ? TSL_TOK(TSL_UNIT_DMA) : 0});
    }
  }

  /* 4. Store C once the MXU is done, then wait for the whole program (the fence). */
  tsl_tc_dma_store((tsl_insn_dma_xfer_t){
          .hbm_addr = C_HBM, .local_addr = C_ACC, .rows = M, .row_bytes = NC * 4, .hbm_stride = NC * 4,
          .local_stride = NC * 4, .wait = TSL_TOK(TSL_UNIT_MXU)});
  tsl_status_t st = tsl_tc_wait(10000000);
  uint64_t cycles = tsl_cycles() - t0;
  uint64_t tc_cycles = tsl_tc_perf(TSL_PERF_CYCLES), macs = tsl_tc_perf(TSL_PERF_MXU_MACS),
           busy = tsl_tc_perf(TSL_PERF_MXU_BUSY);
  if (st != TSL_OK) {
    tsl_tc_error_t e;
    tsl_tc_error(&e);
    printf("mxu: tsl_tc_wait: %s (ERR_CODE %lu, unit %lu, seq %lu, addr 0x%08lx)\n",
           tsl_strerror(st), (unsigned long)e.code, (unsigned long)e.unit, (unsigned long)e.seq,
           (unsigned long)e.addr);
    return 2;
  }

  /* 5. Check against the reference, computed here on the core. */
  for (int i = 0; i < M; i++)
    for (int j = 0; j < NC; j++) {
      int32_t s = 0;
      for (int k = 0; k < K; k++) s += a[i][k] * b[k][j];
      ref[i][j] = s;
    }
  int bad = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < NC; j++) {
      int32_t got = *hbm32(C_HBM + (i * NC + j) * 4);
      if (got != ref[i][j] && bad++ == 0)
        printf("mxu: MISMATCH C[%d][%d]: expected %ld, got %ld\n", i, j, (long)ref[i][j], (long)got);
    }

  printf("mxu: %lu cycles from the first push to idle (TC PERF_CYCLES %lu)\n",
         (unsigned long)cycles, (unsigned long)tc_cycles);
  printf("mxu: PERF_MXU_MACS %lu (expected %lu), PERF_MXU_BUSY %lu cycles\n", (unsigned long)macs,
         (unsigned long)(M * K * NC), (unsigned long)busy);
  if (bad) {
    printf("mxu: %d of %d elements differ\n", bad, M * NC);
    return 3;
  }
  if (macs != (uint64_t)M * K * NC) {
    printf("mxu: PERF_MXU_MACS is wrong\n");
    return 4;
  }
  printf("mxu: C matches the reference\n");
  return 0;
}
