// Bridge from the core's 32-bit bus contract to an AXI4 master. Each bus access becomes one
// single-beat INCR transaction of the full data width (AxSIZE = log2(DataW/8), address aligned to
// it): a write drives AW and W together (the 32-bit word replicated on every lane, WSTRB = the bus
// strobes shifted to the word's lane), waits for B; a read drives AR and takes the word's lane of
// the one R beat. SLVERR/DECERR answer the bus with err (the core then takes an access fault).
// Latency: AXI valid one cycle after bus_valid_i, bus_ready_o one cycle after the last response
// handshake (B or R). One access at a time. No combinational path from bus_* to m_axi_*valid, nor
// from any m_axi_*ready to a valid. The bus payload must hold steady while bus_valid_i is high.
// clr_i abandons the current access (its requester was reset): the AXI transaction still
// completes so the interconnect stays consistent, but the bus gets no answer for it.
// With LineBeats > 1 a read fetches the whole aligned line of LineBeats beats (one INCR burst)
// into a line buffer, and the reads that follow in the same line are answered from it (bus_ready_o
// one cycle after bus_valid_i): the firmware's 16-word command fetch costs one HBM latency, not 16.
// The line is dropped on any write through this bridge, on inval_i (the SoC raises it for every
// write another master starts and every host register access), when a fill ends with an error or
// saw inval_i, and LineLife cycles after its fill, so a read never returns data older than a write
// the SoC has seen, and a poll of one word in HBM sees any change within LineLife cycles.
// pf_i / pf_addr_i (LineBeats > 1) ask for pf_addr_i's line ahead of a read: the fill starts when
// the bridge is idle and inval_i is low, unless the line is already held, and answers no bus access;
// a bus access that starts first cancels it, and one that arrives during it waits for its end. The
// SoC points it at the command the host's doorbell announces, so the firmware's read of it hits.
`include "hw/rtl/tsl_axi.svh"
module tsl_axi_from_bus #(
  parameter int DataW     = 256,  // AXI data bits: 32 * 2^k (the SoC uses 16N)
  parameter int LineBeats = 1,    // beats per read line: 1 (no line buffer) or a power of two <= 16
  parameter int LineLife  = 255   // cycles a line stays usable after its fill (1..255)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               clr_i,
  input  logic               inval_i,  // drop the line (LineBeats > 1)
  input  logic               pf_i,     // fetch pf_addr_i's line ahead (LineBeats > 1; a hint)
  input  logic [31:0]        pf_addr_i,
  // bus slave (core contract); bus_addr_i is the AXI byte address
  input  logic               bus_valid_i,
  output logic               bus_ready_o,
  input  logic [31:0]        bus_addr_i,
  input  logic [31:0]        bus_wdata_i,
  input  logic [3:0]         bus_wstrb_i,
  output logic [31:0]        bus_rdata_o,
  output logic               bus_err_o,
  // AXI4 master (no IDs)
  `TSL_AXI_M_PORTS(m_axi_, DataW)
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int Lanes = DataW / 32;
  localparam int OffW  = $clog2(DataW / 8);  // byte-offset bits of one beat

  typedef enum logic [2:0] {StIdle, StWrite, StB, StRead, StR, StDone} state_e;
  state_e      state_q, state_d;
  logic        aw_pend_q, aw_pend_d, w_pend_q, w_pend_d;
  logic        err_q, err_d, drop_q, drop_d;
  logic [31:0] rdata_q, rdata_d, lane_rdata;
  localparam int LineW   = (LineBeats > 1) ? $clog2(LineBeats) : 1;
  localparam int LineOff = OffW + ((LineBeats > 1) ? $clog2(LineBeats) : 0);  // byte-offset bits of a line
  logic                 line_ok_q, line_ok_d, fill_bad_q, fill_bad_d, hit;
  logic [31:LineOff]    line_tag_q, line_tag_d, pf_tag_q;
  logic                 pf_pend_q, pf_pend_d, pf_fill_q, pf_fill_d;
  logic [7:0]           line_age_q, line_age_d;
  logic [LineW-1:0]     beat_q, beat_d;
  logic [DataW-1:0]     line_q [LineBeats];
  logic [LineW-1:0]     beat_sel;   // the beat of the line that holds the addressed word
  logic [31:0]          line_word;  // that word, from the line buffer

  // Lane select of the 32-bit word within the beat.
  logic [DataW-1:0] sel_beat;
  if (Lanes == 1) begin : g_one_lane
    assign m_axi_wstrb = bus_wstrb_i;
    assign lane_rdata  = m_axi_rdata[31:0];
    assign line_word   = sel_beat[31:0];
  end else begin : g_lanes
    logic [$clog2(Lanes)-1:0] lane;
    logic [DataW/8-1:0]       strb;
    assign lane        = bus_addr_i[OffW-1:2];
    assign strb        = {{(DataW / 8 - 4){1'b0}}, bus_wstrb_i};
    assign m_axi_wstrb = strb << {lane, 2'b00};
    assign lane_rdata  = m_axi_rdata[lane*32 +: 32];
    assign line_word   = sel_beat[lane*32 +: 32];
  end
  if (LineBeats > 1) begin : g_line
    assign beat_sel = bus_addr_i[LineOff-1:OffW];
  end else begin : g_no_line
    assign beat_sel = 1'b0;
  end
  assign sel_beat = line_q[beat_sel];

  assign m_axi_awaddr  = {bus_addr_i[31:OffW], {OffW{1'b0}}};
  assign m_axi_awlen   = 8'd0;
  assign m_axi_awsize  = 3'(OffW);
  assign m_axi_awburst = 2'b01;  // INCR
  assign m_axi_wdata   = {Lanes{bus_wdata_i}};
  assign m_axi_wlast   = 1'b1;
  assign m_axi_araddr  = {line_tag_q, {LineOff{1'b0}}};   // the line being filled
  assign m_axi_arlen   = 8'(LineBeats - 1);
  assign m_axi_arsize  = 3'(OffW);
  assign m_axi_arburst = 2'b01;

  assign m_axi_awvalid = (state_q == StWrite) && aw_pend_q;
  assign m_axi_wvalid  = (state_q == StWrite) && w_pend_q;
  assign m_axi_bready  = (state_q == StB);
  assign m_axi_arvalid = (state_q == StRead);
  assign m_axi_rready  = (state_q == StR);

  always_comb begin
    state_d   = state_q;
    aw_pend_d = aw_pend_q;
    w_pend_d  = w_pend_q;
    err_d     = err_q;
    rdata_d   = rdata_q;
    drop_d    = drop_q || (clr_i && state_q != StIdle);
    line_ok_d  = line_ok_q && !inval_i && line_age_q != 8'(LineLife);
    line_tag_d = line_tag_q;
    line_age_d = line_age_q + 8'(line_ok_q);
    fill_bad_d = fill_bad_q || inval_i;
    beat_d     = beat_q;
    pf_pend_d  = LineBeats > 1 && (pf_pend_q || pf_i);
    pf_fill_d  = pf_fill_q;
    unique case (state_q)
      StIdle: begin
        drop_d = 1'b0;
        err_d  = 1'b0;
        if (bus_valid_i && !clr_i) begin
          pf_pend_d = pf_i;   // the core came first: a pending prefetch is dropped
          if (bus_wstrb_i != 4'd0) begin
            state_d   = StWrite;
            aw_pend_d = 1'b1;
            w_pend_d  = 1'b1;
            line_ok_d = 1'b0;
          end else if (hit) begin
            rdata_d = line_word;
            state_d = StDone;
          end else begin
            state_d    = StRead;
            line_ok_d  = 1'b0;
            line_tag_d = bus_addr_i[31:LineOff];
            fill_bad_d = inval_i;
            beat_d     = '0;
          end
        end else if (pf_pend_q && !inval_i) begin
          pf_pend_d = pf_i;
          if (!(line_ok_q && line_tag_q == pf_tag_q)) begin   // the prefetch's fill
            state_d    = StRead;
            line_ok_d  = 1'b0;
            line_tag_d = pf_tag_q;
            fill_bad_d = 1'b0;
            beat_d     = '0;
            pf_fill_d  = 1'b1;
          end
        end
      end
      StWrite: begin
        if (m_axi_awready) aw_pend_d = 1'b0;
        if (m_axi_wready)  w_pend_d  = 1'b0;
        if (!aw_pend_d && !w_pend_d) state_d = StB;
      end
      StB: begin
        if (m_axi_bvalid) begin
          err_d   = m_axi_bresp[1];
          rdata_d = '0;
          state_d = StDone;
        end
      end
      StRead: begin
        if (m_axi_arready) state_d = StR;
      end
      StR: begin
        if (m_axi_rvalid) begin
          err_d      = err_d || m_axi_rresp[1];
          fill_bad_d = fill_bad_d || m_axi_rresp[1];
          beat_d     = beat_q + LineW'(LineBeats > 1);
          if (beat_q == beat_sel)
            rdata_d = m_axi_rresp[1] ? 32'd0 : lane_rdata;
          if (m_axi_rlast) begin
            state_d    = StDone;
            if (pf_fill_q) state_d = StIdle;   // a prefetch answers no access
            pf_fill_d  = 1'b0;
            line_ok_d  = LineBeats > 1 && !fill_bad_d;
            line_age_d = 8'd0;
          end
        end
      end
      StDone: state_d = StIdle;
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= StIdle;
      aw_pend_q <= 1'b0;
      w_pend_q  <= 1'b0;
      err_q     <= 1'b0;
      drop_q    <= 1'b0;
      line_ok_q <= 1'b0;
      fill_bad_q <= 1'b0;
      line_age_q <= 8'd0;
      beat_q    <= '0;
      pf_pend_q <= 1'b0;
      pf_fill_q <= 1'b0;
    end else begin
      state_q   <= state_d;
      aw_pend_q <= aw_pend_d;
      w_pend_q  <= w_pend_d;
      err_q     <= err_d;
      drop_q    <= drop_d;
      line_ok_q <= line_ok_d;
      fill_bad_q <= fill_bad_d;
      line_age_q <= line_age_d;
      beat_q    <= beat_d;
      pf_pend_q <= pf_pend_d;
      pf_fill_q <= pf_fill_d;
    end
  end

  // Read data, the line and its tag are datapath registers (not reset; line_ok_q guards them).
  always_ff @(posedge clk_i) begin
    rdata_q    <= rdata_d;
    line_tag_q <= line_tag_d;
    if (pf_i) pf_tag_q <= pf_addr_i[31:LineOff];
    if (state_q == StR && m_axi_rvalid) line_q[beat_q] <= m_axi_rdata;
  end
  assign hit = LineBeats > 1 && line_ok_q && !inval_i && line_tag_q == bus_addr_i[31:LineOff];

  assign bus_ready_o = (state_q == StDone) && !drop_q && !clr_i;
  assign bus_rdata_o = rdata_q;
  assign bus_err_o   = err_q;

  logic unused_bits;  // word-aligned access; resp[0] only tells SLVERR from DECERR
  assign unused_bits = ^{bus_addr_i[1:0], m_axi_bresp[0], m_axi_rresp[0], pf_addr_i[LineOff-1:0]};

  // Assertions
  `TSL_ASSERT_INIT(LineRange, LineBeats >= 1 && LineBeats <= 16 && (LineBeats & (LineBeats - 1)) == 0
                   && LineLife >= 1 && LineLife <= 255, "LineBeats must be a power of two <= 16, LineLife 1..255")
  `TSL_ASSERT_INIT(DataWRange, DataW >= 32 && (DataW / 32 > 0 && (DataW / 32 & (DataW / 32 - 1)) == 0) && DataW % 32 == 0,
                   "DataW must be 32 times a power of two")
  `TSL_ASSERT(BusHeld, bus_valid_i && !bus_ready_o && !clr_i |=> clr_i || (bus_valid_i
              && $stable(bus_addr_i) && $stable(bus_wdata_i) && $stable(bus_wstrb_i)),
              "the bus request changed before bus_ready_o")
  `TSL_ASSERT(ArHeld, m_axi_arvalid && !m_axi_arready |=> m_axi_arvalid && $stable(m_axi_araddr),
              "AR changed before arready")
  `TSL_ASSERT(AwHeld, m_axi_awvalid && !m_axi_awready |=> m_axi_awvalid && $stable(m_axi_awaddr),
              "AW changed before awready")
  `TSL_ASSERT(WHeld, m_axi_wvalid && !m_axi_wready |=> m_axi_wvalid && $stable(m_axi_wdata)
              && $stable(m_axi_wstrb), "W changed before wready")
endmodule
