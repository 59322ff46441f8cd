/* Tessel command processor: KERNEL, a custom kernel from the host (docs/isa.md §7). The HAL copies
 * and calls the image (tsl_cp_hal.h, kernel); validation is in tsl_cp.c. Built for size: it runs
 * once per command. */
#include "tsl_cp_int.h"

/* KERNEL: run the image with its arguments, then give the next command the tensor core it expects:
 * wait for what the kernel pushed (DEVICE or TIMEOUT as any command's), and reset it (CTRL.RESET:
 * no tokens, no queued instruction, SEQ registers 0), as the kernel may have left tokens behind. The
 * kernel's return value is DETAIL: OK when it is >= 0, KERNEL when negative; a trap is KERNEL_TRAP
 * with mcause (the tensor core's own error, DEVICE or TIMEOUT with its detail, comes first). */
uint32_t tsl_cp_exec_kernel(tsl_cp_t *cp, const uint32_t *w, uint32_t *detail)
{
    const uint32_t args[TSL_PARAM_KERNEL_ARGS] = {
        w[TSL_KERN_ARG0_WORD], w[TSL_KERN_ARG1_WORD], w[TSL_KERN_ARG2_WORD], w[TSL_KERN_ARG3_WORD],
        w[TSL_KERN_ARG4_WORD], w[TSL_KERN_ARG5_WORD], w[TSL_KERN_ARG6_WORD], w[TSL_KERN_ARG7_WORD]};
    const tsl_cp_hal_t *h = cp->hal;
    int32_t ret = 0;
    uint32_t trap = h->kernel(h->ctx, w[TSL_CMD_A_ADDR_WORD], w[TSL_CMD_N_WORD], args, &ret);
    uint32_t st = tsl_cp_wait(cp, detail);
    tsl_cp_tc_reset(cp);
    if (st == TSL_CMD_ERR_OK) {
        *detail = trap ? trap - 1u : (uint32_t)ret;
        st = trap ? TSL_CMD_ERR_KERNEL_TRAP : ret < 0 ? TSL_CMD_ERR_KERNEL : TSL_CMD_ERR_OK;
    }
    return st;
}

