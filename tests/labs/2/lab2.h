/* Labs 2 and 3: the contract between the grader (tests/labs/2/lab2_grader.c) and the student's
 * tiled GEMM (labs/2/gemm.c, labs/3/gemm_db.c). Walkthrough: docs/labs/2-tiled-gemm.md. */
#ifndef LAB2_H
#define LAB2_H

#include <stdint.h>

#include "tsl_hal.h"

/* C = A x B, int8 x int8 -> int32, all three in HBM (offsets, as the DMA takes them):
 *   A: m x k int8, row-major, rows k bytes apart;
 *   B: k x nc int8, row-major, rows nc bytes apart;
 *   C: m x nc int32, row-major, rows 4 * nc bytes apart.
 * k and nc are multiples of the MXU size N (TC CFG_N); m is any number >= 1.
 * The kernel may use VMEM [vmem_base, vmem_base + vmem_bytes) and ACC [acc_base, acc_base +
 * acc_bytes) and nothing else; the budgets are small on purpose, so that C needs several tiles. */
typedef struct {
  uint32_t a_hbm, b_hbm, c_hbm;
  uint32_t m, k, nc;
  uint32_t vmem_base, vmem_bytes;
  uint32_t acc_base, acc_bytes;
} lab2_gemm_t;

/* Push the GEMM's instructions and wait for them (tsl_tc_wait). Returns TSL_OK, TSL_EINVAL when a
 * tile of N rows does not fit the budgets (nothing pushed), or tsl_tc_wait's error. */
tsl_status_t lab2_gemm(const lab2_gemm_t *g);

#endif /* LAB2_H */
