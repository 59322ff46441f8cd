/* Grader firmware of labs 2 and 3: runs the student's lab2_gemm() (lab2.h) on the simulated SoC.
 * Check build: for each shape, fill A and B in HBM with a 32-bit LCG (tests/labs/2/check.py
 * regenerates them) and C with a sentinel, run the GEMM and dump C as hex lines
 * "C <shape> <row>: <words>"; check.py compares every element with its own exact matmul.
 * Measure build (-DLAB2_MEASURE): operands are left as they are (the timing does not depend on the
 * data) and each shape prints "csv: m,k,nc,cycles,macs,hbm_bytes,dma_busy,mxu_busy,dma_stall,
 * mxu_stall" from the TC performance counters (tests/labs/3/measure.py collects them). */
#include <stdio.h>

#include "lab2.h"
#include "tsl_tc.h"

#define A_HBM 0x000000u
#define B_HBM 0x100000u
#define C_HBM 0x200000u
#define SENTINEL 0xA5A5A5A5u

typedef struct {
  uint32_t m, k, nc, vmem_bytes, acc_bytes;
} shape_t;

#ifdef LAB2_MEASURE
/* The sweep of docs/labs/3-double-buffering.md: whole-memory budgets, tiles of up to 1024 rows. */
static const shape_t shapes[] = {
    {1024, 64, 64, 256 * 1024, 64 * 1024},
    {1024, 128, 64, 256 * 1024, 64 * 1024},
    {512, 128, 128, 256 * 1024, 64 * 1024},
};
#else
/* Each needs several tiles within its budgets: rows (M) and columns (NC), and several K-blocks. */
static const shape_t shapes[] = {
    {24, 48, 48, 4 * 1024, 1024},
    {17, 32, 32, 2 * 1024, 1024},
};
#endif
#define SHAPES (sizeof shapes / sizeof shapes[0])

#ifndef LAB2_MEASURE
static volatile uint32_t *hbm32(uint32_t off) { return (volatile uint32_t *)(TSL_MMAP_HBM_BASE + off); }

/* `bytes` bytes (rounded up to words) of the LCG stream into HBM at `off`. */
static void fill(uint32_t off, uint32_t bytes, uint32_t *state) {
  for (uint32_t i = 0; i < bytes; i += 4) {
    *state = *state * 1664525u + 1013904223u;
    *hbm32(off + i) = *state;
  }
}

/* " %08x" straight to the console register (printf would dominate the simulated run time). */
static void put_hex(uint32_t v) {
  tsl_sys_write(TSL_SYS_CONSOLE_OFFSET, ' ');
  for (int s = 28; s >= 0; s -= 4) tsl_sys_write(TSL_SYS_CONSOLE_OFFSET, "0123456789abcdef"[(v >> s) & 15u]);
}
#endif

int main(void) {
  int failed = 0;
#ifndef LAB2_MEASURE
  uint32_t state = 1;
#endif
  for (uint32_t s = 0; s < SHAPES; s++) {
    const shape_t *sh = &shapes[s];
    lab2_gemm_t g = {A_HBM, B_HBM, C_HBM, sh->m, sh->k, sh->nc,
                     0, sh->vmem_bytes, TSL_LOCAL_ACC_BASE, sh->acc_bytes};
#ifndef LAB2_MEASURE
    fill(A_HBM, sh->m * sh->k, &state);
    fill(B_HBM, sh->k * sh->nc, &state);
    for (uint32_t i = 0; i < sh->m * sh->nc; i++) *hbm32(C_HBM + 4 * i) = SENTINEL;
#endif
    tsl_tc_perf_clear();
    tsl_status_t st = lab2_gemm(&g);
    uint64_t cycles = tsl_tc_perf(TSL_PERF_CYCLES), macs = tsl_tc_perf(TSL_PERF_MXU_MACS);
    uint64_t hbm = tsl_tc_perf(TSL_PERF_HBM_RD_BYTES) + tsl_tc_perf(TSL_PERF_HBM_WR_BYTES);
    printf("lab2: shape %lu: M=%lu K=%lu NC=%lu, budgets VMEM %lu ACC %lu: %s, %lu cycles, %lu MACs\n",
           (unsigned long)s, (unsigned long)sh->m, (unsigned long)sh->k, (unsigned long)sh->nc,
           (unsigned long)sh->vmem_bytes, (unsigned long)sh->acc_bytes, tsl_strerror(st),
           (unsigned long)cycles, (unsigned long)macs);
    if (st != TSL_OK) {
      tsl_tc_error_t e;
      tsl_tc_error(&e);
      printf("lab2: ERR_CODE %lu unit %lu seq %lu addr 0x%08lx\n", (unsigned long)e.code,
             (unsigned long)e.unit, (unsigned long)e.seq, (unsigned long)e.addr);
      tsl_tc_reset();
      failed++;
      continue;
    }
#ifdef LAB2_MEASURE
    printf("csv: %lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu\n", (unsigned long)sh->m, (unsigned long)sh->k,
           (unsigned long)sh->nc, (unsigned long)cycles, (unsigned long)macs, (unsigned long)hbm,
           (unsigned long)tsl_tc_perf(TSL_PERF_DMA_BUSY), (unsigned long)tsl_tc_perf(TSL_PERF_MXU_BUSY),
           (unsigned long)tsl_tc_perf(TSL_PERF_DMA_STALL), (unsigned long)tsl_tc_perf(TSL_PERF_MXU_STALL));
#else
    (void)hbm;
    for (uint32_t i = 0; i < sh->m; i++) {
      printf("C %lu %lu:", (unsigned long)s, (unsigned long)i);
      for (uint32_t j = 0; j < sh->nc; j++) {
        put_hex(*hbm32(C_HBM + 4 * (i * sh->nc + j)));
      }
      tsl_console_putc('\n');
    }
#endif
  }
  return failed;
}
