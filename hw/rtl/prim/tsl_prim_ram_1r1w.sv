// Synchronous simple dual-port RAM: one write port with byte enables and one read port, same clock.
// Latency: rdata_o holds the word at raddr_i one cycle after re_i (unchanged otherwise). A write
// updates the bytes selected by be_i at the clock edge; reading the address being written in the
// same cycle returns the old word (read-first); callers that need the new word forward it.
// Assumes Depth is a power of two. Contents are not reset. Infers block RAM on FPGAs.
module tsl_prim_ram_1r1w #(
  parameter int Depth = 256,  // number of Width-bit words (power of two)
  parameter int Width = 32    // word width in bits, a multiple of 8
) (
  input  logic                     clk_i,
  input  logic                     we_i,
  input  logic [$clog2(Depth)-1:0] waddr_i,
  input  logic [Width-1:0]         wdata_i,
  input  logic [Width/8-1:0]       be_i,     // byte enables of the write
  input  logic                     re_i,
  input  logic [$clog2(Depth)-1:0] raddr_i,
  output logic [Width-1:0]         rdata_o
);
  `include "hw/rtl/tsl_assert.svh"
  logic [Width-1:0] mem [Depth];

  always_ff @(posedge clk_i) begin
    if (we_i) begin
      for (int b = 0; b < Width / 8; b++) begin
        if (be_i[b]) mem[waddr_i][8*b +: 8] <= wdata_i[8*b +: 8];
      end
    end
    if (re_i) rdata_o <= mem[raddr_i];
  end

  // Assertions
  `TSL_ASSERT_INIT(ParamRange, (Depth > 0 && (Depth & (Depth - 1)) == 0) && Width % 8 == 0 && Width > 0,
                   "Depth a power of two, Width a multiple of 8")
endmodule
