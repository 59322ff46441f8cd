// Formal top of tsl_prim_ram (single port), small (Depth 8, Width 16). Every input is free.
module tsl_fv_ram_sp #(
  parameter int Depth = 8,   // words (power of two)
  parameter int Width = 16   // bits, a multiple of 8
) (
  input logic                     clk_i,
  input logic                     req_i,
  input logic                     we_i,
  input logic [$clog2(Depth)-1:0] addr_i,
  input logic [Width-1:0]         wdata_i,
  input logic [Width/8-1:0]       be_i
);
  logic [Width-1:0] rdata_o;
  tsl_prim_ram #(.Depth(Depth), .Width(Width)) u_dut (.*);
endmodule
