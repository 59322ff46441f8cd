// fp32 adder, the MXU's one floating-point add: y = a + b, bit-exact with tslm_f32_add.
// Combinational, no state. Rules (docs/isa.md): subnormal inputs read as zero (DAZ); results below
// 2^-126 after rounding become a zero of their sign (FTZ); round to nearest, ties to even; overflow
// gives infinity; any NaN result is the canonical 0x7FC00000; -0 + -0 = -0, exact cancellation +0.
// Single path: swap so |a| >= |b|, one right shift to align (sticky kept), one add, then a
// normalising shifter whose five stages are also the tree leading-zero count; no loops.
// The 24-bit significands carry 3 extra bits (guard, round, sticky), enough for correct RNE.
// The adder is the function tsl_mxu_fadd_pkg::fp32_add, so that tsl_mxu_pe, tsl_mxu_acc and
// tsl_vpu_lane can evaluate it only in cycles whose result is used (a Verilated module instance is
// evaluated every cycle); the module wraps it for its own test (make test-mxu-fadd). Package and
// module share this file so that every file list that names tsl_mxu_fadd.sv gets both, the package
// first.
/* verilator lint_off DECLFILENAME */
package tsl_mxu_fadd_pkg;
  function automatic logic [31:0] fp32_add(input logic [31:0] a, input logic [31:0] b);
    logic        a_zero, b_zero, a_inf, b_inf, a_nan, b_nan;
    logic        swap, eff_sub, sticky;
    logic [30:0] a_mag, b_mag;
    logic [31:0] op_big;
    logic [30:0] op_small;
    logic [7:0]  d;
    logic [4:0]  d_cap;
    logic [26:0] m_big, m_small;
    logic [53:0] shifted;
    logic [27:0] aligned, sum;
    logic [31:0] n0, n1, n2, n3, n4, n5;
    logic        lz16, lz8, lz4, lz2, lz1;
    logic [4:0]  lz;
    logic [24:0] mant_r;
    logic        rnd_up;
    logic [9:0]  e_res;
    logic [31:0] normal;

    // Unpack; DAZ: a zero exponent field is a zero, whatever its fraction.
    a_zero = a[30:23] == 8'd0;
    b_zero = b[30:23] == 8'd0;
    a_inf  = a[30:23] == 8'hFF && a[22:0] == 23'd0;
    b_inf  = b[30:23] == 8'hFF && b[22:0] == 23'd0;
    a_nan  = a[30:23] == 8'hFF && a[22:0] != 23'd0;
    b_nan  = b[30:23] == 8'hFF && b[22:0] != 23'd0;
    a_mag  = a_zero ? 31'd0 : a[30:0];
    b_mag  = b_zero ? 31'd0 : b[30:0];

    // Order by magnitude; the smaller operand is aligned to the larger one.
    swap     = b_mag > a_mag;
    op_big   = swap ? {b[31], b_mag} : {a[31], a_mag};
    op_small = swap ? a_mag : b_mag;
    eff_sub  = a[31] ^ b[31];
    d        = op_big[30:23] - op_small[30:23];
    d_cap    = d > 8'd31 ? 5'd31 : d[4:0];
    m_big    = {1'b1, op_big[22:0], 3'b000};
    m_small  = (op_small[30:23] == 8'd0) ? 27'd0 : {1'b1, op_small[22:0], 3'b000};
    shifted  = {m_small, 27'd0} >> d_cap;
    sticky   = shifted[26:0] != 27'd0;
    aligned  = {1'b0, shifted[53:28], shifted[27] | sticky};
    sum      = eff_sub ? {1'b0, m_big} - aligned : {1'b0, m_big} + aligned;

    // Normalising shifter: each stage tests the top bits and shifts; the tests form the count.
    n0    = {sum, 4'd0};
    lz16  = n0[31:16] == 16'd0;
    n1    = lz16 ? {n0[15:0], 16'd0} : n0;
    lz8   = n1[31:24] == 8'd0;
    n2    = lz8 ? {n1[23:0], 8'd0} : n1;
    lz4   = n2[31:28] == 4'd0;
    n3    = lz4 ? {n2[27:0], 4'd0} : n2;
    lz2   = n3[31:30] == 2'd0;
    n4    = lz2 ? {n3[29:0], 2'd0} : n3;
    lz1   = !n4[31];
    n5    = lz1 ? {n4[30:0], 1'b0} : n4;
    lz    = {lz16, lz8, lz4, lz2, lz1};

    // Round to 24 bits (n5[31:8]), guard n5[7], sticky n5[6:0] (its low bits are zero padding).
    rnd_up = n5[7] & ((n5[6:0] != 7'd0) | n5[8]);
    mant_r = {1'b0, n5[31:8]} + {24'd0, rnd_up};
    // Exponent of the msb: op_big exponent + 1 (sum has one carry bit) - lz, +1 on a rounding carry.
    e_res  = {2'b00, op_big[30:23]} + 10'd1 - {5'd0, lz} + {9'd0, mant_r[24]};
    if (sum == 28'd0) begin
      normal = 32'd0;                                 // exact cancellation is +0
    end else if (!e_res[9] && e_res >= 10'd255) begin
      normal = {op_big[31], 8'hFF, 23'd0};              // overflow
    end else if (e_res[9] || e_res == 10'd0) begin
      normal = {op_big[31], 31'd0};                     // FTZ
    end else begin
      normal = {op_big[31], e_res[7:0], mant_r[24] ? mant_r[23:1] : mant_r[22:0]};
    end

    // Special operands.
    if (a_nan || b_nan || (a_inf && b_inf && eff_sub)) begin
      fp32_add = 32'h7FC0_0000;
    end else if (a_inf) begin
      fp32_add = a;
    end else if (b_inf) begin
      fp32_add = b;
    end else if (a_zero && b_zero) begin
      fp32_add = {a[31] & b[31], 31'd0};
    end else begin
      fp32_add = normal;
    end
  endfunction

  // fp32_add for the array's cells: called, not inlined, by a Verilated model, so that the N^2
  // cells share one copy of its code instead of each carrying its own (256 copies at N = 16
  // outgrew the host's instruction cache: docs/performance.md, "Simulator speed"). The hardware is
  // the same adder either way.
  function automatic logic [31:0] fp32_add_cell(input logic [31:0] a, input logic [31:0] b);
    /* verilator no_inline_task */
    fp32_add_cell = fp32_add(a, b);
  endfunction

  // The array cell's bf16 x bf16 -> fp32 (tsl_mxu_pe), exact except overflow (Inf) and underflow
  // (FTZ), as tslm_f32_mul; the product of the 8-bit significands (hidden bit set, < 2^16) comes
  // from the cell's shared multiplier. Out of line, as fp32_add_cell.
  function automatic logic [31:0] bf16_mul(input logic [15:0] x, input logic [15:0] w,
                                           input logic [15:0] sig);
    /* verilator no_inline_task */
    logic       x_zero, w_zero, x_inf, w_inf, x_nan, w_nan;
    logic [9:0] e_p;
    x_zero = x[14:7] == 8'd0;
    w_zero = w[14:7] == 8'd0;
    x_inf  = x[14:7] == 8'hFF && x[6:0] == 7'd0;
    w_inf  = w[14:7] == 8'hFF && w[6:0] == 7'd0;
    x_nan  = x[14:7] == 8'hFF && x[6:0] != 7'd0;
    w_nan  = w[14:7] == 8'hFF && w[6:0] != 7'd0;
    e_p    = {2'b00, x[14:7]} + {2'b00, w[14:7]} - 10'd127 + {9'd0, sig[15]};
    if (x_nan || w_nan || (x_inf && w_zero) || (x_zero && w_inf)) begin
      bf16_mul = 32'h7FC0_0000;
    end else if (x_inf || w_inf || (!e_p[9] && e_p >= 10'd255)) begin
      bf16_mul = {x[15] ^ w[15], 8'hFF, 23'd0};
    end else if (x_zero || w_zero || e_p[9] || e_p == 10'd0) begin
      bf16_mul = {x[15] ^ w[15], 31'd0};
    end else begin
      bf16_mul = {x[15] ^ w[15], e_p[7:0], sig[15] ? {sig[14:0], 8'd0} : {sig[13:0], 9'd0}};
    end
  endfunction

endpackage
/* verilator lint_on DECLFILENAME */

module tsl_mxu_fadd (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] y_o
);
  assign y_o = tsl_mxu_fadd_pkg::fp32_add(a_i, b_i);
endmodule
