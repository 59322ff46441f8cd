// The ICI ejector (docs/pod.md, The link): the packets for this chip, one stream per link, written
// into HBM over an AXI4 write master, or, those with LOCAL, into VMEM or ACC over a local port. Each
// stream parses a header, places its payload flits in the destination's beat lanes (flit j at lane
// (ADDR/8 + j) mod W/8; strobes exactly BYTES from ADDR) and buffers whole packets (beats, then a
// descriptor), taking a flit a cycle meanwhile. Streams with a complete packet are served round
// robin, a packet at a time: one INCR burst from ADDR & ~(W-1), its beats a cycle each (W may lead
// its AW; AW from a register). Up to Outstanding writes wait for B (bready 1); on each B, a packet
// with INCR pulses inc_o with its SEM the next cycle, and an error response (SLVERR, DECERR) pulses
// err_o then too, the INCR counted all the same. A packet with LOCAL is written a beat a cycle on the
// lm_* port (W bytes at a time: a VMEM line, half an ACC line), once no AXI write is in flight, and
// none starts before it is done; with INCR it pulses inc_o the cycle after its last beat was
// granted. So a count always follows the bytes of the packets before it. Ports streams at a flit a
// cycle each are never slowed when W >= Ports x 8.
`include "hw/rtl/tsl_axi.svh"
module tsl_ici_eject #(
  parameter int N           = tsl_pkg::PARAM_N,                        // beats of W = 2N bytes
  parameter int Bytes       = tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE, // flit bytes: 8 (the format's)
  parameter int PacketFlits = tsl_pkg::PARAM_ICI_PACKET_FLITS,         // most flits a packet, header too
  parameter int Ports       = 4,                                       // input streams, 1..16
  parameter int HbmBytes    = tsl_pkg::PARAM_HBM_BYTES,                // addresses wrap at it (power of 2)
  parameter int VmemBytes   = tsl_pkg::PARAM_VMEM_BYTES,               // local addresses wrap at these
  parameter int AccBytes    = tsl_pkg::PARAM_ACC_BYTES,                //   (powers of 2)
  parameter int Sems        = tsl_pkg::PARAM_ICI_SEMS,                 // semaphores, a power of 2, 2..16
  parameter int Outstanding = 8,                                       // writes awaiting B, >= 2
  localparam int LAw        = $clog2((VmemBytes > AccBytes ? VmemBytes : AccBytes) / (2 * N))
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  // packets for this chip, one stream per link (a packet's flits in order, in_last on its last)
  input  logic [Ports-1:0]           in_valid_i,
  output logic [Ports-1:0]           in_ready_o,
  input  logic [Ports*8*Bytes-1:0]   in_data_i,
  input  logic [Ports-1:0]           in_last_i,
  // AXI4 master toward HBM: writes only (AR tied off, rready 1)
  `TSL_AXI_M_PORTS(m_axi_, 16 * N),
  // local writes (granted in the cycle they ask, or asked again): W bytes at lm_addr_o x W of ACC
  // (lm_acc_o) or VMEM
  output logic                       lm_req_o,
  input  logic                       lm_gnt_i,
  output logic                       lm_acc_o,
  output logic [LAw-1:0]             lm_addr_o,
  output logic [16*N-1:0]            lm_wdata_o,
  output logic [2*N-1:0]             lm_be_o,
  output logic                       inc_o,      // a packet with INCR landed: semaphore inc_sem_o counts one
  output logic [$clog2(Sems)-1:0]    inc_sem_o,
  output logic                       err_o       // a write came back with an error response
);
  `include "hw/rtl/tsl_assert.svh"

  localparam int W     = 2 * N;                                    // beat bytes
  localparam int F     = W / 8;                                    // flits a beat
  localparam int Bw    = $clog2(W);
  localparam int Lw    = F > 1 ? $clog2(F) : 1;                    // a lane (a flit of a beat)
  localparam int Sw    = $clog2(Sems);
  localparam int Iw    = Ports > 1 ? $clog2(Ports) : 1;
  localparam int MaxBeats = (PacketFlits - 1 + 2 * (F - 1)) / F;   // a packet's beats, its flits misaligned
  localparam int BeatW = 8 * W + W + 1;                            // data, strobes, the packet's last
  localparam int DescW = 32 + 8 + 1 + 1 + Sw;                      // address, len, LOCAL, INCR, SEM
  localparam int AccBit = DescW - 32 + $clog2(tsl_pkg::LOCAL_ACC_BASE);   // the address's ACC bit

  logic [Ports-1:0]       beat_valid, beat_pop, desc_valid, desc_pop;
  logic [Ports*BeatW-1:0] beat_out;
  logic [Ports*DescW-1:0] desc_out;

  // --- per stream: header, lanes, whole packets -------------------------------------------------
  for (genvar p = 0; p < Ports; p++) begin : g_stream
    logic [63:0]      d;
    logic [31:0]      a;
    logic [7:0]       nbytes;
    logic [9:0]       beats;
    logic [8:0]       nflits;
    logic             hdr_q, first_q, take, complete, beat_ready, desc_ready;
    logic [7:0]       left_q;                  // payload flits still to come
    logic [Lw-1:0]    lane_q;
    logic [2:0]       lo_q, hi_q;              // the first flit's first byte, the last's end (0: all)
    logic [8*W-1:0]   asm_data_q, asm_data_d;
    logic [W-1:0]     asm_strb_q, asm_strb_d;
    logic [DescW-1:0] desc_q;
    logic [7:0]       fstrb;
    logic [$clog2(2*MaxBeats+1)-1:0] unused_beat_level;
    logic [2:0]       unused_desc_level;

    assign d      = in_data_i[p*8*Bytes +: 64];
    assign a      = d[tsl_pkg::ICI_HDR_ADDR_LSB +: 32];
    assign nbytes = d[tsl_pkg::ICI_HDR_BYTES_LSB +: 8];
    assign beats  = (10'(a[Bw-1:0]) + 10'(nbytes) + 10'(W - 1)) >> Bw;
    assign nflits = (9'(a[2:0]) + 9'(nbytes) + 9'd7) >> 3;

    assign complete      = lane_q == Lw'(F - 1) || left_q == 8'd1;
    assign in_ready_o[p] = hdr_q || !complete || (beat_ready && (left_q != 8'd1 || desc_ready));
    assign take          = in_valid_i[p] && in_ready_o[p];

    always_comb begin
      fstrb = 8'hFF;
      if (first_q) fstrb = fstrb & (8'hFF << lo_q);
      if (left_q == 8'd1 && hi_q != '0) fstrb = fstrb & ~(8'hFF << hi_q);
      asm_data_d = asm_data_q;
      asm_strb_d = asm_strb_q;
      for (int l = 0; l < F; l++)
        if (lane_q == Lw'(l)) begin
          asm_data_d[64*l +: 64] = d;
          asm_strb_d[8*l +: 8]   = fstrb;
        end
    end

    tsl_prim_fifo #(.Width(BeatW), .Depth(2 * MaxBeats)) u_beats (
      .clk_i, .rst_ni, .clr_i(1'b0),
      .valid_i(take && !hdr_q && complete), .ready_o(beat_ready),
      .data_i({asm_data_d, asm_strb_d, left_q == 8'd1}),
      .valid_o(beat_valid[p]), .ready_i(beat_pop[p]), .data_o(beat_out[p*BeatW +: BeatW]),
      .level_o(unused_beat_level));

    tsl_prim_fifo #(.Width(DescW), .Depth(4)) u_descs (
      .clk_i, .rst_ni, .clr_i(1'b0),
      .valid_i(take && !hdr_q && left_q == 8'd1), .ready_o(desc_ready), .data_i(desc_q),
      .valid_o(desc_valid[p]), .ready_i(desc_pop[p]), .data_o(desc_out[p*DescW +: DescW]),
      .level_o(unused_desc_level));

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        hdr_q  <= 1'b1;
        left_q <= '0;
      end else if (take) begin
        hdr_q  <= !hdr_q && left_q == 8'd1;
        left_q <= hdr_q ? 8'(nflits) : left_q - 8'd1;
      end
    end

    always_ff @(posedge clk_i) begin
      if (take && hdr_q) begin
        lane_q     <= Lw'((a >> 3) & 32'(F - 1));
        first_q    <= 1'b1;
        lo_q       <= a[2:0];
        hi_q       <= a[2:0] + nbytes[2:0];
        asm_strb_q <= '0;
        desc_q     <= {a & ~32'(W - 1) & (d[tsl_pkg::ICI_HDR_LOCAL_LSB] ? '1 : 32'(HbmBytes - 1)),
                       8'(beats - 10'd1), d[tsl_pkg::ICI_HDR_LOCAL_LSB], d[tsl_pkg::ICI_HDR_INCR_LSB],
                       d[tsl_pkg::ICI_HDR_SEM_LSB +: Sw]};
      end else if (take) begin
        lane_q     <= lane_q == Lw'(F - 1) ? '0 : lane_q + Lw'(1);
        first_q    <= 1'b0;
        asm_data_q <= asm_data_d;
        asm_strb_q <= complete ? '0 : asm_strb_d;
      end
    end

    `TSL_ASSERT(InHeld, in_valid_i[p] && !in_ready_o[p] |=> in_valid_i[p], "a flit withdrawn before it was taken")
    `TSL_ASSERT(HdrBytes, take && hdr_q |-> nbytes != '0 && 32'(nflits) < 32'(PacketFlits),
                "a header's BYTES is 0 or its payload does not fit a packet")
    `TSL_ASSERT(HdrPage, take && hdr_q |-> 13'(a[11:0]) + 13'(nbytes) <= 13'd4096,
                "a packet crosses a 4 KiB boundary")
    `TSL_ASSERT(LastAtEnd, take |-> in_last_i[p] == (!hdr_q && left_q == 8'd1),
                "in_last does not mark the flit BYTES and HBM_ADDR make the last")
  end

  // --- AW: round robin over the streams with a complete packet ----------------------------------
  logic            awvalid_q, load, load_lm, to_lm, bq_ready, bq_valid, wq_ready, wq_valid, wq_pop;
  logic            lm_q, lm_acc_q, lm_incr_q, lm_pop, lm_end;   // a LOCAL packet being written: ACC, INCR
  logic [Iw-1:0]   lm_s_q;
  logic [LAw-1:0]  lm_line_q;
  logic [Sw-1:0]   lm_sem_q;
  logic [31:0]     lm_addr;
  logic [31:0]     awaddr_q;
  logic [7:0]      awlen_q;
  logic [Iw-1:0]   grant, last_q, ws, c;
  logic [DescW-1:0] desc;
  logic [Sw:0]     bq_out;
  logic [$clog2(Outstanding+1)-1:0] unused_wq_level, unused_bq_level;

  always_comb begin
    grant = last_q;
    for (int k = Ports; k >= 1; k--) begin   // the first after the last one served
      c = Iw'((32'(last_q) + 32'(k)) % Ports);
      if (desc_valid[c]) grant = c;
    end
    desc     = desc_out[grant*DescW +: DescW];
    to_lm    = desc[Sw+1];
    load     = (desc_valid != '0) && !to_lm && !lm_q && (!awvalid_q || m_axi_awready) && bq_ready && wq_ready;
    load_lm  = (desc_valid != '0) && to_lm && !lm_q && !awvalid_q && !wq_valid && !bq_valid;
    desc_pop = load || load_lm ? Ports'(1) << grant : '0;
    lm_addr  = desc[DescW-1 -: 32] & (desc[AccBit] ? 32'(AccBytes - 1) : 32'(VmemBytes - 1));
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      awvalid_q <= 1'b0;
      lm_q      <= 1'b0;
      last_q    <= Iw'(Ports - 1);
    end else begin
      if (m_axi_awready) awvalid_q <= 1'b0;
      if (load) awvalid_q <= 1'b1;
      if (load || load_lm) last_q <= grant;
      if (load_lm) lm_q <= 1'b1;
      else if (lm_end) lm_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (load) {awaddr_q, awlen_q} <= desc[DescW-1 -: 40];
    if (load_lm) begin
      lm_s_q    <= grant;
      lm_acc_q  <= desc[AccBit];
      lm_line_q <= LAw'(lm_addr >> Bw);
      lm_incr_q <= desc[Sw];
      lm_sem_q  <= desc[Sw-1:0];
    end else if (lm_pop) begin
      lm_line_q <= lm_line_q + LAw'(1);
    end
  end

  // --- local: the beats of the packet being written, W bytes each -------------------------------
  logic [BeatW-1:0] lm_beat;
  assign lm_beat    = beat_out[lm_s_q*BeatW +: BeatW];
  assign lm_req_o   = lm_q && beat_valid[lm_s_q];
  assign lm_acc_o   = lm_acc_q;
  assign lm_addr_o  = lm_line_q;
  assign {lm_wdata_o, lm_be_o} = lm_beat[BeatW-1:1];
  assign lm_pop     = lm_req_o && lm_gnt_i;
  assign lm_end     = lm_pop && lm_beat[0];

  assign m_axi_awvalid = awvalid_q;
  assign m_axi_awaddr  = awaddr_q;
  assign m_axi_awlen   = awlen_q;
  assign m_axi_awsize  = 3'(Bw);
  assign m_axi_awburst = 2'b01;

  // --- W: the beats of each loaded packet, in AW order ------------------------------------------
  tsl_prim_fifo #(.Width(Iw), .Depth(Outstanding)) u_wq (
    .clk_i, .rst_ni, .clr_i(1'b0),
    .valid_i(load), .ready_o(wq_ready), .data_i(grant),
    .valid_o(wq_valid), .ready_i(wq_pop), .data_o(ws), .level_o(unused_wq_level));

  always_comb begin
    {m_axi_wdata, m_axi_wstrb, m_axi_wlast} = beat_out[ws*BeatW +: BeatW];
    m_axi_wvalid = wq_valid && beat_valid[ws];
  end
  assign beat_pop = (m_axi_wvalid && m_axi_wready ? Ports'(1) << ws : '0) | (lm_pop ? Ports'(1) << lm_s_q : '0);
  assign wq_pop   = m_axi_wvalid && m_axi_wready && m_axi_wlast;

  // --- B: (INCR, SEM) of each write in flight -----------------------------------------------------
  logic          inc_q, err_q;
  logic [Sw-1:0] inc_sem_q;

  tsl_prim_fifo #(.Width(Sw + 1), .Depth(Outstanding)) u_bq (
    .clk_i, .rst_ni, .clr_i(1'b0),
    .valid_i(load), .ready_o(bq_ready), .data_i(desc[Sw:0]),   // INCR, SEM
    .valid_o(bq_valid), .ready_i(m_axi_bvalid), .data_o(bq_out), .level_o(unused_bq_level));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      inc_q     <= 1'b0;
      err_q     <= 1'b0;
      inc_sem_q <= '0;
    end else begin
      inc_q     <= (m_axi_bvalid && bq_out[Sw]) || (lm_end && lm_incr_q);
      err_q     <= m_axi_bvalid && m_axi_bresp[1];
      inc_sem_q <= lm_q ? lm_sem_q : bq_out[Sw-1:0];
    end
  end

  assign m_axi_bready  = 1'b1;
  assign inc_o         = inc_q;
  assign inc_sem_o     = inc_sem_q;
  assign err_o         = err_q;
  assign m_axi_arvalid = 1'b0;
  assign m_axi_araddr  = '0;
  assign m_axi_arlen   = '0;
  assign m_axi_arsize  = '0;
  assign m_axi_arburst = '0;
  assign m_axi_rready  = 1'b1;
  logic unused_in;   // the read channel, and BRESP's OKAY/EXOKAY bit
  assign unused_in = ^{m_axi_arready, m_axi_rvalid, m_axi_rdata, m_axi_rresp, m_axi_rlast, m_axi_bresp[0]};

  // Assertions
  `TSL_ASSERT_INIT(ParamRange, Bytes == 8 && W % 8 == 0 && (W & (W - 1)) == 0 && PacketFlits <= 32 &&
                   Ports >= 1 && Ports <= 16 && Sems >= 2 && Sems <= 16 && (Sems & (Sems - 1)) == 0 &&
                   (HbmBytes & (HbmBytes - 1)) == 0 && Outstanding >= 2,
                   "8-byte flits, W a power of two, Sems 2..16, HbmBytes a power of two")
  `TSL_ASSERT(BWithoutAw, m_axi_bvalid |-> bq_valid, "a B response with no write outstanding")
  `TSL_ASSERT(LocalAlone, lm_q |-> !m_axi_bvalid && !m_axi_wvalid && !awvalid_q, "an AXI write beside a LOCAL packet")
  `TSL_ASSERT(AwHeld, m_axi_awvalid && !m_axi_awready |=> m_axi_awvalid && $stable(m_axi_awaddr),
              "AW withdrawn or changed before its handshake")
endmodule
