// Test only (make test-asrt-sim): an assertion of the SoC that the host can make fail on purpose.
// tsl_asrt_trip watches the read data of the SoC's AXI port toward HBM and fails its TSL_ASSERT on
// the beat whose low 64 bits are the trip word, the bytes "TRIP-ME!" in memory order: a tensor-core
// DMA that reads a row starting with those bytes (from an operand the host wrote) trips it, any
// other data never does. The bind below puts it into tsl_soc; mk/asrt.mk adds this file to a
// Verilated SoC at N=4 (64-bit beats) for libtessel's sim backend, nothing else sees it.
// Combinational only; no latency, nothing driven.
module tsl_asrt_trip #(
  parameter int unsigned Dw = 64  // AXI data bits (16N); >= 64
) (
  input logic          clk_i,
  input logic          rst_ni,
  input logic          rvalid_i,  // the SoC's m_axi_rvalid, m_axi_rready, m_axi_rdata
  input logic          rready_i,
  input logic [Dw-1:0] rdata_i
);
  localparam logic [63:0] TripWord = 64'h21454d2d50495254;  // "TRIP-ME!", little-endian

  logic tripped;
  assign tripped = rvalid_i && rready_i && rdata_i[63:0] == TripWord;

`include "hw/rtl/tsl_assert.svh"
  `TSL_ASSERT_INIT(DwRange, Dw >= 64, "Dw below 64 bits")
  `TSL_ASSERT(NoTripWord, !tripped, "an HBM read beat carried the trip word TRIP-ME! (tests/asrt)")
endmodule

bind tsl_soc tsl_asrt_trip #(.Dw(16 * N)) u_asrt_trip (
  .clk_i   (clk_i),
  .rst_ni  (rst_ni),
  .rvalid_i(m_axi_rvalid),
  .rready_i(m_axi_rready),
  .rdata_i (m_axi_rdata)
);
