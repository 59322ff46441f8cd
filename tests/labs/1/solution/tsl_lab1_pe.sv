// Lab 1 processing element (int8 only): one cell of a weight-stationary systolic array.
// It holds one weight w_q (loaded when wr_en_i is high) and, every cycle, multiplies the activation
// arriving from the left by it, adds the partial sum arriving from above, and registers both:
//   x_o    <= x_i                    (pass the activation right, one cycle later)
//   psum_o <= psum_i + x_i * w_q     (pass the partial sum down, one cycle later)
// Latency: one cycle from x_i/psum_i to x_o/psum_o; one MAC per cycle. No reset (datapath only).
module tsl_lab1_pe (
  input  logic        clk_i,
  input  logic        wr_en_i,   // load wr_data_i as this cell's weight
  input  logic [7:0]  wr_data_i, // int8 weight
  input  logic [7:0]  x_i,       // int8 activation from the left
  output logic [7:0]  x_o,       // the same activation, to the right, one cycle later
  input  logic [31:0] psum_i,    // int32 partial sum from above
  output logic [31:0] psum_o     // psum_i + x_i * w, downward, one cycle later
);
  logic [7:0]  w_q, x_q;
  logic [31:0] psum_d, psum_q;

  always_comb begin
    psum_d = psum_i + 32'($signed(x_i) * $signed(w_q));
  end

  always_ff @(posedge clk_i) begin
    if (wr_en_i) w_q <= wr_data_i;
    x_q    <= x_i;
    psum_q <= psum_d;
  end

  assign x_o    = x_q;
  assign psum_o = psum_q;
endmodule
