// Formal top of tsl_axi_arb (the SoC's M-to-1 AXI arbiter) with its round-robin stages and order
// FIFOs, at Masters 3, DataW 32, Depth 2. Environment (AXI4 rules, assumed):
//  - each master holds AWVALID/ARVALID and the address payload until its ready;
//  - the slave holds BVALID/RVALID until the handshake, and answers only what it was asked:
//    a B only for a write burst whose last W beat it took, R beats only while a read burst is
//    outstanding (counted here from the slave-side handshakes).
// bind/tsl_axi_arb.svh has the properties.
module tsl_fv_axi_arb #(
  parameter int Masters = 3,  // masters (>= 1)
  parameter int DataW   = 32, // data bits
  parameter int Depth   = 2   // outstanding bursts per direction (>= 2)
) (
  input logic                       clk_i,
  input logic                       rst_ni,
  input logic [Masters-1:0]         s_axi_awvalid,
  input logic [Masters*32-1:0]      s_axi_awaddr,
  input logic [Masters*8-1:0]       s_axi_awlen,
  input logic [Masters*3-1:0]       s_axi_awsize,
  input logic [Masters*2-1:0]       s_axi_awburst,
  input logic [Masters-1:0]         s_axi_wvalid,
  input logic [Masters*DataW-1:0]   s_axi_wdata,
  input logic [Masters*DataW/8-1:0] s_axi_wstrb,
  input logic [Masters-1:0]         s_axi_wlast,
  input logic [Masters-1:0]         s_axi_bready,
  input logic [Masters-1:0]         s_axi_arvalid,
  input logic [Masters*32-1:0]      s_axi_araddr,
  input logic [Masters*8-1:0]       s_axi_arlen,
  input logic [Masters*3-1:0]       s_axi_arsize,
  input logic [Masters*2-1:0]       s_axi_arburst,
  input logic [Masters-1:0]         s_axi_rready,
  input logic                       m_axi_awready,
  input logic                       m_axi_wready,
  input logic                       m_axi_bvalid,
  input logic [1:0]                 m_axi_bresp,
  input logic                       m_axi_arready,
  input logic                       m_axi_rvalid,
  input logic [DataW-1:0]           m_axi_rdata,
  input logic [1:0]                 m_axi_rresp,
  input logic                       m_axi_rlast
);
`include "hw/formal/tsl_fv_reset.svh"
  logic [Masters-1:0] s_axi_awready, s_axi_wready, s_axi_bvalid, s_axi_arready, s_axi_rvalid;
  logic [1:0]         s_axi_bresp, s_axi_rresp;
  logic [DataW-1:0]   s_axi_rdata;
  logic               s_axi_rlast;
  logic               m_axi_awvalid, m_axi_wvalid, m_axi_wlast, m_axi_bready, m_axi_arvalid, m_axi_rready;
  logic [31:0]        m_axi_awaddr, m_axi_araddr;
  logic [7:0]         m_axi_awlen, m_axi_arlen;
  logic [2:0]         m_axi_awsize, m_axi_arsize;
  logic [1:0]         m_axi_awburst, m_axi_arburst;
  logic [DataW-1:0]   m_axi_wdata;
  logic [DataW/8-1:0] m_axi_wstrb;
  tsl_axi_arb #(.Masters(Masters), .DataW(DataW), .Depth(Depth)) u_dut (.*);

  // Masters: a request is held, with its payload, until its ready.
  for (genvar i = 0; i < Masters; i++) begin : g_m
    always @(posedge clk_i) if (!fv_init && $past(rst_ni)) begin
      if ($past(s_axi_awvalid[i] && !s_axi_awready[i]))
        assume (s_axi_awvalid[i] && $stable(s_axi_awaddr[i*32 +: 32]) && $stable(s_axi_awlen[i*8 +: 8]));
      if ($past(s_axi_arvalid[i] && !s_axi_arready[i]))
        assume (s_axi_arvalid[i] && $stable(s_axi_araddr[i*32 +: 32]) && $stable(s_axi_arlen[i*8 +: 8]));
    end
  end
  // Slave: responses held until taken.
  always @(posedge clk_i) if (!fv_init && $past(rst_ni)) begin
    if ($past(m_axi_bvalid && !m_axi_bready)) assume (m_axi_bvalid);
    if ($past(m_axi_rvalid && !m_axi_rready)) assume (m_axi_rvalid && $stable(m_axi_rlast));
  end
endmodule
