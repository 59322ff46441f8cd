// AXI4 master for the lite core's HBM word port (tsl_lite_tc): each 32-bit request becomes one
// single-beat burst (AxLEN 0, AxSIZE log2(AxiBits/8), INCR, ID 0), the word in its lane of the
// beat. One request at a time: hbm_gnt_o takes it while idle, hbm_rsp_o answers with the R data
// or the B response. AW and W are offered together; no valid waits for a ready.
`include "hw/rtl/tsl_axi.svh"
module tsl_lite_axi #(
  parameter int AxiBits = 64,   // AXI data bits, a power of two from 32
  parameter int HAw     = 17,   // HBM address bits of the port
  localparam int Dw = AxiBits
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            hbm_req_i,
  input  logic            hbm_we_i,
  input  logic [HAw-1:2]  hbm_addr_i,   // word address
  input  logic [31:0]     hbm_wdata_i,
  input  logic [3:0]      hbm_be_i,
  output logic            hbm_gnt_o,
  output logic            hbm_rsp_o,
  output logic [31:0]     hbm_rdata_o,
  output logic [1:0]      hbm_resp_o,
  `TSL_AXI_M_PORTS(m_axi_, Dw)
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int Lw = Dw > 32 ? $clog2(Dw / 32) : 1;   // lane-index bits
  localparam logic [1:0] StIdle = 2'd0, StRd = 2'd1, StWr = 2'd2, StB = 2'd3;

  logic [1:0]     state_q, state_d;
  logic           a_q, a_d, w_q, w_d;     // AR or AW / W still to be accepted
  logic [HAw-1:2] addr_q;
  logic [31:0]    wdata_q;
  logic [3:0]     be_q;
  logic [Lw-1:0]  lane;
  assign lane = Dw > 32 ? Lw'(addr_q) : '0;

  assign hbm_gnt_o     = state_q == StIdle;
  assign m_axi_arvalid = state_q == StRd && a_q;
  assign m_axi_awvalid = state_q == StWr && a_q;
  assign m_axi_wvalid  = state_q == StWr && w_q;
  assign m_axi_araddr  = 32'({addr_q, 2'b00});
  assign m_axi_awaddr  = 32'({addr_q, 2'b00});
  assign m_axi_arlen   = 8'd0;
  assign m_axi_awlen   = 8'd0;
  assign m_axi_arsize  = 3'($clog2(Dw / 8));
  assign m_axi_awsize  = 3'($clog2(Dw / 8));
  assign m_axi_arburst = 2'b01;
  assign m_axi_awburst = 2'b01;
  assign m_axi_wdata   = {(Dw / 32){wdata_q}};
  assign m_axi_wstrb   = (Dw / 8)'(be_q) << (4 * lane);
  assign m_axi_wlast   = 1'b1;
  assign m_axi_bready  = state_q == StB;
  assign m_axi_rready  = 1'b1;
  assign hbm_rdata_o   = m_axi_rdata[32*lane +: 32];
  assign hbm_rsp_o     = (state_q == StRd && m_axi_rvalid) || (state_q == StB && m_axi_bvalid);
  assign hbm_resp_o    = state_q == StB ? m_axi_bresp : m_axi_rresp;

  always_comb begin
    state_d = state_q;
    a_d     = a_q;
    w_d     = w_q;
    unique case (state_q)
      StIdle: if (hbm_req_i) begin
        state_d = hbm_we_i ? StWr : StRd;
        a_d     = 1'b1;
        w_d     = hbm_we_i;
      end
      StRd: begin
        if (m_axi_arready) a_d = 1'b0;
        if (m_axi_rvalid) state_d = StIdle;   // after the AR handshake (an AXI slave's order)
      end
      StWr: begin
        if (m_axi_awready) a_d = 1'b0;
        if (m_axi_wready)  w_d = 1'b0;
        if (!a_d && !w_d) state_d = StB;
      end
      default: if (m_axi_bvalid) state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      a_q     <= 1'b0;
      w_q     <= 1'b0;
      addr_q  <= '0;
      wdata_q <= '0;
      be_q    <= '0;
    end else begin
      state_q <= state_d;
      a_q     <= a_d;
      w_q     <= w_d;
      if (hbm_req_i && hbm_gnt_o) begin
        addr_q  <= hbm_addr_i;
        wdata_q <= hbm_wdata_i;
        be_q    <= hbm_be_i;
      end
    end
  end

  logic unused_r;
  assign unused_r = m_axi_rlast;   // every burst is one beat

  // Assertions
  `TSL_ASSERT_INIT(AxiBitsRange, AxiBits >= 32 && (AxiBits > 0 && (AxiBits & (AxiBits - 1)) == 0), "AxiBits must be a power of two from 32")
endmodule
