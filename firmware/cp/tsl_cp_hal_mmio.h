/* Tessel command processor: the RV32 MMIO implementation of tsl_cp_hal_t. */
#ifndef TSL_CP_HAL_MMIO_H
#define TSL_CP_HAL_MMIO_H

#include "tsl_cp_hal.h"

/* Fill `hal` with the MMIO accessors of the control core (TSL_MMAP_* windows, mcycle). */
void tsl_cp_hal_mmio_init(tsl_cp_hal_t *hal);

/* Kick the HOSTIF watchdog (a write of WDT_KICK reloads it with WDT_TIMEOUT). */
void tsl_cp_hal_mmio_kick(void);

#endif /* TSL_CP_HAL_MMIO_H */
