// Input skew of the systolic array: lane k of an accepted activation row is delayed by k cycles,
// so that it meets the partial sums of column 0 in row k at the right time. All registers shift
// when en_i is high (the array's global stall). Lane 0 is combinational (the row is already held
// in a register by tsl_mxu); N(N-1)/2 lane registers in all, no reset (datapath only).
// Latency: lane k of the row on x_i in an advancing cycle t appears on x_o in advancing cycle t+k.
module tsl_mxu_skew #(
  parameter int N     = 16,  // lanes
  parameter int Width = 16   // bits per lane
) (
  input  logic               clk_i,
  input  logic               en_i,
  input  logic [N*Width-1:0] x_i,
  output logic [N*Width-1:0] x_o
);
  assign x_o[0 +: Width] = x_i[0 +: Width];

  // Lane k: a k-stage shift register, newest value in the low Width bits.
  for (genvar k = 1; k < N; k++) begin : g_lane
    logic [k*Width-1:0] sr_q;
    always_ff @(posedge clk_i) begin
      if (en_i) sr_q <= (k*Width)'({sr_q, x_i[k*Width +: Width]});
    end
    assign x_o[k*Width +: Width] = sr_q[(k-1)*Width +: Width];
  end
endmodule
