/* Tessel command processor: the native hardware-access layer on the golden model. See
 * tsl_cp_hal_model.h for the emulated HOSTIF semantics. */
#include "tsl_cp_hal_model.h"

#include <string.h>

#define HIF(off) ((off) / 4u)

uint32_t tsl_cp_model_hostif_read(tsl_cp_model_t *dev, uint32_t offset)
{
    if (offset & 3u || HIF(offset) >= TSL_CP_HOSTIF_REGS)
        return 0;
    switch (offset) {
    case TSL_HOSTIF_ID_OFFSET: return TSL_ID_VALUE;
    case TSL_HOSTIF_HOST_IRQ_SET_OFFSET:
    case TSL_HOSTIF_RESET_OFFSET: return 0;   /* write-only */
    default: return dev->hostif[HIF(offset)];
    }
}

void tsl_cp_model_hostif_write(tsl_cp_model_t *dev, uint32_t offset, uint32_t value)
{
    if (offset & 3u || HIF(offset) >= TSL_CP_HOSTIF_REGS)
        return;
    uint32_t *r = dev->hostif;
    const uint32_t irq_bits = (TSL_HOSTIF_HOST_IRQ_STATUS_CPL_MASK << TSL_HOSTIF_HOST_IRQ_STATUS_CPL_SHIFT) |
                              (TSL_HOSTIF_HOST_IRQ_STATUS_FAULT_MASK << TSL_HOSTIF_HOST_IRQ_STATUS_FAULT_SHIFT);
    switch (offset) {
    case TSL_HOSTIF_ID_OFFSET: break;
    case TSL_HOSTIF_CMD_HEAD_OFFSET:
        r[HIF(offset)] = value;
        r[HIF(TSL_HOSTIF_DB_PENDING_OFFSET)] |= 1u;
        break;
    case TSL_HOSTIF_DB_PENDING_OFFSET: r[HIF(offset)] &= ~(value & 1u); break;
    case TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET: r[HIF(offset)] &= ~value; break;
    case TSL_HOSTIF_HOST_IRQ_SET_OFFSET: r[HIF(TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET)] |= value & irq_bits; break;
    case TSL_HOSTIF_RESET_OFFSET:
        if (value & 1u) {
            dev->reset_requests++;
            r[HIF(TSL_HOSTIF_FW_STATUS_OFFSET)] = 0;
            tslm_reg_write(dev->m, TSL_TC_CTRL_OFFSET, 1u << TSL_TC_CTRL_RESET_SHIFT);
        }
        break;
    default: r[HIF(offset)] = value; break;
    }
}

int tsl_cp_model_host_irq(const tsl_cp_model_t *dev)
{
    return (dev->hostif[HIF(TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET)] &
            dev->hostif[HIF(TSL_HOSTIF_HOST_IRQ_ENABLE_OFFSET)]) != 0;
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
    hal->hostif_read = model_hostif_read;
    hal->hostif_write = model_hostif_write;
    hal->hbm_read = model_hbm_read;
    hal->hbm_write = model_hbm_write;
    hal->cycles = model_cycles;
    hal->idle = NULL;
}
