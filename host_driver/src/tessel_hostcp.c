/* libtessel: the firmware command processor run on the host (see tessel_hostcp.h). */
#include "tessel_hostcp.h"

#include "tessel.h"

/* tessel_status_t and the device's tsl_status_t (tsl_hw.h) are one space: a meaning they share has
 * the same number (docs/host-api.md). */
_Static_assert(TESSEL_OK == (int)TSL_OK && TESSEL_EINVAL == (int)TSL_EINVAL && TESSEL_ENOMEM == (int)TSL_ENOMEM &&
                   TESSEL_ETIMEOUT == (int)TSL_ETIMEOUT && TESSEL_EDEVICE == (int)TSL_EDEVICE &&
                   TESSEL_ENODEV == (int)TSL_ENODEV && TESSEL_ERANGE == (int)TSL_ERANGE && TESSEL_EIO == (int)TSL_EIO &&
                   TESSEL_EMISMATCH == (int)TSL_EMISMATCH,
               "tessel_status_t and tsl_status_t differ");

static void fw_status(tessel_hostcp_t *h, uint32_t state, uint32_t code)
{
    h->hal->hostif_write(h->hal->ctx, TSL_HOSTIF_FW_STATUS_OFFSET,
                         (state << TSL_HOSTIF_FW_STATUS_STATE_SHIFT) | (code << TSL_HOSTIF_FW_STATUS_CODE_SHIFT));
}

int tessel_hostcp_start(tessel_hostcp_t *h, const tsl_cp_hal_t *hal)
{
    h->hal = hal;
    h->halted = tsl_cp_init(&h->cp, hal) != TSL_CP_OK;
    fw_status(h, h->halted ? 2u : 1u, h->halted ? TSL_CP_FAULT_CONFIG : 0u);
    return h->halted ? TESSEL_ENODEV : TESSEL_OK;
}

void tessel_hostcp_hostif_write(tessel_hostcp_t *h, uint32_t offset, uint32_t value)
{
    h->hal->hostif_write(h->hal->ctx, offset, value);
    if (offset == TSL_HOSTIF_RESET_OFFSET && (value & 1u))
        (void)tessel_hostcp_start(h, h->hal);
}

void tessel_hostcp_run(tessel_hostcp_t *h)
{
    if (h->halted)
        return;
    (void)tsl_cp_doorbell(&h->cp);
    if (tsl_cp_poll(&h->cp) < 0) {
        h->halted = 1;
        fw_status(h, 2u, TSL_CP_FAULT_RING);
        h->hal->hostif_write(h->hal->ctx, TSL_HOSTIF_HOST_IRQ_SET_OFFSET, 1u << TSL_HOSTIF_HOST_IRQ_STATUS_FAULT_SHIFT);
    }
}
