/* Tessel command processor: the hardware-access layer.
 *
 * The command processor (tsl_cp.c and friends) reaches the hardware only through this table of
 * function pointers, so that the same source runs on the RV32 control core (tsl_cp_hal_mmio.c:
 * MMIO at TSL_MMAP_*_BASE, mcycle) and natively on a host against the golden model
 * (tsl_cp_hal_model.c: a tslm_t plus an emulated HOSTIF register file). Compare NVDLA's
 * portability layer. Every call takes the implementation's context pointer `ctx` first; there is
 * no global state, so one process can run several devices.
 *
 * Offsets are the generated TSL_TC_*_OFFSET / TSL_HOSTIF_*_OFFSET values of hw/include/tsl_hw.h;
 * HBM addresses are byte offsets into HBM (what the DMA takes), not the core's window address.
 */
#ifndef TSL_CP_HAL_H
#define TSL_CP_HAL_H

#include <stdint.h>

#include "tsl_hw.h"

typedef struct {
    void *ctx; /* implementation state, owned by the caller; passed to every call */
    /* Tensor-core register block (TC). Writing INSN7 pushes an instruction (may stall). */
    uint32_t (*tc_read)(void *ctx, uint32_t offset);
    void (*tc_write)(void *ctx, uint32_t offset, uint32_t value);
    /* Push one instruction: write INSN0..INSN7 in order (the last write pushes; may stall). */
    void (*tc_push)(void *ctx, const uint32_t w[TSL_PARAM_INSN_WORDS]);
    /* Launch a tile-sequencer descriptor: write SEQ0..SEQ23 in order (the last write launches; may
     * stall), leaving out the CONV words before the last (SEQ16..SEQ22) when `window` is 0: they
     * hold 0 already. Only called on a tensor core with CFG_FEATURES.SEQ; may be NULL on one
     * without. */
    void (*tc_seq)(void *ctx, const uint32_t w[TSL_PARAM_SEQ_WORDS], int window);
    /* Host-interface register block (HOSTIF), with the w1c / wo semantics of docs/isa.md §6. */
    uint32_t (*hostif_read)(void *ctx, uint32_t offset);
    void (*hostif_write)(void *ctx, uint32_t offset, uint32_t value);
    /* Copy `len` bytes between HBM byte address `addr` and `buf`. The caller has checked that
     * [addr, addr + len) lies inside HBM. */
    void (*hbm_read)(void *ctx, uint32_t addr, void *buf, uint32_t len);
    void (*hbm_write)(void *ctx, uint32_t addr, const void *buf, uint32_t len);
    /* Free-running cycle counter (mcycle on the core; a call counter in the model). */
    uint64_t (*cycles)(void *ctx);
    /* Called in every busy-wait iteration (may be NULL): wfi, a yield, or a simulation step. */
    void (*idle)(void *ctx);
    /* Called between two commands (may be NULL): kick the HOSTIF watchdog, so that it has to cover
     * one command, not every command queued at once. */
    void (*kick)(void *ctx);
    /* KERNEL (docs/isa.md §7): copy the `bytes`-byte image at HBM `addr` into the kernel region of
     * the control core's RAM (docs/architecture.md, "Control-core memory map"), make the copy
     * visible to instruction fetch, and call its entry with the TSL_PARAM_KERNEL_ARGS words of
     * `args`. Returns 0 when the kernel returned, its value in *ret, or 1 + mcause when it trapped
     * (the kernel is abandoned, the firmware goes on). The caller has checked that 0 < bytes <=
     * TSL_PARAM_KERNEL_BYTES, both aligned to 4, inside HBM. NULL where no kernel can run: the
     * firmware built natively (the model backend, host-driven boards), KERNEL is then BAD_OPCODE. */
    uint32_t (*kernel)(void *ctx, uint32_t addr, uint32_t bytes, const uint32_t *args, int32_t *ret);
} tsl_cp_hal_t;

#endif /* TSL_CP_HAL_H */
