// Output deskew of the systolic array: column j of the array finishes j cycles after column 0, so
// lane j is delayed by N-1-j cycles and a result row leaves as one aligned N-lane vector.
// All registers shift when en_i is high (the array's global stall). Lane N-1 is combinational;
// N(N-1)/2 lane registers in all, no reset (datapath only).
// Latency: lane j entering in advancing cycle t+j leaves in advancing cycle t+N-1.
module tsl_mxu_deskew #(
  parameter int N     = 16,  // lanes
  parameter int Width = 32   // bits per lane
) (
  input  logic               clk_i,
  input  logic               en_i,
  input  logic [N*Width-1:0] y_i,
  output logic [N*Width-1:0] y_o
);
  assign y_o[(N-1)*Width +: Width] = y_i[(N-1)*Width +: Width];

  for (genvar j = 0; j < N - 1; j++) begin : g_lane
    localparam int Depth = N - 1 - j;
    logic [Width-1:0] sr_q [Depth];
    always_ff @(posedge clk_i) begin
      if (en_i) begin
        sr_q[0] <= y_i[j*Width +: Width];
        for (int s = 1; s < Depth; s++) sr_q[s] <= sr_q[s-1];
      end
    end
    assign y_o[j*Width +: Width] = sr_q[Depth-1];
  end
endmodule
