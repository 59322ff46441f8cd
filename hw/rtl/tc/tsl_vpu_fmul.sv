// fp32 multiplier of a VPU lane: y = a * b, bit-exact with tslm_f32_mul.
// Combinational, no state. Rules (docs/isa.md): subnormal inputs read as zero (DAZ); results below
// 2^-126 after rounding become a zero of their sign (FTZ); round to nearest, ties to even; overflow
// gives infinity; any NaN result (a NaN input, 0 * inf) is the canonical 0x7FC00000; a zero or
// infinite result has the XOR of the signs.
// One 24x24 significand product (msb at bit 47 or 46), one increment for the rounding; no loops.
module tsl_vpu_fmul (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] y_o
);
  localparam logic [31:0] QNAN = 32'h7FC0_0000;

  logic        sign, a_zero, b_zero, a_inf, b_inf, a_nan, b_nan;
  logic [47:0] prod;
  logic [23:0] mant;
  logic        guard, sticky, rnd_up;
  logic [24:0] mant_r;
  logic [9:0]  e_res;   // signed: biased exponent of the rounded result
  logic [31:0] normal;

  always_comb begin
    sign   = a_i[31] ^ b_i[31];
    a_zero = a_i[30:23] == 8'd0;
    b_zero = b_i[30:23] == 8'd0;
    a_inf  = a_i[30:23] == 8'hFF && a_i[22:0] == 23'd0;
    b_inf  = b_i[30:23] == 8'hFF && b_i[22:0] == 23'd0;
    a_nan  = a_i[30:23] == 8'hFF && a_i[22:0] != 23'd0;
    b_nan  = b_i[30:23] == 8'hFF && b_i[22:0] != 23'd0;

    // Significands with the hidden bit; the product of two [1, 2) values is in [1, 4).
    prod = {24'd0, 1'b1, a_i[22:0]} * {24'd0, 1'b1, b_i[22:0]};
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
    e_res  = {2'b00, a_i[30:23]} + {2'b00, b_i[30:23]} - 10'd127 + {9'd0, prod[47]} +
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
      y_o = QNAN;
    end else if (a_inf || b_inf) begin
      y_o = {sign, 8'hFF, 23'd0};
    end else if (a_zero || b_zero) begin
      y_o = {sign, 31'd0};
    end else begin
      y_o = normal;
    end
  end
endmodule
