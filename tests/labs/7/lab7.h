/* Lab 7: a ring all-reduce over ICI (docs/labs/7-ring-allreduce.md).
 *
 * You write lab7_allreduce(): the device program of one chip of a ring of `chips` chips, which
 * together sum `count` int32 values that every chip holds at the same HBM address `buf`, leaving the
 * sum in `buf` on every chip. The grader (lab7_grader.c) builds every chip's program with your
 * function, runs them at once on a pod of the golden model (tessel_pod_run) and checks the sums and
 * what each chip sent.
 *
 * The helpers push one instruction each (docs/isa.md), in order, into the chip's program. The DMA
 * ones (load, store, send, wait) run in order in the DMA queue; lab7_add runs on the VPU between
 * what the DMA did before it and what the DMA does after it (it adds the dependency tokens).
 */
#ifndef LAB7_H
#define LAB7_H

#include <stdint.h>

typedef struct lab7 lab7_t;   /* one chip's program being built */

typedef struct {
    uint32_t chip, chips;     /* this chip's place on the ring (0 .. chips-1), the ring's size */
    uint32_t count;           /* int32 values to sum, the same on every chip */
    uint32_t buf;             /* HBM address of the values on every chip: the input, and the output */
    uint32_t scratch;         /* HBM address of count int32 values of scratch on every chip */
    uint32_t vmem_a, vmem_b;  /* two VMEM buffers of `tile` bytes */
    uint32_t tile;            /* bytes, a multiple of 64 (one VPU vector: 16 int32) */
} lab7_args_t;

/* DMA LOAD: `bytes` bytes from HBM address `hbm` to VMEM address `vmem`. */
void lab7_load(lab7_t *p, uint32_t vmem, uint32_t hbm, uint32_t bytes);
/* DMA STORE: `bytes` bytes from VMEM address `vmem` to HBM address `hbm`. */
void lab7_store(lab7_t *p, uint32_t hbm, uint32_t vmem, uint32_t bytes);
/* DMA SEND: `bytes` bytes from VMEM address `vmem` to HBM address `hbm` of chip `to` (a neighbour on
 * the ring), then one increment of its semaphore `sem` (0..15). */
void lab7_send(lab7_t *p, uint32_t to, uint32_t hbm, uint32_t vmem, uint32_t bytes, uint32_t sem);
/* DMA SEMWAIT: wait until this chip's semaphore `sem` counts `count` arrivals, and take them. */
void lab7_wait(lab7_t *p, uint32_t sem, uint32_t count);
/* VPU ADD of int32 vectors: dst = a + b over `bytes` bytes (rounded up to whole vectors), in VMEM. */
void lab7_add(lab7_t *p, uint32_t dst, uint32_t a, uint32_t b, uint32_t bytes);

/* Yours. */
void lab7_allreduce(lab7_t *p, const lab7_args_t *a);

#endif /* LAB7_H */
