/* Lab 6 reference: y = softmax of each row of x on the VPU (the contract is in tests/labs/6/lab6.h;
 * the lab is docs/labs/6-epilogue.md). Per row: m = max(x); y = e^(x - m); y = y * (1 / sum(y)).
 * A row is V adjacent vectors (V = vecs). With V = 1 each step is one instruction over every row.
 * With V = 2 or 4, a reduction first pairs each vector with the one w vectors ahead (a VEC operand
 * w vectors further on), w = 1, 2, ..: then vector rV of t holds row r's V vectors combined (the
 * vectors in between mix two rows and are never used), and RMAX or RSUM finishes across the lanes.
 * A row's max and sum reach its V vectors with BCAST, one instruction per row. EXP is elementwise:
 * one instruction for the whole matrix. The VPU runs its queue in order, so no tokens are needed. */
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

/* Vector rV of t = row r's `op` (MAX or ADD) over its V vectors of src, then across the lanes
 * (`lanes`: RMAX or RSUM), in every lane. Step w writes vectors 0 .. all - 2w, which is as far as
 * the next step reads. */
static void row_reduce(const lab6_rows_t *a, uint32_t vb, uint32_t op, uint32_t lanes, uint32_t src) {
  uint32_t all = a->rows * a->vecs;
  for (uint32_t w = 1; w < a->vecs; w *= 2) {
    vop2(op, a->t, src, src + w * vb, TSL_SRC2_VEC, all - 2u * w + 1u);
    src = a->t;
  }
  vop1(lanes, a->t, src, all - a->vecs + 1u);
}

/* dst = op(src, the row's value in vector rV of t), over the V vectors of each row r. */
static void per_row(const lab6_rows_t *a, uint32_t vb, uint32_t op, uint32_t dst, uint32_t src) {
  if (a->vecs == 1) {
    vop2(op, dst, src, a->t, TSL_SRC2_VEC, a->rows);
    return;
  }
  for (uint32_t r = 0, rb = a->vecs * vb; r < a->rows; r++)
    vop2(op, dst + r * rb, src + r * rb, a->t + r * rb, TSL_SRC2_BCAST, a->vecs);
}

tsl_status_t lab6_softmax(const lab6_rows_t *a) {
  uint32_t vb = 4u * tsl_tc_read(TSL_TC_CFG_N_OFFSET), used = a->rows * a->vecs - a->vecs + 1u;
  if (a->rows == 0 || a->vecs == 0 || (a->vecs & (a->vecs - 1u)) || a->rows * a->vecs > 65535u) return TSL_EINVAL;
  row_reduce(a, vb, TSL_VPU_OP_MAX, TSL_VPU_OP_RMAX, a->x);         /* t: the row's max m */
  vop2(TSL_VPU_OP_MUL, a->t, a->t, F32_MINUS_ONE, TSL_SRC2_IMM, used); /* t: -m */
  per_row(a, vb, TSL_VPU_OP_ADD, a->y, a->x);                         /* y = x - m */
  vop1(TSL_VPU_OP_EXP, a->y, a->y, a->rows * a->vecs);                /* y = e^(x - m) */
  row_reduce(a, vb, TSL_VPU_OP_ADD, TSL_VPU_OP_RSUM, a->y);          /* t: the row's sum s */
  vop1(TSL_VPU_OP_RECIP, a->t, a->t, used);                           /* t: 1 / s */
  per_row(a, vb, TSL_VPU_OP_MUL, a->y, a->y);                         /* y = y / s */
  return tsl_tc_wait(10000000);
}

/* Question 2: the VPU's busy cycles (TSL_PERF_VPU_BUSY) for a MUL and an EXP of 1 and of all
 * `vectors` vectors; the difference over vectors - 1 is what one more vector costs. */
void lab6_probe(uint32_t vmem, uint32_t vectors) {
  for (int exp = 0; exp < 2; exp++) {
    uint64_t busy[2];
    for (int k = 0; k < 2; k++) {
      tsl_tc_perf_clear();
      if (exp)
        vop1(TSL_VPU_OP_EXP, vmem, vmem, k ? vectors : 1u);
      else
        vop2(TSL_VPU_OP_MUL, vmem, vmem, F32_ONE, TSL_SRC2_IMM, k ? vectors : 1u);
      if (tsl_tc_wait(1000000) != TSL_OK) return;
      busy[k] = tsl_tc_perf(TSL_PERF_VPU_BUSY);
    }
    printf("lab6_probe: %s: 1 vector %lu VPU cycles, %lu vectors %lu\n", exp ? "EXP" : "MUL", (unsigned long)busy[0],
           (unsigned long)vectors, (unsigned long)busy[1]);
  }
}
