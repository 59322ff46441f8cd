/* Tessel SDK accelerator API: push tensor-core instructions from the control core.
 *
 * Each tsl_tc_<op>() takes one instruction as the generated struct of its format (hw/include/
 * tsl_hw.h, docs/isa.md §4), filled with designated initialisers, encodes it and pushes it through
 * the TC INSN0..INSN7 registers. A push never fails in software: the dispatcher checks the
 * instruction, and a bad one sets TC ERR_CODE and halts later pushes, which tsl_tc_wait() and
 * tsl_tc_error() report. The hardware stalls a push while the target queue is full.
 *
 * Dependencies are fields of every format: `.wait` and `.signal` are TSL_TOK(unit) masks, `.notify`
 * counts the instruction in NOTIFY_COUNT. A wait needs a signal pushed earlier (isa.md §3). A field
 * left out is 0.
 *
 *   tsl_tc_dma_load((tsl_insn_dma_xfer_t){.hbm_addr = hbm, .local_addr = 0, .rows = rows,
 *                                         .row_bytes = k, .hbm_stride = k, .local_stride = k,
 *                                         .signal = TSL_TOK(TSL_UNIT_MXU)});          // DMA -> MXU
 *   tsl_tc_loadw((tsl_insn_mxu_loadw_t){.dtype = TSL_DTYPE_INT8, .addr = 0, .stride = n,
 *                                       .wait = TSL_TOK(TSL_UNIT_DMA)});
 *   tsl_status_t st = tsl_tc_wait(1000000);                                           // fence
 */
#ifndef TSL_TC_H
#define TSL_TC_H

#include <stdint.h>

#include "tsl_hal.h"
#include "tsl_insn.h"

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
/* Push an encoded instruction (tsl_insn_<format>_encode). */
static inline void tsl_tc_push(tsl_insn_t insn) {
  for (uint32_t k = 0; k < TSL_PARAM_INSN_WORDS; k++)
    tsl_tc_write(TSL_TC_INSN0_OFFSET + 4u * k, insn.w[k]);
}

/* Tokens and NOTIFY only, in the queue of `.unit`. */
static inline void tsl_tc_sync(tsl_insn_sync_t f) { tsl_tc_push(tsl_insn_sync_encode(f)); }

/* DMA `.rows` rows of `.row_bytes` from HBM (offset, not the core's window address) to local
 * memory. Sets `.op` to LOAD. */
static inline void tsl_tc_dma_load(tsl_insn_dma_xfer_t f) {
  f.op = TSL_DMA_OP_LOAD;
  tsl_tc_push(tsl_insn_dma_xfer_encode(f));
}

/* DMA `.rows` rows of `.row_bytes` from local memory to HBM. Sets `.op` to STORE. */
static inline void tsl_tc_dma_store(tsl_insn_dma_xfer_t f) {
  f.op = TSL_DMA_OP_STORE;
  tsl_tc_push(tsl_insn_dma_xfer_encode(f));
}

/* Weight buffer `.wbuf` <- the N rows at VMEM `.addr`, `.stride` bytes apart. */
static inline void tsl_tc_loadw(tsl_insn_mxu_loadw_t f) { tsl_tc_push(tsl_insn_mxu_loadw_encode(f)); }

/* ACC rows (+)= `.rows` activation rows x weight buffer `.wbuf`. */
static inline void tsl_tc_matmul(tsl_insn_mxu_matmul_t f) { tsl_tc_push(tsl_insn_mxu_matmul_encode(f)); }

/* A GEMM step's K loop in one instruction: `.kblocks` LOADW/MATMUL pairs, weights at `.w_addr` (rows
 * `.w_stride` apart), activations advancing N elements per K-block (docs/isa.md "MXU MATMULK"). */
static inline void tsl_tc_matmulk(tsl_insn_mxu_matmulk_t f) { tsl_tc_push(tsl_insn_mxu_matmulk_encode(f)); }

/* A VPU operation `.op` (docs/isa.md "VPU operations"); unary ops leave the src2 fields 0, and only
 * REQUANT sets `.scale`, `.shift` and `.zero_point`. */
static inline void tsl_tc_vpu(tsl_insn_vpu_vec_t f) { tsl_tc_push(tsl_insn_vpu_vec_encode(f)); }

/* REQUANT: dst = sat(round_shift(src1 * scale, shift) + zero_point). Sets `.op` to REQUANT. */
static inline void tsl_tc_requant(tsl_insn_vpu_vec_t f) {
  f.op = TSL_VPU_OP_REQUANT;
  tsl_tc_push(tsl_insn_vpu_vec_encode(f));
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
