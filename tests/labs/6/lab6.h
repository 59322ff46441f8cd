/* Lab 6: the contract between the grader (tests/labs/6/lab6_grader.c) and the student's softmax
 * (labs/6/softmax.c). Walkthrough: docs/labs/6-epilogue.md. */
#ifndef LAB6_H
#define LAB6_H

#include <stdint.h>

#include "tsl_hal.h"

/* A matrix of `rows` rows of vecs * N FP32 values in VMEM (N = TC CFG_N, the VPU's lanes),
 * row-major: row r starts vecs * N * 4 bytes after row r - 1, so a row is `vecs` adjacent vectors.
 *   x: VMEM address of the input; the kernel may overwrite it;
 *   y: VMEM address of the output, the same layout;
 *   t: VMEM address of rows * vecs vectors of scratch.
 * The three do not overlap. rows is 1 .. 1024; vecs is a power of two: 1 (part 1), 2 or 4 (part 2). */
typedef struct {
  uint32_t x, y, t;
  uint32_t rows, vecs;
} lab6_rows_t;

/* y = softmax of each row of x, with the VPU: push the instructions and wait for them
 * (tsl_tc_wait). Returns TSL_OK, TSL_EINVAL for a shape it does not handle (nothing pushed), or
 * tsl_tc_wait's error. */
tsl_status_t lab6_softmax(const lab6_rows_t *a);

/* Question 2 of answers.md: called once, after the graded shapes, with `vectors` vectors of VMEM at
 * `vmem` (all zero) to use as it likes. What it prints shows in the check's output. */
void lab6_probe(uint32_t vmem, uint32_t vectors);

#endif /* LAB6_H */
