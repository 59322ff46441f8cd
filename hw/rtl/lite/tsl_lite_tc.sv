// Lite tensor core: the tsl_tc interface (register bus, interrupt, AXI4 master toward HBM) and
// instruction set, int8 only, for small FPGAs. The controller is tsl_tc_ctrl (every dispatch check,
// the queues, tokens, errors and counters); one instruction executes at a time, on one of three
// small serial units (tsl_lite_dma, tsl_lite_mxu, tsl_lite_vpu) that share one 32-bit port into
// VMEM and one into ACC (each a tsl_prim_ram_1r1w). Running the ready queue heads one after another
// is a legal schedule of isa.md section 3, so results equal the model's.
module tsl_lite_tc #(
  parameter int N          = 4,                            // MXU size and VPU lanes; AXI is 16N bits
  parameter int VmemBytes  = 16384,                        // power of two
  parameter int AccBytes   = 4096,                         // power of two
  parameter int HbmBytes   = tsl_pkg::PARAM_HBM_BYTES,     // power of two; DMA range checks
  parameter int QueueDepth = tsl_pkg::PARAM_QUEUE_DEPTH,   // entries per unit queue
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
  // AXI4 master toward HBM (ID 0 only)
  output logic            m_axi_awvalid,
  input  logic            m_axi_awready,
  output logic [31:0]     m_axi_awaddr,
  output logic [7:0]      m_axi_awlen,
  output logic [2:0]      m_axi_awsize,
  output logic [1:0]      m_axi_awburst,
  output logic            m_axi_wvalid,
  input  logic            m_axi_wready,
  output logic [Dw-1:0]   m_axi_wdata,
  output logic [Dw/8-1:0] m_axi_wstrb,
  output logic            m_axi_wlast,
  input  logic            m_axi_bvalid,
  output logic            m_axi_bready,
  input  logic [1:0]      m_axi_bresp,
  output logic            m_axi_arvalid,
  input  logic            m_axi_arready,
  output logic [31:0]     m_axi_araddr,
  output logic [7:0]      m_axi_arlen,
  output logic [2:0]      m_axi_arsize,
  output logic [1:0]      m_axi_arburst,
  input  logic            m_axi_rvalid,
  output logic            m_axi_rready,
  input  logic [Dw-1:0]   m_axi_rdata,
  input  logic [1:0]      m_axi_rresp,
  input  logic            m_axi_rlast
);
  localparam int VAw = $clog2(VmemBytes / 4);
  localparam int AAw = $clog2(AccBytes / 4);
  localparam int Acc = 24;   // local address bit that selects ACC (tsl_pkg::LOCAL_ACC_BASE)

  // --- controller --------------------------------------------------------------------------------
  logic [2:0]   c_valid, c_ready, u_valid, u_idle, done, busy;   // [0] DMA, [1] MXU, [2] VPU
  logic [255:0] dma_insn, mxu_insn, vpu_insn;
  logic         dma_err;
  logic [3:0]   dma_err_code;
  logic [31:0]  dma_err_addr;

  tsl_tc_ctrl #(
    .N          (N),
    .VmemBytes  (VmemBytes),
    .AccBytes   (AccBytes),
    .HbmBytes   (HbmBytes),
    .QueueDepth (QueueDepth),
    .EnableBf16 (1'b0),
    .InflightMax(1)
  ) u_ctrl (
    .clk_i,
    .rst_ni,
    .reg_valid_i,
    .reg_ready_o,
    .reg_addr_i,
    .reg_wdata_i,
    .reg_wstrb_i,
    .reg_rdata_o,
    .reg_err_o,
    .irq_o,
    .dma_ex_valid_o(c_valid[0]),
    .dma_ex_ready_i(c_ready[0]),
    .dma_ex_insn_o (dma_insn),
    .dma_done_i    (done[0]),
    .dma_busy_i    (busy[0]),
    .dma_err_i     (dma_err),
    .dma_err_code_i(dma_err_code),
    .dma_err_addr_i(dma_err_addr),
    .mxu_ex_valid_o(c_valid[1]),
    .mxu_ex_ready_i(c_ready[1]),
    .mxu_ex_insn_o (mxu_insn),
    .mxu_done_i    (done[1]),
    .mxu_busy_i    (busy[1]),
    .vpu_ex_valid_o(c_valid[2]),
    .vpu_ex_ready_i(c_ready[2]),
    .vpu_ex_insn_o (vpu_insn),
    .vpu_done_i    (done[2]),
    .vpu_busy_i    (busy[2])
  );

  // One unit at a time: while every unit is idle, the first ready head (DMA, MXU, VPU) gets the
  // grant; the grant ends at the handshake (or if its head is withdrawn by CTRL.RESET).
  logic [2:0] rdy, grant_q, grant_d;
  assign u_valid = c_valid & grant_q;
  assign c_ready = rdy & grant_q;
  assign u_idle  = rdy;
  always_comb begin
    if (|(grant_q & c_valid)) grant_d = |(grant_q & rdy) ? 3'b000 : grant_q;
    else if (!(&u_idle))      grant_d = 3'b000;
    else if (c_valid[0])      grant_d = 3'b001;
    else if (c_valid[1])      grant_d = 3'b010;
    else if (c_valid[2])      grant_d = 3'b100;
    else                      grant_d = 3'b000;
  end

  // --- units and their local ports ------------------------------------------------------------------
  logic [2:0]  lrd, lwr;
  logic [95:0] lraddr, lwaddr, lwdata;   // unit u at [32u +: 32]
  logic [11:0] lbe;
  logic [31:0] lrdata;

  tsl_lite_dma #(.N(N)) u_dma (
    .clk_i,
    .rst_ni,
    .ex_valid_i(u_valid[0]),
    .ex_ready_o(rdy[0]),
    .ex_insn_i (dma_insn),
    .done_o    (done[0]),
    .busy_o    (busy[0]),
    .err_o     (dma_err),
    .err_code_o(dma_err_code),
    .err_addr_o(dma_err_addr),
    .lrd_o     (lrd[0]),
    .lraddr_o  (lraddr[0 +: 32]),
    .lrdata_i  (lrdata),
    .lwr_o     (lwr[0]),
    .lwaddr_o  (lwaddr[0 +: 32]),
    .lwdata_o  (lwdata[0 +: 32]),
    .lbe_o     (lbe[0 +: 4]),
    .m_axi_awvalid,
    .m_axi_awready,
    .m_axi_awaddr,
    .m_axi_awlen,
    .m_axi_awsize,
    .m_axi_awburst,
    .m_axi_wvalid,
    .m_axi_wready,
    .m_axi_wdata,
    .m_axi_wstrb,
    .m_axi_wlast,
    .m_axi_bvalid,
    .m_axi_bready,
    .m_axi_bresp,
    .m_axi_arvalid,
    .m_axi_arready,
    .m_axi_araddr,
    .m_axi_arlen,
    .m_axi_arsize,
    .m_axi_arburst,
    .m_axi_rvalid,
    .m_axi_rready,
    .m_axi_rdata,
    .m_axi_rresp,
    .m_axi_rlast
  );

  tsl_lite_mxu #(.N(N)) u_mxu (
    .clk_i,
    .rst_ni,
    .ex_valid_i(u_valid[1]),
    .ex_ready_o(rdy[1]),
    .ex_insn_i (mxu_insn),
    .done_o    (done[1]),
    .busy_o    (busy[1]),
    .lrd_o     (lrd[1]),
    .lraddr_o  (lraddr[32 +: 32]),
    .lrdata_i  (lrdata),
    .lwr_o     (lwr[1]),
    .lwaddr_o  (lwaddr[32 +: 32]),
    .lwdata_o  (lwdata[32 +: 32]),
    .lbe_o     (lbe[4 +: 4])
  );

  tsl_lite_vpu #(.N(N)) u_vpu (
    .clk_i,
    .rst_ni,
    .ex_valid_i(u_valid[2]),
    .ex_ready_o(rdy[2]),
    .ex_insn_i (vpu_insn),
    .done_o    (done[2]),
    .busy_o    (busy[2]),
    .lrd_o     (lrd[2]),
    .lraddr_o  (lraddr[64 +: 32]),
    .lrdata_i  (lrdata),
    .lwr_o     (lwr[2]),
    .lwaddr_o  (lwaddr[64 +: 32]),
    .lwdata_o  (lwdata[64 +: 32]),
    .lbe_o     (lbe[8 +: 4])
  );

  // Only the running unit drives its port: AND-OR the three.
  logic        rd, wr, rsel_q;
  logic [31:0] raddr, waddr, wdata;
  logic [3:0]  be;
  always_comb begin
    rd    = |lrd;
    wr    = |lwr;
    raddr = '0;
    waddr = '0;
    wdata = '0;
    be    = '0;
    for (int u = 0; u < 3; u++) begin
      if (lrd[u]) raddr = raddr | lraddr[32*u +: 32];
      if (lwr[u]) begin
        waddr = waddr | lwaddr[32*u +: 32];
        wdata = wdata | lwdata[32*u +: 32];
        be    = be | lbe[4*u +: 4];
      end
    end
  end

  logic [31:0] v_rdata, a_rdata;
  tsl_prim_ram_1r1w #(.Depth(VmemBytes / 4), .Width(32)) u_vmem (
    .clk_i,
    .we_i   (wr && !waddr[Acc]),
    .waddr_i(waddr[VAw+1:2]),
    .wdata_i(wdata),
    .be_i   (be),
    .re_i   (rd && !raddr[Acc]),
    .raddr_i(raddr[VAw+1:2]),
    .rdata_o(v_rdata)
  );
  tsl_prim_ram_1r1w #(.Depth(AccBytes / 4), .Width(32)) u_acc (
    .clk_i,
    .we_i   (wr && waddr[Acc]),
    .waddr_i(waddr[AAw+1:2]),
    .wdata_i(wdata),
    .be_i   (be),
    .re_i   (rd && raddr[Acc]),
    .raddr_i(raddr[AAw+1:2]),
    .rdata_o(a_rdata)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      grant_q <= '0;
      rsel_q  <= 1'b0;
    end else begin
      grant_q <= grant_d;
      if (rd) rsel_q <= raddr[Acc];
    end
  end
  assign lrdata = rsel_q ? a_rdata : v_rdata;
endmodule
