// Iterative signed 32 x 32 -> 64-bit multiplier for the lite VPU (MUL and REQUANT): one partial
// product per cycle with one 33-bit adder (the multiplier's sign bit weighs -2^31), then shift_i
// more arithmetic right shifts of the product (REQUANT's SHIFT-1).
// Latency: done_o pulses 33 + shift_i cycles after start_i, with p_o = (a*b) >>> shift_i valid;
// p_o holds until the next start_i.
// start_i while a product is being formed restarts it.
module tsl_lite_mul (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic [31:0] a_i,      // multiplicand, signed
  input  logic [31:0] b_i,      // multiplier, signed
  input  logic [5:0]  shift_i,  // arithmetic right shifts after the product (with start_i)
  output logic        done_o,
  output logic [63:0] p_o
);
  logic [32:0] hi_q, hi_d, addend;   // upper partial sum (sign-extended)
  logic [31:0] lo_q, lo_d, x_q;      // multiplier bits not yet used, with product bits shifted in
  logic [6:0]  n_q, n_d;             // steps left: shifts, then the 32 product steps
  logic [5:0]  sh_q;                 // shifts among them
  logic [32:0] sum;
  logic        done_q;

  assign addend = lo_q[0] && n_q > 7'(sh_q) ? {x_q[31], x_q} : 33'd0;
  assign sum    = n_q == 7'(sh_q) + 7'd1 ? hi_q - addend : hi_q + addend;
  assign done_o = done_q;
  assign p_o    = {hi_q[31:0], lo_q};

  always_comb begin
    hi_d = hi_q;
    lo_d = lo_q;
    n_d  = n_q;
    if (start_i) begin
      hi_d = '0;
      lo_d = b_i;
      n_d  = 7'd32 + 7'(shift_i);
    end else if (n_q != 7'd0) begin
      {hi_d, lo_d} = {sum[32], sum, lo_q[31:1]};
      n_d          = n_q - 7'd1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hi_q <= '0;
      lo_q <= '0;
      x_q  <= '0;
      sh_q <= '0;
      n_q  <= '0;
      done_q <= 1'b0;
    end else begin
      done_q <= n_q == 7'd1 && !start_i;
      hi_q <= hi_d;
      lo_q <= lo_d;
      n_q  <= n_d;
      if (start_i) begin
        x_q  <= a_i;
        sh_q <= shift_i;
      end
    end
  end
endmodule
