/* Tessel golden model: the fast path of its float arithmetic, on the host's float unit.
 *
 * Every function here returns the same bits as the tslm_arith.h function of the same name, which
 * stays the definition. It computes with the host's IEEE fp32 (x86-64 SSE) in the mode the
 * definition describes: DAZ (MXCSR bit 6) reads a subnormal input as a zero of its sign, FTZ (bit
 * 15) flushes a result below 2^-126 after rounding to a zero of its sign, round to nearest even.
 * The steps are the definition's, one IEEE operation each and in the same order (no fused
 * multiply-add, no reassociation), and every NaN result is made the canonical NaN 0x7FC00000.
 * Call the arithmetic only between tslm_fast_enter and tslm_fast_leave.
 * On a host without that mode (no SSE2), tslm_fast_available is 0 and the model uses the
 * definition alone; the other functions must not be called there.
 * The int8 MATMUL row is here too: exact integer sums, by the host's SIMD.
 * tests/model (test_arith, test_vmath, test_gemm, test_fast) check both paths bit for bit against
 * each other.
 */
#ifndef TSLM_FAST_H
#define TSLM_FAST_H

#include <stdint.h>

/* 1 when this build has the fast path, 0 otherwise. */
int tslm_fast_available(void);

/* Set the float unit to FTZ, DAZ, round to nearest, all exceptions masked; returns the previous
 * mode, which tslm_fast_leave puts back. */
unsigned tslm_fast_enter(void);
void tslm_fast_leave(unsigned mode);

/* tslm_f32_add, tslm_f32_mul, tslm_f32_gelu, tslm_f32_silu and tslm_f32_fn of tslm_arith.h, bit for bit (EXP,
 * RECIP and RSQRT are integer arithmetic: tslm_f32_fn is their fast path). */
uint32_t tslm_fast_f32_add(uint32_t a, uint32_t b);
uint32_t tslm_fast_f32_mul(uint32_t a, uint32_t b);
uint32_t tslm_fast_f32_gelu(uint32_t a);
uint32_t tslm_fast_f32_silu(uint32_t a);
uint32_t tslm_fast_f32_fn(uint32_t op, uint32_t act, uint32_t a);

/* One bf16 MATMUL row (docs/isa.md): for each column j < n, s = +0, then s = s + x[k] * w[k n + j]
 * for k = 0..n-1 in order; out[j] = s, or out[j] + s with `accumulate`. `x` is n bf16 values
 * (little-endian bytes), `w` the n*n weights as fp32 bit patterns (bf16 << 16), `out` n fp32
 * values (little-endian bytes, read when accumulating). n is a multiple of 4. Columns are
 * computed four at a time; each column keeps its own order. */
void tslm_fast_mxu_bf16_row(const uint8_t *x, const int32_t *w, uint32_t n, int accumulate, uint8_t *out);

/* The int8 weights of a LOADW in the layout tslm_fast_mxu_int8_row reads: for each pair of rows
 * k = 2p, 2p + 1 and column j, w16[2 (p n + j)] = w[2p][j] and w16[2 (p n + j) + 1] = w[2p + 1][j].
 * `w` is n*n int8 values as int32 (tslm_wbuf_t), w16 n*n int16. */
void tslm_fast_int8_pairs(const int32_t *w, uint32_t n, int16_t *w16);

/* One int8 MATMUL row: for each column j < n, the int32 sum (modulo 2^32) of x[k] * w[k][j] over
 * k; out[j] = that sum, or out[j] + it with `accumulate`. `x` is n int8 values, `w16` the weights
 * of tslm_fast_int8_pairs, `out` n int32 values (little-endian bytes). Integer sums are exact, so
 * the order is free: pairs of k by the host's 16-bit multiply-add, four columns to a register. */
void tslm_fast_mxu_int8_row(const uint8_t *x, const int16_t *w16, uint32_t n, int accumulate, uint8_t *out);

#endif /* TSLM_FAST_H */
