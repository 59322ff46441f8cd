// Formal top of tsl_dma_burst (the DMA's AXI burst splitter). Environment (assumed): the rows come
// from a FIFO, so a row is held with its fields until row_ready_o or a clear; a row has at least
// one beat (tsl_dma_rows makes no empty rows). allow_i, clr_i and ax_ready_i are free.
// bind/tsl_dma_burst.svh has the properties.
module tsl_fv_dma_burst #(
  parameter int W        = 8,   // beat bytes (power of two, <= 4096)
  parameter int MaxBurst = 16   // beats per burst, 1..256
) (
  input logic                  clk_i,
  input logic                  rst_ni,
  input logic                  clr_i,
  input logic                  allow_i,
  input logic                  row_valid_i,
  input logic [31-$clog2(W):0] row_hbeat_i,
  input logic [16:0]           row_nh_i,
  input logic                  row_last_i,
  input logic                  ax_ready_i
);
`include "hw/formal/tsl_fv_reset.svh"
  logic        row_ready_o, issue_o, ax_valid_o, ax_last_o;
  logic [31:0] ax_addr_o;
  logic [7:0]  ax_len_o;
  tsl_dma_burst #(.W(W), .MaxBurst(MaxBurst)) u_dut (.*);

  always @* if (row_valid_i) assume (row_nh_i != '0);
  always @(posedge clk_i) if (!fv_init && $past(rst_ni) && $past(row_valid_i && !row_ready_o && !clr_i))
    assume (row_valid_i && $stable(row_hbeat_i) && $stable(row_nh_i) && $stable(row_last_i));
endmodule
