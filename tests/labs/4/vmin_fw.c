/* Lab 4: the SDK reaches the new op through tsl_tc_vpu() and the generated TSL_VPU_OP_MIN; the check
 * compiles this for the control core against the graded tree's SDK. dst row i = min(src1 row i,
 * src2 row i) for 4 INT32 rows in ACC. */
#include "tsl_tc.h"

int main(void) {
  uint32_t n = tsl_tc_read(TSL_TC_CFG_N_OFFSET), acc = TSL_LOCAL_ACC_BASE;
  tsl_tc_vpu(TSL_DEP_NONE, TSL_VPU_OP_MIN, TSL_DTYPE_INT32, acc + 8 * 4 * n, TSL_DTYPE_INT32, acc,
             TSL_SRC2_VEC, TSL_DTYPE_INT32, acc + 4 * 4 * n, 4);
  return tsl_tc_wait(100000) == TSL_OK ? 0 : 1;
}
