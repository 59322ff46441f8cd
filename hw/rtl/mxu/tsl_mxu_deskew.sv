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

  // Lane j: an (N-1-j)-stage shift register, newest value in the low Width bits.
  for (genvar j = 0; j < N - 1; j++) begin : g_lane
    localparam int Depth = N - 1 - j;
    logic [Depth*Width-1:0] sr_q;
    always_ff @(posedge clk_i) begin
      if (en_i) sr_q <= (Depth*Width)'({sr_q, y_i[j*Width +: Width]});
    end
    assign y_o[j*Width +: Width] = sr_q[(Depth-1)*Width +: Width];
  end
endmodule
