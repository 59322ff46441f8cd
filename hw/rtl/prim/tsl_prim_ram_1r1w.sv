// Synchronous simple dual-port RAM: one write port and one read port, same clock.
// Latency: rdata_o holds the word at raddr_i one cycle after re_i (unchanged otherwise). A write
// takes effect at the clock edge; reading the address being written in the same cycle returns
// the old word (read-first); callers that need the new word forward it themselves.
// Assumes Depth is a power of two. Contents are not reset. Infers block RAM on FPGAs.
module tsl_prim_ram_1r1w #(
  parameter int Depth = 256,  // number of Width-bit words (power of two)
  parameter int Width = 32    // word width in bits
) (
  input  logic                     clk_i,
  input  logic                     we_i,
  input  logic [$clog2(Depth)-1:0] waddr_i,
  input  logic [Width-1:0]         wdata_i,
  input  logic                     re_i,
  input  logic [$clog2(Depth)-1:0] raddr_i,
  output logic [Width-1:0]         rdata_o
);
  logic [Width-1:0] mem [Depth];

  always_ff @(posedge clk_i) begin
    if (we_i) mem[waddr_i] <= wdata_i;
    if (re_i) rdata_o <= mem[raddr_i];
  end
endmodule
