/* Lab 6: y = softmax of each row of x on the VPU (the contract is in tests/labs/6/lab6.h; the lab is
 * docs/labs/6-epilogue.md). Per row: m = max(x); y = e^(x - m); y = y * (1 / sum(y)).
 * A row is V = a->vecs adjacent vectors of N lanes: V = 1 in part 1, 2 or 4 in part 2. */
#include <stdio.h>

#include "lab6.h"
#include "tsl_tc.h"

#define FP TSL_DTYPE_FP32
#define F32_ONE 0x3F800000u
#define F32_MINUS_ONE 0xBF800000u

/* dst = op(src) over `rows` vectors: the unary ops (RMAX, RSUM, EXP, RECIP, ...). */
static inline void vop1(uint32_t op, uint32_t dst, uint32_t src, uint32_t rows) {
  tsl_tc_vpu((tsl_insn_vpu_vec_t){.op = op, .dst_dtype = FP, .src1_dtype = FP, .dst_addr = dst, .src1_addr = src,
                                  .rows = rows});
}

/* dst = op(src1, src2) over `rows` vectors, src2 as `mode` says: TSL_SRC2_VEC (vector i of src2),
 * TSL_SRC2_BCAST (vector 0 of src2 for every i) or TSL_SRC2_IMM (src2 is an FP32 constant's bits). */
static inline void vop2(uint32_t op, uint32_t dst, uint32_t src1, uint32_t src2, uint32_t mode, uint32_t rows) {
  tsl_tc_vpu((tsl_insn_vpu_vec_t){.op = op, .dst_dtype = FP, .src1_dtype = FP, .src2_dtype = FP, .src2_mode = mode,
                                  .dst_addr = dst, .src1_addr = src1, .src2_addr = src2, .rows = rows});
}

tsl_status_t lab6_softmax(const lab6_rows_t *a) {
  uint32_t vb = 4u * tsl_tc_read(TSL_TC_CFG_N_OFFSET); /* bytes per vector */
  if (a->rows == 0 || a->vecs != 1) return TSL_EINVAL;  /* part 2: accept 2 and 4 */
  /* TODO part 1, one instruction per step over all a->rows vectors (t: one vector per row):
   *   t = RMAX(x); t = MUL(t, -1.0 immediate); y = ADD(x, t); y = EXP(y);
   *   t = RSUM(y); t = RECIP(t); y = MUL(y, t).
   * TODO part 2: rows of V > 1 vectors (the page's "Part 2"). */
  (void)vb;
  return tsl_tc_wait(10000000);
}

/* Question 2 of answers.md: time a MUL and an EXP with the TC performance counters and print what
 * you find (tsl_tc_perf_clear, tsl_tc_wait, tsl_tc_perf(TSL_PERF_VPU_BUSY)). */
void lab6_probe(uint32_t vmem, uint32_t vectors) {
  /* TODO */
  (void)vmem;
  (void)vectors;
}
