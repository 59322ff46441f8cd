/* Tessel SDK accelerator API: push tensor-core instructions from the control core.
 *
 * Each tsl_tc_<op>() encodes one instruction with hw/include/tsl_insn.h and pushes it through the TC
 * INSN0..INSN7 registers (docs/isa.md). A push never fails in software: the dispatcher checks the
 * instruction, and a bad one sets TC ERR_CODE and halts later pushes, which tsl_tc_wait() and
 * tsl_tc_error() report. The hardware stalls a push while the target queue is full.
 *
 * Dependencies: every op takes a tsl_dep_t. `wait` and `signal` are TSL_TOK(unit) masks, `notify`
 * counts the instruction in NOTIFY_COUNT. A wait needs a signal pushed earlier (isa.md §3).
 *
 *   tsl_tc_dma_load(TSL_DEP(0, TSL_TOK(TSL_UNIT_MXU)), hbm, k, 0, k, rows, k);   // DMA -> MXU
 *   tsl_tc_loadw(TSL_DEP(TSL_TOK(TSL_UNIT_DMA), 0), TSL_DTYPE_INT8, 0, 0, n);
 *   tsl_status_t st = tsl_tc_wait(1000000);                                     // fence
 */
#ifndef TSL_TC_H
#define TSL_TC_H

#include <stdint.h>

#include "tsl_hal.h"
#include "tsl_insn.h"

/* Tokens and NOTIFY of one instruction. */
typedef struct {
  uint32_t wait, signal, notify;
} tsl_dep_t;

#define TSL_DEP(wait_mask, signal_mask) ((tsl_dep_t){(wait_mask), (signal_mask), 0u})
#define TSL_DEP_NONE TSL_DEP(0u, 0u)

/* The first error the tensor core reported (TC ERR_* registers). */
typedef struct {
  uint32_t code; /* TSL_ERR_* */
  uint32_t unit; /* TSL_UNIT_* of the faulting instruction */
  uint32_t seq;  /* its push sequence number */
  uint32_t addr; /* offending address, or 0 */
} tsl_tc_error_t;

/* --- registers --------------------------------------------------------------------------------- */
static inline uint32_t tsl_tc_read(uint32_t offset) {
  return tsl_mmio_read32(TSL_MMAP_TC_BASE + offset);
}
static inline void tsl_tc_write(uint32_t offset, uint32_t value) {
  tsl_mmio_write32(TSL_MMAP_TC_BASE + offset, value);
}

/* --- pushing ------------------------------------------------------------------------------------ */
/* Apply `dep` to `insn` and push it. */
static inline void tsl_tc_push(tsl_insn_t insn, tsl_dep_t dep) {
  tsl_insn_wait(&insn, dep.wait);
  tsl_insn_signal(&insn, dep.signal);
  if (dep.notify) tsl_insn_notify(&insn);
  for (uint32_t k = 0; k < TSL_PARAM_INSN_WORDS; k++)
    tsl_tc_write(TSL_TC_INSN0_OFFSET + 4u * k, insn.w[k]);
}

/* Tokens and NOTIFY only, in the queue of `unit`. */
static inline void tsl_tc_sync(tsl_dep_t dep, uint32_t unit) { tsl_tc_push(tsl_insn_sync(unit), dep); }

/* DMA `rows` rows of `row_bytes` from HBM (offset, not the core's window address) to local. */
static inline void tsl_tc_dma_load(tsl_dep_t dep, uint32_t hbm, uint32_t hbm_stride, uint32_t local,
                                   uint32_t local_stride, uint32_t rows, uint32_t row_bytes) {
  tsl_tc_push(tsl_insn_dma(TSL_DMA_OP_LOAD, hbm, hbm_stride, local, local_stride, rows, row_bytes), dep);
}

/* DMA `rows` rows of `row_bytes` from local memory to HBM. */
static inline void tsl_tc_dma_store(tsl_dep_t dep, uint32_t hbm, uint32_t hbm_stride, uint32_t local,
                                    uint32_t local_stride, uint32_t rows, uint32_t row_bytes) {
  tsl_tc_push(tsl_insn_dma(TSL_DMA_OP_STORE, hbm, hbm_stride, local, local_stride, rows, row_bytes), dep);
}

/* Weight buffer `wbuf` <- the N rows at VMEM `addr`, `stride` bytes apart. */
static inline void tsl_tc_loadw(tsl_dep_t dep, uint32_t dtype, uint32_t wbuf, uint32_t addr,
                                uint32_t stride) {
  tsl_tc_push(tsl_insn_loadw(dtype, wbuf, addr, stride), dep);
}

