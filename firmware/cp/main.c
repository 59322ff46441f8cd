/* Tessel firmware for the RV32 control core: the command processor's main loop.
 * Reports FW_STATUS = ready, then forever: kicks the HOSTIF watchdog, increments HEARTBEAT, clears
 * a pending doorbell (DB_PENDING, w1c), looks at the ring up to IDLE_LOOKS times (CMD_HEAD against
 * CMD_TAIL) and, when it holds commands, processes them (tsl_cp_poll, which kicks it
 * again after every command through the HAL's kick). The watchdog is kicked only between
 * commands, so one command that runs longer than WDT_TIMEOUT (a hung firmware, a DMA burst that
 * never completes) is caught: the SoC resets the cores and the firmware restarts. libtessel arms
 * it at open and raises WDT_TIMEOUT for a long command (docs/reliability.md, "Limits"). After such a reset (WDT_STATUS.EXPIRED) and on an unusable tensor core or an
 * invalid ring it reports FW_STATUS = halted with a fault code, raises HOST_IRQ_STATUS.FAULT and
 * stops (still kicking: a halted firmware answers for itself); HOSTIF RESET restarts the core. */
#include "tsl_cp.h"
#include "tsl_cp_hal_mmio.h"

/* Fault code after a watchdog reset (TSL_CP_FAULT_CONFIG and _RING are in tsl_cp.h). */
#define FAULT_WATCHDOG 3u

/* Looks at an empty ring between two kicks of the watchdog. */
#define IDLE_LOOKS 64u

static void halt(const tsl_cp_hal_t *hal, uint32_t code)
{
    uint32_t st = (2u << TSL_HOSTIF_FW_STATUS_STATE_SHIFT) | (code << TSL_HOSTIF_FW_STATUS_CODE_SHIFT);
    hal->hostif_write(hal->ctx, TSL_HOSTIF_FW_STATUS_OFFSET, st);
    hal->hostif_write(hal->ctx, TSL_HOSTIF_HOST_IRQ_SET_OFFSET, 1u << TSL_HOSTIF_HOST_IRQ_STATUS_FAULT_SHIFT);
    for (;;)
        tsl_cp_hal_mmio_kick();
}

int main(void)
{
    tsl_cp_hal_t hal;
    tsl_cp_t cp;
    tsl_cp_hal_mmio_init(&hal);
    if (hal.hostif_read(hal.ctx, TSL_HOSTIF_WDT_STATUS_OFFSET) & (1u << TSL_HOSTIF_WDT_STATUS_EXPIRED_SHIFT))
        halt(&hal, FAULT_WATCHDOG);
    if (tsl_cp_init(&cp, &hal) != TSL_CP_OK)
        halt(&hal, TSL_CP_FAULT_CONFIG);
    hal.hostif_write(hal.ctx, TSL_HOSTIF_FW_STATUS_OFFSET, 1u << TSL_HOSTIF_FW_STATUS_STATE_SHIFT);
    for (uint32_t beat = 1;; beat++) {
        tsl_cp_hal_mmio_kick();
        hal.hostif_write(hal.ctx, TSL_HOSTIF_HEARTBEAT_OFFSET, beat);
        (void)tsl_cp_doorbell(&cp);
        /* An empty ring costs two HOSTIF reads a look, so a command is taken a few cycles after its
         * doorbell: the kick and HEARTBEAT above come every IDLE_LOOKS looks, not between them. */
        for (uint32_t look = 0; look < IDLE_LOOKS; look++) {
            if (tsl_cp_mmio_hostif_read(TSL_HOSTIF_CMD_HEAD_OFFSET) == tsl_cp_mmio_hostif_read(TSL_HOSTIF_CMD_TAIL_OFFSET))
                continue;
            if (tsl_cp_poll(&cp) < 0)
                halt(&hal, TSL_CP_FAULT_RING);
            break;
        }
    }
}
