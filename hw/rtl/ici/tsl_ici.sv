// The ICI unit of a chip (docs/pod.md): Ports links (2 for a ring, +X and -X; 4 for a torus, then
// +Y and -Y), each a sender (tsl_ici_tx) and a receiver (tsl_ici_rx); the router (tsl_ici_router)
// for packets passing through; a packetizer per link (tsl_ici_pkt) for the SENDs of that link's
// send engine (tsl_dma_ici); the ejector that writes packets for this chip into HBM (tsl_ici_eject,
// an AXI4 master) or local memory (VMEM or ACC, ports of the tensor core); and the semaphores (tsl_ici_sem),
// which the packets with INCR and the send engines' SENDs with DONE increment.
//   link in ─► rx ─► steer ─┬─ for this chip ─────► eject ─► HBM (AXI) or local ─► INCR ─► sem
//                           └─ for another ─► router ─┐
//   send engine p's bursts ─► pkt p ──────────────────┴─ a packet at a time ─► tx p ─► link p out
// Each receiver hands a packet for this chip straight to its own ejector stream, and each link has
// its own packetizer, so every link sends and delivers at its full rate at once. The router's chip
// port is unused (a SEND to this chip itself is refused at dispatch; a send engine's packets leave
// by its own link, the route's).
// Reset: rst_ni only. The links, their credits and the packets in flight belong to the pod, not
// to the chip's cores: a reset of the cores (HOSTIF RESET) leaves them running. sem_clear_i
// (TC CTRL.RESET, a reset of the cores) zeroes the semaphores.
`include "hw/rtl/tsl_axi.svh"
module tsl_ici #(
  parameter int N        = tsl_pkg::PARAM_N,
  parameter int HbmBytes = tsl_pkg::PARAM_HBM_BYTES,
  parameter int VmemBytes = tsl_pkg::PARAM_VMEM_BYTES,
  parameter int AccBytes = tsl_pkg::PARAM_ACC_BYTES,
  parameter int Ports    = 4,                                    // 2 (a ring) or 4 (a torus)
  parameter int Bytes    = tsl_pkg::PARAM_ICI_LINK_BYTES_PER_CYCLE,
  parameter int Credits  = tsl_pkg::PARAM_ICI_RX_FLITS,          // each receiver's buffer, in flits
  localparam int Cw      = $clog2(Credits + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // this chip's coordinates and the pod's extents
  input  logic [3:0]             chip_x_i,
  input  logic [3:0]             chip_y_i,
  input  logic [4:0]             pod_x_i,
  input  logic [4:0]             pod_y_i,
  // SEND's write bursts from the DMA's send engines, link p's at index p (tsl_dma_ici's ici_* port)
  input  logic [Ports-1:0]       aw_valid_i,
  output logic [Ports-1:0]       aw_ready_o,
  input  logic [Ports*32-1:0]    aw_addr_i,
  input  logic [Ports*8-1:0]     aw_len_i,
  input  logic [Ports-1:0]       aw_incr_i,
  input  logic [Ports*4-1:0]     dest_x_i,
  input  logic [Ports*4-1:0]     dest_y_i,
  input  logic [Ports*4-1:0]     sem_i,
  input  logic [Ports-1:0]       local_i,        // the SEND's TO_LOCAL
  input  logic [Ports-1:0]       w_valid_i,
  output logic [Ports-1:0]       w_ready_o,
  input  logic [Ports*16*N-1:0]  w_data_i,
  input  logic [Ports*2*N-1:0]   w_strb_i,
  input  logic [Ports-1:0]       w_last_i,
  output logic [Ports-1:0]       b_valid_o,
  // a SEND with DONE left send engine p: this chip's semaphore done_sem_i[4p+:4] counts one
  input  logic [Ports-1:0]       done_inc_i,
  input  logic [Ports*4-1:0]     done_sem_i,
  // SEMWAIT (tsl_dma's sem_wait_* port), its bound in cycles (HOSTIF ICI_WAIT, also the senders'
  // bound on a link that returns no credit), the semaphores' clear
  input  logic [31:0]            wait_limit_i,
  input  logic                   sem_clear_i,
  input  logic                   wait_valid_i,
  input  logic [3:0]             wait_sem_i,
  input  logic [15:0]            wait_count_i,
  output logic                   wait_done_o,
  output logic                   wait_timeout_o,
  // the ejector's writes toward HBM, and toward local memory (tsl_tc's ici_lm_*)
  `TSL_AXI_M_PORTS(m_axi_, 16 * N),
  output logic                   lm_req_o,
  input  logic                   lm_gnt_i,
  output logic                   lm_acc_o,
  output logic [$clog2((VmemBytes > AccBytes ? VmemBytes : AccBytes)/(2*N))-1:0] lm_addr_o,
  output logic [16*N-1:0]        lm_wdata_o,
  output logic [2*N-1:0]         lm_be_o,
  // the links: port p's sender and receiver (kinds tsl_pkg::ici_flit_e; credits back per cycle)
  output logic [2*Ports-1:0]     tx_kind_o,
  output logic [Ports*8*Bytes-1:0] tx_data_o,
  input  logic [Ports*Cw-1:0]    tx_credit_i,
  input  logic [2*Ports-1:0]     rx_kind_i,
  input  logic [Ports*8*Bytes-1:0] rx_data_i,
  output logic [Ports*Cw-1:0]    rx_credit_o,
  // one cycle each: a packet dropped for its CRC; a remote write answered with an AXI error
  output logic                   crc_err_o,
  // link p's sender found it down (tsl_ici_tx: no credit for wait_limit_i cycles), until rst_ni
  output logic [Ports-1:0]       link_down_o,
  output logic                   axi_err_o
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int Fw = 8 * Bytes;
  localparam int Io = Ports + 1;
  localparam int Xlsb = tsl_pkg::ICI_HDR_DEST_X_LSB, Ylsb = tsl_pkg::ICI_HDR_DEST_Y_LSB;

  // --- receivers and the steering of their packets ----------------------------------------------
  logic [Ports-1:0]    rx_valid, rx_ready, rx_last, rx_crc, mine, busy_q, mine_q;
  logic [Ports*Fw-1:0] rx_data;
  logic [Ports-1:0]    ej_valid, ej_ready;
  // Split for Verilator: the chip input's valid and ready meet the links' in the router.
  logic [Io-1:0]       rt_in_valid /* verilator split_var */, rt_in_ready /* verilator split_var */;
  logic [Io-1:0]       rt_in_last, rt_out_valid, rt_out_ready, rt_out_last;
  logic [Io*Fw-1:0]    rt_in_data, rt_out_data;

  for (genvar p = 0; p < Ports; p++) begin : g_rx
    tsl_ici_rx #(.Bytes(Bytes), .Depth(Credits)) u_rx (
      .clk_i,
      .rst_ni,
      .link_kind_i(rx_kind_i[2*p +: 2]),
      .link_data_i(rx_data_i[p*Fw +: Fw]),
      .pkt_valid_o(rx_valid[p]),
      .pkt_ready_i(rx_ready[p]),
      .pkt_data_o (rx_data[p*Fw +: Fw]),
      .pkt_last_o (rx_last[p]),
      .credit_o   (rx_credit_o[p*Cw +: Cw]),
      .crc_err_o  (rx_crc[p])
    );
    // A packet's header decides where all of it goes.
    assign mine[p] = busy_q[p] ? mine_q[p]
                               : rx_data[p*Fw+Xlsb +: 4] == chip_x_i && rx_data[p*Fw+Ylsb +: 4] == chip_y_i;
    assign ej_valid[p]    = rx_valid[p] && mine[p];
    assign rt_in_valid[p] = rx_valid[p] && !mine[p];
    assign rx_ready[p]    = mine[p] ? ej_ready[p] : rt_in_ready[p];
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= '0;
      mine_q <= '0;
    end else begin
      for (int p = 0; p < Ports; p++)
        if (rx_valid[p] && rx_ready[p]) begin
          busy_q[p] <= !rx_last[p];
          mine_q[p] <= mine[p];
        end
    end
  end
  assign rt_in_data[Ports*Fw-1:0] = rx_data;
  assign rt_in_last[Ports-1:0]    = rx_last;
  assign crc_err_o                = |rx_crc;

  // --- the router, the packetizers and the senders ----------------------------------------------
  assign rt_in_valid[Ports]            = 1'b0;   // the chip port: unused
  assign rt_in_data[Ports*Fw +: Fw]    = '0;
  assign rt_in_last[Ports]             = 1'b0;
  tsl_ici_router #(.Bytes(Bytes), .Ports(Ports)) u_router (
    .clk_i,
    .rst_ni,
    .my_x_i     (chip_x_i),
    .my_y_i     (chip_y_i),
    .dim_x_i    (pod_x_i),
    .dim_y_i    (pod_y_i),
    .in_valid_i (rt_in_valid),
    .in_ready_o (rt_in_ready),
    .in_data_i  (rt_in_data),
    .in_last_i  (rt_in_last),
    .out_valid_o(rt_out_valid),
    .out_ready_i(rt_out_ready),
    .out_data_o (rt_out_data),
    .out_last_o (rt_out_last)
  );
  assign rt_out_ready[Ports] = 1'b1;   // never valid: nothing is routed to this chip (asserted)

  // Link p sends a packet at a time, from the router (passing through) or from its packetizer (this
  // chip's), the two taking turns when both have one.
  for (genvar p = 0; p < Ports; p++) begin : g_link
    logic          pk_valid, pk_ready, pk_last, own, tx_valid, tx_ready, tx_last;
    logic          mid_q, own_q, turn_q;   // mid-packet; whose packet; whose turn next (1: the packetizer)
    logic [Fw-1:0] pk_data, tx_data;
    tsl_ici_pkt #(.N(N), .Bytes(Bytes)) u_pkt (
      .clk_i,
      .rst_ni,
      .aw_valid_i (aw_valid_i[p]),
      .aw_ready_o (aw_ready_o[p]),
      .aw_addr_i  (aw_addr_i[32*p +: 32]),
      .aw_len_i   (aw_len_i[8*p +: 8]),
      .aw_incr_i  (aw_incr_i[p]),
      .aw_dest_x_i(dest_x_i[4*p +: 4]),
      .aw_dest_y_i(dest_y_i[4*p +: 4]),
      .aw_sem_i   (sem_i[4*p +: 4]),
      .aw_local_i (local_i[p]),
      .w_valid_i  (w_valid_i[p]),
      .w_ready_o  (w_ready_o[p]),
      .w_data_i   (w_data_i[p*16*N +: 16*N]),
      .w_strb_i   (w_strb_i[p*2*N +: 2*N]),
      .w_last_i   (w_last_i[p]),
      .b_valid_o  (b_valid_o[p]),
      .pkt_valid_o(pk_valid),
      .pkt_ready_i(pk_ready),
      .pkt_data_o (pk_data),
      .pkt_last_o (pk_last)
    );
    // A packet's first flit picks its source; both waiting: the one whose turn it is.
    assign own             = mid_q ? own_q : pk_valid && (!rt_out_valid[p] || turn_q);
    assign tx_valid        = own ? pk_valid : rt_out_valid[p];
    assign tx_data         = own ? pk_data : rt_out_data[p*Fw +: Fw];
    assign tx_last         = own ? pk_last : rt_out_last[p];
    assign pk_ready        = own && tx_ready;
    assign rt_out_ready[p] = !own && tx_ready;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        mid_q  <= 1'b0;
        own_q  <= 1'b0;
        turn_q <= 1'b0;
      end else if (tx_valid && tx_ready) begin
        mid_q  <= !tx_last;
        own_q  <= own;
        if (tx_last) turn_q <= !own;
      end
    end
    tsl_ici_tx #(.Bytes(Bytes), .Credits(Credits)) u_tx (
      .clk_i,
      .rst_ni,
      .pkt_valid_i(tx_valid),
      .pkt_ready_o(tx_ready),
      .pkt_data_i (tx_data),
      .pkt_last_i (tx_last),
      .credit_i   (tx_credit_i[p*Cw +: Cw]),
      .limit_i    (wait_limit_i),
      .down_o     (link_down_o[p]),
      .link_kind_o(tx_kind_o[2*p +: 2]),
      .link_data_o(tx_data_o[p*Fw +: Fw])
    );
  end

  // --- packets for this chip into HBM, and the semaphores ---------------------------------------
  logic                          inc;
  logic [$clog2(tsl_pkg::PARAM_ICI_SEMS)-1:0] inc_sem;
  logic [32*tsl_pkg::PARAM_ICI_SEMS-1:0]      sem_counts;

  tsl_ici_eject #(.N(N), .Bytes(Bytes), .Ports(Ports), .HbmBytes(HbmBytes), .VmemBytes(VmemBytes),
                  .AccBytes(AccBytes)) u_eject (
    .clk_i,
    .rst_ni,
    .in_valid_i(ej_valid),
    .in_ready_o(ej_ready),
    .in_data_i (rx_data),
    .in_last_i (rx_last),
    `TSL_AXI_CONNECT(m_axi_, m_axi_),
    .lm_req_o,
    .lm_gnt_i,
    .lm_acc_o,
    .lm_addr_o,
    .lm_wdata_o,
    .lm_be_o,
    .inc_o     (inc),
    .inc_sem_o (inc_sem),
    .err_o     (axi_err_o)
  );

  tsl_ici_sem #(.Incs(1 + Ports)) u_sem (
    .clk_i,
    .rst_ni,
    .limit_i     (wait_limit_i),
    .clear_i     (sem_clear_i),
    .inc_i       ({done_inc_i, inc}),
    .inc_sem_i   ({done_sem_i, inc_sem}),
    .wait_valid_i,
    .wait_sem_i,
    .wait_count_i,
    .done_o      (wait_done_o),
    .timeout_o   (wait_timeout_o),
    .sem_o       (sem_counts)
  );

  logic unused_ok;
  assign unused_ok = ^{rt_out_data[Ports*Fw +: Fw], rt_out_last[Ports], rt_in_ready[Ports], sem_counts};

  `TSL_ASSERT_INIT(ParamRange, (Ports == 2 || Ports == 4) && tsl_pkg::PARAM_ICI_SEMS == 16,
                   "Ports 2 or 4; 16 semaphores (SEM is a 4-bit field)")
  `TSL_ASSERT(NothingToSelf, !rt_out_valid[Ports], "the router sent a packet to this chip's own output")
endmodule
