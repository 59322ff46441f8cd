// AXI isolation for a master that can be reset on its own (the tensor core's DMA): while iso_i is
// high, and afterwards until everything the master had started on AXI is finished, the slave side
// is served here instead of by the master. An address request that was waiting for its ready is
// held (payload registered) until accepted; W bursts owed to accepted AWs are completed, a waiting
// beat as it was and the rest with WSTRB = 0 (nothing written); R beats and B responses are taken
// and dropped. The master sees no ready and no response meanwhile.
// Outside it every signal passes straight through (no added latency); the stage only counts
// handshakes: read bursts and B responses outstanding, and the length of each AW whose W burst is
// not finished (a Depth-entry FIFO; AW stalls while it is full). A burst's W beats must follow its
// AW handshake, as tsl_dma issues them and tsl_axi_arb passes them.
`include "hw/rtl/tsl_axi.svh"
module tsl_axi_iso #(
  parameter int DataW = 64,  // data bits
  parameter int Depth = 8    // W bursts tracked (power of two, >= 2)
) (
  input  logic               clk_i,
  input  logic               rst_ni,   // the SoC's reset, not the master's
  input  logic               iso_i,    // the master is being reset
  // master side (the resettable master drives s_*)
  `TSL_AXI_S_PORTS(s_, DataW),
  // slave side (toward the interconnect)
  `TSL_AXI_M_PORTS(m_, DataW)
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int Pw = $clog2(Depth);

  logic             drain, drain_q, drain_d;
  logic [7:0]       rd_cnt_q, b_cnt_q;                  // read bursts / B responses outstanding
  logic [7:0]       wlen_q [Depth];                     // AWLEN of each unfinished W burst
  logic [Pw:0]      wq_wr_q, wq_rd_q;
  logic [7:0]       wbeat_q;                            // beats sent of the oldest W burst
  logic             wq_empty, wq_full, w_end;
  logic             aw_pend_q, ar_pend_q, w_pend_q;     // a valid was waiting for its ready
  logic [44:0]      aw_q, ar_q;                         // {addr, len, size, burst} while waiting
  logic [DataW+DataW/8-1:0] w_q;                        // {data, strb} while waiting
  logic             aw_hs, w_hs, b_hs, ar_hs, r_hs;

  assign drain    = iso_i || drain_q;
  assign wq_empty = wq_wr_q == wq_rd_q;
  assign wq_full  = wq_wr_q == {~wq_rd_q[Pw], wq_rd_q[Pw-1:0]};
  assign w_end    = wbeat_q == wlen_q[wq_rd_q[Pw-1:0]];

  always_comb begin
    // Pass-through.
    m_awvalid = s_awvalid && !wq_full;
    {m_awaddr, m_awlen, m_awsize, m_awburst} = {s_awaddr, s_awlen, s_awsize, s_awburst};
    s_awready = m_awready && !wq_full;
    m_wvalid  = s_wvalid;
    {m_wdata, m_wstrb} = {s_wdata, s_wstrb};
    m_wlast   = s_wlast;
    s_wready  = m_wready;
    s_bvalid  = m_bvalid;
    s_bresp   = m_bresp;
    m_bready  = s_bready;
    m_arvalid = s_arvalid;
    {m_araddr, m_arlen, m_arsize, m_arburst} = {s_araddr, s_arlen, s_arsize, s_arburst};
    s_arready = m_arready;
    s_rvalid  = m_rvalid;
    {s_rdata, s_rresp, s_rlast} = {m_rdata, m_rresp, m_rlast};
    m_rready  = s_rready;
    if (drain) begin
      // Finish the master's business on its behalf.
      m_awvalid = aw_pend_q;
      {m_awaddr, m_awlen, m_awsize, m_awburst} = aw_q;
      m_arvalid = ar_pend_q;
      {m_araddr, m_arlen, m_arsize, m_arburst} = ar_q;
      m_wvalid  = !wq_empty;
      {m_wdata, m_wstrb} = w_pend_q ? w_q : '0;
      m_wlast   = w_end;
      m_bready  = 1'b1;
      m_rready  = 1'b1;
      s_awready = 1'b0;
      s_wready  = 1'b0;
      s_bvalid  = 1'b0;
      s_arready = 1'b0;
      s_rvalid  = 1'b0;
    end
  end

  assign aw_hs = m_awvalid && m_awready;
  assign w_hs  = m_wvalid && m_wready;
  assign b_hs  = m_bvalid && m_bready;
  assign ar_hs = m_arvalid && m_arready;
  assign r_hs  = m_rvalid && m_rready && m_rlast;

  assign drain_d = iso_i || (drain_q && (aw_pend_q || ar_pend_q || !wq_empty || rd_cnt_q != 8'd0 ||
                                         b_cnt_q != 8'd0));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      drain_q   <= 1'b0;
      rd_cnt_q  <= 8'd0;
      b_cnt_q   <= 8'd0;
      wq_wr_q   <= '0;
      wq_rd_q   <= '0;
      wbeat_q   <= 8'd0;
      aw_pend_q <= 1'b0;
      ar_pend_q <= 1'b0;
      w_pend_q  <= 1'b0;
    end else begin
      drain_q   <= drain_d;
      rd_cnt_q  <= rd_cnt_q + 8'(ar_hs) - 8'(r_hs);
      b_cnt_q   <= b_cnt_q + 8'(aw_hs) - 8'(b_hs);
      if (aw_hs) wq_wr_q <= wq_wr_q + 1'b1;
      if (w_hs) begin
        wbeat_q <= w_end ? 8'd0 : wbeat_q + 8'd1;
        if (w_end) wq_rd_q <= wq_rd_q + 1'b1;
      end
      aw_pend_q <= m_awvalid && !m_awready;
      ar_pend_q <= m_arvalid && !m_arready;
      w_pend_q  <= m_wvalid && !m_wready && (!drain || w_pend_q);
    end
  end

  // Payloads: captured while the master drives them, held during the drain.
  always_ff @(posedge clk_i) begin
    if (aw_hs) wlen_q[wq_wr_q[Pw-1:0]] <= m_awlen;
    if (!drain) begin
      aw_q <= {s_awaddr, s_awlen, s_awsize, s_awburst};
      ar_q <= {s_araddr, s_arlen, s_arsize, s_arburst};
      w_q  <= {s_wdata, s_wstrb};
    end
  end

  // Assertions
  `TSL_ASSERT_INIT(DepthRange, Depth >= 2 && (Depth > 0 && (Depth & (Depth - 1)) == 0), "Depth must be a power of two, >= 2")
endmodule
