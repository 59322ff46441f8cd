// The ICI packetizer (docs/pod.md, The link): a SEND's write bursts from the DMA (AXI AW/W, ID 0,
// INCR, beats of W = 2N bytes with strobes) in, ICI packets out to the router's chip port. A burst
// is cut into packets of at most Bpp beats (as many as fit PacketFlits - 1 payload flits); each
// packet is a header flit (DEST, SEM, INCR on the SEND's last packet, LOCAL, BYTES, ADDR of its first
// strobed byte) and the 8-byte flits of its beats that hold strobed bytes, unstrobed bytes zeroed.
// A packet's beats are buffered (2 x Bpp) before its header leaves, so one packet drains a flit a
// cycle while the next fills: the output carries a flit every cycle, packets back to back, while
// bursts keep coming. b_valid_o pulses the cycle after a burst's last beat was taken. No
// combinational path from an input to an output; AW may be taken ahead of its W (2 bursts).
module tsl_ici_pkt #(
  parameter int N           = tsl_pkg::PARAM_N,                        // beats of W = 2N bytes
  parameter int Bytes       = tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE, // flit bytes: 8 (the format's)
  parameter int PacketFlits = tsl_pkg::PARAM_ICI_PACKET_FLITS          // most flits a packet, header too
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // write bursts of one SEND at a time (AXI AW/W subset; ID 0; INCR bursts of size W)
  input  logic                 aw_valid_i,
  output logic                 aw_ready_o,
  input  logic [31:0]          aw_addr_i,      // W-aligned
  input  logic [7:0]           aw_len_i,       // beats - 1
  input  logic                 aw_incr_i,      // the SEND's last burst: its last packet has INCR
  input  logic [3:0]           aw_dest_x_i,
  input  logic [3:0]           aw_dest_y_i,
  input  logic [3:0]           aw_sem_i,
  input  logic                 aw_local_i,     // the SEND's TO_LOCAL: the header's LOCAL
  input  logic                 w_valid_i,
  output logic                 w_ready_o,
  input  logic [16*N-1:0]      w_data_i,
  input  logic [2*N-1:0]       w_strb_i,
  input  logic                 w_last_i,
  output logic                 b_valid_o,      // one cycle per burst: all its beats were taken
  // packets to the router's chip input
  output logic                 pkt_valid_o,
  input  logic                 pkt_ready_i,
  output logic [8*Bytes-1:0]   pkt_data_o,
  output logic                 pkt_last_o
);
  `include "hw/rtl/tsl_assert.svh"

  localparam int W    = 2 * N;                                   // beat bytes
  localparam int F    = W / Bytes;                               // flits a beat
  localparam int Bw   = $clog2(W);
  localparam int Lw   = F > 1 ? $clog2(F) : 1;                   // a flit's index in its beat
  localparam int Bpp0 = ((PacketFlits - 1) * Bytes) / W;
  localparam int Bpp  = Bpp0 > 1 ? Bpp0 : 1;                     // beats a packet
  localparam int AwW  = 32 + 8 + 1 + 12 + 1;                     // addr, len, incr, dest x/y, sem, local
  localparam int BeatW = 8 * W + 2 * Lw + 1;                     // data, first/last flit, packet's last
  localparam int Depth = 2 * Bpp > 2 ? 2 * Bpp : 2;

  // --- input: bursts into beats and headers -------------------------------------------------------
  logic             aw_valid, aw_pop;
  logic [AwW-1:0]   aw_data;
  logic [31:0]      cur_addr;
  logic [7:0]       cur_len;
  logic             cur_incr, cur_local;
  logic [3:0]       cur_x, cur_y, cur_sem;
  logic             beat_ready, hdr_ready, take, pkt_end;
  logic [7:0]       wbeat_q, wbeat_d, pbeat_q, pbeat_d;          // beat of the burst, of the packet
  logic [31:0]      paddr_q, paddr_d;                            // the packet's first strobed byte
  logic [8:0]       pbytes_q, pbytes_d;
  logic [Bw-1:0]    fb, lb;                                      // first, last strobed byte of the beat
  logic [8*W-1:0]   wmask;
  logic [BeatW-1:0] beat_in;
  logic [63:0]      hdr_in;
  logic             b_valid_q;
  logic [1:0]       unused_aw_level;

  tsl_prim_fifo #(.Width(AwW), .Depth(2)) u_aw (
    .clk_i, .rst_ni, .clr_i(1'b0),
    .valid_i(aw_valid_i), .ready_o(aw_ready_o),
    .data_i({aw_addr_i, aw_len_i, aw_incr_i, aw_dest_x_i, aw_dest_y_i, aw_sem_i, aw_local_i}),
    .valid_o(aw_valid), .ready_i(aw_pop), .data_o(aw_data), .level_o(unused_aw_level));

  assign {cur_addr, cur_len, cur_incr, cur_x, cur_y, cur_sem, cur_local} = aw_data;

  assign w_ready_o = aw_valid && beat_ready && hdr_ready;
  assign take      = w_valid_i && w_ready_o;
  assign aw_pop    = take && w_last_i;
  assign pkt_end   = w_last_i || pbeat_q == 8'(Bpp - 1);
  assign b_valid_o = b_valid_q;

  always_comb begin
    fb = '0;
    lb = '0;
    for (int b = W - 1; b >= 0; b--)
      if (w_strb_i[b]) fb = Bw'(b);
    for (int b = 0; b < W; b++)
      if (w_strb_i[b]) lb = Bw'(b);
    for (int b = 0; b < W; b++)
      wmask[8*b +: 8] = {8{w_strb_i[b]}};
  end

  always_comb begin
    wbeat_d  = wbeat_q;
    pbeat_d  = pbeat_q;
    paddr_d  = pbeat_q == '0 ? cur_addr + (32'(wbeat_q) << Bw) + 32'(fb) : paddr_q;
    pbytes_d = (pbeat_q == '0 ? 9'd0 : pbytes_q) + 9'(lb) - 9'(fb) + 9'd1;
    if (take) begin
      wbeat_d = w_last_i ? '0 : wbeat_q + 8'd1;
      pbeat_d = pkt_end ? '0 : pbeat_q + 8'd1;
    end
    beat_in = {w_data_i & wmask, Lw'(fb >> 3), Lw'(lb >> 3), pkt_end};
    hdr_in  = '0;
    hdr_in[tsl_pkg::ICI_HDR_DEST_X_LSB +: 4]   = cur_x;
    hdr_in[tsl_pkg::ICI_HDR_DEST_Y_LSB +: 4]   = cur_y;
    hdr_in[tsl_pkg::ICI_HDR_SEM_LSB +: 4]      = cur_sem;
    hdr_in[tsl_pkg::ICI_HDR_INCR_LSB]          = cur_incr && w_last_i;
    hdr_in[tsl_pkg::ICI_HDR_LOCAL_LSB]         = cur_local;
    hdr_in[tsl_pkg::ICI_HDR_BYTES_LSB +: 8]    = pbytes_d[7:0];
    hdr_in[tsl_pkg::ICI_HDR_ADDR_LSB +: 32]    = paddr_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wbeat_q   <= '0;
      pbeat_q   <= '0;
      b_valid_q <= 1'b0;
    end else begin
      wbeat_q   <= wbeat_d;
      pbeat_q   <= pbeat_d;
      b_valid_q <= aw_pop;
    end
  end

  always_ff @(posedge clk_i) begin
    if (take) begin
      paddr_q  <= paddr_d;
      pbytes_q <= pbytes_d;
    end
  end

  // --- output: a header, then the packet's flits ------------------------------------------------
  logic             beat_valid, beat_pop, hdr_valid, hdr_pop;
  logic [BeatW-1:0] beat_out;
  logic [63:0]      hdr_out;
  logic [8*W-1:0]   bo_data;
  logic [Lw-1:0]    bo_ff, bo_lf, cur_f, fidx_q, fidx_d;
  logic             bo_plast, in_hdr_q, in_hdr_d, fresh_q, fresh_d, go;
  logic [$clog2(Depth+1)-1:0] unused_beat_level;
  logic [2:0]       unused_hdr_level;

  tsl_prim_fifo #(.Width(BeatW), .Depth(Depth)) u_beats (
    .clk_i, .rst_ni, .clr_i(1'b0),
    .valid_i(take), .ready_o(beat_ready), .data_i(beat_in),
    .valid_o(beat_valid), .ready_i(beat_pop), .data_o(beat_out), .level_o(unused_beat_level));

  tsl_prim_fifo #(.Width(64), .Depth(4)) u_hdrs (
    .clk_i, .rst_ni, .clr_i(1'b0),
    .valid_i(take && pkt_end), .ready_o(hdr_ready), .data_i(hdr_in),
    .valid_o(hdr_valid), .ready_i(hdr_pop), .data_o(hdr_out), .level_o(unused_hdr_level));

  assign {bo_data, bo_ff, bo_lf, bo_plast} = beat_out;
  assign cur_f = fresh_q ? bo_ff : fidx_q;   // the flit of the head beat that goes next

  always_comb begin
    pkt_valid_o = in_hdr_q ? hdr_valid : beat_valid;
    pkt_data_o  = hdr_out;
    pkt_last_o  = 1'b0;
    if (!in_hdr_q) begin
      pkt_data_o = '0;
      for (int f = 0; f < F; f++)
        if (cur_f == Lw'(f)) pkt_data_o = bo_data[64*f +: 64];
      pkt_last_o = bo_plast && cur_f == bo_lf;
    end
  end

  // Apart from the outputs above, so that no tool sees a path from pkt_ready_i to them.
  always_comb begin
    go       = pkt_valid_o && pkt_ready_i;
    hdr_pop  = go && in_hdr_q;
    beat_pop = go && !in_hdr_q && cur_f == bo_lf;
    in_hdr_d = in_hdr_q;
    fresh_d  = fresh_q;
    fidx_d   = fidx_q;
    if (hdr_pop) in_hdr_d = 1'b0;
    if (go && !in_hdr_q) begin
      fresh_d  = beat_pop;
      fidx_d   = cur_f + Lw'(1);
      in_hdr_d = pkt_last_o;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_hdr_q <= 1'b1;
      fresh_q  <= 1'b1;
      fidx_q   <= '0;
    end else begin
      in_hdr_q <= in_hdr_d;
      fresh_q  <= fresh_d;
      fidx_q   <= fidx_d;
    end
  end

  // Assertions
  `TSL_ASSERT_INIT(ParamRange, Bytes == 8 && W % Bytes == 0 && W <= (PacketFlits - 1) * Bytes &&
                   PacketFlits >= 2 && PacketFlits <= 32, "8-byte flits, a beat in one packet, BYTES in 8 bits")
  `TSL_ASSERT(AwAligned, aw_valid_i |-> aw_addr_i[Bw-1:0] == '0, "AW address not W-aligned")
  `TSL_ASSERT(AwPage, aw_valid_i |-> 20'(aw_addr_i[11:0]) + ((20'(aw_len_i) + 20'd1) << Bw) <= 20'd4096,
              "a burst crosses a 4 KiB boundary")
  `TSL_ASSERT(StrbNonEmpty, take |-> w_strb_i != '0, "a beat with no strobe bit set")
  `TSL_ASSERT(StrbContiguous, take |-> $countones(w_strb_i) == 32'(lb) - 32'(fb) + 1,
              "a beat's strobes are not one contiguous range")
  `TSL_ASSERT(StrbToEnd, take && !w_last_i |-> w_strb_i[W-1], "a beat before the burst's last ends early")
  `TSL_ASSERT(StrbFromStart, take && wbeat_q != '0 |-> w_strb_i[0], "a beat after the burst's first starts late")
  `TSL_ASSERT(LastAtLen, take |-> w_last_i == (wbeat_q == cur_len), "w_last not on the burst's beat len")
  `TSL_ASSERT(PktHeld, pkt_valid_o && !pkt_ready_i |=> pkt_valid_o && $stable(pkt_data_o),
              "a flit withdrawn or changed before it was taken")
endmodule
