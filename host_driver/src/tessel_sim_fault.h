/* libtessel sim transport: fault-injection hooks for the reliability tests (tests/rel).
 *
 * `ctx` is the transport context of a sim device (tessel_transport_t.ctx after
 * tessel_transport_sim_open, before tessel_open_transport takes the transport over). The faults
 * act on the SoC's AXI HBM model (hw/sim/tc/tsl_hbm.h) and persist until cleared:
 *   inject   every read (on_write 0) or write beat touching [addr, addr+len) answers resp
 *            (2 SLVERR, 3 DECERR);
 *   stall    the next read or write burst touching the range is held `delay` cycles longer
 *            (TESSEL_SIM_STALL_FOREVER: until tessel_sim_clear_faults);
 *   clear    removes injections, releases held bursts and disarms stalls.
 * tessel_sim_hostif_* reach HOSTIF registers the library does not use (the watchdog's);
 * tessel_sim_axi_violations counts the AXI rules the SoC broke so far (0 expected, even under
 * faults). Not part of the public API. */
#ifndef TESSEL_SIM_FAULT_H
#define TESSEL_SIM_FAULT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSEL_SIM_STALL_FOREVER UINT64_MAX

void tessel_sim_inject(void *ctx, uint64_t addr, uint64_t len, int on_write, uint8_t resp);
void tessel_sim_stall(void *ctx, uint64_t addr, uint64_t len, int on_write, uint64_t delay);
void tessel_sim_clear_faults(void *ctx);
unsigned tessel_sim_stalls_hit(void *ctx);
uint64_t tessel_sim_cycles(void *ctx);
unsigned tessel_sim_axi_violations(void *ctx);
int tessel_sim_hostif_read(void *ctx, uint32_t offset, uint32_t *value);
int tessel_sim_hostif_write(void *ctx, uint32_t offset, uint32_t value);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_SIM_FAULT_H */
