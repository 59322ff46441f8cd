// One lane's registers and operand selection for the VPU functions EXP, RECIP and RSQRT
// (docs/isa.md "VPU functions"), bit-exact with tslm_f32_exp/recip/rsqrt. tsl_vpu_fn_seq's step
// program picks the operands (a_o, b_o: combinational from the registers, x_i and the seed); the
// lane's own fmul or fadd computes the step and y_i is written to P, K or R at the clock edge.
// After the last step res_o (combinational) is the function: P or R scaled by exponent
// arithmetic, or the special result of a NaN, zero or infinite input. The seed of RECIP / RSQRT
// comes from tsl_pkg's tables, indexed by the leading mantissa bits of x_i (and, for RSQRT, the
// parity of its exponent). x_i must be canonical (DAZ'd) and held from the first step to the write.
module tsl_vpu_fn (
  input  logic        clk_i,
  input  logic [3:0]  op_i,     // vpu_op_e: EXP, RECIP or RSQRT
  input  logic [31:0] x_i,      // the widened source element
  input  logic        we_i,     // a step runs in this cycle: write y_i to dst_i
  input  logic [2:0]  a_sel_i,  // tsl_vpu_fn_pkg::OPD_*
  input  logic [2:0]  b_sel_i,
  input  logic [1:0]  dst_i,    // tsl_vpu_fn_pkg::DST_*
  input  logic        k_we_i,   // EXP: y_i is x log2 e + SHIFTER: keep k from its mantissa
  input  logic [31:0] c_i,      // the step's constant
  output logic [31:0] a_o,      // the step's operands, to the lane
  output logic [31:0] b_o,
  input  logic [31:0] y_i,      // the lane's result of the step
  output logic [31:0] res_o     // the function of x_i, after the last step
);

  localparam int SB = tsl_pkg::VPU_FN_SEED_BITS;
  localparam logic [31:0] QNAN = 32'h7FC0_0000;
  localparam logic [31:0] INF  = 32'h7F80_0000;

  // Datapath registers (no reset): P, K and R of the step program, and EXP's k (|k| <= 185).
  logic [31:0] p_q, k_q, r_q;
  logic [8:0]  ke_q;

  logic        odd, nan, zero, inf;
  logic [SB:0] sidx;           // RSQRT seed index {odd, mantissa bits}
  logic [7:0]  sv;             // seed table entry: the seed is (256 + sv) / 512
  logic [31:0] xm, seed;
  logic [9:0]  e;              // signed biased exponent of the result
  logic [7:0]  q;              // RSQRT: (unbiased exponent - odd) / 2, signed

  // A step's operand: tsl_vpu_fn_pkg::OPD_* (P by default).
  function automatic logic [31:0] operand(input logic [2:0] sel);
    case (sel)
      tsl_vpu_fn_pkg::OPD_X:     operand = xm;
      tsl_vpu_fn_pkg::OPD_K:     operand = k_q;
      tsl_vpu_fn_pkg::OPD_R:     operand = r_q;
      tsl_vpu_fn_pkg::OPD_NEG_P: operand = {!p_q[31], p_q[30:0]};
      tsl_vpu_fn_pkg::OPD_SEED:  operand = seed;
      tsl_vpu_fn_pkg::OPD_CONST: operand = c_i;
      default:                   operand = p_q;
    endcase
  endfunction

  always_comb begin
    odd  = !x_i[23];                        // the unbiased exponent is odd
    nan  = x_i == QNAN;
    zero = x_i[30:23] == 8'd0;
    inf  = x_i[30:0] == INF[30:0];
    sidx = {odd, x_i[22 -: SB]};
    // RECIP: m = 1.f in [1, 2); RSQRT: h = m'/2 = 1.f * 2^(odd - 1); EXP: x itself.
    xm   = x_i;
    sv   = '0;
    if (op_i == tsl_pkg::VPU_OP_RECIP) begin
      xm = {1'b0, 8'd127, x_i[22:0]};
      sv = tsl_pkg::VPU_FN_RECIP_SEEDS[8*x_i[22 -: SB] +: 8];
    end else if (op_i == tsl_pkg::VPU_OP_RSQRT) begin
      xm = {1'b0, odd ? 8'd127 : 8'd126, x_i[22:0]};
      sv = tsl_pkg::VPU_FN_RSQRT_SEEDS[8*sidx +: 8];
    end
    seed = {1'b0, 8'd126, sv, 15'd0};

    a_o = operand(a_sel_i);
    b_o = operand(b_sel_i);

    // Result: y * 2^k (EXP, y in P), y * 2^-(ex - 127) (RECIP, y in R), y * 2^-q (RSQRT, y in R),
    // a zero below 2^-126 and an infinity from 2^128 on; then the specials.
    q     = {1'b0, x_i[30:24]} - 8'd63 - {7'd0, odd};   // (ex - 127 - odd) / 2: ex[0] = !odd
    res_o = '0;
    e     = '0;
    case (op_i)
      tsl_pkg::VPU_OP_EXP: begin
        e = {2'b00, p_q[30:23]} + {ke_q[8], ke_q};
        if (e[9] || e == 10'd0)   res_o = '0;
        else if (e >= 10'd255)    res_o = INF;
        else                      res_o = {p_q[31], e[7:0], p_q[22:0]};
        if (nan)                          res_o = QNAN;
        else if (x_i[30:23] >= 8'd134)    res_o = x_i[31] ? 32'd0 : INF;   // |x| >= 128, infinities
      end
      tsl_pkg::VPU_OP_RECIP: begin
        e = {2'b00, r_q[30:23]} + 10'd127 - {2'b00, x_i[30:23]};
        res_o = (e[9] || e == 10'd0) ? {x_i[31], 31'd0} : {x_i[31], e[7:0], r_q[22:0]};
        if (nan)       res_o = QNAN;
        else if (zero) res_o = {x_i[31], INF[30:0]};
        else if (inf)  res_o = {x_i[31], 31'd0};
      end
      default: begin   // RSQRT
        e = {2'b00, r_q[30:23]} - {{2{q[7]}}, q};
        res_o = {1'b0, e[7:0], r_q[22:0]};
        if (nan || (x_i[31] && !zero)) res_o = QNAN;
        else if (zero)                 res_o = {x_i[31], INF[30:0]};
        else if (inf)                  res_o = 32'd0;
      end
    endcase
  end

  always_ff @(posedge clk_i) begin
    if (we_i && dst_i == tsl_vpu_fn_pkg::DST_P) p_q <= y_i;
    if (we_i && dst_i == tsl_vpu_fn_pkg::DST_K) k_q <= y_i;
    if (we_i && dst_i == tsl_vpu_fn_pkg::DST_R) r_q <= y_i;
    if (k_we_i) ke_q <= y_i[8:0];   // k = mantissa - 2^22; |k| < 256, so its low 9 bits
  end
endmodule
