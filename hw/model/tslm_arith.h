/* Tessel golden-model arithmetic: the bit-exact definition of every number format operation.
 *
 * Floats are passed as their IEEE-754 binary32 bit patterns (uint32_t); bf16 as the upper 16
 * bits of a binary32 (uint16_t). The rules, which docs/isa.md states and the RTL mirrors:
 *   - DAZ: a subnormal input is read as a zero of the same sign.
 *   - FTZ: a result whose magnitude is below 2^-126 after rounding becomes a zero of its sign.
 *   - Round to nearest, ties to even. Overflow gives an infinity.
 *   - Any NaN result is the canonical NaN 0x7FC00000 (bf16: 0x7FC0).
 * Integer operations are exact or saturate as stated; nothing here depends on the host's
 * floating-point environment.
 */
#ifndef TSLM_ARITH_H
#define TSLM_ARITH_H

#include <stdint.h>

#define TSLM_F32_QNAN 0x7FC00000u
#define TSLM_BF16_QNAN 0x7FC0u

/* DAZ and NaN canonicalisation of one fp32 input. */
uint32_t tslm_f32_canon(uint32_t a);

/* a + b, fp32, RNE, DAZ/FTZ. */
uint32_t tslm_f32_add(uint32_t a, uint32_t b);

/* a * b, fp32, RNE, DAZ/FTZ. A product of two bf16 values is exact unless it over- or underflows. */
uint32_t tslm_f32_mul(uint32_t a, uint32_t b);

/* max(a, b): NaN if either is NaN; +0 is greater than -0. */
uint32_t tslm_f32_max(uint32_t a, uint32_t b);

/* min(a, b): NaN if either is NaN; -0 is less than +0. */
uint32_t tslm_f32_min(uint32_t a, uint32_t b);

/* The VPU functions (docs/isa.md "VPU functions"): EXP, RECIP and RSQRT in fixed-point arithmetic on
 * the constants and tables of tsl_hw.h (TSL_VPU_FN_*), ACT's GELU and SILU their composition with
 * tslm_f32_mul and tslm_f32_add steps. Inputs are DAZ'd; results follow the FTZ and canonical-NaN rules. */
/* e^a: +inf -> +inf, -inf -> +0, overflow -> +inf, a result below 2^-126 -> +0. */
uint32_t tslm_f32_exp(uint32_t a);
/* 1 / a: +-0 -> +-inf, +-inf -> +-0, a result below 2^-126 -> a zero of a's sign. */
uint32_t tslm_f32_recip(uint32_t a);
/* 1 / sqrt(a): +0 -> +inf, -0 -> -inf, a < 0 -> NaN, +inf -> +0. */
uint32_t tslm_f32_rsqrt(uint32_t a);
/* GELU's tanh form, a * RECIP(EXP(GELU_K2 * (a + GELU_C3 * a^3)) + 1), each operation one step. */
uint32_t tslm_f32_gelu(uint32_t a);
/* SiLU, a * RECIP(EXP(SILU_K * a) + 1), each operation one step. */
uint32_t tslm_f32_silu(uint32_t a);
/* 1 when VPU op `op` is one of the functions above: EXP, RECIP, RSQRT, ACT. */
int tslm_f32_is_fn(uint32_t op);
/* The VPU function `op` (tslm_f32_is_fn) of a; `act` is ACT's function (TSL_VPU_ACT_*), else 0. */
uint32_t tslm_f32_fn(uint32_t op, uint32_t act, uint32_t a);

/* fp32 -> bf16, RNE; DAZ on the input; NaN -> canonical; overflow -> infinity. */
uint16_t tslm_bf16_from_f32(uint32_t a);

/* bf16 -> fp32 (exact widening, then DAZ and NaN canonicalisation). */
uint32_t tslm_f32_from_bf16(uint16_t a);

/* Saturate a 64-bit value to int8 / int32. */
int8_t tslm_sat_i8(int64_t v);
int32_t tslm_sat_i32(int64_t v);

/* Arithmetic right shift by s (0..63), rounding ties towards +infinity: floor((v + 2^(s-1)) / 2^s).
 * Requires |v| <= 2^62 so that the rounding addend cannot overflow. */
int64_t tslm_round_shift(int64_t v, unsigned s);

/* REQUANT before saturation: round_shift((int64)x * scale, shift) + zero_point; shift <= 62. */
int64_t tslm_requant(int32_t x, int32_t scale, unsigned shift, int32_t zero_point);

/* Wrapping int32 addition and multiplication (two's complement, modulo 2^32). */
int32_t tslm_i32_add(int32_t a, int32_t b);
int32_t tslm_i32_mul(int32_t a, int32_t b);

#endif /* TSLM_ARITH_H */
