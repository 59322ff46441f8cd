// Step program of the VPU functions EXP, RECIP and RSQRT (docs/isa.md "VPU functions"), one for
// all lanes. In each step every lane computes one fp32 multiply or add (mul_o) of the operands that
// a_sel_o and b_sel_o pick (OPD_*; c_o is the constant) and writes the result to its register
// dst_o (DST_*) in tsl_vpu_fn, exactly as tslm_f32_exp/recip/rsqrt order their steps. Steps run one
// a cycle while run_i is high, from step 0; last_o marks the last (EXP 19 steps, RECIP 8, RSQRT 10).
// The outputs decode a registered step counter; no combinational path from run_i. Package and
// module share this file, the package first, as tsl_vpu_fmul.sv does.
/* verilator lint_off DECLFILENAME */
package tsl_vpu_fn_pkg;
  // Operands of a step
  localparam logic [2:0] OPD_X     = 3'd0;  // EXP: x; RECIP: its mantissa m in [1, 2); RSQRT: h = m'/2
  localparam logic [2:0] OPD_P     = 3'd1;  // register P
  localparam logic [2:0] OPD_K     = 3'd2;  // register K
  localparam logic [2:0] OPD_R     = 3'd3;  // register R
  localparam logic [2:0] OPD_NEG_P = 3'd4;  // -P
  localparam logic [2:0] OPD_SEED  = 3'd5;  // the seed of RECIP / RSQRT
  localparam logic [2:0] OPD_CONST = 3'd6;  // c_o
  // Destination register of a step
  localparam logic [1:0] DST_P = 2'd0;
  localparam logic [1:0] DST_K = 2'd1;
  localparam logic [1:0] DST_R = 2'd2;
  // FP32 constants of the steps besides tsl_pkg's VPU_FN_*
  localparam logic [31:0] ONE  = 32'h3F80_0000;
  localparam logic [31:0] HALF = 32'h3F00_0000;
  localparam logic [31:0] NEG  = 32'h8000_0000;   // XOR: the negated constant

  function automatic logic [40:0] st(input logic mul, input logic [2:0] a, input logic [2:0] b,
                                     input logic [1:0] dst, input logic [31:0] c);
    st = {mul, a, b, dst, c};
  endfunction

  // Step `step` of op `op`: {last step, mul, a, b, dst, c} (see tsl_vpu_fn_seq's ports).
  function automatic logic [41:0] program_step(input logic [3:0] op, input logic [4:0] step);
    logic [40:0] s;
    logic        last;
    s    = st(1'b0, OPD_P, OPD_P, DST_P, 32'd0);
    last = 1'b0;
    case (op)
      tsl_pkg::VPU_OP_EXP: begin
        last = step == 5'd18;
        case (step)
          // k = round(x log2 e) by the shifter; r = x - k LN2_HI - k LN2_LO
          5'd0:  s = st(1'b1, OPD_X, OPD_CONST, DST_P, tsl_pkg::VPU_FN_LOG2E);
          5'd1:  s = st(1'b0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_SHIFTER);
          5'd2:  s = st(1'b0, OPD_P, OPD_CONST, DST_K, tsl_pkg::VPU_FN_SHIFTER ^ NEG);
          5'd3:  s = st(1'b1, OPD_K, OPD_CONST, DST_P, tsl_pkg::VPU_FN_LN2_HI ^ NEG);
          5'd4:  s = st(1'b0, OPD_X, OPD_P, DST_R, 32'd0);
          5'd5:  s = st(1'b1, OPD_K, OPD_CONST, DST_P, tsl_pkg::VPU_FN_LN2_LO ^ NEG);
          5'd6:  s = st(1'b0, OPD_R, OPD_P, DST_R, 32'd0);
          // p = C2 + C3 r + ... + C6 r^4 by Horner
          5'd7:  s = st(1'b1, OPD_R, OPD_CONST, DST_P, tsl_pkg::VPU_FN_EXP_C6);
          5'd8:  s = st(1'b0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_EXP_C5);
          5'd9:  s = st(1'b1, OPD_P, OPD_R, DST_P, 32'd0);
          5'd10: s = st(1'b0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_EXP_C4);
          5'd11: s = st(1'b1, OPD_P, OPD_R, DST_P, 32'd0);
          5'd12: s = st(1'b0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_EXP_C3);
          5'd13: s = st(1'b1, OPD_P, OPD_R, DST_P, 32'd0);
          5'd14: s = st(1'b0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_EXP_C2);
          // y = 1 + (r + p r^2)
          5'd15: s = st(1'b1, OPD_R, OPD_R, DST_K, 32'd0);
          5'd16: s = st(1'b1, OPD_P, OPD_K, DST_P, 32'd0);
          5'd17: s = st(1'b0, OPD_P, OPD_R, DST_P, 32'd0);
          default: s = st(1'b0, OPD_P, OPD_CONST, DST_P, ONE);
        endcase
      end
      tsl_pkg::VPU_OP_RECIP: begin
        // Two Newton-Raphson steps y += y (1 - m y) from the seed; y in R
        last = step == 5'd7;
        case (step)
          5'd0:    s = st(1'b1, OPD_X, OPD_SEED, DST_P, 32'd0);
          5'd1:    s = st(1'b0, OPD_NEG_P, OPD_CONST, DST_P, ONE);
          5'd2:    s = st(1'b1, OPD_SEED, OPD_P, DST_P, 32'd0);
          5'd3:    s = st(1'b0, OPD_SEED, OPD_P, DST_R, 32'd0);
          5'd4:    s = st(1'b1, OPD_X, OPD_R, DST_P, 32'd0);
          5'd5:    s = st(1'b0, OPD_NEG_P, OPD_CONST, DST_P, ONE);
          5'd6:    s = st(1'b1, OPD_R, OPD_P, DST_P, 32'd0);
          default: s = st(1'b0, OPD_R, OPD_P, DST_R, 32'd0);
        endcase
      end
      default: begin
        // RSQRT: two Newton-Raphson steps y += y (1/2 - h y^2) from the seed; y in R
        last = step == 5'd9;
        case (step)
          5'd0:    s = st(1'b1, OPD_SEED, OPD_SEED, DST_P, 32'd0);
          5'd1:    s = st(1'b1, OPD_P, OPD_X, DST_P, 32'd0);
          5'd2:    s = st(1'b0, OPD_NEG_P, OPD_CONST, DST_P, HALF);
          5'd3:    s = st(1'b1, OPD_SEED, OPD_P, DST_P, 32'd0);
          5'd4:    s = st(1'b0, OPD_SEED, OPD_P, DST_R, 32'd0);
          5'd5:    s = st(1'b1, OPD_R, OPD_R, DST_P, 32'd0);
          5'd6:    s = st(1'b1, OPD_P, OPD_X, DST_P, 32'd0);
          5'd7:    s = st(1'b0, OPD_NEG_P, OPD_CONST, DST_P, HALF);
          5'd8:    s = st(1'b1, OPD_R, OPD_P, DST_P, 32'd0);
          default: s = st(1'b0, OPD_R, OPD_P, DST_R, 32'd0);
        endcase
      end
    endcase
    program_step = {last, s};
  endfunction
