/* Tessel instruction encoders, shared by the SDK, the firmware, the host library and the tests.
 *
 * Each tsl_insn_*() builds one 256-bit instruction (docs/isa.md) from typed arguments using only
 * the generated field names of tsl_hw.h. Encoding never fails and checks nothing: the tensor core
 * validates every instruction when it is pushed and reports a bad one in TC ERR_CODE.
 * Dependency tokens are added afterwards with tsl_insn_wait() / tsl_insn_signal().
 */
#ifndef TSL_INSN_H
#define TSL_INSN_H

#include <stdint.h>
#include <string.h>

#include "tsl_hw.h"

typedef struct {
    uint32_t w[TSL_PARAM_INSN_WORDS];
} tsl_insn_t;

/* Token mask bit for a unit: tsl_insn_wait(&i, TSL_TOK(TSL_UNIT_DMA)). */
#define TSL_TOK(unit) (1u << (unit))

static inline tsl_insn_t tsl_insn_header(uint32_t unit, uint32_t op)
{
    tsl_insn_t i;
    memset(&i, 0, sizeof i);
    TSL_SET(i.w, TSL_INSN_HDR_UNIT, unit);
    TSL_SET(i.w, TSL_INSN_HDR_OP, op);
    return i;
}

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

/* Tokens and NOTIFY only, executed in the queue of `unit`. */
static inline tsl_insn_t tsl_insn_sync(uint32_t unit)
{
    return tsl_insn_header(unit, 0u);
}

/* DMA LOAD (HBM -> local) or STORE (local -> HBM) of `rows` rows of `row_bytes` bytes. */
static inline tsl_insn_t tsl_insn_dma(uint32_t op, uint32_t hbm_addr, uint32_t hbm_stride,
                                      uint32_t local_addr, uint32_t local_stride,
                                      uint32_t rows, uint32_t row_bytes)
{
    tsl_insn_t i = tsl_insn_header(TSL_UNIT_DMA, op);
    TSL_SET(i.w, TSL_INSN_DMA_XFER_HBM_ADDR, hbm_addr);
    TSL_SET(i.w, TSL_INSN_DMA_XFER_HBM_STRIDE, hbm_stride);
    TSL_SET(i.w, TSL_INSN_DMA_XFER_LOCAL_ADDR, local_addr);
    TSL_SET(i.w, TSL_INSN_DMA_XFER_LOCAL_STRIDE, local_stride);
    TSL_SET(i.w, TSL_INSN_DMA_XFER_ROWS, rows);
    TSL_SET(i.w, TSL_INSN_DMA_XFER_ROW_BYTES, row_bytes);
    return i;
}

/* Weight buffer `wbuf` <- N rows at VMEM `addr`, `stride` bytes apart. */
static inline tsl_insn_t tsl_insn_loadw(uint32_t dtype, uint32_t wbuf, uint32_t addr, uint32_t stride)
{
    tsl_insn_t i = tsl_insn_header(TSL_UNIT_MXU, TSL_MXU_OP_LOADW);
    TSL_SET(i.w, TSL_INSN_MXU_LOADW_DTYPE, dtype);
    TSL_SET(i.w, TSL_INSN_MXU_LOADW_WBUF, wbuf);
    TSL_SET(i.w, TSL_INSN_MXU_LOADW_ADDR, addr);
    TSL_SET(i.w, TSL_INSN_MXU_LOADW_STRIDE, stride);
    return i;
}

