/* libtessel_model: the golden model of the Tessel tensor core, the executable specification.
 *
 * It holds the full architectural state (HBM, VMEM, ACC, the two MXU weight buffers, the per-unit
 * queues, the dependency tokens, the error, status and performance registers) in one tslm_t that
 * every call takes explicitly; there are no globals. Every instruction of docs/isa.md is executed
 * bit-exactly. The model is functional: it has no notion of time, so timing counters stay 0.
 *
 * Pushing validates the instruction as the hardware's dispatcher does; a bad one sets ERR_CODE,
 * is dropped, and so is every later push until CTRL.RESET (instructions already queued still run).
 * Instructions execute in push order by default, which is always a legal schedule; with
 * TSLM_SCHED_RANDOM any queue whose head has its tokens may go next, which exposes programs whose
 * result depends on timing because a dependency token is missing.
 */
#ifndef TSLM_H
#define TSLM_H

#include <stddef.h>
#include <stdint.h>

#include "tsl_hw.h"

/* Status of model calls: 0 or a negative code of the shared tsl_status_t (tsl_hw.h, generated from
 * the spec; tsl_status_text gives its text). The TSLM_ names are the model's spelling of them. */
typedef tsl_status_t tslm_status_t;
#define TSLM_OK TSL_OK
#define TSLM_EINVAL TSL_EINVAL   /* bad argument (no state was changed) */
#define TSLM_ENOMEM TSL_ENOMEM   /* allocation failed */
#define TSLM_EDEVICE TSL_EDEVICE /* the instruction was rejected: read TC ERR_CODE */

typedef struct {
    uint32_t n;            /* array size: a power of two, 4..128 */
    uint32_t vmem_bytes;   /* power of two, 4 KiB .. 16 MiB */
    uint32_t acc_bytes;    /* power of two, 4 KiB .. 16 MiB */
    uint32_t hbm_bytes;    /* power of two, 4 KiB .. 1 GiB */
    uint32_t queue_depth;  /* 1..255 */
    uint32_t features;     /* TC CFG_FEATURES bits: 1 << TSL_TC_CFG_FEATURES_{INT8,BF16,SEQ,WINDOW,FETCH,TRANSPOSE}_SHIFT;
                              SEQ (the tile sequencer), WINDOW (the HBM window) and FETCH (the program
                              fetch unit) need the TC core */
    uint32_t core;         /* TSL_CORE_TC (0, the default) or TSL_CORE_LITE: the tensor core whose
                              ops it runs (tsl_op_on_core); the others are ERR_BAD_OPCODE */
    /* With CFG_FEATURES.ICI (the TC core only): the pod's extents, 1..ICI_DIM_MAX each, and this
     * chip's coordinates in it (tslm_pod_attach); all 0 without it */
    uint32_t pod_x, pod_y, chip_x, chip_y;
} tslm_cfg_t;

typedef enum { TSLM_SCHED_PUSH_ORDER = 0, TSLM_SCHED_RANDOM = 1 } tslm_sched_t;

typedef struct tslm_pod tslm_pod_t;

typedef struct {
    uint32_t w[TSL_PARAM_INSN_WORDS];
    uint32_t seq;
} tslm_qentry_t;

typedef struct {
    tslm_qentry_t *e;
    uint32_t head, count;
} tslm_queue_t;

typedef struct {
    uint32_t dtype;
    int32_t *w;            /* N*N; int8 values, or fp32 bit patterns of bf16 weights */
    int16_t *w16;          /* N*N; int8 weights in the fast path's layout (tslm_fast_int8_pairs) */
} tslm_wbuf_t;

