/* Tessel firmware command processor: the program runner.
 *
 * Consumes the host command ring in HBM (docs/isa.md §7): for every entry between HOSTIF
 * CMD_TAIL and CMD_HEAD, in order, it reads the 64-byte command, validates it completely before
 * touching anything (an invalid command writes no memory and pushes no instruction), runs it (a
 * PROGRAM's records pushed to the tensor core, a KERNEL called, NOP and FENCE at once), waits for
 * the tensor core, posts the 16-byte completion at CPL_HEAD and advances CPL_HEAD and CMD_TAIL, and
 * sets HOST_IRQ_STATUS.CPL. The programs come from the host's compiler (tsl_cp_compile.h), which
 * shares this state structure: tiling, VMEM/ACC layout and limits are in firmware/cp/README.md.
 *
 * All hardware access goes through a tsl_cp_hal_t, so the same code runs on the control core
 * (tsl_cp_hal_mmio.c) and natively against the golden model (tsl_cp_hal_model.c). All state is in
 * the tsl_cp_t; there are no globals.
 */
#ifndef TSL_CP_H
#define TSL_CP_H

#include <stdint.h>

#include "tsl_cp_hal.h"
#include "tsl_hw.h"

/* Status of tsl_cp_* calls: TSL_CP_OK or a negative code of the shared tsl_status_t (tsl_hw.h,
 * generated from the spec); the TSL_CP_ names are the command processor's spelling of them. */
typedef tsl_status_t tsl_cp_status_t;
#define TSL_CP_OK TSL_OK
#define TSL_CP_EINVAL TSL_EINVAL   /* bad argument; no hardware was touched */
#define TSL_CP_ECONFIG TSL_ECONFIG /* the tensor core's ID or CFG_* registers are unusable (VMEM too small) */
#define TSL_CP_ERING TSL_ERING     /* the HOSTIF ring registers are invalid (size, alignment, extent, indices) */

/* Firmware fault codes (HOSTIF FW_STATUS.CODE when STATE = halted). */
#define TSL_CP_FAULT_CONFIG 1u
#define TSL_CP_FAULT_RING 2u

/* Default progress watchdog: a command fails with CMD_ERR_TIMEOUT when the tensor core completes
 * no instruction for this many cycles while the firmware waits for it. */
#define TSL_CP_TIMEOUT_DEFAULT 50000000u

/* Instruction scheduler state (internal; see tsl_cp_int.h). */
#define TSL_CP_PEND 16u
typedef struct {
    uint32_t seq[TSL_UNIT_LIMIT];                       /* instructions pushed per unit (this command) */
    uint32_t known[TSL_UNIT_LIMIT][TSL_UNIT_LIMIT];     /* [u][v]: v has waited for u's seq <= known */
    uint32_t pend[TSL_UNIT_LIMIT][TSL_UNIT_LIMIT][TSL_CP_PEND]; /* unconsumed signals u->v: seqs */
    uint8_t pend_head[TSL_UNIT_LIMIT][TSL_UNIT_LIMIT], pend_count[TSL_UNIT_LIMIT][TSL_UNIT_LIMIT];
    uint32_t pushed;                                    /* instructions pushed (this command) */
} tsl_cp_sched_t;

struct tsl_cp_prog;

typedef struct {
    const tsl_cp_hal_t *hal;  /* the runner's (not owned); NULL in a compiler */
    struct tsl_cp_prog *prog;    /* the compiler's output (not owned); NULL in the runner */
    /* Tensor-core configuration: read from TC CFG_* at init (the runner: HBM_BYTES and FEATURES),
     * given to tsl_cp_compiler_init (the compiler). */
    uint32_t n, vmem_bytes, acc_bytes, hbm_bytes, features;
    uint32_t n_log2;          /* N = 1 << n_log2 */
    uint32_t timeout_cycles;  /* progress watchdog; TSL_CP_TIMEOUT_DEFAULT after init */
    uint32_t commands;        /* commands completed since init */
    int seq_window;           /* the last descriptor launched was a CONV: SEQ16..SEQ22 may be set */
    /* The runner's ring layout as last found valid: CMD_BASE, CMD_SIZE, CPL_BASE, CPL_SIZE (CMD_SIZE 0:
     * none yet). A command under the same layout skips the layout's checks. */
    uint32_t ring[4];
    tsl_cp_sched_t s;         /* the compiler's token scheduler */
} tsl_cp_t;

/* Bind `cp` to `hal` (which must outlive it), read the tensor core's configuration, and reset
 * the tensor core (CTRL.RESET) so that it starts with empty queues and zero tokens.
 * TSL_CP_EINVAL for NULL arguments, TSL_CP_ECONFIG when the ID is wrong or HBM_BYTES is not a power
 * of two. */
__attribute__((warn_unused_result)) tsl_cp_status_t tsl_cp_init(tsl_cp_t *cp, const tsl_cp_hal_t *hal);

/* If HOSTIF DB_PENDING is set, clear it (w1c) and return 1; else return 0. Clearing before
 * tsl_cp_poll() means a doorbell that rings while commands run is not lost. */
int tsl_cp_doorbell(tsl_cp_t *cp);

/* Process every command between CMD_TAIL and CMD_HEAD, in order. Stops early, without consuming
 * the command, when the completion ring is full (CPL_HEAD - CPL_TAIL = CPL_SIZE): unread
 * completions are never overwritten; call again after the host has advanced CPL_TAIL.
 * Returns the number of commands completed (>= 0), or TSL_CP_ERING when commands are pending
 * but the ring registers are invalid (nothing is consumed), TSL_CP_EINVAL for a NULL cp. */
__attribute__((warn_unused_result)) int tsl_cp_poll(tsl_cp_t *cp);

/* Human-readable text for a status; never NULL. */
const char *tsl_cp_strerror(int status);

#endif /* TSL_CP_H */
