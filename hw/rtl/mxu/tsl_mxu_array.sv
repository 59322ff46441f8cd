// N x N grid of tsl_mxu_pe. Row k holds weight row W[k][0..N-1] in each of its two buffers.
// Activations enter row k at the left (x_i lane k, already skewed so that lane k is k cycles later
// than lane 0) and move one cell right per advancing cycle; partial sums start as 0 (int32 0 and
// fp32 +0) above row 0 and move one cell down per cycle, so column j sums k = 0..N-1 in order.
// Latency: x lane k arriving at cycle t gives the product of cell (k,j) at t+j, and column j's
// finished sum appears on psum_o lane j two cycles after lane N-1 of x reached cell (N-1,j).
// Weight writes (wr_row_i one-hot) take effect at the clock edge, without regard to en_i: bit r
// writes row r with lane j in cell (r,j), or with wr_trans_i (a transposed load) column r with lane
// k in cell (k,r), and then the dtype of every row (the same for the whole tile).
// Stage valids: a row is in stage s when it entered lane 0 (x_i) s advances ago; cell (k,j)
// multiplies while stage k+j is valid and accumulates while stage k+j+1 is, and is idle otherwise.
module tsl_mxu_array #(
  parameter int N          = 16,    // array size (power of two, 4..128)
  parameter bit EnableBf16 = 1'b1   // 1: int8 and bf16; 0: int8 only
) (
  input  logic             clk_i,
  input  logic             en_i,         // whole array advances this cycle
  input  logic [2*N-1:0]   stage_v_i,    // bit s: stage s holds a row (reset-clean, from tsl_mxu)
  input  logic [N*16-1:0]  x_i,          // lane k feeds row k (skewed)
  input  logic [N-1:0]     xbuf_i,       // weight buffer each lane uses
  input  logic [N-1:0]     wr_row_i,     // one-hot: write weight row k
  input  logic             wr_buf_i,     // buffer written
  input  logic             wr_bf16_i,    // dtype of the tile being written (1: bf16)
  input  logic             wr_trans_i,   // 1: wr_row_i names a column (VMEM row j of a transposed load)
  input  logic [N*16-1:0]  wr_data_i,    // lane j = W[k][j] (wr_trans_i: lane k = W[k][j])
  output logic [N*32-1:0]  psum_o        // lane j = bottom of column j (deskewed elsewhere)
);
  // Horizontal and vertical wires: x_h[k][j] enters cell (k,j); p_v[k][j] enters cell (k,j) from above.
  logic [15:0] x_h   [N][N+1];
  logic        xb_h  [N][N+1];
  logic [31:0] p_v   [N+1][N];
  logic [1:0]  row_bf16_q [N];

  for (genvar k = 0; k < N; k++) begin : g_row
    assign x_h[k][0]  = x_i[16*k +: 16];
    assign xb_h[k][0] = xbuf_i[k];

    // Per-row dtype of each weight buffer, written with the row's weights (transposed: with every
    // column, as each column write touches every row).
    logic row_wr;
    assign row_wr = wr_trans_i ? wr_row_i != '0 : wr_row_i[k];
    always_ff @(posedge clk_i) begin
      if (row_wr) row_bf16_q[k][wr_buf_i] <= wr_bf16_i;
    end

    for (genvar j = 0; j < N; j++) begin : g_col
      tsl_mxu_pe #(
        .EnableBf16(EnableBf16)
      ) u_pe (
        .clk_i,
        .en_i,
        .v_i       (stage_v_i[k+j]),
        .pv_i      (stage_v_i[k+j+1]),
        .x_i       (x_h[k][j]),
        .xbuf_i    (xb_h[k][j]),
        .x_o       (x_h[k][j+1]),
        .xbuf_o    (xb_h[k][j+1]),
        .row_bf16_i(row_bf16_q[k]),
        .wr_en_i   (wr_trans_i ? wr_row_i[j] : wr_row_i[k]),
        .wr_buf_i,
        .wr_data_i (wr_trans_i ? wr_data_i[16*k +: 16] : wr_data_i[16*j +: 16]),
        .psum_i    (p_v[k][j]),
        .psum_o    (p_v[k+1][j])
      );
    end
  end

  for (genvar j = 0; j < N; j++) begin : g_out
    assign p_v[0][j]          = 32'd0;
    assign psum_o[32*j +: 32] = p_v[N][j];
  end

  // The last column's x outputs go nowhere.
  logic unused_ok;
  always_comb begin
    unused_ok = 1'b0;
    for (int k = 0; k < N; k++) unused_ok = unused_ok ^ (^x_h[k][N]) ^ xb_h[k][N];
  end
endmodule
