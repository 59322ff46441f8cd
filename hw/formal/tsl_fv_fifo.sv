// Formal top of tsl_prim_fifo: free inputs, the reset of tsl_fv_reset.svh. The FIFO's own
// input assertions (InValidHeld, InDataStable) are the environment's AXI-Stream rules and are
// assumed here (tsl_fv_prep.py --assume); bind/tsl_prim_fifo.svh numbers the entries and proves
// order, level and bounds.
module tsl_fv_fifo #(
  parameter int Width = 4,  // payload bits: holds an entry number modulo 2^Width (> 2 * Depth)
  parameter int Depth = 4   // entries, as tsl_prim_fifo's (>= 2, need not be a power of two)
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             clr_i,
  input logic             valid_i,
  input logic [Width-1:0] data_i,
  input logic             ready_i
);
`include "hw/formal/tsl_fv_reset.svh"
  logic                       ready_o, valid_o;
  logic [Width-1:0]           data_o;
  logic [$clog2(Depth+1)-1:0] level_o;
  tsl_prim_fifo #(.Width(Width), .Depth(Depth)) u_dut (.*);
endmodule
