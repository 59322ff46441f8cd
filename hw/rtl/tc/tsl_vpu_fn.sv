// One lane's registers and operand selection for the VPU functions EXP, RECIP, RSQRT and GELU
// (docs/isa.md "VPU functions") in one register set. The set's source element x is x_i in the
// cycle of ld_i (canonical, DAZ'd), kept in X after it. tsl_vpu_fn_seq's step program picks the
// operands (a_o, b_o: combinational from the registers, x and the step's constant); the lane's
// fmul or fadd computes the step, or the lane's tsl_vpu_eup the function of a_o, and the result is
// written to P or U: y_i at the clock edge of the step (we_i), eup_y_i tsl_vpu_fn_pkg::LAT cycles
// after the issue (eup_we_i). After the last step res_o (P) is op(x). ld_i comes before the first
// step or with it.
module tsl_vpu_fn (
  input  logic        clk_i,
  input  logic        ld_i,       // x_i is this set's source element: keep it
  input  logic [31:0] x_i,        // the widened source element (read in the cycle of ld_i)
  input  logic        we_i,       // the set's fmul or fadd step runs: write y_i to dst_i
  input  logic [1:0]  a_sel_i,    // tsl_vpu_fn_pkg::OPD_*
  input  logic [1:0]  b_sel_i,
  input  logic        dst_i,      // tsl_vpu_fn_pkg::DST_*
  input  logic [31:0] c_i,        // the step's constant
  output logic [31:0] a_o,        // the step's operands, to the lane (a_o also to the EUP)
  output logic [31:0] b_o,
  input  logic [31:0] y_i,        // the lane's result of the step
  input  logic        eup_we_i,   // the EUP's result for this set: write eup_y_i to eup_dst_i
  input  logic        eup_dst_i,
  input  logic [31:0] eup_y_i,
  output logic [31:0] res_o       // op(x), after the last step
);
  logic [31:0] x_q, p_q, u_q;   // datapath registers (no reset)
  logic [31:0] x;
  assign x = ld_i ? x_i : x_q;

  function automatic logic [31:0] operand(input logic [1:0] sel);
    case (sel)
      tsl_vpu_fn_pkg::OPD_X: operand = x;
      tsl_vpu_fn_pkg::OPD_P: operand = p_q;
      tsl_vpu_fn_pkg::OPD_U: operand = u_q;
      default:               operand = c_i;
    endcase
  endfunction

  assign a_o   = operand(a_sel_i);
  assign b_o   = operand(b_sel_i);
  assign res_o = p_q;

  always_ff @(posedge clk_i) begin
    if (ld_i) x_q <= x_i;
    if (we_i && dst_i == tsl_vpu_fn_pkg::DST_P) p_q <= y_i;
    if (we_i && dst_i == tsl_vpu_fn_pkg::DST_U) u_q <= y_i;
    if (eup_we_i && eup_dst_i == tsl_vpu_fn_pkg::DST_P) p_q <= eup_y_i;
    if (eup_we_i && eup_dst_i == tsl_vpu_fn_pkg::DST_U) u_q <= eup_y_i;
  end
endmodule
