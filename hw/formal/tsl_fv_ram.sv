// Formal tops of the RAM primitives, small (Depth 8, Width 16: two bytes). Every input is free;
// the properties are bound in (bind/tsl_prim_ram.svh, bind/tsl_prim_ram_1r1w.svh).
module tsl_fv_ram_1r1w #(
  parameter int Depth = 8,   // words (power of two)
  parameter int Width = 16   // bits, a multiple of 8
) (
  input logic                     clk_i,
  input logic                     we_i,
  input logic [$clog2(Depth)-1:0] waddr_i,
  input logic [Width-1:0]         wdata_i,
  input logic [Width/8-1:0]       be_i,
  input logic                     re_i,
  input logic [$clog2(Depth)-1:0] raddr_i
);
  logic [Width-1:0] rdata_o;
  tsl_prim_ram_1r1w #(.Depth(Depth), .Width(Width)) u_dut (.*);
endmodule
