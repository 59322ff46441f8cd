/* libFuzzer target: the command checks of the host's compiler (firmware/cp/tsl_cp_compile.c) and
 * the firmware's runner (tsl_cp.c), built natively on the golden model (tsl_cp_hal_model.c +
 * hw/model), fed one fuzzed 64-byte command per input.
 *
 * Input: bytes 0..63 are the command words (zero-padded when shorter); the next 8 bytes seed the
 * HBM contents. A fresh small device (N = 8, VMEM 32 KiB, ACC 8 KiB, HBM 64 KiB, int8 + bf16) gets
 * a one-entry command ring at 0x000, a one-entry completion ring at 0x040 and room for the program
 * at PROG_BASE, which the compiler keeps operands clear of as of the rings; the rest of HBM is
 * pseudo-random. A command the compiler refuses runs nowhere. Else (compiled into a PROGRAM whose
 * window is everything above the program, or a command of the runner's own) after one doorbell +
 * poll:
 *   exactly one completion, with the ring entry's TAG and OPCODE and a known CMD_ERR status;
 *   never CMD_ERR_DEVICE or CMD_ERR_TIMEOUT for a compiled command (it must run cleanly on the
 *   model);
 *   a rejected command (BAD_*) changed no HBM byte outside the completion entry, and a program of
 *   the fuzzer's own (a raw PROGRAM over the random HBM: random records) none outside its window
 *   [WIN_BASE, WIN_LIMIT), whatever its instructions and descriptors (the tensor core's window);
 *   an accepted command changed HBM only inside its output rows (tsl_cmd_out: C_ADDR + i*LDC for
 *   each row of C, or one dense block for CONV2D and POOL2D);
 *   the tensor core is idle with no error afterwards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_in.h"
#include "tsl_cmd_out.h"
#include "tsl_cp.h"
#include "tsl_cp_compile.h"
#include "tsl_cp_hal_model.h"
#include "tsl_insn.h"
#include "tslm.h"

#define HBM_BYTES 0x10000u
#define CMD_BASE 0x000u
#define CPL_BASE 0x040u
#define PROG_BASE 0x100u
#define PROG_END 0x4000u   /* the end of the region the compiler keeps operands above */
#define CMD_BYTES (TSL_PARAM_CMD_WORDS * 4u)
#define CPL_BYTES (TSL_PARAM_CPL_WORDS * 4u)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* addr lies in one of the command's output rows (tsl_cmd_out; accepted commands have LDC >= the
 * row bytes). */
