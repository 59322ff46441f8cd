/* Tessel instruction helpers, shared by the SDK, the firmware, the host library and the tests.
 *
 * Instructions are built from the generated typed formats of tsl_hw.h (docs/isa.md §4), one struct
 * per format with named fields, e.g.
 *
 *   tsl_insn_t i = tsl_insn_dma_xfer_encode((tsl_insn_dma_xfer_t){
 *       .op = TSL_DMA_OP_LOAD, .hbm_addr = a, .local_addr = 0, .rows = m, .row_bytes = k,
 *       .hbm_stride = lda, .local_stride = k, .signal = TSL_TOK(TSL_UNIT_MXU)});
 *
 * and read back with tsl_insn_<format>_decode(). A field left out is 0; a format's fixed header
 * fields (its unit, its only op) are set by the encoder. Encoding never fails and checks nothing:
 * the tensor core validates every instruction when it is pushed and reports a bad one in TC
 * ERR_CODE. This header adds dependency tokens to an encoded instruction and the element sizes.
 */
#ifndef TSL_INSN_H
#define TSL_INSN_H

#include <stdint.h>
#include <string.h>

#include "tsl_hw.h"

/* Token mask bit for a unit: .wait = TSL_TOK(TSL_UNIT_DMA), or tsl_insn_wait(&i, TSL_TOK(...)). */
#define TSL_TOK(unit) (1u << (unit))

/* Take one token from each unit in `mask` before starting. */
static inline void tsl_insn_wait(tsl_insn_t *i, uint32_t mask)
{
    TSL_SET(i->w, TSL_INSN_HDR_WAIT, TSL_GET(i->w, TSL_INSN_HDR_WAIT) | mask);
}

/* Give one token to each unit in `mask` after finishing. */
static inline void tsl_insn_signal(tsl_insn_t *i, uint32_t mask)
{
    TSL_SET(i->w, TSL_INSN_HDR_SIGNAL, TSL_GET(i->w, TSL_INSN_HDR_SIGNAL) | mask);
}

/* Count the instruction in NOTIFY_COUNT (and raise IRQ_STATUS.NOTIFY) when it finishes. */
static inline void tsl_insn_notify(tsl_insn_t *i)
{
    TSL_SET(i->w, TSL_INSN_HDR_NOTIFY, 1u);
}

/* Bytes per element of a DTYPE; 4 for an unknown one (refused where it matters; 4 is the conservative
 * extent). */
static inline uint32_t tsl_dtype_bytes(uint32_t dtype)
{
    return dtype == TSL_DTYPE_INT8 ? 1u : dtype == TSL_DTYPE_BF16 ? 2u : 4u;
}

/* 1 when VPU op `op` is elementwise, the ops an ELTWISE command runs: every op of format VPU_VEC
 * (hw/spec/tessel.toml) but the row reductions RSUM and RMAX. */
static inline int tsl_vpu_op_eltwise(uint32_t op)
{
    return tsl_insn_format(TSL_UNIT_VPU, op) == (int)TSL_FMT_VPU_VEC && op != TSL_VPU_OP_RSUM && op != TSL_VPU_OP_RMAX;
}

#endif /* TSL_INSN_H */
