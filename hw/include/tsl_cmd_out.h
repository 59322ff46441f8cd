/* Tessel command output: the HBM rows a command writes (docs/isa.md §7), shared by the host
 * library (overlap checks and statistics) and the command fuzzer (an accepted command changes HBM
 * only there), so that each opcode's output extent is computed in one place. */
#ifndef TSL_CMD_OUT_H
#define TSL_CMD_OUT_H

#include <stdint.h>

#include "tsl_att.h"
#include "tsl_hw.h"
#include "tsl_insn.h"
#include "tsl_win.h"

/* The bytes of each row that command `w` writes from C_ADDR, *rows rows *ld bytes apart; 0 for an
 * opcode whose output is not C's rows (KERNEL: what a kernel writes is its own). */
static inline uint64_t tsl_cmd_out(const uint32_t *w, uint64_t *rows, uint64_t *ld)
{
    uint64_t n = TSL_GET(w, TSL_CMD_N), ces = tsl_dtype_bytes(TSL_GET(w, TSL_CMD_C_DTYPE));
    *rows = TSL_GET(w, TSL_CMD_M);
    *ld = TSL_GET(w, TSL_CMD_LDC);
    switch (TSL_GET(w, TSL_CMD_OPCODE)) {
    case TSL_CMD_OP_GEMM:
    case TSL_CMD_OP_ELTWISE:
    case TSL_CMD_OP_ROWWISE: return n * ces;
    case TSL_CMD_OP_COPY:
    case TSL_CMD_OP_FILL: return n;
    case TSL_CMD_OP_CONV2D:
    case TSL_CMD_OP_POOL2D: {   /* one dense BATCH x OH x OW x COUT (or C) block */
        tsl_win_t g = tsl_win_decode(w);
        *rows = 1;
        *ld = 0;
        return tsl_win_out_bytes(&g, (uint32_t)ces);
    }
    case TSL_CMD_OP_ATTENTION: {   /* BATCH heads of LQ rows, or LQ rows of BATCH heads (HEAD_COLUMNS) */
        tsl_att_t g = tsl_att_decode(w);
        tsl_att_span_t o = tsl_att_o(&g, tsl_att_head_columns(TSL_GET(w, TSL_CMD_FLAGS)), (uint32_t)*ld,
                                     (uint32_t)ces);
        *rows = o.rows;
        return o.row_bytes;
    }
    default: return 0;
    }
}

#endif /* TSL_CMD_OUT_H */
