/* Tessel command processor: an emulated HOSTIF register file, for a command processor that runs
 * natively on a host (the golden model's HAL, tsl_cp_hal_model.c; libtessel's host-driven boards).
 *
 * It behaves as docs/isa.md §6 states: a write of CMD_HEAD sets DB_PENDING bit 0; DB_PENDING and
 * HOST_IRQ_STATUS are write-one-to-clear; HOST_IRQ_SET ORs bits into HOST_IRQ_STATUS (and reads
 * 0); ID reads 'TSL1'; a write of RESET bit 0 clears FW_STATUS and is reported to the caller,
 * who resets the tensor core; offsets past HEARTBEAT read 0 and ignore writes.
 * The host side and the firmware side use the same accessors. No globals.
 */
#ifndef TSL_CP_HOSTIF_H
#define TSL_CP_HOSTIF_H

#include <stdint.h>

#include "tsl_hw.h"

#define TSL_CP_HOSTIF_REGS (TSL_HOSTIF_HEARTBEAT_OFFSET / 4u + 1u)

typedef struct {
    uint32_t r[TSL_CP_HOSTIF_REGS];   /* registers by offset / 4 (zero-initialise the struct) */
} tsl_cp_hostif_t;

/* The register at `offset` as the hardware reads it. */
uint32_t tsl_cp_hostif_read(const tsl_cp_hostif_t *h, uint32_t offset);

/* Write `value` at `offset` with the hardware's semantics. Returns 1 when the write requested a
 * reset (RESET bit 0; the caller resets the tensor core), else 0. */
int tsl_cp_hostif_write(tsl_cp_hostif_t *h, uint32_t offset, uint32_t value);

/* Level of the host interrupt line: (HOST_IRQ_STATUS & HOST_IRQ_ENABLE) != 0. */
int tsl_cp_hostif_irq(const tsl_cp_hostif_t *h);

#endif /* TSL_CP_HOSTIF_H */
