/* Tessel command processor: the native implementation of tsl_cp_hal_t, on the golden model.
 *
 * A tsl_cp_model_t bundles a tslm_t (the tensor core and HBM) with an emulated HOSTIF register
 * file that behaves as docs/isa.md §6 states: a write of CMD_HEAD sets DB_PENDING bit 0;
 * DB_PENDING and HOST_IRQ_STATUS are write-one-to-clear; HOST_IRQ_SET ORs bits into
 * HOST_IRQ_STATUS (and reads 0); ID reads 'TSL1'; RESET is recorded (reset_requests) and resets
 * the tensor core and FW_STATUS; unknown offsets read 0 and ignore writes. The host side (tests,
 * the host library's model transport) and the firmware side use the same accessors.
 * No globals: open as many devices as needed.
 */
#ifndef TSL_CP_HAL_MODEL_H
#define TSL_CP_HAL_MODEL_H

#include <stdint.h>

#include "tsl_cp_hal.h"
#include "tslm.h"

#define TSL_CP_HOSTIF_REGS (TSL_HOSTIF_HEARTBEAT_OFFSET / 4u + 1u)

typedef struct {
    tslm_t *m;                             /* the golden model (owned by the caller) */
    uint32_t hostif[TSL_CP_HOSTIF_REGS];   /* emulated HOSTIF registers, by offset / 4 */
    uint64_t cycles;                       /* advances by one on every HAL call */
    uint32_t reset_requests;               /* writes of HOSTIF RESET bit 0 */
    int inject_busy;                       /* test hook: TC STATUS never shows IDLE */
} tsl_cp_model_t;

/* Bind `dev` to model `m` (HOSTIF registers zero) and fill `hal` with its accessors. */
void tsl_cp_hal_model_init(tsl_cp_hal_t *hal, tsl_cp_model_t *dev, tslm_t *m);

/* HOSTIF register access with the hardware's semantics (host or firmware side alike). */
uint32_t tsl_cp_model_hostif_read(tsl_cp_model_t *dev, uint32_t offset);
void tsl_cp_model_hostif_write(tsl_cp_model_t *dev, uint32_t offset, uint32_t value);

/* Level of the host interrupt line: (HOST_IRQ_STATUS & HOST_IRQ_ENABLE) != 0. */
int tsl_cp_model_host_irq(const tsl_cp_model_t *dev);

#endif /* TSL_CP_HAL_MODEL_H */
