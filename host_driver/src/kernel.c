/* libtessel: custom kernels (tessel_kernel_load, tessel_kernel_run, tessel_kernel_free).
 *
 * A kernel is a flat RV32 image (sdk/kernel.mk) kept in HBM. A run is one KERNEL command (docs/isa.md
 * §7): N = the image's bytes, A_ADDR = its address, the kernel geometry's ARG0..ARG7 and BUDGET. The
 * firmware copies the image into the control core's kernel region and calls it; the command's cycle
 * estimate (tessel.c, cmd_cycles) includes BUDGET, so the SoC watchdog and TESSEL_TIMEOUT_AUTO cover
 * the run. A run that does not come back (the watchdog reset the cores, or the wait ran out) is
 * followed by tessel_reset, so that the device takes commands again.
 */
#include <stdio.h>
#include <string.h>

#include "tessel_int.h"
#include "tsl_hw.h"

_Static_assert(TESSEL_KERNEL_ARGS == TSL_PARAM_KERNEL_ARGS && TESSEL_KERNEL_MAX_BYTES == TSL_PARAM_KERNEL_BYTES,
               "tessel.h's kernel limits are the spec's (hw/spec/tessel.toml)");

TESSEL_API tessel_status_t tessel_kernel_load(tessel_dev_t *dev, const void *image, size_t bytes, tessel_kernel_t *out)
{
    if (!dev)
        return TESSEL_EINVAL;
    if (!image || !out)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_kernel_load: NULL image or kernel");
    if (!bytes || bytes % 4u || bytes > TESSEL_KERNEL_MAX_BYTES)
        return tessel_fail(dev, TESSEL_EINVAL,
                    "tessel_kernel_load: an image of %zu bytes; a kernel image is 4 to %u bytes, a multiple of 4 "
                    "(the control core's kernel region; build it with sdk/kernel.mk)", bytes, TESSEL_KERNEL_MAX_BYTES);
    tessel_addr_t a;
    int r = tessel_alloc(dev, bytes, 64, &a);
    if (r)
        return r;
    if ((r = tessel_write(dev, a, image, bytes))) {
        (void)tessel_free(dev, a);
        return r;
    }
    out->addr = a;
    out->bytes = (uint32_t)bytes;
    return TESSEL_OK;
}

TESSEL_API void tessel_kernel_free(tessel_dev_t *dev, tessel_kernel_t *k)
{
    if (!dev || !k || !k->addr)
        return;
    (void)tessel_free(dev, k->addr);
    k->addr = 0;
    k->bytes = 0;
}

TESSEL_API tessel_status_t tessel_kernel_run(tessel_dev_t *dev, const tessel_kernel_t *k, const uint32_t *args,
                                             unsigned nargs, uint64_t budget, tessel_completion_t *cpl)
{
    if (!dev)
        return TESSEL_EINVAL;
    if (!k || !k->addr || !k->bytes)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_kernel_run: %s", k ? "the kernel is not loaded (or was freed)"
                                                                          : "NULL kernel");
    if (nargs > TESSEL_KERNEL_ARGS || (nargs && !args))
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_kernel_run: %u arguments%s; a kernel takes at most %u", nargs,
                    nargs && !args ? " from a NULL array" : "", TESSEL_KERNEL_ARGS);
    if (budget > UINT32_MAX)
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_kernel_run: a budget of %llu cycles; at most %u",
                    (unsigned long long)budget, UINT32_MAX);
    if (tessel_shadow(dev))
        return tessel_fail(dev, TESSEL_EINVAL, "tessel_kernel_run: checking mode compares with the golden model, "
                    "which has no control core to run a kernel on");
    int e = tessel_env_check(dev, "tessel_kernel_run");
    if (e)
        return e;
    if (!budget)
        budget = TESSEL_KERNEL_BUDGET_DEFAULT;
    static const uint8_t arg_word[TSL_PARAM_KERNEL_ARGS] = {
        TSL_KERN_ARG0_WORD, TSL_KERN_ARG1_WORD, TSL_KERN_ARG2_WORD, TSL_KERN_ARG3_WORD,
        TSL_KERN_ARG4_WORD, TSL_KERN_ARG5_WORD, TSL_KERN_ARG6_WORD, TSL_KERN_ARG7_WORD};
    tessel_cmd_t cmd;
    memset(&cmd, 0, sizeof cmd);
    TSL_SET(cmd.w, TSL_CMD_OPCODE, TSL_CMD_OP_KERNEL);
    cmd.w[TSL_CMD_N_WORD] = k->bytes;
    cmd.w[TSL_CMD_A_ADDR_WORD] = (uint32_t)k->addr;
    cmd.w[TSL_KERN_BUDGET_WORD] = (uint32_t)budget;
    for (unsigned i = 0; i < nargs; i++)
        cmd.w[arg_word[i]] = args[i];
    tessel_completion_t c;
    memset(&c, 0, sizeof c);
    int r = tessel_run(dev, &cmd, &c);
    if (cpl)
        *cpl = c;
    if (r == TESSEL_EDEVICE && (uint32_t)c.status == TSL_CMD_ERR_KERNEL) {
        /* the SDK's statuses (tsl_status_t) get their text; tsl_status_text(1) is the text of none */
        const char *text = tsl_status_text((int32_t)c.detail), *none = tsl_status_text(1);
        int known = strcmp(text, none) != 0;
        return tessel_fail(dev, r, "tessel_kernel_run: the kernel returned %d%s%s%s (CMD_ERR_KERNEL)",
                    (int32_t)c.detail, known ? " (" : "", known ? text : "", known ? ")" : "");
    }
    if (r == TESSEL_EDEVICE && (uint32_t)c.status == TSL_CMD_ERR_KERNEL_TRAP) {
        static const char *const cause[12] = {"misaligned fetch", "fetch fault", "illegal instruction", "breakpoint",
                                              "misaligned load", "load fault", "misaligned store", "store fault",
                                              NULL, NULL, NULL, "ECALL"};
        const char *what = c.detail < 12 && cause[c.detail] ? cause[c.detail] : "exception";
        return tessel_fail(dev, r, "tessel_kernel_run: the kernel trapped: mcause %u (%s); the firmware abandoned it "
                    "and goes on (CMD_ERR_KERNEL_TRAP)", c.detail, what);
    }
    if (r == TESSEL_EDEVICE && (uint32_t)c.status == TSL_CMD_ERR_BAD_OPCODE) {
        tessel_info_t info;
        const char *be = tessel_info(dev, &info) == TESSEL_OK ? info.backend : "this";
        return tessel_fail(dev, r, "tessel_kernel_run: the %s backend cannot run kernels: its firmware runs on the "
                    "host, with no control core to load the kernel into (KERNEL completed with BAD_OPCODE); use the "
                    "sim backend or a board with a control core", be);
    }
    if (r == TESSEL_EIO || r == TESSEL_ETIMEOUT) {   /* no completion: a hung kernel (or a lost device) */
        char why[256];
        snprintf(why, sizeof why, "%s", tessel_last_error(dev));
        int r2 = tessel_reset(dev);
        if (r2)
            return tessel_fail(dev, r2, "tessel_kernel_run: the kernel did not complete (%s), and the reset after it "
                        "failed: %s", why, tessel_last_error(dev));
        return tessel_fail(dev, TESSEL_ETIMEOUT, "tessel_kernel_run: the kernel did not return within its budget of "
                    "%llu cycles (%s); the device was reset and takes commands again",
                    (unsigned long long)budget, why);
    }
    return r;
}