/* ACC rows (+)= `rows` activation rows x weight buffer `wbuf`. */
static inline tsl_insn_t tsl_insn_matmul(uint32_t dtype, uint32_t wbuf, uint32_t accumulate,
                                         uint32_t act_addr, uint32_t act_stride,
                                         uint32_t acc_addr, uint32_t acc_stride, uint32_t rows)
{
    tsl_insn_t i = tsl_insn_header(TSL_UNIT_MXU, TSL_MXU_OP_MATMUL);
    TSL_SET(i.w, TSL_INSN_MXU_MATMUL_DTYPE, dtype);
    TSL_SET(i.w, TSL_INSN_MXU_MATMUL_WBUF, wbuf);
    TSL_SET(i.w, TSL_INSN_MXU_MATMUL_ACCUMULATE, accumulate);
    TSL_SET(i.w, TSL_INSN_MXU_MATMUL_ACT_ADDR, act_addr);
    TSL_SET(i.w, TSL_INSN_MXU_MATMUL_ACT_STRIDE, act_stride);
    TSL_SET(i.w, TSL_INSN_MXU_MATMUL_ACC_ADDR, acc_addr);
    TSL_SET(i.w, TSL_INSN_MXU_MATMUL_ACC_STRIDE, acc_stride);
    TSL_SET(i.w, TSL_INSN_MXU_MATMUL_ROWS, rows);
    return i;
}

/* ACC rows (+)= `rows` activation rows of kblocks*N elements x the (kblocks*N) x N weights at
 * w_addr (rows w_stride apart): kblocks LOADW/MATMUL pairs in one instruction. */
static inline tsl_insn_t tsl_insn_matmulk(uint32_t dtype, uint32_t wbuf, uint32_t accumulate,
                                          uint32_t act_addr, uint32_t act_stride, uint32_t acc_addr,
                                          uint32_t acc_stride, uint32_t rows, uint32_t kblocks,
                                          uint32_t w_addr, uint32_t w_stride)
{
    tsl_insn_t i = tsl_insn_header(TSL_UNIT_MXU, TSL_MXU_OP_MATMULK);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_DTYPE, dtype);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_WBUF, wbuf);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_ACCUMULATE, accumulate);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_ACT_ADDR, act_addr);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_ACT_STRIDE, act_stride);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_ACC_ADDR, acc_addr);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_ACC_STRIDE, acc_stride);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_ROWS, rows);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_KBLOCKS, kblocks);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_W_ADDR, w_addr);
    TSL_SET(i.w, TSL_INSN_MXU_MATMULK_W_STRIDE, w_stride);
    return i;
}

/* A VPU operation on `rows` contiguous rows. Unary ops take src2_mode = src2_dtype = src2 = 0. */
static inline tsl_insn_t tsl_insn_vpu(uint32_t op, uint32_t dst_dtype, uint32_t dst,
                                      uint32_t src1_dtype, uint32_t src1, uint32_t src2_mode,
                                      uint32_t src2_dtype, uint32_t src2, uint32_t rows)
{
    tsl_insn_t i = tsl_insn_header(TSL_UNIT_VPU, op);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_DST_DTYPE, dst_dtype);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_DST_ADDR, dst);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_SRC1_DTYPE, src1_dtype);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_SRC1_ADDR, src1);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_SRC2_MODE, src2_mode);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_SRC2_DTYPE, src2_dtype);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_SRC2_ADDR, src2);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_ROWS, rows);
    return i;
}

/* REQUANT: dst = sat(round_shift(src1 * scale, shift) + zero_point). */
static inline tsl_insn_t tsl_insn_requant(uint32_t dst_dtype, uint32_t dst, uint32_t src1_dtype,
                                          uint32_t src1, uint32_t rows, int32_t scale,
                                          uint32_t shift, int32_t zero_point)
{
    tsl_insn_t i = tsl_insn_vpu(TSL_VPU_OP_REQUANT, dst_dtype, dst, src1_dtype, src1, 0, 0, 0, rows);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_SCALE, (uint32_t)scale);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_SHIFT, shift);
    TSL_SET(i.w, TSL_INSN_VPU_VEC_ZERO_POINT, (uint32_t)zero_point);
    return i;
}

/* Bytes per element of a DTYPE. */
static inline uint32_t tsl_dtype_bytes(uint32_t dtype)
{
    return dtype == TSL_DTYPE_INT8 ? 1u : dtype == TSL_DTYPE_BF16 ? 2u : 4u;
}

#endif /* TSL_INSN_H */
