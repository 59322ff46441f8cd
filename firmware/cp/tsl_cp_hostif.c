/* Tessel command processor: the emulated HOSTIF register file (see tsl_cp_hostif.h). */
#include "tsl_cp_hostif.h"

#define HIF(off) ((off) / 4u)

uint32_t tsl_cp_hostif_read(const tsl_cp_hostif_t *h, uint32_t offset)
{
    if (offset & 3u || HIF(offset) >= TSL_CP_HOSTIF_REGS)
        return 0;
    switch (offset) {
    case TSL_HOSTIF_ID_OFFSET: return TSL_ID_VALUE;
    case TSL_HOSTIF_HOST_IRQ_SET_OFFSET:
    case TSL_HOSTIF_RESET_OFFSET: return 0;   /* write-only */
    default: return h->r[HIF(offset)];
    }
}

int tsl_cp_hostif_write(tsl_cp_hostif_t *h, uint32_t offset, uint32_t value)
{
    if (offset & 3u || HIF(offset) >= TSL_CP_HOSTIF_REGS)
        return 0;
    uint32_t *r = h->r;
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
            r[HIF(TSL_HOSTIF_FW_STATUS_OFFSET)] = 0;
            return 1;
        }
        break;
    default: r[HIF(offset)] = value; break;
    }
    return 0;
}

int tsl_cp_hostif_irq(const tsl_cp_hostif_t *h)
{
    return (h->r[HIF(TSL_HOSTIF_HOST_IRQ_STATUS_OFFSET)] & h->r[HIF(TSL_HOSTIF_HOST_IRQ_ENABLE_OFFSET)]) != 0;
}