typedef struct {
    tslm_cfg_t cfg;
    uint8_t *hbm, *vmem, *acc;
    tslm_wbuf_t wbuf[2];
    uint32_t wbuf_dtype_pushed[2];   /* dtype of the last LOADW pushed per buffer (dispatch check) */
    tslm_queue_t q[TSL_UNIT_LIMIT];
    uint32_t credit[TSL_UNIT_LIMIT][TSL_UNIT_LIMIT]; /* [from][to] signals pushed minus waits pushed */
    uint32_t tokens[TSL_UNIT_LIMIT][TSL_UNIT_LIMIT]; /* [from][to] signals done minus waits taken */
    uint32_t insn_stage[TSL_PARAM_INSN_WORDS];       /* INSN0..INSN7 register writes */
    uint32_t seq_stage[TSL_PARAM_SEQ_WORDS];         /* SEQ0..SEQ23 register writes */
    uint32_t push_count, notify_count;
    uint32_t err_code, err_unit, err_seq, err_addr;
    tsl_tc_wr_t wr;   /* the rw and w1c registers (IRQ_ENABLE, IRQ_STATUS, ...), their implemented bits.
                         The HBM window [HBM_BASE, HBM_LIMIT) is [0, hbm_bytes) at init, kept by
                         CTRL.RESET, fixed at that without CFG_FEATURES.WINDOW; PROG_ADDR and PROG_BYTES
                         are kept by CTRL.RESET, 0 without CFG_FEATURES.FETCH; PROG_HOLD is cleared by
                         CTRL.RESET */
    int prog_held;    /* a fetch started while PROG_HOLD.HOLD was 1: it runs when HOLD is cleared */
    uint64_t perf[TSL_PERF_COUNT];
    tslm_sched_t sched;
    uint64_t rng;
    int32_t *row_a, *row_b, *row_d, *row_t;  /* N-element scratch rows */
    int softfloat;         /* 1: the model runs on its definition alone (tslm_arith.c's soft float, the
                              plain int8 loop); 0: the fast path (tslm_fast.c: the host's float unit and
                              SIMD), bit for bit the same */
    /* ICI (CFG_FEATURES.ICI): the semaphores, and the pod the chip is attached to. Other chips' SENDs
     * write this chip's HBM and semaphores; the pod's lock guards sem[] and blocked */
    uint32_t sem[TSL_PARAM_ICI_SEMS];
    tslm_pod_t *pod;
    int blocked;           /* waiting for a remote write */
} tslm_t;

/* The default configuration (docs/isa.md parameters, both datatypes). */
tslm_cfg_t tslm_cfg_default(void);

/* Allocate the state for `cfg`, all memories zero. On failure nothing needs freeing.
 * The arithmetic runs on the fast path (tslm_fast.h: the host's float unit, and SIMD for int8) where
 * the build has it, unless the environment variable TESSEL_MODEL_SOFTFLOAT is set to anything but ""
 * or "0" at this call: then it runs on the definition, the integer soft float of tslm_arith.c. Both
 * give the same bits. */
__attribute__((warn_unused_result)) tslm_status_t tslm_init(tslm_t *m, const tslm_cfg_t *cfg);

/* Release everything tslm_init allocated. Safe on a zeroed tslm_t. */
void tslm_free(tslm_t *m);

/* Validate and queue one instruction (INSN_WORDS words), then run it as the schedule allows.
 * Returns TSLM_EDEVICE when it was rejected (or an earlier error halts pushes). */
__attribute__((warn_unused_result)) tslm_status_t tslm_push(tslm_t *m, const uint32_t *insn);

/* Execute queued instructions until every queue is empty. */
void tslm_run(tslm_t *m);

/* Choose the schedule (see above); `seed` drives TSLM_SCHED_RANDOM. */
void tslm_set_schedule(tslm_t *m, tslm_sched_t sched, uint64_t seed);

/* TC register block access at byte `offset` (TSL_TC_*_OFFSET). Reads run the queues first so
 * that STATUS, counters and tokens show the state after every pushed instruction. Unknown
 * offsets read 0 and ignore writes, as the hardware does. */
