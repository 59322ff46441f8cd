// Tessel tensor core: the controller (registers, dispatcher, queues, tokens), the program fetch
// unit, the DMA, MXU and VPU units, and the banked VMEM and ACC memories (docs/hardware.md, "Tensor
// core"). The control core drives the register port; the DMA and the fetch unit are AXI4 masters
// toward HBM: the DMA owns AW/W/B, and the two share AR/R through tsl_axi_arb (round-robin, R beats
// routed back in the order of the AR handshakes).
// With EnableIci the DMA is tsl_dma_ici, which also runs SEND and SEMWAIT: a send engine per link
// (VMEM and ACC ports 4 and up, after the VPU), whose bursts go out on ici_* to the chip's ICI unit
// (tsl_ici, in the SoC, outside the cores' reset), and SEMWAIT's wait on sem_*; and the ICI unit
// writes the packets of SENDs with TO_LOCAL into VMEM or ACC on ici_lm_* (the last port of each).
// VMEM ports in priority order: MXU activations, MXU weights, DMA, VPU. ACC ports: MXU read, MXU
// write, DMA, VPU. The MXU therefore never waits on a memory conflict.
// Register bus: the control core's contract (request held until a one-cycle ready; read data with
// ready). irq_o is level: (TC IRQ_STATUS & IRQ_ENABLE) != 0.
`include "hw/rtl/tsl_axi.svh"
module tsl_tc #(
  parameter int N           = tsl_pkg::PARAM_N,            // MXU size and VPU lanes; AXI is 16N bits
  parameter bit EnableBf16  = 1'b1,                        // 1: int8 and bf16/fp32; 0: int8 only
  parameter bit EnableSeq   = 1'b1,                        // 1: the tile sequencer (CFG_FEATURES.SEQ);
                                                           // 0: none (SEQ0..SEQ23 ignored)
  parameter int VmemBytes   = tsl_pkg::PARAM_VMEM_BYTES,   // power of two
  parameter int AccBytes    = tsl_pkg::PARAM_ACC_BYTES,    // power of two
  parameter int HbmBytes    = tsl_pkg::PARAM_HBM_BYTES,    // power of two; DMA range checks
  parameter int QueueDepth  = tsl_pkg::PARAM_QUEUE_DEPTH,  // entries per unit queue
  parameter int VmemBanks   = 4,                           // VMEM banks (power of two)
  parameter int AccBanks    = 4,                           // ACC banks (power of two)
  parameter int DmaMaxBurst = 16,                          // beats per AXI burst
  parameter int DmaMaxReads = 32,                          // AXI read bursts outstanding
  parameter int FetchBeats  = (N >= 16) ? 32 : 1024 / (2 * N), // program fetch buffer, beats
  parameter bit EnableIci   = 1'b0,                        // 1: DMA SEND and SEMWAIT when pod_x_i != 0
  parameter int IciPorts    = 4,                           // ICI links: a send engine each (EnableIci)
  localparam int Dw = 16 * N                               // AXI data bits
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // register bus (TC block offsets)
  input  logic            reg_valid_i,
  output logic            reg_ready_o,
  input  logic [11:0]     reg_addr_i,
  input  logic [31:0]     reg_wdata_i,
  input  logic [3:0]      reg_wstrb_i,
  output logic [31:0]     reg_rdata_o,
  output logic            reg_err_o,
  output logic            irq_o,
  // the pod (EnableIci): this chip's coordinates and the pod's extents (0: not in a pod, no ICI)
  input  logic [3:0]      chip_x_i,
  input  logic [3:0]      chip_y_i,
  input  logic [4:0]      pod_x_i,
  input  logic [4:0]      pod_y_i,
  // the DMA's SEND bursts, link p's at index p, and SEMWAITs toward the ICI unit (tsl_ici's ports)
  output logic [IciPorts-1:0]      ici_aw_valid_o,
  input  logic [IciPorts-1:0]      ici_aw_ready_i,
  output logic [IciPorts*32-1:0]   ici_aw_addr_o,
  output logic [IciPorts*8-1:0]    ici_aw_len_o,
  output logic [IciPorts-1:0]      ici_aw_incr_o,
  output logic [IciPorts*4-1:0]    ici_dest_x_o,
  output logic [IciPorts*4-1:0]    ici_dest_y_o,
  output logic [IciPorts*4-1:0]    ici_sem_o,
  output logic [IciPorts-1:0]      ici_local_o,
  output logic [IciPorts-1:0]      ici_w_valid_o,
  input  logic [IciPorts-1:0]      ici_w_ready_i,
  output logic [IciPorts*Dw-1:0]   ici_w_data_o,
  output logic [IciPorts*Dw/8-1:0] ici_w_strb_o,
  output logic [IciPorts-1:0]      ici_w_last_o,
  input  logic [IciPorts-1:0]      ici_b_valid_i,
  output logic [IciPorts-1:0]      ici_done_inc_o,   // a SEND with DONE left link p's engine
  output logic [IciPorts*4-1:0]    ici_done_sem_o,
  // the ICI unit's local writes, 2N bytes at ici_lm_addr_i x 2N of ACC (ici_lm_acc_i: half an ACC
  // line) or VMEM (a line), on the last port of each memory (the lowest priority)
  input  logic                     ici_lm_req_i,
  output logic                     ici_lm_gnt_o,
  input  logic                     ici_lm_acc_i,
  input  logic [$clog2((VmemBytes > AccBytes ? VmemBytes : AccBytes)/(2*N))-1:0] ici_lm_addr_i,
  input  logic [16*N-1:0]          ici_lm_wdata_i,
  input  logic [2*N-1:0]           ici_lm_be_i,
  output logic            sem_clear_o,
  output logic            sem_wait_valid_o,
  output logic [3:0]      sem_wait_sem_o,
  output logic [15:0]     sem_wait_count_o,
  input  logic            sem_done_i,
  input  logic            sem_timeout_i,
  // AXI4 master toward HBM (ID 0 only)
  `TSL_AXI_M_PORTS(m_axi_, Dw)
);
  localparam int VLines = VmemBytes / (2 * N);
  localparam int ALines = AccBytes / (4 * N);
  localparam int VAw    = $clog2(VLines);
  localparam int AAw    = $clog2(ALines);
  localparam int Vw     = 16 * N;  // VMEM line bits
  localparam int Aw     = 32 * N;  // ACC line bits
  // DMA instructions handed over before their done: with ICI a tile's SENDs, credits and SEMWAITs
  // pass while the LOADs before them are in flight, so that the next LOADs join their chain.
  localparam int DmaInflight = EnableIci ? 12 : 4;

  // --- controller and units ----------------------------------------------------------------------
  logic         dma_ex_valid /* verilator public_flat_rd */, dma_ex_ready /* verilator public_flat_rd */, dma_done /* verilator public_flat_rd */, dma_busy, dma_err;
  logic         mxu_ex_valid /* verilator public_flat_rd */, mxu_ex_ready /* verilator public_flat_rd */, mxu_done /* verilator public_flat_rd */, mxu_busy;
  logic         vpu_ex_valid /* verilator public_flat_rd */, vpu_ex_ready /* verilator public_flat_rd */, vpu_done /* verilator public_flat_rd */, vpu_busy;
  logic [255:0] dma_ex_insn /* verilator public_flat_rd */, mxu_ex_insn /* verilator public_flat_rd */, vpu_ex_insn /* verilator public_flat_rd */;
  logic [3:0]   dma_err_code;
  logic         dma_abort;    // CTRL.RESET: a SEMWAIT in flight ends
  logic         dma_fence;    // ASYNC SENDs still leaving (tsl_dma_ici)
  logic [31:0]  dma_err_addr;
  // program fetch unit <-> controller
  logic         f_start, f_abort, f_busy, f_valid, f_ready, f_seq;
  logic [31:0]  f_addr, f_bytes, f_eaddr;
  logic [4:0]   f_word;
  logic [3:0]   f_err;
  logic [255:0] f_data;
  // AR/R of the DMA (master 0) and the fetch unit (master 1) before the arbiter
  `TSL_AXI_WIRES_ARRAY_RD(s_, Dw, 2)

  tsl_tc_ctrl #(
    .N          (N),
    .VmemBytes  (VmemBytes),
    .AccBytes   (AccBytes),
    .HbmBytes   (HbmBytes),
    .QueueDepth (QueueDepth),
    .EnableBf16 (EnableBf16),
    .EnableSeq  (EnableSeq),
    .EnableIci  (EnableIci),
    .DmaInflight(DmaInflight)
  ) u_ctrl (
    .clk_i,
    .rst_ni,
    .chip_x_i,
    .chip_y_i,
    .pod_x_i,
    .pod_y_i,
    .resetting_o (dma_abort),
    .reset_done_o(sem_clear_o),
    .reg_valid_i,
    .reg_ready_o,
    .reg_addr_i,
    .reg_wdata_i,
    .reg_wstrb_i,
    .reg_rdata_o,
    .reg_err_o,
    .irq_o,
    .dma_ex_valid_o(dma_ex_valid),
    .dma_ex_ready_i(dma_ex_ready),
    .dma_ex_insn_o (dma_ex_insn),
    .dma_done_i    (dma_done),
    .dma_busy_i    (dma_busy),
    .dma_fence_i   (dma_fence),
    .dma_err_i     (dma_err),
    .dma_err_code_i(dma_err_code),
    .dma_err_addr_i(dma_err_addr),
    .mxu_ex_valid_o(mxu_ex_valid),
    .mxu_ex_ready_i(mxu_ex_ready),
    .mxu_ex_insn_o (mxu_ex_insn),
    .mxu_done_i    (mxu_done),
    .mxu_busy_i    (mxu_busy),
    .vpu_ex_valid_o(vpu_ex_valid),
    .vpu_ex_ready_i(vpu_ex_ready),
    .vpu_ex_insn_o (vpu_ex_insn),
    .vpu_done_i    (vpu_done),
    .vpu_busy_i    (vpu_busy),
    .fetch_start_o (f_start),
    .fetch_addr_o  (f_addr),
    .fetch_bytes_o (f_bytes),
    .fetch_abort_o (f_abort),
    .fetch_busy_i  (f_busy),
    .fetch_valid_i (f_valid),
    .fetch_ready_o (f_ready),
    .fetch_seq_i   (f_seq),
    .fetch_word_i  (f_word),
    .fetch_err_i   (f_err),
    .fetch_addr_i  (f_eaddr),
    .fetch_data_i  (f_data)
  );

  tsl_tc_fetch #(
    .N       (N),
    .HbmBytes(HbmBytes),
    .Beats   (FetchBeats)
  ) u_fetch (
    .clk_i,
    .rst_ni,
    .start_i      (f_start),
    .addr_i       (f_addr),
    .bytes_i      (f_bytes),
    .abort_i      (f_abort),
    .busy_o       (f_busy),
    .item_valid_o (f_valid),
    .item_ready_i (f_ready),
    .item_seq_o   (f_seq),
    .item_word_o  (f_word),
    .item_err_o   (f_err),
    .item_addr_o  (f_eaddr),
    .item_data_o  (f_data),
    `TSL_AXI_CONNECT_SLICE_RD(m_axi_, s_, Dw, 1)
  );

  // The read channel: tsl_axi_arb with its write side idle (the DMA's AW/W/B go straight out):
  // no write from its masters (s_), no write answer from its slave side (nc_).
  `TSL_AXI_WIRES_ARRAY_WR(s_, Dw, 2)
  `TSL_AXI_WIRES_WR(nc_, Dw)
  assign {s_awvalid, s_awaddr, s_awlen, s_awsize, s_awburst, s_wvalid, s_wdata, s_wstrb, s_wlast, s_bready} = '0;
  assign {nc_awready, nc_wready, nc_bvalid, nc_bresp} = '0;
  tsl_axi_arb #(.Masters(2), .DataW(Dw), .Depth(DmaMaxReads + 4)) u_rd_arb (
    .clk_i,
    .rst_ni,
    `TSL_AXI_CONNECT(s_axi_, s_),
    `TSL_AXI_CONNECT_WR(m_axi_, nc_),
    `TSL_AXI_CONNECT_RD(m_axi_, m_axi_)
  );
  logic unused_arb;
  assign unused_arb = ^{s_awready, s_wready, s_bvalid, s_bresp, nc_awvalid, nc_awaddr, nc_awlen, nc_awsize,
                        nc_awburst, nc_wvalid, nc_wdata, nc_wstrb, nc_wlast, nc_bready};

  // Memory port bundles: VMEM p0 MXU act, p1 MXU weights, p2 DMA, p3 VPU; ACC p0 MXU read,
  // p1 MXU write, p2 DMA, p3 VPU; then (VE) the VPU's early reads, after the send engines.
  // Split per port for Verilator: a unit's request may follow its own grant combinationally in
  // the same always block, which would otherwise look like a loop through the whole vector.
  localparam int MP = EnableIci ? 6 + IciPorts : 5;   // memory ports: 4 and up, the send engines,
                                                      // the VPU's early reads, then the ICI
                                                      // unit's local writes
  localparam int VE = EnableIci ? 4 + IciPorts : 4;   // the VPU's early reads
  logic [MP-1:0]     v_req /* verilator split_var */, v_gnt /* verilator split_var */;
  logic [MP-1:0]     a_req /* verilator split_var */, a_gnt /* verilator split_var */;
  logic [MP-1:0]     v_we, a_we;
  logic [MP*VAw-1:0] v_addr;
  logic [MP*AAw-1:0] a_addr;
  logic [MP*Vw-1:0]  v_wdata, v_rdata;
  logic [MP*Aw-1:0]  a_wdata, a_rdata;
  logic [MP*Vw/8-1:0] v_be;
  logic [MP*Aw/8-1:0] a_be;

  tsl_tc_mxu #(
    .N         (N),
    .VmemBytes (VmemBytes),
    .AccBytes  (AccBytes),
    .EnableBf16(EnableBf16)
  ) u_mxu (
    .clk_i,
    .rst_ni,
    .ex_valid_i (mxu_ex_valid),
    .ex_ready_o (mxu_ex_ready),
    .ex_insn_i  (mxu_ex_insn),
    .done_o     (mxu_done),
    .busy_o     (mxu_busy),
    .va_req_o   (v_req[0]),
    .va_gnt_i   (v_gnt[0]),
    .va_addr_o  (v_addr[0*VAw +: VAw]),
    .va_rdata_i (v_rdata[0*Vw +: Vw]),
    .vw_req_o   (v_req[1]),
    .vw_gnt_i   (v_gnt[1]),
    .vw_addr_o  (v_addr[1*VAw +: VAw]),
    .vw_rdata_i (v_rdata[1*Vw +: Vw]),
    .acc_re_o   (a_req[0]),
    .acc_raddr_o(a_addr[0*AAw +: AAw]),
    .acc_rdata_i(a_rdata[0*Aw +: Aw]),
    .acc_we_o   (a_req[1]),
    .acc_waddr_o(a_addr[1*AAw +: AAw]),
    .acc_wdata_o(a_wdata[1*Aw +: Aw])
  );
  assign v_we[1:0]                = 2'b00;
  assign v_wdata[2*Vw-1:0]        = '0;
  assign v_be[2*Vw/8-1:0]         = '0;
  assign a_we[1:0]                = 2'b10;
  assign a_wdata[0*Aw +: Aw]      = '0;
  assign a_be[0 +: 2*Aw/8]        = {{Aw/8{1'b1}}, {Aw/8{1'b0}}};

  if (EnableIci) begin : g_dma
    localparam int E = IciPorts + 1;   // engines: 0 main (memory port 2), 1 + p link p's (port 4 + p)
    logic [E-1:0]      dv_req, dv_gnt, dv_we, da_req, da_gnt, da_we;
    logic [E*VAw-1:0]  dv_addr;
    logic [E*AAw-1:0]  da_addr;
    logic [E*Vw-1:0]   dv_wdata, dv_rdata;
    logic [E*Aw-1:0]   da_wdata, da_rdata;
    logic [E*Vw/8-1:0] dv_be;
    logic [E*Aw/8-1:0] da_be;
    for (genvar e = 0; e < E; e++) begin : g_port
      localparam int M = e == 0 ? 2 : 3 + e;
      assign v_req[M]              = dv_req[e];
      assign dv_gnt[e]             = v_gnt[M];
      assign v_we[M]               = dv_we[e];
      assign v_addr[M*VAw +: VAw]  = dv_addr[e*VAw +: VAw];
      assign v_wdata[M*Vw +: Vw]   = dv_wdata[e*Vw +: Vw];
      assign v_be[M*Vw/8 +: Vw/8]  = dv_be[e*Vw/8 +: Vw/8];
      assign dv_rdata[e*Vw +: Vw]  = v_rdata[M*Vw +: Vw];
      assign a_req[M]              = da_req[e];
      assign da_gnt[e]             = a_gnt[M];
      assign a_we[M]               = da_we[e];
      assign a_addr[M*AAw +: AAw]  = da_addr[e*AAw +: AAw];
      assign a_wdata[M*Aw +: Aw]   = da_wdata[e*Aw +: Aw];
      assign a_be[M*Aw/8 +: Aw/8]  = da_be[e*Aw/8 +: Aw/8];
      assign da_rdata[e*Aw +: Aw]  = a_rdata[M*Aw +: Aw];
    end
    tsl_dma_ici #(
      .N        (N),
      .VmemBytes(VmemBytes),
      .AccBytes (AccBytes),
      .HbmBytes (HbmBytes),
      .MaxBurst (DmaMaxBurst),
      .MaxReads (DmaMaxReads),
      .Ports    (IciPorts),
      .Inflight (DmaInflight)
    ) u_dma (
      .clk_i,
      .rst_ni,
      .chip_x_i,
      .chip_y_i,
      .pod_x_i,
      .pod_y_i,
      .ex_valid_i  (dma_ex_valid),
      .ex_ready_o  (dma_ex_ready),
      .ex_insn_i   (dma_ex_insn),
      .done_o      (dma_done),
      .busy_o      (dma_busy),
      .fence_o     (dma_fence),
      .err_o       (dma_err),
      .err_code_o  (dma_err_code),
      .err_addr_o  (dma_err_addr),
      .vmem_req_o  (dv_req),
      .vmem_gnt_i  (dv_gnt),
      .vmem_we_o   (dv_we),
      .vmem_addr_o (dv_addr),
      .vmem_wdata_o(dv_wdata),
      .vmem_be_o   (dv_be),
      .vmem_rdata_i(dv_rdata),
      .acc_req_o   (da_req),
      .acc_gnt_i   (da_gnt),
      .acc_we_o    (da_we),
      .acc_addr_o  (da_addr),
      .acc_wdata_o (da_wdata),
      .acc_be_o    (da_be),
      .acc_rdata_i (da_rdata),
      .ici_aw_valid_o,
      .ici_aw_ready_i,
      .ici_aw_addr_o,
      .ici_aw_len_o,
      .ici_aw_incr_o,
      .ici_dest_x_o,
      .ici_dest_y_o,
      .ici_sem_o,
      .ici_local_o,
      .ici_w_valid_o,
      .ici_w_ready_i,
      .ici_w_data_o,
      .ici_w_strb_o,
      .ici_w_last_o,
      .ici_b_valid_i,
      .done_inc_o  (ici_done_inc_o),
      .done_sem_o  (ici_done_sem_o),
      .sem_wait_valid_o,
      .sem_wait_sem_o,
      .sem_wait_count_o,
      .sem_done_i,
      .sem_timeout_i,
      .abort_i     (dma_abort),
      `TSL_AXI_CONNECT_WR(m_axi_, m_axi_),
      `TSL_AXI_CONNECT_SLICE_RD(m_axi_, s_, Dw, 0)
    );
    localparam int M = MP - 1;   // the ICI unit's local writes
    assign v_req[M]             = ici_lm_req_i && !ici_lm_acc_i;
    assign a_req[M]             = ici_lm_req_i && ici_lm_acc_i;
    assign ici_lm_gnt_o         = ici_lm_acc_i ? a_gnt[M] : v_gnt[M];
    assign v_we[M]              = 1'b1;
    assign a_we[M]              = 1'b1;
    assign v_addr[M*VAw +: VAw] = VAw'(ici_lm_addr_i);
    assign a_addr[M*AAw +: AAw] = AAw'(ici_lm_addr_i >> 1);
    assign v_wdata[M*Vw +: Vw]  = ici_lm_wdata_i;
    assign a_wdata[M*Aw +: Aw]  = {2{ici_lm_wdata_i}};
    assign v_be[M*Vw/8 +: Vw/8] = ici_lm_be_i;
    assign a_be[M*Aw/8 +: Aw/8] = ici_lm_addr_i[0] ? {ici_lm_be_i, (Vw/8)'(0)} : {(Vw/8)'(0), ici_lm_be_i};
    logic unused_lm;
    assign unused_lm = ^{v_rdata[M*Vw +: Vw], a_rdata[M*Aw +: Aw]};
  end else begin : g_dma
    assign dma_fence = 1'b0;
    assign {ici_aw_valid_o, ici_aw_addr_o, ici_aw_len_o, ici_aw_incr_o, ici_dest_x_o, ici_dest_y_o, ici_sem_o,
            ici_local_o, ici_w_valid_o, ici_w_data_o, ici_w_strb_o, ici_w_last_o, ici_done_inc_o,
            ici_done_sem_o, ici_lm_gnt_o} = '0;
    assign {sem_wait_valid_o, sem_wait_sem_o, sem_wait_count_o} = '0;
    logic unused_ici;
    assign unused_ici = ^{ici_aw_ready_i, ici_w_ready_i, ici_b_valid_i, sem_done_i, sem_timeout_i, dma_abort,
                          chip_x_i, chip_y_i, pod_y_i, ici_lm_req_i, ici_lm_acc_i, ici_lm_addr_i, ici_lm_wdata_i,
                          ici_lm_be_i};
    tsl_dma #(
      .N        (N),
      .VmemBytes(VmemBytes),
      .AccBytes (AccBytes),
      .HbmBytes (HbmBytes),
      .MaxBurst (DmaMaxBurst),
      .MaxReads (DmaMaxReads)
    ) u_dma (
      .clk_i,
      .rst_ni,
      .ex_valid_i  (dma_ex_valid),
      .ex_ready_o  (dma_ex_ready),
      .ex_insn_i   (dma_ex_insn),
      .done_o      (dma_done),
      .busy_o      (dma_busy),
      .err_o       (dma_err),
      .err_code_o  (dma_err_code),
      .err_addr_o  (dma_err_addr),
      .vmem_req_o  (v_req[2]),
      .vmem_gnt_i  (v_gnt[2]),
      .vmem_we_o   (v_we[2]),
      .vmem_addr_o (v_addr[2*VAw +: VAw]),
      .vmem_wdata_o(v_wdata[2*Vw +: Vw]),
      .vmem_be_o   (v_be[2*Vw/8 +: Vw/8]),
      .vmem_rdata_i(v_rdata[2*Vw +: Vw]),
      .acc_req_o   (a_req[2]),
      .acc_gnt_i   (a_gnt[2]),
      .acc_we_o    (a_we[2]),
      .acc_addr_o  (a_addr[2*AAw +: AAw]),
      .acc_wdata_o (a_wdata[2*Aw +: Aw]),
      .acc_be_o    (a_be[2*Aw/8 +: Aw/8]),
      .acc_rdata_i (a_rdata[2*Aw +: Aw]),
      /* verilator lint_off PINCONNECTEMPTY */
      .ici_aw_valid_o(), .ici_aw_ready_i(1'b0), .ici_aw_addr_o(), .ici_aw_len_o(), .ici_aw_incr_o(),
      .ici_dest_x_o(), .ici_dest_y_o(), .ici_sem_o(), .ici_local_o(), .ici_w_valid_o(), .ici_w_ready_i(1'b0), .ici_w_data_o(),
      .ici_w_strb_o(), .ici_w_last_o(), .ici_b_valid_i(1'b0),
      .sem_wait_valid_o(), .sem_wait_sem_o(), .sem_wait_count_o(),
      /* verilator lint_on PINCONNECTEMPTY */
      .sem_done_i(1'b0), .sem_timeout_i(1'b0), .abort_i(1'b0),
      `TSL_AXI_CONNECT_WR(m_axi_, m_axi_),
      `TSL_AXI_CONNECT_SLICE_RD(m_axi_, s_, Dw, 0)
    );
  end

  tsl_vpu #(
    .N         (N),
    .VmemBytes (VmemBytes),
    .AccBytes  (AccBytes),
    .EnableBf16(EnableBf16)
  ) u_vpu (
    .clk_i,
    .rst_ni,
    .ex_valid_i  (vpu_ex_valid),
    .ex_ready_o  (vpu_ex_ready),
    .ex_insn_i   (vpu_ex_insn),
    .done_o      (vpu_done),
    .busy_o      (vpu_busy),
    .vmem_req_o  (v_req[3]),
    .vmem_gnt_i  (v_gnt[3]),
    .vmem_we_o   (v_we[3]),
    .vmem_addr_o (v_addr[3*VAw +: VAw]),
    .vmem_wdata_o(v_wdata[3*Vw +: Vw]),
    .vmem_be_o   (v_be[3*Vw/8 +: Vw/8]),
    .vmem_rdata_i(v_rdata[3*Vw +: Vw]),
    .acc_req_o   (a_req[3]),
    .acc_gnt_i   (a_gnt[3]),
    .acc_we_o    (a_we[3]),
    .acc_addr_o  (a_addr[3*AAw +: AAw]),
    .acc_wdata_o (a_wdata[3*Aw +: Aw]),
    .acc_be_o    (a_be[3*Aw/8 +: Aw/8]),
    .acc_rdata_i (a_rdata[3*Aw +: Aw]),
    .vmem_e_req_o  (v_req[VE]),
    .vmem_e_gnt_i  (v_gnt[VE]),
    .vmem_e_addr_o (v_addr[VE*VAw +: VAw]),
    .vmem_e_rdata_i(v_rdata[VE*Vw +: Vw]),
    .acc_e_req_o   (a_req[VE]),
    .acc_e_gnt_i   (a_gnt[VE]),
    .acc_e_addr_o  (a_addr[VE*AAw +: AAw]),
    .acc_e_rdata_i (a_rdata[VE*Aw +: Aw])
  );
  assign v_we[VE]                = 1'b0;
  assign a_we[VE]                = 1'b0;
  assign v_wdata[VE*Vw +: Vw]    = '0;
  assign a_wdata[VE*Aw +: Aw]    = '0;
  assign v_be[VE*Vw/8 +: Vw/8]   = '0;
  assign a_be[VE*Aw/8 +: Aw/8]   = '0;

  // --- memories ------------------------------------------------------------------------------------
  tsl_tc_mem #(
    .Lines    (VLines),
    .LineBytes(2 * N),
    .Banks    (VmemBanks),
    .Ports    (MP)
  ) u_vmem (
    .clk_i,
    .rst_ni,
    .req_i  (v_req),
    .gnt_o  (v_gnt),
    .we_i   (v_we),
    .addr_i (v_addr),
    .wdata_i(v_wdata),
    .be_i   (v_be),
    .rdata_o(v_rdata)
  );

  tsl_tc_mem #(
    .Lines    (ALines),
    .LineBytes(4 * N),
    .Banks    (AccBanks),
    .Ports    (MP)
  ) u_acc (
    .clk_i,
    .rst_ni,
    .req_i  (a_req),
    .gnt_o  (a_gnt),
    .we_i   (a_we),
    .addr_i (a_addr),
    .wdata_i(a_wdata),
    .be_i   (a_be),
    .rdata_o(a_rdata)
  );

  logic unused;
  assign unused = ^{a_gnt[1:0], a_rdata[1*Aw +: Aw]};  // the MXU's ACC ports always win
endmodule
