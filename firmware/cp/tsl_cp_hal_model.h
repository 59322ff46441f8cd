/* Tessel command processor: the native implementation of tsl_cp_hal_t, on the golden model.
 *
 * A tsl_cp_model_t bundles a tslm_t (the tensor core and HBM) with an emulated HOSTIF register
 * file (tsl_cp_hostif.h), whose RESET resets the model's tensor core. The host side (tests, the
 * host library's model transport) and the firmware side use the same accessors.
 * No globals: open as many devices as needed.
 */
#ifndef TSL_CP_HAL_MODEL_H
#define TSL_CP_HAL_MODEL_H

#include <stdint.h>

#include "tsl_cp_hal.h"
#include "tsl_cp_hostif.h"
#include "tslm.h"

typedef struct {
    tslm_t *m;                             /* the golden model (owned by the caller) */
    tsl_cp_hostif_t hif;                   /* the emulated HOSTIF registers */
    uint64_t cycles;                       /* advances by one on every HAL call */
    int inject_busy;                       /* test hook: TC STATUS never shows IDLE */
} tsl_cp_model_t;

/* Bind `dev` to model `m` (HOSTIF registers zero) and fill `hal` with its accessors. */
void tsl_cp_hal_model_init(tsl_cp_hal_t *hal, tsl_cp_model_t *dev, tslm_t *m);

/* HOSTIF register access with the hardware's semantics (host or firmware side alike); a RESET
 * resets the model's tensor core (CTRL.RESET). */
uint32_t tsl_cp_model_hostif_read(tsl_cp_model_t *dev, uint32_t offset);
void tsl_cp_model_hostif_write(tsl_cp_model_t *dev, uint32_t offset, uint32_t value);

#endif /* TSL_CP_HAL_MODEL_H */