static int in_output(const uint32_t *w, uint64_t addr)
{
    uint64_t rows, ld, row = tsl_cmd_out(w, &rows, &ld), c = w[TSL_CMD_C_ADDR_WORD];
    if (!row || addr < c)
        return 0;
    uint64_t i = ld ? (addr - c) / ld : 0;
    return i < rows && addr - c - i * ld < row;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    uint32_t w[TSL_PARAM_CMD_WORDS];
    for (unsigned i = 0; i < TSL_PARAM_CMD_WORDS; i++)
        w[i] = fuzz_u32(&in);
    uint64_t s = fuzz_bytes(&in, 8);

    tslm_cfg_t cfg = tslm_cfg_default();
    cfg.n = 8;
    cfg.vmem_bytes = 32768;
    cfg.acc_bytes = 8192;
    cfg.hbm_bytes = HBM_BYTES;
    tslm_t m;
    tsl_cp_model_t dev;
    tsl_cp_hal_t hal;
    tsl_cp_t cp;
    CHECK(tslm_init(&m, &cfg) == TSLM_OK);
    tsl_cp_hal_model_init(&hal, &dev, &m);
    CHECK(tsl_cp_init(&cp, &hal) == TSL_CP_OK);
    tsl_cp_t cc;
    CHECK(tsl_cp_compiler_init(&cc, cfg.n, cfg.vmem_bytes, cfg.acc_bytes, cfg.hbm_bytes, cfg.features) == TSL_CP_OK);

    uint8_t *hbm = tslm_hbm(&m);
    fuzz_fill(hbm, HBM_BYTES, s);
    uint32_t op = TSL_GET(w, TSL_CMD_OPCODE), entry[TSL_PARAM_CMD_WORDS];
    int compiled = tsl_cp_compiled(op);
    memcpy(entry, w, CMD_BYTES);
    if (compiled) {
        tsl_cp_prog_t p = {0};
        uint32_t detail, verdict = tsl_cp_compile(&cc, PROG_END, w, &p, &detail);
        CHECK(!p.oom && verdict < TSL_CMD_ERR_LIMIT && verdict != TSL_CMD_ERR_DEVICE && verdict != TSL_CMD_ERR_TIMEOUT);
        if (verdict != TSL_CMD_ERR_OK || 4u * p.words > PROG_END - PROG_BASE) {   /* refused, or too long here */
            tsl_cp_prog_free(&p);
            tslm_free(&m);
            return 0;
        }
        memcpy(hbm + PROG_BASE, p.w, 4u * p.words);
        memset(entry, 0, sizeof entry);
        TSL_SET(entry, TSL_CMD_OPCODE, TSL_CMD_OP_PROGRAM);
        entry[TSL_CMD_TAG_WORD] = w[TSL_CMD_TAG_WORD];
        entry[TSL_CMD_N_WORD] = 4u * p.words;
        entry[TSL_CMD_A_ADDR_WORD] = PROG_BASE;
        entry[TSL_PROG_WIN_BASE_WORD] = PROG_END;
        entry[TSL_PROG_WIN_LIMIT_WORD] = HBM_BYTES;
        tsl_cp_prog_free(&p);
    }
    memcpy(hbm + CMD_BASE, entry, CMD_BYTES);
    uint8_t *before = malloc(HBM_BYTES);
    CHECK(before != NULL);
    memcpy(before, hbm, HBM_BYTES);

    tsl_cp_model_hostif_write(&dev, TSL_HOSTIF_CMD_BASE_OFFSET, CMD_BASE);
    tsl_cp_model_hostif_write(&dev, TSL_HOSTIF_CMD_SIZE_OFFSET, 1);
    tsl_cp_model_hostif_write(&dev, TSL_HOSTIF_CPL_BASE_OFFSET, CPL_BASE);
    tsl_cp_model_hostif_write(&dev, TSL_HOSTIF_CPL_SIZE_OFFSET, 1);
    tsl_cp_model_hostif_write(&dev, TSL_HOSTIF_CMD_HEAD_OFFSET, 1);
    CHECK(tsl_cp_doorbell(&cp) == 1);
    CHECK(tsl_cp_poll(&cp) == 1);

    uint32_t cpl[TSL_PARAM_CPL_WORDS];
    memcpy(cpl, hbm + CPL_BASE, CPL_BYTES);
    uint32_t st = TSL_GET(cpl, TSL_CPL_STATUS);
    CHECK(cpl[TSL_CPL_TAG_WORD] == w[TSL_CMD_TAG_WORD]);
    CHECK(TSL_GET(cpl, TSL_CPL_OPCODE) == TSL_GET(entry, TSL_CMD_OPCODE));
    CHECK(st < TSL_CMD_ERR_LIMIT && (!compiled || (st != TSL_CMD_ERR_DEVICE && st != TSL_CMD_ERR_TIMEOUT)));
    CHECK(tsl_cp_model_hostif_read(&dev, TSL_HOSTIF_CPL_HEAD_OFFSET) == 1);
    CHECK(tsl_cp_model_hostif_read(&dev, TSL_HOSTIF_CMD_TAIL_OFFSET) == 1);
    for (uint32_t a = 0; a < HBM_BYTES; a++) {
        if (hbm[a] == before[a] || (a >= CPL_BASE && a < CPL_BASE + CPL_BYTES))
            continue;
        int in_window = a >= w[TSL_PROG_WIN_BASE_WORD] && a < w[TSL_PROG_WIN_LIMIT_WORD];
        if (op == TSL_CMD_OP_PROGRAM ? !in_window : st != TSL_CMD_ERR_OK || !in_output(w, a)) {
            fprintf(stderr, "fuzz_cmd: op %u status %u (%s): HBM 0x%05x changed 0x%02x -> 0x%02x outside the output\n",
                    TSL_GET(w, TSL_CMD_OPCODE), st, tsl_cmd_err_name(st), a, before[a], hbm[a]);
            abort();
        }
    }
    uint32_t tc = hal.tc_read(hal.ctx, TSL_TC_STATUS_OFFSET);   /* reset after an error */
    CHECK((tc >> TSL_TC_STATUS_IDLE_SHIFT) & 1u);
    CHECK(!((tc >> TSL_TC_STATUS_ERROR_SHIFT) & 1u));
    free(before);
    tslm_free(&m);
    return 0;
}
