/* Tessel command processor: the native hardware-access layer on the golden model. See
 * tsl_cp_hostif.h for the emulated HOSTIF semantics. */
#include "tsl_cp_hal_model.h"

#include <string.h>

uint32_t tsl_cp_model_hostif_read(tsl_cp_model_t *dev, uint32_t offset)
{
    return tsl_cp_hostif_read(&dev->hif, offset);
}

void tsl_cp_model_hostif_write(tsl_cp_model_t *dev, uint32_t offset, uint32_t value)
{
    if (tsl_cp_hostif_write(&dev->hif, offset, value))
        tslm_reg_write(dev->m, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
}

static uint32_t model_tc_read(void *ctx, uint32_t offset)
{
    tsl_cp_model_t *d = ctx;
    d->cycles++;
    uint32_t v = tslm_reg_read(d->m, offset);
    if (offset == TSL_TC_STATUS_OFFSET && d->inject_busy)
        v &= ~(1u << TSL_TC_STATUS_IDLE_SHIFT);
    return v;
}

static void model_tc_write(void *ctx, uint32_t offset, uint32_t value)
{
    tsl_cp_model_t *d = ctx;
    d->cycles++;
    tslm_reg_write(d->m, offset, value);
}

static void model_tc_push(void *ctx, const uint32_t w[TSL_PARAM_INSN_WORDS])
{
    for (uint32_t k = 0; k < TSL_PARAM_INSN_WORDS; k++)
        model_tc_write(ctx, TSL_TC_INSN0_OFFSET + 4u * k, w[k]);
}

static void model_tc_seq(void *ctx, const uint32_t w[TSL_PARAM_SEQ_WORDS], int window)
{
    for (uint32_t k = 0; k < TSL_PARAM_SEQ_WORDS; k++)
        if (window || k < TSL_SEQ_IN_H_WORD || k + 1u == TSL_PARAM_SEQ_WORDS)
            model_tc_write(ctx, TSL_TC_SEQ0_OFFSET + 4u * k, w[k]);
}

static uint32_t model_hostif_read(void *ctx, uint32_t offset)
{
    tsl_cp_model_t *d = ctx;
    d->cycles++;
    return tsl_cp_model_hostif_read(d, offset);
}

static void model_hostif_write(void *ctx, uint32_t offset, uint32_t value)
{
    tsl_cp_model_t *d = ctx;
    d->cycles++;
    tsl_cp_model_hostif_write(d, offset, value);
}

static void model_hbm_read(void *ctx, uint32_t addr, void *buf, uint32_t len)
{
    tsl_cp_model_t *d = ctx;
    d->cycles += 1u + len / 32u;
    memcpy(buf, tslm_hbm(d->m) + addr, len);
}

static void model_hbm_write(void *ctx, uint32_t addr, const void *buf, uint32_t len)
{
    tsl_cp_model_t *d = ctx;
    d->cycles += 1u + len / 32u;
    memcpy(tslm_hbm(d->m) + addr, buf, len);
}

static uint64_t model_cycles(void *ctx)
{
    tsl_cp_model_t *d = ctx;
    return ++d->cycles;
}

void tsl_cp_hal_model_init(tsl_cp_hal_t *hal, tsl_cp_model_t *dev, tslm_t *m)
{
    memset(dev, 0, sizeof *dev);
    dev->m = m;
    hal->ctx = dev;
    hal->tc_read = model_tc_read;
    hal->tc_write = model_tc_write;
    hal->tc_push = model_tc_push;
    hal->tc_seq = model_tc_seq;
    hal->hostif_read = model_hostif_read;
    hal->hostif_write = model_hostif_write;
    hal->hbm_read = model_hbm_read;
    hal->hbm_write = model_hbm_write;
    hal->cycles = model_cycles;
    hal->idle = NULL;
    hal->kick = NULL;
    hal->kernel = NULL;   /* RV32 code cannot run here: KERNEL is BAD_OPCODE */
}
