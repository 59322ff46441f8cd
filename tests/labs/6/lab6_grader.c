/* Grader firmware of lab 6: runs the student's lab6_softmax() (lab6.h) on the simulated SoC.
 * For each shape: fill x in HBM from a 32-bit LCG (tests/labs/6/check.py regenerates it), DMA it to
 * VMEM, fill y and t with a sentinel, run the softmax (timed with the TC performance counters), DMA
 * y back and dump it as hex lines "Y <shape> <row>: <words>"; check.py compares every element with
 * a float64 softmax. Then lab6_probe() gets a zeroed piece of VMEM (answers.md, question 2).
 * Inputs: x = off + v / 64 with v in [-1024, 1023] (a spread of +-16) and a per-row offset off in
 * [-128, 127] ("large" shapes) or 0: multiples of 2^-6 below 2^8, so x - max(x) is exact in FP32. */
#include <stdio.h>

#include "lab6.h"
#include "tsl_tc.h"

#define X_HBM 0x000000u
#define Y_HBM 0x100000u
#define X_VMEM 0x1000u
#define SENTINEL 0xA5A5A5A5u
#define PROBE_VECTORS 64u
#define TIMEOUT 10000000u

typedef struct {
  uint32_t rows, vecs, large;
} shape_t;

/* Part 1 (one vector per row), then part 2 (two and four). */
static const shape_t shapes[] = {
    {16, 1, 0},
    {20, 1, 1},
    {8, 2, 1},
    {12, 4, 1},
};
#define SHAPES (sizeof shapes / sizeof shapes[0])

static volatile uint32_t *hbm32(uint32_t off) { return (volatile uint32_t *)(TSL_MMAP_HBM_BASE + off); }

static uint32_t lcg(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state;
}

/* FP32 bits of v / 64 (exact: |v| < 2^24). */
static uint32_t f32_q6(int32_t v) {
  if (v == 0) return 0;
  uint32_t sign = v < 0 ? 0x80000000u : 0u, m = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
  uint32_t e = 31u - (uint32_t)__builtin_clz(m); /* m in [2^e, 2^(e+1)) */
  return sign | (127u + e - 6u) << 23 | ((m << (23u - e)) & 0x7FFFFFu);
}

/* Every 32-bit word of `vectors` vectors at `addr` = `word` (INT32 MUL by 0, then ADD). */
static void vfill(uint32_t addr, uint32_t vectors, uint32_t word) {
  for (uint32_t step = 0; step < 2; step++)
    tsl_tc_vpu((tsl_insn_vpu_vec_t){.op = step ? TSL_VPU_OP_ADD : TSL_VPU_OP_MUL, .dst_dtype = TSL_DTYPE_INT32,
                                    .src1_dtype = TSL_DTYPE_INT32, .src2_dtype = TSL_DTYPE_INT32,
                                    .src2_mode = TSL_SRC2_IMM, .dst_addr = addr, .src1_addr = addr,
                                    .src2_addr = step ? word : 0u, .rows = vectors});
}

/* " %08x" straight to the console register (printf would dominate the simulated run time). */
static void put_hex(uint32_t v) {
  tsl_sys_write(TSL_SYS_CONSOLE_OFFSET, ' ');
  for (int s = 28; s >= 0; s -= 4) tsl_sys_write(TSL_SYS_CONSOLE_OFFSET, "0123456789abcdef"[(v >> s) & 15u]);
}

int main(void) {
  uint32_t n = tsl_tc_read(TSL_TC_CFG_N_OFFSET), state = 1;
  int failed = 0;
  for (uint32_t s = 0; s < SHAPES; s++) {
    const shape_t *sh = &shapes[s];
    uint32_t cols = sh->vecs * n, vectors = sh->rows * sh->vecs, bytes = 4u * cols * sh->rows;
    lab6_rows_t a = {X_VMEM, X_VMEM + bytes, X_VMEM + 2u * bytes, sh->rows, sh->vecs};
    for (uint32_t r = 0; r < sh->rows; r++) {
      int32_t off = sh->large ? (int32_t)(lcg(&state) >> 24) - 128 : 0;
      for (uint32_t c = 0; c < cols; c++)
        *hbm32(X_HBM + 4u * (r * cols + c)) = f32_q6(off * 64 + ((int32_t)lcg(&state) >> 21));
    }
    tsl_tc_dma_load((tsl_insn_dma_xfer_t){.hbm_addr = X_HBM, .local_addr = a.x, .rows = vectors, .row_bytes = 4u * n,
                                          .hbm_stride = 4u * n, .local_stride = 4u * n});
    vfill(a.y, 2u * vectors, SENTINEL); /* y and t */
    tsl_status_t st = tsl_tc_wait(TIMEOUT);
    if (st == TSL_OK) {
      tsl_tc_perf_clear();
      st = lab6_softmax(&a);
      if (st == TSL_OK) st = tsl_tc_wait(TIMEOUT); /* in case the kernel returned early */
    }
    uint64_t cycles = tsl_tc_perf(TSL_PERF_CYCLES), busy = tsl_tc_perf(TSL_PERF_VPU_BUSY);
    uint64_t insns = tsl_tc_perf(TSL_PERF_VPU_INSNS);
    printf("lab6: shape %lu: rows=%lu vecs=%lu large=%lu N=%lu: %s, %lu cycles, VPU busy %lu, %lu VPU instructions\n",
           (unsigned long)s, (unsigned long)sh->rows, (unsigned long)sh->vecs, (unsigned long)sh->large,
           (unsigned long)n, tsl_strerror(st), (unsigned long)cycles, (unsigned long)busy, (unsigned long)insns);
    if (st == TSL_OK) {
      tsl_tc_dma_store((tsl_insn_dma_xfer_t){.hbm_addr = Y_HBM, .local_addr = a.y, .rows = vectors,
                                             .row_bytes = 4u * n, .hbm_stride = 4u * n, .local_stride = 4u * n});
      st = tsl_tc_wait(TIMEOUT);
    }
    if (st != TSL_OK) {
      tsl_tc_error_t e;
      tsl_tc_error(&e);
      if (e.code != TSL_ERR_NONE)
        printf("lab6: ERR_CODE %lu unit %lu seq %lu addr 0x%08lx\n", (unsigned long)e.code, (unsigned long)e.unit,
               (unsigned long)e.seq, (unsigned long)e.addr);
      tsl_tc_reset();
      failed++;
      continue;
    }
    for (uint32_t r = 0; r < sh->rows; r++) {
      printf("Y %lu %lu:", (unsigned long)s, (unsigned long)r);
      for (uint32_t c = 0; c < cols; c++) put_hex(*hbm32(Y_HBM + 4u * (r * cols + c)));
      tsl_console_putc('\n');
    }
  }
  vfill(X_VMEM, PROBE_VECTORS, 0);
  if (tsl_tc_wait(TIMEOUT) == TSL_OK) lab6_probe(X_VMEM, PROBE_VECTORS);
  return failed;
}
