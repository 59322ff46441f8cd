/* Tessel command processor: internals shared by tsl_cp*.c (not a public header): the runner's
 * (tsl_cp.c, tsl_cp_kern.c: on the device) and the compiler's (the others: on the host). */
#ifndef TSL_CP_INT_H
#define TSL_CP_INT_H

#include <stdint.h>

#include "tsl_cp.h"
#include "tsl_insn.h"

#define TSL_CP_FLAG(f) (1u << TSL_CMD_FLAG_##f)

/* The ring region [0, hi) of HBM, which no operand may reach, and the HBM bytes above it. */
typedef struct {
    uint32_t hi, above;
} tsl_cp_rings_t;

/* Operand of `rows` rows of `row_bytes` bytes, `stride` apart: inside HBM, no wrap-around, and
 * above the ring region (a command must not overwrite queued commands or completions, nor read
 * them). One comparison: addr - hi wraps to 2^32 or more for addr < hi, which no extent inside
 * HBM can follow. */
static inline int tsl_cp_in_hbm(const tsl_cp_rings_t *r, uint32_t addr, uint32_t rows, uint32_t stride,
                                uint64_t row_bytes)
{
    return (uint64_t)(uint32_t)(addr - r->hi) + (uint64_t)(rows - 1u) * stride + row_bytes <= r->above;
}

/* A command check's verdict: its CMD_ERR status and DETAIL. TSL_CP_FAIL(st, word) returns one. */
typedef struct {
    uint32_t status, detail;
} tsl_cp_verdict_t;

