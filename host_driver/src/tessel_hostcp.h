/* libtessel: the firmware command processor (firmware/cp) run on the host, for a device with no
 * control core of its own whose tensor core the host reaches directly: the golden model
 * (transport_model.c) and a host-driven board (transport_uart.c, the iCEBreaker).
 *
 * The HAL given to it reaches the tensor core and HBM, and an emulated HOSTIF register file
 * (firmware/cp/tsl_cp_hostif.h) whose RESET resets the tensor core. It does what
 * firmware/cp/main.c does on the control core: FW_STATUS = ready after tsl_cp_init; `run` is one
 * pass of the main loop (tsl_cp_doorbell + tsl_cp_poll: every pending command to completion); an
 * invalid ring halts it (FW_STATUS halted with CODE 2, HOST_IRQ_STATUS.FAULT); a HOSTIF RESET
 * restarts it.
 */
#ifndef TESSEL_HOSTCP_H
#define TESSEL_HOSTCP_H

#include <stdint.h>

#include "tsl_cp.h"

typedef struct {
    const tsl_cp_hal_t *hal;   /* not owned */
    tsl_cp_t cp;
    int halted;
} tessel_hostcp_t;

/* Bind `h` to `hal` (which must outlive it) and start the command processor: 0 with FW_STATUS
 * ready, or TESSEL_ENODEV with FW_STATUS halted (CODE 1) when tsl_cp_init refuses the tensor
 * core (wrong ID, VMEM or ACC too small). */
int tessel_hostcp_start(tessel_hostcp_t *h, const tsl_cp_hal_t *hal);

/* A host write of HOSTIF register `offset`: through the HAL; a RESET restarts the processor. */
void tessel_hostcp_hostif_write(tessel_hostcp_t *h, uint32_t offset, uint32_t value);

/* One pass of the main loop (nothing when halted). */
void tessel_hostcp_run(tessel_hostcp_t *h);

#endif /* TESSEL_HOSTCP_H */
