/* The device programs of tests/rel/tsl_soc_x_tb.sv's GEMMs, compiled by the host's compiler
 * (firmware/cp/tsl_cp_compile.h) for its SoC: N = 4, VMEM 16 KiB, ACC 4 KiB, HBM 1 MiB, int8 only,
 * with the tile sequencer. Arguments: the GEMMs, MxNxK with an `r` for bias + ReLU (in the testbench's order);
 * operands at the testbench's addresses. Prints, for each, X_SLOT words for $readmemh: the program's
 * length in words, its records, zeros. Exit 1 when the compiler refuses one or it does not fit. */
#include <stdio.h>
#include <string.h>

#include "tsl_cp_compile.h"
#include "tsl_hw.h"

#define X_SLOT 4096u   /* words per program: the testbench's PROG_SLOT */
#define RING_END 0x1040u
#define A_BASE 0x2000u
#define B_BASE 0x3000u
#define C_BASE 0x4000u
#define BIAS_BASE 0x5000u

int main(int argc, char **argv)
{
    tsl_cp_t cc;
    const uint32_t features = 1u << TSL_TC_CFG_FEATURES_INT8_SHIFT | 1u << TSL_TC_CFG_FEATURES_SEQ_SHIFT;
    if (tsl_cp_compiler_init(&cc, 4, 16384, 4096, 1u << 20, features) != TSL_CP_OK)
        return 1;
    for (int i = 1; i < argc; i++) {
        unsigned m, n, k;
        char r = 0;
        if (sscanf(argv[i], "%ux%ux%u%c", &m, &n, &k, &r) < 3)
            return 1;
        uint32_t w[TSL_PARAM_CMD_WORDS] = {0}, detail;
        TSL_SET(w, TSL_CMD_OPCODE, TSL_CMD_OP_GEMM);
        TSL_SET(w, TSL_CMD_FLAGS, r == 'r' ? 1u << TSL_CMD_FLAG_BIAS | 1u << TSL_CMD_FLAG_RELU : 0u);
        TSL_SET(w, TSL_CMD_A_DTYPE, TSL_DTYPE_INT8);
        TSL_SET(w, TSL_CMD_B_DTYPE, TSL_DTYPE_INT8);
        TSL_SET(w, TSL_CMD_C_DTYPE, TSL_DTYPE_INT32);
        w[TSL_CMD_M_WORD] = m;
        w[TSL_CMD_N_WORD] = n;
        w[TSL_CMD_K_WORD] = k;
        w[TSL_CMD_A_ADDR_WORD] = A_BASE;
        w[TSL_CMD_LDA_WORD] = k;
        w[TSL_CMD_B_ADDR_WORD] = B_BASE;
        w[TSL_CMD_LDB_WORD] = n;
        w[TSL_CMD_C_ADDR_WORD] = C_BASE;
        w[TSL_CMD_LDC_WORD] = 4u * n;
        w[TSL_CMD_BIAS_ADDR_WORD] = r == 'r' ? BIAS_BASE : 0u;
        tsl_cp_prog_t p = {0};
        if (tsl_cp_compile(&cc, RING_END, w, &p, &detail) != TSL_CMD_ERR_OK || p.oom || p.words + 1u > X_SLOT) {
            fprintf(stderr, "x_progs: %s: refused or too long\n", argv[i]);
            return 1;
        }
        printf("%08x\n", p.words);
        for (uint32_t j = 0; j + 1u < X_SLOT; j++)
            printf("%08x\n", j < p.words ? p.w[j] : 0u);
        tsl_cp_prog_free(&p);
    }
    return 0;
}
