// DMA unit: executes DMA_XFER LOAD (HBM -> VMEM/ACC) and STORE (VMEM/ACC -> HBM) as docs/isa.md
// defines: rows in order, bytes ascending, later bytes overwrite earlier. One instruction at a time,
// but that a LOAD may start behind a LOAD into the same memory once the first has handed on all its
// rows: its reads go out while the first one's data still arrive, so a run of LOADs pays the HBM
// latency once. Both use the one AXI ID, so their beats and local writes stay in order: the same
// bytes as one after the other. At most MaxChain are in flight; a STORE waits for all before it.
//   rows ─► tsl_dma_burst (AR or AW) ─► AXI address channel      (MaxReads / MaxWrites outstanding)
//        ├► tsl_dma_align ◄─ source FIFO ◄─ R beats (LOAD) | local reads (STORE)
//        │       └─► local writes (LOAD) | W register (STORE, only for bursts whose AW has gone)
//        └► local read issuer (STORE)
// Throughput: one beat per cycle in both directions when HBM and the memory port allow it; the
// next rows' bursts are issued while earlier rows' data still arrive. done_o is registered: it
// pulses the cycle after the last local write was granted (LOAD) or the last B arrived (STORE).
// An AXI error stops local and HBM writes, drains what is outstanding, then pulses done_o.
// With EnableIci (docs/isa.md "DMA SEND and SEMWAIT"): a SEND runs as a STORE whose AW/W/B go to the
// ICI packetizer (ici_*, tsl_ici_pkt) instead of HBM, with its destination and semaphore beside
// them and INCR on its last burst; it finishes when the packetizer has taken its last beat. A
// SEMWAIT holds the unit on sem_wait_* (tsl_ici_sem) until its semaphore is taken, or until the
// wait's bound passes: then ERR_SEM_DEADLOCK.
`include "hw/rtl/tsl_axi.svh"
module tsl_dma #(
  parameter int N         = tsl_pkg::PARAM_N,          // lanes; AXI data width is 16*N bits (one VMEM line per beat)
  parameter int VmemBytes = tsl_pkg::PARAM_VMEM_BYTES, // VMEM bytes (power of two)
  parameter int AccBytes  = tsl_pkg::PARAM_ACC_BYTES,  // ACC bytes (power of two)
  parameter int HbmBytes  = tsl_pkg::PARAM_HBM_BYTES,  // HBM bytes (power of two): AXI addresses are below it
  parameter int MaxBurst  = 16,   // beats per AXI burst, 1..256
  parameter int MaxReads  = 8,    // read bursts outstanding, >= 1
  parameter int MaxChain  = 4,    // LOADs in flight back to back, 1..16 (1: one at a time)
  parameter bit EnableIci = 1'b0, // 1: SEND and SEMWAIT (CFG_FEATURES.ICI); 0: ici_* and sem_* idle
  // Derived (do not override): VMEM and ACC line-index widths.
  parameter int VAW       = $clog2(VmemBytes / (2 * N)),
  parameter int AAW       = $clog2(AccBytes / (4 * N))
) (
  input  logic clk_i, rst_ni,
  // unit execution interface (docs/hardware.md)
  input  logic ex_valid_i, output logic ex_ready_o, input logic [255:0] ex_insn_i,
  output logic done_o, output logic busy_o,
  output logic err_o, output logic [3:0] err_code_o, output logic [31:0] err_addr_o,
  // VMEM port: W = 2N bytes per line
  output logic vmem_req_o, input logic vmem_gnt_i, output logic vmem_we_o, output logic [VAW-1:0] vmem_addr_o,
  output logic [16*N-1:0] vmem_wdata_o, output logic [2*N-1:0] vmem_be_o, input logic [16*N-1:0] vmem_rdata_i,
  // ACC port: W = 4N bytes per line
  output logic acc_req_o, input logic acc_gnt_i, output logic acc_we_o, output logic [AAW-1:0] acc_addr_o,
  output logic [32*N-1:0] acc_wdata_o, output logic [4*N-1:0] acc_be_o, input logic [32*N-1:0] acc_rdata_i,
  // SEND's write bursts toward the ICI packetizer (tsl_ici_pkt; AXI AW/W with a B pulse per burst)
  output logic ici_aw_valid_o, input logic ici_aw_ready_i, output logic [31:0] ici_aw_addr_o,
  output logic [7:0] ici_aw_len_o, output logic ici_aw_incr_o,
  output logic [3:0] ici_dest_x_o, output logic [3:0] ici_dest_y_o, output logic [3:0] ici_sem_o,
  output logic ici_local_o,   // the SEND's TO_LOCAL: its addresses are the destination's local ones
  output logic ici_w_valid_o, input logic ici_w_ready_i, output logic [16*N-1:0] ici_w_data_o,
  output logic [2*N-1:0] ici_w_strb_o, output logic ici_w_last_o, input logic ici_b_valid_i,
  // SEMWAIT (tsl_ici_sem's wait port)
  output logic sem_wait_valid_o, output logic [3:0] sem_wait_sem_o, output logic [15:0] sem_wait_count_o,
  input  logic sem_done_i, input logic sem_timeout_i,
  input  logic abort_i,   // CTRL.RESET empties the queues: a SEMWAIT ends at once, taking nothing
  // AXI4 master (no ID signals: every transaction is ID 0)
  `TSL_AXI_M_PORTS(m_axi_, 16 * N)
);
  `include "hw/rtl/tsl_assert.svh"
  localparam int W         = 2 * N;                      // bytes per beat and per VMEM line
  localparam int LW        = $clog2(W);
  localparam int HAW       = $clog2(HbmBytes);
  localparam int LBW       = (VAW > AAW + 1) ? VAW : AAW + 1;  // local beat (half ACC line) index
  localparam int HBW       = 32 - LW;
  localparam int MaxWrites = 8;                          // write bursts outstanding
  localparam int DescDepth = MaxReads + 8;               // rows the address side may run ahead
  localparam int SrcDepth  = 4;                          // source beats buffered before the aligner
  localparam int RaDepth   = (MaxReads < 2) ? 2 : MaxReads;
  localparam int XW        = HBW + 17 + 1;               // address-issuer row: hbeat, nh, last
  localparam int LRW       = LBW + 17;                   // local-reader row: lbeat, nl
  localparam int DW        = 3 * LW + 2 * 17 + LBW + 1;  // aligner row

  // ---- instruction ------------------------------------------------------------------------------
`include "hw/rtl/tsl_insn.svh"
  /* verilator lint_off UNUSEDSIGNAL */
  insn_dma_xfer_t    insn;   // the instruction on ex_insn_i (header bits and reserved bits unused)
  insn_dma_send_t    sinsn;  // the same as a SEND (its destination and semaphore)
  insn_dma_semwait_t winsn;  // the same as a SEMWAIT
  /* verilator lint_on UNUSEDSIGNAL */
  logic        start, ex_load, ex_acc, ex_send, ex_wait;
  logic        send_q, send_d, wait_q, wait_d;   // the instruction running is a SEND, a SEMWAIT
  logic [3:0]  dx_q, dy_q, sem_q;                // a SEND's destination and semaphore, a SEMWAIT's
  logic        lc_q;                             // a SEND's TO_LOCAL
  logic [15:0] count_q;                          // a SEMWAIT's COUNT
  logic        sem_err;
  logic [31:0] ex_la, ex_loff;
  logic        busy_q, busy_d, load_q, load_d, acc_q, acc_d, fin;
  logic        rows_q, rows_d;   // the rows generator has rows of the newest instruction left
  logic [3:0]  more_q, more_d;   // LOADs in flight behind the oldest
  logic        chain;            // the offered instruction may start behind the running one
  logic        done_q, err_q, err_d, err_pulse_q, err_set;
  logic [3:0]  err_code_q, err_code_d;
  logic [31:0] err_addr_q, err_addr_d;

  assign insn       = ex_insn_i;
  assign sinsn      = ex_insn_i;
  assign winsn      = ex_insn_i;
  assign ex_load    = insn.op == 4'(tsl_pkg::DMA_OP_LOAD);
  assign ex_send    = EnableIci && insn.op == 4'(tsl_pkg::DMA_OP_SEND);
  assign ex_wait    = EnableIci && insn.op == 4'(tsl_pkg::DMA_OP_SEMWAIT);
  assign chain      = busy_q && load_q && !err_q && !rows_q && 32'(more_q) < MaxChain - 1 && ex_load &&
                      ex_acc == acc_q;
  assign ex_ready_o = !busy_q || chain;
  assign start      = ex_valid_i && ex_ready_o;
  assign ex_la      = insn.local_addr;
  assign ex_acc     = ex_la >= tsl_pkg::LOCAL_ACC_BASE;
  assign ex_loff    = ex_acc ? ex_la - tsl_pkg::LOCAL_ACC_BASE : ex_la;
  assign busy_o     = busy_q;
  assign done_o     = done_q;
  assign err_o      = err_pulse_q;
  assign err_code_o = err_code_q;
  assign err_addr_o = err_addr_q;

  // ---- rows and their fan-out ------------------------------------------------------------------
  // FIFO levels and readies that only the lint sees (the outstanding counters bound the FIFOs).
  logic [1:0] x_level, l_level;
  logic [$clog2(DescDepth+1)-1:0] d_level;
  logic [$clog2(RaDepth+1)-1:0]   ra_level;
  logic [$clog2(MaxWrites+1)-1:0] wl_level, ba_level;
  logic ra_ready, wl_ready, ba_ready;
  logic            row_valid, row_ready, row_last;
  logic [HBW-1:0]  row_hbeat;
  logic [LW-1:0]   row_hoff, row_hend, row_loff, row_lend;
  logic [16:0]     row_nh, row_nl;
  logic [LBW-1:0]  row_lbeat;
  logic            x_in_ready, l_in_ready, d_in_ready;

  tsl_dma_rows #(.W(W), .LBW(LBW)) u_rows (
    .clk_i, .rst_ni,
    .start_i       (start && !ex_wait),
    .stop_i        (err_q),
    .hbm_addr_i    (insn.hbm_addr),
    .local_off_i   (ex_loff),
    .rows_i        (insn.rows),
    .row_bytes_i   (insn.row_bytes),
    .hbm_stride_i  (insn.hbm_stride),
    .local_stride_i(insn.local_stride),
    .valid_o       (row_valid),
    .ready_i       (row_ready),
    .hbeat_o       (row_hbeat),
    .hoff_o        (row_hoff),
    .hend_o        (row_hend),
    .nh_o          (row_nh),
    .lbeat_o       (row_lbeat),
    .loff_o        (row_loff),
    .lend_o        (row_lend),
    .nl_o          (row_nl),
    .last_o        (row_last)
  );

  assign row_ready = x_in_ready && d_in_ready && (load_q || l_in_ready);

  // Address-issuer rows (AR for LOAD, AW for STORE).
  logic           x_valid, x_ready, x_last;
  logic [HBW-1:0] x_hbeat;
  logic [16:0]    x_nh;
  tsl_prim_fifo #(.Width(XW), .Depth(2)) u_xfifo (
    .clk_i, .rst_ni, .clr_i(err_q),
    .valid_i(row_valid && row_ready), .ready_o(x_in_ready), .data_i({row_hbeat, row_nh, row_last}),
    .valid_o(x_valid), .ready_i(x_ready), .data_o({x_hbeat, x_nh, x_last}), .level_o(x_level)
  );

  // Local-reader rows (STORE only).
  logic           l_valid, l_ready;
  logic [LBW-1:0] l_lbeat;
  logic [16:0]    l_nl;
  tsl_prim_fifo #(.Width(LRW), .Depth(2)) u_lfifo (
    .clk_i, .rst_ni, .clr_i(err_q),
    .valid_i(row_valid && row_ready && !load_q), .ready_o(l_in_ready), .data_i({row_lbeat, row_nl}),
    .valid_o(l_valid), .ready_i(l_ready), .data_o({l_lbeat, l_nl}), .level_o(l_level)
  );

  // Aligner rows: source = HBM and destination = local for LOAD, the other way for STORE.
  logic           d_valid, d_ready, d_last;
  logic [LW-1:0]  d_soff, d_doff, d_dend;
  logic [16:0]    d_ns, d_nd;
  logic [LBW-1:0] d_dbase;
  tsl_prim_fifo #(.Width(DW), .Depth(DescDepth)) u_dfifo (
    .clk_i, .rst_ni, .clr_i(err_q),
    .valid_i(row_valid && row_ready), .ready_o(d_in_ready),
    .data_i (load_q ? {row_hoff, row_nh, row_loff, row_lend, row_nl, row_lbeat, row_last}
                    : {row_loff, row_nl, row_hoff, row_hend, row_nh, LBW'(0), row_last}),
    .valid_o(d_valid), .ready_i(d_ready), .data_o({d_soff, d_ns, d_doff, d_dend, d_nd, d_dbase, d_last}),
    .level_o(d_level)
  );

  // ---- address channel ---------------------------------------------------------------------------
  logic        ax_valid, ax_ready, ax_last, ax_hs, ax_issue, ax_allow;
  logic [31:0] ax_addr;
  logic [7:0]  ax_len;
  logic [8:0]  rd_out_q, rd_out_d, wr_out_q, wr_out_d;   // bursts loaded and not finished
  logic        aw_all_q, aw_all_d;                        // STORE: the last AW has been accepted

  assign ax_allow = busy_q && !err_q && (load_q ? rd_out_q < 9'(MaxReads) : wr_out_q < 9'(MaxWrites));
  assign ax_ready = load_q ? m_axi_arready : send_q ? ici_aw_ready_i : m_axi_awready;
  assign ax_hs    = ax_valid && ax_ready;

  tsl_dma_burst #(.W(W), .MaxBurst(MaxBurst)) u_burst (
    .clk_i, .rst_ni,
    .clr_i      (err_q),
    .allow_i    (ax_allow),
    .row_valid_i(x_valid),
    .row_ready_o(x_ready),
    .row_hbeat_i(x_hbeat),
    .row_nh_i   (x_nh),
    .row_last_i (x_last),
    .issue_o    (ax_issue),
    .ax_valid_o (ax_valid),
    .ax_ready_i (ax_ready),
    .ax_addr_o  (ax_addr),
    .ax_len_o   (ax_len),
    .ax_last_o  (ax_last)
  );

  assign m_axi_arvalid = ax_valid && load_q;
  assign m_axi_awvalid = ax_valid && !load_q && !send_q;
  assign ici_aw_valid_o = ax_valid && send_q;
  assign ici_aw_addr_o  = 32'(ax_addr[HAW-1:0]);
  assign ici_aw_len_o   = ax_len;
  assign ici_aw_incr_o  = ax_last;
  assign ici_dest_x_o   = dx_q;
  assign ici_dest_y_o   = dy_q;
  assign ici_sem_o      = sem_q;
  assign ici_local_o     = lc_q;
  assign m_axi_araddr  = 32'(ax_addr[HAW-1:0]);
  assign m_axi_awaddr  = 32'(ax_addr[HAW-1:0]);
  assign m_axi_arlen   = ax_len;
  assign m_axi_awlen   = ax_len;
  assign m_axi_arsize  = 3'(LW);
  assign m_axi_awsize  = 3'(LW);
  assign m_axi_arburst = 2'b01;
  assign m_axi_awburst = 2'b01;

  // ---- R channel (LOAD) ------------------------------------------------------------------------
  logic          r_hs, r_err, src_in_ready, ra_valid;
  logic [31:0]   ra_addr;
  logic [7:0]    rbeat_q, rbeat_d;

  assign r_hs         = m_axi_rvalid && m_axi_rready;
  assign m_axi_rready = err_q || !load_q || src_in_ready;
  assign r_err        = r_hs && m_axi_rresp[1] && busy_q && load_q && !err_q;
  assign rbeat_d      = r_hs ? (m_axi_rlast ? '0 : rbeat_q + 8'd1) : rbeat_q;

  // Start address of every read burst in flight, for ERR_ADDR.
  tsl_prim_fifo #(.Width(32), .Depth(RaDepth)) u_rafifo (
    .clk_i, .rst_ni, .clr_i(1'b0),
    .valid_i(ax_hs && load_q), .ready_o(ra_ready), .data_i(m_axi_araddr),
    .valid_o(ra_valid), .ready_i(r_hs && m_axi_rlast), .data_o(ra_addr), .level_o(ra_level)
  );

  // ---- local reads (STORE) ---------------------------------------------------------------------
  logic [16:0]                  lcnt_q, lcnt_d;
  logic [LBW-1:0]               lrd_idx;
  logic                         lrd_req, lrd_gnt, lrd_pend_q, lrd_half_q;
  logic [$clog2(SrcDepth+1)-1:0] src_level;

  assign lrd_idx = l_lbeat + LBW'(lcnt_q);
  assign lrd_req = busy_q && !load_q && !err_q && l_valid &&
                   (32'(src_level) + 32'(lrd_pend_q) < SrcDepth);
  assign lrd_gnt = lrd_req && (acc_q ? acc_gnt_i : vmem_gnt_i);
  assign l_ready = lrd_gnt && lcnt_q == l_nl - 17'd1;
  assign lcnt_d  = err_q ? '0 : l_ready ? '0 : lrd_gnt ? lcnt_q + 17'd1 : lcnt_q;

  // ---- source FIFO and aligner -----------------------------------------------------------------
  logic           src_push, s_valid, s_ready;
  logic [8*W-1:0] src_data, s_data;
  logic           o_valid, o_ready, o_last;
  logic [8*W-1:0] o_data;
  logic [W-1:0]   o_be;
  logic [LBW-1:0] o_idx;

  assign src_push = load_q ? r_hs && !m_axi_rresp[1] && busy_q && !err_q : lrd_pend_q && !err_q;
  assign src_data = load_q ? m_axi_rdata
                  : !acc_q ? vmem_rdata_i
                  : lrd_half_q ? acc_rdata_i[16*W-1:8*W] : acc_rdata_i[8*W-1:0];

  tsl_prim_fifo #(.Width(8 * W), .Depth(SrcDepth)) u_srcfifo (
    .clk_i, .rst_ni, .clr_i(err_q),
    .valid_i(src_push), .ready_o(src_in_ready), .data_i(src_data),
    .valid_o(s_valid), .ready_i(s_ready), .data_o(s_data), .level_o(src_level)
  );

  tsl_dma_align #(.W(W), .IW(LBW)) u_align (
    .clk_i, .rst_ni,
    .clr_i    (err_q),
    .d_valid_i(d_valid), .d_ready_o(d_ready),
    .d_soff_i (d_soff), .d_ns_i(d_ns), .d_doff_i(d_doff), .d_dend_i(d_dend), .d_nd_i(d_nd),
    .d_dbase_i(d_dbase), .d_last_i(d_last),
    .s_valid_i(s_valid), .s_ready_o(s_ready), .s_data_i(s_data),
    .o_valid_o(o_valid), .o_ready_i(o_ready), .o_data_o(o_data), .o_be_o(o_be),
    .o_idx_o  (o_idx), .o_last_o(o_last)
  );

  // ---- local writes (LOAD) and the memory ports ------------------------------------------------
  logic lwr_req, lwr_gnt;
  assign lwr_req = busy_q && load_q && !err_q && o_valid;
  assign lwr_gnt = lwr_req && (acc_q ? acc_gnt_i : vmem_gnt_i);

  assign vmem_req_o   = !acc_q && (lwr_req || lrd_req);
  assign vmem_we_o    = load_q;
  assign vmem_addr_o  = load_q ? o_idx[VAW-1:0] : lrd_idx[VAW-1:0];
  assign vmem_wdata_o = o_data;
  assign vmem_be_o    = o_be;
  assign acc_req_o    = acc_q && (lwr_req || lrd_req);
  assign acc_we_o     = load_q;
  assign acc_addr_o   = load_q ? o_idx[AAW:1] : lrd_idx[AAW:1];
  assign acc_wdata_o  = {o_data, o_data};
  assign acc_be_o     = o_idx[0] ? {o_be, {W{1'b0}}} : {{W{1'b0}}, o_be};

  // ---- W and B channels (STORE) ----------------------------------------------------------------
  logic           wl_valid, wl_pop, ba_valid, b_hs, b_err, w_load, w_room, w_ready;
  logic [7:0]     wl_len, wcnt_q, wcnt_d;
  logic [31:0]    ba_addr;
  logic           w_valid_q, w_valid_d, w_last_q, w_last_d;
  logic [8*W-1:0] w_data_q, w_data_d;
  logic [W-1:0]   w_strb_q, w_strb_d;

  // Length of every burst whose AW has been accepted and whose beats are not all in the W register.
  tsl_prim_fifo #(.Width(8), .Depth(MaxWrites)) u_wlfifo (
    .clk_i, .rst_ni, .clr_i(1'b0),
    .valid_i(ax_hs && !load_q), .ready_o(wl_ready), .data_i(ax_len),
    .valid_o(wl_valid), .ready_i(wl_pop), .data_o(wl_len), .level_o(wl_level)
  );
  // Start address of every write burst awaiting its B, for ERR_ADDR.
  tsl_prim_fifo #(.Width(32), .Depth(MaxWrites)) u_bafifo (
    .clk_i, .rst_ni, .clr_i(1'b0),
    .valid_i(ax_hs && !load_q), .ready_o(ba_ready), .data_i(m_axi_awaddr),
    .valid_o(ba_valid), .ready_i(b_hs), .data_o(ba_addr), .level_o(ba_level)
  );

  // After an error the remaining beats of accepted bursts go out with WSTRB = 0.
  assign w_ready = send_q ? ici_w_ready_i : m_axi_wready;
  assign w_room  = busy_q && !load_q && wl_valid && (!w_valid_q || w_ready);
  assign w_load  = w_room && (err_q || o_valid);
  assign wl_pop  = w_load && wcnt_q == wl_len;
  assign o_ready = load_q ? lwr_gnt : w_room && !err_q;

  always_comb begin
    w_valid_d = w_valid_q && !w_ready;
    w_data_d  = w_data_q;
    w_strb_d  = w_strb_q;
    w_last_d  = w_last_q;
    wcnt_d    = wcnt_q;
    if (w_load) begin
      w_valid_d = 1'b1;
      w_data_d  = err_q ? '0 : o_data;
      w_strb_d  = err_q ? '0 : o_be;
      w_last_d  = wcnt_q == wl_len;
      wcnt_d    = (wcnt_q == wl_len) ? '0 : wcnt_q + 8'd1;
    end
  end

  assign m_axi_wvalid = w_valid_q && !send_q;
  assign ici_w_valid_o = w_valid_q && send_q;
  assign ici_w_data_o  = w_data_q;
  assign ici_w_strb_o  = w_strb_q;
  assign ici_w_last_o  = w_last_q;
  assign m_axi_wdata  = w_data_q;
  assign m_axi_wstrb  = w_strb_q;
  assign m_axi_wlast  = w_last_q;
  assign m_axi_bready = 1'b1;
  assign b_hs         = m_axi_bvalid || ici_b_valid_i;
  assign b_err        = b_hs && m_axi_bresp[1] && busy_q && !load_q && !err_q;

  // ---- SEMWAIT ---------------------------------------------------------------------------------
  assign sem_wait_valid_o = busy_q && wait_q && !err_q;
  assign sem_wait_sem_o   = sem_q;
  assign sem_wait_count_o = count_q;
  assign sem_err          = sem_wait_valid_o && sem_timeout_i;

  // ---- control ---------------------------------------------------------------------------------
  assign rd_out_d = rd_out_q + 9'(ax_issue && load_q) - 9'(r_hs && m_axi_rlast);
  assign wr_out_d = wr_out_q + 9'(ax_issue && !load_q) - 9'(b_hs);
  assign err_set  = r_err || b_err || sem_err;

  // Finished: LOAD's last local write granted; STORE's (SEND's) last B in; SEMWAIT's semaphore
  // taken, or CTRL.RESET; after an error, all drained (then one done per instruction in flight, a cycle each).
  assign fin = busy_q && (err_q ? (load_q ? rd_out_q == '0 : wr_out_q == '0)
                                : (load_q ? lwr_gnt && o_last : wait_q ? sem_done_i || abort_i
                                                               : aw_all_q && wr_out_q == '0));

  always_comb begin
    busy_d     = busy_q;
    load_d     = load_q;
    acc_d      = acc_q;
    err_d      = err_q;
    err_code_d = err_code_q;
    err_addr_d = err_addr_q;
    aw_all_d   = aw_all_q || (ax_hs && ax_last && !load_q);
    more_d     = more_q;
    rows_d     = rows_q && !(row_valid && row_ready && row_last) && !err_q;
    send_d     = send_q;
    wait_d     = wait_q;
    if (err_set) begin
      err_d      = 1'b1;
      err_code_d = sem_err ? 4'(tsl_pkg::ERR_SEM_DEADLOCK)
                 : (r_err ? m_axi_rresp[0] : m_axi_bresp[0]) ? tsl_pkg::ERR_AXI_DECERR
                                                             : tsl_pkg::ERR_AXI_SLVERR;
      err_addr_d = sem_err ? 32'd0 : r_err ? ra_addr + (32'(rbeat_q) << LW) : ba_addr;
    end
    if (fin && more_q != 4'd0) begin
      more_d = more_q - 4'd1;
    end else if (fin) begin
      busy_d = 1'b0;
      err_d  = 1'b0;
    end
    if (start) begin
      busy_d   = 1'b1;
      if (chain && !(fin && more_q == 4'd0)) more_d = more_d + 4'd1;
      rows_d   = !ex_wait;
      load_d   = ex_load;
      send_d   = ex_send;
      wait_d   = ex_wait;
      acc_d    = ex_acc;
      aw_all_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q      <= 1'b0;
      rows_q      <= 1'b0;
      more_q      <= '0;
      load_q      <= 1'b0;
      acc_q       <= 1'b0;
      done_q      <= 1'b0;
      err_q       <= 1'b0;
      err_pulse_q <= 1'b0;
      err_code_q  <= '0;
      err_addr_q  <= '0;
      aw_all_q    <= 1'b0;
      send_q      <= 1'b0;
      wait_q      <= 1'b0;
      rd_out_q    <= '0;
      wr_out_q    <= '0;
      rbeat_q     <= '0;
      lcnt_q      <= '0;
      lrd_pend_q  <= 1'b0;
      w_valid_q   <= 1'b0;
      wcnt_q      <= '0;
    end else begin
      busy_q      <= busy_d;
      rows_q      <= rows_d;
      more_q      <= more_d;
      load_q      <= load_d;
      acc_q       <= acc_d;
      done_q      <= fin;
      err_q       <= err_d;
      err_pulse_q <= err_set;
      err_code_q  <= err_code_d;
      err_addr_q  <= err_addr_d;
      aw_all_q    <= aw_all_d;
      send_q      <= send_d;
      wait_q      <= wait_d;
      rd_out_q    <= rd_out_d;
      wr_out_q    <= wr_out_d;
      rbeat_q     <= rbeat_d;
      lcnt_q      <= lcnt_d;
      lrd_pend_q  <= lrd_gnt;
      w_valid_q   <= w_valid_d;
      wcnt_q      <= wcnt_d;
    end
  end

  // Datapath registers: not reset.
  always_ff @(posedge clk_i) begin
    if (start) begin
      dx_q    <= sinsn.dest_x;
      dy_q    <= sinsn.dest_y;
      lc_q    <= sinsn.to_local;
      sem_q   <= ex_wait ? winsn.sem : sinsn.sem;
      count_q <= winsn.count;
    end
    lrd_half_q <= lrd_idx[0];
    w_data_q   <= w_data_d;
    w_strb_q   <= w_strb_d;
    w_last_q   <= w_last_d;
  end

  logic unused_ok;
  assign unused_ok = ^{ax_addr, lrd_idx, o_idx,
                       ra_valid, ba_valid, x_level, l_level, d_level, ra_level, wl_level, ba_level,
                       ra_ready, wl_ready, ba_ready};

  // Assertions
  `TSL_ASSERT_INIT(ParamRange, (N > 0 && (N & (N - 1)) == 0) && MaxBurst >= 1 && MaxBurst <= 256 && MaxReads >= 1 &&
                   MaxChain >= 1 && MaxChain <= 16, "N a power of two, MaxBurst 1..256, MaxReads >= 1, MaxChain 1..16")
  `TSL_ASSERT(WHeld, m_axi_wvalid && !m_axi_wready |=> m_axi_wvalid && $stable(m_axi_wdata)
              && $stable(m_axi_wstrb) && $stable(m_axi_wlast), "a W beat changed before wready")
  `TSL_ASSERT(RHasBurst, m_axi_rvalid |-> ra_valid, "an R beat with no read burst outstanding")
  `TSL_ASSERT(BHasBurst, b_hs |-> ba_valid, "a B response with no write burst outstanding")
  `TSL_ASSERT(BOneSource, !(m_axi_bvalid && ici_b_valid_i), "B from HBM and from the packetizer at once")
  `TSL_ASSERT(ChainLoads, more_q != 4'd0 |-> busy_q && load_q && 32'(more_q) < MaxChain,
              "instructions in flight behind a STORE, or more than MaxChain")
endmodule
