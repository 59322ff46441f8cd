// Lab 1: a small standalone int8 weight-stationary systolic array built from the student's
// tsl_lab1_pe. Cell (k,j) holds W[k][j]; activation lane k enters row k from the left, skewed by k
// cycles (tsl_mxu_skew), and moves one cell right per cycle; partial sums start at 0 above row 0
// and move one cell down per cycle, so column j sums x[k] * W[k][j] over k = 0..N-1; the column
// outputs are deskewed (tsl_mxu_deskew) into one aligned row.
// Latency: the row on x_i in cycle t is y_o = x * W in cycle t + 2N - 1; one row per cycle.
// Weights: wr_row_i one-hot writes row k with wr_data_i (lane j = W[k][j]) at the clock edge.
module tsl_lab1_array #(
  parameter int N = 4  // array size (N x N cells), 4..16
) (
  input  logic            clk_i,
  input  logic [N-1:0]    wr_row_i,   // one-hot: write weight row k
  input  logic [N*8-1:0]  wr_data_i,  // lane j = W[k][j], int8
  input  logic [N*8-1:0]  x_i,        // one activation row, lane k = x[k], int8
  output logic [N*32-1:0] y_o         // lane j = sum_k x[k] * W[k][j], int32
);
  logic [N*8-1:0]  x_skewed;
  logic [N*32-1:0] psum_bottom;
  // x_h[k][j] enters cell (k,j) from the left; p_v[k][j] enters it from above.
  logic [7:0]  x_h [N][N+1];
  logic [31:0] p_v [N+1][N];

  tsl_mxu_skew #(
    .N    (N),
    .Width(8)
  ) u_skew (
    .clk_i,
    .en_i(1'b1),
    .x_i,
    .x_o (x_skewed)
  );

  for (genvar k = 0; k < N; k++) begin : g_row
    assign x_h[k][0] = x_skewed[8*k +: 8];
    for (genvar j = 0; j < N; j++) begin : g_col
      tsl_lab1_pe u_pe (
        .clk_i,
        .wr_en_i  (wr_row_i[k]),
        .wr_data_i(wr_data_i[8*j +: 8]),
        .x_i      (x_h[k][j]),
        .x_o      (x_h[k][j+1]),
        .psum_i   (p_v[k][j]),
        .psum_o   (p_v[k+1][j])
      );
    end
  end

  for (genvar j = 0; j < N; j++) begin : g_col_io
    assign p_v[0][j]               = 32'd0;
    assign psum_bottom[32*j +: 32] = p_v[N][j];
  end

  tsl_mxu_deskew #(
    .N    (N),
    .Width(32)
  ) u_deskew (
    .clk_i,
    .en_i(1'b1),
    .y_i (psum_bottom),
    .y_o
  );

  // The last column's activations go nowhere.
  logic unused_ok;
  always_comb begin
    unused_ok = 1'b0;
    for (int k = 0; k < N; k++) unused_ok = unused_ok ^ (^x_h[k][N]);
  end
endmodule
