// Formal top of tsl_tc_queue (an instruction queue of the tensor core), small: Width 4, Depth 3
// or 4. The queue's input assertions (InValidHeld, InDataStable) are the environment's rules and
// are assumed (drop_i free: the writer may withdraw a push whenever it is set); bind/tsl_tc_queue.svh
// numbers the entries and checks order, level and bounds.
module tsl_fv_queue #(
  parameter int Width = 4,  // entry bits: an entry number modulo 2^Width (> 2 * Depth)
  parameter int Depth = 4   // entries, as tsl_tc_queue's (>= 2)
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             clr_i,
  input logic             drop_i,
  input logic             valid_i,
  input logic [Width-1:0] data_i,
  input logic             ready_i
);
`include "hw/formal/tsl_fv_reset.svh"
  logic                       ready_o, valid_o;
  logic [Width-1:0]           data_o;
  logic [$clog2(Depth+1)-1:0] level_o;
  tsl_tc_queue #(.Width(Width), .Depth(Depth)) u_dut (.*);
endmodule
