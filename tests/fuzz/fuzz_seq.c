/* libFuzzer target: the tile sequencer's launch checks and expansion (docs/isa.md section 8) on the
 * golden model, fed one fuzzed descriptor per input.
 *
 * Input: a selector byte, then either the raw descriptor words (selector bit 0) or fields drawn
 * small (mostly valid shapes, tiles and regions), then 8 bytes that seed the memories. A fresh
 * small device (N = 8, VMEM 32 KiB, ACC 8 KiB, HBM 64 KiB, int8 + bf16 + the sequencer) gets the
 * descriptor through TC SEQ0..SEQ23. Then:
 *   a refused descriptor is refused by the sequencer (ERR_UNIT = SEQ), pushed nothing and changed
 *   no byte of HBM, VMEM or ACC;
 *   an accepted one (whose expansion is at most 20 000 instructions) ran without any error:
 *   every instruction it expanded into passed the dispatch checks, the tensor core ends idle with
 *   every token channel at 0, and HBM changed only inside C's M rows of N elements. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_in.h"
#include "tsl_insn.h"
#include "tslm.h"

#define HBM_BYTES 0x10000u
#define MAX_INSNS 20000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count(void *ctx, const tsl_insn_t *insn)
{
    (void)insn;
    ++*(uint32_t *)ctx;
}

/* addr lies in one of C's M rows of N elements (rows closer than a row's bytes cover everything
 * from the first row's start to the last row's end). */
static int in_c(const tsl_seq_t *d, uint64_t addr)
{
    uint64_t row = (uint64_t)d->n * tsl_dtype_bytes(d->c_dtype), c = d->c_addr, ld = d->ldc;
    if (addr < c)
        return 0;
    if (ld <= row)
        return addr < c + (uint64_t)(d->m - 1u) * ld + row;
    uint64_t i = (addr - c) / ld;
    return i < d->m && addr - c - i * ld < row;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    uint32_t w[TSL_PARAM_SEQ_WORDS];
    if (fuzz_u8(&in) & 1u) {
        for (unsigned i = 0; i < TSL_PARAM_SEQ_WORDS; i++)
            w[i] = fuzz_u32(&in);
    } else {
        tsl_seq_t d = {
            .m = fuzz_size(&in, 63), .n = fuzz_size(&in, 63), .k = fuzz_size(&in, 127), .dtype = fuzz_u8(&in) & 3u,
            .c_dtype = fuzz_u8(&in) & 3u, .bias = fuzz_u8(&in) & 1u, .relu = fuzz_u8(&in) & 1u,
            .fscale = fuzz_u8(&in) & 1u, .a_addr = fuzz_size(&in, 0xFFFF), .lda = fuzz_size(&in, 255),
            .b_addr = fuzz_size(&in, 0xFFFF), .ldb = fuzz_size(&in, 255), .c_addr = fuzz_size(&in, 0xFFFF),
            .ldc = fuzz_size(&in, 511), .bias_addr = fuzz_size(&in, 0xFFFF), .scale = fuzz_u32(&in),
            .shift = fuzz_u8(&in) & 63u, .zero_point = fuzz_size(&in, 255), .mc = fuzz_size(&in, 63),
            .kc = fuzz_size(&in, 127), .nbw = fuzz_u8(&in) & 7u, .vmem_addr = fuzz_size(&in, 0x7FFF),
            .acc_addr = TSL_LOCAL_ACC_BASE + fuzz_size(&in, 0x1FFF)};
        tsl_seq_encode(&d, w);
    }
    uint64_t s = fuzz_bytes(&in, 8);

    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.n = 8;
    cfg.vmem_bytes = 32768;
    cfg.acc_bytes = 8192;
    cfg.hbm_bytes = HBM_BYTES;
    tslm_t m;
    CHECK(tslm_init(&m, &cfg) == TSLM_OK);
    fuzz_fill(tslm_hbm(&m), HBM_BYTES, s);
    fuzz_fill(tslm_vmem(&m), cfg.vmem_bytes, s ^ 1u);
    fuzz_fill(tslm_acc(&m), cfg.acc_bytes, s ^ 2u);
    uint8_t *before = malloc(HBM_BYTES + cfg.vmem_bytes + cfg.acc_bytes);
    CHECK(before != NULL);
    memcpy(before, tslm_hbm(&m), HBM_BYTES);
    memcpy(before + HBM_BYTES, tslm_vmem(&m), cfg.vmem_bytes);
    memcpy(before + HBM_BYTES + cfg.vmem_bytes, tslm_acc(&m), cfg.acc_bytes);

    uint32_t eaddr, err = tslm_seq_check(&m, w, &eaddr), insns = 0;
    if (err == TSL_ERR_NONE) {
        tslm_seq_expand(&m.cfg, w, count, &insns);
        if (insns > MAX_INSNS)
            goto done;   /* valid, but too long to run here */
    }
    for (unsigned i = 0; i < TSL_PARAM_SEQ_WORDS; i++)
        tslm_reg_write(&m, TSL_TC_SEQ0_OFFSET + 4u * i, w[i]);
    tslm_run(&m);
    CHECK(tslm_reg_read(&m, TSL_TC_ERR_CODE_OFFSET) == err);
    if (err != TSL_ERR_NONE) {
        CHECK(tslm_reg_read(&m, TSL_TC_ERR_UNIT_OFFSET) == TSL_ERR_UNIT_SEQ);
        CHECK(tslm_reg_read(&m, TSL_TC_ERR_ADDR_OFFSET) == eaddr);
        CHECK(tslm_reg_read(&m, TSL_TC_PUSH_COUNT_OFFSET) == 0);
        CHECK(memcmp(before, tslm_hbm(&m), HBM_BYTES) == 0);
        CHECK(memcmp(before + HBM_BYTES, tslm_vmem(&m), cfg.vmem_bytes) == 0);
        CHECK(memcmp(before + HBM_BYTES + cfg.vmem_bytes, tslm_acc(&m), cfg.acc_bytes) == 0);
    } else {
        tsl_seq_t d = tsl_seq_decode(w);
        CHECK(tslm_reg_read(&m, TSL_TC_PUSH_COUNT_OFFSET) == insns);
        CHECK((tslm_reg_read(&m, TSL_TC_STATUS_OFFSET) >> TSL_TC_STATUS_IDLE_SHIFT) & 1u);
        for (uint32_t off = TSL_TC_TOKENS_DMA_MXU_OFFSET; off <= TSL_TC_TOKENS_VPU_MXU_OFFSET; off += 4)
            CHECK(tslm_reg_read(&m, off) == 0);
        const uint8_t *hbm = tslm_hbm(&m);
        for (uint32_t a = 0; a < HBM_BYTES; a++)
            if (hbm[a] != before[a] && !in_c(&d, a)) {
                fprintf(stderr, "fuzz_seq: HBM 0x%05x changed outside C\n", a);
                abort();
            }
    }
done:
    free(before);
    tslm_free(&m);
    return 0;
}