#define TSL_CP_FAIL(st, word)                                \
    do {                                                     \
        tsl_cp_verdict_t f_ = {TSL_CMD_ERR_##st, (word)};    \
        return f_;                                           \
    } while (0)

/* First non-zero command word of `mask` (bit i = word i) in w, or -1. */
static inline int tsl_cp_nonzero_word(const uint32_t *w, uint32_t mask)
{
    for (int i = 0; i < (int)TSL_PARAM_CMD_WORDS; i++)
        if (((mask >> i) & 1u) && w[i])
            return i;
    return -1;
}

/* ---------------------------------------------------------------- the runner (tsl_cp.c) */

/* CTRL.RESET, after which the SEQ registers hold 0. */
void tsl_cp_tc_reset(tsl_cp_t *cp);

/* Wait until the tensor core is idle. Returns CMD_ERR_OK, CMD_ERR_DEVICE (detail = ERR_CODE) or
 * CMD_ERR_TIMEOUT; after an error or a timeout the tensor core has been reset. */
uint32_t tsl_cp_wait(tsl_cp_t *cp, uint32_t *detail);

/* KERNEL (tsl_cp_kern.c): run the validated command (its words `w`) through the HAL's
 * kernel hook, which the caller has checked is there. Returns its CMD_ERR status. */
uint32_t tsl_cp_exec_kernel(tsl_cp_t *cp, const uint32_t *w, uint32_t *detail);

/* ---------------------------------------------------- the compiler (tsl_cp_compile.c and the rest) */

/* Append an instruction, or a sequencer descriptor, to the program being compiled (cp->prog). */
void tsl_cp_emit_insn(tsl_cp_t *cp, const uint32_t w[TSL_PARAM_INSN_WORDS]);
void tsl_cp_emit_seq(tsl_cp_t *cp, const uint32_t w[TSL_PARAM_SEQ_WORDS]);

/* A local-memory buffer whose accesses the scheduler orders: its last writer and, per unit,
 * the last reader since that write (unit sequence numbers; 0 = none). */
typedef struct {
    uint32_t wunit, wseq;
    uint32_t rseq[TSL_UNIT_LIMIT];
} tsl_cp_buf_t;

/* Start a command: the tensor core is idle with zero tokens (the runner waits between programs). */
void tsl_cp_sched_begin(tsl_cp_t *cp);

/* Push `insn` (on its UNIT) after every instruction it depends on through `r1`, `r2` (read) and
 * `w` (written; read-modify-write buffers go in `w` only), any of them NULL. Dependency tokens are
 * added so that the result is the same under every legal schedule. `hint` (TSL_TOK mask) names
 * units that will later depend on this instruction: it signals them now, so that they need not
 * wait for instructions pushed after it. */
void tsl_cp_issue(tsl_cp_t *cp, tsl_insn_t insn, tsl_cp_buf_t *r1, tsl_cp_buf_t *r2, tsl_cp_buf_t *w,
                  uint32_t hint);

/* tsl_cp_issue(cp, *insn, NULL, NULL, NULL, 0): an instruction with no buffer and no hint (a VPU
 * step on the VPU's own scratch, behind whatever it follows in its unit's queue). */
void tsl_cp_push(tsl_cp_t *cp, const tsl_insn_t *insn);

/* Instruction k (0 .. count - 1) of a run of `count` instructions of one unit over the same
 * buffers, pushed with no other instruction in between: the first waits for what the run depends
 * on, the last records the run's reads and writes and gives `hint`, and those between are only
 * pushed (their unit's queue runs in order behind the first); every one gives `each`. `insn` is
 * left as it was given, so that the caller can keep it as the template of the run. */
void tsl_cp_issue_run(tsl_cp_t *cp, tsl_insn_t *insn, uint32_t k, uint32_t count, tsl_cp_buf_t *r1, tsl_cp_buf_t *r2,
                      tsl_cp_buf_t *w, uint32_t hint, uint32_t each);

/* Buffer b as instruction k of the run of `count` that last wrote it (tsl_cp_issue_run with w = b)
 * left it: a reader of that instruction's part alone waits for it only (the instructions of a run
 * are consecutive in their unit's queue: the last waits for nothing the first did not). The reader
 * records its read in the copy, not in b. */
tsl_cp_buf_t tsl_cp_run_part(const tsl_cp_buf_t *b, uint32_t k, uint32_t count);

/* Zero `bytes` (a multiple of N) of VMEM at `addr` (aligned to N) with VPU MULs by 0. */
void tsl_cp_zero(tsl_cp_t *cp, tsl_cp_buf_t *buf, uint32_t addr, uint32_t bytes, uint32_t hint);

/* Fill `bytes` (a multiple of 4N) of local memory at `addr` with a 32-bit pattern: INT32 VPU MUL
 * by 0, then ADD of the pattern (left out for 0); the last instruction gives `hint`. */
void tsl_cp_fill32(tsl_cp_t *cp, tsl_cp_buf_t *buf, uint32_t addr, uint32_t bytes, uint32_t pattern, uint32_t hint);

/* The INT32 vector at `dst` = each lane's index plus c0, built by the VPU from nothing in
 * 2 + 2 log4(N) instructions, with two scratch vectors at `a` and `b` (4N bytes each, VMEM). */
void tsl_cp_lane_index(tsl_cp_t *cp, uint32_t dst, uint32_t a, uint32_t b, int32_t c0);

/* End a command: consume every outstanding token, so that the program leaves none behind. */
void tsl_cp_sched_end(tsl_cp_t *cp);

/* Command executors: push the instructions of a validated command. */
void tsl_cp_exec_copy(tsl_cp_t *cp, const tsl_cmd_t *c);
void tsl_cp_exec_fill(tsl_cp_t *cp, const tsl_cmd_t *c);
void tsl_cp_exec_eltwise(tsl_cp_t *cp, const tsl_cmd_t *c);
void tsl_cp_exec_gemm(tsl_cp_t *cp, const tsl_cmd_t *c);

/* One output tile of N columns in ACC, for the GEMM epilogue. */
typedef struct {
    uint32_t rows, cols;            /* valid rows and columns (cols <= N) */
    uint32_t acc, bias, out;        /* ACC tile (rows of 4*N bytes), its N bias values, the narrow
                                       output tile in VMEM (rows of N elements of C) */
    tsl_cp_buf_t *accb, *biasb, *outb;
    uint32_t hbm, ld;               /* where the STORE writes, its row stride */
    uint32_t parts, part_rows, part_step; /* 0: one STORE; else `parts` STOREs of part_rows rows,
                                             part_step bytes apart in HBM */
} tsl_cp_tile_t;

/* The STOREs of tile t from `src` (rows `pitch` bytes apart, `bytes` of each stored), reading
 * `srcb`, each signalling `hint`; contiguous rows go out as one long row. */
void tsl_cp_store(tsl_cp_t *cp, const tsl_cp_tile_t *t, uint32_t src, tsl_cp_buf_t *srcb, uint32_t pitch,
                  uint32_t bytes, uint32_t hint);

/* The GEMM epilogue of docs/isa.md §7 on tile `t` (SCALE, BIAS, RELU in ACC, then REQUANT or the
 * bf16 rounding into the output tile for a narrow C), then its STORE. */
void tsl_cp_epilogue_store(tsl_cp_t *cp, const tsl_cmd_t *c, const tsl_cp_tile_t *t);


/* CONV2D and POOL2D (tsl_cp_win.c). tsl_cp_win_fits: 1 when the validated command's tiles fit VMEM
 * and ACC (else the command is BAD_SHAPE). */
int tsl_cp_win_fits(const tsl_cp_t *cp, const tsl_cmd_t *c);
void tsl_cp_exec_win(tsl_cp_t *cp, const tsl_cmd_t *c);

/* ROWWISE (tsl_cp_row.c). tsl_cp_row_fits: 1 when a tile of at least 4 rows fits VMEM. */
int tsl_cp_row_fits(const tsl_cp_t *cp, const tsl_cmd_t *c);
void tsl_cp_exec_row(tsl_cp_t *cp, const tsl_cmd_t *c);

/* ROWWISE SOFTMAX's steps after the mask (docs/isa.md §7), on r rows of v blocks held block-major
 * (FP32; block j of row i at (j r + i) 4N, in VMEM or ACC), read from `src` and worked on in x (x
 * may be src): x = src SCALE (`scale`, FP32 bits; F32 1.0 for none), m = the max of each row,
 * x = EXP(x + (-1 m)), then dst = x RECIP(the sum of each row), block-major as x, in `dtype` (the
 * rounding of a MOV into it, done by those MULs). s: r FP32 vectors of scratch. VPU instructions
 * only, in the VPU's order after whatever wrote x: the first reads srcb (it waits for its writer),
 * and the last v, a run (tsl_cp_issue_run), read srcb and write w (either may be NULL), the last
 * giving `hint`. */
void tsl_cp_softmax(tsl_cp_t *cp, uint32_t src, tsl_cp_buf_t *srcb, uint32_t x, uint32_t s, uint32_t r, uint32_t v,
                    uint32_t scale, uint32_t dst, uint32_t dtype, tsl_cp_buf_t *w, uint32_t hint);

/* ATTENTION (tsl_cp_att.c). tsl_cp_att_fits: 1 when the validated command's tiles of at least one
 * row fit VMEM and ACC (else the command is BAD_SHAPE). */
int tsl_cp_att_fits(const tsl_cp_t *cp, const tsl_cmd_t *c);
void tsl_cp_exec_att(tsl_cp_t *cp, const tsl_cmd_t *c);

/* A GEMM through the tile sequencer (tsl_cp_seq.c): plans the tile shape and launches the
 * descriptor. Returns 0, having done nothing, when the tensor core has no sequencer or the shape
 * is one it does not take; tsl_cp_exec_gemm then tiles the command itself. */
int tsl_cp_seq_gemm(tsl_cp_t *cp, const tsl_cmd_t *c);

/* A CONV2D through the sequencer's implicit im2col: a descriptor per group and run of images.
 * Returns 0, having done nothing, where it does not apply (no sequencer, packed depthwise, a field
 * too wide, no tile of one output row fits); tsl_cp_win.c then runs the command itself. */
int tsl_cp_seq_conv(tsl_cp_t *cp, const tsl_cmd_t *c, const tsl_win_t *g);

/* Helpers. */
static inline uint32_t tsl_cp_min(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline uint32_t tsl_cp_ceil(uint32_t a, uint32_t b) { return (a + b - 1u) / b; }
static inline uint32_t tsl_cp_roundup(uint32_t a, uint32_t b) { return tsl_cp_ceil(a, b) * b; }
/* Alignment of every VMEM region the command processor lays out (>= the largest vector). */
#define TSL_CP_ALIGN 512u
#define TSL_CP_MAX_ROWS 65535u  /* ROWS fields */
#define TSL_CP_MAX_ROW_BYTES 65535u /* DMA ROW_BYTES */

#endif /* TSL_CP_INT_H */
