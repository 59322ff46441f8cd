// Synchronous single-port RAM with byte write enables; the one memory wrapper every unit uses.
// Latency: read data appears on rdata_o one cycle after req_i with we_i low; a write (be_i != 0)
// updates the selected bytes at the clock edge. One access per cycle, no combinational path.
// Assumes Depth is a power of two. Contents are not reset. Simulation back door: under VERILATOR
// the exported DPI functions tsl_prim_ram_write/read access words directly (the harness calls them
// with svSetScope set to this instance), so programs are loaded without an `initial` block.
module tsl_prim_ram #(
  parameter int Depth = 16384,  // number of Width-bit words (power of two); default 64 KiB at 32 bit
  parameter int Width = 32      // word width in bits, a multiple of 8
) (
  input  logic                     clk_i,
  input  logic                     req_i,    // access this cycle
  input  logic                     we_i,     // 1: write the bytes selected by be_i
  input  logic [$clog2(Depth)-1:0] addr_i,   // word address
  input  logic [Width-1:0]         wdata_i,
  input  logic [Width/8-1:0]       be_i,     // byte enables for writes
  output logic [Width-1:0]         rdata_o   // valid the cycle after a read request
);
  `include "hw/rtl/tsl_assert.svh"
  logic [Width-1:0] mem [Depth];

  always_ff @(posedge clk_i) begin
    if (req_i) begin
      if (we_i) begin
        for (int b = 0; b < Width / 8; b++) begin
          if (be_i[b]) mem[addr_i][8*b +: 8] <= wdata_i[8*b +: 8];
        end
      end else begin
        rdata_o <= mem[addr_i];
      end
    end
  end

`ifdef VERILATOR
  export "DPI-C" function tsl_prim_ram_write;
  export "DPI-C" function tsl_prim_ram_read;
  export "DPI-C" function tsl_prim_ram_depth;

  // Back door: write one word (simulation loaders only; covers the low 32 bits of a word).
  function void tsl_prim_ram_write(input int unsigned idx, input int unsigned data);
    mem[idx[$clog2(Depth)-1:0]] = Width'(data);
  endfunction

  // Back door: read the low 32 bits of one word.
  function int unsigned tsl_prim_ram_read(input int unsigned idx);
    return 32'(mem[idx[$clog2(Depth)-1:0]]);
  endfunction

  // Number of words, so the loader can range-check.
  function int unsigned tsl_prim_ram_depth();
    return Depth;
  endfunction
`endif

  // Assertions
  `TSL_ASSERT_INIT(ParamRange, (Depth > 0 && (Depth & (Depth - 1)) == 0) && Width % 8 == 0 && Width > 0,
                   "Depth a power of two, Width a multiple of 8")
endmodule