uint32_t tslm_reg_read(tslm_t *m, uint32_t offset);
void tslm_reg_write(tslm_t *m, uint32_t offset, uint32_t value);
/* A write of TC PROG_BYTES (with CFG_FEATURES.FETCH) runs the device program at PROG_ADDR before it
 * returns: each INSN record's instructions as INSN7 writes, each SEQ record as a SEQ23 write, up to
 * the first error; a bad record is ERR_BAD_RECORD, a program outside HBM ERR_HBM_RANGE (ERR_UNIT
 * FETCH, ERR_ADDR the record's or the program's address). */

/* The tile sequencer (docs/isa.md section 8, hw/model/tslm_seq.c). A write of TC SEQ23 launches the
 * descriptor in SEQ0..SEQ23: tslm_seq_check, then every instruction of tslm_seq_expand is pushed. */
/* The launch checks: TSL_ERR_NONE or the ERR code, with *eaddr = ERR_ADDR. */
uint32_t tslm_seq_check(const tslm_t *m, const uint32_t *desc, uint32_t *eaddr);
/* The expansion of a descriptor that passed the checks: emit(ctx, insn) for each instruction in
 * push order. Returns how many. */
typedef void (*tslm_seq_emit_t)(void *ctx, const tsl_insn_t *insn);
uint32_t tslm_seq_expand(const tslm_cfg_t *cfg, const uint32_t *desc, tslm_seq_emit_t emit, void *ctx);

/* Whether HBM bytes [addr, end) may be touched: inside HBM_BYTES and inside the window [HBM_BASE,
 * HBM_LIMIT). The dispatch check of a DMA and the sequencer's launch check refuse an operand for
 * which it is 0 with ERR_HBM_RANGE (ERR_ADDR: the operand's address). */
int tslm_hbm_ok(const tslm_t *m, uint32_t addr, uint64_t end);

/* Level of the tensor-core interrupt line: (IRQ_STATUS & IRQ_ENABLE) != 0. */
int tslm_irq(const tslm_t *m);

/* A pod (docs/pod.md): chips joined by ICI, each a tslm_t with CFG_FEATURES.ICI, run by a thread of
 * its own. A SEND lands at once: its bytes in the destination's HBM, then one increment of the
 * destination's semaphore. A chip whose every queue is stuck behind a SEMWAIT waits
 * inside the model call that runs it (tslm_reg_read, or a push into a full queue) until a remote
 * write arrives; when every chip of the run waits or has left, each waiting chip raises
 * ERR_SEM_DEADLOCK (ERR_UNIT DMA) instead: the model's form of the hardware's bounded wait.
 * CTRL.RESET zeroes a chip's semaphores. */
/* A pod of x by y chips (1..ICI_DIM_MAX each), none attached yet. */
__attribute__((warn_unused_result)) tslm_status_t tslm_pod_new(tslm_pod_t **pod, uint32_t x, uint32_t y);
/* Free the pod; its chips are detached (free them before or after). NULL is ignored. */
void tslm_pod_free(tslm_pod_t *pod);
/* Attach chip m at its cfg.chip_x, chip_y: it needs CFG_FEATURES.ICI, the pod's extents and a free
 * place (TSLM_EINVAL otherwise). tslm_free detaches it. */
__attribute__((warn_unused_result)) tslm_status_t tslm_pod_attach(tslm_pod_t *pod, tslm_t *m);
/* Take the chip at (x, y) out of the pod (a dead chip): writes sent to it are lost from now on. */
void tslm_pod_detach(tslm_pod_t *pod, uint32_t x, uint32_t y);
/* A run: `chips` threads each run one chip until tslm_pod_leave; the deadlock of an earlier run is
 * forgotten. */
void tslm_pod_begin(tslm_pod_t *pod, uint32_t chips);
void tslm_pod_leave(tslm_pod_t *pod);

/* Byte views of the memories, for loading data and checking results (little-endian). */
uint8_t *tslm_hbm(tslm_t *m);
uint8_t *tslm_vmem(tslm_t *m);
uint8_t *tslm_acc(tslm_t *m);

#endif /* TSLM_H */
