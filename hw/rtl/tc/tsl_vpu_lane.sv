// One VPU lane: the 32-bit operation of docs/isa.md on two widened operands, exactly as
// hw/model/tslm.c computes it. Combinational, no state.
// Integer class: ADD (wrapping), MUL (low 32 bits), MAX and MIN (signed), MOV, REQUANT
// (sat32(round_shift(a * SCALE, SHIFT) + ZERO_POINT), with an exact 64-bit product).
// Float class: ADD (tsl_mxu_fadd), MUL (tsl_vpu_fmul), MAX and MIN (NaN wins, -0 < +0), MOV.
// EPI (the fused epilogue's steps after FSCALE, which tsl_vpu runs as a MUL the cycle before):
// x = a; x = x + b (BIAS: integer or fadd); x = max(x, 0) (RELU: for a canonical float and for
// an int32 this is "negative or -0 -> +0"); then REQUANT (rq_i, integer) on x, else x.
// tsl_vpu maps RELU to MAX with b = 0 and the reductions to ADD / MAX on lane pairs. For the steps
// of the VPU functions (fn_i, tsl_vpu_fn) the lane runs its fmul and its fadd at once: y_o =
// fmul(a_i, b_i) and fs_o = fadd(fa_i, fb_i), steps of two of the rows run at once. Float
// operands must already be canonical (DAZ'd, canonical NaN), as the widening makes them.
// One 32x32->64 multiplier serves integer MUL and REQUANT; one fp32 multiplier serves float MUL;
// one fp32 adder serves ADD, EPI's bias and the functions' add steps.
// y_o is 0 while en_i is low: the lane is then not evaluated in simulation (Verilator evaluates
// an always_comb every cycle, the float functions only under the if that calls them).
module tsl_vpu_lane #(
  parameter bit EnableBf16 = 1'b1  // 1: float class built in; 0: integer class only (no float logic)
) (
  input  logic             en_i,     // the result is used in this cycle (else y_o is 0)
  input  logic [3:0]       op_i,     // vpu_op_e: ADD, MUL, MAX, MIN, MOV, REQUANT or EPI (others act as MOV)
  input  logic             float_i,  // 1: float class (ignored when EnableBf16 = 0)
  input  logic [31:0]      a_i,
  input  logic [31:0]      b_i,
  input  logic [31:0]      scale_i,  // REQUANT multiplier (signed)
  input  logic [5:0]       shift_i,  // REQUANT right shift, 0..62
  input  logic [31:0]      zp_i,     // REQUANT zero point (signed)
  input  logic             bias_i,   // EPI: add b
  input  logic             relu_i,   // EPI: then max(x, 0)
  input  logic             rq_i,     // EPI, integer: then REQUANT (an INT8 dst)
  input  logic             fn_i,     // a function's steps (float): y_o = fmul(a, b), fs_o = fadd(fa, fb)
  input  logic [31:0]      fa_i,
  input  logic [31:0]      fb_i,
  output logic [31:0]      y_o,
  output logic [31:0]      fs_o      // the fadd's result under fn_i, else 0
);
  localparam logic [31:0] QNAN = 32'h7FC0_0000;

  logic [31:0] mul_a, mul_b, key_a, key_b, e_x, add_a, add_b, sum;
  logic [63:0] prod, half, shifted, biased;
  logic [31:0] sat32;
  logic        epi, requant;

  always_comb begin
    mul_a   = '0;
    mul_b   = '0;
    prod    = '0;
    half    = '0;
    shifted = '0;
    biased  = '0;
    key_a   = '0;
    key_b   = '0;
    e_x     = '0;
    sat32   = '0;
    y_o     = '0;
    fs_o    = '0;
    add_a   = '0;
    add_b   = '0;
    sum     = '0;
    epi     = op_i == tsl_pkg::VPU_OP_EPI;
    requant = op_i == tsl_pkg::VPU_OP_REQUANT || (epi && rq_i);
    if (en_i && EnableBf16 && float_i) begin
      // Sign-magnitude to an order-preserving unsigned key (-0 sorts just below +0).
      key_a = a_i[31] ? ~a_i : {1'b1, a_i[30:0]};
      key_b = b_i[31] ? ~b_i : {1'b1, b_i[30:0]};
      // The one fadd: ADD, EPI's bias, a function's add step.
      add_a = fn_i ? fa_i : a_i;
      add_b = fn_i ? fb_i : b_i;
      if (fn_i || op_i == tsl_pkg::VPU_OP_ADD || (op_i == tsl_pkg::VPU_OP_EPI && bias_i)) begin
        sum = tsl_mxu_fadd_pkg::fp32_add(add_a, add_b);
      end
      fs_o = fn_i ? sum : 32'd0;
      case (op_i)
        tsl_pkg::VPU_OP_ADD: y_o = sum;
        tsl_pkg::VPU_OP_MUL: y_o = tsl_vpu_fmul_pkg::fp32_mul(a_i, b_i);
        tsl_pkg::VPU_OP_MAX: begin
          if (a_i == QNAN || b_i == QNAN) begin
            y_o = QNAN;
          end else begin
            y_o = (key_a >= key_b) ? a_i : b_i;
          end
        end
        tsl_pkg::VPU_OP_MIN: begin
          if (a_i == QNAN || b_i == QNAN) begin
            y_o = QNAN;
          end else begin
            y_o = (key_a <= key_b) ? a_i : b_i;
          end
        end
        tsl_pkg::VPU_OP_EPI: begin
          // fadd(a, b), then MAX(x, +0): +0 for a negative value or -0 (canonical NaN stays).
          y_o = bias_i ? sum : a_i;
          if (relu_i && y_o[31]) y_o = 32'd0;
        end
        default: y_o = a_i;
      endcase
    end else if (en_i) begin
      // EPI, integer: the wrapping bias add, then RELU (a negative value becomes 0).
      e_x = bias_i ? a_i + b_i : a_i;
      if (relu_i && e_x[31]) e_x = 32'd0;
      // Shared signed 32x32 -> 64 multiplier: a * b for MUL (low half), x * SCALE for REQUANT.
      mul_a   = epi ? e_x : a_i;
      mul_b   = requant ? scale_i : b_i;
      prod    = $signed(mul_a) * $signed(mul_b);   // both sign-extended to the 64-bit context
      // round_shift: floor((v + 2^(s-1)) / 2^s); |v| <= 2^62, so the sum cannot overflow.
      half    = (shift_i == 6'd0) ? 64'd0 : (64'd1 << (shift_i - 6'd1));
      shifted = $unsigned($signed(prod + half) >>> shift_i);
      biased  = shifted + {{32{zp_i[31]}}, zp_i};
      if (biased[63:31] == {33{1'b0}} || biased[63:31] == {33{1'b1}}) begin
        sat32 = biased[31:0];
      end else begin
        sat32 = biased[63] ? 32'h8000_0000 : 32'h7FFF_FFFF;   // saturate to int32
      end
      case (op_i)
        tsl_pkg::VPU_OP_ADD:     y_o = a_i + b_i;
        tsl_pkg::VPU_OP_MUL:     y_o = prod[31:0];
        tsl_pkg::VPU_OP_MAX:     y_o = ($signed(a_i) > $signed(b_i)) ? a_i : b_i;
        tsl_pkg::VPU_OP_MIN:     y_o = ($signed(a_i) < $signed(b_i)) ? a_i : b_i;
        tsl_pkg::VPU_OP_REQUANT: y_o = sat32;
        tsl_pkg::VPU_OP_EPI:     y_o = rq_i ? sat32 : e_x;
        default:                 y_o = a_i;
      endcase
    end
  end
endmodule
