/* Tessel's command compiler: one host command (docs/isa.md §7: GEMM, ELTWISE, COPY, FILL, CONV2D,
 * POOL2D, ROWWISE, ATTENTION) checked and planned into a device program of PROGRAM records, which
 * the firmware's runner (tsl_cp.h) pushes to the tensor core. It runs on the host, in libtessel, for
 * every backend; the planning is firmware/cp/README.md's. No globals: one tsl_cp_t per device.
 */
#ifndef TSL_CP_COMPILE_H
#define TSL_CP_COMPILE_H

#include <stdint.h>

#include "tsl_cp.h"

/* A device program being built: `words` 32-bit words of records (docs/isa.md §7, PROGRAM). */
typedef struct tsl_cp_prog {
    uint32_t *w;      /* malloc'd; tsl_cp_prog_free */
    uint32_t words, cap;
    uint32_t open;    /* 1 + the word index of the INSN record that the next instruction joins, or 0 */
    int oom;          /* an allocation failed: the program is incomplete */
} tsl_cp_prog_t;

void tsl_cp_prog_free(tsl_cp_prog_t *p);

/* Append n words that a compile of one command appended before (a program cache's copy), as that
 * compile left them: closed, so the next command starts a record of its own. 0, or -1 with p->oom
 * set. */
int tsl_cp_prog_append(tsl_cp_prog_t *p, const uint32_t *w, uint32_t n);

/* A compiler for a tensor core of this configuration (TC CFG_*). TSL_CP_ECONFIG when N is not a
 * power of two from 4 to 128, HBM_BYTES not a power of two, or VMEM/ACC cannot hold the smallest
 * tiling; TSL_CP_EINVAL for a NULL cp. */
__attribute__((warn_unused_result)) tsl_cp_status_t tsl_cp_compiler_init(tsl_cp_t *cp, uint32_t n,
                                                                          uint32_t vmem_bytes, uint32_t acc_bytes,
                                                                          uint32_t hbm_bytes, uint32_t features);

/* 1 for the opcodes the host compiles; the firmware runs the others (NOP, FENCE, KERNEL, PROGRAM)
 * itself. */
int tsl_cp_compiled(uint32_t opcode);

/* Check command `w` (docs/isa.md §7, in its order: the first failure is reported), with operands
 * kept above the ring region [0, ring_end), and when it passes, append its program to `p` (one
 * that starts and ends with an idle tensor core and zero tokens). Returns its CMD_ERR status, with
 * the detail of a failure in *detail; TSL_CMD_ERR_BAD_OPCODE for an opcode not compiled.
 * p->oom tells of a failed allocation. */
uint32_t tsl_cp_compile(tsl_cp_t *cp, uint32_t ring_end, const uint32_t *w, tsl_cp_prog_t *p, uint32_t *detail);

/* Collectives over ICI (tsl_cp_coll.c, docs/pod.md): one chip's part of a collective of a dx by dy
 * pod (a ring is dx by 1). Buffers are symmetric: the same HBM byte address on every chip. */
enum { TSL_CP_COLL_ALL_REDUCE = 0, TSL_CP_COLL_REDUCE_SCATTER = 1, TSL_CP_COLL_ALL_GATHER = 2, TSL_CP_COLL_BROADCAST = 3 };
typedef struct {
    uint32_t kind;             /* TSL_CP_COLL_* */
    uint32_t dtype, op;        /* INT32, FP32 or BF16; the reduction's VPU op: ADD, MAX or MIN */
    uint64_t count;            /* all-reduce, broadcast: elements of the input and of the output;
                                  reduce-scatter: of each part (the output; the input holds n parts);
                                  all-gather: of the input (the output holds n parts) */
    uint32_t dx, dy, x, y;     /* the pod's extents; this chip's coordinates (chip y * dx + x) */
    uint32_t root;             /* broadcast: the chip whose input is sent */
    uint32_t in, out, scratch; /* scratch: tsl_cp_coll_scratch bytes */
} tsl_cp_coll_t;

/* Bytes of scratch a collective needs on each chip. */
uint64_t tsl_cp_coll_scratch(const tsl_cp_coll_t *c);

/* Bytes of the tiles of collective c (its dtype and pod extents count) on this configuration: a
 * power of two, at most 32 KiB; below 4 * N bytes it cannot run. */
uint32_t tsl_cp_coll_tile(const tsl_cp_t *cp, const tsl_cp_coll_t *c);

/* Append chip c->pos's program of collective c to p (every check is the caller's); returns the bytes
 * it SENDs. */
uint64_t tsl_cp_compile_coll(tsl_cp_t *cp, const tsl_cp_coll_t *c, tsl_cp_prog_t *p);

#endif /* TSL_CP_COMPILE_H */
