/* Tessel SDK: custom kernels, C code that the host loads into the control core's RAM and runs
 * between library commands with the KERNEL command (docs/sdk.md, "Custom kernels"; docs/isa.md §7).
 *
 * A kernel is one C function, the entry, with this signature and this name:
 *
 *   int32_t tsl_kernel_main(const uint32_t args[TSL_PARAM_KERNEL_ARGS]);
 *
 * The firmware copies the image into the kernel region (TSL_KERNEL_BASE, TSL_PARAM_KERNEL_BYTES
 * bytes, below the firmware's stack) and calls the entry on the firmware's stack with the
 * command's ARG0..ARG7. A return value >= 0 completes the command with OK; a negative one with
 * CMD_ERR KERNEL, the value in the completion's DETAIL.
 *
 * The image is self-contained: it links nothing from the firmware. It may use this SDK's header-only
 * parts (tsl_hal.h's MMIO, tsl_tc.h's instruction pushes and errors, the generated tsl_hw.h and
 * tsl_insn.h) and the SDK sources that sdk/kernel.mk links into it (tsl_tc_wait, tsl_timer_now), but
 * no printf, no interrupt handlers and no state that outlives the call (each launch copies the image
 * again, so .data and .bss start from their initial values). It must leave the tensor core idle:
 * the firmware waits for it after the entry returns and then resets it (CTRL.RESET), so tokens left
 * behind do no harm, but a DMA that never ends is the command's TIMEOUT. It must stay inside its
 * region and its stack: a store anywhere else in RAM can break the firmware. A kernel that does not
 * return is stopped by the SoC watchdog, which the host arms with the command's BUDGET.
 */
#ifndef TSL_KERNEL_H
#define TSL_KERNEL_H

#include <stdint.h>

#include "tsl_hw.h"

/* The kernel region: the TSL_PARAM_KERNEL_BYTES of RAM just below the firmware's stack (the top
 * TSL_PARAM_CP_STACK_BYTES of RAM). Kernels are linked to run here (sdk/kernel.ld). */
#define TSL_KERNEL_BASE (TSL_MMAP_RAM_BASE + TSL_MMAP_RAM_BYTES - TSL_PARAM_CP_STACK_BYTES - TSL_PARAM_KERNEL_BYTES)

/* The entry of every kernel: the first byte of its image. */
typedef int32_t (*tsl_kernel_fn_t)(const uint32_t *args);
int32_t tsl_kernel_main(const uint32_t args[TSL_PARAM_KERNEL_ARGS]);

/* The control core's view of HBM byte address `addr` (an offset into HBM, what the host's
 * tessel_alloc gives and what DMA instructions take), through the HBM window. */
static inline volatile uint32_t *tsl_kernel_hbm32(uint32_t addr)
{
    return (volatile uint32_t *)(TSL_MMAP_HBM_BASE + addr);
}

/* HBM bytes present (TC CFG_HBM_BYTES): a kernel checks its operands against it. */
static inline uint32_t tsl_kernel_hbm_bytes(void)
{
    return *(volatile uint32_t *)(TSL_MMAP_TC_BASE + TSL_TC_CFG_HBM_BYTES_OFFSET);
}

#endif /* TSL_KERNEL_H */