endpackage
/* verilator lint_on DECLFILENAME */

module tsl_vpu_fn_seq (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        run_i,    // a step runs in this cycle (step 0 in the first cycle of a run)
  input  logic [3:0]  op_i,     // vpu_op_e: EXP, RECIP or RSQRT (held during a run)
  output logic        mul_o,    // 1: fmul, 0: fadd
  output logic [2:0]  a_sel_o,  // OPD_*
  output logic [2:0]  b_sel_o,  // OPD_*
  output logic [1:0]  dst_o,    // DST_*
  output logic        k_we_o,   // EXP: the result holds k (x log2 e + SHIFTER): latch it
  output logic [31:0] c_o,      // the step's FP32 constant (OPD_CONST)
  output logic        last_o    // this is the op's last step
);

  logic [4:0] step_q, step_d;

  always_comb begin
    step_d = run_i ? step_q + 5'd1 : 5'd0;
    {last_o, mul_o, a_sel_o, b_sel_o, dst_o, c_o} = tsl_vpu_fn_pkg::program_step(op_i, step_q);
    last_o = run_i && last_o;
    k_we_o = run_i && op_i == tsl_pkg::VPU_OP_EXP && step_q == 5'd1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      step_q <= '0;
    end else begin
      step_q <= step_d;
    end
  end

  // Assertions
  `include "hw/rtl/tsl_assert.svh"
  `TSL_ASSERT(FnOp, run_i |-> op_i == tsl_pkg::VPU_OP_EXP || op_i == tsl_pkg::VPU_OP_RECIP ||
                             op_i == tsl_pkg::VPU_OP_RSQRT, "the step program runs EXP, RECIP or RSQRT only")
endmodule
