/* A custom kernel on the tensor core (docs/sdk.md, "Custom kernels"): scale_add.c's y[i] = a * x[i] + b
 * over n int32 values in HBM, with the same arguments, checks and return value, but computed by the
 * VPU through the SDK's tsl_tc.h: per chunk of up to 16 K values, a DMA LOAD into VMEM, a VPU MUL by
 * the immediate a and an ADD of the immediate b (INT32, both wrapping modulo 2^32: docs/isa.md, "VPU
 * operations"), a DMA STORE, each waiting for the one before through a dependency token, then
 * tsl_tc_wait. A tensor-core error returns TSL_EDEVICE (-4); the firmware then completes the
 * command with DEVICE and the core's ERR_CODE.
 * Built by `make kernels` into build/kernels/scale_add_vpu.bin. */
#include "tsl_kernel.h"
#include "tsl_tc.h"

int32_t tsl_kernel_main(const uint32_t args[TSL_PARAM_KERNEL_ARGS])
{
    uint32_t x = args[0], y = args[1], n = args[2], a = args[3], b = args[4];
    uint32_t hbm = tsl_kernel_hbm_bytes();
    if (((x | y) & 3u) || n > hbm / 4u || x > hbm - 4u * n || y > hbm - 4u * n)
        return TSL_ERANGE;
    /* a chunk: whole vectors of `lanes` values that VMEM holds, in one DMA row (at most 65535 bytes) */
    uint32_t lanes = tsl_tc_read(TSL_TC_CFG_N_OFFSET), vmem = tsl_tc_read(TSL_TC_CFG_VMEM_BYTES_OFFSET) / 4u;
    uint32_t chunk = (vmem < 16384u - lanes ? vmem : 16384u - lanes) / lanes * lanes;
    for (uint32_t done = 0; done < n; done += chunk) {
        uint32_t cnt = n - done < chunk ? n - done : chunk, vecs = (cnt + lanes - 1u) / lanes;
        tsl_tc_dma_load((tsl_insn_dma_xfer_t){.hbm_addr = x + 4u * done, .local_addr = 0, .rows = 1,
                                              .row_bytes = 4u * cnt, .signal = TSL_TOK(TSL_UNIT_VPU)});
        tsl_tc_vpu((tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_MUL, .dst_dtype = TSL_DTYPE_INT32,
                                        .src1_dtype = TSL_DTYPE_INT32, .src2_dtype = TSL_DTYPE_INT32,
                                        .src2_mode = TSL_SRC2_IMM, .src2_addr = a, .rows = vecs,
                                        .wait = TSL_TOK(TSL_UNIT_DMA)});
        tsl_tc_vpu((tsl_insn_vpu_vec_t){.op = TSL_VPU_OP_ADD, .dst_dtype = TSL_DTYPE_INT32,
                                        .src1_dtype = TSL_DTYPE_INT32, .src2_dtype = TSL_DTYPE_INT32,
                                        .src2_mode = TSL_SRC2_IMM, .src2_addr = b, .rows = vecs,
                                        .signal = TSL_TOK(TSL_UNIT_DMA)});
        tsl_tc_dma_store((tsl_insn_dma_xfer_t){.hbm_addr = y + 4u * done, .local_addr = 0, .rows = 1,
                                               .row_bytes = 4u * cnt, .wait = TSL_TOK(TSL_UNIT_VPU)});
        if (tsl_tc_wait(10000000u) != TSL_OK)
            return TSL_EDEVICE;
    }
    return (int32_t)n;
}
