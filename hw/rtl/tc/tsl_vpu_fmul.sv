// fp32 multiplier of a VPU lane: y = a * b, bit-exact with tslm_f32_mul.
// Combinational, no state. Rules (docs/isa.md): subnormal inputs read as zero (DAZ); results below
// 2^-126 after rounding become a zero of their sign (FTZ); round to nearest, ties to even; overflow
// gives infinity; any NaN result (a NaN input, 0 * inf) is the canonical 0x7FC00000; a zero or
// infinite result has the XOR of the signs.
// One 24x24 significand product (msb at bit 47 or 46), one increment for the rounding; no loops.
// The multiplier is the function tsl_vpu_fmul_pkg::fp32_mul, so that tsl_vpu_lane can evaluate it
// only in cycles whose result is used (a Verilated module instance is evaluated every cycle); the
// module wraps it for its own test (make test-vpu-fmul). Package and module share this file, the
// package first, as tsl_mxu_fadd.sv does.
/* verilator lint_off DECLFILENAME */
package tsl_vpu_fmul_pkg;
  function automatic logic [31:0] fp32_mul(input logic [31:0] a, input logic [31:0] b);
    logic        sign, a_zero, b_zero, a_inf, b_inf, a_nan, b_nan;
    logic [47:0] prod;
    logic [23:0] mant;
    logic        guard, sticky, rnd_up;
    logic [24:0] mant_r;
    logic [9:0]  e_res;   // signed: biased exponent of the rounded result
    logic [31:0] normal;

    sign   = a[31] ^ b[31];
    a_zero = a[30:23] == 8'd0;
    b_zero = b[30:23] == 8'd0;
    a_inf  = a[30:23] == 8'hFF && a[22:0] == 23'd0;
    b_inf  = b[30:23] == 8'hFF && b[22:0] == 23'd0;
    a_nan  = a[30:23] == 8'hFF && a[22:0] != 23'd0;
    b_nan  = b[30:23] == 8'hFF && b[22:0] != 23'd0;

    // Significands with the hidden bit; the product of two [1, 2) values is in [1, 4).
    prod = {24'd0, 1'b1, a[22:0]} * {24'd0, 1'b1, b[22:0]};
    if (prod[47]) begin
      mant   = prod[47:24];
      guard  = prod[23];
      sticky = prod[22:0] != 23'd0;
    end else begin
      mant   = prod[46:23];
      guard  = prod[22];
      sticky = prod[21:0] != 22'd0;
    end
    rnd_up = guard & (sticky | mant[0]);
    mant_r = {1'b0, mant} + {24'd0, rnd_up};
    // ea + eb - 127, +1 when the product is >= 2, +1 when rounding carries to the next binade.
    e_res  = {2'b00, a[30:23]} + {2'b00, b[30:23]} - 10'd127 + {9'd0, prod[47]} +
             {9'd0, mant_r[24]};
    if (!e_res[9] && e_res >= 10'd255) begin
      normal = {sign, 8'hFF, 23'd0};                  // overflow
    end else if (e_res[9] || e_res == 10'd0) begin
      normal = {sign, 31'd0};                         // FTZ
    end else begin
      // On a rounding carry the significand is exactly 2.0 (renormalised by one bit).
      normal = {sign, e_res[7:0], mant_r[24] ? mant_r[23:1] : mant_r[22:0]};
    end

    if (a_nan || b_nan || (a_inf && b_zero) || (a_zero && b_inf)) begin
      fp32_mul = 32'h7FC0_0000;
    end else if (a_inf || b_inf) begin
      fp32_mul = {sign, 8'hFF, 23'd0};
    end else if (a_zero || b_zero) begin
      fp32_mul = {sign, 31'd0};
    end else begin
      fp32_mul = normal;
    end
  endfunction
endpackage
/* verilator lint_on DECLFILENAME */

module tsl_vpu_fmul (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] y_o
);
  assign y_o = tsl_vpu_fmul_pkg::fp32_mul(a_i, b_i);
endmodule
