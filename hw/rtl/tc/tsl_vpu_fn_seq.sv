// Step program of the VPU functions EXP, RECIP, RSQRT and GELU (docs/isa.md "VPU functions"), one
// for all lanes. In each step every lane computes one fp32 multiply or add (mul_o) of the operands
// that a_sel_o and b_sel_o pick (OPD_*; c_o is the constant) and writes the result to its register
// dst_o (DST_*) in tsl_vpu_fn, exactly as tslm_f32_exp/recip/rsqrt/gelu order their steps. GELU is
// a composition: u = K2 (x^3 C3 + x) into register U, EXP's steps on U, U = EXP(U) + 1, RECIP's
// steps on U, then x * RECIP(U); fn_o names the function whose seed, operand X and result
// (OPD_RES) a step uses, u_o whether that function's input is U rather than x. Steps run in order
// while run_i is high, from step 0 (EXP 19 steps, RECIP 8, RSQRT 10, GELU 34). With pair_i two
// rows run at once, each in a register set of its own: in a cycle each set runs its next step, one
// on the lanes' fmul and one on their fadd, so a pair takes about 1.2 times one row's steps (GELU
// 42 cycles for two rows, EXP 23, RECIP 9, RSQRT 13) where one after the other takes 2.
// Package and module share this file, the package first, as tsl_vpu_fmul.sv does.
/* verilator lint_off DECLFILENAME */
package tsl_vpu_fn_pkg;
  // Operands of a step
  localparam logic [3:0] OPD_X     = 4'd0;  // the function's input (x or U); RECIP: its mantissa m in [1, 2); RSQRT: h = m'/2
  localparam logic [3:0] OPD_P     = 4'd1;  // register P
  localparam logic [3:0] OPD_K     = 4'd2;  // register K
  localparam logic [3:0] OPD_R     = 4'd3;  // register R
  localparam logic [3:0] OPD_NEG_P = 4'd4;  // -P
  localparam logic [3:0] OPD_SEED  = 4'd5;  // the seed of RECIP / RSQRT
  localparam logic [3:0] OPD_CONST = 4'd6;  // c_o
  localparam logic [3:0] OPD_XIN   = 4'd7;  // the source element x itself
  localparam logic [3:0] OPD_RES   = 4'd8;  // the result of the function fn_o (after its last step)
  // Destination register of a step
  localparam logic [1:0] DST_P = 2'd0;
  localparam logic [1:0] DST_K = 2'd1;
  localparam logic [1:0] DST_R = 2'd2;
  localparam logic [1:0] DST_U = 2'd3;
  // FP32 constants of the steps besides tsl_pkg's VPU_FN_*
  localparam logic [31:0] ONE  = 32'h3F80_0000;
  localparam logic [31:0] HALF = 32'h3F00_0000;
  localparam logic [31:0] NEG  = 32'h8000_0000;   // XOR: the negated constant

  function automatic logic [42:0] st(input logic mul, input logic [3:0] a, input logic [3:0] b,
                                     input logic [1:0] dst, input logic [31:0] c);
    st = {mul, a, b, dst, c};
  endfunction

  // Step `step` of EXP (19 steps) on its input X.
  function automatic logic [42:0] exp_step(input logic [4:0] step);
    case (step)
      // k = round(x log2 e) by the shifter; r = x - k LN2_HI - k LN2_LO
      5'd0:  exp_step = st(1'b1, OPD_X, OPD_CONST, DST_P, tsl_pkg::VPU_FN_LOG2E);
      5'd1:  exp_step = st(1'b0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_SHIFTER);
      5'd2:  exp_step = st(1'b0, OPD_P, OPD_CONST, DST_K, tsl_pkg::VPU_FN_SHIFTER ^ NEG);
      5'd3:  exp_step = st(1'b1, OPD_K, OPD_CONST, DST_P, tsl_pkg::VPU_FN_LN2_HI ^ NEG);
      5'd4:  exp_step = st(1'b0, OPD_X, OPD_P, DST_R, 32'd0);
      5'd5:  exp_step = st(1'b1, OPD_K, OPD_CONST, DST_P, tsl_pkg::VPU_FN_LN2_LO ^ NEG);
      5'd6:  exp_step = st(1'b0, OPD_R, OPD_P, DST_R, 32'd0);
      // p = C2 + C3 r + ... + C6 r^4 by Horner
      5'd7:  exp_step = st(1'b1, OPD_R, OPD_CONST, DST_P, tsl_pkg::VPU_FN_EXP_C6);
      5'd8:  exp_step = st(1'b0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_EXP_C5);
      5'd9:  exp_step = st(1'b1, OPD_P, OPD_R, DST_P, 32'd0);
      5'd10: exp_step = st(1'b0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_EXP_C4);
      5'd11: exp_step = st(1'b1, OPD_P, OPD_R, DST_P, 32'd0);
      5'd12: exp_step = st(1'b0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_EXP_C3);
      5'd13: exp_step = st(1'b1, OPD_P, OPD_R, DST_P, 32'd0);
      5'd14: exp_step = st(1'b0, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_EXP_C2);
      // y = 1 + (r + p r^2)
      5'd15: exp_step = st(1'b1, OPD_R, OPD_R, DST_K, 32'd0);
      5'd16: exp_step = st(1'b1, OPD_P, OPD_K, DST_P, 32'd0);
      5'd17: exp_step = st(1'b0, OPD_P, OPD_R, DST_P, 32'd0);
      default: exp_step = st(1'b0, OPD_P, OPD_CONST, DST_P, ONE);
    endcase
  endfunction

  // Step `step` of RECIP (8 steps): two Newton-Raphson steps y += y (1 - m y) from the seed; y in R.
  function automatic logic [42:0] recip_step(input logic [2:0] step);
    case (step)
      3'd0:    recip_step = st(1'b1, OPD_X, OPD_SEED, DST_P, 32'd0);
      3'd1:    recip_step = st(1'b0, OPD_NEG_P, OPD_CONST, DST_P, ONE);
      3'd2:    recip_step = st(1'b1, OPD_SEED, OPD_P, DST_P, 32'd0);
      3'd3:    recip_step = st(1'b0, OPD_SEED, OPD_P, DST_R, 32'd0);
      3'd4:    recip_step = st(1'b1, OPD_X, OPD_R, DST_P, 32'd0);
      3'd5:    recip_step = st(1'b0, OPD_NEG_P, OPD_CONST, DST_P, ONE);
      3'd6:    recip_step = st(1'b1, OPD_R, OPD_P, DST_P, 32'd0);
      default: recip_step = st(1'b0, OPD_R, OPD_P, DST_R, 32'd0);
    endcase
  endfunction

  // Step `step` of RSQRT (10 steps): two Newton-Raphson steps y += y (1/2 - h y^2) from the seed;
  // y in R.
  function automatic logic [42:0] rsqrt_step(input logic [3:0] step);
    case (step)
      4'd0:    rsqrt_step = st(1'b1, OPD_SEED, OPD_SEED, DST_P, 32'd0);
      4'd1:    rsqrt_step = st(1'b1, OPD_P, OPD_X, DST_P, 32'd0);
      4'd2:    rsqrt_step = st(1'b0, OPD_NEG_P, OPD_CONST, DST_P, HALF);
      4'd3:    rsqrt_step = st(1'b1, OPD_SEED, OPD_P, DST_P, 32'd0);
      4'd4:    rsqrt_step = st(1'b0, OPD_SEED, OPD_P, DST_R, 32'd0);
      4'd5:    rsqrt_step = st(1'b1, OPD_R, OPD_R, DST_P, 32'd0);
      4'd6:    rsqrt_step = st(1'b1, OPD_P, OPD_X, DST_P, 32'd0);
      4'd7:    rsqrt_step = st(1'b0, OPD_NEG_P, OPD_CONST, DST_P, HALF);
      4'd8:    rsqrt_step = st(1'b1, OPD_R, OPD_P, DST_P, 32'd0);
      default: rsqrt_step = st(1'b0, OPD_R, OPD_P, DST_R, 32'd0);
    endcase
  endfunction

  // Step `step` of op `op`: {last step, k latch, input U, function, mul, a, b, dst, c} (see
  // tsl_vpu_fn_seq's ports).
  function automatic logic [49:0] program_step(input logic [3:0] op, input logic [5:0] step);
    logic [42:0] s;
    logic [3:0]  f;
    logic        last, kw, u;
    f    = op;
    u    = 1'b0;
    kw   = 1'b0;
    last = 1'b0;
    case (op)
      tsl_pkg::VPU_OP_EXP: begin
        s    = exp_step(step[4:0]);
        kw   = step == 6'd1;
        last = step == 6'd18;
      end
      tsl_pkg::VPU_OP_RECIP: begin
        s    = recip_step(step[2:0]);
        last = step == 6'd7;
      end
      tsl_pkg::VPU_OP_RSQRT: begin
        s    = rsqrt_step(step[3:0]);
        last = step == 6'd9;
      end
      default: begin   // GELU: x * RECIP(EXP(u) + 1), u = K2 (x^3 C3 + x)
        f = tsl_pkg::VPU_OP_EXP;
        u = step >= 6'd5;
        case (step)
          6'd0:  s = st(1'b1, OPD_X, OPD_X, DST_P, 32'd0);
          6'd1:  s = st(1'b1, OPD_P, OPD_X, DST_P, 32'd0);
          6'd2:  s = st(1'b1, OPD_P, OPD_CONST, DST_P, tsl_pkg::VPU_FN_GELU_C3);
          6'd3:  s = st(1'b0, OPD_P, OPD_X, DST_P, 32'd0);
          6'd4:  s = st(1'b1, OPD_P, OPD_CONST, DST_U, tsl_pkg::VPU_FN_GELU_K2);
          6'd24: s = st(1'b0, OPD_RES, OPD_CONST, DST_U, ONE);
          6'd33: s = st(1'b1, OPD_XIN, OPD_RES, DST_P, 32'd0);
          default: s = step < 6'd24 ? exp_step(5'(step - 6'd5)) : recip_step(3'(step - 6'd25));
        endcase
        if (step > 6'd24) f = tsl_pkg::VPU_OP_RECIP;
        kw   = step == 6'd6;
        last = step == 6'd33;
      end
    endcase
    program_step = {last, kw, u, f, s};
  endfunction
endpackage
/* verilator lint_on DECLFILENAME */

module tsl_vpu_fn_seq (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        run_i,    // the program runs in this cycle (from step 0 in the first cycle of a run)
  input  logic        pair_i,   // set 1 runs a second row beside set 0 (held during a run)
  input  logic [3:0]  op_i,     // vpu_op_e: EXP, RECIP, RSQRT or GELU (held during a run)
  // Per register set k (bits of set k at [k], [4k +: 4], ...):
  output logic [1:0]  go_o,     // set k runs a step in this cycle
  output logic [1:0]  mul_o,    // 1: its step is an fmul, 0: an fadd
  output logic [7:0]  a_sel_o,  // OPD_*
  output logic [7:0]  b_sel_o,  // OPD_*
  output logic [3:0]  dst_o,    // DST_*
  output logic [1:0]  k_we_o,   // EXP: the result holds k (x log2 e + SHIFTER): latch it
  output logic [7:0]  fn_o,     // the function of its step: EXP, RECIP or RSQRT (op_i's own after a run)
  output logic [1:0]  u_o,      // that function's input is register U (GELU), not x
  output logic [63:0] c_o,      // the step's FP32 constant (OPD_CONST)
  output logic        last_o    // every row's last step has run by the end of this cycle
);

  logic [5:0] step_q [2];
  logic [1:0] done_q, last, kw, go, fin;
  logic       clash;

  always_comb begin
    for (int k = 0; k < 2; k++) begin
      {last[k], kw[k], u_o[k], fn_o[4*k +: 4], mul_o[k], a_sel_o[4*k +: 4], b_sel_o[4*k +: 4], dst_o[2*k +: 2],
       c_o[32*k +: 32]} = tsl_vpu_fn_pkg::program_step(op_i, step_q[k]);
    end
    // Set 0 and set 1 share the lanes' fmul and fadd: when both want the same one, the set whose
    // row is behind (set 0 on a tie) takes it.
    clash = pair_i && done_q == 2'b00 && mul_o[0] == mul_o[1];
    go[0] = run_i && !done_q[0] && !(clash && step_q[0] > step_q[1]);
    go[1] = run_i && pair_i && !done_q[1] && !(clash && step_q[0] <= step_q[1]);
    fin    = done_q | (go & last) | {!pair_i, 1'b0};
    last_o = run_i && fin == 2'b11;
    go_o   = go;
    k_we_o = go & kw;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      step_q[0] <= '0;
      step_q[1] <= '0;
      done_q    <= '0;
    end else begin
      for (int k = 0; k < 2; k++) begin
        step_q[k] <= run_i ? step_q[k] + {5'd0, go[k]} : 6'd0;
      end
      done_q <= run_i ? done_q | (go & last) : 2'b00;
    end
  end

  // Assertions
  `include "hw/rtl/tsl_assert.svh"
  `TSL_ASSERT(FnOp, run_i |-> op_i == tsl_pkg::VPU_OP_EXP || op_i == tsl_pkg::VPU_OP_RECIP ||
                             op_i == tsl_pkg::VPU_OP_RSQRT || op_i == tsl_pkg::VPU_OP_GELU,
              "the step program runs the VPU functions only")
  `TSL_ASSERT(FnOneUnitEach, go == 2'b11 |-> mul_o[0] != mul_o[1], "the two sets never take the same unit")
endmodule
