/* Lab 4 grader: the golden model's new VPU op ABS against a reference written here, independently of
 * the student's code. Runs VPU_VEC ABS on the model (built from the graded tree) for the integer class
 * (INT32 rows with INT32_MIN, INT8 rows with -128) and the float class (FP32 rows with NaNs, signed
 * zeros, infinities and denormals), and compares every destination element.
 * Prints the seed (SEED= replays) and "lab4_model_abs: N passed, M failed". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tsl_insn.h"
#include "tslm.h"

#define QNAN 0x7FC00000u
#define ROWS 8u

static uint64_t rng;
static uint32_t next32(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng >> 32);
}

/* Reference integer abs: wrapping, so |INT32_MIN| is INT32_MIN. */
static uint32_t ref_iabs(uint32_t a) { return (a & 0x80000000u) ? 0u - a : a; }

/* Reference fp32 abs: denormals read as zero, a NaN gives the canonical NaN, else the sign cleared. */
static uint32_t ref_fabs(uint32_t a) {
  if ((a & 0x7F800000u) == 0x7F800000u && (a & 0x7FFFFFu)) return QNAN;
  if ((a & 0x7F800000u) == 0) return 0;
  return a & 0x7FFFFFFFu;
}

/* A float operand: mostly ordinary numbers, often one of the special values. */
static uint32_t rand_f32(void) {
  static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                     0xFFC12345u, 0x00000001u, 0x807FFFFFu, 0x3F800000u, 0xBF800000u};
  uint32_t r = next32();
  if (r % 3 == 0) return special[next32() % (sizeof special / sizeof special[0])];
  return (0x3E000000u + next32() % 0x02000000u) | (next32() & 0x80000000u);
}

static int run_case(tslm_t *m, const char *name, tsl_insn_t insn, uint32_t dst, int fl, int int8_src1,
                    uint32_t src1) {
  uint32_t n = m->cfg.n;
  uint8_t *acc = tslm_acc(m), *vmem = tslm_vmem(m);
  uint32_t acc_base = TSL_LOCAL_ACC_BASE;
  if (tslm_push(m, insn.w) != TSLM_OK) {
    printf("FAIL %s: the model rejected VPU ABS (ERR_CODE %u)\n", name, tslm_reg_read(m, TSL_TC_ERR_CODE_OFFSET));
    return 0;
  }
  tslm_run(m);
  for (uint32_t i = 0; i < ROWS; i++)
    for (uint32_t j = 0; j < n; j++) {
      uint32_t a, got, want;
      if (int8_src1) a = (uint32_t)(int32_t)(int8_t)vmem[src1 + i * n + j];
      else memcpy(&a, acc + src1 - acc_base + 4 * (i * n + j), 4);
      memcpy(&got, acc + dst - acc_base + 4 * (i * n + j), 4);
      want = fl ? ref_fabs(a) : ref_iabs(a);
      if (got != want) {
        printf("FAIL %s: row %u lane %u: abs(0x%08x) expected 0x%08x, got 0x%08x\n", name, i, j, a, want, got);
        return 0;
      }
    }
  return 1;
}

int main(void) {
  const char *se = getenv("SEED");
  uint64_t seed = se ? strtoull(se, NULL, 0) : (uint64_t)time(NULL);
  rng = seed;
  printf("lab4_model_abs: seed=0x%016" PRIx64 " (SEED= replays)\n", seed);
  tslm_cfg_t cfg = tslm_cfg_default();
  tslm_t m;
  if (tslm_init(&m, &cfg) != TSLM_OK) {
    printf("lab4_model_abs: tslm_init failed\nlab4_model_abs: 0 passed, 1 failed\n");
    return 1;
  }
  uint32_t n = cfg.n, acc = TSL_LOCAL_ACC_BASE, rowb = 4 * n;
  uint32_t a_acc = acc, d_acc = acc + ROWS * rowb;
  int passed = 0, failed = 0;
  for (int rep = 0; rep < 20; rep++) {
    /* Integer class: INT32 rows, then INT8 rows (widened, so |-128| = 128 in the INT32 dst). */
    for (uint32_t k = 0; k < ROWS * n; k++) {
      uint32_t a = next32() >> (next32() % 32);
      if (next32() % 2) a = 0u - a;
      if (k % 7 == 0) a = 0x80000000u;
      if (k % 11 == 0) a = 0x80000001u;
      memcpy(tslm_acc(&m) + a_acc - acc + 4 * k, &a, 4);
      tslm_vmem(&m)[k] = k % 5 == 0 ? 0x80u : (uint8_t)next32();
    }
    int ok = run_case(&m, "INT32 ABS",
                      tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                              .op = TSL_VPU_OP_ABS, .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT32,
                              .dst_addr = d_acc, .src1_addr = a_acc, .rows = ROWS}),
                      d_acc, 0, 0, a_acc) &&
             run_case(&m, "INT8 ABS",
                      tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                              .op = TSL_VPU_OP_ABS, .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT8,
                              .dst_addr = d_acc, .src1_addr = 0, .rows = ROWS}),
                      d_acc, 0, 1, 0);
    /* Float class: FP32 rows. */
    for (uint32_t k = 0; k < ROWS * n; k++) {
      uint32_t a = rand_f32();
      memcpy(tslm_acc(&m) + a_acc - acc + 4 * k, &a, 4);
    }
    ok = ok && run_case(&m, "FP32 ABS",
                        tsl_insn_vpu_vec_encode((tsl_insn_vpu_vec_t){
                                .op = TSL_VPU_OP_ABS, .dst_dtype = TSL_DTYPE_FP32, .src1_dtype = TSL_DTYPE_FP32,
                                .dst_addr = d_acc, .src1_addr = a_acc, .rows = ROWS}),
                        d_acc, 1, 0, a_acc);
    if (ok) passed++; else failed++;
    if (!ok) break;
  }
  tslm_free(&m);
  printf("lab4_model_abs: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
