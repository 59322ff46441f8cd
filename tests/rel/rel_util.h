/* Helpers shared by the reliability tests (tests/rel): a sim device with its transport context
 * (for the fault hooks of host_driver/src/tessel_sim_fault.h), device buffers with canary guards,
 * and an int8 GEMM command with its exact host reference. */
#ifndef REL_UTIL_H
#define REL_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tessel_int.h"
#include "test_util.h"
#include "tsl_hw.h"

#define REL_GUARD 256u            /* canary bytes before and after every buffer */

typedef struct {
    tessel_addr_t addr;           /* first byte of the buffer (after the front guard) */
    uint32_t bytes;
    uint64_t seed;                /* the canary pattern */
} rel_buf_t;

static inline uint8_t rel_canary(uint64_t seed, uint32_t i) { return (uint8_t)((seed >> (8 * (i & 7))) ^ (i * 0x9Du)); }

/* Allocate `bytes` with a guard on each side and write the canaries. 0 on success. */
static inline int rel_alloc(tessel_dev_t *d, uint32_t bytes, uint64_t seed, rel_buf_t *b)
{
    uint8_t g[REL_GUARD];
    tessel_addr_t a;
    if (tessel_alloc(d, bytes + 2u * REL_GUARD, 64, &a))
        return -1;
    b->addr = a + REL_GUARD;
    b->bytes = bytes;
    b->seed = seed;
    for (uint32_t i = 0; i < REL_GUARD; i++)
        g[i] = rel_canary(seed, i);
    if (tessel_write(d, a, g, REL_GUARD))
        return -1;
    for (uint32_t i = 0; i < REL_GUARD; i++)
        g[i] = rel_canary(seed, i + REL_GUARD);
    return tessel_write(d, b->addr + bytes, g, REL_GUARD) ? -1 : 0;
}

/* Number of canary bytes that changed around b (printing the first). */
static inline int rel_guards_bad(tessel_dev_t *d, const rel_buf_t *b, const char *name)
{
    uint8_t g[2 * REL_GUARD];
    if (tessel_read(d, g, b->addr - REL_GUARD, REL_GUARD) ||
        tessel_read(d, g + REL_GUARD, b->addr + b->bytes, REL_GUARD)) {
        printf("  canary read of %s failed\n", name);
        return 1;
    }
    int bad = 0;
    for (uint32_t i = 0; i < 2 * REL_GUARD; i++) {
        if (g[i] == rel_canary(b->seed, i))
            continue;
        if (!bad++) {
            uint64_t at = i < REL_GUARD ? b->addr - REL_GUARD + i : b->addr + b->bytes + (i - REL_GUARD);
            printf("  canary of %s overwritten at HBM 0x%llx: expected 0x%02x, got 0x%02x\n", name,
                   (unsigned long long)at, rel_canary(b->seed, i), g[i]);
        }
    }
    return bad;
}

static inline uint64_t rel_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* C (M x N int32) = A (M x K int8) x B (K x N int8), dense: the command and the reference. */
static inline tessel_cmd_t rel_gemm_cmd(uint32_t m, uint32_t n, uint32_t k, tessel_addr_t a, tessel_addr_t b,
                                        tessel_addr_t c)
{
    tessel_cmd_t cmd;
    memset(&cmd, 0, sizeof cmd);
    TSL_SET(cmd.w, TSL_CMD_OPCODE, TSL_CMD_OP_GEMM);
    TSL_SET(cmd.w, TSL_CMD_C_DTYPE, TSL_DTYPE_INT32);
    cmd.w[TSL_CMD_M_WORD] = m;
    cmd.w[TSL_CMD_N_WORD] = n;
    cmd.w[TSL_CMD_K_WORD] = k;
    cmd.w[TSL_CMD_A_ADDR_WORD] = (uint32_t)a;
    cmd.w[TSL_CMD_LDA_WORD] = k;
    cmd.w[TSL_CMD_B_ADDR_WORD] = (uint32_t)b;
    cmd.w[TSL_CMD_LDB_WORD] = n;
    cmd.w[TSL_CMD_C_ADDR_WORD] = (uint32_t)c;
    cmd.w[TSL_CMD_LDC_WORD] = 4u * n;
    return cmd;
}

static inline void rel_gemm_ref(uint32_t m, uint32_t n, uint32_t k, const int8_t *a, const int8_t *b, int32_t *c)
{
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            int32_t s = 0;
            for (uint32_t q = 0; q < k; q++)
                s += a[i * k + q] * b[q * n + j];
            c[i * n + j] = s;
        }
}

#endif /* REL_UTIL_H */
