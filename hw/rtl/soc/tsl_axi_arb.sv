// M-to-1 AXI4 arbiter without IDs on the slave side. AW and AR are granted round-robin, each
// independently; a grant is held (locked) from the cycle its valid appears on the slave side until
// the handshake, so the slave sees stable AW/AR payloads. Each AW grant pushes the master's index
// into a W FIFO (W beats of that master pass until WLAST) and a B FIFO (one B routed back); each AR
// grant pushes into an R FIFO (R beats routed back until RLAST). Responses thus return in the
// order the slave accepted the requests, which an ID-less AXI slave must keep.
// Latency: AW/AR pass combinationally (master valid -> slave valid); W of a granted burst starts
// the cycle after its AW handshake. Full throughput per channel. Slave-side valids depend only on
// master valids and registered state, never on a slave-side ready.
// Depth bounds the outstanding bursts per direction (AW and AR stall while their FIFO is full).
`include "hw/rtl/tsl_axi.svh"
module tsl_axi_arb #(
  parameter int Masters = 3,    // number of AXI masters (>= 1); index 0 has no priority
  parameter int DataW   = 256,  // data bits
  parameter int Depth   = 8     // outstanding bursts tracked per direction (>= 2)
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  // master side: per-master fields concatenated, master i at [i*W +: W]; BRESP, RDATA, RRESP and
  // RLAST are shared by all masters (tsl_axi.svh's array form)
  `TSL_AXI_S_PORTS_ARRAY(s_axi_, DataW, Masters),
  // slave side
  `TSL_AXI_M_PORTS(m_axi_, DataW)
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int IdxW = (Masters > 1) ? $clog2(Masters) : 1;
  localparam int Lw   = $clog2(Depth + 1);

  // --- request channels: round-robin with lock -----------------------------------------------
  logic [IdxW-1:0] aw_sel, ar_sel;
  logic            aw_go, ar_go;  // slave-side handshake this cycle
  logic            wq_ready, bq_ready, rq_ready;

  tsl_axi_arb_rr #(.Masters(Masters)) u_aw_rr (
    .clk_i,
    .rst_ni,
    .valid_i  (s_axi_awvalid),
    .enable_i (wq_ready && bq_ready),
    .ready_i  (m_axi_awready),
    .valid_o  (m_axi_awvalid),
    .sel_o    (aw_sel),
    .go_o     (aw_go)
  );

  tsl_axi_arb_rr #(.Masters(Masters)) u_ar_rr (
    .clk_i,
    .rst_ni,
    .valid_i  (s_axi_arvalid),
    .enable_i (rq_ready),
    .ready_i  (m_axi_arready),
    .valid_o  (m_axi_arvalid),
    .sel_o    (ar_sel),
    .go_o     (ar_go)
  );

  assign m_axi_awaddr  = s_axi_awaddr[aw_sel*32 +: 32];
  assign m_axi_awlen   = s_axi_awlen[aw_sel*8 +: 8];
  assign m_axi_awsize  = s_axi_awsize[aw_sel*3 +: 3];
  assign m_axi_awburst = s_axi_awburst[aw_sel*2 +: 2];
  assign m_axi_araddr  = s_axi_araddr[ar_sel*32 +: 32];
  assign m_axi_arlen   = s_axi_arlen[ar_sel*8 +: 8];
  assign m_axi_arsize  = s_axi_arsize[ar_sel*3 +: 3];
  assign m_axi_arburst = s_axi_arburst[ar_sel*2 +: 2];

  always_comb begin
    s_axi_awready = '0;
    s_axi_arready = '0;
    s_axi_awready[aw_sel] = m_axi_awready && m_axi_awvalid;
    s_axi_arready[ar_sel] = m_axi_arready && m_axi_arvalid;
  end

  // --- order FIFOs ----------------------------------------------------------------------------
  logic            wq_valid, bq_valid, rq_valid, w_pop, b_pop, r_pop;
  logic [IdxW-1:0] w_idx, b_idx, r_idx;
  logic [Lw-1:0]   unused_wl, unused_bl, unused_rl;

  tsl_prim_fifo #(.Width(IdxW), .Depth(Depth)) u_wq (
    .clk_i,
    .rst_ni,
    .clr_i   (1'b0),
    .valid_i (aw_go),
    .ready_o (wq_ready),
    .data_i  (aw_sel),
    .valid_o (wq_valid),
    .ready_i (w_pop),
    .data_o  (w_idx),
    .level_o (unused_wl)
  );

  tsl_prim_fifo #(.Width(IdxW), .Depth(Depth)) u_bq (
    .clk_i,
    .rst_ni,
    .clr_i   (1'b0),
    .valid_i (aw_go),
    .ready_o (bq_ready),
    .data_i  (aw_sel),
    .valid_o (bq_valid),
    .ready_i (b_pop),
    .data_o  (b_idx),
    .level_o (unused_bl)
  );

  tsl_prim_fifo #(.Width(IdxW), .Depth(Depth)) u_rq (
    .clk_i,
    .rst_ni,
    .clr_i   (1'b0),
    .valid_i (ar_go),
    .ready_o (rq_ready),
    .data_i  (ar_sel),
    .valid_o (rq_valid),
    .ready_i (r_pop),
    .data_o  (r_idx),
    .level_o (unused_rl)
  );

  // --- W: beats of the oldest granted burst ----------------------------------------------------
  assign m_axi_wvalid = wq_valid && s_axi_wvalid[w_idx];
  assign m_axi_wdata  = s_axi_wdata[w_idx*DataW +: DataW];
  assign m_axi_wstrb  = s_axi_wstrb[w_idx*(DataW/8) +: DataW/8];
  assign m_axi_wlast  = s_axi_wlast[w_idx];
  assign w_pop        = m_axi_wvalid && m_axi_wready && m_axi_wlast;

  // --- B and R: back to the master of the oldest outstanding burst -----------------------------
  assign m_axi_bready = bq_valid && s_axi_bready[b_idx];
  assign b_pop        = m_axi_bvalid && m_axi_bready;
  assign s_axi_bresp  = m_axi_bresp;
  assign m_axi_rready = rq_valid && s_axi_rready[r_idx];
  assign r_pop        = m_axi_rvalid && m_axi_rready && m_axi_rlast;
  assign s_axi_rdata  = m_axi_rdata;
  assign s_axi_rresp  = m_axi_rresp;
  assign s_axi_rlast  = m_axi_rlast;

  always_comb begin
    s_axi_wready = '0;
    s_axi_bvalid = '0;
    s_axi_rvalid = '0;
    s_axi_wready[w_idx] = wq_valid && m_axi_wready;
    s_axi_bvalid[b_idx] = bq_valid && m_axi_bvalid;
    s_axi_rvalid[r_idx] = rq_valid && m_axi_rvalid;
  end

  // Assertions
  `TSL_ASSERT_INIT(ParamRange, Masters >= 1 && Depth >= 2 && DataW % 32 == 0,
                   "Masters >= 1, Depth >= 2, DataW a multiple of 32")
  `TSL_ASSERT(ArHeld, m_axi_arvalid && !m_axi_arready |=> m_axi_arvalid
              && $stable(m_axi_araddr) && $stable(m_axi_arlen),
              "AR valid or payload changed before arready (a master broke the AXI handshake)")
  `TSL_ASSERT(AwHeld, m_axi_awvalid && !m_axi_awready |=> m_axi_awvalid
              && $stable(m_axi_awaddr) && $stable(m_axi_awlen),
              "AW valid or payload changed before awready (a master broke the AXI handshake)")
  `TSL_ASSERT(RHasBurst, m_axi_rvalid |-> rq_valid, "an R beat with no read burst outstanding")
  `TSL_ASSERT(BHasBurst, m_axi_bvalid |-> bq_valid, "a B response with no write burst outstanding")
endmodule
