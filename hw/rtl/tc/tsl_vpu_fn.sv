// One lane's registers and operand selection for the VPU functions EXP, RECIP, RSQRT and GELU
// (docs/isa.md "VPU functions"), bit-exact with tslm_f32_exp/recip/rsqrt/gelu.
// tsl_vpu_fn_seq's step program picks the operands (a_o, b_o: combinational from the registers,
// x_i, the seed and the function's result); the lane's own fmul or fadd computes the step and y_i
// is written to P, K, R or U at the clock edge. The step's function fn_i (EXP, RECIP or RSQRT) runs
// on its input v, x_i or register U (u_i, GELU); its result (fres, combinational) is P or R
// scaled by exponent arithmetic, or the special result of a NaN, zero or infinite v. The seed of
// RECIP / RSQRT comes from tsl_pkg's tables, indexed by the leading mantissa bits of v (and, for
// RSQRT, the parity of its exponent). After the last step res_o is the result of op_i: fres, or P
// for GELU (whose last step is x * RECIP(U)). x_i must be canonical (DAZ'd) and held from
// the first step to the write.
module tsl_vpu_fn (
  input  logic        clk_i,
  input  logic [3:0]  op_i,     // vpu_op_e: EXP, RECIP, RSQRT or GELU
  input  logic [3:0]  fn_i,     // the step's function: EXP, RECIP or RSQRT
  input  logic        u_i,      // its input is U, not x_i
  input  logic [31:0] x_i,      // the widened source element
  input  logic        we_i,     // a step runs in this cycle: write y_i to dst_i
  input  logic [3:0]  a_sel_i,  // tsl_vpu_fn_pkg::OPD_*
  input  logic [3:0]  b_sel_i,
  input  logic [1:0]  dst_i,    // tsl_vpu_fn_pkg::DST_*
  input  logic        k_we_i,   // EXP: y_i is x log2 e + SHIFTER: keep k from its mantissa
  input  logic [31:0] c_i,      // the step's constant
  output logic [31:0] a_o,      // the step's operands, to the lane
  output logic [31:0] b_o,
  input  logic [31:0] y_i,      // the lane's result of the step
  output logic [31:0] res_o     // op_i of x_i, after the last step
);

  localparam int SB = tsl_pkg::VPU_FN_SEED_BITS;
  localparam logic [31:0] QNAN = 32'h7FC0_0000;
  localparam logic [31:0] INF  = 32'h7F80_0000;

  // Datapath registers (no reset): P, K, R and U of the step program, and EXP's k (|k| <= 185).
  logic [31:0] p_q, k_q, r_q, u_q;
  logic [8:0]  ke_q;

  logic        odd, nan, zero, inf;
  logic [SB:0] sidx;           // RSQRT seed index {odd, mantissa bits}
  logic [7:0]  sv;             // seed table entry: the seed is (256 + sv) / 512
  logic [31:0] v, xm, seed, fres;
  logic [9:0]  e;              // signed biased exponent of the result
  logic [7:0]  q;              // RSQRT: (unbiased exponent - odd) / 2, signed

  // A step's operand: tsl_vpu_fn_pkg::OPD_* (P by default).
  function automatic logic [31:0] operand(input logic [3:0] sel);
    case (sel)
      tsl_vpu_fn_pkg::OPD_X:     operand = xm;
      tsl_vpu_fn_pkg::OPD_XIN:   operand = x_i;
      tsl_vpu_fn_pkg::OPD_RES:   operand = fres;
      tsl_vpu_fn_pkg::OPD_K:     operand = k_q;
      tsl_vpu_fn_pkg::OPD_R:     operand = r_q;
      tsl_vpu_fn_pkg::OPD_NEG_P: operand = {!p_q[31], p_q[30:0]};
      tsl_vpu_fn_pkg::OPD_SEED:  operand = seed;
      tsl_vpu_fn_pkg::OPD_CONST: operand = c_i;
      default:                   operand = p_q;
    endcase
  endfunction

  always_comb begin
    v    = u_i ? u_q : x_i;
    odd  = !v[23];                        // the unbiased exponent is odd
    nan  = v == QNAN;
    zero = v[30:23] == 8'd0;
    inf  = v[30:0] == INF[30:0];
    sidx = {odd, v[22 -: SB]};
    // RECIP: m = 1.f in [1, 2); RSQRT: h = m'/2 = 1.f * 2^(odd - 1); EXP: v itself.
    xm   = v;
    sv   = '0;
    if (fn_i == tsl_pkg::VPU_OP_RECIP) begin
      xm = {1'b0, 8'd127, v[22:0]};
      sv = tsl_pkg::VPU_FN_RECIP_SEEDS[8*v[22 -: SB] +: 8];
    end else if (fn_i == tsl_pkg::VPU_OP_RSQRT) begin
      xm = {1'b0, odd ? 8'd127 : 8'd126, v[22:0]};
      sv = tsl_pkg::VPU_FN_RSQRT_SEEDS[8*sidx +: 8];
    end
    seed = {1'b0, 8'd126, sv, 15'd0};

    // Result: y * 2^k (EXP, y in P), y * 2^-(ex - 127) (RECIP, y in R), y * 2^-q (RSQRT, y in R),
    // a zero below 2^-126 and an infinity from 2^128 on; then the specials.
    q    = {1'b0, v[30:24]} - 8'd63 - {7'd0, odd};   // (ex - 127 - odd) / 2: ex[0] = !odd
    fres = '0;
    e    = '0;
    case (fn_i)
      tsl_pkg::VPU_OP_EXP: begin
        e = {2'b00, p_q[30:23]} + {ke_q[8], ke_q};
        if (e[9] || e == 10'd0)   fres = '0;
        else if (e >= 10'd255)    fres = INF;
        else                      fres = {p_q[31], e[7:0], p_q[22:0]};
        if (nan)                      fres = QNAN;
        else if (v[30:23] >= 8'd134)  fres = v[31] ? 32'd0 : INF;   // |v| >= 128, infinities
      end
      tsl_pkg::VPU_OP_RECIP: begin
        e = {2'b00, r_q[30:23]} + 10'd127 - {2'b00, v[30:23]};
        fres = (e[9] || e == 10'd0) ? {v[31], 31'd0} : {v[31], e[7:0], r_q[22:0]};
        if (nan)       fres = QNAN;
        else if (zero) fres = {v[31], INF[30:0]};
        else if (inf)  fres = {v[31], 31'd0};
      end
      default: begin   // RSQRT
        e = {2'b00, r_q[30:23]} - {{2{q[7]}}, q};
        fres = {1'b0, e[7:0], r_q[22:0]};
        if (nan || (v[31] && !zero)) fres = QNAN;
        else if (zero)               fres = {v[31], INF[30:0]};
        else if (inf)                fres = 32'd0;
      end
    endcase
    res_o = op_i == tsl_pkg::VPU_OP_GELU ? p_q : fres;
    a_o   = operand(a_sel_i);
    b_o   = operand(b_sel_i);
  end

  always_ff @(posedge clk_i) begin
    if (we_i && dst_i == tsl_vpu_fn_pkg::DST_P) p_q <= y_i;
    if (we_i && dst_i == tsl_vpu_fn_pkg::DST_K) k_q <= y_i;
    if (we_i && dst_i == tsl_vpu_fn_pkg::DST_R) r_q <= y_i;
    if (we_i && dst_i == tsl_vpu_fn_pkg::DST_U) u_q <= y_i;
    if (k_we_i) ke_q <= y_i[8:0];   // k = mantissa - 2^22; |k| < 256, so its low 9 bits
  end
endmodule
