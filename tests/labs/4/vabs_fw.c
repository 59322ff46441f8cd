/* Lab 4: the SDK reaches the new op through tsl_tc_vpu() and the generated TSL_VPU_OP_ABS; the check
 * compiles this for the control core against the graded tree's SDK. dst row i = abs(src1 row i) for
 * 4 INT32 rows in ACC. */
#include "tsl_tc.h"

int main(void) {
  uint32_t n = tsl_tc_read(TSL_TC_CFG_N_OFFSET), acc = TSL_LOCAL_ACC_BASE;
  tsl_tc_vpu((tsl_insn_vpu_vec_t){
          .op = TSL_VPU_OP_ABS, .dst_dtype = TSL_DTYPE_INT32, .src1_dtype = TSL_DTYPE_INT32,
          .dst_addr = acc + 8 * 4 * n, .src1_addr = acc, .rows = 4});
  return tsl_tc_wait(100000) == TSL_OK ? 0 : 1;
}
