// Iterative signed 32 x 32 -> 64-bit multiplier for the lite VPU (MUL and REQUANT): one partial
// product per cycle with one 33-bit adder (the multiplier's sign bit weighs -2^31), then shift_i
// more arithmetic right shifts of the product (REQUANT's SHIFT-1).
// Latency: done_o pulses 33 + shift_i cycles after start_i, with p_o = (a*b) >>> shift_i valid;
// p_o holds until the next start_i. a_i and shift_i must hold from start_i until done_o (b_i is
// taken at start_i).
module tsl_lite_mul (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic [31:0] a_i,      // multiplicand, signed
  input  logic [31:0] b_i,      // multiplier, signed
  input  logic [5:0]  shift_i,  // arithmetic right shifts after the product
  output logic        done_o,
  output logic [63:0] p_o
);
  localparam logic [1:0] PhIdle = 2'd0, PhMul = 2'd1, PhShift = 2'd2, PhDone = 2'd3;
  logic [1:0]  ph_q, ph_d;
  logic [5:0]  n_q, n_d;             // product steps left - 1, then shifts left - 1
  logic [32:0] hi_q, hi_d, addend;   // upper partial sum (sign-extended)
  logic [31:0] lo_q, lo_d;           // multiplier bits not yet used, with product bits shifted in
  logic [32:0] sum;

  assign addend = ph_q == PhMul && lo_q[0] ? {a_i[31], a_i} : 33'd0;
  assign sum    = ph_q == PhMul && n_q == 6'd0 ? hi_q - addend : hi_q + addend;
  assign done_o = ph_q == PhDone;
  assign p_o    = {hi_q[31:0], lo_q};

  always_comb begin
    ph_d = ph_q;
    n_d  = n_q - 6'd1;
    hi_d = hi_q;
    lo_d = lo_q;
    if (ph_q == PhMul || ph_q == PhShift) {hi_d, lo_d} = {sum[32], sum, lo_q[31:1]};
    unique case (ph_q)
      PhMul:   if (n_q == 6'd0) begin
        ph_d = shift_i == 6'd0 ? PhDone : PhShift;
        n_d  = shift_i - 6'd1;
      end
      PhShift: if (n_q == 6'd0) ph_d = PhDone;
      default: ph_d = PhIdle;
    endcase
    if (start_i) begin
      ph_d = PhMul;
      n_d  = 6'd31;
      hi_d = '0;
      lo_d = b_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ph_q <= PhIdle;
      n_q  <= '0;
      hi_q <= '0;
      lo_q <= '0;
    end else begin
      ph_q <= ph_d;
      n_q  <= n_d;
      hi_q <= hi_d;
      lo_q <= lo_d;
    end
  end
endmodule
