// The DMA unit of a chip in a pod (EnableIci): the main engine (tsl_dma: LOAD, STORE), the wait
// engine (tsl_dma, SEMWAITs only) and a send engine per ICI link (tsl_dma, SENDs only), so that
// SENDs on different links, LOADs and STOREs, and a SEMWAIT run at once. A SEND goes to the engine
// of the link its packets leave by (tsl_ici_route): SENDs to one chip keep their order. The
// queue's order is kept where it shows:
//   - nothing starts while a SEMWAIT is in flight (what follows it starts after it); a SEMWAIT
//     itself starts at once (it reads and writes no memory), beside the LOADs before it, so that a
//     LOAD behind a SEMWAIT already met still joins their chain (tsl_dma);
//   - a SEND starts only when nothing is in flight on the main engine (it may read what a LOAD
//     writes; a remote chip may write what a LOAD or a STORE reads once the SEND told it so), or
//     with EARLY when no LOAD in flight there writes local bytes it reads and no STORE there reads
//     them (the main engine's instructions in flight meet none of them); it then waits, two at
//     most, in front of its send engine, so the queue goes on while the link is busy; with DONE,
//     once its bytes have left, done_inc_o;
//   - a LOAD starts only when no SEND waiting for or in a send engine reads local bytes it writes
//     (their local extents, first to last byte, do not meet);
//   - a STORE starts behind SENDs at once (they only read local memory).
// Instructions finish in queue order: done_o pulses for the oldest in flight once its engine has
// finished it; a SEND with ASYNC is finished once it has started (its bytes may still be leaving:
// fence_o is high while a send engine holds a SEND, and a DMA SYNC waits for it to fall).
// Errors come from the main engine (AXI) and the wait engine (SEM_DEADLOCK); a send engine's bursts
// are taken by the packetizer, which does not fail. Interface otherwise as tsl_dma's
// (docs/hardware.md).
`include "hw/rtl/tsl_axi.svh"
module tsl_dma_ici #(
  parameter int N         = tsl_pkg::PARAM_N,
  parameter int VmemBytes = tsl_pkg::PARAM_VMEM_BYTES,
  parameter int AccBytes  = tsl_pkg::PARAM_ACC_BYTES,
  parameter int HbmBytes  = tsl_pkg::PARAM_HBM_BYTES,
  parameter int MaxBurst  = 16,
  parameter int MaxReads  = 8,
  parameter int Ports     = 4,      // ICI links, one send engine each
  parameter int Inflight  = 4,      // instructions the issue stage hands over before their done
  localparam int VAW      = $clog2(VmemBytes / (2 * N)),
  localparam int AAW      = $clog2(AccBytes / (4 * N)),
  localparam int E        = Ports + 1       // engines with memory ports: 0 the main one, 1 + p link p's
) (
  input  logic clk_i, rst_ni,
  input  logic [3:0] chip_x_i, input logic [3:0] chip_y_i, input logic [4:0] pod_x_i, input logic [4:0] pod_y_i,
  input  logic ex_valid_i, output logic ex_ready_o, input logic [255:0] ex_insn_i,
  output logic done_o, output logic busy_o, output logic fence_o,
  output logic err_o, output logic [3:0] err_code_o, output logic [31:0] err_addr_o,
  // local memory ports, engine e's at index e
  output logic [E-1:0] vmem_req_o, input logic [E-1:0] vmem_gnt_i, output logic [E-1:0] vmem_we_o,
  output logic [E*VAW-1:0] vmem_addr_o, output logic [E*16*N-1:0] vmem_wdata_o,
  output logic [E*2*N-1:0] vmem_be_o, input logic [E*16*N-1:0] vmem_rdata_i,
  output logic [E-1:0] acc_req_o, input logic [E-1:0] acc_gnt_i, output logic [E-1:0] acc_we_o,
  output logic [E*AAW-1:0] acc_addr_o, output logic [E*32*N-1:0] acc_wdata_o,
  output logic [E*4*N-1:0] acc_be_o, input logic [E*32*N-1:0] acc_rdata_i,
  // link p's SEND bursts, toward its packetizer (tsl_dma's ici_* port, link p at index p)
  output logic [Ports-1:0] ici_aw_valid_o, input logic [Ports-1:0] ici_aw_ready_i,
  output logic [Ports*32-1:0] ici_aw_addr_o, output logic [Ports*8-1:0] ici_aw_len_o,
  output logic [Ports-1:0] ici_aw_incr_o,
  output logic [Ports*4-1:0] ici_dest_x_o, output logic [Ports*4-1:0] ici_dest_y_o, output logic [Ports*4-1:0] ici_sem_o,
  output logic [Ports-1:0] ici_local_o,
  output logic [Ports-1:0] ici_w_valid_o, input logic [Ports-1:0] ici_w_ready_i,
  output logic [Ports*16*N-1:0] ici_w_data_o, output logic [Ports*2*N-1:0] ici_w_strb_o,
  output logic [Ports-1:0] ici_w_last_o, input logic [Ports-1:0] ici_b_valid_i,
  // link p's SEND with DONE finished (its bytes have left): this chip's semaphore done_sem_o[4p+:4]
  // counts one
  output logic [Ports-1:0] done_inc_o, output logic [Ports*4-1:0] done_sem_o,
  // SEMWAIT (the main engine's)
  output logic sem_wait_valid_o, output logic [3:0] sem_wait_sem_o, output logic [15:0] sem_wait_count_o,
  input  logic sem_done_i, input logic sem_timeout_i, input logic abort_i,
  // the main engine's AXI4 master
  `TSL_AXI_M_PORTS(m_axi_, 16 * N)
);
  `include "hw/rtl/tsl_assert.svh"
`include "hw/rtl/tsl_insn.svh"
`include "hw/rtl/ici/tsl_ici_route.svh"
  localparam int W  = E;               // the wait engine
  localparam int Ew = $clog2(E + 2);   // an engine, or E + 1: finished at once (an ASYNC SEND)
  localparam int Cw = $clog2(Inflight + 1);
  localparam int MainChain = 4;        // the main engine's LOADs in flight (tsl_dma MaxChain): the
                                       // most instructions it holds

  /* verilator lint_off UNUSEDSIGNAL */
  insn_dma_xfer_t x;   // the offered instruction's local operand (a SEND's is in the same place)
  insn_dma_send_t s;   // its destination
  /* verilator lint_on UNUSEDSIGNAL */
  assign x = ex_insn_i;
  assign s = ex_insn_i;

  logic          is_send, is_load, is_wait, is_async, go;
  logic [2:0]    port;
  logic [E:0]    eng_valid, eng_ready, eng_done, eng_busy;
  logic [E:0]    eng_fin;   // an engine finished an instruction still to be reported (not an ASYNC SEND)
  logic [Ew-1:0] eng;       // the engine the offered instruction goes to
  logic [33:0]   lo, hi;    // the offered instruction's local extent [lo, hi)
  logic [Ports-1:0] s_hit;   // a SEND queued for or in send engine p reads bytes the offered one writes
  logic [Ports-1:0] s_held;  // send engine p has a SEND queued or in flight
  logic [Cw-1:0] blocking_q, blocking_d;   // instructions in flight on the main engine
  logic          hazard, m_hit;            // m_hit: an instruction in flight on the main engine
                                           // touches local bytes the offered one reads

  assign is_send = x.op == 4'(tsl_pkg::DMA_OP_SEND);
  assign is_load = x.op == 4'(tsl_pkg::DMA_OP_LOAD);
  assign is_wait = x.op == 4'(tsl_pkg::DMA_OP_SEMWAIT);
  assign port    = tsl_ici_route(s.dest_x, s.dest_y, chip_x_i, chip_y_i, pod_x_i, pod_y_i, s.neg, Ports);
  assign is_async = is_send && s.async;
  assign eng     = is_send ? Ew'(port) + Ew'(1) : is_wait ? Ew'(W) : '0;
  assign lo      = 34'(x.local_addr);
  assign hi      = 34'(x.local_addr) + (34'(x.rows) - 34'd1) * 34'(x.local_stride) + 34'(x.row_bytes);

  always_comb begin
    hazard = eng_busy[W];
    if (is_send) hazard = hazard || (s.early ? m_hit : blocking_q != '0);
    if (is_load && s_hit != '0) hazard = 1'b1;
  end

  always_comb begin
    eng_valid = '0;
    eng_valid[eng] = ex_valid_i && !hazard;
  end
  assign ex_ready_o = eng_ready[eng] && !hazard;
  assign go         = ex_valid_i && ex_ready_o;

  // ---- engines ---------------------------------------------------------------------------------
  // The main engine: LOAD, STORE; the AXI master. Never a SEND or a SEMWAIT.
  logic       m_err, w_err;
  logic [3:0] m_err_code, w_err_code;
  logic [31:0] m_err_addr, w_err_addr;
  assign eng_fin[0] = eng_done[0];
  tsl_dma #(
    .N(N), .VmemBytes(VmemBytes), .AccBytes(AccBytes), .HbmBytes(HbmBytes), .MaxBurst(MaxBurst),
    .MaxReads(MaxReads), .MaxChain(MainChain), .EnableIci(1'b1)
  ) u_main (
    .clk_i, .rst_ni,
    .ex_valid_i(eng_valid[0]), .ex_ready_o(eng_ready[0]), .ex_insn_i,
    .done_o(eng_done[0]), .busy_o(eng_busy[0]), .err_o(m_err), .err_code_o(m_err_code), .err_addr_o(m_err_addr),
    .vmem_req_o(vmem_req_o[0]), .vmem_gnt_i(vmem_gnt_i[0]), .vmem_we_o(vmem_we_o[0]),
    .vmem_addr_o(vmem_addr_o[0 +: VAW]), .vmem_wdata_o(vmem_wdata_o[0 +: 16*N]),
    .vmem_be_o(vmem_be_o[0 +: 2*N]), .vmem_rdata_i(vmem_rdata_i[0 +: 16*N]),
    .acc_req_o(acc_req_o[0]), .acc_gnt_i(acc_gnt_i[0]), .acc_we_o(acc_we_o[0]),
    .acc_addr_o(acc_addr_o[0 +: AAW]), .acc_wdata_o(acc_wdata_o[0 +: 32*N]),
    .acc_be_o(acc_be_o[0 +: 4*N]), .acc_rdata_i(acc_rdata_i[0 +: 32*N]),
    /* verilator lint_off PINCONNECTEMPTY */
    .ici_aw_valid_o(), .ici_aw_ready_i(1'b0), .ici_aw_addr_o(), .ici_aw_len_o(), .ici_aw_incr_o(),
    .ici_dest_x_o(), .ici_dest_y_o(), .ici_sem_o(), .ici_local_o(), .ici_w_valid_o(), .ici_w_ready_i(1'b0), .ici_w_data_o(),
    .ici_w_strb_o(), .ici_w_last_o(), .ici_b_valid_i(1'b0),
    .sem_wait_valid_o(), .sem_wait_sem_o(), .sem_wait_count_o(), .sem_done_i(1'b0), .sem_timeout_i(1'b0),
    .abort_i(1'b0),
    /* verilator lint_on PINCONNECTEMPTY */
    `TSL_AXI_CONNECT(m_axi_, m_axi_)
  );

  // A send engine per link: SENDs only; its AXI master and semaphore port idle. Two SENDs wait in
  // front of it (entries 0, then 1), so that the DMA queue goes on while the link is busy.
  for (genvar p = 0; p < Ports; p++) begin : g_send
    `TSL_AXI_WIRES(a_, 16 * N)
    logic         err, sv, e_ready, take, put, async_q, act_q, done_q;
    logic [3:0]   dsem_q;   // the SEND in the engine: DONE, DONE_SEM
    logic [3:0]   err_code, ss;
    logic [31:0]  err_addr;
    logic [15:0]  sc;
    // The two entries as registers of their own (no unpacked arrays: Icarus 11 reads array words in
    // continuous assignments as X).
    logic [1:0]   q_v, q_as;
    logic [255:0] q0_insn, q1_insn;
    logic [33:0]  q0_lo, q1_lo, q0_hi, q1_hi;
    logic [33:0]  a_lo_q, a_hi_q;   // the extent of the SEND in the engine (act_q)
    assign {a_awready, a_wready, a_bvalid, a_bresp, a_arready, a_rvalid, a_rdata, a_rresp, a_rlast} = '0;
    assign eng_ready[p+1] = !q_v[1];
    assign put  = eng_valid[p+1] && !q_v[1];
    assign take = q_v[0] && e_ready;
    tsl_dma #(
      .N(N), .VmemBytes(VmemBytes), .AccBytes(AccBytes), .HbmBytes(HbmBytes), .MaxBurst(MaxBurst),
      .MaxReads(1), .EnableIci(1'b1)
    ) u_send (
      .clk_i, .rst_ni,
      .ex_valid_i(q_v[0]), .ex_ready_o(e_ready), .ex_insn_i(q0_insn),
      .done_o(eng_done[p+1]), .busy_o(eng_busy[p+1]), .err_o(err), .err_code_o(err_code), .err_addr_o(err_addr),
      .vmem_req_o(vmem_req_o[p+1]), .vmem_gnt_i(vmem_gnt_i[p+1]), .vmem_we_o(vmem_we_o[p+1]),
      .vmem_addr_o(vmem_addr_o[(p+1)*VAW +: VAW]), .vmem_wdata_o(vmem_wdata_o[(p+1)*16*N +: 16*N]),
      .vmem_be_o(vmem_be_o[(p+1)*2*N +: 2*N]), .vmem_rdata_i(vmem_rdata_i[(p+1)*16*N +: 16*N]),
      .acc_req_o(acc_req_o[p+1]), .acc_gnt_i(acc_gnt_i[p+1]), .acc_we_o(acc_we_o[p+1]),
      .acc_addr_o(acc_addr_o[(p+1)*AAW +: AAW]), .acc_wdata_o(acc_wdata_o[(p+1)*32*N +: 32*N]),
      .acc_be_o(acc_be_o[(p+1)*4*N +: 4*N]), .acc_rdata_i(acc_rdata_i[(p+1)*32*N +: 32*N]),
      .ici_aw_valid_o(ici_aw_valid_o[p]), .ici_aw_ready_i(ici_aw_ready_i[p]),
      .ici_aw_addr_o(ici_aw_addr_o[32*p +: 32]), .ici_aw_len_o(ici_aw_len_o[8*p +: 8]),
      .ici_aw_incr_o(ici_aw_incr_o[p]), .ici_dest_x_o(ici_dest_x_o[4*p +: 4]),
      .ici_dest_y_o(ici_dest_y_o[4*p +: 4]), .ici_sem_o(ici_sem_o[4*p +: 4]), .ici_local_o(ici_local_o[p]),
      .ici_w_valid_o(ici_w_valid_o[p]), .ici_w_ready_i(ici_w_ready_i[p]),
      .ici_w_data_o(ici_w_data_o[p*16*N +: 16*N]), .ici_w_strb_o(ici_w_strb_o[p*2*N +: 2*N]),
      .ici_w_last_o(ici_w_last_o[p]), .ici_b_valid_i(ici_b_valid_i[p]),
      .sem_wait_valid_o(sv), .sem_wait_sem_o(ss), .sem_wait_count_o(sc), .sem_done_i(1'b0),
      .sem_timeout_i(1'b0), .abort_i(1'b0),
      `TSL_AXI_CONNECT(m_axi_, a_)
    );
    logic to1;   // a SEND put now goes into entry 1 (entry 0 holds one that stays)
    assign to1 = q_v[0] && !take;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        q_v   <= 2'b00;
        act_q <= 1'b0;
      end else begin
        q_v <= (take ? {1'b0, q_v[1]} : q_v) | (put ? (to1 ? 2'b10 : 2'b01) : 2'b00);
        if (take) act_q <= 1'b1;
        else if (eng_done[p+1]) act_q <= 1'b0;
      end
    end
    always_ff @(posedge clk_i) begin
      if (take) begin
        q0_insn <= q1_insn;
        q0_lo   <= q1_lo;
        q0_hi   <= q1_hi;
        q_as[0] <= q_as[1];
        a_lo_q  <= q0_lo;
        a_hi_q  <= q0_hi;
        async_q <= q_as[0];
        done_q  <= q0_insn[tsl_pkg::INSN_DMA_SEND_DONE_LSB];
        dsem_q  <= q0_insn[tsl_pkg::INSN_DMA_SEND_DONE_SEM_LSB +: 4];
      end
      if (put && !to1) begin
        q0_insn <= ex_insn_i;
        q0_lo   <= lo;
        q0_hi   <= hi;
        q_as[0] <= is_async;
      end
      if (put && to1) begin
        q1_insn <= ex_insn_i;
        q1_lo   <= lo;
        q1_hi   <= hi;
        q_as[1] <= is_async;
      end
    end
    assign eng_fin[p+1] = eng_done[p+1] && !async_q;
    assign done_inc_o[p]         = eng_done[p+1] && done_q;
    assign done_sem_o[4*p +: 4]  = dsem_q;
    assign s_held[p]    = q_v[0] || act_q || eng_busy[p+1];
    assign s_hit[p]     = (act_q && lo < a_hi_q && a_lo_q < hi) || (q_v[0] && lo < q0_hi && q0_lo < hi) ||
                          (q_v[1] && lo < q1_hi && q1_lo < hi);
    logic unused_send;
    assign unused_send = ^{a_awvalid, a_awaddr, a_awlen, a_awsize, a_awburst, a_wvalid, a_wdata, a_wstrb,
                           a_wlast, a_bready, a_arvalid, a_araddr, a_arlen, a_arsize, a_arburst, a_rready,
                           err, err_code, err_addr, sv, ss, sc};
  end
  // The wait engine: SEMWAITs only; the semaphores' wait port. No memory, no AXI, no SEND.
  `TSL_AXI_WIRES(w_, 16 * N)
  assign {w_awready, w_wready, w_bvalid, w_bresp, w_arready, w_rvalid, w_rdata, w_rresp, w_rlast} = '0;
  assign eng_fin[W] = eng_done[W];
  tsl_dma #(
    .N(N), .VmemBytes(VmemBytes), .AccBytes(AccBytes), .HbmBytes(HbmBytes), .MaxBurst(MaxBurst),
    .MaxReads(1), .EnableIci(1'b1)
  ) u_wait (
    .clk_i, .rst_ni,
    .ex_valid_i(eng_valid[W]), .ex_ready_o(eng_ready[W]), .ex_insn_i,
    .done_o(eng_done[W]), .busy_o(eng_busy[W]), .err_o(w_err), .err_code_o(w_err_code), .err_addr_o(w_err_addr),
    /* verilator lint_off PINCONNECTEMPTY */
    .vmem_req_o(), .vmem_gnt_i(1'b0), .vmem_we_o(), .vmem_addr_o(), .vmem_wdata_o(), .vmem_be_o(),
    .vmem_rdata_i('0), .acc_req_o(), .acc_gnt_i(1'b0), .acc_we_o(), .acc_addr_o(), .acc_wdata_o(), .acc_be_o(),
    .acc_rdata_i('0),
    .ici_aw_valid_o(), .ici_aw_ready_i(1'b0), .ici_aw_addr_o(), .ici_aw_len_o(), .ici_aw_incr_o(),
    .ici_dest_x_o(), .ici_dest_y_o(), .ici_sem_o(), .ici_local_o(), .ici_w_valid_o(), .ici_w_ready_i(1'b0),
    .ici_w_data_o(), .ici_w_strb_o(), .ici_w_last_o(), .ici_b_valid_i(1'b0),
    /* verilator lint_on PINCONNECTEMPTY */
    .sem_wait_valid_o, .sem_wait_sem_o, .sem_wait_count_o, .sem_done_i, .sem_timeout_i, .abort_i,
    `TSL_AXI_CONNECT(m_axi_, w_)
  );
  logic unused_wait;
  assign unused_wait = ^{w_awvalid, w_awaddr, w_awlen, w_awsize, w_awburst, w_wvalid, w_wdata, w_wstrb, w_wlast,
                         w_bready, w_arvalid, w_araddr, w_arlen, w_arsize, w_arburst, w_rready};
  // One error at a time reaches the controller, which stops the queue at the first: the main
  // engine's, else the wait engine's.
  assign err_o      = m_err || w_err;
  assign err_code_o = m_err ? m_err_code : w_err_code;
  assign err_addr_o = m_err ? m_err_addr : w_err_addr;

  assign busy_o  = eng_busy[0] || eng_busy[W] || s_held != '0;
  assign fence_o = s_held != '0;

  // The local extents of the main engine's instructions in flight, oldest first (it finishes them
  // in order): an EARLY SEND waits only for those that meet what it reads (a LOAD writes there, a
  // STORE reads there).
  logic [MainChain*34-1:0] ml_lo_q, ml_hi_q;
  always_comb begin
    m_hit = 1'b0;
    for (int i = 0; i < MainChain; i++)
      if (Cw'(i) < blocking_q && lo < ml_hi_q[34*i +: 34] && ml_lo_q[34*i +: 34] < hi)
        m_hit = 1'b1;
  end
  always_ff @(posedge clk_i) begin
    if (eng_done[0]) begin   // the oldest leaves
      ml_lo_q   <= ml_lo_q >> 34;
      ml_hi_q   <= ml_hi_q >> 34;
    end
    if (go && eng == '0) begin   // the new one goes in after those that stay
      for (int i = 0; i < MainChain; i++)
        if (Cw'(i) == blocking_q - Cw'(eng_done[0])) begin
          ml_lo_q[34*i +: 34] <= lo;
          ml_hi_q[34*i +: 34] <= hi;
        end
    end
  end

  // ---- order ------------------------------------------------------------------------------------
  // The engine of every instruction in flight, oldest first, and what each engine has finished
  // and not yet reported; how many instructions the main engine holds.
  logic          o_valid, o_pop, o_ready;
  logic [Ew-1:0] o_eng;
  logic [$clog2(Inflight+2)-1:0] o_level;
  logic [Cw-1:0] fin_q [E+1];
  tsl_prim_fifo #(.Width(Ew), .Depth(Inflight + 1)) u_order (
    .clk_i, .rst_ni, .clr_i(1'b0),
    .valid_i(go), .ready_o(o_ready), .data_i(is_async ? Ew'(E + 1) : eng),
    .valid_o(o_valid), .ready_i(o_pop), .data_o(o_eng), .level_o(o_level));
  logic o_fin;   // the oldest is finished: an ASYNC SEND, or its engine has reported it
  always_comb begin
    o_fin = o_eng == Ew'(E + 1);
    for (int e = 0; e <= E; e++)
      if (o_eng == Ew'(e) && fin_q[e] != '0) o_fin = 1'b1;
  end
  assign o_pop  = o_valid && o_fin;
  assign done_o = o_pop;

  always_comb begin
    blocking_d = blocking_q;
    if (go && eng == '0) blocking_d = blocking_d + Cw'(1);
    if (eng_done[0]) blocking_d = blocking_d - Cw'(1);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      blocking_q <= '0;
      for (int e = 0; e <= E; e++) fin_q[e] <= '0;
    end else begin
      blocking_q <= blocking_d;
      for (int e = 0; e <= E; e++)
        fin_q[e] <= fin_q[e] + Cw'(eng_fin[e]) - Cw'(o_pop && o_eng == Ew'(e));
    end
  end

  logic unused_ok;
  assign unused_ok = ^{o_ready, o_level};

  `TSL_ASSERT_INIT(ParamRange, Ports == 2 || Ports == 4, "Ports 2 (a ring) or 4 (a torus)")
  `TSL_ASSERT(SendRouted, ex_valid_i && is_send |-> port < 3'(Ports), "a SEND to this chip reached the DMA")
  `TSL_ASSERT(OrderRoom, go |-> o_ready, "more instructions in flight than Inflight")
  `TSL_ASSERT(DoneKnown, eng_done[0] |-> blocking_q != '0, "the main engine finished an instruction it was not given")
  `TSL_ASSERT(MainHolds, 32'(blocking_q) <= MainChain, "the main engine holds more instructions than its extents")
endmodule