/* ACC rows (+)= `rows` activation rows x weight buffer `wbuf`. */
static inline void tsl_tc_matmul(tsl_dep_t dep, uint32_t dtype, uint32_t wbuf, uint32_t accumulate,
                                 uint32_t act, uint32_t act_stride, uint32_t acc, uint32_t acc_stride,
                                 uint32_t rows) {
  tsl_tc_push(tsl_insn_matmul(dtype, wbuf, accumulate, act, act_stride, acc, acc_stride, rows), dep);
}

/* A GEMM step's K loop in one instruction: `kblocks` LOADW/MATMUL pairs, weights at `w_addr` (rows
 * `w_stride` apart), activations advancing N elements per K-block (docs/isa.md "MXU MATMULK"). */
static inline void tsl_tc_matmulk(tsl_dep_t dep, uint32_t dtype, uint32_t wbuf, uint32_t accumulate,
                                  uint32_t act, uint32_t act_stride, uint32_t acc, uint32_t acc_stride,
                                  uint32_t rows, uint32_t kblocks, uint32_t w_addr, uint32_t w_stride) {
  tsl_tc_push(tsl_insn_matmulk(dtype, wbuf, accumulate, act, act_stride, acc, acc_stride, rows, kblocks,
                               w_addr, w_stride), dep);
}

/* A VPU operation (docs/isa.md "VPU operations"); unary ops take src2_mode = src2_dtype = src2 = 0. */
static inline void tsl_tc_vpu(tsl_dep_t dep, uint32_t op, uint32_t dst_dtype, uint32_t dst,
                              uint32_t src1_dtype, uint32_t src1, uint32_t src2_mode,
                              uint32_t src2_dtype, uint32_t src2, uint32_t rows) {
  tsl_tc_push(tsl_insn_vpu(op, dst_dtype, dst, src1_dtype, src1, src2_mode, src2_dtype, src2, rows), dep);
}

/* REQUANT: dst = sat(round_shift(src1 * scale, shift) + zero_point). */
static inline void tsl_tc_requant(tsl_dep_t dep, uint32_t dst_dtype, uint32_t dst, uint32_t src1_dtype,
                                  uint32_t src1, uint32_t rows, int32_t scale, uint32_t shift,
                                  int32_t zero_point) {
  tsl_tc_push(tsl_insn_requant(dst_dtype, dst, src1_dtype, src1, rows, scale, shift, zero_point), dep);
}

/* --- fences, errors, reset ---------------------------------------------------------------------- */
/* Wait until every pushed instruction has finished (STATUS.IDLE), at most `timeout_cycles`.
 * Returns TSL_OK, TSL_EDEVICE when an error halted the queues (see tsl_tc_error), or TSL_ETIMEOUT. */
tsl_status_t tsl_tc_wait(uint64_t timeout_cycles);

/* The recorded error (code TSL_ERR_NONE when there is none). `out` must not be NULL. */
static inline void tsl_tc_error(tsl_tc_error_t *out) {
  out->code = tsl_tc_read(TSL_TC_ERR_CODE_OFFSET);
  out->unit = tsl_tc_read(TSL_TC_ERR_UNIT_OFFSET);
  out->seq = tsl_tc_read(TSL_TC_ERR_SEQ_OFFSET);
  out->addr = tsl_tc_read(TSL_TC_ERR_ADDR_OFFSET);
}

/* CTRL.RESET: drop queued instructions, clear tokens and the error; memories keep their contents.
 * The write completes once every started instruction has finished. */
static inline void tsl_tc_reset(void) { tsl_tc_write(TSL_TC_CTRL_OFFSET, (1u << TSL_TC_CTRL_RESET_SHIFT)); }

/* --- performance counters ----------------------------------------------------------------------- */
/* Counter `idx` (TSL_PERF_*), read HI, LO, HI so that the 64-bit value is consistent. */
static inline uint64_t tsl_tc_perf(uint32_t idx) {
  uint32_t off = TSL_TC_PERF_BASE + 8u * idx, hi, lo;
  do {
    hi = tsl_tc_read(off + 4u);
    lo = tsl_tc_read(off);
  } while (tsl_tc_read(off + 4u) != hi);
  return (uint64_t)hi << 32 | lo;
}

/* Zero every performance counter. */
static inline void tsl_tc_perf_clear(void) { tsl_tc_write(TSL_TC_CTRL_OFFSET, (1u << TSL_TC_CTRL_CLEAR_PERF_SHIFT)); }

#endif /* TSL_TC_H */
